/* CUDA runtime functions run by the worker's own libcudart (CH_CUDART): the
 * functions of cuda_runtime_api.h that icuda does not implement itself
 * (cuda_api.c and the files it dispatches to) and does not refuse
 * (cuda_rt_policy.c). The generated table (cuda_rt_table.h) says what each
 * parameter is, and each argument is checked and translated before
 * anything is sent:
 *
 *   - numbers are converted to the parameter's type, structs by value (dim3,
 *     cudaExtent, ...) must have the parameter's size;
 *   - cudaStream_t and cudaEvent_t values are icuda's handles: the worker's
 *     CUstream/CUevent go on the wire; other handles (cudaGraph_t, ...) are
 *     the worker's own values and pass as they are;
 *   - device, pinned and managed pointers are real addresses already; a
 *     pointer to the interpreter's host memory becomes the memory's address
 *     in the shared arena, which the worker maps at the same address, or,
 *     for memory outside the arena (a local array, a string literal), an
 *     arena copy that is copied back after the call;
 *   - a pointer to a typed out- or in-parameter (int *, size_t *, struct
 *     cudaDeviceProp *, ...) must point to host memory with room for its
 *     type;
 *   - pointers stored in what a pointer points to (the fields of a struct
 *     cudaMemcpy3DParms, an array of void *) are translated in a copy;
 *   - a function pointer never reaches the worker (it cannot run
 *     interpreted code): those calls are icuda's own or refused.
 *
 * The families whose arguments' extents are known (2-D and 3-D copies and
 * sets) are checked by their own code first (cuda_memory2d.c). */
#include "cuda_call.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/toolkit/cuda_rt_table.h"
#include "runtime/gpu/cuda_driver.h"
#include "runtime/hostmem/arena.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
/* ---- the table ---- */

static const crt_fn_t *sorting; /* the table qsort is sorting (index building is single-threaded) */

static int by_name(const void *a, const void *b) {
    return strcmp(sorting[*(const int *)a].name, sorting[*(const int *)b].name);
}

