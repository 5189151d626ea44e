/* The kernel process's side of the GPU worker: starts
 * icuda-worker, sends it commands over the channel (channel.h), and survives
 * its death.
 *
 * Conventions
 *   - Every call returns a CUresult (0 = CUDA_SUCCESS), or one of the
 *     GPU_ERR_* codes below, which lie outside CUresult's range.
 *   - One thread (the engine's) makes the calls; gpu_client_kill_for_interrupt
 *     alone may be called from any thread or a signal handler.
 *   - Asynchronous calls (launch, *_async copies and memsets, event record,
 *     destroys) send one record and return at once. Their errors come back
 *     with the next synchronous call and are held for
 *     gpu_client_take_async_error: the engine charges them to the command
 *     whose seq they carry (gpu_client_last_seq after each call).
 *
 * Device addresses are real. The client reserves one range of addresses
 * (GPU_VA_BASE, GPU_VA_SIZE) in every worker, decides where each allocation
 * goes in it and has the worker back that place with memory (each buffer a
 * mapping of its own that ends where it ends, so an overrun faults; beyond
 * a budget, small ones share 2 MiB pools, as cudaMalloc's do). The address a cell
 * holds is the one the GPU uses — in a host variable, a struct field, a table
 * of pointers in device memory — and it stays the same when the worker is
 * replaced. Module, function, event and stream handles are small integers,
 * stable likewise. (A __device__ variable's address is the driver's and
 * moves when its module is loaded again.)
 *
 * Buffer contents after a restart: each buffer has a "shadow" — what the
 * client knows its contents to be: a host range in the arena (set
 * automatically by a whole-buffer host-to-device copy from the arena), a byte
 * value (a whole-buffer memset), or unknown (after a kernel got a pointer
 * into it, a partial write, a device-to-device copy from an unknown buffer).
 * gpu_client_set_shadow overrides it. At restart, buffers with a shadow are
 * refilled (after cfg.shadow_valid, if given, confirms a host shadow — the
 * interpreter knows whether the host array has changed since), the others
 * are zeroed and listed as lost.
 *
 * Host memory passed to copies may be anywhere; ranges inside the shared
 * arena (arena.h) are copied by the worker directly (pinned if registered
 * with gpu_client_host_register), others are bounced through a temporary
 * arena buffer. */
#ifndef ICUDA_GPU_CLIENT_H
#define ICUDA_GPU_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "runtime/gpu/channel.h"

/* The device address range of every worker: 4 TiB at 96 TiB, far from the
 * heap and from where Linux puts mappings, below 2^47 (the interpreter tells
 * real addresses from its own pointer words by that limit). */
#define GPU_VA_BASE 0x600000000000ULL
#define GPU_VA_SIZE (4ULL << 40)

#define GPU_ERR_WORKER_DIED 0x10001 /* crashed or killed; see gpu_client_fault */
#define GPU_ERR_INTERRUPTED 0x10002 /* killed because the cell was interrupted */
#define GPU_ERR_NO_WORKER 0x10003   /* icuda-worker could not be started */

typedef uint32_t gpu_handle_t; /* modules, functions, events, streams; stream 0 = default */

typedef enum gpu_state {
    GPU_STARTING,    /* spawned, hello not yet read */
    GPU_READY,
    GPU_NO_DRIVER,   /* no libcuda / no device: every call fails, restart will not help */
    GPU_FAULTED,     /* a sticky CUDA error: the worker exited; restart */
    GPU_CRASHED,     /* the worker died (signal, exit); restart */
    GPU_INTERRUPTED, /* killed for an interrupt; restart */
} gpu_state_t;

typedef struct gpu_client_config {
    const char *worker_path; /* NULL: $ICUDA_WORKER, else icuda-worker next to
                                /proc/self/exe (or in its parent folder) */
    int device;              /* device of the first context */
    size_t arena_reserve;    /* used if the arena is not yet created; 0: 64 GiB */
    /* Worker output (device printf): called from whichever client call is
     * waiting, in order. NULL: written to this process's fd 1 / fd 2. */
    void (*output)(void *ctx, const char *stream, const char *data, size_t len);
    /* Polled (every 20 ms) while a synchronous call waits; once it returns
     * true for interrupt_grace_ms, the worker is killed and the call returns
     * GPU_ERR_INTERRUPTED. */
    bool (*interrupted)(void *ctx);
    int interrupt_grace_ms; /* 0: 300 */
    /* Asked at restart whether a buffer's host shadow is still its contents. */
    bool (*shadow_valid)(void *ctx, CUdeviceptr dptr, const void *host, size_t n);
    void *ctx;
} gpu_client_config_t;

