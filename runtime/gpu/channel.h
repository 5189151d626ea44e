/* The command channel between the kernel process (gpu_client) and the GPU
 * worker (worker_main): one SOCK_SEQPACKET socketpair, one record per
 * message, so a record is one send() and one recv() and needs no framing.
 *
 * A command is a ch_cmd_t (a fixed header plus the union member of its op)
 * followed, for some ops, by variable bytes (names, launch arguments).
 * Synchronous commands are answered by exactly one ch_reply_t; asynchronous
 * ones (CH_LAUNCH, async copies/memsets, CH_EVENT_RECORD, destroys) by none:
 * the worker remembers the first error of an asynchronous command and hands it
 * back in the next reply (async_err/async_seq), the way CUDA reports errors at
 * the next synchronising call.
 *
 * Device memory lives in one virtual range that every worker reserves at the
 * same fixed address (CH_HELLO's payload); the client decides where each
 * allocation goes and asks the worker to back that range with memory
 * (CH_MAP), so a device address is the same in every worker, and the
 * pointers stored inside device memory survive a restart. Other handles on
 * the wire are the worker's own values (CUmodule, CUfunction, CUstream,
 * CUevent as uint64); the client maps its stable handles onto them. Host
 * memory is named by its offset in the shared arena memfd, which the worker
 * maps at the client's address too. Large payloads (module images) travel
 * through the arena, never through the socket. */
#ifndef ICUDA_CHANNEL_H
#define ICUDA_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define CH_MAX_RECORD 65536 /* bytes of one record, either way */
#define CH_MAX_ARGS 512     /* launch arguments */

enum ch_op {
    CH_HELLO = 1,   /* worker -> client, once, after start-up (a reply record) */
    CH_SHUTDOWN,    /* sync */
    CH_DEVICE_COUNT,
    CH_DEVICE_PROPS, /* reply payload: gpu_props_t */
    CH_SET_DEVICE,
    CH_MEM_INFO,
    CH_SYNC,        /* cuCtxSynchronize */
    CH_MAP,         /* back [va, va+size) with new memory of device dev */
    CH_UNMAP,       /* synchronise the device, then release [va, va+size) */
    CH_MEMCPY,      /* sync or async (flags & CH_ASYNC) */
    CH_MEMSET,      /* sync or async */
    CH_MODULE_LOAD, /* image in the arena; reply: module; payload: error log */
    CH_MODULE_UNLOAD,
    CH_GET_FUNCTION, /* reply payload: gpu_func_attrs_t */
    CH_GET_GLOBAL,
    CH_LAUNCH,       /* async */
    CH_OCCUPANCY,
    CH_EVENT_CREATE,
    CH_EVENT_RECORD, /* async */
    CH_EVENT_SYNC,
    CH_EVENT_ELAPSED,
    CH_EVENT_QUERY,
    CH_EVENT_DESTROY, /* async */
    CH_STREAM_CREATE,
    CH_STREAM_SYNC,
    CH_STREAM_QUERY,
    CH_STREAM_DESTROY, /* async */
    CH_HOST_REGISTER,
    CH_HOST_UNREGISTER,
    CH_OCCUPANCY_BLOCKS, /* occupancy: limit is the block size; reply v[0] blocks per SM */
    CH_PROFILE_START, /* CUPTI activity trace into an arena range (profile_wire.h) */
    CH_PROFILE_STOP,  /* synchronise, flush, detach CUPTI; v[0] records, v[3] 1 if detached */
    CH_LAUNCH_COOPERATIVE, /* a CH_LAUNCH record, launched with cuLaunchCooperativeKernel; sync */
    CH_DEVICE_ATTRIBUTE,   /* cuDeviceGetAttribute; reply v[0] the value */
    CH_CUDART,        /* a CUDA runtime call (worker_cudart.c): u.rt, then uint16_t size[nargs], the
                         arguments at 16-byte aligned offsets (ch_launch_args_offset), the function's
                         name; reply v[0] its return value, result a sticky fault's code or 0 */
    CH_FUNC,          /* a kernel's attributes and occupancy (u.func, CH_FN_*), by the driver API */
    CH_ACCESS,        /* grant (on) or take back device dev's access to [va, va+size) (peer access) */
    CH_NATIVE_RUN,    /* + the NUL-terminated path of a native cell's shared object, then u.native.nbinds
                         names (NUL-terminated) each followed by an 8-byte value, registered first; the
                         object is loaded, which runs it (worker_native.h); v[0] the outcome, payload
                         the report */
    CH_PEER_INFO,     /* what connects device u.peer.a to u.peer.b: payload ch_peer_info_t */
    CH_OP_COUNT
};

