/* The CUDA runtime API in host cells: each call by CUDA's
 * name, with CUDA's semantics and cudaError_t codes, carried out by the
 * worker. This file dispatches and holds the smaller families; memory is in
 * cuda_memory.c, the checks all calls share in cuda_call.c. Arguments are checked first — out-arguments, directions, and every
 * size against the buffers it touches — so a mistake is a message naming the
 * variable, never a corrupted buffer. A failing call used as a statement is
 * an error of the cell (except cudaGetLastError/cudaPeekAtLastError, and
 * cudaErrorNotReady, which is an answer, not a failure). */
#include "cuda_call.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "runtime/toolkit/cuda_rt_table.h"
#include "runtime/hostmem/arena.h"


#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include "runtime/device/device_session.h"
/* ---- __constant__ / __device__ variables ---- */

typedef struct {
    CUdeviceptr p;
    size_t size;
    const char *hex;
} sym_t;

/* Every loaded-or-loadable module (the kernels' cells) holding the symbol;
 * the kernel launched last comes first. */
static int find_symbol(cs_call_t *c, const char *name, sym_t *out, int cap) {
    cuda_session_t *cs = c->cs;
    device_session_t *e = cs->dev;
    int n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < e->nkernels && n < cap; i++) {
            const char *hex = e->kernels[i].module_hex;
            bool last = cs->last_kernel[0] && !strncmp(cs->last_kernel, e->kernels[i].name, strlen(e->kernels[i].name));
            if ((pass == 0) != last) continue;
            bool seen = false;
            for (int j = 0; j < n; j++) seen |= !strcmp(out[j].hex, hex);
            if (seen) continue;
            gpu_handle_t mod;
            if (cs_module(cs, hex, &mod)) continue;
            CUdeviceptr p;
            size_t size;
            if (gpu_client_get_global(cs->gc, mod, name, &p, &size)) continue;
            out[n++] = (sym_t){p, size, hex};
        }
    return n;
}

static void remember_symbol_write(cuda_session_t *cs, const char *name, size_t off, const void *src, size_t n) {
    for (int i = 0; i < cs->nsyms; i++)
        if (!strcmp(cs->syms[i].name, name) && cs->syms[i].offset == off && cs->syms[i].n == n) {
            memcpy(cs->syms[i].data, src, n);
            return;
        }
    ARRAY_GROW(cs->syms, cs->nsyms, cs->capsyms);
    void *d = xmalloc(n ? n : 1);
    memcpy(d, src, n);
    cs->syms[cs->nsyms++] = (cs_symbol_write_t){xstrdup(name), off, n, d};
}

static const char *symbol_name(cs_call_t *c, int i) {
    const interp_arg_t *a = &c->a[i];
    if (a->is_pointer && a->host && (a->place == INTERP_PLACE_HOST) && memchr(a->host, 0, a->avail))
        return a->host;
    return NULL;
}

static int api_symbol(cs_call_t *c, bool to) {
    bool async = strstr(c->name, "Async") != NULL;
    int r = to ? call_arity(c, 2, async ? 6 : 5, "symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind "
                            "kind, cudaStream_t stream")
               : call_arity(c, 2, async ? 6 : 5, "void *dst, symbol, size_t count, size_t offset, cudaMemcpyKind kind, "
                            "cudaStream_t stream");
    if (r) return r;
    gpu_handle_t stream = 0;
    if (async && (r = call_stream_arg(c, 5, &stream))) return r;
    int si = to ? 1 : 0, yi = to ? 0 : 1;
    const char *name = symbol_name(c, yi);
    if (!name)
        return call_misuse(c, "argument %d (%s) must name a __constant__ or __device__ variable of a device cell", yi + 1,
                      call_arg_name(&c->a[yi]));
    if ((r = call_ready(c))) return r;
    sym_t found[32];
    int nf = find_symbol(c, name, found, 32);
    if (!nf)
        return call_fail(c, CUDA_ERR_INVALID_SYMBOL, "no __constant__ or __device__ variable named %s in the device code "
                    "compiled so far (it must be in a cell with a kernel, or before one)", name);
    uint64_t n = c->n > 2 ? (uint64_t)call_ival(&c->a[2]) : found[0].size;
    uint64_t off = c->n > 3 ? (uint64_t)call_ival(&c->a[3]) : 0;
    if (off + n > found[0].size) {
        char b1[32], b2[32];
        return call_misuse(c, "%s %s at offset %llu of %s, a variable of %s", to ? "writing" : "reading",
                      cs_bytes(b1, sizeof b1, n), (unsigned long long)off, name, cs_bytes(b2, sizeof b2, found[0].size));
    }
    if ((r = call_fits(c, si, n, to ? "from" : "into"))) return r;
    const interp_arg_t *h = &c->a[si];
    c->cs->work_count++;
    if (to) {
        for (int i = 0; i < nf; i++) {
            r = h->place == INTERP_PLACE_DEVICE
                    ? gpu_client_memcpy_dtod(c->cs->gc, found[i].p + off, h->device, n, stream, async)
                    : gpu_client_memcpy_htod(c->cs->gc, found[i].p + off, h->host, n, stream, async);
            if (r) return call_done(c, r);
        }
        if (h->place != INTERP_PLACE_DEVICE) remember_symbol_write(c->cs, name, off, h->host, n);
        if (async) c->cs->unsynced = true;
        return call_done(c, 0);
    }
    r = h->place == INTERP_PLACE_DEVICE ? gpu_client_memcpy_dtod(c->cs->gc, h->device, found[0].p + off, n, stream, async)
                                        : gpu_client_memcpy_dtoh(c->cs->gc, h->host, found[0].p + off, n, stream, async);
    if (async) c->cs->unsynced = true;
    return call_done(c, r);
}

