/* A cell's device code: assembling its translation unit from the session
 * prelude and the cell, compiling (or finding it in the cache), reporting,
 * and remembering what later cells need. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile_errors.h"
#include "device_headers.h"
#include "device_lines.h"
#include "gpu_arch.h"
#include "progress.h"
#include "lang/interp.h"
#include "session.h"
#include "strbuf.h"

#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

/* The current cell's items are compiled under this name, not "In [7]", so
 * that running a cell again (with a new execution count) finds its module in
 * the cache; diagnostics get the real label back (relabel). */
#define THIS_CELL "this cell"

static bool is_device_side(const cell_item_t *it) { return it->kind == ITEM_DEVICE || it->kind == ITEM_BOTH; }

const char *engine_arch(engine_t *e) {
    if (!e->arch[0]) e->arch_from_gpu = gpu_arch_resolve(e->arch, sizeof e->arch, e->arch_note, sizeof e->arch_note);
    return e->arch;
}

static const char *cuda_home(void) {
    const char *h = getenv("CUDA_HOME");
    if (!h || !*h) h = getenv("CUDA_PATH");
    return (h && *h) ? h : ICUDA_CUDA_HOME;
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0) abort();
    va_end(ap);
    return s;
}

int engine_options(engine_t *e, char ***out) {
    bool user_arch = false, user_std = false;
    for (int i = 0; i < e->nuser_options; i++) {
        const char *o = e->user_options[i];
        if (!strncmp(o, "-arch", 5) || !strncmp(o, "--gpu-architecture", 18)) user_arch = true;
        if (!strncmp(o, "-std", 4) || !strncmp(o, "--std", 5)) user_std = true;
    }
    char **v = calloc(10 + e->nuser_options, sizeof *v);
    if (!v) abort();
    int n = 0;
    if (!user_arch) v[n++] = fmt("-arch=%s", engine_arch(e));
    if (!user_std) v[n++] = fmt("-std=c++17");
    v[n++] = fmt("-I%s/include", cuda_home());
    v[n++] = fmt("-I%s/include/cccl", cuda_home());
    v[n++] = fmt("-Xptxas=-v"); /* the resource report of each kernel */
    /* line tables for compute-sanitizer and nvdisasm; the code is the same without */
    bool user_lineinfo = false;
    for (int i = 0; i < e->nuser_options; i++)
        if (!strcmp(e->user_options[i], "-lineinfo") || !strcmp(e->user_options[i], "--generate-line-info"))
            user_lineinfo = true;
    if (!user_lineinfo) v[n++] = fmt("-lineinfo");
    v[n++] = fmt("-pch");       /* see build_unit */
    v[n++] = fmt("--pch-messages=false");
    for (int i = 0; i < e->nuser_options; i++) {
        const char *o = e->user_options[i];
        /* nvcc's -O<n> sets ptxas's optimisation level; NVRTC only takes it that way */
        if (o[0] == '-' && o[1] == 'O' && o[2] >= '0' && o[2] <= '3' && !o[3]) v[n++] = fmt("-Xptxas=%s", o);
        else v[n++] = strdup(o);
    }
    *out = v;
    return n;
}

void options_free(char **opts, int n) {
    for (int i = 0; i < n; i++) free(opts[i]);
    free(opts);
}

/* Standard stand-ins first, then %%header files (which may shadow them). */
static int collect_headers(engine_t *e, const char ***names, const char ***texts) {
    int n = device_std_header_count + e->nheaders;
    *names = calloc(n, sizeof **names);
    *texts = calloc(n, sizeof **texts);
    if (!*names || !*texts) abort();
    for (int i = 0; i < device_std_header_count; i++) {
        (*names)[i] = device_std_headers[i].name;
        (*texts)[i] = device_std_headers[i].text;
    }
    for (int i = 0; i < e->nheaders; i++) {
        (*names)[device_std_header_count + i] = e->headers[i].name;
        (*texts)[device_std_header_count + i] = e->headers[i].device_view;
    }
    return n;
}