int crt_lookup(const crt_fn_t *fns, int n, int **index, const char *name) {
    if (!*index) { /* sorted by name, built once: a table is the same for every session */
        int *v = xmalloc(sizeof *v * (size_t)(n ? n : 1));
        for (int i = 0; i < n; i++) v[i] = i;
        sorting = fns;
        qsort(v, (size_t)n, sizeof *v, by_name);
        *index = v;
    }
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2, k = strcmp(fns[(*index)[mid]].name, name);
        if (!k) return (*index)[mid];
        if (k < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

const crt_fn_t *crt_find(const char *name) {
    static int *ix;
    int i = crt_lookup(crt_fns, crt_nfns, &ix, name);
    return i < 0 ? NULL : &crt_fns[i];
}

/* ---- one forwarded call ---- */

typedef struct {
    uint64_t at;   /* offset in the copy */
    uint64_t user; /* the word the cell's memory holds there */
    uint64_t sent; /* what the worker got instead */
} xword_t;

typedef struct {
    const interp_arg_t *a;
    void *tmp;     /* the arena copy the worker uses */
    uint64_t n;
    bool back;     /* copied back after the call */
    xword_t *xw;   /* translated words, put back as they were */
    int nxw, capxw;
} bounce_t;

typedef struct {
    cs_call_t *c;
    const crt_fn_t *f;
    bounce_t b[64];
    int nb;
    bool ready;    /* the worker is up */
    bool managed;  /* an argument is managed memory */
    bool bounced_async;
    const crt_ptrfields_t *pf; /* the table's pointer fields (crt_ptrfields, clib_ptrfields) */
    int lib;       /* 0: the runtime; a CLIB_* library (cuda_libs.c) */
} fwd_t;

static const crt_param_t *param(fwd_t *w, int i) { return &w->f->params[i]; }

static int arg_error(fwd_t *w, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int arg_error(fwd_t *w, int i, const char *fmt, ...) {
    char detail[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return call_misuse(w->c, "argument %d (%s) for %s %s: %s; the function is %s", i + 1, call_arg_name(&w->c->a[i]),
                       param(w, i)->type, param(w, i)->name, detail, w->f->proto);
}

/* Whether host addresses in the arena mean the same in the worker (before
 * a worker is ready, assumed: the call is refused for its absence anyway). */
static bool shared(fwd_t *w) { return !w->ready || gpu_client_arena_shared(w->c->cs->gc); }

/* The worker reads host memory at this process's addresses: where it could
 * not map the arena there, a host pointer would name some other memory of
 * its own, so the call is refused instead of writing there. */
static int unshared_host(fwd_t *w, int i) {
    return arg_error(w, i, "it points to host memory, and this session's GPU worker could not map host memory at the "
                           "kernel's addresses; restart the kernel");
}

/* A word stored in memory the worker reads: a pointer to the interpreter's
 * host memory becomes the memory's arena address; anything else (NULL, a
 * device address, a handle, a number) stays. */
static int xlate_word(fwd_t *w, int i, const char *where, uint64_t *word) {
    uint64_t avail = 0;
    void *h = interp_host_pointer(w->c->cs->interp, *word, &avail);
    if (!h) return 0;
    if (!shared(w) || !arena_contains(h, avail ? avail : 1))
        return arg_error(w, i, "%s holds a pointer to host memory the GPU worker cannot see (a local array?); use "
                         "memory from malloc, cudaMallocHost or a session variable", where);
    *word = (uint64_t)(uintptr_t)h;
    return 0;
}

static bounce_t *bounce(fwd_t *w, int i, const void *from, uint64_t n, bool back) {
    if (w->nb == (int)(sizeof w->b / sizeof w->b[0])) return NULL;
    void *t = arena_alloc(n ? (size_t)n : 1);
    if (!t) return NULL;
    memcpy(t, from, (size_t)n);
    bounce_t *b = &w->b[w->nb++];
    memset(b, 0, sizeof *b);
    b->a = &w->c->a[i];
    b->tmp = t;
    b->n = n;
    b->back = back;
    return b;
}

static int xlate_in_copy(fwd_t *w, int i, bounce_t *b, uint64_t at, const char *where) {
    uint64_t word;
    if (at + 8 > b->n) return 0;
    memcpy(&word, (char *)b->tmp + at, 8);
    uint64_t was = word;
    int r = xlate_word(w, i, where, &word);
    if (r || word == was) return r;
    memcpy((char *)b->tmp + at, &word, 8);
    ARRAY_GROW(b->xw, b->nxw, b->capxw);
    b->xw[b->nxw++] = (xword_t){at, was, word};
    return 0;
}

/* The pointers stored in n bytes of copy b: every word (an array of
 * pointers), or the pointer fields of each struct element. */
static int xlate_copy(fwd_t *w, int i, bounce_t *b, const crt_param_t *p) {
    int r = 0;
    char where[96];
    if (p->pointee == CRT_PT_DATAPTR) {
        for (uint64_t at = 0; !r && at + 8 <= b->n; at += 8) {
            snprintf(where, sizeof where, "element %llu", (unsigned long long)(at / 8));
            r = xlate_in_copy(w, i, b, at, where);
        }
        return r;
    }
    const crt_ptrfields_t *pf = p->fields >= 0 ? &w->pf[p->fields] : NULL;
    uint64_t es = p->pointee_size ? p->pointee_size : b->n;
    for (uint64_t e = 0; pf && !r && e + es <= b->n; e += es)
        for (int k = 0; k < pf->n && !r; k++) {
            snprintf(where, sizeof where, "a pointer field (at byte %u) of element %llu", pf->off[k],
                     (unsigned long long)(e / es));
            r = xlate_in_copy(w, i, b, e + pf->off[k], where);
        }
    return r;
}

static int64_t ival_of(const interp_arg_t *a) { return a->is_float ? (int64_t)a->d : (int64_t)a->bits; }

static int put_number(fwd_t *w, int i, unsigned char *slot) {
    const interp_arg_t *a = &w->c->a[i];
    const crt_param_t *p = param(w, i);
    if (a->is_pointer && a->bits && a->place != INTERP_PLACE_NONE)
        return arg_error(w, i, "it is a pointer, and this parameter takes a number");
    if (a->aggr) return arg_error(w, i, "it is a struct, and this parameter takes a number");
    if (p->kind == CRT_FLOAT) {
        float v = a->is_float ? (float)a->d : (float)(int64_t)a->bits;
        memcpy(slot, &v, 4);
    } else if (p->kind == CRT_DOUBLE) {
        double v = a->is_float ? a->d : (double)(int64_t)a->bits;
        memcpy(slot, &v, 8);
    } else {
        int64_t v = ival_of(a);
        bool neg = a->is_float ? a->d < 0 : (v < 0 && a->type && !strstr(a->type, "unsigned") && a->size >= 4 &&
                                            !a->is_pointer && strcmp(a->type, "size_t"));
        if (p->kind == CRT_UINT && neg) return arg_error(w, i, "a negative value (%lld)", (long long)v);
        memcpy(slot, &v, p->size <= 8 ? p->size : 8);
    }
    return 0;
}

int cuda_session_raw_handle(const cuda_session_t *cs, bool stream, uint64_t v, uint64_t *raw) {
    *raw = 0;
    if (stream && v <= 2) return 0; /* the default stream (cudaStreamLegacy, cudaStreamPerThread: icuda's one thread) */
    if (v >= CS_HANDLE_BASE && v < (1u << 20)) {
        int r = !cs->gc ? -1 : stream ? gpu_client_stream_raw(cs->gc, call_handle_of(v), raw)
                                      : gpu_client_event_raw(cs->gc, call_handle_of(v), raw);
        return r ? 1 : 0;
    }
    if (v >= (1u << 20)) { /* one a forwarded call returned */
        *raw = v;
        return 0;
    }
    return 2;
}

/* icuda's stream or event handle, or a worker value a call returned. */
static int put_handle_of(fwd_t *w, int i, bool stream, unsigned char *slot) {
    const interp_arg_t *a = &w->c->a[i];
    uint64_t raw = 0;
    if (interp_host_pointer(w->c->cs->interp, a->bits, NULL))
        return arg_error(w, i, "it points to host memory, not %s", stream ? "a stream" : "an event");
    int r = cuda_session_raw_handle(w->c->cs, stream, a->bits, &raw);
    if (r == 1)
        return call_fail(w->c, CUDA_ERR_INVALID_RESOURCE_HANDLE, "%s is not a live %s (destroyed already?)",
                         call_arg_name(a), stream ? "stream" : "event");
    if (r == 2)
        return call_fail(w->c, CUDA_ERR_INVALID_RESOURCE_HANDLE, "%s is not %s (create it with %s first)",
                         call_arg_name(a), stream ? "a stream" : "an event", stream ? "cudaStreamCreate" : "cudaEventCreate");
    memcpy(slot, &raw, 8);
    return 0;
}

static int put_struct(fwd_t *w, int i, unsigned char *slot) {
    const interp_arg_t *a = &w->c->a[i];
    const crt_param_t *p = param(w, i);
    if (!a->aggr || a->size != p->size)
        return arg_error(w, i, "this parameter takes a %s by value (%u bytes)%s", p->type, (unsigned)p->size,
                         a->aggr ? ", and the argument is another struct" : "");
    memcpy(slot, a->aggr, p->size);
    const crt_ptrfields_t *pf = p->fields >= 0 ? &w->pf[p->fields] : NULL;
    for (int k = 0; pf && k < pf->n; k++) {
        uint64_t word;
        memcpy(&word, slot + pf->off[k], 8);
        char where[64];
        snprintf(where, sizeof where, "the pointer field at byte %u", pf->off[k]);
        int r = xlate_word(w, i, where, &word);
        if (r) return r;
        memcpy(slot + pf->off[k], &word, 8);
    }
    return 0;
}

static const char *place_words(int place) {
    switch (place) {
    case INTERP_PLACE_DEVICE: return "device memory";
    case INTERP_PLACE_UNKNOWN: return "an address no allocation of this session made";
    }
    return "not a live pointer (freed already?)";
}

static int put_pointer(fwd_t *w, int i, unsigned char *slot) {
    const interp_arg_t *a = &w->c->a[i];
    const crt_param_t *p = param(w, i);
    uint64_t out = 0;
    if (!a->is_pointer) {
        if (a->bits || a->is_float || a->aggr) return arg_error(w, i, "this parameter takes a pointer");
        memcpy(slot, &out, 8); /* 0: NULL */
        return 0;
    }
    if (!a->bits) {
        memcpy(slot, &out, 8);
        return 0;
    }
    if (p->pointee == CRT_PT_FN) return arg_error(w, i, "a host function cannot be passed here");
    bool host = a->place == INTERP_PLACE_HOST || a->place == INTERP_PLACE_PINNED || a->place == INTERP_PLACE_MANAGED;
    /* a library's data (float *x, cuComplex *A, float *const Aarray[]) is
     * memory on either side: device vectors, or host ones (pointer mode
     * host, host generators); handles and streams stay host out-parameters */
    bool either = p->pointee == CRT_PT_VOID ||
                  (w->lib && p->pointee != CRT_PT_HANDLE && p->pointee != CRT_PT_STREAM && p->pointee != CRT_PT_EVENT &&
                   p->pointee != CRT_PT_CHAR && (a->place != INTERP_PLACE_HOST || p->pointee == CRT_PT_SCALAR));
    if (either) { /* memory on either side */
        switch (a->place) {
        case INTERP_PLACE_DEVICE:
        case INTERP_PLACE_PINNED:
        case INTERP_PLACE_UNKNOWN:
            out = a->device;
            break;
        case INTERP_PLACE_MANAGED:
            out = a->device;
            w->managed = true;
            break;
        case INTERP_PLACE_HOST:
            if (!shared(w)) return unshared_host(w, i);
            if (arena_contains(a->host, a->avail ? a->avail : 1)) {
                out = (uint64_t)(uintptr_t)a->host;
            } else {
                bounce_t *b = bounce(w, i, a->host, a->avail, !p->pointee_const);
                if (!b) return call_fail(w->c, CUDA_ERR_MEMORY_ALLOCATION, "no room for a copy of %s", call_arg_name(a));
                out = (uint64_t)(uintptr_t)b->tmp;
                w->bounced_async |= strstr(w->f->name, "Async") != NULL;
            }
            break;
        default:
            return arg_error(w, i, "%s", place_words(a->place));
        }
        memcpy(slot, &out, 8);
        return 0;
    }
    /* a typed pointer: host memory the call reads or fills */
    if (!host)
        return arg_error(w, i, "it is %s; this parameter points to host memory (a %s)", place_words(a->place),
                         p->pointee_size ? "variable of its type" : "host buffer");
    if (p->pointee_size && a->avail < p->pointee_size) {
        int tl = (int)strlen(p->type);
        while (tl > 0 && (p->type[tl - 1] == '*' || p->type[tl - 1] == ' ')) tl--;
        return arg_error(w, i, "it points to %llu byte%s, and the call writes or reads a %.*s (%u bytes) there",
                         (unsigned long long)a->avail, a->avail == 1 ? "" : "s", tl, p->type, p->pointee_size);
    }
    bool has_pointers = p->pointee == CRT_PT_DATAPTR ||
                        (p->pointee == CRT_PT_STRUCT && p->fields >= 0 && w->pf[p->fields].n > 0);
    void *h = a->place == INTERP_PLACE_MANAGED ? interp_host_for_write(w->c->cs->interp, a->bits, a->avail) : a->host;
    if (!h) return arg_error(w, i, "its memory cannot be used now");
    if (!shared(w)) return unshared_host(w, i);
    if (!has_pointers && arena_contains(h, a->avail ? a->avail : 1)) {
        out = (uint64_t)(uintptr_t)h;
    } else {
        bounce_t *b = bounce(w, i, h, a->avail, !p->pointee_const);
        if (!b) return call_fail(w->c, CUDA_ERR_MEMORY_ALLOCATION, "no room for a copy of %s", call_arg_name(a));
        int r = has_pointers ? xlate_copy(w, i, b, p) : 0;
        if (r) return r;
        out = (uint64_t)(uintptr_t)b->tmp;
    }
    memcpy(slot, &out, 8);
    return 0;
}

static void unbounce(fwd_t *w, bool ok) {
    interp_t *in = w->c->cs->interp;
    for (int k = 0; k < w->nb; k++) {
        bounce_t *b = &w->b[k];
        if (ok && b->back) {
            for (int j = 0; j < b->nxw; j++) { /* the cell's own pointer words, where the worker left them */
                uint64_t now;
                memcpy(&now, (char *)b->tmp + b->xw[j].at, 8);
                if (now == b->xw[j].sent) memcpy((char *)b->tmp + b->xw[j].at, &b->xw[j].user, 8);
            }
            void *dst = interp_host_for_write(in, b->a->bits, b->n);
            if (dst) memcpy(dst, b->tmp, (size_t)b->n);
        }
        free(b->xw);
        arena_free(b->tmp);
    }
    w->nb = 0;
}

/* Handles the worker returned through cudaStream_t * / cudaEvent_t *
 * become icuda's where they are icuda's streams and events. */
static void own_handles(fwd_t *w) {
    for (int i = 0; i < w->f->nparams; i++) {
        const crt_param_t *p = param(w, i);
        const interp_arg_t *a = &w->c->a[i];
        if (p->kind != CRT_PTR || (p->pointee != CRT_PT_STREAM && p->pointee != CRT_PT_EVENT) || !a->bits ||
            p->pointee_const)
            continue;
        uint64_t *h = interp_host_for_write(w->c->cs->interp, a->bits, 8), raw;
        if (!h) continue;
        memcpy(&raw, h, 8);
        gpu_handle_t k = p->pointee == CRT_PT_STREAM ? gpu_client_stream_of_raw(w->c->cs->gc, raw)
                                                     : gpu_client_event_of_raw(w->c->cs->gc, raw);
        if (k) {
            uint64_t v = k + CS_HANDLE_BASE;
            memcpy(h, &v, 8);
        }
    }
}

/* A parameter that counts the elements of the pointer parameters just
 * before it (the header's names: numDependencies, pNumNodes, count, len,
 * dataSize); one that ends in _out is an answer, not a capacity. */
static bool counts(const char *name) {
    size_t n = strlen(name);
    if (n > 4 && !strcmp(name + n - 4, "_out")) return false;
    return !strcmp(name, "count") || !strcmp(name, "len") || !strcmp(name, "dataSize") ||
           !strncmp(name, "num", 3) || !strncmp(name, "pNum", 4);
}

/* Each array a call reads or fills has room for the count it is given
 * (cudaGraphGetNodes(graph, nodes, &n) fills n nodes; cudaGraphAddDependencies
 * reads numDependencies from each of from, to and edgeData). */
static int check_counts(cs_call_t *c, const crt_fn_t *f) {
    for (int k = 0; k < f->nparams; k++) {
        const crt_param_t *q = &f->params[k];
        const interp_arg_t *ca = &c->a[k];
        if (!counts(q->name)) continue;
        uint64_t n;
        if ((q->kind == CRT_UINT || q->kind == CRT_INT) && !ca->is_pointer) {
            n = (uint64_t)ival_of(ca);
        } else if (q->kind == CRT_PTR && q->pointee == CRT_PT_SCALAR && ca->host && ca->is_pointer &&
                   (q->pointee_size == 8 || q->pointee_size == 4) && ca->avail >= q->pointee_size) {
            uint32_t n4 = 0;
            if (q->pointee_size == 8) memcpy(&n, ca->host, 8);
            else memcpy(&n4, ca->host, 4), n = n4;
        } else {
            continue;
        }
        for (int j = k - 1; j >= 0 && f->params[j].kind == CRT_PTR; j--) {
            const crt_param_t *p = &f->params[j];
            const interp_arg_t *a = &c->a[j];
            uint64_t es = p->pointee == CRT_PT_VOID ? 1 : p->pointee_size;
            if (!es || !a->is_pointer || !a->bits || a->place == INTERP_PLACE_NONE || a->place == INTERP_PLACE_UNKNOWN)
                continue;
            if (n > a->avail / es)
                return call_misuse(c, "argument %d (%s) has room for %llu %s, and %s (argument %d) is %llu; the "
                                   "function is %s", j + 1, call_arg_name(a), (unsigned long long)(a->avail / es),
                                   es == 1 ? "bytes" : "elements", q->name, k + 1, (unsigned long long)n, f->proto);
        }
    }
    return 0;
}

/* Calls that put work on the GPU: copies, sets, prefetches, graph launches. */
static bool is_work(const char *name) {
    return strstr(name, "Memcpy") || strstr(name, "Memset") || strstr(name, "Prefetch") || strstr(name, "Discard") ||
           !strcmp(name, "cudaGraphLaunch") || !strcmp(name, "cudaGraphUpload");
}

static int forward(cs_call_t *c, const crt_fn_t *f);

int cs_forward(cs_call_t *c) {
    const crt_fn_t *f = crt_find(c->name);
    if (!f) return call_fail(c, CUDA_ERR_NOT_SUPPORTED, "not a function of cuda_runtime_api.h");
    int least = f->nparams;
    while (least > 0 && f->params[least - 1].has_default) least--;
    if (c->n > f->nparams || c->n < least) {
        if (least == f->nparams)
            return call_misuse(c, "takes %d argument%s, not %d: %s", f->nparams, f->nparams == 1 ? "" : "s", c->n,
                               f->proto);
        return call_misuse(c, "takes %d to %d arguments, not %d: %s", least, f->nparams, c->n, f->proto);
    }
    if (c->n == f->nparams) return forward(c, f);
    /* C++'s default arguments for the ones left out */
    interp_arg_t all[64];
    if (f->nparams > 64) return call_misuse(c, "too many parameters");
    memcpy(all, c->a, sizeof *all * (size_t)c->n);
    for (int i = c->n; i < f->nparams; i++) {
        const crt_param_t *p = &f->params[i];
        memset(&all[i], 0, sizeof all[i]);
        all[i].type = p->type;
        all[i].expr = "its default";
        all[i].size = p->size;
        all[i].bits = (uint64_t)p->dflt;
        all[i].is_pointer = p->kind == CRT_PTR || p->kind == CRT_STREAM || p->kind == CRT_EVENT || p->kind == CRT_HANDLE;
    }
    cs_call_t whole = *c;
    whole.a = all;
    whole.n = f->nparams;
    int r = forward(&whole, f);
    c->hard |= whole.hard;
    return r;
}

static int forward(cs_call_t *c, const crt_fn_t *f) {
    return cs_forward_fn(c, f, crt_ptrfields, (unsigned)(f - crt_fns), 0);
}

int cs_forward_fn(cs_call_t *c, const crt_fn_t *f, const crt_ptrfields_t *pf, unsigned wire_fn, int lib) {
    if (f->ret != CRT_RET_ERROR)
        return call_fail(c, CUDA_ERR_NOT_SUPPORTED, "returns no cudaError_t, so icuda cannot forward it: %s", f->proto);
    /* the arguments are checked even without a worker: their errors come first */
    int r = check_counts(c, f);
    if (r) return r;
    int not_ready = call_ready(c);
    if (!c->cs->gc) return not_ready;
    char ready_msg[600];
    snprintf(ready_msg, sizeof ready_msg, "%s", c->msg);
    /* a forwarded call of the cell's: no room is that call's CUDA error, as below */
    fwd_t *w = calloc(1, sizeof *w);
    if (!w) return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of memory");
    w->c = c;
    w->f = f;
    w->ready = !not_ready;
    w->pf = pf;
    w->lib = lib;
    size_t total = 0;
    for (int i = 0; i < f->nparams; i++) total += (f->params[i].size + 15u) & ~15u;
    unsigned char *store = calloc(1, total + 16);
    void *args[64];
    uint16_t sizes[64];
    if (!store || f->nparams > 64) {
        free(store);
        free(w);
        return call_fail(c, CUDA_ERR_MEMORY_ALLOCATION, "out of memory");
    }
    size_t off = 0;
    for (int i = 0; i < f->nparams && !r; i++) {
        const crt_param_t *p = &f->params[i];
        unsigned char *slot = store + off;
        args[i] = slot;
        sizes[i] = p->size;
        off += (p->size + 15u) & ~15u;
        switch (p->kind) {
        case CRT_INT:
        case CRT_UINT:
        case CRT_FLOAT:
        case CRT_DOUBLE: r = put_number(w, i, slot); break;
        case CRT_STREAM: r = put_handle_of(w, i, true, slot); break;
        case CRT_EVENT: r = put_handle_of(w, i, false, slot); break;
        case CRT_HANDLE:
            if (interp_host_pointer(c->cs->interp, c->a[i].bits, NULL))
                r = arg_error(w, i, "it points to host memory, and this parameter takes a %s handle", p->type);
            else if (c->a[i].aggr || c->a[i].is_float)
                r = arg_error(w, i, "this parameter takes a %s handle", p->type);
            else memcpy(slot, &c->a[i].bits, p->size <= 8 ? p->size : 8);
            break;
        case CRT_STRUCT: r = put_struct(w, i, slot); break;
        case CRT_PTR: r = put_pointer(w, i, slot); break;
        default: r = arg_error(w, i, "a host function cannot be run by the GPU worker"); break;
        }
    }
    cuda_session_t *cs = c->cs;
    bool work = lib || is_work(f->name);
    if (!r && not_ready) {
        snprintf(c->msg, c->ml, "%s", ready_msg);
        r = not_ready;
    }
    if (!r && (work || w->managed)) r = cs_managed_before_gpu(cs, c->msg, c->ml);
    int64_t ret = 0;
    char why[512] = "";
    int tr = 0;
    if (!r) {
        if (work) cs->work_count++;
        tr = gpu_client_cudart(cs->gc, wire_fn, f->name, f->nparams, args, sizes, &ret, why, sizeof why);
        if (!tr && w->bounced_async) tr = gpu_client_sync(cs->gc); /* before host copies are read back */
    }
    if (!r && !tr) {
        unbounce(w, true);
        own_handles(w);
        for (int i = 0; i < f->nparams; i++) /* a graph, an array, a pool ...: the worker's, gone after a restart */
            if (f->params[i].kind == CRT_PTR && f->params[i].pointee == CRT_PT_HANDLE && !f->params[i].pointee_const)
                cs->runtime_objects = true;
        if (work) {
            cs_managed_after_gpu(cs, 0);
            /* what a copy or a graph may have written: no longer known */
            for (int i = 0; i < f->nparams; i++)
                if (f->params[i].kind == CRT_PTR && (f->params[i].pointee == CRT_PT_VOID || lib) &&
                    !f->params[i].pointee_const && c->a[i].device)
                    gpu_client_touch(cs->gc, c->a[i].device);
            if (!strcmp(f->name, "cudaGraphLaunch")) gpu_client_touch(cs->gc, 0);
        }
    }
    unbounce(w, false);
    free(store);
    free(w);
    if (r) return r;
    if (lib && !tr) { /* the library's own status: cuda_libs.c names it */
        c->lib_status = (int)ret;
        return ret ? call_fail(c, CUDA_ERR_UNKNOWN, "%s", why) : call_done(c, 0);
    }
    if (tr == CUDA_ERROR_NOT_FOUND && why[0]) {
        c->hard = true;
        return call_fail(c, 303 /* cudaErrorSharedObjectInitFailed */, "%s", why);
    }
    if (tr) {
        if (why[0] && tr < 0x10000 && !cuda_result_is_sticky(tr)) {
            c->hard = true;
            return call_fail(c, cuda_error_from_driver(tr), "%s", why);
        }
        return call_done(c, tr);
    }
    if (ret) return call_fail(c, (int)ret, "%s", cuda_error_string((int)ret));
    return call_done(c, 0);
}
