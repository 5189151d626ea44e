/* The cell engine as the protocol layer sees it: one call per execute_request.
 * The engine knows nothing of ZeroMQ; everything a cell shows goes out through
 * engine_io_t callbacks, which the protocol layer turns into iopub messages. */
#ifndef ICUDA_ENGINE_H
#define ICUDA_ENGINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct engine engine_t;

/* Where a cell's output goes. Called on the thread that runs engine_execute. */
typedef struct engine_io {
    void *ctx;
    /* name is "stdout" or "stderr"; text need not be NUL-terminated. */
    void (*stream)(void *ctx, const char *name, const char *text, size_t len);
    /* data: a MIME bundle ({"text/plain": ..., "text/html": ...}); metadata may
     * be NULL. is_result: an execute_result (the cell's value) rather than
     * display_data. References are borrowed. */
    void (*display)(void *ctx, json_t *data, json_t *metadata, bool is_result);
    /* Help for the pager (the execute_reply's "page" payload): a MIME
     * bundle, borrowed. NULL: io_page prints its text/plain instead. */
    void (*page)(void *ctx, json_t *data);
} engine_io_t;

/* An error reply's fields. Filled by the engine on failure; freed with
 * engine_error_clear. traceback is a JSON array of strings. */
typedef struct engine_error {
    char *ename;
    char *evalue;
    json_t *traceback;
} engine_error_t;

void engine_error_set(engine_error_t *err, const char *ename, json_t *traceback,
                      const char *evalue_fmt, ...) __attribute__((format(printf, 4, 5)));
void engine_error_clear(engine_error_t *err);

typedef struct engine_config {
    const char *cache_dir; /* NULL: $XDG_CACHE_HOME/icuda or ~/.cache/icuda */
    bool no_disk_cache;
} engine_config_t;

engine_t *engine_new(const engine_config_t *cfg);
void engine_free(engine_t *e);

/* Runs one cell. execution_count labels the cell in messages ("In [3]");
 * silent suppresses every output. Returns 0, or -1 with *err filled (the
 * caller clears it). An interrupt during the cell gives ename
 * "KeyboardInterrupt". */
int engine_execute(engine_t *e, const char *code, int execution_count, bool silent,
                   const engine_io_t *io, engine_error_t *err);

/* user_expressions of an execute_request: a dict name -> expression text in,
 * a dict name -> {status, data, metadata} or {status:"error", ename, evalue,
 * traceback} out (new reference). */
json_t *engine_user_expressions(engine_t *e, json_t *expressions);

/* is_complete_request: returns "complete", "incomplete", "invalid" or
 * "unknown"; *indent (malloc'd, may be "") is set for "incomplete". */
const char *engine_is_complete(engine_t *e, const char *code, char **indent);

/* complete_request / inspect_request contents (new references), in the reply
 * shape of the messaging spec minus "status". */
json_t *engine_complete(engine_t *e, const char *code, int cursor_pos);
json_t *engine_inspect(engine_t *e, const char *code, int cursor_pos, int detail_level);

/* Starts warming up in a background thread (NVRTC load, the GPU's
 * architecture) and returns at once. */
void engine_warm_up(engine_t *e);

/* The CUDA toolkit version the engine compiles with, e.g. "13.0". */
const char *engine_cuda_version(void);

/* A cell's stream output (host printf, GPU printf, magics) stops after
 * IO_CELL_OUTPUT_MAX bytes, with one notice on stderr; the cell goes on.
 * ICUDA_MAX_CELL_OUTPUT (bytes) overrides it. runtime/base/cell_io.c. */
#define IO_CELL_OUTPUT_MAX ((size_t)16 << 20)
typedef struct io_cap {
    const engine_io_t *inner;
    engine_io_t io;
    size_t sent, limit;
    bool cut;
} io_cap_t;
/* The capped io for one cell, valid while c lives. */
const engine_io_t *io_cap(io_cap_t *c, const engine_io_t *inner);

#endif