typedef struct gpu_fault {
    gpu_state_t state;
    int code;             /* the CUresult (sticky fault), or a GPU_ERR_* */
    const char *name;     /* "CUDA_ERROR_ILLEGAL_ADDRESS", "GPU_ERR_WORKER_DIED" */
    char message[512];    /* one line for the user */
    char kernel[256];     /* the kernel launched last before the fault, or "" */
    int signal;           /* the worker's fatal signal, or 0 */
    int exit_status;      /* its exit status, or -1 */
} gpu_fault_t;

typedef struct gpu_client gpu_client_t;

/* Starts the worker (does not wait for it: its ~300 ms of context creation
 * overlap with whatever comes next). NULL only when out of memory. */
gpu_client_t *gpu_client_new(const gpu_client_config_t *cfg);
/* Shuts the worker down and frees everything. */
void gpu_client_free(gpu_client_t *c);

/* Waits until the worker has said hello: 0, or why not (then see fault). */
int gpu_client_wait_ready(gpu_client_t *c);
gpu_state_t gpu_client_state(const gpu_client_t *c);
/* What went wrong last (state, code, message, kernel); returns the state. */
gpu_state_t gpu_client_fault(const gpu_client_t *c, gpu_fault_t *f);
/* The worker's pid, or -1. */
int gpu_client_pid(const gpu_client_t *c);
/* Driver version (e.g. 13000), 0 before hello. */
int gpu_client_driver_version(const gpu_client_t *c);

/* Kills the worker at once (SIGKILL). Any thread, async-signal-safe. The call
 * in progress returns GPU_ERR_INTERRUPTED; then call gpu_client_restart. */
void gpu_client_kill_for_interrupt(gpu_client_t *c);

typedef struct gpu_restart_report {
    int modules;            /* reloaded */
    int restored;           /* buffers refilled from their shadow */
    int lost;               /* buffers whose contents are gone (now zero) */
    CUdeviceptr *lost_ptrs; /* the lost buffers' addresses (malloc'd; free it) */
    double ms;              /* time the restart took */
} gpu_restart_report_t;

/* Replaces the worker (killing the old one if alive), then reloads modules,
 * functions and globals, re-creates streams and events, re-registers pinned
 * ranges, re-allocates every buffer and refills those with a shadow. rep may
 * be NULL. */
int gpu_client_restart(gpu_client_t *c, gpu_restart_report_t *rep);

/* Async errors: the first failing asynchronous command since the last take
 * (its CUresult, seq and CH_* op), or 0. */
int gpu_client_take_async_error(gpu_client_t *c, uint32_t *seq, int *op);
uint32_t gpu_client_last_seq(const gpu_client_t *c);

/* Output pipes of the worker ([0] stdout, [1] stderr; -1 when none), for an
 * event loop to poll; gpu_client_drain_output forwards what is readable now. */
void gpu_client_output_fds(const gpu_client_t *c, int fds[2]);
void gpu_client_drain_output(gpu_client_t *c);

/* ---- devices ---- */
int gpu_client_device_count(gpu_client_t *c, int *n);
int gpu_client_device_props(gpu_client_t *c, int dev, gpu_props_t *p); /* cached */
int gpu_client_set_device(gpu_client_t *c, int dev);
int gpu_client_get_device(const gpu_client_t *c);
/* cuDeviceGetAttribute of device dev (attribute: CUdevice_attribute, which
 * numbers attributes as the runtime's cudaDeviceAttr does). */
int gpu_client_device_attribute(gpu_client_t *c, int dev, int attribute, int *value);
int gpu_client_mem_info(gpu_client_t *c, size_t *free_bytes, size_t *total_bytes);
/* ... of device dev (-1: the current one) */
int gpu_client_mem_info_on(gpu_client_t *c, int dev, size_t *free_bytes, size_t *total_bytes);
int gpu_client_sync(gpu_client_t *c); /* cuCtxSynchronize of the current device */
/* ... and of every other device a command of this worker ran on (the end of a cell) */
int gpu_client_sync_all(gpu_client_t *c);

