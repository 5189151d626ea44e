/* The memory family of the CUDA runtime API in host cells (docs/device-memory.md): device, pinned and managed allocations, copies
 * in every direction (cudaMemcpyDefault infers it from the pointers, as
 * unified addressing allows), memsets, pointer attributes, prefetch and
 * advice. Every pointer a cell holds for these is the address the GPU uses.
 *
 * Managed memory is device memory plus a host copy in the shared arena. The
 * interpreter fetches the copy when the host touches it after GPU work
 * (cs_managed_fetch), and everything the host touched goes back to the
 * device before the next GPU work that could read it (cs_managed_before_gpu).
 * The host copy is also the buffer's shadow: after a fault, managed memory
 * comes back as the host last saw it. */
#include "cuda_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/hostmem/arena.h"

#include "runtime/base/vec.h"
static interp_t *interp_of(cs_call_t *c) { return c->cs->interp; }

/* Device allocations need the worker's address range. */
static int no_range(cs_call_t *c) {
    int why = 0;
    if (gpu_client_unified(c->cs->gc, &why)) return 0;
    return call_fail(c, CUDA_ERR_NOT_SUPPORTED, "the GPU worker could not reserve icuda's device address range "
                     "(%s at 0x%llx, %llu GiB), so device memory cannot be allocated", gpu_client_error_name(why),
                     (unsigned long long)GPU_VA_BASE, (unsigned long long)(GPU_VA_SIZE >> 30));
}

static int oom(cs_call_t *c, int64_t n) {
    size_t fr = 0, tot = 0;
    gpu_client_mem_info(c->cs->gc, &fr, &tot);
    char b1[32], b2[32], b3[32];
    return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of memory: %s asked for, %s free of %s on the GPU",
                     cs_bytes(b1, sizeof b1, (uint64_t)n), cs_bytes(b2, sizeof b2, fr), cs_bytes(b3, sizeof b3, tot));
}

int api_malloc(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "void **devPtr, size_t size");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a pointer")) return CUDA_ERR_INVALID_VALUE;
    int64_t n = call_ival(&c->a[1]);
    if (n < 0) return call_misuse(c, "a negative size (%lld bytes)", (long long)n);
    if ((r = call_ready(c))) return r;
    if (n == 0) return interp_store_u64(interp_of(c), c->a[0].bits, 0), 0;
    if ((r = no_range(c))) return r;
    CUdeviceptr p = 0;
    r = gpu_client_malloc(c->cs->gc, &p, (size_t)n);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) return oom(c, n);
    if (r) return call_done(c, r);
    if (!interp_buffer_new(interp_of(c), INTERP_PLACE_DEVICE, p, NULL, (uint64_t)n, "cudaMalloc")) {
        gpu_client_free_mem(c->cs->gc, p);
        return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "too many buffers");
    }
    interp_store_u64(interp_of(c), c->a[0].bits, p);
    return call_done(c, 0);
}

cs_managed_t *cs_managed_find(cuda_session_t *cs, uint64_t addr) {
    for (int i = 0; i < cs->nmanaged; i++)
        if (cs->managed[i].addr == addr) return &cs->managed[i];
    return NULL;
}

int api_malloc_managed(cs_call_t *c) {
    int r = call_arity(c, 2, 3, "void **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a pointer")) return CUDA_ERR_INVALID_VALUE;
    int64_t n = call_ival(&c->a[1]);
    if (n <= 0) return call_misuse(c, "a size of %lld bytes (managed memory needs at least one)", (long long)n);
    int64_t flags = c->n > 2 ? call_ival(&c->a[2]) : 1;
    if (flags != 1 && flags != 2)
        return call_misuse(c, "flags must be cudaMemAttachGlobal or cudaMemAttachHost, not %lld", (long long)flags);
    if ((r = call_ready(c)) || (r = no_range(c))) return r;
    cuda_session_t *cs = c->cs;
    void *host = arena_alloc((size_t)n); /* zero-filled, as fresh managed pages read */
    if (!host) return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of host memory for the host copy (%lld bytes)",
                                (long long)n);
    CUdeviceptr p = 0;
    r = gpu_client_malloc(cs->gc, &p, (size_t)n);
    if (!r) r = gpu_client_memset(cs->gc, p, 0, (size_t)n, 0, false);
    if (!r) r = gpu_client_bind_shadow(cs->gc, p, host);
    if (r) {
        if (p) gpu_client_free_mem(cs->gc, p);
        arena_free(host);
        return r == CUDA_ERROR_OUT_OF_MEMORY ? oom(c, n) : call_done(c, r);
    }
    if (!interp_buffer_new(interp_of(c), INTERP_PLACE_MANAGED, p, host, (uint64_t)n, "cudaMallocManaged")) {
        gpu_client_free_mem(cs->gc, p);
        arena_free(host);
        return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "too many buffers");
    }
    ARRAY_GROW(cs->managed, cs->nmanaged, cs->capmanaged);
    cs->managed[cs->nmanaged++] = (cs_managed_t){p, host, (size_t)n};
    interp_store_u64(interp_of(c), c->a[0].bits, p);
    return call_done(c, 0);
}