/* "vecadd(double *z, const double *x, int n)": from the kernel's name to the
 * ')' that closes its parameters, white space folded. */
static char *kernel_signature(const char *code, const cell_item_t *it) {
    const char *s = code + it->start, *end = code + it->end;
    size_t nl = strlen(it->name);
    const char *p = s;
    for (; p + nl <= end; p++) {
        if (memcmp(p, it->name, nl) == 0 && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            const char *q = p + nl;
            while (q < end && isspace((unsigned char)*q)) q++;
            if (q < end && *q == '(') break;
        }
    }
    if (p + nl > end) return strdup(it->name);
    strbuf_t b = {0};
    int depth = 0;
    bool space = false;
    for (const char *q = p; q < end; q++) {
        char c = *q;
        if (isspace((unsigned char)c)) {
            space = true;
            continue;
        }
        if (space && b.len && b.data[b.len - 1] != '(' && c != ')' && c != ',') sb_putc(&b, ' ');
        space = false;
        sb_putc(&b, c);
        if (c == '(') depth++;
        if (c == ')' && --depth == 0) break;
    }
    return sb_take(&b);
}

/* The namespace a `using namespace X;` or `namespace a = X;` item names. */
static bool namespace_target(const char *code, const cell_item_t *it, char *out, size_t cap) {
    if (strncmp(it->key, "using:", 6) && strncmp(it->key, "nsalias:", 8)) return false;
    const char *p = code + it->start, *end = code + it->end;
    if (it->key[0] == 'u') p += strlen("using");
    else if (!(p = memchr(p, '=', (size_t)(end - p)))) return false;
    else p++;
    if (it->key[0] == 'u') {
        while (p < end && isspace((unsigned char)*p)) p++;
        p += strlen("namespace");
    }
    size_t n = 0;
    for (; p < end && *p != ';' && n + 1 < cap; p++)
        if (!isspace((unsigned char)*p)) out[n++] = *p;
    out[n] = 0;
    return n > 0 && strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:") == n;
}

static void add_item_text(strbuf_t *tu, const char *code, const cell_item_t *it, const char *cell) {
    sb_printf(tu, "#line %d \"%s\"\n", it->first_line, cell);
    char ns[96];
    /* the namespace declared first, so that a cell naming one it never
     * included fails at its use, not in every later cell's prelude */
    if (namespace_target(code, it, ns, sizeof ns)) { /* a::b as namespace a { namespace b {} } (C++14 too) */
        int depth = 0;
        char *save = NULL;
        for (char *part = strtok_r(ns, ":", &save); part; part = strtok_r(NULL, ":", &save), depth++)
            sb_printf(tu, "namespace %s { ", part);
        while (depth--) sb_puts(tu, "} ");
    }
    if (it->device_end > it->start && it->device_end <= it->end) { /* "union U {...} u;": the type alone */
        sb_append(tu, code + it->start, it->device_end - it->start);
        sb_putc(tu, ';');
    } else {
        sb_append(tu, code + it->start, it->end - it->start);
    }
    sb_putc(tu, '\n');
}

/* The text kept in the prelude for one key: all of the cell's items with
 * that key (overloads), each with its #line. */
static char *group_text(const char *code, const cell_split_t *sp, const char *key, const char *cell) {
    strbuf_t b = {0};
    for (size_t i = 0; i < sp->n; i++)
        if (is_device_side(&sp->items[i]) && !strcmp(sp->items[i].key, key)) add_item_text(&b, code, &sp->items[i], cell);
    return sb_take(&b);
}

static bool cell_defines(const cell_split_t *sp, const char *key) {
    for (size_t i = 0; i < sp->n; i++)
        if (is_device_side(&sp->items[i]) && sp->items[i].key[0] && !strcmp(sp->items[i].key, key)) return true;
    return false;
}

/* A host item "const int BLOCK = 256;" or "constexpr int BINS = 64;"
 * (static or not): a scalar that device code may use as a compile-time
 * constant. Returns where "const" or "constexpr" starts. */
