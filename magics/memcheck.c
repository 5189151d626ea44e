/* %memcheck / %%memcheck: a statement's GPU work under compute-sanitizer
 * (runtime/cuda/cuda_memcheck.c switches workers), its report read
 * (runtime/cuda/sanitizer_log.c) and told at the notebook's cells and
 * lines, with the buffers and variables an address belongs to. Findings
 * make the cell an error (CudaMemcheckError). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/cuda/cuda_memcheck.h"
#include "runtime/cuda/sanitizer_log.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/lang/interp.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
#include "runtime/device/device_session.h"
#define RED "\x1b[1;31m"
#define BOLD "\x1b[1m"
#define OFF "\x1b[0m"
#define MAX_OTHER_LINES 40

static const char *const tools[] = {"memcheck", "racecheck", "initcheck", "synccheck"};

/* "--tool racecheck rest" / "--tool=racecheck rest" / "rest". */
static int parse_options(const magic_t *mg, const char *args, const char **tool, const char **rest,
                         cell_error_t *err) {
    *tool = "memcheck";
    const char *p = args;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "--tool", 6) != 0 || (p[6] && p[6] != ' ' && p[6] != '=' && p[6] != '\t')) break;
        p += p[6] ? 7 : 6;
        while (*p == ' ' || *p == '\t') p++;
        size_t n = 0;
        while (p[n] && !isspace((unsigned char)p[n])) n++;
        bool ok = false;
        for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
            if (strlen(tools[i]) == n && !strncmp(p, tools[i], n)) {
                *tool = tools[i];
                ok = true;
            }
        if (!ok)
            return magic_usage_error(mg, err, "--tool takes memcheck, racecheck, initcheck or synccheck, not '%.*s'",
                                     (int)n, p);
        p += n;
    }
    *rest = p;
    return 0;
}

/* ---- the report ---- */

/* The module a site's function belongs to: a kernel the statement launched. */
static const char *site_module(const cuda_memcheck_result_t *res, const san_site_t *s) {
    char base[512];
    const char *f = s->function;
    if (!strncmp(f, "void ", 5)) f += 5;
    size_t n = 0;
    for (const char *q = f; *q && *q != '(' && n + 1 < sizeof base; q++)
        if (*q != ' ') base[n++] = *q;
    base[n] = 0;
    const char *plain_hit = NULL;
    int plain_hits = 0;
    for (int i = 0; i < res->nkernels; i++) {
        char k[256];
        size_t m = 0;
        for (const char *q = res->kernels[i].name; *q && m + 1 < sizeof k; q++)
            if (*q != ' ') k[m++] = *q;
        k[m] = 0;
        if (!strcmp(k, base) || !strcmp(res->kernels[i].lowered, s->function)) return res->kernels[i].hex;
        /* "scale<(int)256>" as the report spells what was launched as scale<256> */
        size_t bl = strcspn(base, "<"), kl = strcspn(k, "<");
        if (bl == kl && !strncmp(base, k, bl)) {
            plain_hit = res->kernels[i].hex;
            plain_hits++;
        }
    }
    if (plain_hits == 1) return plain_hit;
    for (int i = 1; i < res->nkernels; i++) /* one module for all: a __device__ function in it */
        if (strcmp(res->kernels[i].hex, res->kernels[0].hex)) return NULL;
    return res->nkernels ? res->kernels[0].hex : NULL;
}

typedef struct {
    char where[300];   /* "In [2], line 3" or "file.cuh:7" or "" */
    char text[300];    /* the source line, trimmed */
} place_t;

static void place_of(device_session_t *e, const cuda_memcheck_result_t *res, const san_site_t *s, place_t *pl) {
    memset(pl, 0, sizeof *pl);
    const char *file = strrchr(s->file, '/');
    file = file ? file + 1 : s->file;
    char cell[64];
    int line;
    const char *hex = site_module(res, s);
    if (s->line > 0 && !strcmp(file, "cell.cu") && hex &&
        device_unit_line(e, hex, s->line, cell, sizeof cell, &line, pl->text, sizeof pl->text)) {
        snprintf(pl->where, sizeof pl->where, "%s, line %d", cell, line);
        char *t = pl->text;
        while (*t == ' ' || *t == '\t') t++;
        memmove(pl->text, t, strlen(t) + 1);
    } else if (s->line > 0) {
        snprintf(pl->where, sizeof pl->where, "%.250s:%d", s->file, s->line);
    }
}

