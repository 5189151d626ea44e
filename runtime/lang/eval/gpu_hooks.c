/* Launches and CUDA API calls in host code: their nodes built and checked
 * here, carried out by the hooks the GPU layer installs (interp.h "GPU
 * side's hooks"), and what the GPU layer asks of the interpreter while a
 * hook runs (its buffers, pointer words, host functions). */
#include <stdio.h>
#include <string.h>
#include "eval.h"

#include "runtime/lang/interp.h"
#include "runtime/base/xalloc.h"
void interp_set_header_source(interp_t *in, interp_header_fn fn, void *ctx) {
    in->header_text = fn;
    in->header_ctx = ctx;
}

void interp_set_kernel_source(interp_t *in, interp_kernel_fn fn, void *ctx) {
    in->kernel_decl = fn;
    in->kernel_ctx = ctx;
}

void interp_set_hooks(interp_t *in, const interp_hooks_t *hooks) {
    free(in->hooks);
    in->hooks = NULL;
    if (hooks) in->hooks = memcpy(xmalloc(sizeof *hooks), hooks, sizeof *hooks);
}

interp_t *interp_current(void) { return g_in; }

/* The pointers inside a struct (or array) at p: whether there are any, and
 * the first that points to the interpreter's own host memory, which a
 * kernel cannot read (a classic: a struct of arrays filled from malloc). */
static void scan_pointers(type_t *t, const char *p, const char *path, interp_arg_t *o, int depth) {
    if (depth > 8) return;
    if (t->kind == T_PTR) {
        o->has_pointers = 1;
        uint64_t w;
        memcpy(&w, p, 8);
        int64_t off;
        buf_t *b = w && !ptr_is_raw(w) ? ptr_live_buf(w, &off) : NULL;
        if (b && !o->host_field[0]) snprintf(o->host_field, sizeof o->host_field, "%s", path);
    } else if (t->kind == T_ARRAY && t->count > 0 && t->base->size) {
        for (long i = 0; i < t->count && i < 256; i++) {
            char sub[64];
            snprintf(sub, sizeof sub, "%s[%ld]", path, i);
            scan_pointers(t->base, p + i * (long)t->base->size, sub, o, depth + 1);
        }
    } else if ((t->kind == T_STRUCT || t->kind == T_UNION) && t->sd && t->sd->complete) {
        for (int i = 0; i < t->sd->nfields; i++) {
            const field_t *f = &t->sd->fields[i];
            char sub[64];
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", f->name ? f->name : "?");
            scan_pointers(f->ty, p + f->off, sub, o, depth + 1);
        }
    }
}

/* Where pointer word w points, for the GPU layer. */
static void pointer_arg(uint64_t w, interp_arg_t *o) {
    o->is_pointer = 1;
    o->bits = w;
    int64_t off;
    buf_t *b = w ? ptr_live_buf(w, &off) : NULL;
    if (b) {
        o->place = b->place == PLACE_DEVICE ? INTERP_PLACE_DEVICE : b->place == PLACE_PINNED ? INTERP_PLACE_PINNED
                 : b->place == PLACE_MANAGED ? INTERP_PLACE_MANAGED : INTERP_PLACE_HOST;
        if (off >= 0 && (uint64_t)off <= b->size) o->avail = b->size - (uint64_t)off;
        if (b->addr) {
            o->device = w;
            o->base = b->addr;
        }
        if (b->base) o->host = b->base + off;
    } else if (w && ptr_is_raw(w) && !ptr_buf(w, &off)) {
        o->place = INTERP_PLACE_UNKNOWN; /* e.g. a pointer a kernel's malloc returned */
        o->device = w;
    }
}

static void to_arg(node_t *a, val_t v, interp_arg_t *o, char *tbuf, size_t tn, char *ebuf, size_t en) {
    memset(o, 0, sizeof *o);
    o->type = ty_name(a->ty, tbuf, tn);
    o->expr = loc_text(&a->loc, ebuf, en);
    o->size = a->ty->size;
    if (a->ty->kind == T_PTR || (a->ty->kind == T_ARRAY && a->p == (void *)1 && !a->is_place)) { /* a literal too */
        pointer_arg(v.u, o);
    } else if (ty_is_float(a->ty)) {
        o->is_float = 1;
        o->d = v.d;
    } else if (ty_is_aggr(a->ty)) {
        o->aggr = v.p;
        if (v.p && a->ty->kind != T_ARRAY) scan_pointers(a->ty, v.p, "", o, 0);
    }
    else o->bits = v.u;
}