static const char *host_const_decl(const char *code, const cell_item_t *it) {
    if (it->kind != ITEM_HOST || it->is_function || !it->name[0]) return NULL;
    const char *p = code + it->start, *end = code + it->end;
    for (bool more = true; more;) {
        more = false;
        static const char *const lead[] = {"static ", "inline ", NULL};
        for (int k = 0; lead[k]; k++)
            if (!strncmp(p, lead[k], strlen(lead[k]))) {
                p += strlen(lead[k]);
                while (p < end && isspace((unsigned char)*p)) p++;
                more = true;
            }
    }
    if (strncmp(p, "const ", 6) != 0 && strncmp(p, "constexpr ", 10) != 0) return NULL;
    const char *eq = memchr(p, '=', (size_t)(end - p));
    if (!eq || memchr(p, '*', (size_t)(eq - p)) || memchr(p, '[', (size_t)(eq - p))) return NULL; /* scalars only */
    return p;
}

static bool word_in(const char *s, size_t n, const char *word) {
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (!memcmp(s + i, word, w) && (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) &&
            (i + w == n || !(isalnum((unsigned char)s[i + w]) || s[i + w] == '_')))
            return true;
    return false;
}

static bool cell_device_uses(const char *code, const cell_split_t *sp, const char *name) {
    for (size_t i = 0; i < sp->n; i++)
        if (is_device_side(&sp->items[i]) && word_in(code + sp->items[i].start, sp->items[i].end - sp->items[i].start, name))
            return true;
    return false;
}

/* Host constants as the device sees them: the interpreter's constexpr lines
 * for earlier cells (macros come through the prelude instead), less the
 * ones this cell declares again, plus this cell's own const scalars that its
 * device code uses (they run only after the compile). */
static void add_host_constants(engine_t *e, strbuf_t *tu, const char *code, const cell_split_t *sp, const char *cell) {
    char *consts = e->interp ? interp_device_constants(e->interp) : NULL;
    bool header = false;
    for (const char *line = consts; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        const char *eq = memchr(line, '=', n);
        bool keep = line[0] != '#' && eq;
        if (keep) {
            const char *q = eq;
            while (q > line && q[-1] == ' ') q--;
            const char *a = q;
            while (a > line && (isalnum((unsigned char)a[-1]) || a[-1] == '_')) a--;
            for (size_t i = 0; i < sp->n && keep; i++)
                if (host_const_decl(code, &sp->items[i]) && strlen(sp->items[i].name) == (size_t)(q - a) &&
                    !memcmp(sp->items[i].name, a, (size_t)(q - a)))
                    keep = false;
        }
        if (keep) {
            /* a constant this unit does not use is no warning of the cell's; _Pragma, as
             * a directive here would change the unit's precompiled-header prefix */
            if (!header) sb_puts(tu, "#line 0 \"session constants\"\n_Pragma(\"nv_diag_suppress 177\")\n");
            header = true;
            sb_append(tu, line, n);
            sb_putc(tu, '\n');
        }
        line = eol ? eol + 1 : line + n;
    }
    if (header) sb_puts(tu, "_Pragma(\"nv_diag_default 177\")\n");
    free(consts);
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        const char *decl = host_const_decl(code, it);
        if (!decl || !cell_device_uses(code, sp, it->name)) continue;
        sb_printf(tu, "#line %d \"%s\"\n%.*s", it->first_line, cell, (int)(decl - (code + it->start)), code + it->start);
        if (!strncmp(decl, "constexpr ", 10)) sb_printf(tu, "%.*s\n", (int)(code + it->end - decl), decl);
        else sb_printf(tu, "constexpr %.*s\n", (int)(code + it->end - (decl + 6)), decl + 6);
    }
}

/* Is a prelude text (after its #line) a preprocessor item? */
static bool pp_text(const char *text) {
    const char *nl = strchr(text, '\n');
    return nl && nl[1] == '#';
}

