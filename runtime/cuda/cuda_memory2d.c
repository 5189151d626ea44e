/* Pitched, 2-D and 3-D memory, stream-ordered allocation, registered host
 * memory and peer copies, in host cells (docs/cuda-api-coverage.md).
 *
 * Allocations go through icuda's own allocator (gpu_client_malloc), so their
 * addresses lie in the device range every worker reserves: they survive a
 * worker restart, host code knows and checks them as buffers, and %heap
 * lists them. A pitched row is 512 bytes aligned, as cudaMallocPitch's are
 * on current GPUs. Stream-ordered allocations (cudaMallocAsync) are made at
 * once, which stream order allows; cudaFreeAsync waits for its stream
 * first.
 *
 * The copies and sets check every byte they would touch against the
 * buffers of their arguments (rows of width bytes, pitch bytes apart;
 * slices of rows) before anything is sent, then run in the worker's
 * libcudart (cuda_forward.c), which gets the same pointers. */
#include "cuda_call.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/hostmem/arena.h"

#define PITCH_ALIGN 512u

static interp_t *interp_of(cs_call_t *c) { return c->cs->interp; }

static int device_range(cs_call_t *c) {
    int why = 0;
    if (gpu_client_unified(c->cs->gc, &why)) return 0;
    return call_fail(c, CUDA_ERR_NOT_SUPPORTED, "the GPU worker could not reserve icuda's device address range (%s), "
                     "so device memory cannot be allocated", gpu_client_error_name(why));
}

/* n bytes of device memory from icuda's allocator, a buffer host code knows. */
static int alloc(cs_call_t *c, uint64_t n, CUdeviceptr *p) {
    *p = 0;
    int r;
    if ((r = call_ready(c)) || (r = device_range(c))) return r;
    if (!n) return 0;
    r = gpu_client_malloc(c->cs->gc, p, (size_t)n);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        size_t fr = 0, tot = 0;
        gpu_client_mem_info(c->cs->gc, &fr, &tot);
        char b1[32], b2[32];
        return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of memory: %s asked for, %s free",
                         cs_bytes(b1, sizeof b1, n), cs_bytes(b2, sizeof b2, fr));
    }
    if (r) return call_done(c, r);
    if (!interp_buffer_new(interp_of(c), INTERP_PLACE_DEVICE, *p, NULL, n, c->name)) {
        gpu_client_free_mem(c->cs->gc, *p);
        *p = 0;
        return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "too many buffers");
    }
    return 0;
}