/* ---- memory ---- */
int gpu_client_malloc(gpu_client_t *c, CUdeviceptr *p, size_t n);
int gpu_client_free_mem(gpu_client_t *c, CUdeviceptr p);
/* The live buffer holding p: its base, size and device; false if none. */
bool gpu_client_buffer(const gpu_client_t *c, CUdeviceptr p, CUdeviceptr *base, size_t *size,
                       int *dev);
/* Declares the contents of the whole buffer at base: host (an arena range of
 * its size) or, with host NULL, fill >= 0 a byte value, fill < 0 unknown. */
int gpu_client_set_shadow(gpu_client_t *c, CUdeviceptr base, const void *host, int fill);
/* A host shadow that stays whatever kernels do (managed memory's host copy):
 * a restart refills the buffer from it. */
int gpu_client_bind_shadow(gpu_client_t *c, CUdeviceptr base, const void *host);
/* Whether the worker holds the device range (device allocations need it);
 * if not, *why is the CUresult that refused it. */
bool gpu_client_unified(const gpu_client_t *c, int *why);

int gpu_client_memcpy_htod(gpu_client_t *c, CUdeviceptr dst, const void *src, size_t n,
                           gpu_handle_t stream, bool async);
int gpu_client_memcpy_dtoh(gpu_client_t *c, void *dst, CUdeviceptr src, size_t n,
                           gpu_handle_t stream, bool async);
int gpu_client_memcpy_dtod(gpu_client_t *c, CUdeviceptr dst, CUdeviceptr src, size_t n,
                           gpu_handle_t stream, bool async);
int gpu_client_memset(gpu_client_t *c, CUdeviceptr dst, int value, size_t n, gpu_handle_t stream,
                      bool async);
/* Page-locks an arena range (cudaHostRegister / cudaMallocHost). Ranges must
 * not share pages with another registered range; unregister before
 * arena_free. With CU_MEMHOSTREGISTER_DEVICEMAP in flags, *dptr (may be
 * NULL) is the address kernels use for it (equal to p where unified
 * addressing allows: the arena is mapped at the same address in the worker). */
int gpu_client_host_register(gpu_client_t *c, void *p, size_t n, unsigned flags, CUdeviceptr *dptr);
int gpu_client_host_unregister(gpu_client_t *c, void *p);
bool gpu_client_host_is_registered(const gpu_client_t *c, const void *p, size_t n);
/* The CU_MEMHOSTREGISTER_* flags of the registered range holding p. */
int gpu_client_host_flags(const gpu_client_t *c, const void *p, unsigned *flags);

/* ---- modules and launches ---- */
/* image: cubin or NUL-terminated PTX (copied; kept for reloads). On failure
 * *log (malloc'd, may be NULL) holds the JIT error log. */
/* Runs a native C++ cell in the worker: loads the shared object at path,
 * which runs the cell's code (runtime/gpu/worker/worker_native.h), with
 * binds registered first (the session's variables the cell binds by name).
 * *outcome is the worker's ch_native_outcome and *report its report
 * (malloc'd) when the worker answered; returns a CUresult, or GPU_ERR_* when
 * the worker died (a crash, exit() or abort() in the cell) or was stopped
 * for an interrupt. */
typedef struct {
    const char *name;
    uint64_t value;
} gpu_native_binding_t;
int gpu_client_native_run(gpu_client_t *c, const char *path, const gpu_native_binding_t *binds, int nbinds,
                          int *outcome, char **report);

int gpu_client_module_load(gpu_client_t *c, const void *image, size_t n, gpu_handle_t *mod,
                           char **log);
int gpu_client_module_unload(gpu_client_t *c, gpu_handle_t mod);
int gpu_client_get_function(gpu_client_t *c, gpu_handle_t mod, const char *name,
                            gpu_handle_t *fn, gpu_func_attrs_t *attrs);
/* A __device__/__constant__ variable: its address (the driver's, listed
 * with the buffers, so the memcpy calls take it; it moves when the module
 * is loaded again after a restart) and size. */
