/* The kernel process's side of CH_CUDART and CH_FUNC (gpu_client.h "the
 * CUDA runtime in the worker"): forwarded runtime calls, kernel attributes
 * and occupancy by the driver API, and the translation between icuda's
 * stream and event handles and the worker's own. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_client_internal.h"

#include <stdio.h>
#include <string.h>

static void copy_text(gpu_client_t *c, const ch_reply_t *rep, char *msg, size_t ml) {
    if (!msg || !ml) return;
    msg[0] = 0;
    if (!rep || !rep->payload) return;
    size_t n = rep->payload < ml - 1 ? rep->payload : ml - 1;
    memcpy(msg, c->rx + sizeof *rep, n);
    msg[n] = 0;
}

int gpu_client_cudart(gpu_client_t *c, unsigned fn, const char *name, int nargs, void *const *args,
                      const uint16_t *size, int64_t *ret, char *msg, size_t ml) {
    if (msg && ml) msg[0] = 0;
    *ret = 0;
    if (nargs < 0 || nargs > 64) return CUDA_ERROR_INVALID_VALUE;
    ch_cmd_t *m = gc_cmd(c, CH_CUDART, false, -1);
    m->u.rt.fn = fn;
    m->u.rt.nargs = (uint16_t)nargs;
    uint16_t *sz = (uint16_t *)(c->tx + sizeof *m);
    size_t off = ch_launch_args_offset((unsigned)nargs), nl = strlen(name) + 1;
    for (int i = 0; i < nargs; i++) {
        size_t pad = ((size_t)size[i] + 15) & ~(size_t)15;
        if (off + pad + nl > CH_MAX_RECORD) return CUDA_ERROR_INVALID_VALUE;
        sz[i] = size[i];
        memcpy(c->tx + off, args[i], size[i]);
        off += pad;
    }
    memcpy(c->tx + off, name, nl);
    ch_reply_t *rep = NULL;
    int r = gc_send(c, off + nl, &rep);
    if (r < 0x10000 && rep) {
        *ret = (int64_t)rep->v[0];
        if (r || *ret) copy_text(c, rep, msg, ml); /* a library's words for its failing status, too */
    }
    return r;
}

static func_t *get_fn(gpu_client_t *c, gpu_handle_t fn) {
    if (fn == 0 || fn > c->fns.n || !c->fns.v[fn - 1].live) return NULL;
    return &c->fns.v[fn - 1];
}

static int func_cmd(gpu_client_t *c, func_t *f, int dev, int op, int a, int b, uint64_t smem, const void *extra,
                    size_t elen, ch_reply_t **rep) {
    ch_cmd_t *m = gc_cmd(c, CH_FUNC, false, dev);
    if (sizeof *m + elen > CH_MAX_RECORD) return CUDA_ERROR_INVALID_VALUE;
    m->u.func.func = f->h;
    m->u.func.op = op;
    m->u.func.a = a;
    m->u.func.b = b;
    m->u.func.smem = smem;
    if (elen) memcpy(c->tx + sizeof *m, extra, elen);
    return gc_send(c, sizeof *m + elen, rep);
}

static int func_dev(gpu_client_t *c, const func_t *f) { return f->mod && f->mod <= c->mods.n ? c->mods.v[f->mod - 1].dev : -1; }

int gpu_client_func(gpu_client_t *c, gpu_handle_t fn, int op, int a, int b, uint64_t smem, const void *extra,
                    size_t elen, uint64_t v[2], void *out, size_t cap) {
    func_t *f = get_fn(c, fn);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    ch_reply_t *rep = NULL;
    int r = func_cmd(c, f, func_dev(c, f), op, a, b, smem, extra, elen, &rep);
    if (r || !rep) return r;
    if (v) {
        v[0] = rep->v[0];
        v[1] = rep->v[1];
    }
    if (out && cap) memcpy(out, c->rx + sizeof *rep, rep->payload < cap ? rep->payload : cap);
    f = get_fn(c, fn); /* remembered, for launches' checks and for a restart */
    if (op == CH_FN_SET_ATTR && a >= 0 && a < 16) {
        f->set_mask |= 1u << a;
        f->set_value[a] = b;
        if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) f->a.max_dynamic_shared_size_bytes = b;
    } else if (op == CH_FN_SET_CACHE) {
        f->cache_config = a;
    }
    return 0;
}