/* The CUDA call being made, while its hook runs (interp_call_host_function). */
static node_t *gpu_call_site;
static frame_t *gpu_call_frame;

static val_t ev_gpu_call(node_t *n, frame_t *f) {
    interp_t *in = g_in;
    if (!in->hooks || !in->hooks->call)
        rt_error(n, "%s: CUDA runtime calls need the GPU layer, and this interpreter has none attached", (char *)n->p);
    int k = n->nlist;
    interp_arg_t args[k ? k : 1];
    char tb[k ? k : 1][96], eb[k ? k : 1][64];
    for (int i = 0; i < k; i++) {
        val_t v = n->list[i]->fn(n->list[i], f);
        to_arg(n->list[i], v, &args[i], tb[i], sizeof tb[i], eb[i], sizeof eb[i]);
    }
    char msg[1024] = "", ename[INTERP_ENAME_MAX] = "";
    int64_t ret = 0;
    node_t *site = gpu_call_site;
    frame_t *sf = gpu_call_frame;
    gpu_call_site = n;
    gpu_call_frame = f;
    int rc = in->hooks->call(in->hooks->ctx, n->p, args, k, n->slot == 1, &ret, ename, msg, sizeof msg);
    gpu_call_site = site;
    gpu_call_frame = sf;
    if (rc < 0) lang_raise(ename[0] ? ename : "RuntimeError", &n->loc, "%s", msg);
    return (val_t){.i = ret};
}

void gpu_call_mark_discarded(node_t *n) {
    if (n && n->fn == ev_gpu_call) n->slot = 1;
}

node_t *mk_gpu_call(loc_t *l, const char *name, node_t **args, int n) {
    node_t *c = node_new(l);
    c->ty = &ty_int;
    c->p = (void *)name;
    c->list = args;
    c->nlist = n;
    for (int i = 0; i < n; i++) {
        node_t *a = args[i];
        if (a->is_place) {
            if (a->ty->kind == T_ARRAY) { node_t *ad = mk_addr(a); ad->ty = ty_ptr(a->ty->base); args[i] = ad; }
            else args[i] = mk_load(a);
            args[i]->loc = a->loc;
        }
        if (args[i]->ty->kind == T_FUNC && args[i]->op == FD_USER && args[i]->p) /* a host function: its pointer */
            args[i] = mk_const(&a->loc, ty_ptr(args[i]->ty),
                               (val_t){.u = ((uint64_t)SLOT_FUNC << PTR_SLOT_SHIFT) | (uint64_t)((fbox_t *)args[i]->p)->id});
        if (args[i]->ty->kind == T_FUNC) type_error(&a->loc, "a function cannot be passed to %s", name);
    }
    c->fn = ev_gpu_call;
    return c;
}

static void dim_of(node_t *a, val_t v, unsigned d[3]) {
    if (a->ty->kind == T_STRUCT) memcpy(d, v.p, 12);
    else { d[0] = (unsigned)v.u; d[1] = d[2] = 1; }
}

/* The kernel a launch through a value names: the value of a kernel's name
 * is that name, a string of the session (parse_kernel.c). */
static const char *launched_kernel(node_t *n, frame_t *f) {
    node_t *k = n->a;
    uint64_t w = k->fn(k, f).u;
    char b[128];
    loc_text(&k->loc, b, sizeof b);
    if (!w) rt_error(n, "launch through %s, which is NULL: it holds no kernel", b);
    if (ptr_slot(w) == SLOT_FUNC)
        rt_error(n, "launch through %s, which holds a host function, not a kernel (a __global__ function of a device "
                 "cell)", b);
    int64_t off;
    buf_t *bf = ptr_is_raw(w) ? NULL : ptr_live_buf(w, &off);
    if (!bf || bf->place != PLACE_STRLIT || off != 0 || !bf->base || !memchr(bf->base, 0, bf->size))
        rt_error(n, "launch through %s, which holds no kernel (set it from a kernel's name)", b);
    return bf->base;
}

