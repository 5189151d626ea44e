/* One CUDA runtime call from a host cell, as the runtime/cuda files that
 * implement calls see it (cuda_api.c dispatches; cuda_memory.c and the
 * others carry them out), and the checks they share: arity, out-arguments,
 * sizes against buffers, the worker's readiness, and turning a worker
 * result into CUDA's error with an explanation. */
#ifndef ICUDA_CUDA_CALL_H
#define ICUDA_CUDA_CALL_H

#include "cuda_internal.h"

/* One call in progress. */
typedef struct {
    cuda_session_t *cs;
    const char *name;
    const interp_arg_t *a;
    int n;
    char *msg;
    size_t ml;
    bool hard;   /* a misuse caught before the GPU: raised even when the result is kept */
} cs_call_t;

/* A hard error (cudaErrorInvalidValue and a message). */
int call_misuse(cs_call_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A failure with CUDA's code and an explanation. */
int call_fail(cs_call_t *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *call_arg_name(const interp_arg_t *a);
int64_t call_ival(const interp_arg_t *a);
/* "device memory", "pinned host memory", ... for INTERP_PLACE_* */
const char *call_place_name(int place);
/* The host address behind out-argument i, with room for need bytes (NULL: misuse set). */
void *call_out_arg(cs_call_t *c, int i, size_t need, const char *what);
int call_arity(cs_call_t *c, int lo, int hi, const char *params);
/* The worker, or the reason there is none. */
int call_ready(cs_call_t *c);
/* A worker call's result: the async error of earlier work if this call
 * succeeded (CUDA reports it at the next call), recovery after a fault;
 * -2 for an interrupt. */
int call_done(cs_call_t *c, int r);
gpu_handle_t call_handle_of(uint64_t v);
int call_stream_arg(cs_call_t *c, int i, gpu_handle_t *s);
/* Checks that n bytes fit at pointer argument i; which: "into"/"from". */
int call_fits(cs_call_t *c, int i, uint64_t n, const char *which);

/* The memory family (cuda_memory.c); each returns a cudaError_t. */
int api_malloc(cs_call_t *c);
int api_malloc_managed(cs_call_t *c);
int api_free(cs_call_t *c);
int api_malloc_host(cs_call_t *c, bool flags);
int api_free_host(cs_call_t *c);
int api_memcpy(cs_call_t *c, bool async);
int api_memset(cs_call_t *c, bool async);
int api_host_get_device_pointer(cs_call_t *c);
int api_pointer_attributes(cs_call_t *c);
int api_mem_prefetch(cs_call_t *c);
int api_mem_advise(cs_call_t *c);

#endif
