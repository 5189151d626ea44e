/* Execution control in host cells (docs/cuda-api-coverage.md): kernels'
 * attributes and occupancy, host functions in streams, stream priorities,
 * stream capture, graph node parameters and device properties.
 *
 * Kernels are named by their name, as cudaFuncGetAttributes(&a, kernel)
 * reads in a cell; icuda loads them with the driver API, so their
 * attributes and occupancy come from the driver (CH_FUNC), and what
 * cudaFuncSetAttribute sets is applied again after a worker restart.
 *
 * Host functions (cudaLaunchHostFunc, cudaStreamAddCallback) are
 * interpreted code, which the worker cannot run: icuda waits for the
 * stream's earlier work, then runs the function in the kernel process
 * before the call returns. Work the cell queues later cannot start before
 * it, so CUDA's ordering holds (the host waits, where CUDA would not). */
#include "cuda_call.h"

#include "runtime/toolkit/cuda_rt_table.h"

#include "runtime/base/vec.h"
#include "runtime/device/device_session.h"
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static interp_t *interp_of(cs_call_t *c) { return c->cs->interp; }

/* The kernel argument i names (its name travels as a string), loaded on the
 * current device. */
static int kernel_arg(cs_call_t *c, int i, cs_kernel_t **k) {
    const interp_arg_t *a = &c->a[i];
    const char *name = a->is_pointer && a->host && a->place == INTERP_PLACE_HOST && a->avail &&
                       memchr(a->host, 0, a->avail) ? a->host : NULL;
    if (!name) return call_misuse(c, "argument %d (%s) must name a kernel of a device cell", i + 1, call_arg_name(a));
    int r = call_ready(c);
    if (r) return r;
    char why[600];
    if ((r = cs_kernel_function(c->cs, name, k, why, sizeof why))) return call_fail(c, r, "%s", why);
    return 0;
}

static int func_op(cs_call_t *c, cs_kernel_t *k, int op, int a, int b, uint64_t smem, const void *extra, size_t elen,
                   uint64_t v[2], void *out, size_t cap) {
    return gpu_client_func(c->cs->gc, k->fn, op, a, b, smem, extra, elen, v, out, cap);
}

int api_func_set_attribute(cs_call_t *c) {
    int r = call_arity(c, 3, 3, "const void *func, cudaFuncAttribute attr, int value");
    if (r) return r;
    int64_t attr = call_ival(&c->a[1]), value = call_ival(&c->a[2]);
    if (attr < cudaFuncAttributeMaxDynamicSharedMemorySize || attr >= cudaFuncAttributeMax)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%lld is not an attribute cudaFuncSetAttribute sets",
                         (long long)attr);
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 0, &k))) return r;
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        gpu_props_t p;
        if (!gpu_client_device_props(c->cs->gc, gpu_client_get_device(c->cs->gc), &p) &&
            (value < 0 || value + k->attrs.shared_size_bytes > p.shared_mem_per_block_optin))
            return call_fail(c, CUDA_ERR_INVALID_VALUE, "%lld bytes of dynamic shared memory for %s: this GPU allows "
                             "at most %d per block (%d static already)", (long long)value, k->name,
                             p.shared_mem_per_block_optin - k->attrs.shared_size_bytes, k->attrs.shared_size_bytes);
    }
    r = func_op(c, k, CH_FN_SET_ATTR, (int)attr, (int)value, 0, NULL, 0, NULL, NULL, 0);
    if (!r && attr == cudaFuncAttributeMaxDynamicSharedMemorySize) k->attrs.max_dynamic_shared_size_bytes = (int)value;
    return call_done(c, r);
}