int gc_func_reapply(gpu_client_t *c, func_t *f, int dev) {
    int r = 0;
    for (int k = 0; k < 16 && !r; k++)
        if (f->set_mask & (1u << k)) r = func_cmd(c, f, dev, CH_FN_SET_ATTR, k, f->set_value[k], 0, NULL, 0, NULL);
    if (!r && f->cache_config >= 0) r = func_cmd(c, f, dev, CH_FN_SET_CACHE, f->cache_config, 0, 0, NULL, 0, NULL);
    return r;
}

bool gpu_client_arena_shared(const gpu_client_t *c) { return c->arena_shared; }

static const obj_t *obj_at(const void *vec_, gpu_handle_t h) {
    const VEC(obj_t) *vec = vec_;
    if (h == 0 || h > vec->n || !vec->v[h - 1].live) return NULL;
    return &vec->v[h - 1];
}

int gpu_client_stream_raw(const gpu_client_t *c, gpu_handle_t s, uint64_t *raw) {
    *raw = 0;
    if (s == 0) return 0;
    const obj_t *o = obj_at(&c->sts, s);
    if (!o) return CUDA_ERROR_INVALID_HANDLE;
    *raw = o->h;
    return 0;
}

int gpu_client_event_raw(const gpu_client_t *c, gpu_handle_t e, uint64_t *raw) {
    *raw = 0;
    const obj_t *o = obj_at(&c->evs, e);
    if (!o) return CUDA_ERROR_INVALID_HANDLE;
    *raw = o->h;
    return 0;
}

int gpu_client_stream_device(const gpu_client_t *c, gpu_handle_t s, int *dev) {
    *dev = -1;
    const obj_t *o = obj_at(&c->sts, s);
    if (!o) return CUDA_ERROR_INVALID_HANDLE;
    *dev = o->dev;
    return 0;
}

static gpu_handle_t of_raw(const void *vec_, uint64_t raw) {
    const VEC(obj_t) *vec = vec_;
    for (size_t i = 0; raw && i < vec->n; i++)
        if (vec->v[i].live && vec->v[i].h == raw) return (gpu_handle_t)(i + 1);
    return 0;
}

gpu_handle_t gpu_client_stream_of_raw(const gpu_client_t *c, uint64_t raw) { return of_raw(&c->sts, raw); }
gpu_handle_t gpu_client_event_of_raw(const gpu_client_t *c, uint64_t raw) { return of_raw(&c->evs, raw); }

void gpu_client_touch(gpu_client_t *c, CUdeviceptr p) {
    if (!p) {
        for (size_t i = 0; i < c->bufs.n; i++) gc_touch(&c->bufs.v[i]);
        return;
    }
    buf_t *b = gc_find_buf(c, p, 0);
    if (b) gc_touch(b);
}

int gc_access(gpu_client_t *c, CUdeviceptr va, size_t size, int a, bool on) {
    ch_cmd_t *m = gc_cmd(c, CH_ACCESS, false, -1);
    m->u.access.va = va;
    m->u.access.size = size;
    m->u.access.dev = a;
    m->u.access.on = on;
    return gc_send(c, sizeof *m, NULL);
}

int gpu_client_peer_access(gpu_client_t *c, int peer, bool on) {
    int a = c->dev;
    if (peer < 0 || peer >= MAX_DEV || a < 0 || a >= MAX_DEV || peer == a) return CUDA_ERROR_INVALID_DEVICE;
    int r = 0;
    for (size_t i = 0; i < c->chunks.n && !r; i++)
        if (c->chunks.v[i].dev == peer) r = gc_access(c, c->chunks.v[i].va, c->chunks.v[i].size, a, on);
    if (!r) {
        if (on) c->peers_of[peer] |= 1ull << a;
        else c->peers_of[peer] &= ~(1ull << a);
    }
    return r;
}

bool gpu_client_peer_enabled(const gpu_client_t *c, int a, int owner) {
    return a >= 0 && a < MAX_DEV && owner >= 0 && owner < MAX_DEV && (c->peers_of[owner] >> a & 1);
}

int gpu_client_peer_info(gpu_client_t *c, int a, int b, ch_peer_info_t *out) {
    memset(out, 0, sizeof *out);
    out->pcie_level = -1;
    int r = gpu_client_wait_ready(c);
    if (r) return r;
    ch_cmd_t *m = gc_cmd(c, CH_PEER_INFO, false, -1);
    m->u.peer.a = a;
    m->u.peer.b = b;
    ch_reply_t *rep = NULL;
    if ((r = gc_send(c, sizeof *m, &rep))) return r;
    if (rep && rep->payload >= sizeof *out) memcpy(out, c->rx + sizeof *rep, sizeof *out);
    return 0;
}