int api_free(cs_call_t *c) {
    int r = call_arity(c, 1, 1, "void *devPtr");
    if (r) return r;
    const interp_arg_t *a = &c->a[0];
    if (a->bits == 0) return 0; /* cudaFree(NULL) does nothing */
    if (a->place != INTERP_PLACE_DEVICE && a->place != INTERP_PLACE_MANAGED)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s is %s%s", call_arg_name(a), call_place_name(a->place),
                         a->place == INTERP_PLACE_NONE ? " (freed already?)" : a->place == INTERP_PLACE_PINNED
                         ? "; free it with cudaFreeHost" : a->place == INTERP_PLACE_HOST ? "; free it with free()" : "");
    if (a->device != a->base)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s points inside a buffer (%llu bytes past its start), not to "
                         "its start", call_arg_name(a), (unsigned long long)(a->device - a->base));
    if ((r = call_ready(c))) return r;
    cuda_session_t *cs = c->cs;
    r = gpu_client_free_mem(cs->gc, a->device);
    if (a->place == INTERP_PLACE_MANAGED) {
        cs_managed_t *m = cs_managed_find(cs, a->device);
        interp_buffer_free(interp_of(c), a->bits, INTERP_PLACE_MANAGED);
        if (m) {
            arena_free(m->host);
            *m = cs->managed[--cs->nmanaged];
        }
    } else {
        interp_buffer_free(interp_of(c), a->bits, INTERP_PLACE_DEVICE);
    }
    return call_done(c, r);
}

int cuda_session_free_device(cuda_session_t *cs, uint64_t addr) {
    if (!cs->gc || interp_buffer_free(cs->interp, addr, INTERP_PLACE_DEVICE) != 0) return -1;
    return gpu_client_free_mem(cs->gc, addr) == 0 ? 0 : -1;
}

int cuda_session_free_host(cuda_session_t *cs, void *addr) { return interp_free_heap_at(cs->interp, addr); }

int api_malloc_host(cs_call_t *c, bool flags) {
    int r = flags ? call_arity(c, 3, 3, "void **pHost, size_t size, unsigned int flags")
                  : call_arity(c, 2, 2, "void **ptr, size_t size");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a pointer")) return CUDA_ERR_INVALID_VALUE;
    int64_t n = call_ival(&c->a[1]);
    if (n < 0) return call_misuse(c, "a negative size (%lld bytes)", (long long)n);
    if ((r = call_ready(c))) return r;
    /* page-aligned and a whole number of pages: a pinned range must not
     * share a page with another one */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = ((size_t)(n ? n : 1) + pg - 1) / pg * pg;
    char *orig = arena_alloc(len + pg);
    if (!orig) return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of host memory (%lld bytes)", (long long)n);
    char *p = (char *)(((uintptr_t)orig + pg - 1) / pg * pg);
    /* every pinned allocation is mapped: with unified addressing a kernel
     * may use it directly (zero-copy), as cudaHostAllocMapped promises */
    CUdeviceptr dptr = 0;
    r = gpu_client_host_register(c->cs->gc, p, len, 1u /* PORTABLE */ | 2u /* DEVICEMAP */, &dptr);
    if (r) {
        arena_free(orig);
        return call_done(c, r);
    }
    if (!interp_buffer_new(interp_of(c), INTERP_PLACE_PINNED, (uint64_t)(uintptr_t)p, p, (uint64_t)n, c->name)) {
        gpu_client_host_unregister(c->cs->gc, p);
        arena_free(orig);
        return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "too many buffers");
    }
    cuda_session_t *cs = c->cs;
    ARRAY_GROW(cs->pins, cs->npins, cs->cappins);
    cs->pins[cs->npins++] = (cs_pinned_t){p, orig, len, dptr};
    interp_store_u64(interp_of(c), c->a[0].bits, (uint64_t)(uintptr_t)p);
    return 0;
}