/* A unit as NVRTC gets it. NVRTC makes no precompiled header for a source
 * with a #line directive in it, so the unit is assembled with #line markers
 * and then compiled without them: map says where each stretch came from
 * (unit lines [tu_first, tu_first + n) are lines cell_first... of label), and
 * relabel turns "cell.cu(N)" in diagnostics back into the cell and its line. */
typedef struct {
    char *text;
    line_span_t *map;
    int nmap, cap;
} unit_t;

static void strip_line_markers(const char *marked, unit_t *u) {
    strbuf_t b = {0};
    int tu_line = 1;
    line_span_t *cur = NULL;
    for (const char *line = marked; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line + 1) : strlen(line);
        int at;
        char label[48];
        if (!strncmp(line, "#line ", 6) && sscanf(line, "#line %d \"%47[^\"]\"", &at, label) == 2) {
            if (u->nmap == u->cap) {
                u->cap = u->cap ? 2 * u->cap : 16;
                u->map = realloc(u->map, u->cap * sizeof *u->map);
                if (!u->map) abort();
            }
            cur = &u->map[u->nmap++];
            *cur = (line_span_t){tu_line, 0, at, ""};
            snprintf(cur->label, sizeof cur->label, "%s", label);
        } else {
            sb_append(&b, line, n);
            tu_line++;
            if (cur) cur->n++;
        }
        line += n;
    }
    u->text = sb_take(&b);
}

/* Prelude in order, the cell's definitions standing in place of the ones they
 * replace (so what came after them still sees them), then the cell's new
 * items. Preprocessor items (#include, #define) go first, host constants
 * right after them: the unit then starts with the same run of #includes from
 * cell to cell, which NVRTC's automatic precompiled header reuses, so a
 * heavy header (curand_kernel.h, CUB) is parsed once per session. */
static void build_unit(engine_t *e, const char *code, const cell_split_t *sp, const char *cell, unit_t *u) {
    memset(u, 0, sizeof *u);
    strbuf_t tu = {0};
    bool *placed = calloc(sp->n + 1, sizeof *placed);
    if (!placed) abort();
    for (int pass = 0; pass < 2; pass++) {
        bool want_pp = pass == 0;
        for (int p = 0; p < e->nprelude; p++) {
            prelude_item_t *pi = &e->prelude[p];
            if (pp_text(pi->text) != want_pp) continue;
            if (cell_defines(sp, pi->key)) {
                for (size_t i = 0; i < sp->n; i++)
                    if (!placed[i] && is_device_side(&sp->items[i]) && !strcmp(sp->items[i].key, pi->key)) {
                        add_item_text(&tu, code, &sp->items[i], cell);
                        placed[i] = true;
                    }
            } else if (!pi->is_kernel) {
                sb_append(&tu, pi->text, strlen(pi->text));
            }
        }
        for (size_t i = 0; i < sp->n; i++)
            if (!placed[i] && is_device_side(&sp->items[i]) && (code[sp->items[i].start] == '#') == want_pp) {
                add_item_text(&tu, code, &sp->items[i], cell);
                placed[i] = true;
            }
        if (pass == 0) add_host_constants(e, &tu, code, sp, cell);
    }
    free(placed);
    strip_line_markers(tu.data ? tu.data : "", u);
    free(tu.data);
}

static void unit_free(unit_t *u) {
    free(u->text);
    free(u->map);
}

char *engine_prelude_source(engine_t *e) {
    cell_split_t none = {0};
    unit_t u;
    build_unit(e, "", &none, "prelude", &u);
    device_lines_pending(&e->lines, u.text, u.map, u.nmap); /* a template instance is compiled from it */
    free(u.map);
    return u.text;
}

