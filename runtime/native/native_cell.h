/* Running a native C++ cell (native_cell.c): compiled by nvcc into a
 * shared object, which the GPU worker loads; loading it runs the cell. */
#ifndef ICUDA_NATIVE_CELL_H
#define ICUDA_NATIVE_CELL_H

#include "native_session.h"
#include "runtime/base/cell_io.h"
#include "runtime/device/device_session.h"

struct cuda_session;

/* What a native cell needs of the session. */
typedef struct {
    native_session_t *ns;
    device_session_t *dev;      /* %%header files, the architecture, the compile cache */
    struct cuda_session *cuda;  /* the worker */
} native_ctx_t;

/* Runs code (C++ only, no magics) as the native cell named cell, with the
 * user's nvcc options. 0, or -1 with err: a compile error at the cell's
 * lines, an exception or a non-zero return of its code, a crash or exit()
 * that ended the worker (replaced: the session goes on), an interrupt. */
int native_cell_run(const native_ctx_t *x, const char *code, const char *cell, char *const *opts, int nopts,
                    const cell_io_t *io, cell_error_t *err);

/* Adds to the CUDA layer's recovery note, after each restart of the worker,
 * which native cells' objects were lost. */
void native_cell_attach(const native_ctx_t *x);

#endif
