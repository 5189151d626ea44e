#include "cuda_session.h"

#include <stdlib.h>

/* Placeholder until the CUDA runtime layer lands: host cells see CUDA
 * calls and launches fail with the interpreter's "needs the GPU worker". */
struct cuda_session {
    engine_t *e;
};

cuda_session_t *cuda_session_new(engine_t *e) {
    cuda_session_t *cs = calloc(1, sizeof *cs);
    if (!cs) abort();
    cs->e = e;
    return cs;
}

void cuda_session_free(cuda_session_t *cs) { free(cs); }

int cuda_session_end_cell(cuda_session_t *cs, const engine_io_t *io, int rc, engine_error_t *err) { return rc; }
