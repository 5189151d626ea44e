/* A cell's device code: its translation unit (assembled by device_unit.c)
 * compiled, or found in the cache, reported, and remembered for later
 * cells; NVRTC's options and the headers it may include. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile_errors.h"
#include "device_headers.h"
#include "device_lines.h"
#include "device_unit.h"
#include "gpu_arch.h"
#include "runtime/base/progress.h"
#include "runtime/lang/interp.h"
#include "device_session.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include "runtime/base/cell_io.h"
#include "runtime/cell/split.h"
#include "compile_cache.h"
#include "nvrtc_compile.h"
#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

const char *device_arch(device_session_t *ds) {
    if (!ds->arch[0]) ds->arch_from_gpu = gpu_arch_resolve(ds->arch, sizeof ds->arch, ds->arch_note, sizeof ds->arch_note);
    return ds->arch;
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

int device_options(device_session_t *ds, char ***out) {
    bool user_arch = false, user_std = false;
    for (int i = 0; i < ds->nuser_options; i++) {
        const char *o = ds->user_options[i];
        if (!strncmp(o, "-arch", 5) || !strncmp(o, "--gpu-architecture", 18)) user_arch = true;
        if (!strncmp(o, "-std", 4) || !strncmp(o, "--std", 5)) user_std = true;
    }
    char **v = xcalloc(10 + ds->nuser_options, sizeof *v);
    int n = 0;
    if (!user_arch) v[n++] = fmt("-arch=%s", device_arch(ds));
    if (!user_std) v[n++] = fmt("-std=c++17");
    v[n++] = fmt("-I%s/include", cuda_home());
    v[n++] = fmt("-I%s/include/cccl", cuda_home());
    v[n++] = fmt("-Xptxas=-v"); /* the resource report of each kernel */
    /* line tables for compute-sanitizer and nvdisasm; the code is the same without */
    bool user_lineinfo = false;
    for (int i = 0; i < ds->nuser_options; i++)
        if (!strcmp(ds->user_options[i], "-lineinfo") || !strcmp(ds->user_options[i], "--generate-line-info"))
            user_lineinfo = true;
    if (!user_lineinfo) v[n++] = fmt("-lineinfo");
    /* nvcc's device code sees <limits.h> without asking (cuda_runtime.h
     * brings it): INT_MIN, INT_MAX, UINT_MAX as a program has them */
    v[n++] = fmt("--pre-include=climits");
    v[n++] = fmt("-pch");       /* see device_unit_build */
    v[n++] = fmt("--pch-messages=false");
    for (int i = 0; i < ds->nuser_options; i++) {
        const char *o = ds->user_options[i];
        /* nvcc's -O<n> sets ptxas's optimisation level; NVRTC only takes it that way */
        if (o[0] == '-' && o[1] == 'O' && o[2] >= '0' && o[2] <= '3' && !o[3]) v[n++] = fmt("-Xptxas=%s", o);
        else v[n++] = xstrdup(o);
    }
    *out = v;
    return n;
}

void options_free(char **opts, int n) {
    for (int i = 0; i < n; i++) free(opts[i]);
    free(opts);
}

/* Standard stand-ins first, then %%header files (which may shadow them). */
static int collect_headers(device_session_t *ds, const char ***names, const char ***texts) {
    int n = device_std_header_count + ds->nheaders;
    *names = xcalloc(n, sizeof **names);
    *texts = xcalloc(n, sizeof **texts);
    for (int i = 0; i < device_std_header_count; i++) {
        (*names)[i] = device_std_headers[i].name;
        (*texts)[i] = device_std_headers[i].text;
    }
    for (int i = 0; i < ds->nheaders; i++) {
        (*names)[device_std_header_count + i] = ds->headers[i].name;
        (*texts)[device_std_header_count + i] = ds->headers[i].device_view;
    }
    return n;
}

