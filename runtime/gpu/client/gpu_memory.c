/* Device memory as gpu_client hands it out (gpu_client.h, docs/device-memory.md):
 * where each allocation goes in the device range every worker reserves,
 * the mappings behind it, the table from addresses to buffers with their
 * shadows, and the copies, memsets and pinned ranges that touch them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_client_internal.h"

#include "runtime/hostmem/arena.h"

#include <stdlib.h>
#include <string.h>

/* ---- the address table ---- */

/* The buffer holding [p, p+n) (n = 0: p may be its end), or NULL. */
buf_t *gc_find_buf(const gpu_client_t *c, CUdeviceptr p, size_t n) {
    size_t lo = 0, hi = c->bufs.n;
    while (lo < hi) { /* first buffer with va > p */
        size_t mid = (lo + hi) / 2;
        if (c->bufs.v[mid].va <= p) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    buf_t *b = &c->bufs.v[lo - 1];
    if (p - b->va > b->size || n > b->size - (p - b->va)) return NULL;
    if (p - b->va == b->size && n) return NULL;
    return b;
}

/* The device a copy or fill runs on: its buffer's, or, for memory the
 * session did not allocate (what a native C++ cell's cudaMalloc gave), the
 * current one; the driver refuses an address that is no device memory. */
static int copy_dev(const buf_t *b) { return b ? b->dev : -1; }

static size_t buf_index(const gpu_client_t *c, CUdeviceptr va) { /* first buffer with va >= va */
    size_t lo = 0, hi = c->bufs.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->bufs.v[mid].va < va) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int gc_buf_insert(gpu_client_t *c, const buf_t *b) {
    size_t pos = buf_index(c, b->va);
    buf_t dummy = *b;
    if (!VEC_TRY_PUSH(c->bufs, dummy)) return -1;
    memmove(&c->bufs.v[pos + 1], &c->bufs.v[pos], (c->bufs.n - 1 - pos) * sizeof(buf_t));
    c->bufs.v[pos] = *b;
    return 0;
}

static void buf_remove(gpu_client_t *c, buf_t *b) {
    size_t i = (size_t)(b - c->bufs.v);
    free(b->name);
    memmove(&c->bufs.v[i], &c->bufs.v[i + 1], (c->bufs.n - i - 1) * sizeof(buf_t));
    c->bufs.n--;
}

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static chunk_t *find_chunk(gpu_client_t *c, CUdeviceptr p) {
    for (size_t i = 0; i < c->chunks.n; i++)
        if (p >= c->chunks.v[i].va && p - c->chunks.v[i].va < c->chunks.v[i].size) return &c->chunks.v[i];
    return NULL;
}

/* A free piece of the device range for a new chunk: fresh addresses first,
 * so a freed range is not handed out again soon (a stale pointer into it
 * then faults instead of reading someone else's data); the gaps when the
 * range is used up. 0 if none. */
static CUdeviceptr va_take(gpu_client_t *c, size_t size) {
    if (GPU_VA_SIZE - c->va_next >= size) {
        CUdeviceptr v = GPU_VA_BASE + c->va_next;
        c->va_next += size;
        return v;
    }
    CUdeviceptr prev = GPU_VA_BASE;
    for (size_t i = 0; i <= c->chunks.n; i++) {
        CUdeviceptr next = i < c->chunks.n ? c->chunks.v[i].va : GPU_VA_BASE + GPU_VA_SIZE;
        if (next - prev >= size) return prev;
        if (i < c->chunks.n) prev = c->chunks.v[i].va + c->chunks.v[i].size;
    }
    return 0;
}

int gc_raw_map(gpu_client_t *c, int dev, CUdeviceptr va, size_t size) {
    ch_cmd_t *m = gc_cmd(c, CH_MAP, false, dev);
    m->u.map.va = va;
    m->u.map.size = size;
    int r = gc_send(c, sizeof *m, NULL);
    /* the devices with peer access to dev reach it too (a restart maps again through here) */
    for (int a = 0; !r && dev >= 0 && dev < MAX_DEV && a < MAX_DEV; a++)
        if (a != dev && (c->peers_of[dev] >> a & 1)) r = gc_access(c, va, size, a, true);
    return r;
}

/* A new mapping of size bytes; with guard, the same again of addresses
 * after it stays unmapped (what runs past the mapping's end faults). */
static int chunk_new(gpu_client_t *c, size_t size, bool pool, bool guard, chunk_t **out) {
    if (!c->va_ok) return c->va_error ? c->va_error : CUDA_ERROR_NOT_SUPPORTED;
    CUdeviceptr va = va_take(c, guard ? size + c->gran : size);
    if (!va) return CUDA_ERROR_OUT_OF_MEMORY;
    int r = gc_raw_map(c, c->dev, va, size);
    if (r) return r;
    chunk_t ch = {va, size, c->dev, pool, false};
    size_t pos = 0;
    while (pos < c->chunks.n && c->chunks.v[pos].va < va) pos++;
    if (!VEC_TRY_PUSH(c->chunks, ch)) return CUDA_ERROR_OUT_OF_MEMORY;
    memmove(&c->chunks.v[pos + 1], &c->chunks.v[pos], (c->chunks.n - 1 - pos) * sizeof(chunk_t));
    c->chunks.v[pos] = ch;
    *out = &c->chunks.v[pos];
    return 0;
}

/* The first gap of n bytes (BUF_ALIGN-aligned) among a pool's buffers, or 0. */
static CUdeviceptr pool_gap(const gpu_client_t *c, const chunk_t *ch, size_t n) {
    CUdeviceptr at = ch->va, end = ch->va + ch->size;
    for (size_t i = buf_index(c, ch->va); i < c->bufs.n && c->bufs.v[i].va < end; i++) {
        const buf_t *b = &c->bufs.v[i];
        if (b->va - at >= n) return at;
        at = b->va + round_up(b->size ? b->size : 1, BUF_ALIGN);
    }
    return end - at >= n ? at : 0;
}

static bool chunk_empty(const gpu_client_t *c, const chunk_t *ch) {
    size_t i = buf_index(c, ch->va);
    return i == c->bufs.n || c->bufs.v[i].va >= ch->va + ch->size;
}

bool gpu_client_buffer(const gpu_client_t *c, CUdeviceptr p, CUdeviceptr *base, size_t *size,
                       int *dev) {
    const buf_t *b = gc_find_buf((gpu_client_t *)c, p, 0);
    if (!b) return false;
    if (base) *base = b->va;
    if (size) *size = b->size;
    if (dev) *dev = b->dev;
    return true;
}

int gpu_client_set_shadow(gpu_client_t *c, CUdeviceptr base, const void *host, int fill) {
    buf_t *b = gc_find_buf(c, base, 0);
    if (!b || b->va != base) return CUDA_ERROR_INVALID_VALUE;
    if (host && !arena_contains(host, b->size)) return CUDA_ERROR_INVALID_VALUE;
    b->host = host;
    b->fill = fill;
    b->shadow = host ? SH_HOST : fill >= 0 ? SH_FILL : SH_NONE;
    b->bound = false;
    return 0;
}

int gpu_client_bind_shadow(gpu_client_t *c, CUdeviceptr base, const void *host) {
    int r = gpu_client_set_shadow(c, base, host, -1);
    if (!r && host) gc_find_buf(c, base, 0)->bound = true;
    return r;
}


/* ---- memory ---- */

/* How many small buffers may have a mapping of their own: a 64th of the
 * device's memory, at most 1024 (each costs a mapping's granularity). */
static int fence_budget(gpu_client_t *c) {
    gpu_props_t p;
    if (gpu_client_device_props(c, c->dev, &p) || !c->gran) return 0;
    uint64_t n = p.total_mem / 64 / c->gran;
    return n > 1024 ? 1024 : (int)n;
}

int gpu_client_malloc(gpu_client_t *c, CUdeviceptr *p, size_t n) {
    *p = 0;
    if (n == 0) return 0;
    int r = gpu_client_wait_ready(c);
    if (r) return r;
    if (n > GPU_VA_SIZE) return CUDA_ERROR_OUT_OF_MEMORY;
    size_t need = round_up(n, BUF_ALIGN);
    CUdeviceptr at = 0;
    chunk_t *ch;
    bool small = need <= c->gran / 2;
    if (!small || c->nfenced < fence_budget(c)) {
        /* a mapping of its own, the buffer at its very end and unmapped
         * addresses after it: an overrun faults (and compute-sanitizer
         * names its line) instead of corrupting a neighbour */
        r = chunk_new(c, round_up(n, c->gran), false, true, &ch);
        if (!r) {
            at = ch->va + ch->size - n;
            if (at % BUF_ALIGN) at &= ~(CUdeviceptr)15; /* exact end, 16-byte aligned */
            if (small) {
                ch->fenced = true;
                c->nfenced++;
            }
        } else if (!small || r != CUDA_ERROR_OUT_OF_MEMORY) {
            return r;
        }
    }
    if (!at) { /* many small buffers: they share 2 MiB pools, as cudaMalloc's do */
        for (size_t i = 0; i < c->chunks.n && !at; i++)
            if (c->chunks.v[i].pool && c->chunks.v[i].dev == c->dev) at = pool_gap(c, &c->chunks.v[i], need);
        if (!at) {
            if ((r = chunk_new(c, c->gran, true, false, &ch))) return r;
            at = ch->va;
        }
    }
    buf_t b = {.va = at, .size = n, .dev = c->dev, .kind = B_ALLOC, .shadow = SH_NONE, .fill = -1};
    if (gc_buf_insert(c, &b) < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = at;
    return 0;
}

int gpu_client_free_mem(gpu_client_t *c, CUdeviceptr p) {
    if (p == 0) return 0;
    buf_t *b = gc_find_buf(c, p, 0);
    if (!b || b->va != p || b->kind != B_ALLOC) return CUDA_ERROR_INVALID_VALUE;
    buf_remove(c, b);
    /* the memory goes with the last buffer of its chunk; one empty pool per
     * device stays, so a loop of small cudaMalloc/cudaFree maps nothing */
    chunk_t *ch = find_chunk(c, p);
    if (!ch || !chunk_empty(c, ch)) return 0;
    if (ch->pool) {
        int pools = 0;
        for (size_t i = 0; i < c->chunks.n; i++)
            pools += c->chunks.v[i].pool && c->chunks.v[i].dev == ch->dev && chunk_empty(c, &c->chunks.v[i]);
        if (pools == 1) return 0;
    }
    if (ch->fenced) c->nfenced--;
    int r = 0;
    /* cudaFree's promise (nothing still running uses the memory) holds for
     * the GPUs with peer access to it too: a kernel of theirs may be
     * reading it, and unmapped memory under it would be a fault there; the
     * worker waits for the owner itself (CH_UNMAP) */
    for (int a = 0; c->state == GPU_READY && ch->dev >= 0 && ch->dev < MAX_DEV && a < MAX_DEV; a++)
        if (a != ch->dev && (c->peers_of[ch->dev] >> a & 1)) {
            gc_cmd(c, CH_SYNC, false, a);
            int rs = gc_send(c, sizeof(ch_cmd_t), NULL);
            if (!r) r = rs;
        }
    if (c->state == GPU_READY) {
        ch_cmd_t *m = gc_cmd(c, CH_UNMAP, false, ch->dev);
        m->u.map.va = ch->va;
        m->u.map.size = ch->size;
        int ru = gc_send(c, sizeof *m, NULL);
        if (!r) r = ru;
    }
    size_t i = (size_t)(ch - c->chunks.v);
    memmove(&c->chunks.v[i], &c->chunks.v[i + 1], (c->chunks.n - i - 1) * sizeof(chunk_t));
    c->chunks.n--;
    /* the entry goes even if the worker is gone: its memory went with it */
    return r == CUDA_ERROR_INVALID_VALUE ? r : (r >= 0x10000 ? 0 : r);
}

bool gpu_client_unified(const gpu_client_t *c, int *why) {
    if (why) *why = c->va_error;
    return c->va_ok;
}

uint64_t gc_stream_h(const gpu_client_t *c, gpu_handle_t s) {
    if (s == 0 || s > c->sts.n) return 0;
    return c->sts.v[s - 1].h;
}

static bool whole(const buf_t *b, CUdeviceptr p, size_t n) { return p == b->va && n == b->size; }

void gc_touch(buf_t *b) {
    if (!b->bound) b->shadow = SH_NONE;
}

/* cudaHostRegister pins whole pages, so a buffer can share its first or
 * last page with a registered one; the driver refuses a copy whose host range
 * is partly registered, so such a copy goes in pieces that are each wholly
 * inside one registered range or wholly outside all of them. */
static size_t pin_chunk(const gpu_client_t *c, const char *p, size_t n) {
    for (size_t i = 0; i < c->pins.n; i++) {
        const char *s = c->pins.v[i].p, *e = s + c->pins.v[i].n;
        if (p >= s && p < e) return (size_t)(e - p) < n ? (size_t)(e - p) : n;
        if (s > p && (size_t)(s - p) < n) n = (size_t)(s - p);
    }
    return n;
}

int gpu_client_memcpy_htod(gpu_client_t *c, CUdeviceptr dst, const void *src, size_t n,
                           gpu_handle_t stream, bool async) {
    if (n == 0) return 0;
    buf_t *b = gc_find_buf(c, dst, n); /* NULL: memory the session did not allocate (see unknown_dev) */
    if (!src) return CUDA_ERROR_INVALID_VALUE;
    void *bounce = NULL;
    if (!arena_contains(src, n)) {
        if (!(bounce = arena_alloc(n))) return CUDA_ERROR_OUT_OF_MEMORY;
        memcpy(bounce, src, n);
        async = false;
    }
    if (b && !bounce && whole(b, dst, n)) {
        b->shadow = SH_HOST;
        b->host = src;
    } else if (b) {
        gc_touch(b);
    }
    const char *h = bounce ? bounce : src;
    int r = 0;
    for (size_t done = 0, k; done < n && !r; done += k) {
        k = pin_chunk(c, h + done, n - done);
        ch_cmd_t *m = gc_cmd(c, CH_MEMCPY, async, copy_dev(b));
        m->u.copy.kind = CH_H2D;
        m->u.copy.dst = dst + done;
        m->u.copy.src = arena_offset(h + done);
        m->u.copy.size = k;
        m->u.copy.stream = gc_stream_h(c, stream);
        r = gc_send(c, sizeof *m, NULL);
    }
    if (bounce) arena_free(bounce);
    return r;
}

int gpu_client_memcpy_dtoh(gpu_client_t *c, void *dst, CUdeviceptr src, size_t n,
                           gpu_handle_t stream, bool async) {
    if (n == 0) return 0;
    buf_t *b = gc_find_buf(c, src, n);
    if (!dst) return CUDA_ERROR_INVALID_VALUE;
    void *bounce = NULL;
    if (!arena_contains(dst, n)) {
        if (!(bounce = arena_alloc(n))) return CUDA_ERROR_OUT_OF_MEMORY;
        async = false;
    }
    char *h = bounce ? bounce : dst;
    int r = 0;
    for (size_t done = 0, k; done < n && !r; done += k) {
        k = pin_chunk(c, h + done, n - done);
        ch_cmd_t *m = gc_cmd(c, CH_MEMCPY, async, copy_dev(b));
        m->u.copy.kind = CH_D2H;
        m->u.copy.dst = arena_offset(h + done);
        m->u.copy.src = src + done;
        m->u.copy.size = k;
        m->u.copy.stream = gc_stream_h(c, stream);
        r = gc_send(c, sizeof *m, NULL);
    }
    if (bounce) {
        if (!r) memcpy(dst, bounce, n);
        arena_free(bounce);
    }
    return r;
}

int gpu_client_memcpy_dtod(gpu_client_t *c, CUdeviceptr dst, CUdeviceptr src, size_t n,
                           gpu_handle_t stream, bool async) {
    if (n == 0) return 0;
    buf_t *d = gc_find_buf(c, dst, n), *s = gc_find_buf(c, src, n);
    ch_cmd_t *m = gc_cmd(c, CH_MEMCPY, async, copy_dev(d ? d : s));
    m->u.copy.kind = CH_D2D;
    m->u.copy.dst = dst;
    m->u.copy.src = src;
    m->u.copy.size = n;
    m->u.copy.stream = gc_stream_h(c, stream);
    if (d && s && whole(d, dst, n) && whole(s, src, n)) {
        d->shadow = s->shadow;
        d->host = s->host;
        d->fill = s->fill;
    } else if (d) {
        gc_touch(d);
    }
    return gc_send(c, sizeof *m, NULL);
}

int gpu_client_memset(gpu_client_t *c, CUdeviceptr dst, int value, size_t n, gpu_handle_t stream,
                      bool async) {
    if (n == 0) return 0;
    buf_t *b = gc_find_buf(c, dst, n);
    ch_cmd_t *m = gc_cmd(c, CH_MEMSET, async, copy_dev(b));
    m->u.memset.dptr = dst;
    m->u.memset.size = n;
    m->u.memset.value = (uint32_t)(value & 0xFF);
    m->u.memset.stream = gc_stream_h(c, stream);
    if (b && whole(b, dst, n)) {
        b->shadow = SH_FILL;
        b->fill = value & 0xFF;
    } else if (b) {
        gc_touch(b);
    }
    return gc_send(c, sizeof *m, NULL);
}

int gc_raw_register(gpu_client_t *c, void *p, size_t n, unsigned flags, CUdeviceptr *dptr) {
    ch_cmd_t *m = gc_cmd(c, CH_HOST_REGISTER, false, -1);
    m->u.host_register.offset = arena_offset(p);
    m->u.host_register.size = n;
    m->u.host_register.flags = flags;
    ch_reply_t *rep;
    int r = gc_send(c, sizeof *m, &rep);
    if (!r && dptr) *dptr = rep->v[0];
    return r;
}

int gpu_client_host_register(gpu_client_t *c, void *p, size_t n, unsigned flags, CUdeviceptr *dptr) {
    if (dptr) *dptr = 0;
    if (!p || !n || !arena_contains(p, n)) return CUDA_ERROR_INVALID_VALUE;
    int r = gc_raw_register(c, p, n, flags, dptr);
    if (!r && !VEC_TRY_PUSH(c->pins, ((pin_t){p, n, flags}))) return CUDA_ERROR_OUT_OF_MEMORY;
    return r;
}

int gpu_client_host_unregister(gpu_client_t *c, void *p) {
    size_t i;
    for (i = 0; i < c->pins.n; i++)
        if (c->pins.v[i].p == p) break;
    if (i == c->pins.n) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    c->pins.v[i] = c->pins.v[--c->pins.n];
    ch_cmd_t *m = gc_cmd(c, CH_HOST_UNREGISTER, false, -1);
    m->u.host_register.offset = arena_offset(p);
    int r = gc_send(c, sizeof *m, NULL);
    return r >= 0x10000 ? 0 : r; /* a dead worker unpinned everything */
}

int gpu_client_host_flags(const gpu_client_t *c, const void *p, unsigned *flags) {
    const char *q = p;
    for (size_t i = 0; i < c->pins.n; i++) {
        const char *s = c->pins.v[i].p;
        if (q >= s && q < s + c->pins.v[i].n) {
            *flags = c->pins.v[i].flags;
            return 0;
        }
    }
    return CUDA_ERROR_INVALID_VALUE;
}

bool gpu_client_host_is_registered(const gpu_client_t *c, const void *p, size_t n) {
    const char *q = p;
    for (size_t i = 0; i < c->pins.n; i++) {
        const char *s = c->pins.v[i].p;
        if (q >= s && q + n <= s + c->pins.v[i].n) return true;
    }
    return false;
}


int gpu_client_buffers(const gpu_client_t *c, gpu_buffer_info_t *out, int cap) {
    int n = 0;
    for (size_t i = 0; i < c->bufs.n; i++, n++) {
        if (!out || n >= cap) continue;
        const buf_t *b = &c->bufs.v[i];
        gpu_buffer_info_t *o = &out[n];
        o->base = b->va;
        o->size = b->size;
        o->dev = b->dev;
        o->is_global = b->kind == B_GLOBAL;
        o->shadow_host = b->shadow == SH_HOST ? b->host : NULL;
        o->shadow_fill = b->shadow == SH_FILL ? b->fill : -1;
        o->shadow_bound = b->bound;
    }
    return n;
}
