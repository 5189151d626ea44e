/* A native C++ cell run in the worker (gpu_client.h, CH_NATIVE_RUN): the
 * object's path goes over the channel, the worker loads it (which runs
 * the cell) and answers with the outcome and its report. */
#include "gpu_client_internal.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/base/xalloc.h"

int gpu_client_native_run(gpu_client_t *c, const char *path, const gpu_native_binding_t *binds, int nbinds,
                          int *outcome, char **report) {
    *outcome = 0;
    *report = NULL;
    size_t n = strlen(path) + 1;
    if (sizeof(ch_cmd_t) + n > CH_MAX_RECORD) return CUDA_ERROR_INVALID_VALUE;
    ch_cmd_t *m = gc_cmd(c, CH_NATIVE_RUN, false, -1);
    unsigned char *p = (unsigned char *)(m + 1), *end = c->tx + CH_MAX_RECORD;
    memcpy(p, path, n);
    p += n;
    /* then each binding: its name, NUL-terminated, and its 8-byte value */
    for (int i = 0; i < nbinds; i++) {
        size_t k = strlen(binds[i].name) + 1;
        if (p + k + 8 > end) return CUDA_ERROR_INVALID_VALUE;
        memcpy(p, binds[i].name, k);
        memcpy(p + k, &binds[i].value, 8);
        p += k + 8;
    }
    m->u.native.nbinds = (uint32_t)nbinds;
    ch_reply_t *h = NULL;
    int r = gc_send(c, (size_t)(p - c->tx), &h);
    if (!h || h->op != CH_NATIVE_RUN) return r ? r : CUDA_ERROR_UNKNOWN;
    *outcome = (int)h->v[0];
    *report = xstrndup((const char *)(h + 1), h->payload);
    return r;
}
