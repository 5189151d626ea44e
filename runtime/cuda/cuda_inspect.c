/* Kernels as magics see them (cuda_inspect.h). */
#include "runtime/cuda/cuda_inspect.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

int cuda_kernel_ref(cuda_session_t *cs, const char *name, cuda_kernel_ref_t *out, char *ename, char *msg,
                    size_t ml) {
    cs_kernel_t *k;
    if (cs_kernel_resolve(cs, name, &k, ename, msg, ml)) return -1;
    snprintf(out->hex, sizeof out->hex, "%s", k->hex);
    snprintf(out->lowered, sizeof out->lowered, "%s", k->lowered ? k->lowered : "");
    snprintf(out->signature, sizeof out->signature, "%s", k->signature ? k->signature : name);
    return 0;
}

int cuda_kernel_occupancy(cuda_session_t *cs, const char *name, int block, size_t dynamic_smem,
                          cuda_occupancy_t *out, char *msg, size_t ml) {
    memset(out, 0, sizeof *out);
    int r = cs_ready(cs, msg, ml);
    if (r) return r;
    cs_kernel_t *k;
    if ((r = cs_kernel_function(cs, name, &k, msg, ml))) return r;
    out->attrs = k->attrs;
    out->device = gpu_client_get_device(cs->gc);
    int g = gpu_client_device_props(cs->gc, out->device, &out->props);
    /* a block the kernel cannot have holds no blocks; the driver need not be asked */
    bool fits = block > 0 && (!out->attrs.max_threads_per_block || block <= out->attrs.max_threads_per_block);
    if (!g && fits) g = gpu_client_active_blocks(cs->gc, k->fn, block, dynamic_smem, &out->blocks);
    if (!g) g = gpu_client_occupancy(cs->gc, k->fn, dynamic_smem, 0, &out->min_grid, &out->best_block);
    if (g) {
        snprintf(msg, ml, "the driver's occupancy figures for %s: %s", name, gpu_client_error_name(g));
        return cs_check(cs, g);
    }
    return 0;
}
