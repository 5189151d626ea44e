/* The CUDA runtime API as host cells see it: cudaMalloc,
 * copies, launches, events, streams ... carried out by the GPU worker
 * through runtime/gpu/gpu_client, with sizes and argument types checked
 * before anything reaches the GPU. */
#ifndef ICUDA_CUDA_SESSION_H
#define ICUDA_CUDA_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/base/cell_io.h"

struct interp;
struct device_session;

typedef struct cuda_session cuda_session_t;

/* Attaches to the session's interpreter and device side: installs the
 * interpreter's launch/call hooks and
 * starts the worker in the background (no GPU: calls fail with CUDA's own
 * cudaErrorNoDevice / cudaErrorInsufficientDriver, the session goes on). */
cuda_session_t *cuda_session_new(struct interp *interp, struct device_session *dev);
void cuda_session_free(cuda_session_t *cs);

/* The start of every cell: worker output (device printf) now goes to io. */
void cuda_session_begin_cell(cuda_session_t *cs, const cell_io_t *io);

/* For %devices / %device: the worker's client once it is ready, or NULL with
 * msg saying why there is none (no GPU, no driver). */
struct gpu_client *cuda_session_client(cuda_session_t *cs, char *msg, size_t ml);
/* cudaSetDevice: 0, or a cudaError_t with msg. */
int cuda_session_set_device(cuda_session_t *cs, int dev, char *msg, size_t ml);
/* The current device and how many there are; 0 and 0 while no worker runs
 * (it starts none). */
int cuda_session_current_device(cuda_session_t *cs, int *count);

/* A __managed__ variable of a device cell that just compiled: its host side
 * is the session variable name (already declared). 0, or -1 with msg. */
int cuda_session_managed_var(cuda_session_t *cs, const char *name, char *msg, size_t ml);
/* Whether name is such a variable. */
bool cuda_session_is_managed_var(cuda_session_t *cs, const char *name);

/* The end of every cell: a device synchronisation, so that asynchronous
 * errors and faults are charged to the cell that caused them; after a fault,
 * the worker is restarted and what was lost is reported. rc is the cell's
 * result so far; returns the cell's final result (err filled on -1). */
int cuda_session_end_cell(cuda_session_t *cs, const cell_io_t *io, int rc, cell_error_t *err);

/* How many launches, copies and memsets host code has issued to the GPU in
 * this session: %timeit reads it before and after a statement to know
 * whether the statement did GPU work (then it times with CUDA events). */
unsigned long cuda_session_work_count(const cuda_session_t *cs);

/* For magics that drive the GPU client themselves (%timeit): after a client
 * call returned r (a CUresult or GPU_ERR_*), restarts the worker if it died,
 * as the end of a cell does, and fills err as a cell's error: the CUDA
 * error (what says what was being done), or KeyboardInterrupt. Returns -1. */
int cuda_session_error(cuda_session_t *cs, int r, const char *what, cell_error_t *err);

/* What the last restart of the worker did and lost, as a sentence or two
 * ("" when none happened in this cell). */
const char *cuda_session_recovery_note(const cuda_session_t *cs);
/* fn is called after each restart of the worker with its new pid, to add to
 * the recovery note (note has room for cap bytes, what is there kept): for
 * what lived in the old worker that the CUDA layer does not know of. */
void cuda_session_on_restart(cuda_session_t *cs, void (*fn)(void *ctx, int pid, char *note, size_t cap), void *ctx);

/* A device buffer the session allocated, freed by a native cell's cudaFree
 * (which the worker defers to here): freed as an interpreted cudaFree
 * frees it. -1 when addr is not the start of a live device buffer of the
 * session's (freed already, or inside one). (runtime/cuda/cuda_memory.c) */
int cuda_session_free_device(cuda_session_t *cs, uint64_t addr);
/* Likewise a buffer an interpreted cell's malloc made, freed by a native
 * cell's free(): -1 when addr is not the start of a live one. */
int cuda_session_free_host(cuda_session_t *cs, void *addr);

/* The worker's CUstream / CUevent behind a cudaStream_t / cudaEvent_t value
 * of interpreted code (icuda's handle, the default stream's 0, 1 or 2, or a
 * worker value a forwarded call returned), for native code and forwarded
 * calls: 0; 1 when it is a handle no longer live, 2 when it is none. */
int cuda_session_raw_handle(const cuda_session_t *cs, bool stream, uint64_t v, uint64_t *raw);

/* %reset: unloads the session's modules and forgets its kernels, symbol
 * writes and __managed__ variables; the worker stays. Returns how many
 * modules were unloaded. (runtime/cuda/cuda_reset.c) */
int cuda_session_reset(cuda_session_t *cs);

/* Whether name is a runtime function host cells refuse that a native C++
 * cell can call (it takes a kernel's host stub or a C function pointer),
 * with its family. (runtime/cuda/cuda_rt_policy.c) */
bool cuda_native_only(const char *name, const char **family);

#endif