static uint64_t round_pitch(uint64_t w) { return (w + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN; }

static int nonneg(cs_call_t *c, int i, uint64_t *out) {
    int64_t v = call_ival(&c->a[i]);
    *out = 0;
    if (v < 0) return call_misuse(c, "argument %d (%s) is negative (%lld)", i + 1, call_arg_name(&c->a[i]), (long long)v);
    *out = (uint64_t)v;
    return 0;
}

int api_malloc_pitch(cs_call_t *c) {
    int r = call_arity(c, 4, 4, "void **devPtr, size_t *pitch, size_t width, size_t height");
    if (r) return r;
    uint64_t w, h;
    if (!call_out_arg(c, 0, 8, "a pointer") || !call_out_arg(c, 1, 8, "a size_t")) return CUDA_ERR_INVALID_VALUE;
    if ((r = nonneg(c, 2, &w)) || (r = nonneg(c, 3, &h))) return r;
    uint64_t pitch = round_pitch(w ? w : 1), n;
    if (h && pitch > UINT64_MAX / h) return call_misuse(c, "%llu rows of %llu bytes is too large", (unsigned long long)h,
                                                         (unsigned long long)pitch);
    n = pitch * h;
    CUdeviceptr p;
    if ((r = alloc(c, n, &p))) return r;
    interp_store_u64(interp_of(c), c->a[0].bits, p);
    interp_store_u64(interp_of(c), c->a[1].bits, pitch);
    return call_done(c, 0);
}

static bool extent_arg(const interp_arg_t *a, struct cudaExtent *e) {
    if (!a->aggr || a->size != sizeof *e) return false;
    memcpy(e, a->aggr, sizeof *e);
    return true;
}

int api_malloc_3d(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "cudaPitchedPtr *pitchedDevPtr, cudaExtent extent");
    if (r) return r;
    struct cudaExtent e;
    if (!extent_arg(&c->a[1], &e))
        return call_misuse(c, "argument 2 (%s) must be a cudaExtent (make_cudaExtent(width, height, depth))",
                           call_arg_name(&c->a[1]));
    struct cudaPitchedPtr *o = call_out_arg(c, 0, sizeof *o, "a cudaPitchedPtr");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    uint64_t pitch = round_pitch(e.width ? e.width : 1), rows = (uint64_t)e.height * e.depth;
    if ((e.height && rows / e.height != e.depth) || (rows && pitch > UINT64_MAX / rows))
        return call_misuse(c, "an extent of %zu x %zu x %zu is too large", e.width, e.height, e.depth);
    CUdeviceptr p;
    if ((r = alloc(c, pitch * rows, &p))) return r;
    o = call_out_arg(c, 0, sizeof *o, "a cudaPitchedPtr");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    o->ptr = (void *)(uintptr_t)p;
    o->pitch = pitch;
    o->xsize = e.width;
    o->ysize = e.height;
    return call_done(c, 0);
}

/* cudaMallocAsync(ptr, size, stream) and cudaMallocFromPoolAsync(ptr, size,
 * pool, stream): memory now, from icuda's allocator (the pool's properties
 * are not applied: a pool's memory would not survive a restart). */
int api_malloc_async(cs_call_t *c) {
    bool pool = !strcmp(c->name, "cudaMallocFromPoolAsync");
    int r = pool ? call_arity(c, 4, 4, "void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream")
                 : call_arity(c, 2, 3, "void **devPtr, size_t size, cudaStream_t hStream");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a pointer")) return CUDA_ERR_INVALID_VALUE;
    uint64_t n;
    gpu_handle_t s;
    if ((r = nonneg(c, 1, &n)) || (r = call_stream_arg(c, pool ? 3 : 2, &s))) return r;
    if (cs_capturing(c->cs, s))
        return call_fail(c, 900 /* cudaErrorStreamCaptureUnsupported */, "stream-ordered allocation inside a stream "
                         "capture is not supported by icuda: allocate before cudaStreamBeginCapture");
    CUdeviceptr p;
    if ((r = alloc(c, n, &p))) return r;
    interp_store_u64(interp_of(c), c->a[0].bits, p);
    return call_done(c, 0);
}

int api_free_async(cs_call_t *c) {
    int r = call_arity(c, 1, 2, "void *devPtr, cudaStream_t hStream");
    if (r) return r;
    gpu_handle_t s;
    if ((r = call_stream_arg(c, 1, &s))) return r;
    if (c->a[0].bits && cs_capturing(c->cs, s))
        return call_fail(c, 900, "stream-ordered free inside a stream capture is not supported by icuda");
    if (c->a[0].bits && c->a[0].place == INTERP_PLACE_DEVICE) {
        if ((r = call_ready(c))) return r;
        /* the stream's earlier work may still use the memory */
        if ((r = gpu_client_stream_sync(c->cs->gc, s))) return call_done(c, r);
    }
    cs_call_t one = *c;
    one.n = 1;
    r = api_free(&one);
    c->hard |= one.hard;
    return r;
}