/* cudaGetSymbolAddress(void **devPtr, symbol) and cudaGetSymbolSize(size_t
 * *size, symbol): the variable of the module launched last (its address
 * moves when the module is loaded again after a worker restart). */
static int api_symbol_info(cs_call_t *c) {
    bool addr = !strcmp(c->name, "cudaGetSymbolAddress");
    int r = call_arity(c, 2, 2, addr ? "void **devPtr, symbol" : "size_t *size, symbol");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, addr ? "a pointer" : "a size_t")) return CUDA_ERR_INVALID_VALUE;
    const char *name = symbol_name(c, 1);
    if (!name)
        return call_misuse(c, "argument 2 (%s) must name a __constant__ or __device__ variable of a device cell",
                           call_arg_name(&c->a[1]));
    if ((r = call_ready(c))) return r;
    sym_t found[1];
    if (!find_symbol(c, name, found, 1))
        return call_fail(c, CUDA_ERR_INVALID_SYMBOL, "no __constant__ or __device__ variable named %s in the device "
                         "code compiled so far", name);
    interp_store_u64(c->cs->interp, c->a[0].bits, addr ? found[0].p : found[0].size);
    return 0;
}

/* Writes remembered host-to-symbol copies into a module just loaded. */
void cs_apply_symbol_writes(cuda_session_t *cs, gpu_handle_t mod) {
    for (int i = 0; i < cs->nsyms; i++) {
        CUdeviceptr p;
        size_t size;
        if (gpu_client_get_global(cs->gc, mod, cs->syms[i].name, &p, &size)) continue;
        if (cs->syms[i].offset + cs->syms[i].n <= size)
            gpu_client_memcpy_htod(cs->gc, p + cs->syms[i].offset, cs->syms[i].data, cs->syms[i].n, 0, false);
    }
}

/* ---- synchronisation, errors ---- */

static int api_sync(cs_call_t *c) {
    int r = call_arity(c, 0, 0, "");
    if (r || (r = call_ready(c))) return r;
    r = gpu_client_sync(c->cs->gc);
    if (!r) c->cs->unsynced = false;
    if (!r) r = cs_mvars_sync_point(c->cs);
    return call_done(c, r);
}

static int api_last_error(cs_call_t *c, bool reset) {
    int r = call_arity(c, 0, 0, "");
    if (r) return r;
    cuda_session_t *cs = c->cs;
    if (cs->gc && gpu_client_state(cs->gc) == GPU_READY) {
        uint32_t seq;
        int op;
        int a = gpu_client_take_async_error(cs->gc, &seq, &op);
        if (a && !cs->last_error) cs->last_error = cs_check(cs, a);
    }
    int e = cs->last_error;
    if (reset) cs->last_error = 0;
    return e;
}

/* ---- events and streams ---- */

