/* %heap, %free and %reset: the session's live buffers and the
 * variables that point at them; freeing one the way its place needs; a
 * fresh session without a new kernel process. Frees go through host code
 * (free, delete[], cudaFree, cudaFreeHost), so the interpreter's records
 * and the worker's memory are released as a cell would release them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "measure.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
#include "runtime/device/device_session.h"
static gpu_client_t *client(magic_ctx_t *mc) {
    char why[600];
    return cuda_session_client(mc->cuda, why, sizeof why);
}

/* The worker's buffers, in address order (gpu_client_buffers). */
typedef struct {
    gpu_buffer_info_t *v;
    int n;
} gpu_bufs_t;

static gpu_bufs_t gpu_bufs(gpu_client_t *g) {
    gpu_bufs_t b = {NULL, 0};
    if (!g) return b;
    int n = gpu_client_buffers(g, NULL, 0);
    b.v = xcalloc(n > 0 ? n : 1, sizeof *b.v);
    b.n = gpu_client_buffers(g, b.v, n);
    return b;
}

static const gpu_buffer_info_t *gpu_buf_at(const gpu_bufs_t *b, uint64_t base) {
    int lo = 0, hi = b->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (b->v[mid].base < base) lo = mid + 1;
        else hi = mid;
    }
    return lo < b->n && b->v[lo].base == base ? &b->v[lo] : NULL;
}

/* Whether a buffer's contents come back after a worker restart: host
 * memory always; device memory when the worker keeps a shadow of it. And
 * the GPU that holds it (-1: none, or not known). */
static const char *survives(gpu_client_t *g, const gpu_bufs_t *bufs, int place, uint64_t base, int *dev) {
    *dev = -1;
    if (place == INTERP_PLACE_HOST || place == INTERP_PLACE_PINNED) return "yes";
    if (!g) return "?";
    const gpu_buffer_info_t *v = gpu_buf_at(bufs, base);
    const char *r = "no";
    if (v) {
        *dev = v->dev;
        if (v->shadow_bound || v->shadow_host || v->shadow_fill >= 0) r = "yes";
    }
    return place == INTERP_PLACE_MANAGED ? "yes" : r;
}

#define HEAP_MAX_DEV 64

/* cudaMemGetInfo of device d, as a line of the totals. */
static void mem_info_line(gpu_client_t *g, int d, bool first, strbuf_t *t, strbuf_t *h) {
    size_t fr = 0, tot = 0;
    if (gpu_client_mem_info_on(g, d, &fr, &tot) || !tot) return;
    char a[32], b[32], c[32];
    magic_fmt_bytes((double)(tot - fr), a, sizeof a);
    magic_fmt_bytes((double)fr, b, sizeof b);
    magic_fmt_bytes((double)tot, c, sizeof c);
    sb_printf(t, "device %d (cudaMemGetInfo): %s in use by every process and context, %s free of %s\n", d, a, b, c);
    sb_printf(h, "%sdevice %d (<code>cudaMemGetInfo</code>): %s in use by every process and context, %s free of %s",
              first ? "" : "<br>", d, a, b, c);
}

static void join_names(json_t *row, strbuf_t *b) {
    size_t i;
    json_t *v;
    int k = 0;
    json_array_foreach(json_object_get(row, "names"), i, v) sb_printf(b, "%s%s", k++ ? ", " : "", json_string_value(v));
    json_array_foreach(json_object_get(row, "inside"), i, v) sb_printf(b, "%s%s", k++ ? ", " : "", json_string_value(v));
    if (!k) sb_puts(b, "(none)");
}

static void html_escape(strbuf_t *b, const char *s) {
    for (; *s; s++) {
        if (*s == '<') sb_puts(b, "&lt;");
        else if (*s == '>') sb_puts(b, "&gt;");
        else if (*s == '&') sb_puts(b, "&amp;");
        else sb_putc(b, *s);
    }
}

#define NPLACES 4 /* host, pinned, managed, device */