static val_t ev_launch(node_t *n, frame_t *f) {
    interp_t *in = g_in;
    const char *name = n->a ? launched_kernel(n, f) : n->p;
    if (!in->hooks || !in->hooks->launch)
        rt_error(n, "kernel launches need the GPU layer, and this interpreter has none attached (launch of %s)", name);
    node_t **cfg = n->list;
    int nc = (int)n->esz;
    unsigned g[3], b[3];
    dim_of(cfg[0], cfg[0]->fn(cfg[0], f), g);
    dim_of(cfg[1], cfg[1]->fn(cfg[1], f), b);
    uint64_t shmem = nc > 2 ? cfg[2]->fn(cfg[2], f).u : 0, stream = nc > 3 ? cfg[3]->fn(cfg[3], f).u : 0;
    int k = n->slot2;
    node_t **av = n->list + nc;
    interp_arg_t args[k ? k : 1];
    char tb[k ? k : 1][96], eb[k ? k : 1][64];
    for (int i = 0; i < k; i++) to_arg(av[i], av[i]->fn(av[i], f), &args[i], tb[i], sizeof tb[i], eb[i], sizeof eb[i]);
    char msg[1024] = "", ename[INTERP_ENAME_MAX] = "";
    if (in->hooks->launch(in->hooks->ctx, name, g, b, shmem, stream, args, k, ename, msg, sizeof msg) < 0)
        lang_raise(ename[0] ? ename : "RuntimeError", &n->loc, "%s", msg);
    return (val_t){.u = 0};
}

node_t *mk_launch(loc_t *l, const char *name, node_t **cfg, int nc, node_t **args, int n) {
    node_t *c = node_new(l);
    c->ty = &ty_void;
    c->p = (void *)name;
    node_t **all = pool_alloc(&g_in->pool, sizeof(node_t *) * (size_t)(nc + n + 1));
    for (int i = 0; i < nc; i++) {
        node_t *x = cfg[i];
        bool d3 = x->ty->kind == T_STRUCT && ty_dim3 && x->ty->sd == ty_dim3->sd;
        if (!d3 && !ty_is_int(x->ty) && !(i == 3 && x->ty->kind == T_PTR))
            type_error(&x->loc, "launch configuration value %d must be %s, not a value of this type", i + 1, i < 2 ? "a dim3 or an integer" : i == 2 ? "an integer (bytes of shared memory)" : "a stream");
        all[i] = x;
    }
    for (int i = 0; i < n; i++) all[nc + i] = args[i];
    c->list = all;
    c->nlist = nc + n;
    c->esz = nc;
    c->slot2 = n;
    c->fn = ev_launch;
    return c;
}

uint64_t interp_buffer_new(interp_t *in, int place, uint64_t addr, void *host, uint64_t size, const char *what) {
    lang_use(in);
    int pl = place == INTERP_PLACE_DEVICE ? PLACE_DEVICE : place == INTERP_PLACE_PINNED ? PLACE_PINNED
           : place == INTERP_PLACE_MANAGED ? PLACE_MANAGED : PLACE_NONE;
    if (pl == PLACE_NONE) return 0;
    uint32_t s = buf_new_raw(addr, host, size, pl, what, gpu_call_site ? &gpu_call_site->loc : NULL); /* the cell that allocated it, for inspection */
    if (!s) return 0;
    g_bufs[s].owner = in->id;
    return addr;
}

int interp_buffer_free(interp_t *in, uint64_t p, int place) {
    lang_use(in);
    int64_t off;
    buf_t *b = ptr_is_raw(p) ? ptr_live_buf(p, &off) : NULL;
    int pl = place == INTERP_PLACE_DEVICE ? PLACE_DEVICE : place == INTERP_PLACE_PINNED ? PLACE_PINNED
           : place == INTERP_PLACE_MANAGED ? PLACE_MANAGED : PLACE_HEAP;
    if (!b || off != 0 || b->place != pl) return -1;
    b->base = NULL;
    buf_kill((uint32_t)(b - g_bufs), BUF_FREED);
    return 0;
}

