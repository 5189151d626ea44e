/* One CUDA runtime call from a host cell, as the runtime/cuda files that
 * implement calls see it (cuda_api.c dispatches; cuda_memory.c and the
 * others carry them out), and the checks they share: arity, out-arguments,
 * sizes against buffers, the worker's readiness, and turning a worker
 * result into CUDA's error with an explanation. */
#ifndef ICUDA_CUDA_CALL_H
#define ICUDA_CUDA_CALL_H

#include "cuda_internal.h"
#include "runtime/toolkit/cuda_rt_table.h"

/* One call in progress. */
typedef struct {
    cuda_session_t *cs;
    const char *name;
    const interp_arg_t *a;
    int n;
    char *msg;
    size_t ml;
    bool hard;   /* a misuse caught before the GPU: raised even when the result is kept */
    int lib_status; /* a library call's own status (cuRAND, cuBLAS, cuFFT), when the library answered */
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

/* Checks a copy's direction (a cudaMemcpyKind) against where destination
 * argument di and source argument si point (cuda_memory.c). */
int call_check_kind(cs_call_t *c, int di, int si, int kind);
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
int api_stream_attach_mem(cs_call_t *c);

/* Pitched, 2-D and 3-D memory, stream-ordered allocation, registered host
 * memory and peer copies (cuda_memory2d.c). */
int api_malloc_pitch(cs_call_t *c);
int api_malloc_3d(cs_call_t *c);
int api_malloc_async(cs_call_t *c);
int api_free_async(cs_call_t *c);
int api_memcpy_2d(cs_call_t *c);
int api_memcpy_2d_array(cs_call_t *c);
int api_memcpy_array(cs_call_t *c);
int api_memset_2d(cs_call_t *c);
int api_memcpy_3d(cs_call_t *c);
int api_memset_3d(cs_call_t *c);
int api_host_register(cs_call_t *c);
int api_host_unregister(cs_call_t *c);
int api_memcpy_peer(cs_call_t *c);
int api_host_get_flags(cs_call_t *c);

/* Kernels by name, occupancy, host functions, priorities, capture, device
 * properties (cuda_exec.c). */
int api_func_set_attribute(cs_call_t *c);
int api_func_get_attributes(cs_call_t *c);
int api_func_set_cache_config(cs_call_t *c);
int api_func_get_name(cs_call_t *c);
int api_func_get_param_info(cs_call_t *c);
int api_occupancy_blocks_flags(cs_call_t *c);
int api_occupancy_dyn_smem(cs_call_t *c);
int api_occupancy_clusters(cs_call_t *c);
int api_occupancy_block_size(cs_call_t *c);
int api_occupancy_variable_smem(cs_call_t *c);
int api_launch_host_func(cs_call_t *c);
int api_stream_create_priority(cs_call_t *c);
int api_stream_capture(cs_call_t *c);
int api_graph_node_params(cs_call_t *c);
int api_device_props(cs_call_t *c);
int api_peer_access(cs_call_t *c);
/* Whether stream s (a handle) is being captured into a graph. */
bool cs_capturing(cuda_session_t *cs, gpu_handle_t s);

/* A function of cuda_runtime_api.h run by the worker's libcudart, its
 * arguments checked and translated (cuda_forward.c). */
int cs_forward(cs_call_t *c);
/* The same for a function of another table (the host libraries, cuda_libs.c):
 * pf its pointer fields, wire_fn the worker's number for it, lib its CLIB_*. */
int cs_forward_fn(cs_call_t *c, const crt_fn_t *f, const crt_ptrfields_t *pf, unsigned wire_fn, int lib);
/* Whether icuda implements name itself (cuda_api.c). */
bool cs_api_own(const char *name);
/* Why icuda refuses name, and its family; NULL when it does not (cuda_rt_policy.c). */
const char *cs_refusal(const char *name, const char **family);

/* The host libraries (cuda_libs.c): whether name is one of their functions
 * (or NVTX's), a call of one, the session's library state freed. */
bool cs_lib_knows(const char *name);
int cs_lib_call(cuda_session_t *cs, const char *name, const interp_arg_t *args, int nargs, int discarded, int64_t *ret,
                char *ename, char *msg, size_t msglen);

#define CS_MAX_FAMILIES 16
typedef struct {
    int total, own, interpreted, forwarded, refused;
    int nfamilies;
    const char *family[CS_MAX_FAMILIES];
    int refused_in[CS_MAX_FAMILIES];
} cs_coverage_t;
/* How the functions of cuda_runtime_api.h are covered (docs/cuda-api-coverage.md). */
void cs_api_coverage(cs_coverage_t *cv);

#endif
