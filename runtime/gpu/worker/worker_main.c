/* icuda-worker: the process that owns the CUDA contexts.
 *
 *   icuda-worker --sock FD --arena FD --arena-size N [--arena-addr HEX] [--device N]
 *                [--va-base HEX --va-size N]
 *
 * Started by gpu_client with the channel socket and the arena memfd inherited;
 * its stdout/stderr (device printf included) are pipes the kernel process
 * reads. It maps the arena (at the client's address when that range is free,
 * so host pointers mean the same in both processes), loads the driver,
 * creates the primary context of the device asked for, reserves the device
 * address range the client named (channel.h: CH_MAP), says hello, and then
 * serves one command record at a time (channel.h) until the socket closes or
 * CH_SHUTDOWN. After a sticky fault it answers, flushes and exits with
 * status 3: the context cannot be used again. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/gpu/channel.h"
#include "runtime/gpu/cuda_driver.h"
#include "worker_cudart.h"
#include "worker_native.h"
#include "worker_peer.h"
#include "worker_profile.h"
#include "runtime/hostmem/arena.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_DEV 64

static const cuda_driver_t *D;
static int sock = -1;
static unsigned char *arena;
static size_t arena_size;
static CUcontext ctxs[MAX_DEV];
static int cur_dev = -1, ndev;
static int async_err, poisoned;
static uint64_t va_base, va_size; /* the device range, once reserved */
static uint32_t async_seq;
static uint16_t async_op;
#define BATCH 32 /* records taken per recvmmsg: one syscall for a burst of launches */
static _Alignas(16) unsigned char in[BATCH][CH_MAX_RECORD];
static _Alignas(16) unsigned char out[CH_MAX_RECORD];

static void note_async(CUresult r, const ch_cmd_t *c) {
    if (r == CUDA_SUCCESS) return;
    if (!async_err) {
        async_err = r;
        async_seq = c->seq;
        async_op = c->op;
    }
    if (cuda_result_is_sticky(r)) poisoned = 1;
}

static void reply(uint16_t op, int result, const uint64_t v[4], const void *payload, size_t n) {
    ch_reply_t *r = (ch_reply_t *)out;
    memset(r, 0, sizeof *r);
    if (n > CH_MAX_RECORD - sizeof *r) n = CH_MAX_RECORD - sizeof *r;
    r->op = op;
    r->result = result;
    r->async_err = async_err;
    r->async_seq = async_seq;
    r->async_op = async_op;
    /* a failure with nothing else to say carries the driver's text */
    int code = result ? result : async_err;
    if (code && !n && D) {
        const char *s = NULL;
        if (D->cuGetErrorString((CUresult)code, &s) == CUDA_SUCCESS && s) {
            payload = s;
            n = strlen(s);
        }
    }
    r->payload = (uint32_t)n;
    if (v) memcpy(r->v, v, sizeof r->v);
    if (n) memcpy(out + sizeof *r, payload, n);
    async_err = 0;
    if (cuda_result_is_sticky(result)) poisoned = 1;
    /* output first, so it reaches the client before the answer */
    fflush(stdout);
    fflush(stderr);
    if (ch_send(sock, out, sizeof *r + n) < 0) _exit(1);
    if (poisoned) worker_profile_abort(); /* what CUPTI holds goes to the arena first */
    if (poisoned) _exit(3);
}

static CUresult set_device(int dev) {
    if (dev == cur_dev) return CUDA_SUCCESS;
    if (dev < 0 || dev >= ndev || dev >= MAX_DEV) return CUDA_ERROR_INVALID_DEVICE;
    CUresult r;
    if (!ctxs[dev]) {
        CUdevice d;
        if ((r = D->cuDeviceGet(&d, dev))) return r;
        if ((r = D->cuDevicePrimaryCtxRetain(&ctxs[dev], d))) return r;
    }
    if ((r = D->cuCtxSetCurrent(ctxs[dev]))) return r;
    cur_dev = dev;
    return CUDA_SUCCESS;
}

static int attr(CUdevice_attribute a, CUdevice d) {
    int v = 0;
    D->cuDeviceGetAttribute(&v, a, d);
    return v;
}