static int heap_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    json_t *rows = interp_heap(mc->interp);
    size_t n = json_array_size(rows);
    gpu_client_t *g = client(mc);
    gpu_bufs_t bufs = gpu_bufs(g);
    double dbytes[HEAP_MAX_DEV] = {0};
    int dcount[HEAP_MAX_DEV] = {0}, ndevs = 0;
    double total[NPLACES] = {0};
    int count[NPLACES] = {0};
    static const char *const pname[NPLACES] = {"host", "pinned", "managed", "device"};
    strbuf_t t = {0}, h = {0};
    sb_printf(&t, "%-18s %-20s %10s  %-9s %-14s %s\n", "buffer", "variables", "size", "place", "made in", "survives restart");
    sb_puts(&h, "<table><thead><tr><th>buffer</th><th>variables</th><th style=\"text-align:right\">size</th>"
                "<th>place</th><th>made in</th><th>survives a worker restart</th></tr></thead><tbody>");
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(rows, i);
        uint64_t word = (uint64_t)json_integer_value(json_object_get(r, "word"));
        double size = (double)json_integer_value(json_object_get(r, "size"));
        int place = (int)json_integer_value(json_object_get(r, "place"));
        int pi = place == INTERP_PLACE_PINNED ? 1 : place == INTERP_PLACE_MANAGED ? 2 : place == INTERP_PLACE_DEVICE ? 3 : 0;
        total[pi] += size;
        count[pi]++;
        int dev;
        const char *surv = survives(g, &bufs, place, word, &dev);
        if (place == INTERP_PLACE_DEVICE && dev >= 0 && dev < HEAP_MAX_DEV) {
            ndevs += !dcount[dev];
            dcount[dev]++;
            dbytes[dev] += size;
        }
        if (i >= MAGIC_TABLE_ROWS) continue; /* counted, not shown: a table a front end can draw */
        char where[48], made[96], sz[32], addr[32];
        if (place == INTERP_PLACE_DEVICE && dev >= 0) snprintf(where, sizeof where, "device %d", dev);
        else snprintf(where, sizeof where, "%s", magic_place_name(place));
        snprintf(made, sizeof made, "%s, line %d", json_string_value(json_object_get(r, "cell")),
                 (int)json_integer_value(json_object_get(r, "line")));
        magic_fmt_bytes(size, sz, sizeof sz);
        if (place == INTERP_PLACE_HOST) snprintf(addr, sizeof addr, "%s", json_string_value(json_object_get(r, "alloc")));
        else snprintf(addr, sizeof addr, "0x%" PRIx64, word);
        strbuf_t names = {0};
        join_names(r, &names);
        char *nm = sb_take(&names);
        sb_printf(&t, "%-18s %-20s %10s  %-9s %-14s %s\n", addr, nm, sz, where, made, surv);
        sb_printf(&h, "<tr><td><code>%s</code></td><td><code>", addr);
        html_escape(&h, nm);
        sb_printf(&h, "</code></td><td style=\"text-align:right\">%s</td><td>%s</td><td>", sz, where);
        html_escape(&h, made);
        sb_printf(&h, "</td><td>%s</td></tr>", surv);
        free(nm);
    }
    sb_puts(&h, "</tbody></table>");
    if (n > MAGIC_TABLE_ROWS) {
        sb_printf(&t, "... and %zu more buffers (in the totals)\n", n - MAGIC_TABLE_ROWS);
        sb_printf(&h, "<p>... and %zu more buffers (in the totals)</p>", n - MAGIC_TABLE_ROWS);
    }
    if (n == 0) {
        free(sb_take(&t));
        sb_puts(&t, "no live buffers: nothing allocated with malloc, new, cudaMalloc, cudaMallocHost or cudaMallocManaged\n");
    }
    /* totals per place, and the device's own count of its memory */
    sb_puts(&h, "<p>");
    for (int p = 0; p < NPLACES; p++) {
        if (!count[p]) continue;
        char sz[32];
        magic_fmt_bytes(total[p], sz, sizeof sz);
        sb_printf(&t, "%s%s: %d buffer%s, %s", p && (count[0] || p > 1) ? "; " : "total ", pname[p], count[p],
                  count[p] == 1 ? "" : "s", sz);
        sb_printf(&h, "%s%s: %d buffer%s, %s", p && (count[0] || p > 1) ? "; " : "total ", pname[p], count[p],
                  count[p] == 1 ? "" : "s", sz);
    }
    if (n) sb_puts(&t, "\n");
    /* with buffers on several GPUs: what each holds, and each one's own count */
    for (int d = 0; ndevs > 1 && d < HEAP_MAX_DEV; d++) {
        if (!dcount[d]) continue;
        char sz[32];
        magic_fmt_bytes(dbytes[d], sz, sizeof sz);
        sb_printf(&t, "on device %d: %d buffer%s, %s\n", d, dcount[d], dcount[d] == 1 ? "" : "s", sz);
        sb_printf(&h, "<br>on device %d: %d buffer%s, %s", d, dcount[d], dcount[d] == 1 ? "" : "s", sz);
    }
    if (g) {
        int cur = gpu_client_get_device(g);
        bool first = !n;
        mem_info_line(g, cur, first, &t, &h);
        for (int d = 0; ndevs > 1 && d < HEAP_MAX_DEV; d++)
            if (dcount[d] && d != cur) mem_info_line(g, d, false, &t, &h);
    }
    free(bufs.v);
    sb_puts(&h, "</p>");
    char *plain = sb_take(&t), *html = sb_take(&h);
    io_display_text(mc->io, plain, n ? html : NULL);
    free(plain);
    free(html);
    json_decref(rows);
    return 0;
}