int interp_free_heap_at(interp_t *in, const void *addr) {
    lang_use(in);
    for (uint32_t s = SLOT_FIRST_BUF; addr && s < g_nbufs; s++) {
        buf_t *b = &g_bufs[s];
        if (b->base == addr && b->state == BUF_LIVE && b->place == PLACE_HEAP && b->alloc == ALLOC_MALLOC)
            return mem_free_heap(ptr_make(s, 0), NULL);
    }
    return -1;
}

void *interp_host_for_write(interp_t *in, uint64_t ptr, uint64_t n) {
    lang_use(in);
    int64_t off;
    buf_t *b = ptr_live_buf(ptr, &off);
    if (!b || off < 0 || (uint64_t)off > b->size || n > b->size - (uint64_t)off || b->ro || !b->base) return NULL;
    char msg[256];
    /* managed memory (a struct there receiving a pointer, say): the host copy
     * must be current first, and goes back to the GPU before it runs */
    if (b->place == PLACE_MANAGED && mem_managed_write(b, msg, sizeof msg) < 0) return NULL;
    return b->base + off;
}

int interp_store_u64(interp_t *in, uint64_t ptr, uint64_t value) {
    void *p = interp_host_for_write(in, ptr, 8);
    if (!p) return -1;
    memcpy(p, &value, 8);
    return 0;
}

int interp_arg_at(interp_t *in, uint64_t ptr, size_t size, int is_pointer, int is_float, interp_arg_t *out) {
    lang_use(in);
    memset(out, 0, sizeof *out);
    int64_t off;
    buf_t *b = ptr ? ptr_live_buf(ptr, &off) : NULL;
    if (!b || !b->base || off < 0 || (uint64_t)off > b->size || size > b->size - (uint64_t)off || size > 16) return -1;
    char msg[256];
    if (b->place == PLACE_MANAGED && mem_managed_fetch(b, msg, sizeof msg) < 0) return -1;
    const char *p = b->base + off;
    out->size = size;
    if (is_pointer) {
        uint64_t w;
        memcpy(&w, p, 8);
        pointer_arg(w, out);
    } else if (is_float) {
        out->is_float = 1;
        if (size == 4) {
            float f;
            memcpy(&f, p, 4);
            out->d = f;
        } else memcpy(&out->d, p, 8);
    } else {
        memcpy(&out->bits, p, size > 8 ? 8 : size);
        out->aggr = size > 8 ? p : NULL;
    }
    return 0;
}

void *interp_host_pointer(interp_t *in, uint64_t word, uint64_t *avail) {
    lang_use(in);
    int64_t off;
    buf_t *b = word && !ptr_is_raw(word) ? ptr_live_buf(word, &off) : NULL;
    if (!b || !b->base || off < 0 || (uint64_t)off > b->size) return NULL;
    if (avail) *avail = b->size - (uint64_t)off;
    return b->base + off;
}

int interp_call_host_function(interp_t *in, uint64_t fn, const uint64_t *args, int n, int64_t *ret, char *msg,
                              size_t ml) {
    if (!gpu_call_site) {
        snprintf(msg, ml, "host functions can only be called during a CUDA call");
        return -1;
    }
    if (ptr_slot(fn) != SLOT_FUNC || (uint64_t)ptr_off(fn) >= (uint64_t)g_nfboxes || !g_fboxes[ptr_off(fn)]->cur ||
        !g_fboxes[ptr_off(fn)]->cur->body) {
        snprintf(msg, ml, "%s", fn ? "it is not a host function defined in a cell" : "it is NULL");
        return -1;
    }
    func_t *f = g_fboxes[ptr_off(fn)]->cur;
    if (f->nparams != n || n > 8 || ty_is_aggr(f->ty->base)) {
        snprintf(msg, ml, "%s takes %d parameter%s; CUDA calls it with %d", f->name, f->nparams,
                 f->nparams == 1 ? "" : "s", n);
        return -1;
    }
    val_t v[8];
    for (int i = 0; i < n; i++) {
        v[i].u = args[i];
        if (ty_is_float(f->ty->params[i])) {
            snprintf(msg, ml, "%s takes a floating parameter where CUDA passes a pointer or an integer", f->name);
            return -1;
        }
    }
    val_t r = call_func(f, v, gpu_call_site, gpu_call_frame, NULL);
    if (ret) *ret = ty_is_float(f->ty->base) ? (int64_t)r.d : r.i;
    return 0;
}