static CUresult device_props(int dev, gpu_props_t *p) {
    CUdevice d;
    CUresult r;
    memset(p, 0, sizeof *p);
    if (dev < 0 || dev >= ndev) return CUDA_ERROR_INVALID_DEVICE;
    if ((r = D->cuDeviceGet(&d, dev))) return r;
    if ((r = D->cuDeviceGetName(p->name, sizeof p->name - 1, d))) return r;
    size_t total = 0;
    D->cuDeviceTotalMem(&total, d);
    p->total_mem = total;
    p->major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
    p->minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
    p->multiprocessor_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
    p->max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d);
    p->max_block_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, d);
    p->max_block_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, d);
    p->max_block_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, d);
    p->max_grid_dim[0] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, d);
    p->max_grid_dim[1] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, d);
    p->max_grid_dim[2] = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, d);
    p->warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE, d);
    p->shared_mem_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, d);
    p->shared_mem_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d);
    p->shared_mem_per_multiprocessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d);
    p->regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, d);
    p->regs_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, d);
    p->total_const_mem = attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, d);
    p->clock_rate_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, d);
    p->memory_clock_rate_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, d);
    p->memory_bus_width = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, d);
    p->l2_cache_size = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d);
    p->max_threads_per_multiprocessor =
        attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d);
    p->max_blocks_per_multiprocessor = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, d);
    p->concurrent_kernels = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, d);
    p->async_engine_count = attr(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, d);
    p->unified_addressing = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, d);
    p->managed_memory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, d);
    p->can_map_host_memory = attr(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, d);
    p->integrated = attr(CU_DEVICE_ATTRIBUTE_INTEGRATED, d);
    p->ecc_enabled = attr(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, d);
    p->compute_mode = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, d);
    p->pci_bus_id = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d);
    p->pci_device_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d);
    p->pci_domain_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d);
    p->mem_pitch = attr(CU_DEVICE_ATTRIBUTE_MAX_PITCH, d);
    p->texture_alignment = attr(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, d);
    p->cooperative_launch = attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, d);
    p->l2_persisting_max = attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, d);
    D->cuDriverGetVersion(&p->driver_version);
    return CUDA_SUCCESS;
}

/* Physical memory of device dev behind [va, va+size) of the reserved range.
 * The handle is released at once: the mapping keeps the memory alive, and
 * unmapping frees it. */
static CUresult map_range(uint64_t va, uint64_t size, int dev) {
    if (!va_size || va < va_base || size > va_size || va - va_base > va_size - size) return CUDA_ERROR_INVALID_VALUE;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    CUmemGenericAllocationHandle h;
    CUresult r = D->cuMemCreate(&h, size, &prop, 0);
    if (r) return r;
    r = D->cuMemMap(va, size, 0, h, 0);
    D->cuMemRelease(h);
    if (r) return r;
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.location.id = dev;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    r = D->cuMemSetAccess(va, size, &acc, 1);
    if (r) D->cuMemUnmap(va, size);
    return r;
}

/* cudaFree's promise: nothing still running uses the memory. */
static CUresult unmap_range(uint64_t va, uint64_t size) {
    if (!va_size || va < va_base || size > va_size || va - va_base > va_size - size) return CUDA_ERROR_INVALID_VALUE;
    CUresult r = D->cuCtxSynchronize();
    if (r) return r;
    return D->cuMemUnmap(va, size);
}

/* The device range at exactly the address asked for: one range for every
 * device (addresses are unified), the same in every worker. */
static void reserve_range(uint64_t want, uint64_t size, ch_hello_t *h) {
    CUdeviceptr got = 0;
    CUresult r = D->cuMemAddressReserve(&got, size, 0, want, 0);
    if (r == CUDA_SUCCESS && got != want) {
        D->cuMemAddressFree(got, size);
        r = CUDA_ERROR_INVALID_ADDRESS_SPACE;
    }
    h->va_error = r;
    if (r) return;
    va_base = h->va_base = want;
    va_size = h->va_size = size;
    worker_native_session_range(va_base, va_size);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = cur_dev >= 0 ? cur_dev : 0;
    size_t g = 0;
    if (D->cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) || !g) g = 2u << 20;
    h->granularity = g;
}

/* free() in the worker: a native cell's free() of memory an interpreted
 * cell allocated (the shared arena, which glibc's malloc never hands out)
 * is noted for the kernel process, whose interpreter owns that memory and
 * frees it once the cell has run; everything else is glibc's. The worker
 * exports the name (the Makefile's --export-dynamic-symbol), so the cells'
 * objects and the libraries they load bind it here. Only in the worker
 * program: a test program under AddressSanitizer keeps ASan's free. */
void worker_free(void *p) __asm__("free"); /* the C library's name, this worker's function */
void worker_free(void *p) {
    if (!worker_native_host_free(p)) __libc_free(p);
}

