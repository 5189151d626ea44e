/* The cell engine as the protocol layer sees it: one call per execute_request.
 * The engine knows nothing of ZeroMQ; everything a cell shows goes out through
 * cell_io_t callbacks, which the protocol layer turns into iopub messages. */
#ifndef ICUDA_ENGINE_H
#define ICUDA_ENGINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "runtime/base/cell_io.h"

typedef struct engine engine_t;

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
                   const cell_io_t *io, cell_error_t *err);

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

#endif