int api_free_host(cs_call_t *c) {
    int r = call_arity(c, 1, 1, "void *ptr");
    if (r) return r;
    const interp_arg_t *a = &c->a[0];
    if (a->bits == 0) return 0;
    cuda_session_t *cs = c->cs;
    for (int i = 0; i < cs->npins; i++)
        if (a->place == INTERP_PLACE_PINNED && cs->pins[i].p == a->host) {
            r = gpu_client_host_unregister(cs->gc, a->host);
            interp_buffer_free(interp_of(c), a->bits, INTERP_PLACE_PINNED);
            arena_free(cs->pins[i].orig);
            cs->pins[i] = cs->pins[--cs->npins];
            return r ? call_done(c, r) : 0;
        }
    return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s is not the start of memory from cudaMallocHost/cudaHostAlloc (it "
                     "is %s)", call_arg_name(a), call_place_name(a->place));
}

/* ---- managed memory around GPU work ---- */

static int push(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t ml) {
    cuda_session_t *cs = ctx;
    int r = gpu_client_memcpy_htod(cs->gc, addr, host, n, 0, false);
    if (r) snprintf(msg, ml, "copying managed memory to the GPU failed (%s)", gpu_client_error_name(r));
    return r; /* the worker's own result: cs_check makes it CUDA's, recovering if the worker died */
}

int cs_managed_before_gpu(cuda_session_t *cs, char *msg, size_t ml) {
    interp_t *in = cs->interp;
    if (!cs->nmanaged || !interp_managed_any(in)) return 0;
    int r = interp_managed_flush(in, push, cs, msg, ml);
    return r ? cs_check(cs, r) : 0;
}

void cs_managed_after_gpu(cuda_session_t *cs, uint64_t addr) {
    cs->unsynced = true;
    if (cs->nmanaged) interp_managed_device_wrote(cs->interp, addr);
}

int cs_managed_fetch(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t ml) {
    cuda_session_t *cs = ctx;
    char why[600];
    if (cs_ready(cs, why, sizeof why)) {
        snprintf(msg, ml, "%s", why);
        return -1;
    }
    /* CUDA asks for cudaDeviceSynchronize before the host reads managed
     * memory a kernel may write; a compiled program would race here, icuda
     * waits (and says so once per cell) */
    if (cs->unsynced && !cs->warned_unsynced && cs->io) {
        io_printf(cs->io, "stderr", "note: managed memory was used on the host while the GPU could still be "
                  "writing it (no cudaDeviceSynchronize() since %s); icuda waited for the GPU first, a compiled "
                  "program would race\n", cs->last_kernel[0] ? cs->last_kernel : "the last GPU work");
        cs->warned_unsynced = true;
    }
    int r = gpu_client_sync_all(cs->gc); /* a GPU with peer access may have written it too */
    if (!r) r = gpu_client_memcpy_dtoh(cs->gc, host, addr, n, 0, false);
    if (r) {
        int code = cs_check(cs, r);
        snprintf(msg, ml, "%s%s%s", cuda_error_string(code), cs->recovery_note[0] ? ". " : "", cs->recovery_note);
        return -1;
    }
    cs->unsynced = false;
    return 0;
}

int cs_read_device(void *ctx, uint64_t addr, void *dst, uint64_t n) {
    cuda_session_t *cs = ctx;
    char why[600];
    if (cs_ready(cs, why, sizeof why) || !gpu_client_buffer(cs->gc, addr, NULL, NULL, NULL)) return -1;
    return gpu_client_memcpy_dtoh(cs->gc, dst, addr, n, 0, false) ? -1 : 0;
}

void cs_managed_restored(cuda_session_t *cs) {
    for (int i = 0; i < cs->nmanaged; i++) interp_managed_synced(cs->interp, cs->managed[i].addr);
}

/* ---- copies and memsets ---- */