int api_func_get_attributes(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "cudaFuncAttributes *attr, const void *func");
    if (r) return r;
    if (!call_out_arg(c, 0, sizeof(struct cudaFuncAttributes), "a cudaFuncAttributes")) return CUDA_ERR_INVALID_VALUE;
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 1, &k))) return r;
    int32_t v[CU_FUNC_ATTRIBUTE_MAX];
    memset(v, 0, sizeof v);
    if ((r = func_op(c, k, CH_FN_GET_ATTRS, 0, 0, 0, NULL, 0, NULL, v, sizeof v))) return call_done(c, r);
    struct cudaFuncAttributes *o = call_out_arg(c, 0, sizeof *o, "a cudaFuncAttributes");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    memset(o, 0, sizeof *o);
    o->maxThreadsPerBlock = v[CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK];
    o->sharedSizeBytes = (size_t)v[CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES];
    o->constSizeBytes = (size_t)v[CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES];
    o->localSizeBytes = (size_t)v[CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES];
    o->numRegs = v[CU_FUNC_ATTRIBUTE_NUM_REGS];
    o->ptxVersion = v[CU_FUNC_ATTRIBUTE_PTX_VERSION];
    o->binaryVersion = v[CU_FUNC_ATTRIBUTE_BINARY_VERSION];
    o->cacheModeCA = v[CU_FUNC_ATTRIBUTE_CACHE_MODE_CA];
    o->maxDynamicSharedSizeBytes = v[CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES];
    o->preferredShmemCarveout = v[CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT];
    o->clusterDimMustBeSet = v[CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET];
    o->requiredClusterWidth = v[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
    o->requiredClusterHeight = v[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT];
    o->requiredClusterDepth = v[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH];
    o->nonPortableClusterSizeAllowed = v[CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED];
    o->clusterSchedulingPolicyPreference = v[CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE];
    return 0;
}

/* cudaFuncSetCacheConfig(func, cacheConfig), cudaFuncSetSharedMemConfig(func, config) */
int api_func_set_cache_config(cs_call_t *c) {
    bool smem = !strcmp(c->name, "cudaFuncSetSharedMemConfig");
    int r = call_arity(c, 2, 2, smem ? "const void *func, cudaSharedMemConfig config"
                                     : "const void *func, cudaFuncCache cacheConfig");
    if (r) return r;
    int64_t v = call_ival(&c->a[1]);
    if (v < 0 || v > (smem ? 2 : 3))
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%lld is not a %s", (long long)v,
                         smem ? "cudaSharedMemConfig" : "cudaFuncCache");
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 0, &k))) return r;
    return call_done(c, func_op(c, k, smem ? CH_FN_SET_SMEM_CONFIG : CH_FN_SET_CACHE, (int)v, 0, 0, NULL, 0, NULL,
                                NULL, 0));
}

/* The name a host cell gave the kernel (CUDA gives the device name, which
 * for the kernels of a cell is the same unless they are C++ overloads). */
int api_func_get_name(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "const char **name, const void *func");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a const char *")) return CUDA_ERR_INVALID_VALUE;
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 1, &k))) return r;
    interp_store_u64(interp_of(c), c->a[0].bits, c->a[1].bits);
    return 0;
}

int api_func_get_param_info(cs_call_t *c) {
    int r = call_arity(c, 4, 4, "const void *func, size_t paramIndex, size_t *paramOffset, size_t *paramSize");
    if (r) return r;
    if (!call_out_arg(c, 2, 8, "a size_t") || !call_out_arg(c, 3, 8, "a size_t")) return CUDA_ERR_INVALID_VALUE;
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 0, &k))) return r;
    int64_t i = call_ival(&c->a[1]);
    if (i < 0 || i >= k->nparams)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s has %d parameter%s; there is no parameter %lld", k->signature,
                         k->nparams, k->nparams == 1 ? "" : "s", (long long)i);
    uint64_t v[2] = {0, 0};
    if ((r = func_op(c, k, CH_FN_PARAM_INFO, (int)i, 0, 0, NULL, 0, v, NULL, 0))) return call_done(c, r);
    interp_store_u64(interp_of(c), c->a[2].bits, v[0]);
    interp_store_u64(interp_of(c), c->a[3].bits, v[1]);
    return 0;
}