static void register_kernel(device_session_t *ds, const char *name, char *signature, const char *cell, const char *hex) {
    for (int i = 0; i < ds->nkernels; i++)
        if (!strcmp(ds->kernels[i].name, name)) {
            free(ds->kernels[i].signature);
            free(ds->kernels[i].cell);
            ds->kernels[i].signature = signature;
            ds->kernels[i].cell = xstrdup(cell);
            snprintf(ds->kernels[i].module_hex, sizeof ds->kernels[i].module_hex, "%s", hex);
            return;
        }
    ARRAY_GROW(ds->kernels, ds->nkernels, ds->cap_kernels);
    kernel_entry_t *k = &ds->kernels[ds->nkernels++];
    k->name = xstrdup(name);
    k->signature = signature;
    k->cell = xstrdup(cell);
    snprintf(k->module_hex, sizeof k->module_hex, "%s", hex);
}

const kernel_entry_t *device_find_kernel(device_session_t *ds, const char *name) {
    for (int i = 0; i < ds->nkernels; i++)
        if (!strcmp(ds->kernels[i].name, name)) return &ds->kernels[i];
    return NULL;
}

/* "vecadd(double *z, ...): 14 registers, 0 B shared, 0 B local, no spills" */
static char *kernel_line(const char *sig, const compiled_kernel_t *k) {
    if (!k || !k->have_resources) return xstrdup(sig);
    char spill[64] = "no spills";
    if (k->spill_stores || k->spill_loads)
        snprintf(spill, sizeof spill, "%d B spill stores, %d B spill loads", k->spill_stores, k->spill_loads);
    return fmt("%s: %d registers, %d B shared, %d B local, %s", sig, k->registers, k->shared_bytes, k->stack_bytes, spill);
}

static void report_kernel(const cell_io_t *io, const char *sig, const compiled_kernel_t *k) {
    char *line = kernel_line(sig, k);
    io_printf(io, "stdout", "%s\n", line);
    free(line);
}

char *device_kernel_description(device_session_t *ds, const kernel_entry_t *k) {
    const compiled_module_t *m = compile_cache_get(ds->cache, k->module_hex);
    char *line = kernel_line(k->signature, m ? module_kernel(m, k->name) : NULL);
    char *s = fmt("__global__ %s\ndefined in %s, compiled for %s", line, k->cell, device_arch(ds));
    free(line);
    return s;
}

static void compile_error(cell_error_t *err, const char *log, const char *cell) {
    json_t *tb = json_array();
    json_t *body = json_array();
    char *first = NULL;
    int n = compile_log_format(log, body, &first);
    json_array_append_new(tb, json_sprintf("\x1b[1;31mCompileError\x1b[0m: %d error%s in the device code of %s", n,
                                           n == 1 ? "" : "s", cell));
    json_array_extend(tb, body);
    json_decref(body);
    cell_error_set(err, "CompileError", tb, "%s",
                     first ? first
                           : "the device code did not compile, and the compiler gave no reason (ptxas refuses "
                             "more than 64 KB of __constant__ data this way, for one)");
    free(first);
}