static const char *kind_name(int k) {
    static const char *n[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                              "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
    return k >= 0 && k <= 4 ? n[k] : "?";
}

/* An address no allocation of the cell made may still be device memory:
 * a __device__ variable's, or what a native C++ cell allocated in the
 * worker. The copy is the driver's to refuse (an invalid address is an
 * error, not a fault); a known buffer is checked for room first. */
static int known(cs_call_t *c, int i, uint64_t n) {
    const interp_arg_t *a = &c->a[i];
    if (a->place != INTERP_PLACE_UNKNOWN) return 0;
    CUdeviceptr base;
    size_t size;
    if (gpu_client_buffer(c->cs->gc, a->device, &base, &size, NULL) && n > size - (a->device - base))
        return call_misuse(c, "%s is address 0x%llx, with %llu bytes to the end of its buffer, fewer than %llu",
                           call_arg_name(a), (unsigned long long)a->device,
                           (unsigned long long)(size - (a->device - base)), (unsigned long long)n);
    return 0;
}

static bool device_side(int place) {
    return place == INTERP_PLACE_DEVICE || place == INTERP_PLACE_MANAGED || place == INTERP_PLACE_UNKNOWN;
}

int call_check_kind(cs_call_t *c, int di, int si, int kind) {
    const interp_arg_t *d = &c->a[di], *s = &c->a[si];
    if (kind < 0 || kind > 4)
        return call_fail(c, CUDA_ERR_INVALID_MEMCPY_DIRECTION, "%d is not a cudaMemcpyKind", kind);
    /* managed memory is on both sides; everything else on one */
    bool dd = device_side(d->place), sd = device_side(s->place);
    bool dm = d->place == INTERP_PLACE_MANAGED, sm = s->place == INTERP_PLACE_MANAGED;
    if (kind != 4) {
        bool want_d = kind == 1 || kind == 3, want_s = kind == 2 || kind == 3;
        if ((dd != want_d && !dm) || (sd != want_s && !sm)) {
            const interp_arg_t *bad = dd != want_d && !dm ? d : s;
            return call_misuse(c, "%s, but %s (the %s) is %s%s", kind_name(kind), call_arg_name(bad),
                               bad == d ? "destination" : "source", call_place_name(bad->place),
                               dd == want_s && sd == want_d && dd != sd ? ": are destination and source swapped? "
                               "cudaMemcpy(dst, src, bytes, kind)" : "");
        }
    }
    return 0;
}

static int copy(cs_call_t *c, int di, int si, uint64_t n, int kind, gpu_handle_t stream, bool async) {
    const interp_arg_t *d = &c->a[di], *s = &c->a[si];
    int r;
    if (d->place != INTERP_PLACE_UNKNOWN && (r = call_fits(c, di, n, "into"))) return r;
    if (s->place != INTERP_PLACE_UNKNOWN && (r = call_fits(c, si, n, "from"))) return r;
    if ((r = call_check_kind(c, di, si, kind))) return r;
    bool dd = device_side(d->place), sd = device_side(s->place);
    bool dm = d->place == INTERP_PLACE_MANAGED, sm = s->place == INTERP_PLACE_MANAGED;
    if ((r = known(c, di, n)) || (r = known(c, si, n))) return r;
    if (n == 0) return 0;
    if (!dd && !sd) {
        memmove(d->host, s->host, n);
        return 0;
    }
    if ((r = call_ready(c))) return r;
    cuda_session_t *cs = c->cs;
    if ((dm || sm) && (r = cs_managed_before_gpu(cs, c->msg, c->ml))) return r;
    gpu_client_t *g = cs->gc;
    cs->work_count++;
    if (dd && sd) r = gpu_client_memcpy_dtod(g, d->device, s->device, n, stream, async);
    else if (dd) r = gpu_client_memcpy_htod(g, d->device, s->host, n, stream, async);
    else r = gpu_client_memcpy_dtoh(g, d->host, s->device, n, stream, async);
    if (dm) cs_managed_after_gpu(cs, d->base);
    else if (async) cs->unsynced = true;
    if (!r && !async) r = cs_mvars_sync_point(cs); /* a blocking copy: the host may look now */
    return call_done(c, r);
}

int api_memcpy(cs_call_t *c, bool async) {
    int r = async ? call_arity(c, 4, 5, "void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream")
                  : call_arity(c, 4, 4, "void *dst, const void *src, size_t count, cudaMemcpyKind kind");
    if (r) return r;
    int64_t n = call_ival(&c->a[2]);
    if (n < 0) return call_misuse(c, "a negative byte count (%lld)", (long long)n);
    gpu_handle_t s;
    if ((r = call_stream_arg(c, 4, &s))) return r;
    return copy(c, 0, 1, (uint64_t)n, (int)call_ival(&c->a[3]), s, async);
}

int api_memset(cs_call_t *c, bool async) {
    int r = async ? call_arity(c, 3, 4, "void *devPtr, int value, size_t count, cudaStream_t stream")
                  : call_arity(c, 3, 3, "void *devPtr, int value, size_t count");
    if (r) return r;
    int64_t n = call_ival(&c->a[2]);
    if (n < 0) return call_misuse(c, "a negative byte count (%lld)", (long long)n);
    const interp_arg_t *a = &c->a[0];
    if ((r = call_fits(c, 0, (uint64_t)n, "into"))) return r;
    if (a->place != INTERP_PLACE_DEVICE && a->place != INTERP_PLACE_MANAGED && a->place != INTERP_PLACE_UNKNOWN)
        return call_misuse(c, "%s is %s; cudaMemset fills device memory (use memset on the host)", call_arg_name(a),
                           call_place_name(a->place));
    if ((r = known(c, 0, (uint64_t)n))) return r;
    gpu_handle_t s;
    if ((r = call_stream_arg(c, 3, &s))) return r;
    if ((r = call_ready(c))) return r;
    cuda_session_t *cs = c->cs;
    bool managed = a->place == INTERP_PLACE_MANAGED;
    if (managed && (r = cs_managed_before_gpu(cs, c->msg, c->ml))) return r;
    cs->work_count++;
    r = gpu_client_memset(cs->gc, a->device, (int)call_ival(&c->a[1]) & 0xff, (size_t)n, s, async);
    if (managed) cs_managed_after_gpu(cs, a->base);
    return call_done(c, r);
}

/* ---- unified addressing ---- */

int api_host_get_device_pointer(cs_call_t *c) {
    int r = call_arity(c, 2, 3, "void **pDevice, void *pHost, unsigned int flags");
    if (r) return r;
    if (!call_out_arg(c, 0, 8, "a pointer")) return CUDA_ERR_INVALID_VALUE;
    const interp_arg_t *h = &c->a[1];
    if (c->n > 2 && call_ival(&c->a[2]) != 0) return call_misuse(c, "flags must be 0");
    if (h->place == INTERP_PLACE_HOST && h->host && c->cs->gc &&
        gpu_client_host_is_registered(c->cs->gc, h->host, 1))
        return cs_forward(c); /* cudaHostRegister'd memory: the runtime knows its device address */
    if (h->place != INTERP_PLACE_PINNED)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s is %s, not pinned memory from cudaMallocHost/cudaHostAlloc "
                         "or memory registered with cudaHostRegister", call_arg_name(h), call_place_name(h->place));
    interp_store_u64(interp_of(c), c->a[0].bits, h->device);
    return 0;
}