/* ---- occupancy ---- */

static int store_int(cs_call_t *c, int i, int64_t v) {
    int *o = call_out_arg(c, i, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    *o = (int)v;
    return 0;
}

/* cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, flags) */
int api_occupancy_blocks_flags(cs_call_t *c) {
    int r = call_arity(c, 5, 5, "int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, "
                       "unsigned int flags");
    if (r) return r;
    if (!call_out_arg(c, 0, sizeof(int), "an int")) return CUDA_ERR_INVALID_VALUE;
    int64_t block = call_ival(&c->a[2]), smem = call_ival(&c->a[3]);
    if (block <= 0 || block > INT32_MAX || smem < 0)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "blockSize must be positive and dynamicSMemSize not negative");
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 1, &k))) return r;
    uint64_t v[2] = {0, 0};
    r = func_op(c, k, CH_FN_ACTIVE_BLOCKS, (int)block, (int)call_ival(&c->a[4]), (uint64_t)smem, NULL, 0, v, NULL, 0);
    if (r) return call_done(c, r);
    return store_int(c, 0, (int64_t)v[0]);
}

/* cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, func, numBlocks, blockSize) */
int api_occupancy_dyn_smem(cs_call_t *c) {
    int r = call_arity(c, 4, 4, "size_t *dynamicSmemSize, const void *func, int numBlocks, int blockSize");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a size_t")) return CUDA_ERR_INVALID_VALUE;
    int64_t nb = call_ival(&c->a[2]), bs = call_ival(&c->a[3]);
    if (nb <= 0 || bs <= 0 || nb > INT32_MAX || bs > INT32_MAX)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "numBlocks and blockSize must be positive");
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 1, &k))) return r;
    uint64_t v[2] = {0, 0};
    if ((r = func_op(c, k, CH_FN_DYN_SMEM, (int)nb, (int)bs, 0, NULL, 0, v, NULL, 0))) return call_done(c, r);
    interp_store_u64(interp_of(c), c->a[0].bits, v[0]);
    return 0;
}

/* cudaOccupancyMaxPotentialClusterSize / cudaOccupancyMaxActiveClusters(int *out, func, const cudaLaunchConfig_t *config) */
int api_occupancy_clusters(cs_call_t *c) {
    bool size = strstr(c->name, "ClusterSize") != NULL;
    int r = call_arity(c, 3, 3, size ? "int *clusterSize, const void *func, const cudaLaunchConfig_t *launchConfig"
                                     : "int *numClusters, const void *func, const cudaLaunchConfig_t *launchConfig");
    if (r) return r;
    if (!call_out_arg(c, 0, sizeof(int), "an int")) return CUDA_ERR_INVALID_VALUE;
    const interp_arg_t *a = &c->a[2];
    cudaLaunchConfig_t lc;
    if (!a->is_pointer || !a->host || a->avail < sizeof lc)
        return call_misuse(c, "argument 3 (%s) must point to a cudaLaunchConfig_t in host memory", call_arg_name(a));
    memcpy(&lc, a->host, sizeof lc);
    struct {
        ch_launch_cfg_t h;
        cudaLaunchAttribute at[64];
    } cfg;
    memset(&cfg, 0, sizeof cfg);
    if (lc.numAttrs > 64) return call_misuse(c, "%u launch attributes (at most 64)", lc.numAttrs);
    if (lc.numAttrs) {
        uint64_t avail = 0;
        const void *at = interp_host_pointer(interp_of(c), (uint64_t)(uintptr_t)lc.attrs, &avail);
        if (!at || avail < lc.numAttrs * sizeof(cudaLaunchAttribute))
            return call_misuse(c, "the config's attrs must point to its %u cudaLaunchAttribute in host memory",
                               lc.numAttrs);
        memcpy(cfg.at, at, lc.numAttrs * sizeof(cudaLaunchAttribute));
    }
    cfg.h.grid[0] = lc.gridDim.x;
    cfg.h.grid[1] = lc.gridDim.y;
    cfg.h.grid[2] = lc.gridDim.z;
    cfg.h.block[0] = lc.blockDim.x;
    cfg.h.block[1] = lc.blockDim.y;
    cfg.h.block[2] = lc.blockDim.z;
    cfg.h.smem = lc.dynamicSmemBytes;
    cfg.h.nattrs = lc.numAttrs;
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 1, &k))) return r;
    uint64_t v[2] = {0, 0};
    r = func_op(c, k, size ? CH_FN_CLUSTER_SIZE : CH_FN_ACTIVE_CLUSTERS, 0, 0, 0, &cfg,
                sizeof cfg.h + lc.numAttrs * sizeof(cudaLaunchAttribute), v, NULL, 0);
    if (r) return call_done(c, r);
    return store_int(c, 0, (int64_t)v[0]);
}

/* cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func, dynamicSMemSize = 0,
 * blockSizeLimit = 0, flags = 0): cuda_runtime.h's C++ API */
int api_occupancy_block_size(cs_call_t *c) {
    int r = call_arity(c, 3, 6, "int *minGridSize, int *blockSize, const void *func, size_t dynamicSMemSize, int "
                       "blockSizeLimit, unsigned int flags");
    if (r) return r;
    if (!call_out_arg(c, 0, sizeof(int), "an int") || !call_out_arg(c, 1, sizeof(int), "an int"))
        return CUDA_ERR_INVALID_VALUE;
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 2, &k))) return r;
    uint64_t v[2] = {0, 0};
    r = func_op(c, k, CH_FN_BLOCK_SIZE, c->n > 4 ? (int)call_ival(&c->a[4]) : 0, c->n > 5 ? (int)call_ival(&c->a[5]) : 0,
                c->n > 3 ? (uint64_t)call_ival(&c->a[3]) : 0, NULL, 0, v, NULL, 0);
    if (r) return call_done(c, r);
    if ((r = store_int(c, 0, (int64_t)v[0]))) return r;
    return store_int(c, 1, (int64_t)v[1]);
}

/* cudaOccupancyMaxPotentialBlockSizeVariableSMem[WithFlags](minGridSize, blockSize, func,
 * blockSizeToDynamicSMemSize, blockSizeLimit = 0[, flags = 0]): the shared memory a block
 * size needs comes from a host function, so the search is made here, as
 * cuda_runtime.h makes it: the block size with the most resident threads,
 * the largest among equals. */
int api_occupancy_variable_smem(cs_call_t *c) {
    int r = call_arity(c, 4, 6, "int *minGridSize, int *blockSize, const void *func, size_t "
                       "(*blockSizeToDynamicSMemSize)(int), int blockSizeLimit, unsigned int flags");
    if (r) return r;
    if (!call_out_arg(c, 0, sizeof(int), "an int") || !call_out_arg(c, 1, sizeof(int), "an int"))
        return CUDA_ERR_INVALID_VALUE;
    cs_kernel_t *k;
    if ((r = kernel_arg(c, 2, &k))) return r;
    gpu_props_t p;
    if ((r = gpu_client_device_props(c->cs->gc, gpu_client_get_device(c->cs->gc), &p))) return call_done(c, r);
    int limit = c->n > 4 ? (int)call_ival(&c->a[4]) : 0;
    unsigned flags = c->n > 5 ? (unsigned)call_ival(&c->a[5]) : 0;
    int most = p.max_threads_per_block;
    if (k->attrs.max_threads_per_block && k->attrs.max_threads_per_block < most) most = k->attrs.max_threads_per_block;
    if (limit > 0 && limit < most) most = limit;
    int gran = p.warp_size > 0 ? p.warp_size : 32, best_block = 0, best_blocks = 0;
    long best_threads = 0;
    for (int bs = (most + gran - 1) / gran * gran; bs > 0; bs -= gran) {
        int try_bs = bs > most ? most : bs;
        uint64_t arg = (uint64_t)try_bs;
        int64_t smem = 0;
        char why[300];
        if (interp_call_host_function(interp_of(c), c->a[3].bits, &arg, 1, &smem, why, sizeof why))
            return call_misuse(c, "argument 4 (%s) must be a host function size_t f(int blockSize): %s",
                               call_arg_name(&c->a[3]), why);
        if (smem < 0) continue;
        uint64_t v[2] = {0, 0};
        r = func_op(c, k, CH_FN_ACTIVE_BLOCKS, try_bs, (int)flags, (uint64_t)smem, NULL, 0, v, NULL, 0);
        if (r == CUDA_ERROR_INVALID_VALUE) continue; /* more shared memory than a block may have */
        if (r) return call_done(c, r);
        long threads = (long)v[0] * try_bs;
        if (threads > best_threads) {
            best_threads = threads;
            best_block = try_bs;
            best_blocks = (int)v[0];
        }
        if (threads == p.max_threads_per_multiprocessor) break;
    }
    if ((r = store_int(c, 0, (int64_t)best_blocks * p.multiprocessor_count))) return r;
    return store_int(c, 1, best_block);
}

