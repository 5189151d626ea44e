/* %reset's part of the CUDA layer: the session's modules unloaded and every
 * kernel, symbol write, __managed__ variable and open NCCL group forgotten,
 * the worker kept.
 * Buffers are freed before this, through cudaFree/cudaFreeHost (the magic
 * runs those), so that the interpreter's records go with them. */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"

int cuda_session_reset(cuda_session_t *cs) {
    if (!cs) return 0;
    int unloaded = 0;
    for (int i = 0; i < cs->nmods; i++) {
        /* a worker that is gone has unloaded them already */
        if (cs->gc && gpu_client_state(cs->gc) == GPU_READY && !gpu_client_module_unload(cs->gc, cs->mods[i].mod))
            unloaded++;
    }
    cs->nmods = 0;
    cuda_launch_forget(cs);
    for (int i = 0; i < cs->nsyms; i++) {
        free(cs->syms[i].name);
        free(cs->syms[i].data);
    }
    cs->nsyms = 0;
    cs_mvars_free(cs);
    cs_nccl_group_forget(cs->libs); /* an NCCL group left open: its calls named what is gone */
    cs->last_error = 0;
    cs->last_kernel[0] = 0;
    return unloaded;
}