/* The bytes a 2-D region touches: height rows of width bytes, pitch apart. */
static int region_2d(cs_call_t *c, int pi, uint64_t pitch, uint64_t width, uint64_t height, uint64_t *need) {
    *need = 0;
    if (!height || !width) return 0;
    if (width > pitch)
        return call_fail(c, 12 /* cudaErrorInvalidPitchValue */, "a row of %llu bytes is wider than the pitch of "
                         "%s (%llu bytes)", (unsigned long long)width, call_arg_name(&c->a[pi]),
                         (unsigned long long)pitch);
    if (height - 1 > (UINT64_MAX - width) / pitch) return call_misuse(c, "the region is too large");
    *need = (height - 1) * pitch + width;
    return 0;
}

/* The region at pointer argument i fits in its buffer (unknown addresses
 * cannot be checked: a __device__ variable, a kernel's malloc). */
static int fits(cs_call_t *c, int i, uint64_t need, const char *which, const char *shape) {
    const interp_arg_t *a = &c->a[i];
    if (!a->is_pointer || !a->bits)
        return call_misuse(c, "argument %d (%s) is %s", i + 1, call_arg_name(a), a->bits ? "not a pointer" : "NULL");
    if (a->place == INTERP_PLACE_UNKNOWN || !need) return 0;
    if (a->place == INTERP_PLACE_NONE) return call_misuse(c, "%s is not a live pointer (freed already?)", call_arg_name(a));
    if (need > a->avail) {
        char b1[32], b2[32];
        return call_misuse(c, "%s %s %s %s (%s), but %s has only %s from there to the end of its buffer (%s)",
                           which[0] == 'i' ? "writing" : "reading", cs_bytes(b1, sizeof b1, need), which,
                           call_arg_name(a), shape, call_arg_name(a), cs_bytes(b2, sizeof b2, a->avail),
                           call_place_name(a->place));
    }
    return 0;
}

static int stream_of(cs_call_t *c, int i, gpu_handle_t *s) {
    *s = 0;
    return i < c->n ? call_stream_arg(c, i, s) : 0;
}

int api_memcpy_2d(cs_call_t *c) {
    bool async = strstr(c->name, "Async") != NULL;
    int r = async ? call_arity(c, 7, 8, "void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, "
                               "size_t height, cudaMemcpyKind kind, cudaStream_t stream")
                  : call_arity(c, 7, 7, "void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, "
                               "size_t height, cudaMemcpyKind kind");
    if (r) return r;
    uint64_t dp, sp, w, h, dn, sn;
    gpu_handle_t s;
    if ((r = nonneg(c, 1, &dp)) || (r = nonneg(c, 3, &sp)) || (r = nonneg(c, 4, &w)) || (r = nonneg(c, 5, &h)))
        return r;
    char ds[160], ss[160];
    snprintf(ds, sizeof ds, "%llu rows of %llu bytes, %llu bytes apart", (unsigned long long)h, (unsigned long long)w,
             (unsigned long long)dp);
    snprintf(ss, sizeof ss, "%llu rows of %llu bytes, %llu bytes apart", (unsigned long long)h, (unsigned long long)w,
             (unsigned long long)sp);
    if ((r = region_2d(c, 0, dp, w, h, &dn)) || (r = region_2d(c, 2, sp, w, h, &sn)) ||
        (r = fits(c, 0, dn, "into", ds)) || (r = fits(c, 2, sn, "from", ss)) ||
        (r = call_check_kind(c, 0, 2, (int)call_ival(&c->a[6]))) || (r = stream_of(c, 7, &s)))
        return r;
    return cs_forward(c);
}

/* cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height,
 * kind[, stream]) and cudaMemcpy2DFromArray(dst, dpitch, src, wOffset,
 * hOffset, width, height, kind[, stream]): the linear side is checked. */