/* "vecadd" from "vecadd(double *, int)" / "void scale<float>(float *)". */
static void short_name(const char *f, char *out, size_t n) {
    if (!strncmp(f, "void ", 5)) f += 5;
    size_t k = strcspn(f, "(");
    snprintf(out, n, "%.*s", (int)k, f);
}

/* Where an address lies against the session's device buffers: "4 bytes
 * after the end of a (4000 bytes)". */
static bool near_buffer(magic_ctx_t *mc, gpu_client_t *gc, const san_finding_t *f, char *out, size_t n) {
    if (!gc || !f->have_address || (!strstr(f->what, "__global__") && strncmp(f->what, "Uninitialized", 13)))
        return false;
    CUdeviceptr base = 0;
    size_t size = 0;
    bool found = gpu_client_buffer(gc, f->address, &base, &size, NULL);
    if (!found && f->have_nearest) found = gpu_client_buffer(gc, f->nearest_base, &base, &size, NULL);
    if (!found) { /* the closest buffer either side */
        int cnt = gpu_client_buffers(gc, NULL, 0);
        gpu_buffer_info_t *info = xcalloc((size_t)cnt + 1, sizeof *info);
        cnt = gpu_client_buffers(gc, info, cnt);
        uint64_t best = UINT64_MAX;
        for (int i = 0; i < cnt; i++) {
            uint64_t lo = info[i].base, hi = info[i].base + info[i].size;
            uint64_t d = f->address < lo ? lo - f->address : f->address >= hi ? f->address - hi + 1 : 0;
            if (d < best && d < (1u << 20)) {
                best = d;
                base = info[i].base;
                size = info[i].size;
                found = true;
            }
        }
        free(info);
    }
    if (!found) return false;
    char *names = interp_pointer_names(mc->interp, INTERP_PLACE_DEVICE, base);
    char who[300];
    if (*names) snprintf(who, sizeof who, "%s (%zu bytes at %#llx)", names, size, (unsigned long long)base);
    else snprintf(who, sizeof who, "the buffer of %zu bytes at %#llx", size, (unsigned long long)base);
    free(names);
    uint64_t a = f->address;
    if (a < base) snprintf(out, n, "%llu bytes before the start of %s", (unsigned long long)(base - a), who);
    else if (a >= base + size) snprintf(out, n, "%llu bytes after the end of %s", (unsigned long long)(a - base - size), who);
    else snprintf(out, n, "inside %s, at byte %llu", who, (unsigned long long)(a - base));
    return true;
}

/* "... in cell.cu:57" in a backtrace line becomes "... in In [3], line 5". */
static char *cell_lines_in(device_session_t *e, const char *hex, const char *text) {
    strbuf_t b = {0};
    const char *p = text, *hit;
    while (hex && (hit = strstr(p, "cell.cu:")) != NULL) {
        char *end;
        long n = strtol(hit + 8, &end, 10);
        char cell[64];
        int line;
        sb_append(&b, p, (size_t)(hit - p));
        if (end > hit + 8 && device_unit_line(e, hex, (int)n, cell, sizeof cell, &line, NULL, 0))
            sb_printf(&b, "%s, line %d", cell, line);
        else
            sb_append(&b, hit, (size_t)(end - hit) > 8 ? (size_t)(end - hit) : 8);
        p = end > hit + 8 ? end : hit + 8;
    }
    sb_puts(&b, p);
    return sb_take(&b);
}

static void add(json_t *lines, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(json_t *lines, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) >= 0) json_array_append_new(lines, json_string(s));
    va_end(ap);
    free(s);
}

static void access_words(const char *access, char *out, size_t n) {
    /* "Write access" -> "a write" */
    size_t k = strcspn(access, " ");
    snprintf(out, n, "a %.*s", (int)k, access);
    for (char *c = out; *c; c++) *c = (char)tolower((unsigned char)*c);
}