#define CH_ASYNC 1u /* flags: no reply */

/* v[0] of a CH_NATIVE_RUN reply */
enum ch_native_outcome {
    CH_NATIVE_OK = 0,
    CH_NATIVE_FAILED = 1,      /* an exception or a non-zero return ended the cell's code */
    CH_NATIVE_LOAD_FAILED = 2, /* the object could not be loaded (the report says why) */
};

enum ch_copy_kind { CH_H2D = 1, CH_D2H, CH_D2D };

typedef struct ch_cmd {
    uint16_t op;
    uint16_t flags;
    int16_t dev;   /* device whose context runs the command (-1: current) */
    uint16_t pad;
    uint32_t seq;  /* the client's sequence number, echoed in async errors */
    uint32_t pad2;
    union {
        struct { uint64_t va, size; } map; /* CH_MAP, CH_UNMAP */
        struct { uint32_t kind; uint32_t pad; uint64_t dst, src, size, stream; } copy;
        struct { uint64_t dptr, size, stream; uint32_t value; uint32_t pad; } memset;
        struct { uint64_t offset, size; } module_load; /* arena range */
        struct { uint64_t module; } module_unload;
        struct { uint64_t module; } get; /* + NUL-terminated name */
        struct {
            uint64_t func, stream;
            uint32_t grid[3], block[3];
            uint32_t shmem;
            uint16_t nargs, pad;
            /* + uint16_t size[nargs], then each argument at a 16-byte aligned
             * offset from the start of the argument area */
        } launch;
        struct { uint64_t func; uint32_t shmem, limit; } occupancy;
        struct { uint32_t flags; int32_t priority; } create; /* priority: streams only */
        struct { uint64_t event, stream; } record;
        struct { uint64_t handle; } one; /* event/stream sync, query, destroy */
        struct { uint64_t start, end; } elapsed;
        struct { uint64_t offset, size; uint32_t flags; uint32_t pad; } host_register;
        struct { int32_t device; } device;
        struct { int32_t device, attribute; } attribute; /* CH_DEVICE_ATTRIBUTE */
        struct { uint64_t offset, size; uint32_t flags; uint32_t pad; } profile; /* arena range */
        struct { uint32_t fn; uint16_t nargs, pad; } rt; /* fn: index in the generated table */
        struct { uint64_t va, size; int32_t dev, on; } access;
        struct { uint64_t func, smem; int32_t op, a, b, pad; } func; /* + ch_launch_cfg_t for clusters */
        struct { uint32_t nbinds, pad; } native; /* CH_NATIVE_RUN */
        struct { int32_t a, b; } peer; /* CH_PEER_INFO */
    } u;
} ch_cmd_t;

typedef struct ch_reply {
    uint16_t op;      /* the op answered */
    uint16_t pad;
    int32_t result;   /* CUresult of this command */
    int32_t async_err; /* first error of an async command since the last reply */
    uint32_t async_seq; /* ... and that command's seq */
    uint16_t async_op;
    uint16_t pad2;
    uint32_t payload; /* bytes after this struct */
    uint64_t v[4];    /* results: handles, sizes, ... */
    /* + payload (props, attributes, error text) */
} ch_reply_t;

/* CH_HELLO: result is cuInit's (or a loader failure: CUDA_ERROR_NOT_FOUND with
 * the reason as payload); v[0] device count, v[1] driver version, v[2] flags
 * (CH_HELLO_*), v[3] the worker's pid; on success the payload is a
 * ch_hello_t. */
#define CH_HELLO_ARENA_SHARED 1u /* the arena is mapped at the client's address */
#define CH_HELLO_VA_RESERVED 2u  /* the device range is reserved where asked */
typedef struct ch_hello {
    uint64_t va_base, va_size; /* the device range as reserved */
    uint64_t granularity;      /* of CH_MAP sizes and addresses (device 0) */
    int32_t va_error;          /* why the range could not be reserved (CUresult), or 0 */
    int32_t pad;
} ch_hello_t;

/* CH_HOST_REGISTER answers the range's device address in v[0] (equal to its
 * host address wherever unified addressing lets the GPU use host pointers). */