int api_pointer_attributes(cs_call_t *c) {
    int r = call_arity(c, 2, 2, "cudaPointerAttributes *attributes, const void *ptr");
    if (r) return r;
    struct {
        int type, device;
        uint64_t device_pointer, host_pointer;
        long reserved[8];
    } *o = call_out_arg(c, 0, 88, "a cudaPointerAttributes");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    const interp_arg_t *a = &c->a[1];
    memset(o, 0, 88);
    o->device = -2; /* cudaInvalidDeviceId */
    CUdeviceptr base;
    size_t size;
    int dev = 0;
    switch (a->place) {
    case INTERP_PLACE_DEVICE:
    case INTERP_PLACE_MANAGED:
        o->type = a->place == INTERP_PLACE_DEVICE ? 2 : 3;
        if (gpu_client_buffer(c->cs->gc, a->device, &base, &size, &dev)) o->device = dev;
        o->device_pointer = a->device;
        if (a->place == INTERP_PLACE_MANAGED) o->host_pointer = a->device;
        return 0;
    case INTERP_PLACE_PINNED:
        o->type = 1;
        o->device = gpu_client_get_device(c->cs->gc);
        o->device_pointer = a->device;
        o->host_pointer = a->device;
        return 0;
    case INTERP_PLACE_UNKNOWN:
        if (gpu_client_buffer(c->cs->gc, a->device, &base, &size, &dev)) { /* a __device__ variable */
            o->type = 2;
            o->device = dev;
            o->device_pointer = a->device;
            return 0;
        }
        o->type = 0; /* memory CUDA does not know is "unregistered" */
        o->host_pointer = a->bits;
        return 0;
    default:
        o->type = 0;
        o->host_pointer = a->bits;
        return 0;
    }
}