/* One group as report lines; *summary (if not yet set) its one-line form. */
static void report_group(magic_ctx_t *mc, gpu_client_t *gc, const cuda_memcheck_result_t *res, const san_group_t *g,
                         int index, json_t *lines, char **summary) {
    const san_finding_t *f = g->first;
    char kname[256] = "";
    if (f->nsites) short_name(f->sites[0].function, kname, sizeof kname);
    strbuf_t one = {0};
    if (f->nsites > 1 && f->sites[0].access[0]) { /* racecheck: an access and the ones it races with */
        place_t p0;
        place_of(mc->dev, res, &f->sites[0], &p0);
        char a0[40];
        access_words(f->sites[0].access, a0, sizeof a0);
        long hz = 0;
        for (int i = 1; i < f->nsites; i++) hz += f->sites[i].hazards;
        add(lines, BOLD "[%d] %s" OFF " in kernel %s, between %s at %s", index, f->what, f->sites[0].function, a0,
            p0.where[0] ? p0.where : "an unknown line");
        sb_printf(&one, "%s between %s at %s", f->what, a0, p0.where[0] ? p0.where : "an unknown line");
        if (p0.text[0]) add(lines, "        %s", p0.text);
        for (int i = 1; i < f->nsites; i++) {
            place_t pi;
            place_of(mc->dev, res, &f->sites[i], &pi);
            char ai[40];
            access_words(f->sites[i].access, ai, sizeof ai);
            add(lines, "    and %s at %s (%ld hazard%s)", ai, pi.where[0] ? pi.where : "an unknown line",
                f->sites[i].hazards, f->sites[i].hazards == 1 ? "" : "s");
            if (pi.text[0]) add(lines, "        %s", pi.text);
            if (i == 1) sb_printf(&one, " and %s at %s", ai, pi.where[0] ? pi.where : "an unknown line");
        }
        sb_printf(&one, " in %s", kname);
        if (hz) sb_printf(&one, " (%ld hazard%s)", hz, hz == 1 ? "" : "s");
    } else {
        place_t p;
        if (f->nsites) place_of(mc->dev, res, &f->sites[0], &p);
        else memset(&p, 0, sizeof p);
        char count[64] = "";
        if (g->count > 1) snprintf(count, sizeof count, " (%d times)", g->count);
        add(lines, BOLD "[%d] %s" OFF "%s", index, f->what, count);
        sb_printf(&one, "%s", f->what);
        if (f->nsites) {
            add(lines, "    in kernel %s%s%s", f->sites[0].function, p.where[0] ? ", at " : "", p.where);
            if (p.where[0]) sb_printf(&one, " at %s", p.where);
            sb_printf(&one, " in %s", kname);
        }
        if (p.text[0]) add(lines, "        %s", p.text);
        if (f->have_thread) {
            add(lines, "    %s thread (%u,%u,%u) in block (%u,%u,%u)%s", g->count > 1 ? "first by" : "by", f->thread[0],
                f->thread[1], f->thread[2], f->block[0], f->block[1], f->block[2],
                g->count > 1 ? " (the report's order)" : "");
            sb_printf(&one, ", thread (%u,%u,%u) block (%u,%u,%u)", f->thread[0], f->thread[1], f->thread[2],
                      f->block[0], f->block[1], f->block[2]);
        }
        if (f->have_address) {
            char near[512];
            bool nb = near_buffer(mc, gc, f, near, sizeof near);
            add(lines, "    address %#llx %s%s%s", (unsigned long long)f->address, f->address_note, nb ? ": " : "",
                nb ? near : "");
            if (nb) sb_printf(&one, ": %s", near);
            else if (f->address_note[0]) sb_printf(&one, ": address %#llx %s", (unsigned long long)f->address,
                                                   f->address_note);
        }
    }
    if (f->detail) { /* backtraces and lines the parser did not know, as the tool wrote them */
        const char *hex = f->nsites ? site_module(res, &f->sites[0]) : NULL;
        for (const char *l = f->detail; *l;) {
            const char *eol = strchr(l, '\n');
            size_t k = eol ? (size_t)(eol - l) : strlen(l);
            char *text = xstrndup(l, k);
            char *mapped = cell_lines_in(mc->dev, hex, text);
            add(lines, "    | %s", mapped);
            free(mapped);
            free(text);
            l += k + (eol ? 1 : 0);
        }
    }
    if (!*summary) *summary = sb_take(&one);
    else free(one.data);
}

static void add_other(json_t *lines, const char *other) {
    int n = 0;
    for (const char *l = other; l && *l && n < MAX_OTHER_LINES; n++) {
        const char *eol = strchr(l, '\n');
        size_t k = eol ? (size_t)(eol - l) : strlen(l);
        if (n == 0) add(lines, "compute-sanitizer also said:");
        add(lines, "    | %.*s", (int)k, l);
        l += k + (eol ? 1 : 0);
    }
}

/* ---- the magic ---- */

