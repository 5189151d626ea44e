/* The worker's CUDA runtime (CH_CUDART) and kernel queries (CH_FUNC).
 *
 * libcudart is loaded with dlopen on the first forwarded call, so the worker
 * still starts (and the driver-only paths still work) where it is missing.
 * The runtime adopts the context current on the thread: the worker made the
 * device's primary context current with the driver API, and the runtime's
 * own primary context for that device is the same one. That is checked when
 * the runtime first meets a device (its cudaFree(0) initialisation, then
 * cuCtxGetCurrent), so runtime and driver calls share streams, events,
 * memory and the capture state of a stream.
 *
 * A call arrives as the index of the function in the generated table, its
 * name (checked against the table, so a kernel and a worker of different
 * builds cannot mix up functions), and each argument's bytes; the generated
 * typed caller (build/gen/crt_stubs.c) passes them on. Every pointer in the
 * arguments is already an address of this process (device memory, the
 * shared arena mapped at the kernel process's address, or a handle this
 * worker returned earlier): the kernel process translated and checked them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "worker_cudart.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "runtime/gpu/channel.h"
#include "runtime/gpu/cuda_driver.h"

/* cudaOccupancyMaxActiveClusters' attributes reach the driver as they are */
_Static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute), "launch attribute layouts");

#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

static void *lib;
static char lib_err[512];
static void *fns[1024];
static int rt_dev = -1;
static cudaError_t (*rt_set_device)(int);
static cudaError_t (*rt_free)(void *);
static const char *(*rt_error_string)(cudaError_t);

static int load(char *msg, size_t ml) {
    if (lib) return 0;
    if (lib_err[0]) {
        snprintf(msg, ml, "%s", lib_err);
        return CUDA_ERROR_NOT_FOUND;
    }
    char name[64], path[600];
    snprintf(name, sizeof name, "libcudart.so.%d", CUDART_VERSION / 1000);
    snprintf(path, sizeof path, "%s/lib64/%s", ICUDA_CUDA_HOME, name);
    const char *tries[] = {name, path, "libcudart.so"};
    const char *why = "";
    for (size_t i = 0; i < sizeof tries / sizeof tries[0] && !lib; i++) {
        lib = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib && i == 0) why = dlerror();
    }
    if (lib) {
        *(void **)&rt_set_device = dlsym(lib, "cudaSetDevice");
        *(void **)&rt_free = dlsym(lib, "cudaFree");
        *(void **)&rt_error_string = dlsym(lib, "cudaGetErrorString");
        if (!rt_set_device || !rt_free) {
            dlclose(lib);
            lib = NULL;
            why = "it lacks cudaSetDevice";
        }
    }
    if (!lib) {
        snprintf(lib_err, sizeof lib_err, "the CUDA runtime library (%s) could not be loaded in the GPU worker: %s",
                 name, why && *why ? why : "not found");
        snprintf(msg, ml, "%s", lib_err);
        return CUDA_ERROR_NOT_FOUND;
    }
    return 0;
}