/* The managed buffer behind argument 0 for prefetch and advice. */
static int managed_arg(cs_call_t *c, int64_t count) {
    const interp_arg_t *a = &c->a[0];
    if (a->place != INTERP_PLACE_MANAGED)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s is %s, not managed memory from cudaMallocManaged",
                         call_arg_name(a), call_place_name(a->place));
    if (count < 0 || (uint64_t)count > a->avail)
        return call_misuse(c, "%lld bytes from %s, which has %llu from there to the end of its buffer",
                           (long long)count, call_arg_name(a), (unsigned long long)a->avail);
    return 0;
}

/* A location: struct cudaMemLocation {type, id} (CUDA 13), or a device
 * number as before CUDA 13 (cudaCpuDeviceId, -1, for the host). */
static int location_arg(const interp_arg_t *a) {
    if (a->aggr && a->size == 8) {
        int t, id;
        memcpy(&t, a->aggr, 4);
        memcpy(&id, (const char *)a->aggr + 4, 4);
        return t == 1 ? id : -1;
    }
    return (int)call_ival(a);
}

int api_mem_prefetch(cs_call_t *c) {
    int r = call_arity(c, 3, 5, "const void *devPtr, size_t count, struct cudaMemLocation location, unsigned int "
                       "flags, cudaStream_t stream");
    if (r) return r;
    if ((r = managed_arg(c, call_ival(&c->a[1])))) return r;
    int where = location_arg(&c->a[2]);
    if ((r = call_ready(c))) return r;
    cuda_session_t *cs = c->cs;
    if (where >= 0) return cs_managed_before_gpu(cs, c->msg, c->ml); /* the device's copy is the one to use */
    /* to the host: read it now, so the host's first touch costs nothing */
    cs_managed_t *m = cs_managed_find(cs, c->a[0].base);
    char why[600] = "";
    if (m && (r = cs_managed_before_gpu(cs, c->msg, c->ml))) return r;
    if (m && cs_managed_fetch(cs, m->addr, m->host, m->n, why, sizeof why) < 0)
        return call_fail(c, CUDA_ERR_UNKNOWN, "%s", why);
    if (m) interp_managed_synced(cs->interp, m->addr);
    return 0;
}

int api_mem_advise(cs_call_t *c) {
    int r = call_arity(c, 4, 4, "const void *devPtr, size_t count, cudaMemoryAdvise advice, struct cudaMemLocation "
                       "location");
    if (r) return r;
    if ((r = managed_arg(c, call_ival(&c->a[1])))) return r;
    int64_t advice = call_ival(&c->a[2]);
    if (advice < 1 || advice > 6) return call_misuse(c, "%lld is not a cudaMemoryAdvise", (long long)advice);
    return 0; /* accepted: icuda moves whole buffers at launch and first touch, which no advice changes */
}

/* cudaStreamAttachMemAsync(stream, devPtr, length, flags): checked and
 * accepted, as advice is: icuda's managed memory moves whole buffers at
 * launches and first touches, which no attachment changes. */
int api_stream_attach_mem(cs_call_t *c) {
    int r = call_arity(c, 2, 4, "cudaStream_t stream, void *devPtr, size_t length, unsigned int flags");
    if (r) return r;
    gpu_handle_t s;
    if ((r = call_stream_arg(c, 0, &s))) return r;
    const interp_arg_t *a = &c->a[1];
    if (a->place != INTERP_PLACE_MANAGED)
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s is %s, not managed memory from cudaMallocManaged",
                         call_arg_name(a), call_place_name(a->place));
    int64_t n = c->n > 2 ? call_ival(&c->a[2]) : 0, flags = c->n > 3 ? call_ival(&c->a[3]) : 4;
    if (n < 0 || (uint64_t)n > a->avail) return call_misuse(c, "a length of %lld bytes", (long long)n);
    if (flags != 1 && flags != 2 && flags != 4)
        return call_misuse(c, "flags must be cudaMemAttachGlobal, cudaMemAttachHost or cudaMemAttachSingle");
    return 0;
}