/* Warnings only (the ptxas report was taken out): shown on stderr. */
static void report_warnings(const cell_io_t *io, const char *log) {
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

int device_compile_unit(device_session_t *ds, const char *source, const char *const *kernel_names, int nkernels,
                        const compiled_module_t **out, char **log) {
    char **opts;
    int nopts = device_options(ds, &opts);
    const char **hn, **ht;
    int nh = collect_headers(ds, &hn, &ht);
    compile_request_t req = {source, "cell.cu", (const char *const *)opts, nopts, hn, ht, nh, kernel_names, nkernels};
    char hex[65];
    compile_request_key(&req, hex);
    *out = compile_cache_get(ds->cache, hex);
    *log = NULL;
    compile_status_t st = COMPILE_OK;
    if (!*out) {
        compiled_module_t *m = NULL;
        st = nvrtc_compile(&req, &m, log);
        device_log_drop_pch(*log);
        if (st == COMPILE_OK) {
            snprintf(m->hex, sizeof m->hex, "%s", hex);
            *out = compile_cache_put(ds->cache, m);
        }
    }
    if (st == COMPILE_OK) device_lines_claim(&ds->lines, hex, source);
    options_free(opts, nopts);
    free(hn);
    free(ht);
    return st;
}

/* Did NVRTC reject one of the cell's # lines (a macro, a pragma)? */
static bool pp_item_failed(const char *code, const cell_split_t *sp, const char *cell, const char *log) {
    for (size_t i = 0; i < sp->n; i++)
        if (code[sp->items[i].start] == '#' &&
            device_log_names(log, cell, "error", sp->items[i].first_line, sp->items[i].last_line))
            return true;
    return false;
}

int device_compile_cell(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell,
                        const cell_io_t *io, cell_error_t *err) {
    int ndevice = 0, nk = 0;
    for (size_t i = 0; i < sp->n; i++)
        if (sp->items[i].kind == ITEM_DEVICE || (sp->items[i].kind == ITEM_BOTH && sp->items[i].is_function)) ndevice++;
    /* Only shared types and macros: they join the prelude as they are, but a
     * new or changed one is compiled first, so that what NVRTC rejects is
     * this cell's error and never reaches a later cell. */
    bool check_only = !ndevice;
    if (check_only && !device_prelude_changes(ds, code, sp)) {
        device_remember_items(ds, code, sp, cell, NULL);
        return 0;
    }
    const char **names = xcalloc(sp->n + 1, sizeof *names);
    for (size_t i = 0; i < sp->n; i++)
        if (sp->items[i].is_kernel && !sp->items[i].is_template && sp->items[i].name[0]) names[nk++] = sp->items[i].name;
    device_unit_t unit;
    device_unit_build(ds, code, sp, DEVICE_THIS_CELL, &unit);
    const compiled_module_t *m = NULL;
    char *log = NULL;
    progress_t *pg = progress_start(io, true, "compiling the device code of %s with NVRTC ...", cell);
    int st = device_compile_unit(ds, unit.text, names, nk, &m, &log);
    progress_done(pg, "%s the device code of %s in %.1f s", st == COMPILE_OK ? "compiled" : "tried to compile", cell,
                  progress_elapsed(pg));
    int rc = 0;
    if (log) log = device_unit_relabel(log, cell, &unit);
    if (st == COMPILE_OK) device_lines_put(&ds->lines, m->hex, unit.text, unit.map, unit.nmap, DEVICE_THIS_CELL, cell);
    /* a module from the cache brings its log: what NVRTC warned about decides what is carried */
    char *cached_log = st == COMPILE_OK && !log && m->log ? device_unit_relabel(xstrdup(m->log), cell, &unit) : NULL;
    device_unit_free(&unit);
    if (st == COMPILE_INTERRUPTED) {
        cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted while compiling the device code of %s", cell);
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
            char *sig = device_kernel_signature(code, it);
            report_kernel(io, sig, module_kernel(m, it->name));
            register_kernel(ds, it->name, sig, cell, m->hex);
        }
        device_remember_items(ds, code, sp, cell, log ? log : cached_log);
    }
    free(cached_log);
    free(log);
    free(names);
    return rc;
}

int device_try_options(device_session_t *ds, char **opts, int nopts, char **msg) {
    char **saved = ds->user_options;
    int nsaved = ds->nuser_options;
    ds->user_options = opts;
    ds->nuser_options = nopts;
    const compiled_module_t *m;
    char *log = NULL;
    int st = device_compile_unit(ds, "__global__ void icuda_option_check(void) {}\n", NULL, 0, &m, &log);
    ds->user_options = saved;
    ds->nuser_options = nsaved;
    if (st == COMPILE_OK) {
        free(log);
        return 0;
    }
    *msg = log ? log : xstrdup("the options were refused");
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

static bool session_header(device_session_t *ds, const char *name) {
    for (int i = 0; i < ds->nheaders; i++)
        if (!strcmp(ds->headers[i].name, name)) return true;
    return false;
}

bool device_include_refused(device_session_t *ds, const cell_item_t *it) {
    if (!it->is_include || !it->name[0] || it->in_conditional) return false;
    if (it->include_route != INC_UNKNOWN && it->include_route != INC_HOST_LIBRARY) return false;
    if (session_header(ds, it->name)) return false;
    if (it->include_route == INC_UNKNOWN && toolkit_has(it->name)) return false; /* a device header NVRTC may take */
    return true;
}

int device_check_includes(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell,
                          cell_error_t *err) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (!device_include_refused(ds, it)) continue;
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
        cell_error_set(err, "UnsupportedError", tb,
                         "cannot include %s: %s. Run the whole program with %%%%program (nvcc compiles it)%s", spelled,
                         why, it->include_angle ? "" : ", or define the header with %%header");
        return -1;
    }
    return 0;
}
