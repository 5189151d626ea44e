/* The CUDA runtime API in host cells (DESIGN §2, §4): each call by CUDA's
 * name, with CUDA's semantics and cudaError_t codes, carried out by the
 * worker. Arguments are checked first — out-arguments, directions, and every
 * size against the buffers it touches — so a mistake is a message naming the
 * variable, never a corrupted buffer. A failing call used as a statement is
 * an error of the cell (except cudaGetLastError/cudaPeekAtLastError, and
 * cudaErrorNotReady, which is an answer, not a failure). */
#include "cuda_internal.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/hostmem/arena.h"

/* One call in progress. */
typedef struct {
    cuda_session_t *cs;
    const char *name;
    const interp_arg_t *a;
    int n;
    char *msg;
    size_t ml;
    bool hard;   /* a misuse caught before the GPU: raised even when the result is kept */
} call_t;

/* Sets a hard error (cudaErrorInvalidValue and a message). */
__attribute__((format(printf, 2, 3))) static int misuse(call_t *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(c->msg, c->ml, "%s: ", c->name);
    if (k > 0 && (size_t)k < c->ml) vsnprintf(c->msg + k, c->ml - (size_t)k, fmt, ap);
    va_end(ap);
    c->hard = true;
    return CUDA_ERR_INVALID_VALUE;
}

/* A failure with CUDA's code and an explanation. */
__attribute__((format(printf, 3, 4))) static int fail(call_t *c, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(c->msg, c->ml, "%s: ", c->name);
    if (k > 0 && (size_t)k < c->ml) vsnprintf(c->msg + k, c->ml - (size_t)k, fmt, ap);
    va_end(ap);
    return code;
}

static const char *arg_name(const interp_arg_t *a) { return a->expr && a->expr[0] ? a->expr : "the argument"; }

static int64_t ival(const interp_arg_t *a) { return a->is_float ? (int64_t)a->d : (int64_t)a->bits; }

static const char *place_name(int place) {
    return place == INTERP_PLACE_DEVICE ? "device memory" : place == INTERP_PLACE_PINNED ? "pinned host memory"
         : place == INTERP_PLACE_HOST ? "host memory" : "not a live pointer";
}

/* The host address behind out-argument i, with room for need bytes. */
static void *out_arg(call_t *c, int i, size_t need, const char *what) {
    const interp_arg_t *a = &c->a[i];
    if (!a->is_pointer) {
        misuse(c, "argument %d (%s) must be a pointer to %s, e.g. &%s", i + 1, arg_name(a), what, what);
        return NULL;
    }
    if (a->place != INTERP_PLACE_HOST && a->place != INTERP_PLACE_PINNED) {
        misuse(c, "argument %d (%s) must point to a host variable to receive %s (it is %s)", i + 1, arg_name(a),
               what, a->bits ? place_name(a->place) : "NULL");
        return NULL;
    }
    if (a->avail < need) {
        misuse(c, "argument %d (%s) points to %llu bytes, but %s needs %zu", i + 1, arg_name(a),
               (unsigned long long)a->avail, what, need);
        return NULL;
    }
    return a->host;
}

static int arity(call_t *c, int lo, int hi, const char *params) {
    if (c->n >= lo && c->n <= hi) return 0;
    c->hard = true;
    snprintf(c->msg, c->ml, "%s takes %s%d argument%s (%s), not %d", c->name, lo == hi ? "" : "at least ", lo,
             lo == 1 ? "" : "s", params, c->n);
    return CUDA_ERR_INVALID_VALUE;
}

/* The worker, or the reason there is none. */
static int ready(call_t *c) {
    char why[600];
    int r = cs_ready(c->cs, why, sizeof why);
    if (r) fail(c, r, "%s", why);
    return r;
}

/* A worker call's result: the async error of earlier work if this call
 * succeeded (CUDA reports it at the next call), recovery after a fault. */
static int done(call_t *c, int r) {
    cuda_session_t *cs = c->cs;
    if (!r) {
        uint32_t seq;
        int op;
        r = gpu_client_take_async_error(cs->gc, &seq, &op);
        if (!r) return 0;
    }
    if (r == GPU_ERR_INTERRUPTED) {
        cs_check(cs, r);
        c->hard = true;
        snprintf(c->msg, c->ml, "interrupted while the GPU ran %s; the worker was stopped. %s",
                 cs->last_kernel[0] ? cs->last_kernel : "its work", cs->recovery_note);
        return -2; /* KeyboardInterrupt */
    }
    int code = cs_check(cs, r);
    char kern[300] = "";
    if (cs->recovery_note[0] && cs->last_kernel[0]) snprintf(kern, sizeof kern, " (in kernel %s)", cs->last_kernel);
    fail(c, code, "%s%s%s%s", cuda_error_string(code), kern, cs->recovery_note[0] ? ". " : "", cs->recovery_note);
    return code;
}