int api_memcpy_2d_array(cs_call_t *c) {
    bool to = strstr(c->name, "ToArray") != NULL, async = strstr(c->name, "Async") != NULL;
    int r = call_arity(c, 8, async ? 9 : 8, to ? "cudaArray_t dst, size_t wOffset, size_t hOffset, "
                       "const void *src, size_t spitch, size_t width, size_t height, cudaMemcpyKind kind"
                       : "void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t "
                       "width, size_t height, cudaMemcpyKind kind");
    if (r) return r;
    int li = to ? 3 : 0, pi = to ? 4 : 1;
    uint64_t pitch, w, h, n;
    if ((r = nonneg(c, pi, &pitch)) || (r = nonneg(c, 5, &w)) || (r = nonneg(c, 6, &h))) return r;
    char shape[160];
    snprintf(shape, sizeof shape, "%llu rows of %llu bytes, %llu bytes apart", (unsigned long long)h,
             (unsigned long long)w, (unsigned long long)pitch);
    if ((r = region_2d(c, li, pitch, w, h, &n)) || (r = fits(c, li, n, to ? "from" : "into", shape))) return r;
    return cs_forward(c);
}

/* cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind[, stream]) and
 * cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind[, stream]). */
int api_memcpy_array(cs_call_t *c) {
    bool to = strstr(c->name, "ToArray") != NULL, async = strstr(c->name, "Async") != NULL;
    int r = call_arity(c, 6, async ? 7 : 6, to ? "cudaArray_t dst, size_t wOffset, size_t hOffset, "
                       "const void *src, size_t count, cudaMemcpyKind kind"
                       : "void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, "
                       "cudaMemcpyKind kind");
    if (r) return r;
    uint64_t n;
    if ((r = nonneg(c, 4, &n)) || (r = fits(c, to ? 3 : 0, n, to ? "from" : "into", "the copy"))) return r;
    return cs_forward(c);
}

static bool device_memory(const interp_arg_t *a) {
    return a->place == INTERP_PLACE_DEVICE || a->place == INTERP_PLACE_MANAGED || a->place == INTERP_PLACE_UNKNOWN;
}

int api_memset_2d(cs_call_t *c) {
    bool async = strstr(c->name, "Async") != NULL;
    int r = async ? call_arity(c, 5, 6, "void *devPtr, size_t pitch, int value, size_t width, size_t height, "
                               "cudaStream_t stream")
                  : call_arity(c, 5, 5, "void *devPtr, size_t pitch, int value, size_t width, size_t height");
    if (r) return r;
    uint64_t pitch, w, h, n;
    gpu_handle_t s;
    if ((r = nonneg(c, 1, &pitch)) || (r = nonneg(c, 3, &w)) || (r = nonneg(c, 4, &h))) return r;
    char shape[160];
    snprintf(shape, sizeof shape, "%llu rows of %llu bytes, %llu bytes apart", (unsigned long long)h,
             (unsigned long long)w, (unsigned long long)pitch);
    if ((r = region_2d(c, 0, pitch, w, h, &n)) || (r = fits(c, 0, n, "into", shape)) || (r = stream_of(c, 5, &s)))
        return r;
    if (!device_memory(&c->a[0]))
        return call_misuse(c, "%s is %s; %s fills device memory", call_arg_name(&c->a[0]),
                           call_place_name(c->a[0].place), c->name);
    return cs_forward(c);
}

/* ---- 3-D ---- */

/* What a pointer stored in a struct names: its bytes to the end of its
 * buffer (0 when unknown) and which side it is on. */
static uint64_t stored_extent(cs_call_t *c, uint64_t word, bool *device, bool *known) {
    uint64_t avail = 0;
    *device = false;
    *known = false;
    if (interp_host_pointer(interp_of(c), word, &avail)) {
        *known = true;
        return avail;
    }
    CUdeviceptr base;
    size_t size;
    if (c->cs->gc && gpu_client_buffer(c->cs->gc, word, &base, &size, NULL)) {
        *device = *known = true;
        return size - (word - base);
    }
    for (int i = 0; i < c->cs->npins; i++) {
        uint64_t p = (uint64_t)(uintptr_t)c->cs->pins[i].p;
        if (word >= p && word - p < c->cs->pins[i].n) {
            *known = true;
            return c->cs->pins[i].n - (word - p);
        }
    }
    *device = word != 0;
    return 0;
}

