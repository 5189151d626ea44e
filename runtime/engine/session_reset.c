/* A fresh session without a new kernel process (%reset): what cells
 * defined is forgotten, what the user configured (%%header files, %nvrtc
 * options) and the compile cache stay. */
#include <stdlib.h>

#include "runtime/cuda/cuda_session.h"
#include "runtime/lang/interp.h"
#include "session.h"

void session_forget_device_items(engine_t *e) {
    for (int i = 0; i < e->nprelude; i++) {
        free(e->prelude[i].key);
        free(e->prelude[i].text);
        free(e->prelude[i].cell);
    }
    free(e->prelude);
    e->prelude = NULL;
    e->nprelude = e->cap_prelude = 0;
    for (int i = 0; i < e->nkernels; i++) {
        free(e->kernels[i].name);
        free(e->kernels[i].signature);
        free(e->kernels[i].cell);
    }
    free(e->kernels);
    e->kernels = NULL;
    e->nkernels = e->cap_kernels = 0;
}

void session_reset(engine_t *e) {
    session_forget_device_items(e);
    cuda_session_reset(e->cuda);
    interp_reset(e->interp);
}