static gpu_handle_t handle_of(uint64_t v) { return v >= CS_HANDLE_BASE ? (gpu_handle_t)(v - CS_HANDLE_BASE) : 0; }

static int stream_arg(call_t *c, int i, gpu_handle_t *s) {
    *s = 0;
    if (i >= c->n) return 0;
    uint64_t v = c->a[i].bits;
    if (v <= 2) return 0; /* 0, cudaStreamLegacy, cudaStreamPerThread: the default stream */
    if (v < CS_HANDLE_BASE) return fail(c, CUDA_ERR_INVALID_RESOURCE_HANDLE, "%s is not a stream", arg_name(&c->a[i]));
    *s = handle_of(v);
    return 0;
}

/* ---- memory ---- */

static int api_malloc(call_t *c) {
    int r = arity(c, 2, 2, "void **devPtr, size_t size");
    if (r) return r;
    uint64_t *out = out_arg(c, 0, 8, "a pointer");
    if (!out) return CUDA_ERR_INVALID_VALUE;
    int64_t n = ival(&c->a[1]);
    if (n < 0) return misuse(c, "a negative size (%lld bytes)", (long long)n);
    if ((r = ready(c))) return r;
    if (n == 0) return interp_store_u64(c->cs->e->interp, c->a[0].bits, 0), 0;
    CUdeviceptr p = 0;
    r = gpu_client_malloc(c->cs->gc, &p, (size_t)n);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        size_t fr = 0, tot = 0;
        gpu_client_mem_info(c->cs->gc, &fr, &tot);
        char b1[32], b2[32], b3[32];
        return fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of memory: %s asked for, %s free of %s on the GPU",
                    cs_bytes(b1, sizeof b1, (uint64_t)n), cs_bytes(b2, sizeof b2, fr), cs_bytes(b3, sizeof b3, tot));
    }
    if (r) return done(c, r);
    uint64_t w = interp_buffer_new(c->cs->e->interp, INTERP_PLACE_DEVICE, p, (uint64_t)n, "cudaMalloc");
    if (!w) {
        gpu_client_free_mem(c->cs->gc, p);
        return fail(c, CUDA_ERR_MEMORY_ALLOCATION, "too many buffers");
    }
    interp_store_u64(c->cs->e->interp, c->a[0].bits, w);
    return done(c, 0);
}

static int api_free(call_t *c) {
    int r = arity(c, 1, 1, "void *devPtr");
    if (r) return r;
    const interp_arg_t *a = &c->a[0];
    if (a->bits == 0) return 0; /* cudaFree(NULL) does nothing */
    if (a->place != INTERP_PLACE_DEVICE)
        return fail(c, CUDA_ERR_INVALID_VALUE, "%s is %s%s", arg_name(a), place_name(a->place),
                    a->place == INTERP_PLACE_NONE ? " (freed already?)" : a->place == INTERP_PLACE_PINNED
                    ? "; free it with cudaFreeHost" : "; free it with free()");
    CUdeviceptr base;
    size_t size;
    int dev;
    if (!gpu_client_buffer(c->cs->gc, a->device, &base, &size, &dev) || base != a->device)
        return fail(c, CUDA_ERR_INVALID_VALUE, "%s points inside a device buffer, not to its start", arg_name(a));
    if ((r = ready(c))) return r;
    r = gpu_client_free_mem(c->cs->gc, a->device);
    interp_buffer_free(c->cs->e->interp, a->bits, INTERP_PLACE_DEVICE);
    return done(c, r);
}