/* The runtime on device dev, in the context the driver made current. */
static int attach(const cuda_driver_t *D, int dev, char *msg, size_t ml) {
    if (dev == rt_dev) return 0;
    CUcontext want = NULL, got = NULL;
    D->cuCtxGetCurrent(&want);
    cudaError_t e = rt_set_device(dev);
    if (e == cudaSuccess) e = rt_free(NULL); /* initialises the runtime on dev */
    D->cuCtxGetCurrent(&got);
    if (e != cudaSuccess) {
        snprintf(msg, ml, "the CUDA runtime could not start on device %d: %s", dev,
                 rt_error_string ? rt_error_string(e) : "error");
        return (int)e;
    }
    if (got != want) { /* never expected: the runtime would work apart from the driver's objects */
        D->cuCtxSetCurrent(want);
        snprintf(msg, ml, "the CUDA runtime chose another context than the worker's primary context on device %d", dev);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    rt_dev = dev;
    return 0;
}

static int serve_call(const ch_cmd_t *c, size_t len, const cuda_driver_t *D, int dev, uint64_t v[4], char *msg,
                      size_t ml) {
    uint32_t ix = c->u.rt.fn & 0xffffff, libid = c->u.rt.fn >> 24; /* a host library's (worker_libs.c) */
    unsigned na = c->u.rt.nargs;
    void *fn = NULL;
    const crt_stub_t *st = NULL;
    if (libid) {
        int r = worker_lib_resolve(libid, ix, &st, &fn, msg, ml);
        if (r) return r;
    } else if (ix >= (uint32_t)crt_nstubs || ix >= sizeof fns / sizeof fns[0]) {
        snprintf(msg, ml, "no CUDA runtime function number %u in this worker", (unsigned)ix);
        return CUDA_ERROR_INVALID_VALUE;
    } else {
        st = &crt_stubs[ix];
    }
    const uint16_t *sz = (const uint16_t *)((const unsigned char *)c + sizeof *c);
    size_t off = ch_launch_args_offset(na);
    void *args[64];
    if (na != st->nparams || na > 64 || !st->call) {
        snprintf(msg, ml, "%s cannot be forwarded with %u arguments", st->name, na);
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (unsigned i = 0; i < na; i++) {
        if (sz[i] != st->sizes[i]) {
            snprintf(msg, ml, "%s: argument %u has %u bytes, the worker's headers say %u", st->name, i + 1,
                     (unsigned)sz[i], (unsigned)st->sizes[i]);
            return CUDA_ERROR_INVALID_VALUE;
        }
        args[i] = (unsigned char *)c + off;
        off += ((size_t)sz[i] + 15) & ~(size_t)15;
    }
    size_t nl = strlen(st->name);
    if (off + nl + 1 > len || memcmp((const char *)c + off, st->name, nl + 1)) {
        snprintf(msg, ml, "the kernel and the GPU worker were built from different CUDA headers (%s)", st->name);
        return CUDA_ERROR_INVALID_VALUE;
    }
    int r = load(msg, ml); /* the libraries run in the runtime's context too */
    if (r) return r;
    if (!fn && !fns[ix] && !(fns[ix] = dlsym(lib, st->name))) {
        snprintf(msg, ml, "%s is not in this machine's CUDA runtime library (older than the headers icuda was built "
                 "with?)", st->name);
        return CUDA_ERROR_NOT_FOUND;
    }
    if ((r = attach(D, dev, msg, ml))) return r;
    CUcontext before = NULL, after = NULL;
    D->cuCtxGetCurrent(&before);
    long long ret = st->call(fn ? fn : fns[ix], args);
    v[0] = (uint64_t)ret;
    if (libid && ret) worker_lib_explain(libid, ret, msg, ml);
    /* a call that moved the runtime to another device (cudaInitDevice, say)
     * must not move the worker's driver calls with it */
    D->cuCtxGetCurrent(&after);
    if (after != before) {
        D->cuCtxSetCurrent(before);
        rt_dev = -1;
    }
    /* a sticky fault ends the worker: its cudaError_t equals the CUresult
     * (a library's status is not a cudaError_t) */
    return !libid && cuda_result_is_sticky((int)ret) ? (int)ret : 0;
}

/* The kernel queries the runtime cannot make for a module loaded with the
 * driver API: the driver's own, on the CUfunction. */
static int serve_func(const ch_cmd_t *c, size_t len, const cuda_driver_t *D, uint64_t v[4], void *payload, size_t *plen,
                      char *msg, size_t ml) {
    CUfunction f = (CUfunction)(uintptr_t)c->u.func.func;
    int a = c->u.func.a, b = c->u.func.b;
    size_t smem = (size_t)c->u.func.smem;
    int i1 = 0, i2 = 0;
    size_t z1 = 0, z2 = 0;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    switch (c->u.func.op) {
    case CH_FN_SET_ATTR:
        return D->cuFuncSetAttribute(f, (CUfunction_attribute)a, b);
    case CH_FN_GET_ATTRS: {
        int32_t *out = payload;
        for (int k = 0; k < CU_FUNC_ATTRIBUTE_MAX; k++) {
            int x = 0;
            D->cuFuncGetAttribute(&x, (CUfunction_attribute)k, f);
            out[k] = x;
        }
        *plen = sizeof(int32_t) * CU_FUNC_ATTRIBUTE_MAX;
        return 0;
    }
    case CH_FN_SET_CACHE:
        return D->cuFuncSetCacheConfig(f, (CUfunc_cache)a);
    case CH_FN_SET_SMEM_CONFIG: {
        CUresult (*set)(CUfunction, CUsharedconfig);
        *(void **)&set = dlsym(D->lib, "cuFuncSetSharedMemConfig");
        return set ? set(f, (CUsharedconfig)a) : CUDA_SUCCESS; /* gone from newer drivers: it did nothing */
    }
    case CH_FN_PARAM_INFO: {
        CUresult (*info)(CUfunction, size_t, size_t *, size_t *);
        *(void **)&info = dlsym(D->lib, "cuFuncGetParamInfo");
        if (!info) {
            snprintf(msg, ml, "this CUDA driver has no cuFuncGetParamInfo");
            return CUDA_ERROR_NOT_SUPPORTED;
        }
        r = info(f, (size_t)a, &z1, &z2);
        v[0] = z1;
        v[1] = z2;
        return r;
    }
    case CH_FN_ACTIVE_BLOCKS:
        r = D->cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&i1, f, a, smem, (unsigned)b);
        v[0] = (uint64_t)i1;
        return r;
    case CH_FN_BLOCK_SIZE:
        r = D->cuOccupancyMaxPotentialBlockSizeWithFlags(&i1, &i2, f, NULL, smem, a, (unsigned)b);
        v[0] = (uint64_t)i1;
        v[1] = (uint64_t)i2;
        return r;
    case CH_FN_DYN_SMEM:
        r = D->cuOccupancyAvailableDynamicSMemPerBlock(&z1, f, a, b);
        v[0] = z1;
        return r;
    case CH_FN_CLUSTER_SIZE:
    case CH_FN_ACTIVE_CLUSTERS: {
        const ch_launch_cfg_t *lc = (const ch_launch_cfg_t *)((const unsigned char *)c + sizeof *c);
        if (len < sizeof *c + sizeof *lc || lc->nattrs > 64 ||
            len < sizeof *c + sizeof *lc + lc->nattrs * sizeof(CUlaunchAttribute))
            return CUDA_ERROR_INVALID_VALUE;
        CUlaunchAttribute at[64];
        memcpy(at, lc + 1, lc->nattrs * sizeof(CUlaunchAttribute));
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDimX = lc->grid[0];
        cfg.gridDimY = lc->grid[1];
        cfg.gridDimZ = lc->grid[2];
        cfg.blockDimX = lc->block[0];
        cfg.blockDimY = lc->block[1];
        cfg.blockDimZ = lc->block[2];
        cfg.sharedMemBytes = (unsigned)lc->smem;
        cfg.attrs = at;
        cfg.numAttrs = lc->nattrs;
        CUresult (*q)(int *, CUfunction, const CUlaunchConfig *);
        *(void **)&q = dlsym(D->lib, c->u.func.op == CH_FN_CLUSTER_SIZE ? "cuOccupancyMaxPotentialClusterSize"
                                                                          : "cuOccupancyMaxActiveClusters");
        if (!q) return CUDA_ERROR_NOT_SUPPORTED;
        r = q(&i1, f, &cfg);
        v[0] = (uint64_t)i1;
        return r;
    }
    }
    return r;
}

/* A program's last call, cudaDeviceReset, made by a native cell would
 * destroy the context that the session's buffers, modules and the other
 * cells' objects live in; as in interpreted cells it waits for the device
 * instead. The worker exports the name (the Makefile's
 * --export-dynamic-symbol), so a cell's object binds it here before
 * libcudart, the same library the cell's object loaded. */
cudaError_t CUDARTAPI cudaDeviceReset(void) { return worker_cudart_synchronize(); }

int worker_cudart_synchronize(void) {
    static cudaError_t (*sync)(void);
    char msg[8];
    if (!sync && load(msg, sizeof msg) == 0) *(void **)&sync = dlsym(lib, "cudaDeviceSynchronize");
    return sync ? sync() : cudaSuccess;
}

int worker_cudart_free(void *p) {
    char msg[8];
    return load(msg, sizeof msg) == 0 ? rt_free(p) : cudaErrorInitializationError;
}

int worker_cudart_serve(const ch_cmd_t *c, size_t len, const cuda_driver_t *D, int dev, uint64_t v[4], void *payload,
                        size_t *plen, size_t cap) {
    char *msg = payload;
    msg[0] = 0;
    *plen = 0;
    int r = c->op == CH_CUDART ? serve_call(c, len, D, dev, v, msg, cap)
                               : serve_func(c, len, D, v, payload, plen, msg, cap);
    if (!*plen && msg[0]) *plen = strlen(msg);
    return r;
}
