/* The host libraries from host cells (cuda_libs.c), their checks
 * (cuda_lib_checks.c), NCCL (cuda_nccl.c) and NVTX ranges (cuda_nvtx.c):
 * what they share. */
#ifndef ICUDA_CUDA_LIBS_H
#define ICUDA_CUDA_LIBS_H

#include "cuda_call.h"
#include "runtime/toolkit/cuda_lib_table.h"

/* A generator, cuBLAS handle or cuFFT plan this session made. */
typedef struct {
    int lib;
    uint64_t value;     /* the worker's pointer, or the plan's number */
    unsigned restarts;  /* the session's restart count when it was made */
    bool host_gen;      /* curandCreateGeneratorHost: writes host memory */
    /* a plan's sizes, when known: rank, n[], batch, type (cufftType) */
    int rank, type;
    long long n[3], batch;
} clib_handle_t;

/* One NVTX range, open or closed, or a mark (end == start). */
typedef struct {
    char *name;
    double start_ms, end_ms;
    uint64_t id;        /* nvtxRangeStartA's id; 0 for pushed ranges */
    int depth;
    bool open;
} cs_nvtx_range_t;

typedef struct cs_libs {
    clib_handle_t *h;
    int nh, caph;
    cs_nvtx_range_t *r;
    int nr, capr;
    uint64_t next_id;
    int depth;          /* pushed ranges open now */
    struct cs_nccl *nccl; /* communicators and the open group (cuda_nccl.c) */
} cs_libs_t;

cs_libs_t *clib_state(cuda_session_t *cs);
/* The function's index in clib_fns, or -1. */
int clib_find(const char *name);
/* A constant or enumerator of the library headers by name (dflt when absent). */
long long clib_const(const char *name, long long dflt);
const char *clib_status_name(int lib, int value);
const char *clib_status_text(const char *name);
clib_handle_t *clib_handle(cs_libs_t *L, int lib, uint64_t value);
/* How library lib's functions are covered (docs/cuda-libraries.md): all of
 * them, forwarded, refused for a callback, refused for returning no status. */
void clib_coverage(int lib, int *total, int *forwarded, int *callbacks, int *no_status);

/* The extents a call's buffers must have (cuda_lib_checks.c): a misuse
 * set on c, or 0. */
int clib_check(cs_call_t *c, const crt_fn_t *f, int lib, cs_libs_t *L);
/* Remembers a plan's sizes from the call that made it. */
void clib_plan_made(cs_call_t *c, clib_handle_t *h);

/* A function of nccl.h (clib_fns[ix]): checked, kept in an open group or
 * forwarded (cuda_nccl.c); the session's NCCL state freed. */
int cs_nccl_call(cs_call_t *c, const crt_fn_t *f, int ix, cs_libs_t *L);
void cs_nccl_free(cs_libs_t *L);


/* nvtxRangePushA and friends (cuda_nvtx.c). */
int cs_nvtx_call(cuda_session_t *cs, const char *name, const interp_arg_t *args, int nargs, int64_t *ret, char *ename,
                 char *msg, size_t msglen);
void cs_nvtx_free(cs_libs_t *L);

#endif