/* A pitched side of a 3-D copy or set: the bytes from its ptr up to the
 * last one the extent touches at pos, within its buffer. */
static int check_pitched(cs_call_t *c, const char *side, const struct cudaPitchedPtr *pp, const struct cudaPos *pos,
                         const struct cudaExtent *e, bool *device) {
    bool known;
    uint64_t avail = stored_extent(c, (uint64_t)(uintptr_t)pp->ptr, device, &known);
    if (!pp->ptr) return call_misuse(c, "the %s pointer is NULL", side);
    if (!e->width || !e->height || !e->depth) return 0;
    if (e->width + pos->x > pp->pitch && pp->pitch)
        return call_fail(c, 12, "the %s rows (%zu bytes from x = %zu) are wider than its pitch (%zu bytes)", side,
                         e->width, pos->x, pp->pitch);
    uint64_t ys = pp->ysize ? pp->ysize : e->height;
    uint64_t last = ((uint64_t)(pos->z + e->depth - 1) * ys + (pos->y + e->height - 1)) * pp->pitch + pos->x + e->width;
    if (known && last > avail) {
        char b1[32], b2[32];
        return call_misuse(c, "the %s region (%zu x %zu x %zu bytes at (%zu, %zu, %zu), pitch %zu, %llu rows per "
                           "slice) ends %s past its pointer, but its buffer has %s from there", side, e->width,
                           e->height, e->depth, pos->x, pos->y, pos->z, pp->pitch, (unsigned long long)ys,
                           cs_bytes(b1, sizeof b1, last), cs_bytes(b2, sizeof b2, avail));
    }
    return 0;
}

int api_memcpy_3d(cs_call_t *c) {
    bool async = strstr(c->name, "Async") != NULL;
    int r = async ? call_arity(c, 1, 2, "const cudaMemcpy3DParms *p, cudaStream_t stream")
                  : call_arity(c, 1, 1, "const cudaMemcpy3DParms *p");
    if (r) return r;
    const interp_arg_t *a = &c->a[0];
    struct cudaMemcpy3DParms p;
    if (!a->is_pointer || !a->host || a->avail < sizeof p)
        return call_misuse(c, "argument 1 (%s) must point to a cudaMemcpy3DParms in host memory", call_arg_name(a));
    memcpy(&p, a->host, sizeof p);
    bool dd = false, sd = false;
    if (!p.srcArray && (r = check_pitched(c, "source", &p.srcPtr, &p.srcPos, &p.extent, &sd))) return r;
    if (!p.dstArray && (r = check_pitched(c, "destination", &p.dstPtr, &p.dstPos, &p.extent, &dd))) return r;
    if (p.srcArray) sd = true;
    if (p.dstArray) dd = true;
    int kind = (int)p.kind;
    if (kind < 0 || kind > 4) return call_fail(c, CUDA_ERR_INVALID_MEMCPY_DIRECTION, "%d is not a cudaMemcpyKind", kind);
    if (kind != 4 && ((kind == 1 || kind == 3) != dd || (kind == 2 || kind == 3) != sd))
        return call_misuse(c, "kind is %d, but the destination is %s memory and the source %s memory", kind,
                           dd ? "device" : "host", sd ? "device" : "host");
    gpu_handle_t s;
    if ((r = stream_of(c, 1, &s))) return r;
    r = cs_forward(c);
    if (!r && dd && !p.dstArray && c->cs->gc) gpu_client_touch(c->cs->gc, (CUdeviceptr)(uintptr_t)p.dstPtr.ptr);
    return r;
}