static int api_malloc_host(call_t *c, bool flags) {
    int r = flags ? arity(c, 3, 3, "void **pHost, size_t size, unsigned int flags") : arity(c, 2, 2, "void **ptr, size_t size");
    if (r) return r;
    if (!out_arg(c, 0, 8, "a pointer")) return CUDA_ERR_INVALID_VALUE;
    int64_t n = ival(&c->a[1]);
    if (n < 0) return misuse(c, "a negative size (%lld bytes)", (long long)n);
    if ((r = ready(c))) return r;
    /* page-aligned and a whole number of pages: a pinned range must not
     * share a page with another one */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = ((size_t)(n ? n : 1) + pg - 1) / pg * pg;
    char *orig = arena_alloc(len + pg);
    if (!orig) return fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of host memory (%lld bytes)", (long long)n);
    char *p = (char *)(((uintptr_t)orig + pg - 1) / pg * pg);
    r = gpu_client_host_register(c->cs->gc, p, len, 1u /* PORTABLE */);
    if (r) {
        arena_free(orig);
        return done(c, r);
    }
    uint64_t w = interp_buffer_new(c->cs->e->interp, INTERP_PLACE_PINNED, (uint64_t)(uintptr_t)p, (uint64_t)n,
                                   c->name);
    if (!w) {
        gpu_client_host_unregister(c->cs->gc, p);
        arena_free(orig);
        return fail(c, CUDA_ERR_MEMORY_ALLOCATION, "too many buffers");
    }
    cuda_session_t *cs = c->cs;
    if (cs->npins == cs->cappins) {
        cs->cappins = cs->cappins ? 2 * cs->cappins : 16;
        cs->pins = realloc(cs->pins, (size_t)cs->cappins * sizeof *cs->pins);
        if (!cs->pins) abort();
    }
    cs->pins[cs->npins++] = (cs_pinned_t){p, orig, len};
    interp_store_u64(cs->e->interp, c->a[0].bits, w);
    return 0;
}

static int api_free_host(call_t *c) {
    int r = arity(c, 1, 1, "void *ptr");
    if (r) return r;
    const interp_arg_t *a = &c->a[0];
    if (a->bits == 0) return 0;
    cuda_session_t *cs = c->cs;
    for (int i = 0; i < cs->npins; i++)
        if (a->place == INTERP_PLACE_PINNED && cs->pins[i].p == a->host) {
            r = gpu_client_host_unregister(cs->gc, a->host);
            interp_buffer_free(cs->e->interp, a->bits, INTERP_PLACE_PINNED);
            arena_free(cs->pins[i].orig);
            cs->pins[i] = cs->pins[--cs->npins];
            return r ? done(c, r) : 0;
        }
    return fail(c, CUDA_ERR_INVALID_VALUE, "%s is not memory from cudaMallocHost/cudaHostAlloc (it is %s)",
                arg_name(a), place_name(a->place));
}

/* Checks that n bytes fit at a pointer argument; which: "into"/"from". */
static int fits(call_t *c, int i, uint64_t n, const char *which) {
    const interp_arg_t *a = &c->a[i];
    if (!a->is_pointer) return misuse(c, "argument %d (%s) must be a pointer", i + 1, arg_name(a));
    if (a->place == INTERP_PLACE_NONE)
        return misuse(c, "%s is %s", arg_name(a), a->bits ? "not a live pointer (freed already?)" : "NULL");
    if (n > a->avail) {
        char b1[32], b2[32];
        return misuse(c, "%s %s %s %s: %s %s only %s from there to the end of its buffer (%s)",
                      which[0] == 'i' ? "writing" : "reading", cs_bytes(b1, sizeof b1, n), which, arg_name(a),
                      arg_name(a), a->place == INTERP_PLACE_DEVICE ? "has" : "has", cs_bytes(b2, sizeof b2, a->avail),
                      place_name(a->place));
    }
    return 0;
}

static const char *kind_name(int k) {
    static const char *n[] = {"cudaMemcpyHostToHost", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
                              "cudaMemcpyDeviceToDevice", "cudaMemcpyDefault"};
    return k >= 0 && k <= 4 ? n[k] : "?";
}

static int copy(call_t *c, int di, int si, uint64_t n, int kind, gpu_handle_t stream, bool async) {
    const interp_arg_t *d = &c->a[di], *s = &c->a[si];
    int r;
    if ((r = fits(c, di, n, "into")) || (r = fits(c, si, n, "from"))) return r;
    bool dd = d->place == INTERP_PLACE_DEVICE, sd = s->place == INTERP_PLACE_DEVICE;
    if (kind < 0 || kind > 4) return fail(c, CUDA_ERR_INVALID_MEMCPY_DIRECTION, "%d is not a cudaMemcpyKind", kind);
    if (kind == 4) kind = dd ? (sd ? 3 : 1) : (sd ? 2 : 0);
    bool want_d = kind == 1 || kind == 3, want_s = kind == 2 || kind == 3;
    if (dd != want_d || sd != want_s) {
        const interp_arg_t *bad = dd != want_d ? d : s;
        return misuse(c, "%s, but %s (the %s) is %s%s", kind_name(kind), arg_name(bad),
                      bad == d ? "destination" : "source", place_name(bad->place),
                      dd == want_s && sd == want_d && dd != sd ? ": are destination and source swapped? "
                      "cudaMemcpy(dst, src, bytes, kind)" : "");
    }
    if (n == 0) return 0;
    if (kind == 0) {
        memmove(d->host, s->host, n);
        return 0;
    }
    if ((r = ready(c))) return r;
    gpu_client_t *g = c->cs->gc;
    c->cs->work_count++;
    if (kind == 1) r = gpu_client_memcpy_htod(g, d->device, s->host, n, stream, async);
    else if (kind == 2) r = gpu_client_memcpy_dtoh(g, d->host, s->device, n, stream, async);
    else r = gpu_client_memcpy_dtod(g, d->device, s->device, n, stream, async);
    return done(c, r);
}