static void prelude_set(engine_t *e, const char *key, char *text, const char *cell, int line, bool is_kernel) {
    for (int p = 0; p < e->nprelude; p++)
        if (!strcmp(e->prelude[p].key, key)) {
            free(e->prelude[p].text);
            free(e->prelude[p].cell);
            e->prelude[p].text = text;
            e->prelude[p].cell = strdup(cell);
            e->prelude[p].first_line = line;
            e->prelude[p].is_kernel = is_kernel;
            return;
        }
    if (e->nprelude == e->cap_prelude) {
        e->cap_prelude = e->cap_prelude ? 2 * e->cap_prelude : 32;
        e->prelude = realloc(e->prelude, e->cap_prelude * sizeof *e->prelude);
        if (!e->prelude) abort();
    }
    e->prelude[e->nprelude++] = (prelude_item_t){strdup(key), text, strdup(cell), line, is_kernel};
}

/* log: the cell's compile log; a # line NVRTC warned about is not carried
 * (it would warn again in every later cell). */
static void remember_items(engine_t *e, const char *code, const cell_split_t *sp, const char *cell, const char *log) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (!is_device_side(it) || !device_pp_carried(code, it)) continue;
        if (code[it->start] == '#' && device_log_names(log, cell, "warning", it->first_line, it->last_line)) continue;
        char anon[96];
        const char *key = it->key;
        if (!key[0]) { /* no name (a #pragma, an odd declaration): keep it once, by text */
            snprintf(anon, sizeof anon, "text:%.*s", (int)((it->end - it->start) < 80 ? it->end - it->start : 80),
                     code + it->start);
            key = anon;
        }
        bool first_of_key = true;
        for (size_t k = 0; k < i; k++)
            if (is_device_side(&sp->items[k]) && sp->items[k].key[0] && !strcmp(sp->items[k].key, it->key))
                first_of_key = false;
        if (!first_of_key) continue;
        char *text;
        if (it->key[0]) text = group_text(code, sp, it->key, cell);
        else {
            strbuf_t b = {0};
            add_item_text(&b, code, it, cell);
            text = sb_take(&b);
        }
        prelude_set(e, key, text, cell, it->first_line, it->is_kernel && !it->is_template);
    }
}

static void register_kernel(engine_t *e, const char *name, char *signature, const char *cell, const char *hex) {
    for (int i = 0; i < e->nkernels; i++)
        if (!strcmp(e->kernels[i].name, name)) {
            free(e->kernels[i].signature);
            free(e->kernels[i].cell);
            e->kernels[i].signature = signature;
            e->kernels[i].cell = strdup(cell);
            snprintf(e->kernels[i].module_hex, sizeof e->kernels[i].module_hex, "%s", hex);
            return;
        }
    if (e->nkernels == e->cap_kernels) {
        e->cap_kernels = e->cap_kernels ? 2 * e->cap_kernels : 16;
        e->kernels = realloc(e->kernels, e->cap_kernels * sizeof *e->kernels);
        if (!e->kernels) abort();
    }
    kernel_entry_t *k = &e->kernels[e->nkernels++];
    k->name = strdup(name);
    k->signature = signature;
    k->cell = strdup(cell);
    snprintf(k->module_hex, sizeof k->module_hex, "%s", hex);
}

const kernel_entry_t *engine_find_kernel(engine_t *e, const char *name) {
    for (int i = 0; i < e->nkernels; i++)
        if (!strcmp(e->kernels[i].name, name)) return &e->kernels[i];
    return NULL;
}

/* "vecadd(double *z, ...): 14 registers, 0 B shared, 0 B local, no spills" */
static char *kernel_line(const char *sig, const compiled_kernel_t *k) {
    if (!k || !k->have_resources) return strdup(sig);
    char spill[64] = "no spills";
    if (k->spill_stores || k->spill_loads)
        snprintf(spill, sizeof spill, "%d B spill stores, %d B spill loads", k->spill_stores, k->spill_loads);
    return fmt("%s: %d registers, %d B shared, %d B local, %s", sig, k->registers, k->shared_bytes, k->stack_bytes, spill);
}

static void report_kernel(const engine_io_t *io, const char *sig, const compiled_kernel_t *k) {
    char *line = kernel_line(sig, k);
    io_printf(io, "stdout", "%s\n", line);
    free(line);
}