int gpu_client_get_global(gpu_client_t *c, gpu_handle_t mod, const char *name, CUdeviceptr *p,
                          size_t *size);
/* args[i] points to size[i] bytes, passed as they are. is_dptr[i] (or
 * is_dptr NULL: none) says what the kernel may write, for the buffers'
 * shadows: GPU_ARG_PTR a device pointer it may write through (that buffer's
 * shadow is dropped), GPU_ARG_CONST_PTR a pointer to const (the shadow
 * stays), GPU_ARG_REACHES an argument through which it may reach any buffer
 * (a struct, a T **: every shadow but bound ones is dropped). Grid, block
 * and shared memory are checked against the device and the function first
 * (CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); other
 * errors come asynchronously. */
enum { GPU_ARG_VALUE = 0, GPU_ARG_PTR = 1, GPU_ARG_CONST_PTR = 2, GPU_ARG_REACHES = 3 };
int gpu_client_launch(gpu_client_t *c, gpu_handle_t fn, const unsigned grid[3],
                      const unsigned block[3], unsigned shmem, gpu_handle_t stream, int nargs,
                      void *const *args, const uint16_t *size, const uint8_t *is_dptr);
/* The same, with cuLaunchCooperativeKernel (cooperative_groups' grid.sync()),
 * and answered: its own error comes back at once, as CUDA returns it. */
int gpu_client_launch_cooperative(gpu_client_t *c, gpu_handle_t fn, const unsigned grid[3], const unsigned block[3],
                                  unsigned shmem, gpu_handle_t stream, int nargs, void *const *args,
                                  const uint16_t *size, const uint8_t *is_dptr);
int gpu_client_occupancy(gpu_client_t *c, gpu_handle_t fn, size_t shmem, int block_limit,
                         int *min_grid, int *block);
const char *gpu_client_function_name(const gpu_client_t *c, gpu_handle_t fn);

/* ---- events and streams ---- */
int gpu_client_event_create(gpu_client_t *c, gpu_handle_t *ev, unsigned flags);
int gpu_client_event_record(gpu_client_t *c, gpu_handle_t ev, gpu_handle_t stream);
int gpu_client_event_sync(gpu_client_t *c, gpu_handle_t ev);
int gpu_client_event_elapsed(gpu_client_t *c, float *ms, gpu_handle_t start, gpu_handle_t end);
int gpu_client_event_query(gpu_client_t *c, gpu_handle_t ev); /* 0 or CUDA_ERROR_NOT_READY */
int gpu_client_event_destroy(gpu_client_t *c, gpu_handle_t ev);
int gpu_client_stream_create(gpu_client_t *c, gpu_handle_t *s, unsigned flags);
int gpu_client_stream_sync(gpu_client_t *c, gpu_handle_t s);
int gpu_client_stream_query(gpu_client_t *c, gpu_handle_t s);
int gpu_client_stream_destroy(gpu_client_t *c, gpu_handle_t s);

/* Name of a CUresult or GPU_ERR_* code ("CUDA_ERROR_ILLEGAL_ADDRESS"). */
const char *gpu_client_error_name(int code);

/* ---- tools that run the worker differently (%memcheck, %resources) ---- */

/* Workers started from now on (gpu_client_restart) run as argv[0] argv[1]
 * ... icuda-worker ARGS, e.g. under compute-sanitizer, in a process group
 * of their own (a kill reaches the whole tree). argv is copied; NULL or
 * empty: plain workers again. */
int gpu_client_set_wrapper(gpu_client_t *c, const char *const *argv);

/* A live buffer as gpu_client_buffers lists it. shadow_host / shadow_fill
 * are the shadow as gpu_client_set_shadow takes it (host NULL and fill < 0:
 * contents unknown), so a caller can save one and put it back. */
typedef struct gpu_buffer_info {
    CUdeviceptr base;
    size_t size;
    int dev;
    bool is_global; /* a __device__/__constant__ variable of a module */
    const void *shadow_host;
    int shadow_fill;
    bool shadow_bound; /* ... set with gpu_client_bind_shadow (managed memory) */
} gpu_buffer_info_t;

/* Fills out[0 .. cap) with the live buffers in address order; returns how
 * many there are (call with cap 0 to count). */
int gpu_client_buffers(const gpu_client_t *c, gpu_buffer_info_t *out, int cap);