static int api_memcpy(call_t *c, bool async) {
    int r = async ? arity(c, 4, 5, "void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream")
                  : arity(c, 4, 4, "void *dst, const void *src, size_t count, cudaMemcpyKind kind");
    if (r) return r;
    int64_t n = ival(&c->a[2]);
    if (n < 0) return misuse(c, "a negative byte count (%lld)", (long long)n);
    gpu_handle_t s;
    if ((r = stream_arg(c, 4, &s))) return r;
    return copy(c, 0, 1, (uint64_t)n, (int)ival(&c->a[3]), s, async);
}

static int api_memset(call_t *c, bool async) {
    int r = async ? arity(c, 3, 4, "void *devPtr, int value, size_t count, cudaStream_t stream")
                  : arity(c, 3, 3, "void *devPtr, int value, size_t count");
    if (r) return r;
    int64_t n = ival(&c->a[2]);
    if (n < 0) return misuse(c, "a negative byte count (%lld)", (long long)n);
    if ((r = fits(c, 0, (uint64_t)n, "into"))) return r;
    if (c->a[0].place != INTERP_PLACE_DEVICE)
        return misuse(c, "%s is %s; cudaMemset fills device memory (use memset on the host)", arg_name(&c->a[0]),
                      place_name(c->a[0].place));
    gpu_handle_t s;
    if ((r = stream_arg(c, 3, &s))) return r;
    if ((r = ready(c))) return r;
    c->cs->work_count++;
    return done(c, gpu_client_memset(c->cs->gc, c->a[0].device, (int)ival(&c->a[1]) & 0xff, (size_t)n, s, async));
}

/* ---- __constant__ / __device__ variables ---- */

typedef struct {
    CUdeviceptr p;
    size_t size;
    const char *hex;
} sym_t;

/* Every loaded-or-loadable module (the kernels' cells) holding the symbol;
 * the kernel launched last comes first. */
static int find_symbol(call_t *c, const char *name, sym_t *out, int cap) {
    cuda_session_t *cs = c->cs;
    engine_t *e = cs->e;
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
    if (cs->nsyms == cs->capsyms) {
        cs->capsyms = cs->capsyms ? 2 * cs->capsyms : 8;
        cs->syms = realloc(cs->syms, (size_t)cs->capsyms * sizeof *cs->syms);
        if (!cs->syms) abort();
    }
    void *d = malloc(n ? n : 1);
    if (!d) abort();
    memcpy(d, src, n);
    cs->syms[cs->nsyms++] = (cs_symbol_write_t){strdup(name), off, n, d};
}

static const char *symbol_name(call_t *c, int i) {
    const interp_arg_t *a = &c->a[i];
    if (a->is_pointer && a->host && (a->place == INTERP_PLACE_HOST) && memchr(a->host, 0, a->avail))
        return a->host;
    return NULL;
}