/* ---- host functions in streams ---- */

static int capture_index(cuda_session_t *cs, gpu_handle_t s) {
    for (int i = 0; i < cs->ncapt; i++)
        if (cs->capt[i] == s) return i;
    return -1;
}

bool cs_capturing(cuda_session_t *cs, gpu_handle_t s) { return capture_index(cs, s) >= 0; }

/* cudaLaunchHostFunc(stream, fn, userData) and cudaStreamAddCallback(stream, callback, userData, flags) */
int api_launch_host_func(cs_call_t *c) {
    bool cb = !strcmp(c->name, "cudaStreamAddCallback");
    int r = cb ? call_arity(c, 4, 4, "cudaStream_t stream, cudaStreamCallback_t callback, void *userData, unsigned int "
                            "flags")
               : call_arity(c, 3, 3, "cudaStream_t stream, cudaHostFn_t fn, void *userData");
    if (r) return r;
    gpu_handle_t s;
    if ((r = call_stream_arg(c, 0, &s))) return r;
    if (cb && call_ival(&c->a[3]) != 0) return call_misuse(c, "flags must be 0");
    if (!c->a[1].bits) return call_misuse(c, "argument 2 (%s) is NULL", call_arg_name(&c->a[1]));
    if (cs_capturing(c->cs, s))
        return call_fail(c, 900, "a host function cannot be captured into a graph in icuda: the worker that replays "
                         "graphs cannot run interpreted code");
    if ((r = call_ready(c))) return r;
    /* the stream's work before it, then the function, before anything after it is queued */
    int done = gpu_client_stream_sync(c->cs->gc, s);
    if (done >= 0x10000) return call_done(c, done);
    int status = done ? cs_check(c->cs, done) : 0;
    if (!status) cs_mvars_sync_point(c->cs);
    uint64_t args[3] = {c->a[0].bits, (uint64_t)status, c->a[2].bits};
    char why[300];
    if (interp_call_host_function(interp_of(c), c->a[1].bits, cb ? args : args + 2, cb ? 3 : 1, NULL, why, sizeof why))
        return call_misuse(c, "argument 2 (%s) must be a host function %s: %s", call_arg_name(&c->a[1]),
                           cb ? "void f(cudaStream_t, cudaError_t, void *)" : "void f(void *)", why);
    return status ? call_fail(c, status, "%s (from the stream's earlier work)", cuda_error_string(status)) : 0;
}

/* ---- streams ---- */