static int run(magic_ctx_t *mc, const magic_t *mg, const char *tool, const char *code, cell_error_t *err) {
    cuda_memcheck_t *m;
    char ename[64], msg[2048];
    if (cuda_memcheck_begin(mc->cuda, tool, &m, ename, msg, sizeof msg)) {
        cell_error_set(err, ename, NULL, "%s", msg);
        return -1;
    }
    cell_error_t run_err = {0};
    int rc = mc->run(mc, code, &run_err);
    cuda_memcheck_result_t res;
    cuda_memcheck_end(m, &res);
    char why[256];
    gpu_client_t *gc = cuda_session_client(mc->cuda, why, sizeof why);

    san_log_t log;
    san_log_parse(res.log, &log);
    san_group_t *groups;
    int ng = san_log_group(&log, &groups);
    int nerr = log.errors > 0 ? log.errors : log.n;
    char launches[64];
    snprintf(launches, sizeof launches, "%d kernel launch%s", res.launches, res.launches == 1 ? "" : "es");
    int out = rc;
    if (ng > 0 || log.errors > 0) {
        json_t *lines = json_array();
        add(lines, RED "CudaMemcheckError" OFF ": compute-sanitizer %s found %d error%s in %s of %s", tool, nerr,
            nerr == 1 ? "" : "s", launches, mc->cell_name);
        char *summary = NULL;
        for (int i = 0; i < ng; i++) report_group(mc, gc, &res, &groups[i], i + 1, lines, &summary);
        if (log.not_printed > 0)
            add(lines, "%d more error%s not shown (the sanitizer prints at most 1000)", log.not_printed,
                log.not_printed == 1 ? " was" : "s were");
        if (ng == 0) add(lines, "the report had no finding icuda could read; as compute-sanitizer wrote it:");
        add_other(lines, log.other);
        if (rc != 0) add(lines, "the statement also stopped with %s: %s", run_err.ename ? run_err.ename : "an error",
                         run_err.evalue ? run_err.evalue : "");
        if (res.note[0]) add(lines, "%s", res.note);
        cell_error_set(err, "CudaMemcheckError", lines, "%s: %s", tool,
                         summary ? summary : "compute-sanitizer reported errors");
        free(summary);
        out = -1;
    } else {
        io_printf(mc->io, "stdout", "compute-sanitizer %s: no errors in %s (%.1f s switching workers)%s%s\n", tool,
                  launches, res.switch_ms / 1000, res.note[0] ? ". " : "", res.note);
        if (rc != 0) {
            *err = run_err;
            memset(&run_err, 0, sizeof run_err);
        } else if (res.gpu_error) {
            cell_error_set(err, gpu_client_error_name(res.gpu_error), NULL, "the statement's GPU work failed under "
                             "compute-sanitizer: %s", gpu_client_error_name(res.gpu_error));
            out = -1;
        }
    }
    cell_error_clear(&run_err);
    free(groups);
    san_log_free(&log);
    cuda_memcheck_result_free(&res);
    return out;
}

static int memcheck_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    const char *tool, *code;
    if (parse_options(&magic_memcheck, args, &tool, &code, err)) return -1;
    if (!*code) return magic_usage_error(&magic_memcheck, err, "give the statement to check, e.g. "
                                         "%%memcheck k<<<blocks, threads>>>(d, n);");
    return run(mc, &magic_memcheck, tool, code, err);
}

static int memcheck_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    const char *tool, *rest;
    if (parse_options(&magic_memcheck, args, &tool, &rest, err)) return -1;
    if (*rest) return magic_usage_error(&magic_memcheck, err, "%%%%memcheck takes only --tool on its line; the "
                                        "statements go in the cell, not '%s'", rest);
    return run(mc, &magic_memcheck, tool, body, err);
}

const magic_t magic_memcheck = {
    "memcheck", "%memcheck [--tool memcheck|racecheck|initcheck|synccheck] STATEMENT",
    "run a statement's GPU work under compute-sanitizer; errors at the cell's lines",
    "Runs the statement (or, as %%memcheck, the cell) in a GPU worker started\n"
    "under the toolkit's compute-sanitizer, then goes back to a normal worker;\n"
    "device buffers keep their contents across both switches. Each error is\n"
    "reported with its kind, the kernel, thread and block, the cell and line of\n"
    "the device code, and the buffer (and variables) the address belongs to;\n"
    "errors from many threads at one line are counted once. Errors make the\n"
    "cell an error (CudaMemcheckError). Tools: memcheck (out-of-bounds and\n"
    "misaligned accesses, the default), racecheck (shared-memory races),\n"
    "initcheck (reads of device memory never written), synccheck (barriers\n"
    "not all threads reach). compute-sanitizer is looked for as %sass looks\n"
    "for nvdisasm; see docs/memcheck.md.",
    memcheck_line, memcheck_cell};