/* Device properties (CH_DEVICE_PROPS payload): what cudaDeviceProp users read. */
typedef struct gpu_props {
    char name[256];
    uint8_t uuid[16];
    uint64_t total_mem;
    int32_t major, minor;
    int32_t multiprocessor_count;
    int32_t max_threads_per_block;
    int32_t max_block_dim[3];
    int32_t max_grid_dim[3];
    int32_t warp_size;
    int32_t shared_mem_per_block;
    int32_t shared_mem_per_block_optin;
    int32_t shared_mem_per_multiprocessor;
    int32_t regs_per_block;
    int32_t regs_per_multiprocessor;
    int32_t total_const_mem;
    int32_t clock_rate_khz;
    int32_t memory_clock_rate_khz;
    int32_t memory_bus_width;
    int32_t l2_cache_size;
    int32_t max_threads_per_multiprocessor;
    int32_t max_blocks_per_multiprocessor;
    int32_t concurrent_kernels;
    int32_t async_engine_count;
    int32_t unified_addressing;
    int32_t managed_memory;
    int32_t can_map_host_memory;
    int32_t integrated;
    int32_t ecc_enabled;
    int32_t compute_mode;
    int32_t pci_bus_id, pci_device_id, pci_domain_id;
    int32_t mem_pitch;
    int32_t texture_alignment;
    int32_t cooperative_launch;
    int32_t l2_persisting_max;
    int32_t driver_version;
} gpu_props_t;

/* CH_PEER_INFO's payload: the driver's view of device a reaching device
 * b's memory, and NVML's of the link between them (where the driver's
 * NVML library is there). */
enum ch_link { CH_LINK_UNKNOWN, CH_LINK_PCIE, CH_LINK_NVLINK };
typedef struct ch_peer_info {
    int32_t can_access;     /* cuDeviceCanAccessPeer(a, b) */
    int32_t perf_rank;      /* CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: lower is better */
    int32_t native_atomics; /* ..._NATIVE_ATOMIC_SUPPORTED */
    int32_t array_access;   /* ..._CUDA_ARRAY_ACCESS_SUPPORTED */
    int32_t link;           /* enum ch_link */
    int32_t nvlinks;        /* device a's active NVLinks (when link is NVLink), else 0 */
    int32_t pcie_level;     /* NVML's topology level between them: 10 one switch, 20 several, 30 the host
                               bridge, 40 a NUMA node, 50 across nodes; -1 when not known */
    int32_t pad;
} ch_peer_info_t;

/* Function attributes (CH_GET_FUNCTION payload), from cuFuncGetAttribute. */
typedef struct gpu_func_attrs {
    int32_t max_threads_per_block;
    int32_t shared_size_bytes;  /* static */
    int32_t const_size_bytes;
    int32_t local_size_bytes;
    int32_t num_regs;
    int32_t ptx_version;
    int32_t binary_version;
    int32_t max_dynamic_shared_size_bytes;
} gpu_func_attrs_t;

/* CH_FUNC operations on u.func.func (a CUfunction): */
enum ch_fn_op {
    CH_FN_SET_ATTR = 1, /* cuFuncSetAttribute(a, b) */
    CH_FN_GET_ATTRS,    /* payload: int32_t value of every CU_FUNC_ATTRIBUTE_* up to CU_FUNC_ATTRIBUTE_MAX */
    CH_FN_SET_CACHE,    /* cuFuncSetCacheConfig(a) */
    CH_FN_SET_SMEM_CONFIG, /* cuFuncSetSharedMemConfig(a) */
    CH_FN_PARAM_INFO,   /* cuFuncGetParamInfo(a): v[0] offset, v[1] size */
    CH_FN_ACTIVE_BLOCKS, /* block a, smem, flags b: v[0] blocks per SM */
    CH_FN_BLOCK_SIZE,   /* smem, limit a, flags b: v[0] min grid, v[1] block size */
    CH_FN_DYN_SMEM,     /* blocks a, block size b: v[0] dynamic shared memory per block */
    CH_FN_CLUSTER_SIZE, /* + ch_launch_cfg_t: v[0] the largest cluster */
    CH_FN_ACTIVE_CLUSTERS, /* + ch_launch_cfg_t: v[0] clusters that fit */
};

/* A launch configuration for the cluster occupancy queries; followed by
 * nattrs CUlaunchAttribute (the same bytes as cudaLaunchAttribute). */
typedef struct ch_launch_cfg {
    uint32_t grid[3], block[3];
    uint64_t smem;
    uint32_t nattrs, pad;
} ch_launch_cfg_t;

/* Offset of the argument area in a CH_LAUNCH record with n arguments. */
static inline size_t ch_launch_args_offset(unsigned nargs) {
    size_t o = sizeof(ch_cmd_t) + nargs * sizeof(uint16_t);
    return (o + 15) & ~(size_t)15;
}

/* Sends one record (MSG_NOSIGNAL, retried on EINTR): 0, or -1 (errno). */
int ch_send(int fd, const void *rec, size_t len);
/* Receives one record into buf (cap bytes): its length, 0 on EOF, -1 on
 * error (errno). */
long ch_recv(int fd, void *buf, size_t cap);

#endif