int api_stream_create_priority(cs_call_t *c) {
    int r = call_arity(c, 3, 3, "cudaStream_t *pStream, unsigned int flags, int priority");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a stream")) return CUDA_ERR_INVALID_VALUE;
    int64_t flags = call_ival(&c->a[1]);
    if (flags & ~1LL) return call_misuse(c, "flags must be cudaStreamDefault or cudaStreamNonBlocking");
    if ((r = call_ready(c))) return r;
    gpu_handle_t s;
    r = gpu_client_stream_create_priority(c->cs->gc, &s, (unsigned)flags, (int)call_ival(&c->a[2]));
    if (r) return call_done(c, r);
    interp_store_u64(interp_of(c), c->a[0].bits, s + CS_HANDLE_BASE);
    return 0;
}

/* cudaStreamBeginCapture[ToGraph] and cudaStreamEndCapture: run by the
 * runtime on the worker's stream, which icuda's launches also use, so
 * launches in between are captured. icuda notes which streams capture: no
 * synchronisation at the end of a cell may break a capture. */
int api_stream_capture(cs_call_t *c) {
    bool end = !strcmp(c->name, "cudaStreamEndCapture");
    if (c->n < 1) return call_arity(c, 1, 6, "cudaStream_t stream, ...");
    gpu_handle_t s;
    int r = call_stream_arg(c, 0, &s);
    if (r) return r;
    if (!end && !call_ready(c)) {
        /* the session's kernels loaded now: a module load while a stream
         * captures (in the default, global mode) could end the capture */
        device_session_t *e = c->cs->dev;
        for (int i = 0; i < e->nkernels && i < 256; i++) {
            cs_kernel_t *k;
            char why[300];
            cs_kernel_function(c->cs, e->kernels[i].name, &k, why, sizeof why);
        }
        c->msg[0] = 0;
    }
    if ((r = cs_forward(c))) {
        if (end) { /* a failed end still ends the capture */
            int i = capture_index(c->cs, s);
            if (i >= 0) c->cs->capt[i] = c->cs->capt[--c->cs->ncapt];
        }
        return r;
    }
    cuda_session_t *cs = c->cs;
    int i = capture_index(cs, s);
    if (end && i >= 0) cs->capt[i] = cs->capt[--cs->ncapt];
    if (!end && i < 0) {
        ARRAY_GROW(cs->capt, cs->ncapt, cs->capcapt);
        cs->capt[cs->ncapt++] = s;
    }
    return 0;
}

/* cudaGraphAddNode / cudaGraphNodeSetParams / cudaGraphExecNodeSetParams:
 * any node but the two that need what icuda's kernels and host functions
 * are not (a host-stub address, a C function). */
int api_graph_node_params(cs_call_t *c) {
    const crt_fn_t *f = crt_find(c->name);
    for (int i = 0; f && i < f->nparams && i < c->n; i++) {
        if (!strstr(f->params[i].type, "cudaGraphNodeParams")) continue;
        const interp_arg_t *a = &c->a[i];
        int type;
        if (!a->is_pointer || !a->host || a->avail < sizeof(struct cudaGraphNodeParams))
            return call_misuse(c, "argument %d (%s) must point to a cudaGraphNodeParams in host memory", i + 1,
                               call_arg_name(a));
        memcpy(&type, a->host, sizeof type);
        if (type == cudaGraphNodeTypeKernel)
            return call_fail(c, CUDA_ERR_NOT_SUPPORTED, "kernel nodes cannot be built by hand in icuda (a kernel is "
                             "named by its name, and has no host-stub address): capture a launch instead "
                             "(cudaStreamBeginCapture, kernel<<<..., stream>>>, cudaStreamEndCapture)");
        if (type == cudaGraphNodeTypeHost)
            return call_fail(c, CUDA_ERR_NOT_SUPPORTED, "host nodes would run a host function in the GPU worker, "
                             "which cannot run interpreted code");
    }
    return cs_forward(c);
}

/* ---- devices ---- */

/* cudaDeviceEnablePeerAccess(peerDevice, flags) / cudaDeviceDisablePeerAccess(peerDevice):
 * the runtime's own checks and state, then icuda's mappings of the peer's
 * memory (its own address range, which the runtime does not know) opened
 * to the current device, or closed again. */
