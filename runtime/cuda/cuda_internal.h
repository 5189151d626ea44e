/* The CUDA layer's shared state, for its own files only (cuda_session.c:
 * the worker's life and recovery; cuda_api.c: runtime calls; cuda_launch.c:
 * launches; magics/devices.c reads devices through cuda_session_devices). */
#ifndef ICUDA_CUDA_INTERNAL_H
#define ICUDA_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/toolkit/cuda_errors.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/lang/interp.h"
typedef struct device_session device_session_t; /* runtime/device/device_session.h */

/* Stream and event handles as host code holds them (a cudaStream_t value):
 * the client's handle plus this offset, so that 0 (the default stream) and
 * CUDA's special values 1 and 2 (cudaStreamLegacy/PerThread) stay apart. */
#define CS_HANDLE_BASE 16u

typedef struct {
    char hex[65];
    int dev;
    gpu_handle_t mod;
} cs_module_t;

/* A kernel ready to launch: parsed parameters and the worker's function. */
typedef struct cs_param cs_param_t;
typedef struct {
    char *name;        /* as launched: "vecadd", "scale<float>" */
    char *signature;   /* "vecadd(double *z, ...)" */
    char hex[65];      /* its module */
    char *lowered;
    cs_param_t *params;
    int nparams;
    int dev;           /* the function handle's device, -1: not loaded */
    gpu_handle_t fn;
    gpu_func_attrs_t attrs;
} cs_kernel_t;

/* Bytes written to a __constant__/__device__ variable from the host, to
 * write again into modules loaded later (each cell's module has its own
 * copy of a variable from the prelude). */
typedef struct {
    char *name;
    size_t offset, n;
    void *data;
} cs_symbol_write_t;

typedef struct {
    void *p, *orig;    /* the page-aligned range handed out, and arena_alloc's block */
    size_t n;
    uint64_t dptr;     /* the address kernels use (== p under unified addressing) */
} cs_pinned_t;

/* cudaMallocManaged memory: device memory at addr, and its host copy (the
 * interpreter keeps the two coherent, runtime/lang/eval/mem.c). */
typedef struct {
    uint64_t addr;
    void *host;
    size_t n;
} cs_managed_t;

struct cuda_session {
    struct interp *interp;  /* the host side: its values, pointers and hooks (borrowed) */
    device_session_t *dev;  /* the device side: kernels, modules, compiles (borrowed) */
    gpu_client_t *gc;
    const cell_io_t *io;    /* the running cell's output, NULL between cells */
    bool touched;             /* the GPU was used during this cell */
    int last_error;           /* cudaGetLastError's */
    char last_kernel[256];    /* the kernel launched last, for fault messages */
    char recovery_note[1024]; /* what the last recovery did, for the error */
    void (*on_restart)(void *ctx, int pid, char *note, size_t cap); /* cuda_session_on_restart */
    void *on_restart_ctx;
    cs_module_t *mods;
    int nmods, capmods;
    cs_kernel_t *kernels;
    int nkernels, capkernels;
    cs_symbol_write_t *syms;
    int nsyms, capsyms;
    cs_pinned_t *pins;
    int npins, cappins;
    cs_managed_t *managed;
    int nmanaged, capmanaged;
    struct cs_mvar *mvars;    /* __managed__ variables (cuda_managed_vars.c) */
    int nmvars, capmvars;
    bool unsynced;            /* work was issued since the host last waited for the GPU */
    bool warned_unsynced;     /* ... and the cell was told once that icuda waited for it */
    unsigned long work_count; /* launches, copies, memsets issued (cuda_session_work_count) */
    gpu_handle_t *capt;       /* streams being captured into a graph (cuda_exec.c) */
    int ncapt, capcapt;
    bool runtime_objects;     /* forwarded calls made objects (graphs, arrays, ...) a restart loses */
    unsigned restarts;        /* worker restarts so far (library handles remember theirs) */
    struct cs_libs *libs;     /* cuRAND generators, cuBLAS handles, cuFFT plans, NVTX ranges (cuda_libs.c) */
};

/* 0 when the worker is up; otherwise the cudaError_t that says why (no
 * device, no driver) with msg filled. Waits for the worker's start-up. */