/* Asks the worker to exit and waits up to timeout_ms (0: 10 s) for it, and a
 * wrapper around it, to finish (a sanitizer writes its summary then); kills
 * the process group after that. gpu_client_restart starts the next one. */
int gpu_client_stop(gpu_client_t *c, int timeout_ms);

/* ---- the CUDA runtime in the worker, kernels' attributes (gpu_cudart.c) ---- */

/* A CUDA runtime call forwarded to the worker's libcudart: fn is the
 * function's index in the generated table (runtime/toolkit/cuda_rt_table.h),
 * name its name (the worker checks both agree); args[i] holds size[i] bytes,
 * every address in them already one the worker can use. *ret is the call's
 * return value (its cudaError_t). Returns 0 when the call ran, else a
 * sticky fault, the worker's end, or why it could not run (msg, e.g. no
 * libcudart on this machine). */
int gpu_client_cudart(gpu_client_t *c, unsigned fn, const char *name, int nargs, void *const *args,
                      const uint16_t *size, int64_t *ret, char *msg, size_t ml);
/* A CH_FUNC operation (channel.h CH_FN_*) on kernel fn, on the device its
 * module lives on: v[0..1] and up to cap bytes of the answer's payload come
 * back. Attributes and cache configurations set are applied again after a
 * restart, and the dynamic shared memory limit launches check follows. */
int gpu_client_func(gpu_client_t *c, gpu_handle_t fn, int op, int a, int b, uint64_t smem, const void *extra,
                    size_t elen, uint64_t v[2], void *out, size_t cap);
/* Whether the worker mapped the arena at this process's address, so that a
 * host address inside it means the same there (pointers passed as they are). */
bool gpu_client_arena_shared(const gpu_client_t *c);
/* The worker's CUstream / CUevent behind a handle (stream 0: 0), and back. */
int gpu_client_stream_raw(const gpu_client_t *c, gpu_handle_t s, uint64_t *raw);
int gpu_client_event_raw(const gpu_client_t *c, gpu_handle_t e, uint64_t *raw);
gpu_handle_t gpu_client_stream_of_raw(const gpu_client_t *c, uint64_t raw);
/* The device stream s (not 0) was created on. */
int gpu_client_stream_device(const gpu_client_t *c, gpu_handle_t s, int *dev);
gpu_handle_t gpu_client_event_of_raw(const gpu_client_t *c, uint64_t raw);
/* cudaStreamCreateWithPriority (re-created with its priority after a restart). */
int gpu_client_stream_create_priority(gpu_client_t *c, gpu_handle_t *s, unsigned flags, int priority);
/* Peer access (cudaDeviceEnablePeerAccess): the current device may (on) or
 * may no longer reach device peer's memory, now and in every mapping made
 * on peer later, after a restart too. */
int gpu_client_peer_access(gpu_client_t *c, int peer, bool on);
/* Whether device a may reach device owner's memory. */
bool gpu_client_peer_enabled(const gpu_client_t *c, int a, int owner);
/* What connects device a to device b (channel.h ch_peer_info_t): whether a
 * can reach b's memory, and over what link. */
int gpu_client_peer_info(gpu_client_t *c, int a, int b, ch_peer_info_t *out);
/* Work the client did not see may have written the buffer at p (0: any
 * buffer): its shadow is gone, a restart zeroes it and calls it lost. */
void gpu_client_touch(gpu_client_t *c, CUdeviceptr p);

/* cuOccupancyMaxActiveBlocksPerMultiprocessor: resident blocks of fn per SM
 * at this block size and dynamic shared memory. */
int gpu_client_active_blocks(gpu_client_t *c, gpu_handle_t fn, int block, size_t shmem, int *blocks);

/* A synchronous command that gpu_client does not interpret itself (the
 * profiler's, runtime/gpu/client/gpu_profile.c) on the current device: u (ulen
 * bytes) becomes the command's union; the answer's v[] and its text (up to
 * cap - 1 bytes, NUL-terminated) are copied out when one came. Returns the
 * command's CUresult or the worker's end, as every call here does. */
int gpu_client_command(gpu_client_t *c, uint16_t op, const void *u, size_t ulen, uint64_t v[4], char *text,
                       size_t cap);

#endif