int api_memset_3d(cs_call_t *c) {
    bool async = strstr(c->name, "Async") != NULL;
    int r = async ? call_arity(c, 3, 4, "cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent, cudaStream_t stream")
                  : call_arity(c, 3, 3, "cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent");
    if (r) return r;
    struct cudaPitchedPtr pp;
    struct cudaExtent e;
    struct cudaPos pos = {0, 0, 0};
    if (!c->a[0].aggr || c->a[0].size != sizeof pp)
        return call_misuse(c, "argument 1 (%s) must be a cudaPitchedPtr (from cudaMalloc3D or make_cudaPitchedPtr)",
                           call_arg_name(&c->a[0]));
    if (!extent_arg(&c->a[2], &e))
        return call_misuse(c, "argument 3 (%s) must be a cudaExtent (make_cudaExtent(width, height, depth))",
                           call_arg_name(&c->a[2]));
    memcpy(&pp, c->a[0].aggr, sizeof pp);
    bool dev;
    if ((r = check_pitched(c, "destination", &pp, &pos, &e, &dev))) return r;
    if (!dev) return call_misuse(c, "the pitched pointer is host memory; %s fills device memory", c->name);
    gpu_handle_t s;
    if ((r = stream_of(c, 3, &s))) return r;
    r = cs_forward(c);
    if (!r && c->cs->gc) gpu_client_touch(c->cs->gc, (CUdeviceptr)(uintptr_t)pp.ptr);
    return r;
}

/* ---- registered host memory ---- */

int api_host_register(cs_call_t *c) {
    int r = call_arity(c, 3, 3, "void *ptr, size_t size, unsigned int flags");
    if (r) return r;
    const interp_arg_t *a = &c->a[0];
    uint64_t n;
    if ((r = nonneg(c, 1, &n))) return r;
    if (a->place == INTERP_PLACE_PINNED)
        return call_fail(c, 712 /* cudaErrorHostMemoryAlreadyRegistered */, "%s is pinned already (cudaMallocHost)",
                         call_arg_name(a));
    if (a->place != INTERP_PLACE_HOST || !a->host)
        return call_misuse(c, "%s is %s; cudaHostRegister page-locks host memory (from malloc or a session "
                           "variable)", call_arg_name(a), a->bits ? call_place_name(a->place) : "NULL");
    if (!n) return call_misuse(c, "a size of 0 bytes");
    if ((r = fits(c, 0, n, "from", "the range to register"))) return r;
    if (!arena_contains(a->host, (size_t)n))
        return call_misuse(c, "%s is a local array, which the GPU worker cannot see; register memory from malloc or "
                           "a session variable", call_arg_name(a));
    uint64_t flags = (uint64_t)call_ival(&c->a[2]);
    if (flags & ~(uint64_t)0xf) return call_misuse(c, "unknown flags 0x%llx", (unsigned long long)flags);
    if ((r = call_ready(c))) return r;
    if (gpu_client_host_is_registered(c->cs->gc, a->host, 1))
        return call_fail(c, 712, "%s is registered already", call_arg_name(a));
    /* whole pages (the arena is page-aligned), mapped whatever the flags:
     * with unified addressing a kernel may use the memory */
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)a->host / pg * pg;
    uintptr_t hi = ((uintptr_t)a->host + (uintptr_t)n + pg - 1) / pg * pg;
    r = gpu_client_host_register(c->cs->gc, (void *)lo, (size_t)(hi - lo), (unsigned)flags | 2u, NULL);
    if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
        return call_fail(c, 712, "part of %s's memory page is registered already (a neighbouring buffer was "
                         "registered: registration works by whole pages)", call_arg_name(a));
    return call_done(c, r);
}

int api_host_unregister(cs_call_t *c) {
    int r = call_arity(c, 1, 1, "void *ptr");
    if (r) return r;
    const interp_arg_t *a = &c->a[0];
    if (a->place != INTERP_PLACE_HOST || !a->host || !c->cs->gc || !gpu_client_host_is_registered(c->cs->gc, a->host, 1))
        return call_fail(c, 713 /* cudaErrorHostMemoryNotRegistered */, "%s was not registered with cudaHostRegister",
                         call_arg_name(a));
    if ((r = call_ready(c))) return r;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    r = gpu_client_host_unregister(c->cs->gc, (void *)((uintptr_t)a->host / pg * pg));
    if (r == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)
        return call_fail(c, 713, "%s is not the start of a registered range", call_arg_name(a));
    return call_done(c, r);
}