char *engine_kernel_description(engine_t *e, const kernel_entry_t *k) {
    const compiled_module_t *m = compile_cache_get(e->cache, k->module_hex);
    char *line = kernel_line(k->signature, m ? module_kernel(m, k->name) : NULL);
    char *s = fmt("__global__ %s\ndefined in %s, compiled for %s", line, k->cell, engine_arch(e));
    free(line);
    return s;
}

static void compile_error(engine_error_t *err, const char *log, const char *cell) {
    json_t *tb = json_array();
    json_t *body = json_array();
    char *first = NULL;
    int n = compile_log_format(log, body, &first);
    json_array_append_new(tb, json_sprintf("\x1b[1;31mCompileError\x1b[0m: %d error%s in the device code of %s", n,
                                           n == 1 ? "" : "s", cell));
    json_array_extend(tb, body);
    json_decref(body);
    engine_error_set(err, "CompileError", tb, "%s", first ? first : "the device code did not compile");
    free(first);
}

/* Warnings only (the ptxas report was taken out): shown on stderr. */
static void report_warnings(const engine_io_t *io, const char *log) {
    if (!log) return;
    const char *p = log;
    while (*p == '\n' || *p == ' ') p++;
    if (!*p) return;
    json_t *lines = json_array();
    char *first = NULL;
    compile_log_format(log, lines, &first);
    free(first);
    size_t i;
    json_t *v;
    json_array_foreach(lines, i, v) io_printf(io, "stderr", "%s\n", json_string_value(v));
    json_decref(lines);
}

/* The log with every diagnostic under the label and line a person knows:
 * "cell.cu(N)" (see unit_t) becomes the cell and line it came from, the
 * current cell (THIS_CELL) under its own label. Takes log. */
static char *relabel(char *log, const char *cell, const unit_t *u) {
    strbuf_t b = {0};
    const char *p = log, *hit;
    while ((hit = strstr(p, "cell.cu(")) != NULL) {
        sb_append(&b, p, (size_t)(hit - p));
        int n = atoi(hit + 8);
        const line_span_t *span = NULL;
        for (int i = 0; i < u->nmap; i++)
            if (n >= u->map[i].tu_first && n < u->map[i].tu_first + u->map[i].n) span = &u->map[i];
        const char *close = strchr(hit + 8, ')');
        if (!span || !close) {
            sb_puts(&b, "cell.cu(");
            p = hit + 8;
            continue;
        }
        sb_printf(&b, "%s(%d)", strcmp(span->label, THIS_CELL) ? span->label : cell, span->cell_first + n - span->tu_first);
        p = close + 1;
    }
    sb_puts(&b, p);
    free(log);
    return sb_take(&b);
}

int engine_compile_unit(engine_t *e, const char *source, const char *const *kernel_names, int nkernels,
                        const compiled_module_t **out, char **log) {
    char **opts;
    int nopts = engine_options(e, &opts);
    const char **hn, **ht;
    int nh = collect_headers(e, &hn, &ht);
    compile_request_t req = {source, "cell.cu", (const char *const *)opts, nopts, hn, ht, nh, kernel_names, nkernels};
    char hex[65];
    compile_request_key(&req, hex);
    *out = compile_cache_get(e->cache, hex);
    *log = NULL;
    compile_status_t st = COMPILE_OK;
    if (!*out) {
        compiled_module_t *m = NULL;
        st = nvrtc_compile(&req, &m, log);
        device_log_drop_pch(*log);
        if (st == COMPILE_OK) {
            snprintf(m->hex, sizeof m->hex, "%s", hex);
            *out = compile_cache_put(e->cache, m);
        }
    }
    if (st == COMPILE_OK) device_lines_claim(&e->lines, hex, source);
    options_free(opts, nopts);
    free(hn);
    free(ht);
    return st;
}

/* The text of a prelude entry without its #line markers, which name the
 * cell it came from: a cell run again under a new number changes nothing. */
