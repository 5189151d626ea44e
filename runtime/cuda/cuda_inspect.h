/* What magics ask the CUDA layer about one kernel (%sass, %resources): the
 * module and lowered name of a kernel or template instance, and its
 * occupancy on the current GPU as the driver computes it. */
#ifndef ICUDA_CUDA_INSPECT_H
#define ICUDA_CUDA_INSPECT_H

#include <stddef.h>

#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/channel.h"

typedef struct cuda_kernel_ref {
    char hex[65];        /* its module in the compile cache */
    char lowered[1024];  /* the name the module knows it by */
    char signature[1024];
} cuda_kernel_ref_t;

/* The kernel named as launched ("vecadd", "scale<float>"; an instance is
 * compiled if need be, without a GPU). 0, or -1 with ename/msg. */
int cuda_kernel_ref(cuda_session_t *cs, const char *name, cuda_kernel_ref_t *out, char *ename, char *msg,
                    size_t ml);

typedef struct cuda_occupancy {
    int blocks;                 /* cuOccupancyMaxActiveBlocksPerMultiprocessor at the block size */
    int best_block, min_grid;   /* cuOccupancyMaxPotentialBlockSize */
    gpu_func_attrs_t attrs;     /* cuFuncGetAttribute */
    gpu_props_t props;          /* the current device */
    int device;
} cuda_occupancy_t;

/* Loads the kernel on the current device and asks the driver. 0, or a
 * cudaError_t with msg (cudaErrorNoDevice / InsufficientDriver without a
 * GPU: then the caller computes it). */
int cuda_kernel_occupancy(cuda_session_t *cs, const char *name, int block, size_t dynamic_smem,
                          cuda_occupancy_t *out, char *msg, size_t ml);

#endif