int cs_ready(cuda_session_t *cs, char *msg, size_t ml);
/* After a call returned code r (CUresult or GPU_ERR_*): if the worker died
 * (fault, crash, interrupt), restarts it and fills cs->recovery_note. Returns
 * the cudaError_t for r. */
int cs_check(cuda_session_t *cs, int r);
/* Frees the session's library state (cuda_libs.c). */
void cs_libs_free(cuda_session_t *cs);
/* An NCCL group left open is dropped (true when there was one): after a
 * failed cell, so that running it again starts the group afresh, and at
 * %reset (cuda_nccl_group.c). */
bool cs_nccl_group_forget(struct cs_libs *L);
/* The worker's handle of a module (loaded on first use on the current device). */
int cs_module(cuda_session_t *cs, const char *hex, gpu_handle_t *mod);
/* Formats a size: "4000 bytes", "7.6 MiB". */
const char *cs_bytes(char *buf, size_t n, uint64_t bytes);

int cuda_api_call(void *ctx, const char *name, const interp_arg_t *args, int nargs, int discarded,
                  int64_t *ret, char *ename, char *msg, size_t msglen);
int cuda_launch(void *ctx, const char *kernel, const unsigned grid[3], const unsigned block[3],
                uint64_t shmem, uint64_t stream, const interp_arg_t *args, int nargs, char *ename,
                char *msg, size_t msglen);
void cuda_launch_forget(cuda_session_t *cs);
/* cudaLaunchKernel and cudaLaunchCooperativeKernel (cooperative): argv is
 * their void **args. 0, or -1 with ename and msg as cuda_launch. */
int cuda_launch_packed(cuda_session_t *cs, const char *kname, const unsigned grid[3], const unsigned block[3],
                       uint64_t shmem, uint64_t stream, const interp_arg_t *argv, bool cooperative, char *ename,
                       char *msg, size_t ml);
/* The kernel named as launched ("vecadd", "scale<float>"): its module and
 * lowered name, a template instance compiled if need be; no GPU work. 0, or
 * -1 with ename ("" for RuntimeError) and msg. */
int cs_kernel_resolve(cuda_session_t *cs, const char *name, cs_kernel_t **out, char *ename, char *msg, size_t ml);
/* The same, loaded on the current device (a function handle to launch). */
int cs_kernel_function(cuda_session_t *cs, const char *name, cs_kernel_t **out, char *msg, size_t ml);
int cs_kernel_decl(void *ctx, const char *name, char *decl, size_t cap);

/* Managed memory around GPU work (cuda_memory.c): before, the host's
 * changes go to the device; after, the device's may have changed it. 0 or
 * a cudaError_t with msg. */
int cs_managed_before_gpu(cuda_session_t *cs, char *msg, size_t ml);
void cs_managed_after_gpu(cuda_session_t *cs, uint64_t addr);
/* The interpreter's hooks for managed memory and device reads. */
int cs_managed_fetch(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t ml);
int cs_read_device(void *ctx, uint64_t addr, void *dst, uint64_t n);
/* After a worker restart: the managed buffers were refilled from their host copies. */
void cs_managed_restored(cuda_session_t *cs);
/* __managed__ variables (cuda_managed_vars.c): the launched module's copy
 * made current before a launch; the host's side at synchronisation points. */
typedef struct cs_mvar cs_mvar_t;
int cs_mvars_before_launch(cuda_session_t *cs, gpu_handle_t mod);
int cs_mvars_sync_point(cuda_session_t *cs);
void cs_mvars_restarted(cuda_session_t *cs);
void cs_mvars_free(cuda_session_t *cs);
/* The session's managed buffer at addr, or NULL. */
cs_managed_t *cs_managed_find(cuda_session_t *cs, uint64_t addr);

/* A CUresult or GPU_ERR_* code as the runtime API would report it
 * (cuda_driver_errors.c). */
int cuda_error_from_driver(int cu);

/* The symbol writes of earlier cells (cudaMemcpyToSymbol) applied to a
 * module just loaded (cuda_api.c). */
void cs_apply_symbol_writes(cuda_session_t *cs, gpu_handle_t mod);

#endif