/* The row of rows whose buffer name points at (its start), or NULL with
 * *inside set when name points into one further in. */
static json_t *row_of(json_t *rows, const char *name, bool *inside) {
    size_t i, k;
    json_t *r, *v;
    *inside = false;
    json_array_foreach(rows, i, r) {
        json_array_foreach(json_object_get(r, "names"), k, v) if (!strcmp(json_string_value(v), name)) return r;
        json_array_foreach(json_object_get(r, "inside"), k, v) {
            const char *s = json_string_value(v);
            size_t l = strlen(name);
            if (!strncmp(s, name, l) && s[l] == ' ') *inside = true;
        }
    }
    return NULL;
}

static bool is_variable(magic_ctx_t *mc, const char *name) {
    json_t *rows = interp_who(mc->interp);
    size_t i;
    json_t *r;
    bool found = false;
    json_array_foreach(rows, i, r) found |= !strcmp(json_string_value(json_object_get(r, "name")), name);
    json_decref(rows);
    return found;
}

/* The call that releases a buffer of row r, for pointer expression p. */
static const char *release_call(json_t *r) {
    const char *alloc = json_string_value(json_object_get(r, "alloc"));
    int place = (int)json_integer_value(json_object_get(r, "place"));
    if (!strcmp(alloc, "new")) return "delete";
    if (!strcmp(alloc, "new[]")) return "delete[]";
    if (!strcmp(alloc, "malloc")) return "free";
    return place == INTERP_PLACE_PINNED ? "cudaFreeHost" : "cudaFree";
}

static int free_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    int rc = 0;
    if (argc == 0) rc = magic_usage_error(&magic_free, err, "which variables' buffers?");
    /* every name is checked before anything is freed */
    json_t *rows = interp_heap(mc->interp);
    for (int i = 0; !rc && i < argc; i++) {
        bool inside;
        if (row_of(rows, argv[i], &inside)) continue;
        if (inside)
            rc = magic_usage_error(&magic_free, err, "%s points inside a buffer, not at its start: free it through the "
                                   "pointer its allocation returned", argv[i]);
        else if (!is_variable(mc, argv[i]))
            rc = magic_usage_error(&magic_free, err, "%s is not a session variable (%%who lists them)", argv[i]);
        else
            rc = magic_usage_error(&magic_free, err, "%s does not point at a live buffer (NULL, freed already, or not "
                                   "made by malloc, new or cudaMalloc...)", argv[i]);
    }
    strbuf_t code = {0}, said = {0};
    for (int i = 0; !rc && i < argc; i++) {
        bool inside;
        json_t *r = row_of(rows, argv[i], &inside);
        if (!r || json_object_get(r, "freed")) continue; /* two names of one buffer */
        json_object_set_new(r, "freed", json_true());
        const char *call = release_call(r);
        bool fn = call[0] != 'd';
        sb_printf(&code, "%s%s%s%s;", call, fn ? "(" : " ", argv[i], fn ? ")" : "");
        size_t k;
        json_t *v;
        strbuf_t names = {0};
        json_array_foreach(json_object_get(r, "names"), k, v) {
            sb_printf(&code, " %s = 0;", json_string_value(v));
            sb_printf(&names, "%s%s", k ? ", " : "", json_string_value(v));
        }
        sb_putc(&code, '\n');
        char sz[32];
        magic_fmt_bytes((double)json_integer_value(json_object_get(r, "size")), sz, sizeof sz);
        char *nm = sb_take(&names);
        sb_printf(&said, "freed %s of %s memory with %s; %s now NULL\n", sz,
                  magic_place_name((int)json_integer_value(json_object_get(r, "place"))), call, nm);
        if (json_array_size(json_object_get(r, "inside")))
            sb_printf(&said, "  (still pointing into it, now dangling: %s)\n",
                      json_string_value(json_array_get(json_object_get(r, "inside"), 0)));
        free(nm);
    }
    char *c = sb_take(&code), *s = sb_take(&said);
    if (!rc && c[0]) rc = mc->run(mc, c, err);
    if (!rc && s[0]) io_printf(mc->io, "stdout", "%s", s);
    free(c);
    free(s);
    json_decref(rows);
    magic_free_args(argv, argc);
    return rc;
}