/* host memory named by an arena range; NULL when it lies outside */
static void *host_at(uint64_t off, uint64_t n) {
    if (off > arena_size || n > arena_size - off) return NULL;
    return arena + off;
}

static void serve(const ch_cmd_t *c, size_t len) {
    uint64_t v[4] = {0, 0, 0, 0};
    CUresult r = CUDA_SUCCESS;
    int async = (c->flags & CH_ASYNC) != 0;
    if (c->dev >= 0 && c->dev != cur_dev && c->op != CH_DEVICE_PROPS && c->op != CH_SET_DEVICE &&
        c->op != CH_PEER_INFO) {
        r = set_device(c->dev);
        if (r) {
            if (async) note_async(r, c);
            else reply(c->op, r, v, NULL, 0);
            return;
        }
    }
    switch (c->op) {
    case CH_SHUTDOWN:
        reply(c->op, 0, v, NULL, 0);
        _exit(0);
    case CH_DEVICE_COUNT:
        v[0] = (uint64_t)ndev;
        break;
    case CH_DEVICE_PROPS: {
        gpu_props_t p;
        r = device_props(c->u.device.device, &p);
        reply(c->op, r, v, &p, sizeof p);
        return;
    }
    case CH_SET_DEVICE:
        r = set_device(c->u.device.device);
        break;
    case CH_DEVICE_ATTRIBUTE: { /* the runtime's cudaDeviceAttr numbers are the driver's */
        CUdevice d;
        int val = 0;
        if (c->u.attribute.device < 0 || c->u.attribute.device >= ndev) r = CUDA_ERROR_INVALID_DEVICE;
        else if (!(r = D->cuDeviceGet(&d, c->u.attribute.device)))
            r = D->cuDeviceGetAttribute(&val, (CUdevice_attribute)c->u.attribute.attribute, d);
        v[0] = (uint64_t)(int64_t)val;
        break;
    }
    case CH_MEM_INFO: {
        size_t f = 0, t = 0;
        r = D->cuMemGetInfo(&f, &t);
        v[0] = f;
        v[1] = t;
        break;
    }
    case CH_SYNC:
        r = D->cuCtxSynchronize();
        break;
    case CH_MAP:
        r = map_range(c->u.map.va, c->u.map.size, cur_dev);
        break;
    case CH_UNMAP:
        r = unmap_range(c->u.map.va, c->u.map.size);
        break;
    case CH_MEMCPY: {
        uint64_t n = c->u.copy.size;
        CUstream s = (CUstream)(uintptr_t)c->u.copy.stream;
        void *h;
        switch (c->u.copy.kind) {
        case CH_H2D:
            if (!(h = host_at(c->u.copy.src, n))) r = CUDA_ERROR_INVALID_VALUE;
            else if (async) r = D->cuMemcpyHtoDAsync(c->u.copy.dst, h, n, s);
            else r = D->cuMemcpyHtoD(c->u.copy.dst, h, n);
            break;
        case CH_D2H:
            if (!(h = host_at(c->u.copy.dst, n))) r = CUDA_ERROR_INVALID_VALUE;
            else if (async) r = D->cuMemcpyDtoHAsync(h, c->u.copy.src, n, s);
            else r = D->cuMemcpyDtoH(h, c->u.copy.src, n);
            break;
        case CH_D2D:
            if (async) r = D->cuMemcpyDtoDAsync(c->u.copy.dst, c->u.copy.src, n, s);
            else r = D->cuMemcpyDtoD(c->u.copy.dst, c->u.copy.src, n);
            break;
        default:
            r = CUDA_ERROR_INVALID_VALUE;
        }
        break;
    }
    case CH_MEMSET:
        if (async)
            r = D->cuMemsetD8Async(c->u.memset.dptr, (unsigned char)c->u.memset.value,
                                   c->u.memset.size, (CUstream)(uintptr_t)c->u.memset.stream);
        else
            r = D->cuMemsetD8(c->u.memset.dptr, (unsigned char)c->u.memset.value,
                              c->u.memset.size);
        break;
    case CH_MODULE_LOAD: {
        void *img = host_at(c->u.module_load.offset, c->u.module_load.size);
        static char log[8192];
        log[0] = 0;
        CUmodule m = NULL;
        if (!img) r = CUDA_ERROR_INVALID_VALUE;
        else {
            CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
            void *ov[2] = {log, (void *)(uintptr_t)sizeof log};
            r = D->cuModuleLoadDataEx(&m, img, 2, o, ov);
        }
        v[0] = (uint64_t)(uintptr_t)m;
        log[sizeof log - 1] = 0;
        reply(c->op, r, v, log, r ? strlen(log) : 0);
        return;
    }
    case CH_MODULE_UNLOAD:
        r = D->cuModuleUnload((CUmodule)(uintptr_t)c->u.module_unload.module);
        break;
    case CH_GET_FUNCTION: {
        const char *name = (const char *)c + sizeof *c;
        ((char *)c)[len - 1] = 0;
        CUfunction f = NULL;
        gpu_func_attrs_t a;
        memset(&a, 0, sizeof a);
        r = D->cuModuleGetFunction(&f, (CUmodule)(uintptr_t)c->u.get.module, name);
        if (!r) {
            D->cuFuncGetAttribute(&a.max_threads_per_block,
                                  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
            D->cuFuncGetAttribute(&a.shared_size_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
            D->cuFuncGetAttribute(&a.const_size_bytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f);
            D->cuFuncGetAttribute(&a.local_size_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
            D->cuFuncGetAttribute(&a.num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
            D->cuFuncGetAttribute(&a.ptx_version, CU_FUNC_ATTRIBUTE_PTX_VERSION, f);
            D->cuFuncGetAttribute(&a.binary_version, CU_FUNC_ATTRIBUTE_BINARY_VERSION, f);
            D->cuFuncGetAttribute(&a.max_dynamic_shared_size_bytes,
                                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f);
        }
        v[0] = (uint64_t)(uintptr_t)f;
        reply(c->op, r, v, &a, sizeof a);
        return;
    }
    case CH_GET_GLOBAL: {
        const char *name = (const char *)c + sizeof *c;
        ((char *)c)[len - 1] = 0;
        CUdeviceptr p = 0;
        size_t n = 0;
        r = D->cuModuleGetGlobal(&p, &n, (CUmodule)(uintptr_t)c->u.get.module, name);
        v[0] = p;
        v[1] = n;
        break;
    }
    case CH_LAUNCH:
    case CH_LAUNCH_COOPERATIVE: {
        unsigned na = c->u.launch.nargs;
        void *params[CH_MAX_ARGS];
        const uint16_t *sz = (const uint16_t *)((const unsigned char *)c + sizeof *c);
        size_t off = ch_launch_args_offset(na);
        if (na > CH_MAX_ARGS) {
            r = CUDA_ERROR_INVALID_VALUE;
            break;
        }
        for (unsigned i = 0; i < na; i++) {
            params[i] = (unsigned char *)c + off;
            off += ((size_t)sz[i] + 15) & ~(size_t)15;
        }
        if (off > len) r = CUDA_ERROR_INVALID_VALUE;
        else if (c->op == CH_LAUNCH_COOPERATIVE) /* grid-wide sync (cooperative groups) */
            r = D->cuLaunchCooperativeKernel((CUfunction)(uintptr_t)c->u.launch.func, c->u.launch.grid[0],
                                             c->u.launch.grid[1], c->u.launch.grid[2], c->u.launch.block[0],
                                             c->u.launch.block[1], c->u.launch.block[2], c->u.launch.shmem,
                                             (CUstream)(uintptr_t)c->u.launch.stream, params);
        else
            r = D->cuLaunchKernel((CUfunction)(uintptr_t)c->u.launch.func, c->u.launch.grid[0],
                                  c->u.launch.grid[1], c->u.launch.grid[2], c->u.launch.block[0],
                                  c->u.launch.block[1], c->u.launch.block[2], c->u.launch.shmem,
                                  (CUstream)(uintptr_t)c->u.launch.stream, params, NULL);
        break;
    }
    case CH_OCCUPANCY: {
        int mg = 0, bs = 0;
        r = D->cuOccupancyMaxPotentialBlockSize(&mg, &bs,
                                                (CUfunction)(uintptr_t)c->u.occupancy.func, NULL,
                                                c->u.occupancy.shmem, (int)c->u.occupancy.limit);
        v[0] = (uint64_t)mg;
        v[1] = (uint64_t)bs;
        break;
    }
    case CH_OCCUPANCY_BLOCKS: {
        int nb = 0;
        r = D->cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &nb, (CUfunction)(uintptr_t)c->u.occupancy.func, (int)c->u.occupancy.limit, c->u.occupancy.shmem);
        v[0] = (uint64_t)nb;
        break;
    }
    case CH_EVENT_CREATE: {
        CUevent e = NULL;
        r = D->cuEventCreate(&e, c->u.create.flags);
        v[0] = (uint64_t)(uintptr_t)e;
        break;
    }
    case CH_EVENT_RECORD:
        r = D->cuEventRecord((CUevent)(uintptr_t)c->u.record.event,
                             (CUstream)(uintptr_t)c->u.record.stream);
        break;
    case CH_EVENT_SYNC:
        r = D->cuEventSynchronize((CUevent)(uintptr_t)c->u.one.handle);
        break;
    case CH_EVENT_ELAPSED: {
        float ms = 0;
        r = D->cuEventElapsedTime(&ms, (CUevent)(uintptr_t)c->u.elapsed.start,
                                  (CUevent)(uintptr_t)c->u.elapsed.end);
        memcpy(&v[0], &ms, sizeof ms);
        break;
    }
    case CH_EVENT_QUERY:
        r = D->cuEventQuery((CUevent)(uintptr_t)c->u.one.handle);
        break;
    case CH_EVENT_DESTROY:
        r = D->cuEventDestroy((CUevent)(uintptr_t)c->u.one.handle);
        break;
    case CH_STREAM_CREATE: {
        CUstream s = NULL;
        r = c->u.create.priority ? D->cuStreamCreateWithPriority(&s, c->u.create.flags, c->u.create.priority)
                                 : D->cuStreamCreate(&s, c->u.create.flags);
        v[0] = (uint64_t)(uintptr_t)s;
        break;
    }
    case CH_STREAM_SYNC:
        r = D->cuStreamSynchronize((CUstream)(uintptr_t)c->u.one.handle);
        break;
    case CH_STREAM_QUERY:
        r = D->cuStreamQuery((CUstream)(uintptr_t)c->u.one.handle);
        break;
    case CH_STREAM_DESTROY:
        r = D->cuStreamDestroy((CUstream)(uintptr_t)c->u.one.handle);
        break;
    case CH_HOST_REGISTER: {
        void *h = host_at(c->u.host_register.offset, c->u.host_register.size);
        r = h ? D->cuMemHostRegister(h, c->u.host_register.size, c->u.host_register.flags)
              : CUDA_ERROR_INVALID_VALUE;
        CUdeviceptr dp = 0;
        if (!r && (c->u.host_register.flags & CU_MEMHOSTREGISTER_DEVICEMAP) &&
            D->cuMemHostGetDevicePointer(&dp, h, 0) == CUDA_SUCCESS)
            v[0] = dp;
        break;
    }
    case CH_HOST_UNREGISTER: {
        void *h = host_at(c->u.host_register.offset, 0);
        r = h ? D->cuMemHostUnregister(h) : CUDA_ERROR_INVALID_VALUE;
        break;
    }
    case CH_PROFILE_START:
    case CH_PROFILE_STOP: { /* worker_profile.c */
        char msg[1024];
        r = worker_profile_serve(c, D, ctxs, ndev < MAX_DEV ? ndev : MAX_DEV, cur_dev,
                                 host_at(c->u.profile.offset, c->u.profile.size), c->u.profile.size, v,
                                 msg, sizeof msg);
        reply(c->op, r, v, msg, strlen(msg));
        return;
    }
    case CH_ACCESS: {
        uint64_t va = c->u.access.va, n = c->u.access.size;
        if (!va_size || va < va_base || n > va_size || va - va_base > va_size - n) {
            r = CUDA_ERROR_INVALID_VALUE;
            break;
        }
        CUmemAccessDesc acc;
        memset(&acc, 0, sizeof acc);
        acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        acc.location.id = c->u.access.dev;
        acc.flags = c->u.access.on ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
        r = D->cuMemSetAccess(va, n, &acc, 1);
        break;
    }
    case CH_PEER_INFO: { /* worker_peer.c */
        ch_peer_info_t p;
        r = worker_peer_info(D, ndev, c->u.peer.a, c->u.peer.b, &p);
        reply(c->op, r, v, &p, sizeof p);
        return;
    }
    case CH_NATIVE_RUN: { /* worker_native.c */
        const char *pay = NULL;
        size_t pl = 0;
        r = worker_native_run((const char *)(c + 1), len - sizeof *c, c->u.native.nbinds, v, &pay, &pl);
        if (r) break;
        reply(c->op, r, v, pay, pl);
        return;
    }
    case CH_CUDART:
    case CH_FUNC: { /* worker_cudart.c */
        static _Alignas(8) char pay[4096];
        size_t pl = 0;
        r = worker_cudart_serve(c, len, D, cur_dev, v, pay, &pl, sizeof pay);
        reply(c->op, r, v, pay, pl);
        return;
    }
    default:
        r = CUDA_ERROR_NOT_SUPPORTED;
    }
    if (async) note_async(r, c);
    else reply(c->op, r, v, NULL, 0);
}

int main(int argc, char **argv) {
    int arena_fd = -1, dev = 0;
    uintptr_t want_addr = 0;
    uint64_t want_va = 0, want_va_size = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sock")) sock = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--arena")) arena_fd = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--arena-size")) arena_size = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--arena-addr")) want_addr = strtoull(argv[i + 1], NULL, 16);
        else if (!strcmp(argv[i], "--device")) dev = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--va-base")) want_va = strtoull(argv[i + 1], NULL, 16);
        else if (!strcmp(argv[i], "--va-size")) want_va_size = strtoull(argv[i + 1], NULL, 10);
    }
    if (sock < 0) {
        fprintf(stderr, "icuda-worker: started by the icuda kernel, not by hand\n");
        return 2;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_IGN);
    /* a line at a time: what a native cell prints reaches the notebook as
     * it goes, and is not lost with the worker if the cell crashes */
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint64_t v[4] = {0, 0, 0, (uint64_t)getpid()};

    /* the arena first, before the driver takes address space */
    if (arena_fd >= 0 && arena_size) {
        void *p = want_addr ? arena_map_at(arena_fd, arena_size, want_addr) : MAP_FAILED;
        if (p != MAP_FAILED) v[2] = CH_HELLO_ARENA_SHARED;
        else p = mmap(NULL, arena_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE,
                      arena_fd, 0);
        if (p == MAP_FAILED) {
            const char *m = "icuda-worker: cannot map the shared arena";
            reply(CH_HELLO, CUDA_ERROR_OUT_OF_MEMORY, v, m, strlen(m));
            return 1;
        }
        arena = p;
        if (v[2] == CH_HELLO_ARENA_SHARED) worker_native_host_range((uint64_t)(uintptr_t)arena, arena_size);
    }

    const char *why = NULL;
    D = cuda_driver_load(&why);
    if (!D) {
        reply(CH_HELLO, CUDA_ERROR_NO_DEVICE, v, why, strlen(why));
        return 0;
    }
    CUresult r = D->cuInit(0);
    int drv_version = 0;
    if (!r) r = D->cuDeviceGetCount(&ndev);
    D->cuDriverGetVersion(&drv_version);
    if (!r && ndev == 0) r = CUDA_ERROR_NO_DEVICE;
    if (!r) r = set_device(dev < ndev ? dev : 0);
    v[0] = (uint64_t)ndev;
    v[1] = (uint64_t)drv_version;
    if (r) {
        const char *s = NULL;
        char msg[512];
        D->cuGetErrorString(r, &s);
        snprintf(msg, sizeof msg, "CUDA initialisation failed: %s", s ? s : "unknown error");
        reply(CH_HELLO, r, v, msg, strlen(msg));
        return 0;
    }
    ch_hello_t hello;
    memset(&hello, 0, sizeof hello);
    hello.va_error = CUDA_ERROR_NOT_SUPPORTED;
    if (want_va && want_va_size) reserve_range(want_va, want_va_size, &hello);
    if (!hello.va_error) v[2] |= CH_HELLO_VA_RESERVED;
    reply(CH_HELLO, 0, v, &hello, sizeof hello);

    static struct mmsghdr msgs[BATCH];
    static struct iovec iov[BATCH];
    for (;;) {
        for (int i = 0; i < BATCH; i++) {
            iov[i].iov_base = in[i];
            iov[i].iov_len = CH_MAX_RECORD;
            memset(&msgs[i].msg_hdr, 0, sizeof msgs[i].msg_hdr);
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
        }
        int k = recvmmsg(sock, msgs, BATCH, MSG_WAITFORONE, NULL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break; /* the kernel process closed the channel or died */
        for (int i = 0; i < k; i++) {
            size_t n = msgs[i].msg_len;
            if (n == 0) goto done; /* EOF */
            if (n < sizeof(ch_cmd_t)) continue;
            serve((const ch_cmd_t *)in[i], n);
        }
    }
done:
    fflush(stdout);
    _exit(0);
}
