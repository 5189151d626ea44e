/* The cell engine: one execute_request from split to reply. Magics run
 * where they stand, device code compiles before host code runs, so host
 * code can launch the kernels its own cell defines. */
#include "engine.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "assist.h"
#include "native_links.h"
#include "native_route.h"
#include "runtime/native/native_cell.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/device/device_lines.h"
#include "runtime/device/gpu_arch.h"
#include "runtime/base/interrupt.h"
#include "runtime/lang/interp.h"
#include "magics/magics.h"
#include "runtime/device/nvrtc_compile.h"
#include "runtime/program/program_detect.h"
#include "session.h"
#include "runtime/device/session_headers.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

#include "runtime/base/cache_evict.h"
#include "runtime/device/compile_cache.h"
atomic_int icuda_interrupt_flag;
char *_Atomic icuda_interrupt_guard;

engine_t *engine_new(const engine_config_t *cfg) {
    engine_t *e = xcalloc(1, sizeof *e);
    char *dir = NULL;
    if (!cfg || !cfg->no_disk_cache) dir = (cfg && cfg->cache_dir) ? xstrdup(cfg->cache_dir) : icuda_cache_dir();
    compile_cache_t *cache = compile_cache_new(dir);
    free(dir);
    e->interp = interp_new();
    device_session_init(&e->dev, cache, e->interp);
    e->cuda = cuda_session_new(e->interp, &e->dev);
    native_session_init(&e->native);
    engine_native_links(e);
    native_ctx_t nx = {&e->native, &e->dev, e->cuda};
    native_cell_attach(&nx);
    return e;
}

void engine_free(engine_t *e) {
    if (!e) return;
    device_session_free(&e->dev);
    magics_session_free(e->measure);
    cuda_session_free(e->cuda);
    native_session_free(&e->native);
    interp_free(e->interp);
    free(e);
}

const char *engine_cuda_version(void) { return nvrtc_version_string(); }

/* Loads NVRTC's builtins and probes the GPU's architecture, so the first
 * device cell does not pay for either. Not cached: it must really run. */
static void *warm_up_thread(void *arg) {
    /* below the protocol threads: start-up replies come first on a busy machine */
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
    char arch[32];
    gpu_arch_resolve(arch, sizeof arch, NULL, 0);
    const char *opt = "-std=c++17";
    compile_request_t req = {"__global__ void icuda_warm_up(void) {}\n", "warm_up.cu", &opt, 1, NULL, NULL, 0, NULL, 0};
    compiled_module_t *m = NULL;
    char *log = NULL;
    nvrtc_compile(&req, &m, &log);
    module_free(m);
    free(log);
    return NULL;
}

void engine_warm_up(engine_t *e) {
    if (getenv("ICUDA_NO_WARMUP")) return; /* e.g. under valgrind */
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &attr, warm_up_thread, e) != 0) warm_up_thread(e);
    pthread_attr_destroy(&attr);
}

static void null_stream(void *ctx, const char *name, const char *text, size_t len) {}
static void null_display(void *ctx, json_t *data, json_t *md, bool is_result) {}
static const cell_io_t silent_io = {NULL, null_stream, null_display, NULL, NULL};

static bool is_host_side(const cell_item_t *it) { return it->kind == ITEM_HOST || it->kind == ITEM_BOTH; }

/* Runs the host items among items [from, to) as one interpreter pass over
 * the cell's host view (everything else blanked, lines and columns kept).
 * show_value: the cell's last item is among them, so its value is shown. */
static int run_host(engine_t *e, const char *code, const cell_split_t *sp, size_t from, size_t to, const char *cell,
                    bool show_value, const cell_io_t *io, cell_error_t *err) {
    bool any = false;
    for (size_t i = from; i < to; i++) any |= is_host_side(&sp->items[i]);
    if (!any) return 0;
    char *view = split_view(code, sp, from, to, is_host_side);
    json_t *value = NULL;
    interp_set_header_source(e->interp, session_header_host_view, &e->dev);
    int rc = interp_run(e->interp, view, cell, io, &value, err);
    free(view);
    if (rc == 0) native_remember_host(&e->native, code, sp, from, to, cell);
    if (value && show_value && io->display) io->display(io->ctx, value, NULL, true);
    json_decref(value);
    return rc;
}

static int run_magic_item(magic_ctx_t *mc, const char *code, const cell_item_t *it, cell_error_t *err) {
    char *line = xstrndup(code + it->start, it->end - it->start);
    int rc = magic_run_line(mc, line, err);
    free(line);
    return rc;
}

/* __managed__ variables of a device cell that compiled: each is also a
 * session variable of the host (its declaration without the CUDA words,
 * run by the interpreter at its own lines), tied to the GPU's copies by the
 * CUDA layer (runtime/cuda/cuda_managed_vars.c). */
