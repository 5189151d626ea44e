/* The language table over the cell engine: each operation calls its engine_*
 * counterpart, and cell output and errors are carried over from the
 * runtime's cell_io_t and cell_error_t to the protocol's types. */
#include "cuda_language.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/interrupt.h"
#include "runtime/base/xalloc.h"
#include "runtime/engine/engine.h"

#ifndef ICUDA_VERSION
#define ICUDA_VERSION "0.0.0"
#endif

typedef struct cuda_language {
    language_t table;
    engine_t *engine; /* the session; NULL between sessions */
} cuda_language_t;

static json_t *cuda_kernel_info(void *ctx) {
    const char *cuda = engine_cuda_version();
    char banner[256];
    snprintf(banner, sizeof banner,
             "icuda %s: interactive CUDA C (CUDA %s)\n"
             "Device code compiles with NVRTC; host code is interpreted C. %%lsmagic lists the magics.",
             ICUDA_VERSION, cuda ? cuda : "unknown");
    return json_pack("{s:s, s:s,"
                     " s:{s:s, s:s, s:s, s:s, s:s, s:s},"
                     " s:s, s:[{s:s, s:s}, {s:s, s:s}]}",
                     "implementation", "icuda", "implementation_version", ICUDA_VERSION,
                     "language_info", "name", "cuda", "version", cuda ? cuda : "", "mimetype", "text/x-cuda",
                     "file_extension", ".cu", "pygments_lexer", "cuda", "codemirror_mode", "text/x-c++src",
                     "banner", banner, "help_links",
                     "text", "CUDA C++ Programming Guide", "url",
                     "https://docs.nvidia.com/cuda/cuda-c-programming-guide/",
                     "text", "CUDA Runtime API", "url", "https://docs.nvidia.com/cuda/cuda-runtime-api/");
}

static bool cuda_session_start(void *ctx) {
    cuda_language_t *l = ctx;
    engine_config_t cfg = {0};
    l->engine = engine_new(&cfg);
    return l->engine != NULL;
}

static void cuda_session_end(void *ctx) {
    cuda_language_t *l = ctx;
    engine_t *e = l->engine;
    l->engine = NULL; /* forgotten first: a fault while freeing leaves no half-freed session behind */
    engine_free(e);
}

static void cuda_warm_up(void *ctx) {
    cuda_language_t *l = ctx;
    if (l->engine) engine_warm_up(l->engine);
}

/* ---- a cell's output, from the runtime's cell_io_t to the protocol's sink ---- */

static void out_stream(void *ctx, const char *name, const char *text, size_t len) {
    const language_output_t *out = ctx;
    out->stream(out->ctx, name, text, len);
}

static void out_display(void *ctx, json_t *data, json_t *metadata, bool is_result) {
    const language_output_t *out = ctx;
    if (is_result) out->result(out->ctx, data, metadata);
    else out->display(out->ctx, data, metadata, NULL, false);
}

static void out_display_as(void *ctx, const char *display_id, bool update, json_t *data, json_t *metadata) {
    const language_output_t *out = ctx;
    out->display(out->ctx, data, metadata, display_id, update);
}

static void out_page(void *ctx, json_t *data) {
    const language_output_t *out = ctx;
    out->page(out->ctx, data);
}

static int cuda_execute(void *ctx, const char *code, int execution_count, bool silent,
                        const language_output_t *out, language_error_t *err) {
    cuda_language_t *l = ctx;
    if (!l->engine) {
        err->ename = xstrdup("InternalError");
        err->evalue = xstrdup("no session: the last one ended in a fault and no fresh one could start");
        return -1;
    }
    cell_io_t io = {(void *)out, out_stream, out_display, out_page, out_display_as};
    cell_error_t cerr = {0};
    int rc = engine_execute(l->engine, code, execution_count, silent, &io, &cerr);
    /* the same fields, owned the same way: moved, not copied */
    err->ename = cerr.ename;
    err->evalue = cerr.evalue;
    err->traceback = cerr.traceback;
    return rc;
}

static void cuda_interrupt(void *ctx) { interrupt_raise(); }

static json_t *cuda_user_expressions(void *ctx, json_t *expressions) {
    cuda_language_t *l = ctx;
    return l->engine ? engine_user_expressions(l->engine, expressions) : NULL;
}

static const char *cuda_is_complete(void *ctx, const char *code, char **indent) {
    cuda_language_t *l = ctx;
    return l->engine ? engine_is_complete(l->engine, code, indent) : NULL;
}

static json_t *cuda_complete(void *ctx, const char *code, int cursor_pos) {
    cuda_language_t *l = ctx;
    return l->engine ? engine_complete(l->engine, code, cursor_pos) : NULL;
}

static json_t *cuda_inspect(void *ctx, const char *code, int cursor_pos, int detail_level) {
    cuda_language_t *l = ctx;
    return l->engine ? engine_inspect(l->engine, code, cursor_pos, detail_level) : NULL;
}

language_t *cuda_language_new(void) {
    cuda_language_t *l = xcalloc(1, sizeof *l);
    l->table = (language_t){
        .ctx = l,
        .kernel_info = cuda_kernel_info,
        .session_start = cuda_session_start,
        .session_end = cuda_session_end,
        .warm_up = cuda_warm_up,
        .execute = cuda_execute,
        .interrupt = cuda_interrupt,
        .user_expressions = cuda_user_expressions,
        .is_complete = cuda_is_complete,
        .complete = cuda_complete,
        .inspect = cuda_inspect,
    };
    return &l->table;
}

void cuda_language_free(language_t *lang) {
    if (!lang) return;
    cuda_language_t *l = lang->ctx;
    if (l->engine) engine_free(l->engine);
    free(l);
}