int api_peer_access(cs_call_t *c) {
    bool on = !strcmp(c->name, "cudaDeviceEnablePeerAccess");
    int r = on ? call_arity(c, 2, 2, "int peerDevice, unsigned int flags") : call_arity(c, 1, 1, "int peerDevice");
    if (r) return r;
    int peer = (int)call_ival(&c->a[0]);
    if ((r = cs_forward(c))) return r;
    return call_done(c, gpu_client_peer_access(c->cs->gc, peer, on));
}

/* What the worker's driver properties fill when the runtime library is missing. */
static void props_from_driver(struct cudaDeviceProp *o, const gpu_props_t *p) {
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", p->name);
    memcpy(&o->uuid, p->uuid, 16);
    o->totalGlobalMem = p->total_mem;
    o->sharedMemPerBlock = (size_t)p->shared_mem_per_block;
    o->regsPerBlock = p->regs_per_block;
    o->warpSize = p->warp_size;
    o->memPitch = (size_t)p->mem_pitch;
    o->maxThreadsPerBlock = p->max_threads_per_block;
    for (int i = 0; i < 3; i++) {
        o->maxThreadsDim[i] = p->max_block_dim[i];
        o->maxGridSize[i] = p->max_grid_dim[i];
    }
    o->totalConstMem = (size_t)p->total_const_mem;
    o->major = p->major;
    o->minor = p->minor;
    o->textureAlignment = (size_t)p->texture_alignment;
    o->multiProcessorCount = p->multiprocessor_count;
    o->integrated = p->integrated;
    o->canMapHostMemory = p->can_map_host_memory;
    o->concurrentKernels = p->concurrent_kernels;
    o->ECCEnabled = p->ecc_enabled;
    o->pciBusID = p->pci_bus_id;
    o->pciDeviceID = p->pci_device_id;
    o->pciDomainID = p->pci_domain_id;
    o->asyncEngineCount = p->async_engine_count;
    o->unifiedAddressing = p->unified_addressing;
    o->memoryBusWidth = p->memory_bus_width;
    o->l2CacheSize = p->l2_cache_size;
    o->persistingL2CacheMaxSize = p->l2_persisting_max;
    o->maxThreadsPerMultiProcessor = p->max_threads_per_multiprocessor;
    o->sharedMemPerMultiprocessor = (size_t)p->shared_mem_per_multiprocessor;
    o->regsPerMultiprocessor = p->regs_per_multiprocessor;
    o->managedMemory = p->managed_memory;
    o->maxBlocksPerMultiProcessor = p->max_blocks_per_multiprocessor;
    o->sharedMemPerBlockOptin = (size_t)p->shared_mem_per_block_optin;
    o->cooperativeLaunch = p->cooperative_launch;
}

/* cudaGetDeviceProperties: the runtime's own answer, every field of the
 * toolkit's struct (the driver's fields where there is no libcudart). */
int api_device_props(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "cudaDeviceProp *prop, int device");
    if (r) return r;
    if (!call_out_arg(c, 0, sizeof(struct cudaDeviceProp), "a cudaDeviceProp")) return CUDA_ERR_INVALID_VALUE;
    if ((r = call_ready(c))) return r;
    int dev = (int)call_ival(&c->a[1]), n = 0;
    gpu_client_device_count(c->cs->gc, &n);
    if (dev < 0 || dev >= n) return call_fail(c, CUDA_ERR_INVALID_DEVICE, "device %d does not exist (this machine has %d)", dev, n);
    r = cs_forward(c);
    if (r != 303) return r;
    gpu_props_t p;
    c->hard = false;
    c->msg[0] = 0;
    if ((r = gpu_client_device_props(c->cs->gc, dev, &p))) return call_done(c, r);
    struct cudaDeviceProp *o = call_out_arg(c, 0, sizeof *o, "a cudaDeviceProp");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    props_from_driver(o, &p);
    return 0;
}