/* ---- peer copies ---- */

int api_memcpy_peer(cs_call_t *c) {
    bool async = strstr(c->name, "Async") != NULL;
    int r = async ? call_arity(c, 5, 6, "void *dst, int dstDevice, const void *src, int srcDevice, size_t count, "
                               "cudaStream_t stream")
                  : call_arity(c, 5, 5, "void *dst, int dstDevice, const void *src, int srcDevice, size_t count");
    if (r) return r;
    uint64_t n;
    gpu_handle_t s;
    if ((r = nonneg(c, 4, &n)) || (r = fits(c, 0, n, "into", "the copy")) || (r = fits(c, 2, n, "from", "the copy")) ||
        (r = stream_of(c, 5, &s)))
        return r;
    if (!device_memory(&c->a[0]) || !device_memory(&c->a[2]))
        return call_misuse(c, "%s copies device memory to device memory; %s is %s", c->name,
                           call_arg_name(&c->a[device_memory(&c->a[0]) ? 2 : 0]),
                           call_place_name(c->a[device_memory(&c->a[0]) ? 2 : 0].place));
    int64_t dd = call_ival(&c->a[1]), sd = call_ival(&c->a[3]);
    if ((r = call_ready(c))) return r;
    int ndev = 0;
    gpu_client_device_count(c->cs->gc, &ndev);
    if (dd < 0 || dd >= ndev || sd < 0 || sd >= ndev)
        return call_fail(c, CUDA_ERR_INVALID_DEVICE, "device %lld does not exist (this machine has %d)",
                         (long long)(dd < 0 || dd >= ndev ? dd : sd), ndev);
    if (dd != sd) return cs_forward(c);
    /* one device: an ordinary device-to-device copy */
    cuda_session_t *cs = c->cs;
    if ((c->a[0].place == INTERP_PLACE_MANAGED || c->a[2].place == INTERP_PLACE_MANAGED) &&
        (r = cs_managed_before_gpu(cs, c->msg, c->ml)))
        return r;
    cs->work_count++;
    r = gpu_client_memcpy_dtod(cs->gc, c->a[0].device, c->a[2].device, (size_t)n, s, async);
    if (c->a[0].place == INTERP_PLACE_MANAGED) cs_managed_after_gpu(cs, c->a[0].base);
    else if (async) cs->unsynced = true;
    return call_done(c, r);
}

/* cudaHostGetFlags(unsigned int *pFlags, void *pHost): icuda's pinned memory
 * is host memory registered with the driver (not the driver's own host
 * allocation, which the runtime would ask about), so the flags are the
 * registration's: cudaMallocHost and cudaHostAlloc memory is always portable
 * and mapped. */
int api_host_get_flags(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "unsigned int *pFlags, void *pHost");
    if (r) return r;
    if (!call_out_arg(c, 0, sizeof(unsigned), "an unsigned int")) return CUDA_ERR_INVALID_VALUE;
    const interp_arg_t *a = &c->a[1];
    const void *h = a->place == INTERP_PLACE_PINNED || a->place == INTERP_PLACE_HOST ? a->host : NULL;
    unsigned flags = 0;
    if (!h || !c->cs->gc || gpu_client_host_flags(c->cs->gc, h, &flags))
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s is %s, not memory from cudaMallocHost, cudaHostAlloc or "
                         "cudaHostRegister", call_arg_name(a), a->bits ? call_place_name(a->place) : "NULL");
    unsigned *o = call_out_arg(c, 0, sizeof *o, "an unsigned int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    *o = flags;
    return 0;
}