static bool keep_all(const cell_item_t *it) { return true; }

static int declare_managed(magic_ctx_t *mc, const char *code, const cell_split_t *sp, cell_error_t *err) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (!it->is_managed) continue;
        char *view = split_view(code, sp, i, i + 1, keep_all);
        static const char *const words[] = {"__managed__", "__device__"};
        for (int w = 0; w < 2; w++)
            for (char *q = view; (q = strstr(q, words[w])); q += strlen(words[w]))
                memset(q, ' ', strlen(words[w]));
        json_t *value = NULL;
        int rc = interp_run(mc->interp, view, mc->cell_name, mc->io, &value, err);
        json_decref(value);
        free(view);
        char msg[300];
        if (rc == 0 && cuda_session_managed_var(mc->cuda, it->name, msg, sizeof msg) < 0) {
            cell_error_set(err, "TypeError", NULL, "%s", msg);
            rc = -1;
        }
        if (rc) return rc;
    }
    return 0;
}

/* __host__ __device__ operator functions (float3 operator+ of a tutorial's
 * vector helpers): the interpreter has no operator overloading, so they are
 * the device side's only, said once a cell; kernels use them as nvcc's would. */
static void device_only_operators(cell_split_t *sp, const cell_io_t *io) {
    for (size_t i = 0; i < sp->n; i++) {
        cell_item_t *it = &sp->items[i];
        if (it->kind != ITEM_BOTH || !it->is_function || strcmp(it->name, "operator") != 0) continue;
        io_printf(io, "stderr", "icuda: line %d: host cells do not interpret operator overloading: this operator is "
                  "for device code only\n", it->first_line);
        it->kind = ITEM_DEVICE;
    }
}

/* A cell that runs as native C++ (native_route.h), after the magics
 * before its first item ran: they are blanked (lines kept), and none may
 * come later. */
static int run_native(magic_ctx_t *mc, const char *code, const cell_split_t *sp, size_t first, const char *why,
                      cell_error_t *err) {
    engine_t *e = mc->engine;
    for (size_t k = first; k < sp->n; k++)
        if (sp->items[k].kind == ITEM_MAGIC) {
            cell_error_set(err, "UsageError", NULL, "%s runs as native C++ (%s), which holds C++ only: the magic on "
                           "line %d goes in a cell of its own", mc->cell_name, why, sp->items[k].first_line);
            return -1;
        }
    io_printf(mc->io, "stderr", "icuda: %s runs as native C++ (nvcc, in the GPU worker): %s\n", mc->cell_name, why);
    char *body = xstrdup(code);
    for (size_t k = 0; k < first; k++)
        for (size_t c = sp->items[k].start; c < sp->items[k].end && body[c]; c++)
            if (body[c] != '\n') body[c] = ' ';
    native_ctx_t nx = {&e->native, &e->dev, e->cuda};
    int rc = native_cell_run(&nx, body, mc->cell_name, NULL, 0, mc->io, err);
    free(body);
    return rc;
}

/* A cell's code after its magic line, if any: device items compile, then
 * host items run in order, a magic between them where it stands. */