static int api_event_create(cs_call_t *c, bool with_flags) {
    int r = with_flags ? call_arity(c, 2, 2, "cudaEvent_t *event, unsigned int flags") : call_arity(c, 1, 2, "cudaEvent_t *event");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "an event")) return CUDA_ERR_INVALID_VALUE;
    if ((r = call_ready(c))) return r;
    gpu_handle_t h;
    r = gpu_client_event_create(c->cs->gc, &h, c->n > 1 ? (unsigned)call_ival(&c->a[1]) : 0);
    if (r) return call_done(c, r);
    interp_store_u64(c->cs->interp, c->a[0].bits, h + CS_HANDLE_BASE);
    return 0;
}

static int handle_arg(cs_call_t *c, int i, gpu_handle_t *h, const char *what) {
    uint64_t v = c->a[i].bits;
    if (v < CS_HANDLE_BASE)
        return call_fail(c, CUDA_ERR_INVALID_RESOURCE_HANDLE, "%s is not %s (create it with %sCreate first)",
                    call_arg_name(&c->a[i]), what, what[0] == 'a' && what[1] == 'n' ? "cudaEvent" : "cudaStream");
    *h = call_handle_of(v);
    return 0;
}

static int api_event(cs_call_t *c, int op) {
    int r;
    gpu_handle_t ev, s;
    gpu_client_t *g = c->cs->gc;
    switch (op) {
    case 'r': /* record */
        if ((r = call_arity(c, 1, 2, "cudaEvent_t event, cudaStream_t stream")) || (r = handle_arg(c, 0, &ev, "an event")) ||
            (r = call_stream_arg(c, 1, &s)) || (r = call_ready(c)))
            return r;
        return call_done(c, gpu_client_event_record(g, ev, s));
    case 's':
        if ((r = call_arity(c, 1, 1, "cudaEvent_t event")) || (r = handle_arg(c, 0, &ev, "an event")) || (r = call_ready(c))) return r;
        r = gpu_client_event_sync(g, ev);
        if (!r) r = cs_mvars_sync_point(c->cs);
        return call_done(c, r);
    case 'q':
        if ((r = call_arity(c, 1, 1, "cudaEvent_t event")) || (r = handle_arg(c, 0, &ev, "an event")) || (r = call_ready(c))) return r;
        r = gpu_client_event_query(g, ev);
        return r == CUDA_ERROR_NOT_READY ? CUDA_ERR_NOT_READY : call_done(c, r);
    case 'd':
        if ((r = call_arity(c, 1, 1, "cudaEvent_t event")) || (r = handle_arg(c, 0, &ev, "an event")) || (r = call_ready(c))) return r;
        return call_done(c, gpu_client_event_destroy(g, ev));
    case 'e': { /* elapsed */
        gpu_handle_t e2;
        if ((r = call_arity(c, 3, 3, "float *ms, cudaEvent_t start, cudaEvent_t end"))) return r;
        float *ms = call_out_arg(c, 0, sizeof(float), "a float");
        if (!ms) return CUDA_ERR_INVALID_VALUE;
        if ((r = handle_arg(c, 1, &ev, "an event")) || (r = handle_arg(c, 2, &e2, "an event")) || (r = call_ready(c)))
            return r;
        float v = 0;
        r = gpu_client_event_elapsed(g, &v, ev, e2);
        if (r == CUDA_ERROR_NOT_READY) return CUDA_ERR_NOT_READY;
        if (r) return call_done(c, r);
        *ms = v;
        return 0;
    }
    }
    return CUDA_ERR_UNKNOWN;
}

static int api_stream(cs_call_t *c, int op) {
    int r;
    gpu_handle_t s;
    gpu_client_t *g = c->cs->gc;
    switch (op) {
    case 'c':
    case 'f':
        if ((r = op == 'f' ? call_arity(c, 2, 2, "cudaStream_t *stream, unsigned int flags") : call_arity(c, 1, 1, "cudaStream_t *stream")))
            return r;
        if (!call_out_arg(c, 0, 8, "a stream")) return CUDA_ERR_INVALID_VALUE;
        if ((r = call_ready(c))) return r;
        r = gpu_client_stream_create(g, &s, op == 'f' ? (unsigned)call_ival(&c->a[1]) : 0);
        if (r) return call_done(c, r);
        interp_store_u64(c->cs->interp, c->a[0].bits, s + CS_HANDLE_BASE);
        return 0;
    case 's':
        if ((r = call_arity(c, 1, 1, "cudaStream_t stream")) || (r = call_stream_arg(c, 0, &s)) || (r = call_ready(c))) return r;
        r = s ? gpu_client_stream_sync(g, s) : gpu_client_sync(g);
        if (!r) r = cs_mvars_sync_point(c->cs);
        return call_done(c, r);
    case 'q':
        if ((r = call_arity(c, 1, 1, "cudaStream_t stream")) || (r = call_stream_arg(c, 0, &s)) || (r = call_ready(c))) return r;
        r = gpu_client_stream_query(g, s);
        return r == CUDA_ERROR_NOT_READY ? CUDA_ERR_NOT_READY : call_done(c, r);
    case 'd':
        if ((r = call_arity(c, 1, 1, "cudaStream_t stream")) || (r = handle_arg(c, 0, &s, "a stream")) || (r = call_ready(c))) return r;
        return call_done(c, gpu_client_stream_destroy(g, s));
    }
    return CUDA_ERR_UNKNOWN;
}