static int api_symbol(call_t *c, bool to) {
    int r = to ? arity(c, 2, 5, "symbol, const void *src, size_t count, size_t offset, cudaMemcpyKind kind")
               : arity(c, 2, 5, "void *dst, symbol, size_t count, size_t offset, cudaMemcpyKind kind");
    if (r) return r;
    int si = to ? 1 : 0, yi = to ? 0 : 1;
    const char *name = symbol_name(c, yi);
    if (!name)
        return misuse(c, "argument %d (%s) must name a __constant__ or __device__ variable of a device cell", yi + 1,
                      arg_name(&c->a[yi]));
    if ((r = ready(c))) return r;
    sym_t found[32];
    int nf = find_symbol(c, name, found, 32);
    if (!nf)
        return fail(c, CUDA_ERR_INVALID_SYMBOL, "no __constant__ or __device__ variable named %s in the device code "
                    "compiled so far (it must be in a cell with a kernel, or before one)", name);
    uint64_t n = c->n > 2 ? (uint64_t)ival(&c->a[2]) : found[0].size;
    uint64_t off = c->n > 3 ? (uint64_t)ival(&c->a[3]) : 0;
    if (off + n > found[0].size) {
        char b1[32], b2[32];
        return misuse(c, "%s %s at offset %llu of %s, a variable of %s", to ? "writing" : "reading",
                      cs_bytes(b1, sizeof b1, n), (unsigned long long)off, name, cs_bytes(b2, sizeof b2, found[0].size));
    }
    if ((r = fits(c, si, n, to ? "from" : "into"))) return r;
    const interp_arg_t *h = &c->a[si];
    c->cs->work_count++;
    if (to) {
        for (int i = 0; i < nf; i++) {
            r = h->place == INTERP_PLACE_DEVICE ? gpu_client_memcpy_dtod(c->cs->gc, found[i].p + off, h->device, n, 0, false)
                                                : gpu_client_memcpy_htod(c->cs->gc, found[i].p + off, h->host, n, 0, false);
            if (r) return done(c, r);
        }
        if (h->place != INTERP_PLACE_DEVICE) remember_symbol_write(c->cs, name, off, h->host, n);
        return done(c, 0);
    }
    r = h->place == INTERP_PLACE_DEVICE ? gpu_client_memcpy_dtod(c->cs->gc, h->device, found[0].p + off, n, 0, false)
                                        : gpu_client_memcpy_dtoh(c->cs->gc, h->host, found[0].p + off, n, 0, false);
    return done(c, r);
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

static int api_sync(call_t *c) {
    int r = arity(c, 0, 0, "");
    if (r || (r = ready(c))) return r;
    return done(c, gpu_client_sync(c->cs->gc));
}

static int api_last_error(call_t *c, bool reset) {
    int r = arity(c, 0, 0, "");
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

static int api_event_create(call_t *c, bool with_flags) {
    int r = with_flags ? arity(c, 2, 2, "cudaEvent_t *event, unsigned int flags") : arity(c, 1, 2, "cudaEvent_t *event");
    if (r) return r;
    if (!out_arg(c, 0, 8, "an event")) return CUDA_ERR_INVALID_VALUE;
    if ((r = ready(c))) return r;
    gpu_handle_t h;
    r = gpu_client_event_create(c->cs->gc, &h, c->n > 1 ? (unsigned)ival(&c->a[1]) : 0);
    if (r) return done(c, r);
    interp_store_u64(c->cs->e->interp, c->a[0].bits, h + CS_HANDLE_BASE);
    return 0;
}

static int handle_arg(call_t *c, int i, gpu_handle_t *h, const char *what) {
    uint64_t v = c->a[i].bits;
    if (v < CS_HANDLE_BASE)
        return fail(c, CUDA_ERR_INVALID_RESOURCE_HANDLE, "%s is not %s (create it with %sCreate first)",
                    arg_name(&c->a[i]), what, what[0] == 'a' && what[1] == 'n' ? "cudaEvent" : "cudaStream");
    *h = handle_of(v);
    return 0;
}

static int api_event(call_t *c, int op) {
    int r;
    gpu_handle_t ev, s;
    gpu_client_t *g = c->cs->gc;
    switch (op) {
    case 'r': /* record */
        if ((r = arity(c, 1, 2, "cudaEvent_t event, cudaStream_t stream")) || (r = handle_arg(c, 0, &ev, "an event")) ||
            (r = stream_arg(c, 1, &s)) || (r = ready(c)))
            return r;
        return done(c, gpu_client_event_record(g, ev, s));
    case 's':
        if ((r = arity(c, 1, 1, "cudaEvent_t event")) || (r = handle_arg(c, 0, &ev, "an event")) || (r = ready(c))) return r;
        return done(c, gpu_client_event_sync(g, ev));
    case 'q':
        if ((r = arity(c, 1, 1, "cudaEvent_t event")) || (r = handle_arg(c, 0, &ev, "an event")) || (r = ready(c))) return r;
        r = gpu_client_event_query(g, ev);
        return r == CUDA_ERROR_NOT_READY ? CUDA_ERR_NOT_READY : done(c, r);
    case 'd':
        if ((r = arity(c, 1, 1, "cudaEvent_t event")) || (r = handle_arg(c, 0, &ev, "an event")) || (r = ready(c))) return r;
        return done(c, gpu_client_event_destroy(g, ev));
    case 'e': { /* elapsed */
        gpu_handle_t e2;
        if ((r = arity(c, 3, 3, "float *ms, cudaEvent_t start, cudaEvent_t end"))) return r;
        float *ms = out_arg(c, 0, sizeof(float), "a float");
        if (!ms) return CUDA_ERR_INVALID_VALUE;
        if ((r = handle_arg(c, 1, &ev, "an event")) || (r = handle_arg(c, 2, &e2, "an event")) || (r = ready(c)))
            return r;
        float v = 0;
        r = gpu_client_event_elapsed(g, &v, ev, e2);
        if (r == CUDA_ERROR_NOT_READY) return CUDA_ERR_NOT_READY;
        if (r) return done(c, r);
        *ms = v;
        return 0;
    }
    }
    return CUDA_ERR_UNKNOWN;
}

static int api_stream(call_t *c, int op) {
    int r;
    gpu_handle_t s;
    gpu_client_t *g = c->cs->gc;
    switch (op) {
    case 'c':
    case 'f':
        if ((r = op == 'f' ? arity(c, 2, 2, "cudaStream_t *stream, unsigned int flags") : arity(c, 1, 1, "cudaStream_t *stream")))
            return r;
        if (!out_arg(c, 0, 8, "a stream")) return CUDA_ERR_INVALID_VALUE;
        if ((r = ready(c))) return r;
        r = gpu_client_stream_create(g, &s, op == 'f' ? (unsigned)ival(&c->a[1]) : 0);
        if (r) return done(c, r);
        interp_store_u64(c->cs->e->interp, c->a[0].bits, s + CS_HANDLE_BASE);
        return 0;
    case 's':
        if ((r = arity(c, 1, 1, "cudaStream_t stream")) || (r = stream_arg(c, 0, &s)) || (r = ready(c))) return r;
        return done(c, s ? gpu_client_stream_sync(g, s) : gpu_client_sync(g));
    case 'q':
        if ((r = arity(c, 1, 1, "cudaStream_t stream")) || (r = stream_arg(c, 0, &s)) || (r = ready(c))) return r;
        r = gpu_client_stream_query(g, s);
        return r == CUDA_ERROR_NOT_READY ? CUDA_ERR_NOT_READY : done(c, r);
    case 'd':
        if ((r = arity(c, 1, 1, "cudaStream_t stream")) || (r = handle_arg(c, 0, &s, "a stream")) || (r = ready(c))) return r;
        return done(c, gpu_client_stream_destroy(g, s));
    }
    return CUDA_ERR_UNKNOWN;
}

/* ---- devices ---- */

/* struct cudaDeviceProp as host cells declare it (runtime/lang/builtins_cuda.c):
 * the same fields in the same order. */
typedef struct {
    char name[256]; char uuid[16]; size_t totalGlobalMem; size_t sharedMemPerBlock; int regsPerBlock;
    int warpSize; size_t memPitch; int maxThreadsPerBlock; int maxThreadsDim[3]; int maxGridSize[3];
    int clockRate; size_t totalConstMem; int major; int minor; size_t textureAlignment; int deviceOverlap;
    int multiProcessorCount; int kernelExecTimeoutEnabled; int integrated; int canMapHostMemory;
    int computeMode; int concurrentKernels; int ECCEnabled; int pciBusID; int pciDeviceID; int pciDomainID;
    int asyncEngineCount; int unifiedAddressing; int memoryClockRate; int memoryBusWidth; int l2CacheSize;
    int persistingL2CacheMaxSize; int maxThreadsPerMultiProcessor; size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor; int managedMemory; int maxBlocksPerMultiProcessor;
    size_t sharedMemPerBlockOptin; int cooperativeLaunch; int concurrentManagedAccess;
} host_device_prop_t;
/* The interpreter lays the prelude's struct out as C does; tests/cuda checks
 * that it reports these same numbers. */
_Static_assert(sizeof(host_device_prop_t) == 472, "cudaDeviceProp layout");
_Static_assert(offsetof(host_device_prop_t, multiProcessorCount) == 364, "cudaDeviceProp layout");
_Static_assert(offsetof(host_device_prop_t, sharedMemPerBlockOptin) == 456, "cudaDeviceProp layout");

static int api_device_props(call_t *c) {
    int r = arity(c, 2, 2, "cudaDeviceProp *prop, int device");
    if (r) return r;
    host_device_prop_t *o = out_arg(c, 0, sizeof *o, "a cudaDeviceProp");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    if ((r = ready(c))) return r;
    int dev = (int)ival(&c->a[1]), n = 0;
    gpu_client_device_count(c->cs->gc, &n);
    if (dev < 0 || dev >= n) return fail(c, CUDA_ERR_INVALID_DEVICE, "device %d does not exist (this machine has %d)", dev, n);
    gpu_props_t p;
    if ((r = gpu_client_device_props(c->cs->gc, dev, &p))) return done(c, r);
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", p.name);
    memcpy(o->uuid, p.uuid, 16);
    o->totalGlobalMem = p.total_mem;
    o->sharedMemPerBlock = (size_t)p.shared_mem_per_block;
    o->regsPerBlock = p.regs_per_block;
    o->warpSize = p.warp_size;
    o->memPitch = (size_t)p.mem_pitch;
    o->maxThreadsPerBlock = p.max_threads_per_block;
    for (int i = 0; i < 3; i++) {
        o->maxThreadsDim[i] = p.max_block_dim[i];
        o->maxGridSize[i] = p.max_grid_dim[i];
    }
    o->clockRate = p.clock_rate_khz;
    o->totalConstMem = (size_t)p.total_const_mem;
    o->major = p.major;
    o->minor = p.minor;
    o->textureAlignment = (size_t)p.texture_alignment;
    o->deviceOverlap = p.async_engine_count > 0;
    o->multiProcessorCount = p.multiprocessor_count;
    o->integrated = p.integrated;
    o->canMapHostMemory = p.can_map_host_memory;
    o->computeMode = p.compute_mode;
    o->concurrentKernels = p.concurrent_kernels;
    o->ECCEnabled = p.ecc_enabled;
    o->pciBusID = p.pci_bus_id;
    o->pciDeviceID = p.pci_device_id;
    o->pciDomainID = p.pci_domain_id;
    o->asyncEngineCount = p.async_engine_count;
    o->unifiedAddressing = p.unified_addressing;
    o->memoryClockRate = p.memory_clock_rate_khz;
    o->memoryBusWidth = p.memory_bus_width;
    o->l2CacheSize = p.l2_cache_size;
    o->persistingL2CacheMaxSize = p.l2_persisting_max;
    o->maxThreadsPerMultiProcessor = p.max_threads_per_multiprocessor;
    o->sharedMemPerMultiprocessor = (size_t)p.shared_mem_per_multiprocessor;
    o->regsPerMultiprocessor = p.regs_per_multiprocessor;
    o->managedMemory = p.managed_memory;
    o->maxBlocksPerMultiProcessor = p.max_blocks_per_multiprocessor;
    o->sharedMemPerBlockOptin = (size_t)p.shared_mem_per_block_optin;
    o->cooperativeLaunch = p.cooperative_launch;
    return 0;
}

static int api_device_count(call_t *c) {
    int r = arity(c, 1, 1, "int *count");
    if (r) return r;
    int *o = out_arg(c, 0, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    *o = 0;
    if ((r = ready(c))) return r;
    return done(c, gpu_client_device_count(c->cs->gc, o));
}

static int api_set_device(call_t *c) {
    int r = arity(c, 1, 1, "int device");
    if (r) return r;
    char why[600];
    r = cuda_session_set_device(c->cs, (int)ival(&c->a[0]), why, sizeof why);
    return r ? fail(c, r, "%s", why) : 0;
}

static int api_get_device(call_t *c) {
    int r = arity(c, 1, 1, "int *device");
    if (r) return r;
    int *o = out_arg(c, 0, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    if ((r = ready(c))) return r;
    *o = gpu_client_get_device(c->cs->gc);
    return 0;
}

static int api_mem_info(call_t *c) {
    int r = arity(c, 2, 2, "size_t *free, size_t *total");
    if (r) return r;
    size_t *f = out_arg(c, 0, 8, "a size_t"), *t = f ? out_arg(c, 1, 8, "a size_t") : NULL;
    if (!t) return CUDA_ERR_INVALID_VALUE;
    if ((r = ready(c))) return r;
    return done(c, gpu_client_mem_info(c->cs->gc, f, t));
}

static int api_versions(call_t *c, bool driver) {
    int r = arity(c, 1, 1, "int *version");
    if (r) return r;
    int *o = out_arg(c, 0, sizeof(int), "an int");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    if (!driver) {
        *o = 13000;
        return 0;
    }
    char why[600];
    *o = 0;
    if (cs_ready(c->cs, why, sizeof why)) return 0; /* CUDA: 0 when no driver is installed */
    *o = gpu_client_driver_version(c->cs->gc);
    return 0;
}

int cs_kernel_function(cuda_session_t *cs, const char *name, cs_kernel_t **k, char *msg, size_t ml);

static int api_occupancy(call_t *c) {
    int r = arity(c, 3, 5, "int *minGridSize, int *blockSize, kernel, size_t dynamicSMemSize, int blockSizeLimit");
    if (r) return r;
    int *mg = out_arg(c, 0, sizeof(int), "an int"), *bs = mg ? out_arg(c, 1, sizeof(int), "an int") : NULL;
    if (!bs) return CUDA_ERR_INVALID_VALUE;
    const char *name = symbol_name(c, 2);
    if (!name) return misuse(c, "argument 3 (%s) must name a kernel", arg_name(&c->a[2]));
    if ((r = ready(c))) return r;
    cs_kernel_t *k;
    char why[600];
    if ((r = cs_kernel_function(c->cs, name, &k, why, sizeof why))) return fail(c, r, "%s", why);
    return done(c, gpu_client_occupancy(c->cs->gc, k->fn, c->n > 3 ? (size_t)ival(&c->a[3]) : 0,
                                        c->n > 4 ? (int)ival(&c->a[4]) : 0, mg, bs));
}

static int api_func_attributes(call_t *c) {
    int r = arity(c, 2, 2, "cudaFuncAttributes *attr, kernel");
    if (r) return r;
    struct {
        size_t shared, konst, local;
        int max_threads, regs, ptx, binary, cache_ca, max_dyn, carveout;
    } *o = out_arg(c, 0, sizeof *o, "a cudaFuncAttributes");
    if (!o) return CUDA_ERR_INVALID_VALUE;
    const char *name = symbol_name(c, 1);
    if (!name) return misuse(c, "argument 2 (%s) must name a kernel", arg_name(&c->a[1]));
    if ((r = ready(c))) return r;
    cs_kernel_t *k;
    char why[600];
    if ((r = cs_kernel_function(c->cs, name, &k, why, sizeof why))) return fail(c, r, "%s", why);
    memset(o, 0, sizeof *o);
    o->shared = (size_t)k->attrs.shared_size_bytes;
    o->konst = (size_t)k->attrs.const_size_bytes;
    o->local = (size_t)k->attrs.local_size_bytes;
    o->max_threads = k->attrs.max_threads_per_block;
    o->regs = k->attrs.num_regs;
    o->ptx = k->attrs.ptx_version;
    o->binary = k->attrs.binary_version;
    o->max_dyn = k->attrs.max_dynamic_shared_size_bytes;
    return 0;
}

/* ---- dispatch ---- */

typedef enum { F_MALLOC, F_FREE, F_MALLOC_HOST, F_HOST_ALLOC, F_FREE_HOST, F_MEMCPY, F_MEMCPY_ASYNC, F_MEMSET,
               F_MEMSET_ASYNC, F_TO_SYMBOL, F_FROM_SYMBOL, F_SYNC, F_RESET, F_LAST, F_PEEK, F_EV_CREATE,
               F_EV_CREATE_FLAGS, F_EV_RECORD, F_EV_SYNC, F_EV_ELAPSED, F_EV_QUERY, F_EV_DESTROY, F_ST_CREATE,
               F_ST_CREATE_FLAGS, F_ST_SYNC, F_ST_QUERY, F_ST_DESTROY, F_DEV_COUNT, F_SET_DEV, F_GET_DEV, F_PROPS,
               F_MEM_INFO, F_OCCUPANCY, F_DRIVER_VERSION, F_RUNTIME_VERSION, F_FUNC_ATTRS } fid_t;

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
    {"cudaFuncGetAttributes", F_FUNC_ATTRS},
};

static int dispatch(call_t *c, fid_t id) {
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
    case F_FUNC_ATTRS: return api_func_attributes(c);
    }
    return CUDA_ERR_UNKNOWN;
}

int cuda_api_call(void *ctx, const char *name, const interp_arg_t *args, int nargs, int discarded, int64_t *ret,
                  char *ename, char *msg, size_t msglen) {
    cuda_session_t *cs = ctx;
    int id = -1;
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++)
        if (!strcmp(api[i].name, name)) id = (int)api[i].id;
    if (id < 0) {
        snprintf(ename, INTERP_ENAME_MAX, "NameError");
        snprintf(msg, msglen, "%s is not a CUDA runtime function icuda knows yet", name);
        return -1;
    }
    call_t c = {cs, name, args, nargs, msg, msglen, false};
    msg[0] = 0;
    int code = dispatch(&c, (fid_t)id);
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