static bool same_definition(const char *a, const char *b) {
    for (;;) {
        while (!strncmp(a, "#line ", 6)) a = strchr(a, '\n') ? strchr(a, '\n') + 1 : a + strlen(a);
        while (!strncmp(b, "#line ", 6)) b = strchr(b, '\n') ? strchr(b, '\n') + 1 : b + strlen(b);
        if (!*a || !*b) return !*a && !*b;
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        size_t na = ea ? (size_t)(ea - a + 1) : strlen(a), nb = eb ? (size_t)(eb - b + 1) : strlen(b);
        if (na != nb || memcmp(a, b, na)) return false;
        a += na;
        b += nb;
    }
}

/* Would the cell's device-side items change the session's prelude in a way
 * NVRTC might refuse? The C headers' stand-ins are known to compile, and so
 * are plain C types; # lines and types naming a namespace's types
 * (std::string members) are checked. */
static bool prelude_changes(engine_t *e, const char *code, const cell_split_t *sp) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (!is_device_side(it) || !device_pp_carried(code, it) || (it->is_include && it->include_route == INC_BOTH))
            continue;
        if (code[it->start] != '#' && !memmem(code + it->start, it->end - it->start, "::", 2)) continue;
        if (!it->key[0]) return true;
        const prelude_item_t *have = NULL;
        for (int p = 0; p < e->nprelude; p++)
            if (!strcmp(e->prelude[p].key, it->key)) have = &e->prelude[p];
        if (!have) return true;
        char *text = group_text(code, sp, it->key, "cell");
        bool same = same_definition(text, have->text);
        free(text);
        if (!same) return true;
    }
    return false;
}

/* Did NVRTC reject one of the cell's # lines (a macro, a pragma)? */
static bool pp_item_failed(const char *code, const cell_split_t *sp, const char *cell, const char *log) {
    for (size_t i = 0; i < sp->n; i++)
        if (code[sp->items[i].start] == '#' &&
            device_log_names(log, cell, "error", sp->items[i].first_line, sp->items[i].last_line))
            return true;
    return false;
}

int device_compile_cell(engine_t *e, const char *code, const cell_split_t *sp, const char *cell,
                        const engine_io_t *io, engine_error_t *err) {
    int ndevice = 0, nk = 0;
    for (size_t i = 0; i < sp->n; i++)
        if (sp->items[i].kind == ITEM_DEVICE || (sp->items[i].kind == ITEM_BOTH && sp->items[i].is_function)) ndevice++;
    /* Only shared types and macros: they join the prelude as they are, but a
     * new or changed one is compiled first, so that what NVRTC rejects is
     * this cell's error and never reaches a later cell. */
    bool check_only = !ndevice;
    if (check_only && !prelude_changes(e, code, sp)) {
        remember_items(e, code, sp, cell, NULL);
        return 0;
    }
    const char **names = calloc(sp->n + 1, sizeof *names);
    if (!names) abort();
    for (size_t i = 0; i < sp->n; i++)
        if (sp->items[i].is_kernel && !sp->items[i].is_template && sp->items[i].name[0]) names[nk++] = sp->items[i].name;
    unit_t unit;
    build_unit(e, code, sp, THIS_CELL, &unit);
    const compiled_module_t *m = NULL;
    char *log = NULL;
    progress_t *pg = progress_start(io, true, "compiling the device code of %s with NVRTC ...", cell);
    int st = engine_compile_unit(e, unit.text, names, nk, &m, &log);
    progress_done(pg, "%s the device code of %s in %.1f s", st == COMPILE_OK ? "compiled" : "tried to compile", cell,
                  progress_elapsed(pg));
    int rc = 0;
    if (log) log = relabel(log, cell, &unit);
    if (st == COMPILE_OK) device_lines_put(&e->lines, m->hex, unit.text, unit.map, unit.nmap, THIS_CELL, cell);
    /* a module from the cache brings its log: what NVRTC warned about decides what is carried */
    char *cached_log = st == COMPILE_OK && !log && m->log ? relabel(strdup(m->log), cell, &unit) : NULL;
    unit_free(&unit);
    if (st == COMPILE_INTERRUPTED) {
        engine_error_set(err, "KeyboardInterrupt", NULL, "interrupted while compiling the device code of %s", cell);
        rc = -1;
    } else if (st != COMPILE_OK && check_only && !pp_item_failed(code, sp, cell, log)) {
        /* types NVRTC cannot take (a std::string member): the host's alone */
    } else if (st != COMPILE_OK) {
        compile_error(err, log ? log : "", cell);
        device_library_hint(log, err);
        rc = -1;
    } else {
        report_warnings(io, log);
        for (size_t i = 0; i < sp->n; i++) {
            const cell_item_t *it = &sp->items[i];
            if (!it->is_kernel || it->is_template || !it->name[0]) continue;
            char *sig = kernel_signature(code, it);
            report_kernel(io, sig, module_kernel(m, it->name));
            register_kernel(e, it->name, sig, cell, m->hex);
        }
        remember_items(e, code, sp, cell, log ? log : cached_log);
    }
    free(cached_log);
    free(log);
    free(names);
    return rc;
}