static int reset_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    bool bad = argc > 1 || (argc == 1 && strcmp(argv[0], "-f"));
    magic_free_args(argv, argc);
    if (bad) return magic_usage_error(&magic_reset, err, "%%reset takes only -f (and never asks)");
    /* GPU memory first, through the CUDA calls, while the variables still exist */
    json_t *rows = interp_heap(mc->interp);
    strbuf_t code = {0};
    size_t i;
    json_t *r;
    int nbuf = 0;
    double bytes = 0;
    json_array_foreach(rows, i, r) {
        nbuf++;
        bytes += (double)json_integer_value(json_object_get(r, "size"));
        if (strcmp(json_string_value(json_object_get(r, "alloc")), "cuda")) continue;
        sb_printf(&code, "%s((void *)0x%" PRIx64 "ULL);\n", release_call(r),
                  (uint64_t)json_integer_value(json_object_get(r, "word")));
    }
    json_decref(rows);
    char *c = sb_take(&code);
    cell_error_t ferr = {0};
    /* a failure (a worker that died) must not keep the rest from being reset */
    if (c[0] && mc->run(mc, c, &ferr))
        io_printf(mc->io, "stderr", "%%reset: freeing device memory failed (%s); the rest is reset anyway\n",
                  ferr.evalue ? ferr.evalue : "?");
    cell_error_clear(&ferr);
    free(c);
    json_t *vars = interp_who(mc->interp);
    magic_who_user_rows(vars);
    size_t nvars = json_array_size(vars);
    json_decref(vars);
    int nk = mc->dev->nkernels;
    measure_clear(mc);
    mc->reset_session(mc);
    char sz[32];
    magic_fmt_bytes(bytes, sz, sizeof sz);
    io_printf(mc->io, "stdout",
              "session reset: %zu variable%s, %d buffer%s (%s), %d kernel%s and the device prelude released; the GPU "
              "worker, %%%%header files and %%nvrtc options stay\n",
              nvars, nvars == 1 ? "" : "s", nbuf, nbuf == 1 ? "" : "s", sz, nk, nk == 1 ? "" : "s");
    return 0;
}

const magic_t magic_heap = {
    "heap", "%heap", "live buffers: variables, size, place, where made, totals",
    "Every live buffer made by malloc/new, cudaMalloc, cudaMallocHost/cudaHostAlloc or cudaMallocManaged: the\n"
    "session variables pointing at it, its size, its place (host, pinned, device N: the GPU that holds it,\n"
    "managed), the cell and\n"
    "line that made it, and whether its contents survive a restart of the GPU worker (host memory does;\n"
    "device memory when icuda holds a copy of what was written to it). Totals per place, and the device's\n"
    "memory as cudaMemGetInfo reports it.",
    heap_line, NULL};

const magic_t magic_free = {
    "free", "%free NAME [NAME ...]", "free the buffer a variable points at, the right way for its place",
    "free() for malloc, delete/delete[] for new, cudaFree for device and managed memory, cudaFreeHost for\n"
    "pinned memory. Every variable pointing at the buffer's start becomes NULL.",
    free_line, NULL};

const magic_t magic_reset = {
    "reset", "%reset [-f]", "a fresh session: variables, functions, kernels, buffers released",
    "Releases host variables, functions and types, the device prelude and kernels, every buffer (device\n"
    "memory freed with cudaFree) and the loaded modules; %timeit's measurements are forgotten. The kernel\n"
    "process and the GPU worker stay, and so do %%header files and %nvrtc options. Never asks (-f is\n"
    "accepted, as IPython users type it).",
    reset_line, NULL};
