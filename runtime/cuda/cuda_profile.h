/* %profile through the CUDA session (cuda_profile.c): the GPU worker's
 * CUPTI trace (runtime/gpu/client/gpu_profile.h) started and stopped with the
 * session's recovery after a fault, and kernels named as the user wrote
 * them ("vecadd", "scale<float>") rather than as compiled. */
#ifndef ICUDA_CUDA_PROFILE_H
#define ICUDA_CUDA_PROFILE_H

#include <stddef.h>

#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_profile.h"

typedef struct cuda_profile cuda_profile_t;

/* Waits for earlier GPU work, then starts tracing. 0, or -1 with ename
 * (cudaErrorNoDevice, cudaErrorInsufficientDriver, ProfilerUnavailable
 * when CUPTI is missing or refuses, or the fault of earlier work) and msg. */
int cuda_profile_begin(cuda_session_t *cs, cuda_profile_t **out, char *ename, size_t el, char *msg, size_t ml);

/* Stops tracing and fills res (kernel names as written). 0, or -1 with
 * ename and msg when the stop found a fault; the worker has then been
 * restarted and msg says what the recovery did. res->worker_died says the
 * trace was cut short (by that fault or an earlier one). */
int cuda_profile_end(cuda_session_t *cs, cuda_profile_t *p, gpu_profile_result_t *res, char *ename, size_t el,
                     char *msg, size_t ml);

/* The name a kernel was written with, for the name CUPTI reports: the
 * session's kernels first, else the identifier inside a mangled name, else
 * the name itself. Writes into buf. */
const char *cuda_profile_kernel_name(cuda_session_t *cs, const char *lowered, char *buf, size_t n);

#endif