/* ---- devices ---- */

static int api_device_count(cs_call_t *c) {
    int r = call_arity(c, 1, 1, "int *count");
    if (r) return r;
    int *o = call_out_arg(c, 0, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    *o = 0;
    if ((r = call_ready(c))) return r;
    return call_done(c, gpu_client_device_count(c->cs->gc, o));
}

static int api_set_device(cs_call_t *c) {
    int r = call_arity(c, 1, 1, "int device");
    if (r) return r;
    char why[600];
    r = cuda_session_set_device(c->cs, (int)call_ival(&c->a[0]), why, sizeof why);
    return r ? call_fail(c, r, "%s", why) : 0;
}

static int api_get_device(cs_call_t *c) {
    int r = call_arity(c, 1, 1, "int *device");
    if (r) return r;
    int *o = call_out_arg(c, 0, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    if ((r = call_ready(c))) return r;
    *o = gpu_client_get_device(c->cs->gc);
    return 0;
}

static int api_device_attribute(cs_call_t *c) {
    int r = call_arity(c, 3, 3, "int *value, cudaDeviceAttr attr, int device");
    if (r) return r;
    int *o = call_out_arg(c, 0, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    if ((r = call_ready(c))) return r;
    int v = 0;
    r = gpu_client_device_attribute(c->cs->gc, (int)call_ival(&c->a[2]), (int)call_ival(&c->a[1]), &v);
    if (!r) *o = v;
    return call_done(c, r);
}

static int api_mem_info(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "size_t *free, size_t *total");
    if (r) return r;
    size_t *f = call_out_arg(c, 0, 8, "a size_t"), *t = f ? call_out_arg(c, 1, 8, "a size_t") : NULL;
    if (!t) return CUDA_ERR_INVALID_VALUE;
    if ((r = call_ready(c))) return r;
    return call_done(c, gpu_client_mem_info(c->cs->gc, f, t));
}

static int api_versions(cs_call_t *c, bool driver) {
    int r = call_arity(c, 1, 1, "int *version");
    if (r) return r;
    int *o = call_out_arg(c, 0, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    if (!driver) {
        *o = CUDART_VERSION;
        return 0;
    }
    char why[600];
    *o = 0;
    if (cs_ready(c->cs, why, sizeof why)) return 0; /* CUDA: 0 when no driver is installed */
    *o = gpu_client_driver_version(c->cs->gc);
    return 0;
}

int cs_kernel_function(cuda_session_t *cs, const char *name, cs_kernel_t **k, char *msg, size_t ml);

static int api_occupancy(cs_call_t *c) {
    int r = call_arity(c, 3, 5, "int *minGridSize, int *blockSize, kernel, size_t dynamicSMemSize, int blockSizeLimit");
    if (r) return r;
    int *mg = call_out_arg(c, 0, sizeof(int), "an int"), *bs = mg ? call_out_arg(c, 1, sizeof(int), "an int") : NULL;
    if (!bs) return CUDA_ERR_INVALID_VALUE;
    const char *name = symbol_name(c, 2);
    if (!name) return call_misuse(c, "argument 3 (%s) must name a kernel", call_arg_name(&c->a[2]));
    if ((r = call_ready(c))) return r;
    cs_kernel_t *k;
    char why[600];
    if ((r = cs_kernel_function(c->cs, name, &k, why, sizeof why))) return call_fail(c, r, "%s", why);
    return call_done(c, gpu_client_occupancy(c->cs->gc, k->fn, c->n > 3 ? (size_t)call_ival(&c->a[3]) : 0,
                                        c->n > 4 ? (int)call_ival(&c->a[4]) : 0, mg, bs));
}

static int api_active_blocks(cs_call_t *c) {
    int r = call_arity(c, 3, 4, "int *numBlocks, kernel, int blockSize, size_t dynamicSMemSize");
    if (r) return r;
    int *nb = call_out_arg(c, 0, sizeof(int), "an int");
    if (!nb) return CUDA_ERR_INVALID_VALUE;
    const char *name = symbol_name(c, 1);
    if (!name) return call_misuse(c, "argument 2 (%s) must name a kernel", call_arg_name(&c->a[1]));
    int64_t block = call_ival(&c->a[2]);
    if (block <= 0 || block > INT32_MAX) return call_fail(c, CUDA_ERR_INVALID_VALUE, "blockSize must be positive, not %lld",
                                                          (long long)block);
    if ((r = call_ready(c))) return r;
    cs_kernel_t *k;
    char why[600];
    if ((r = cs_kernel_function(c->cs, name, &k, why, sizeof why))) return call_fail(c, r, "%s", why);
    return call_done(c, gpu_client_active_blocks(c->cs->gc, k->fn, (int)block, c->n > 3 ? (size_t)call_ival(&c->a[3]) : 0, nb));
}

/* ---- cudaLaunchKernel, cudaLaunchCooperativeKernel ---- */

static void dim_arg(const interp_arg_t *a, unsigned d[3]) {
    if (a->aggr && a->size == 12) memcpy(d, a->aggr, 12); /* a dim3 */
    else {
        d[0] = (unsigned)call_ival(a);
        d[1] = d[2] = 1;
    }
}

static int api_launch(cs_call_t *c, bool cooperative) {
    int r = call_arity(c, 4, 6, "const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, "
                                "cudaStream_t stream");
    if (r) return r;
    const char *name = symbol_name(c, 0);
    if (!name) return call_misuse(c, "argument 1 (%s) must name a kernel", call_arg_name(&c->a[0]));
    unsigned grid[3], block[3];
    dim_arg(&c->a[1], grid);
    dim_arg(&c->a[2], block);
    uint64_t shmem = c->n > 4 ? (uint64_t)call_ival(&c->a[4]) : 0, stream = c->n > 5 ? c->a[5].bits : 0;
    char ename[INTERP_ENAME_MAX] = "", why[1024] = "";
    if (!cuda_launch_packed(c->cs, name, grid, block, shmem, stream, &c->a[3], cooperative, ename, why, sizeof why))
        return 0;
    if (!strcmp(ename, "KeyboardInterrupt")) return -2;
    if (!strncmp(ename, "cudaError", 9)) return call_fail(c, c->cs->last_error ? c->cs->last_error : CUDA_ERR_UNKNOWN,
                                                          "%s", why);
    /* the arguments do not fit the kernel, or there is no such kernel: a mistake, raised as such */
    return call_misuse(c, "%s", why);
}

/* ---- dispatch ---- */

typedef enum { F_MALLOC, F_FREE, F_MALLOC_HOST, F_HOST_ALLOC, F_FREE_HOST, F_MEMCPY, F_MEMCPY_ASYNC, F_MEMSET,
               F_MEMSET_ASYNC, F_TO_SYMBOL, F_FROM_SYMBOL, F_SYNC, F_RESET, F_LAST, F_PEEK, F_EV_CREATE,
               F_EV_CREATE_FLAGS, F_EV_RECORD, F_EV_SYNC, F_EV_ELAPSED, F_EV_QUERY, F_EV_DESTROY, F_ST_CREATE,
               F_ST_CREATE_FLAGS, F_ST_SYNC, F_ST_QUERY, F_ST_DESTROY, F_DEV_COUNT, F_SET_DEV, F_GET_DEV, F_PROPS,
               F_MEM_INFO, F_OCCUPANCY, F_DRIVER_VERSION, F_RUNTIME_VERSION, F_FUNC_ATTRS, F_MALLOC_MANAGED,
               F_HOST_DEVPTR, F_PTR_ATTRS, F_PREFETCH, F_ADVISE, F_ACTIVE_BLOCKS, F_LAUNCH, F_LAUNCH_COOP,
               F_DEV_ATTR } fid_t;

static const struct { const char *name; fid_t id; } api[] = {
    {"cudaMalloc", F_MALLOC}, {"cudaFree", F_FREE}, {"cudaMallocHost", F_MALLOC_HOST}, {"cudaHostAlloc", F_HOST_ALLOC},
    {"cudaFreeHost", F_FREE_HOST}, {"cudaMemcpy", F_MEMCPY}, {"cudaMemcpyAsync", F_MEMCPY_ASYNC},
    {"cudaMemset", F_MEMSET}, {"cudaMemsetAsync", F_MEMSET_ASYNC}, {"cudaMemcpyToSymbol", F_TO_SYMBOL},
    {"cudaMemcpyFromSymbol", F_FROM_SYMBOL}, {"cudaDeviceSynchronize", F_SYNC}, {"cudaThreadSynchronize", F_SYNC},
    {"cudaDeviceReset", F_RESET}, {"cudaGetLastError", F_LAST}, {"cudaPeekAtLastError", F_PEEK},
    {"cudaEventCreate", F_EV_CREATE}, {"cudaEventCreateWithFlags", F_EV_CREATE_FLAGS}, {"cudaEventRecord", F_EV_RECORD},
    {"cudaEventSynchronize", F_EV_SYNC}, {"cudaEventElapsedTime", F_EV_ELAPSED}, {"cudaEventQuery", F_EV_QUERY},
    {"cudaEventDestroy", F_EV_DESTROY}, {"cudaStreamCreate", F_ST_CREATE},
    {"cudaStreamCreateWithFlags", F_ST_CREATE_FLAGS}, {"cudaStreamSynchronize", F_ST_SYNC},
    {"cudaStreamQuery", F_ST_QUERY}, {"cudaStreamDestroy", F_ST_DESTROY}, {"cudaGetDeviceCount", F_DEV_COUNT},
    {"cudaSetDevice", F_SET_DEV}, {"cudaGetDevice", F_GET_DEV}, {"cudaGetDeviceProperties", F_PROPS},
    {"cudaMemGetInfo", F_MEM_INFO}, {"cudaOccupancyMaxPotentialBlockSize", F_OCCUPANCY},
    {"cudaDriverGetVersion", F_DRIVER_VERSION}, {"cudaRuntimeGetVersion", F_RUNTIME_VERSION},
    {"cudaFuncGetAttributes", F_FUNC_ATTRS}, {"cudaMallocManaged", F_MALLOC_MANAGED},
    {"cudaHostGetDevicePointer", F_HOST_DEVPTR}, {"cudaPointerGetAttributes", F_PTR_ATTRS},
    {"cudaMemPrefetchAsync", F_PREFETCH}, {"cudaMemAdvise", F_ADVISE},
    {"cudaOccupancyMaxActiveBlocksPerMultiprocessor", F_ACTIVE_BLOCKS},
    {"cudaLaunchKernel", F_LAUNCH}, {"cudaLaunchCooperativeKernel", F_LAUNCH_COOP},
    {"cudaDeviceGetAttribute", F_DEV_ATTR},
};

static int dispatch(cs_call_t *c, fid_t id) {
    switch (id) {
    case F_MALLOC: return api_malloc(c);
    case F_FREE: return api_free(c);
    case F_MALLOC_HOST: return api_malloc_host(c, false);
    case F_HOST_ALLOC: return api_malloc_host(c, true);
    case F_FREE_HOST: return api_free_host(c);
    case F_MEMCPY: return api_memcpy(c, false);
    case F_MEMCPY_ASYNC: return api_memcpy(c, true);
    case F_MEMSET: return api_memset(c, false);
    case F_MEMSET_ASYNC: return api_memset(c, true);
    case F_TO_SYMBOL: return api_symbol(c, true);
    case F_FROM_SYMBOL: return api_symbol(c, false);
    case F_SYNC: case F_RESET: return api_sync(c);
    case F_LAST: return api_last_error(c, true);
    case F_PEEK: return api_last_error(c, false);
    case F_EV_CREATE: return api_event_create(c, false);
    case F_EV_CREATE_FLAGS: return api_event_create(c, true);
    case F_EV_RECORD: return api_event(c, 'r');
    case F_EV_SYNC: return api_event(c, 's');
    case F_EV_ELAPSED: return api_event(c, 'e');
    case F_EV_QUERY: return api_event(c, 'q');
    case F_EV_DESTROY: return api_event(c, 'd');
    case F_ST_CREATE: return api_stream(c, 'c');
    case F_ST_CREATE_FLAGS: return api_stream(c, 'f');
    case F_ST_SYNC: return api_stream(c, 's');
    case F_ST_QUERY: return api_stream(c, 'q');
    case F_ST_DESTROY: return api_stream(c, 'd');
    case F_DEV_COUNT: return api_device_count(c);
    case F_SET_DEV: return api_set_device(c);
    case F_GET_DEV: return api_get_device(c);
    case F_PROPS: return api_device_props(c);
    case F_MEM_INFO: return api_mem_info(c);
    case F_OCCUPANCY: return api_occupancy(c);
    case F_DRIVER_VERSION: return api_versions(c, true);
    case F_RUNTIME_VERSION: return api_versions(c, false);
    case F_FUNC_ATTRS: return api_func_get_attributes(c);
    case F_MALLOC_MANAGED: return api_malloc_managed(c);
    case F_HOST_DEVPTR: return api_host_get_device_pointer(c);
    case F_PTR_ATTRS: return api_pointer_attributes(c);
    case F_PREFETCH: return api_mem_prefetch(c);
    case F_ADVISE: return api_mem_advise(c);
    case F_ACTIVE_BLOCKS: return api_active_blocks(c);
    case F_LAUNCH: return api_launch(c, false);
    case F_LAUNCH_COOP: return api_launch(c, true);
    case F_DEV_ATTR: return api_device_attribute(c);
    }
    return CUDA_ERR_UNKNOWN;
}

/* The rest of icuda's own: pitched, 2-D, 3-D and stream-ordered memory
 * (cuda_memory2d.c), kernels, occupancy, host functions, capture
 * (cuda_exec.c), symbols. Each checks what it can and either does the
 * work itself or forwards the checked call to the worker's runtime. */
typedef int (*api_fn_t)(cs_call_t *c);
static const struct { const char *name; api_fn_t fn; } more[] = {
    {"cudaMallocPitch", api_malloc_pitch}, {"cudaMalloc3D", api_malloc_3d}, {"cudaMallocAsync", api_malloc_async},
    {"cudaMallocFromPoolAsync", api_malloc_async}, {"cudaFreeAsync", api_free_async},
    {"cudaMemcpy2D", api_memcpy_2d}, {"cudaMemcpy2DAsync", api_memcpy_2d},
    {"cudaMemcpy2DToArray", api_memcpy_2d_array}, {"cudaMemcpy2DToArrayAsync", api_memcpy_2d_array},
    {"cudaMemcpy2DFromArray", api_memcpy_2d_array}, {"cudaMemcpy2DFromArrayAsync", api_memcpy_2d_array},
    {"cudaMemcpyToArray", api_memcpy_array}, {"cudaMemcpyToArrayAsync", api_memcpy_array},
    {"cudaMemcpyFromArray", api_memcpy_array}, {"cudaMemcpyFromArrayAsync", api_memcpy_array},
    {"cudaMemset2D", api_memset_2d}, {"cudaMemset2DAsync", api_memset_2d}, {"cudaMemcpy3D", api_memcpy_3d},
    {"cudaMemcpy3DAsync", api_memcpy_3d}, {"cudaMemset3D", api_memset_3d}, {"cudaMemset3DAsync", api_memset_3d},
    {"cudaHostRegister", api_host_register}, {"cudaHostUnregister", api_host_unregister},
    {"cudaHostGetFlags", api_host_get_flags},
    {"cudaMemcpyPeer", api_memcpy_peer}, {"cudaMemcpyPeerAsync", api_memcpy_peer},
    {"cudaMemcpyToSymbolAsync", NULL}, {"cudaMemcpyFromSymbolAsync", NULL}, {"cudaGetSymbolAddress", api_symbol_info},
    {"cudaGetSymbolSize", api_symbol_info},
    {"cudaFuncSetAttribute", api_func_set_attribute}, {"cudaFuncSetCacheConfig", api_func_set_cache_config},
    {"cudaFuncSetSharedMemConfig", api_func_set_cache_config}, {"cudaFuncGetName", api_func_get_name},
    {"cudaFuncGetParamInfo", api_func_get_param_info},
    {"cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", api_occupancy_blocks_flags},
    {"cudaOccupancyAvailableDynamicSMemPerBlock", api_occupancy_dyn_smem},
    {"cudaOccupancyMaxPotentialClusterSize", api_occupancy_clusters},
    {"cudaOccupancyMaxActiveClusters", api_occupancy_clusters},
    {"cudaOccupancyMaxPotentialBlockSizeWithFlags", api_occupancy_block_size},
    {"cudaOccupancyMaxPotentialBlockSizeVariableSMem", api_occupancy_variable_smem},
    {"cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags", api_occupancy_variable_smem},
    {"cudaLaunchHostFunc", api_launch_host_func}, {"cudaStreamAddCallback", api_launch_host_func},
    {"cudaStreamCreateWithPriority", api_stream_create_priority}, {"cudaStreamBeginCapture", api_stream_capture},
    {"cudaStreamBeginCaptureToGraph", api_stream_capture}, {"cudaStreamEndCapture", api_stream_capture},
    {"cudaGraphAddNode", api_graph_node_params}, {"cudaGraphNodeSetParams", api_graph_node_params},
    {"cudaGraphExecNodeSetParams", api_graph_node_params}, {"cudaDeviceEnablePeerAccess", api_peer_access},
    {"cudaDeviceDisablePeerAccess", api_peer_access}, {"cudaStreamAttachMemAsync", api_stream_attach_mem},
};

static int api_symbol_async(cs_call_t *c) { return api_symbol(c, strstr(c->name, "ToSymbol") != NULL); }

static api_fn_t more_fn(const char *name) {
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        if (!strcmp(more[i].name, name)) return more[i].fn ? more[i].fn : api_symbol_async;
    return NULL;
}

bool cs_api_own(const char *name) {
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++)
        if (!strcmp(api[i].name, name)) return true;
    return more_fn(name) != NULL;
}

/* A function icuda does not implement itself: refused with the reason, or
 * forwarded to the worker's runtime (cuda_forward.c). -1: no such function. */
static int other(cs_call_t *c, char *ename) {
    const char *family = NULL, *why = cs_refusal(c->name, &family);
    if (why) {
        c->hard = true;
        return call_fail(c, CUDA_ERR_NOT_SUPPORTED, "icuda does not support %s (%s) in host cells: %s%s", family,
                         c->name, why, cuda_native_only(c->name, NULL) ? "; a native C++ cell (%%cxx) can call it" : "");
    }
    if (!crt_find(c->name)) {
        snprintf(ename, INTERP_ENAME_MAX, "NameError");
        if (!strncmp(c->name, "cuda", 4))
            snprintf(c->msg, c->ml, "%s is not a function of the CUDA runtime API (cuda_runtime_api.h of CUDA %d.%d "
                     "has no such function)", c->name, CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        else if (!strncmp(c->name, "nccl", 4))
            snprintf(c->msg, c->ml, "%s is not a function of NCCL icuda knows: %s", c->name,
                     cs_lib_knows("ncclGetVersion") ? "nccl.h has no such function"
                                                    : "icuda was built where nccl.h was not found (install NCCL's "
                                                      "header, libnccl-dev, and build icuda again)");
        else
            snprintf(c->msg, c->ml, "%s is not a CUDA runtime function icuda knows yet", c->name);
        return -1;
    }
    return cs_forward(c);
}

int cuda_api_call(void *ctx, const char *name, const interp_arg_t *args, int nargs, int discarded, int64_t *ret,
                  char *ename, char *msg, size_t msglen) {
    cuda_session_t *cs = ctx;
    if (cs_lib_knows(name)) return cs_lib_call(cs, name, args, nargs, discarded, ret, ename, msg, msglen);
    int id = -1;
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++)
        if (!strcmp(api[i].name, name)) id = (int)api[i].id;
    cs_call_t c = {cs, name, args, nargs, msg, msglen, false, 0};
    msg[0] = 0;
    api_fn_t fn = id < 0 ? more_fn(name) : NULL;
    int code = id >= 0 ? dispatch(&c, (fid_t)id) : fn ? fn(&c) : other(&c, ename);
    if (code == -1 && !strcmp(ename, "NameError")) return -1;
    if (code == -2) {
        snprintf(ename, INTERP_ENAME_MAX, "KeyboardInterrupt");
        return -1;
    }
    bool is_query = id == F_LAST || id == F_PEEK;
    if (code && !is_query) cs->last_error = code;
    if (code && (c.hard || (discarded && !is_query && code != CUDA_ERR_NOT_READY))) {
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(code));
        if (!msg[0]) snprintf(msg, msglen, "%s: %s", name, cuda_error_string(code));
        return -1;
    }
    if (code && cs->recovery_note[0] && cs->io) io_printf(cs->io, "stderr", "%s\n", msg);
    *ret = code;
    return 0;
}