static int run_code(magic_ctx_t *mc, const char *code_in, cell_error_t *err) {
    engine_t *e = mc->engine;
    /* #if ... #endif around items: decided per side before splitting (pp_cell.c) */
    bool decided = false;
    char *code = interp_cell_conditionals(e->interp, code_in, mc->cell_name, 0, mc->io, &decided, err);
    if (!code) {
        if (!err->ename) cell_error_set(err, "MemoryError", NULL, "no memory left for a copy of the cell (%zu bytes)",
                                        strlen(code_in));
        return -1;
    }
    cell_split_t sp, dev_sp;
    split_cell(code, &sp);
    session_headers_route(&e->dev, &sp);
    device_only_operators(&sp, mc->io);
    int rc = 0;
    if (sp.too_long || sp.no_memory) {
        if (sp.too_long) cell_error_set(err, "MemoryError", NULL, "the cell is 4 GiB or longer: split it into smaller cells");
        else cell_error_set(err, "MemoryError", NULL, "no memory left for the cell's %zu items: split it into smaller cells",
                            sp.n);
        split_free(&sp);
        free(code);
        return -1;
    }
    if (sp.too_deep_line) {
        cell_error_set(err, "SyntaxError", NULL, "expression nested too deeply (line %d: brackets nest more than %d deep)",
                         sp.too_deep_line, SPLIT_MAX_DEPTH);
        split_free(&sp);
        free(code);
        return -1;
    }
    /* Magics before the first code item run first (e.g. %nvrtc for this cell). */
    size_t i = 0;
    for (; i < sp.n && sp.items[i].kind == ITEM_MAGIC && rc == 0; i++) rc = run_magic_item(mc, code, &sp.items[i], err);
    char why[300];
    if (rc == 0 && engine_native_route(e, &e->native, code, &sp, why, sizeof why)) {
        rc = run_native(mc, code_in, &sp, i, why, err);
        split_free(&sp);
        free(code);
        return rc;
    }
    char *dev_code = rc == 0 && decided ? device_conditionals(&e->dev, code_in, mc->cell_name, err) : NULL;
    if (decided && !dev_code) rc = -1;
    if (dev_code) {
        split_cell(dev_code, &dev_sp);
        session_headers_route(&e->dev, &dev_sp);
        device_only_operators(&dev_sp, NULL);
    }
    const char *dc = dev_code ? dev_code : code;
    const cell_split_t *dsp = dev_code ? &dev_sp : &sp;
    if (rc == 0) rc = device_check_includes(&e->dev, dc, dsp, mc->cell_name, err);
    bool refused = false;
    if (rc == 0) refused = (rc = device_compile_cell(&e->dev, dc, dsp, mc->cell_name, mc->io, err)) != 0;
    if (rc == 0) rc = declare_managed(mc, dc, dsp, err);
    if (dev_code) split_free(&dev_sp);
    free(dev_code);
    if (refused && engine_native_device_fallback(&e->native, err, why, sizeof why)) {
        cell_error_clear(err);
        rc = run_native(mc, code_in, &sp, i, why, err);
        split_free(&sp);
        free(code);
        return rc;
    }
    size_t seg = i, first = i;
    for (; i <= sp.n && rc == 0; i++) {
        if (i < sp.n && sp.items[i].kind != ITEM_MAGIC) continue;
        rc = run_host(e, code, &sp, seg, i, mc->cell_name, i == sp.n, mc->io, err);
        /* nothing of the host side ran yet: a name the interpreter does not
         * know may be a native cell's header's */
        if (rc && seg == first && engine_native_fallback(&e->native, &sp, err, why, sizeof why)) {
            cell_error_clear(err);
            rc = run_native(mc, code_in, &sp, first, why, err);
            break;
        }
        if (rc == 0 && i < sp.n) rc = run_magic_item(mc, code, &sp.items[i], err);
        seg = i + 1;
    }
    split_free(&sp);
    free(code);
    return rc;
}

static void reset_session(magic_ctx_t *mc) { session_reset(mc->engine); }

int engine_execute(engine_t *e, const char *code, int execution_count, bool silent, const cell_io_t *io,
                   cell_error_t *err) {
    interrupt_clear();
    if (!strncmp(code, "\xEF\xBB\xBF", 3)) code += 3; /* a byte-order mark, from a pasted file */
    if (silent || !io) io = &silent_io;
    if (engine_question(e, code, io)) return 0; /* NAME?: help in the pager (inspect.c) */
    io_cap_t cap;
    io = io_cap(&cap, io);
    char cell[32];
    if (execution_count > 0) snprintf(cell, sizeof cell, "In [%d]", execution_count);
    else snprintf(cell, sizeof cell, "In [ ]");
    magic_ctx_t mc = {
        .dev = &e->dev,
        .interp = e->interp,
        .cuda = e->cuda,
        .native = &e->native,
        .measure = &e->measure,
        .io = io,
        .cell_name = cell,
        .run = run_code,
        .reset_session = reset_session,
        .engine = e,
        .cell_code = code,
    };
    cuda_session_begin_cell(e->cuda, io);
    int rc = split_is_cell_magic(code)     ? magic_run_cell(&mc, code, err)
             : program_defines_main(code) ? magic_program_auto(&mc, code, err) /* a pasted program */
                                          : run_code(&mc, code, err);
    return cuda_session_end_cell(e->cuda, io, rc, err);
}

json_t *engine_user_expressions(engine_t *e, json_t *expressions) {
    json_t *out = json_object();
    const char *name;
    json_t *v;
    json_object_foreach(expressions, name, v) {
        json_t *value = NULL;
        cell_error_t err = {0};
        if (!json_is_string(v)) {
            cell_error_set(&err, "TypeError", NULL, "a user expression must be a string");
        } else if (interp_eval(e->interp, json_string_value(v), &value, &err) == 0) {
            json_object_set_new(out, name, json_pack("{s:s,s:o,s:{}}", "status", "ok", "data",
                                                     value ? value : json_object(), "metadata"));
            continue;
        }
        json_t *tb = err.traceback ? json_incref(err.traceback) : json_array();
        json_object_set_new(out, name, json_pack("{s:s,s:s,s:s,s:o}", "status", "error", "ename",
                                                 err.ename ? err.ename : "Error", "evalue", err.evalue ? err.evalue : "",
                                                 "traceback", tb));
        cell_error_clear(&err);
    }
    return out;
}