int engine_try_options(engine_t *e, char **opts, int nopts, char **msg) {
    char **saved = e->user_options;
    int nsaved = e->nuser_options;
    e->user_options = opts;
    e->nuser_options = nopts;
    const compiled_module_t *m;
    char *log = NULL;
    int st = engine_compile_unit(e, "__global__ void icuda_option_check(void) {}\n", NULL, 0, &m, &log);
    e->user_options = saved;
    e->nuser_options = nsaved;
    if (st == COMPILE_OK) {
        free(log);
        return 0;
    }
    *msg = log ? log : strdup("the options were refused");
    return -1;
}

/* ---- headers icuda may not have ---- */

static bool toolkit_has(const char *name) {
    static const char *const dirs[] = {"include", "include/cccl", NULL};
    for (int i = 0; dirs[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/%s", cuda_home(), dirs[i], name);
        if (access(path, R_OK) == 0) return true;
    }
    return false;
}

static bool session_header(engine_t *e, const char *name) {
    for (int i = 0; i < e->nheaders; i++)
        if (!strcmp(e->headers[i].name, name)) return true;
    return false;
}

int device_check_includes(engine_t *e, const char *code, const cell_split_t *sp, const char *cell,
                          engine_error_t *err) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (!it->is_include || !it->name[0] || it->in_conditional) continue;
        if (it->include_route != INC_UNKNOWN && it->include_route != INC_HOST_LIBRARY) continue;
        if (session_header(e, it->name)) continue;
        if (it->include_route == INC_UNKNOWN && toolkit_has(it->name)) continue; /* a device header NVRTC may take */
        char spelled[104];
        snprintf(spelled, sizeof spelled, it->include_angle ? "<%s>" : "\"%s\"", it->name);
        const char *why = it->include_route == INC_HOST_LIBRARY
            ? "it is a host library of the CUDA toolkit that host cells do not interpret"
            : it->include_angle ? "icuda has no such header: host cells know the C headers, <iostream>, <vector>, "
                                  "<algorithm>, <chrono>, <string>, <random>, <limits> and the like, and CUDA's runtime headers; "
                                  "device code the toolkit's headers"
                                : "no %%header cell defined it";
        json_t *tb = json_array();
        const char *line = code + it->start;
        json_array_append_new(tb, json_sprintf("%s, line %d:", cell, it->first_line));
        json_array_append_new(tb, json_sprintf("    %.*s", (int)(it->end - it->start), line));
        json_array_append_new(tb, json_sprintf("UnsupportedError: cannot include %s: %s. Run the whole program with "
                                               "%%%%program (nvcc compiles it)%s", spelled, why,
                                               it->include_angle ? "" : ", or define the header with %%header"));
        engine_error_set(err, "UnsupportedError", tb,
                         "cannot include %s: %s. Run the whole program with %%%%program (nvcc compiles it)%s", spelled,
                         why, it->include_angle ? "" : ", or define the header with %%header");
        return -1;
    }
    return 0;
}
