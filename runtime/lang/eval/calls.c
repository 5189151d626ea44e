/* Calls: the frames functions run in (kept on a free list, so that an
 * error's longjmp leaves them readable for the unwinder; their locals in
 * the host arena), user functions,
 * function pointers and builtins (and the table builtins register in), and
 * the zeroing and copying of initialisers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval.h"
#include "exec_inline.h"

/* How deep the C stack may go before an interpreted recursion is stopped. */
void frame_enter_check(node_t *at) {
    interp_t *in = g_in;
    if (in->stack_base && (size_t)(in->stack_base - STACK_HERE()) > in->stack_limit)
        rt_error(at, "stack overflow: the recursion is too deep");
    poll_interrupt(at);
}

/* A frame's locals (and its VLAs) live in the host arena, counted against
 * the limit malloc's buffers have: a recursion of large frames ends there
 * with a MemoryError instead of taking the machine. A released frame keeps
 * a small block for its next call (at most FRAME_KEEP_MAX, FRAME_CACHE_MAX
 * over the free list); a larger one goes back, and its pages with it, so
 * memory a deep recursion used is returned when it returns. */
#define FRAME_KEEP_MAX ((int64_t)64 << 10)
#define FRAME_CACHE_MAX ((int64_t)16 << 20)

static void frame_release(frame_t *fr) {
    interp_t *in = g_in;
    func_t *fn = fr->fn;
    for (int i = 0; i < fn->nmem; i++) {
        g_bufs[fr->hbuf[i]].fname = fn->name;
        buf_kill(fr->hbuf[i], BUF_DEAD_FRAME);
    }
    for (int i = 0; i < fr->nvlas; i++) {
        uint32_t s = fr->vlas[i];
        if (g_bufs[s].state == BUF_LIVE) {
            mem_block_free(g_bufs[s].base);
            g_bufs[s].base = NULL;
            g_bufs[s].fname = fn->name;
            buf_kill(s, BUF_DEAD_FRAME);
        }
    }
    fr->nvlas = 0;
    if (fr->mem && (fr->capmem > FRAME_KEEP_MAX || in->ffree_mem + fr->capmem > FRAME_CACHE_MAX)) {
        mem_block_free(fr->mem);
        fr->mem = NULL;
        fr->capmem = 0;
    }
    in->ffree_mem += fr->capmem;
    fr->nextfree = in->ffree;
    in->ffree = fr;
}

void exec_unwind(interp_t *in, frame_t *to) {
    while (in->top && in->top != to) {
        frame_t *fr = in->top;
        in->top = fr->up;
        frame_release(fr);
    }
}

void frames_free(interp_t *in) {
    exec_unwind(in, NULL);
    for (frame_t *f = in->ffree, *nx; f; f = nx) {
        nx = f->nextfree;
        free(f->slots);
        mem_block_free(f->mem);
        free(f->hbuf);
        free(f->vlas);
        free(f);
    }
    in->ffree = NULL;
    in->ffree_mem = 0;
}

static _Noreturn void frame_fail(interp_t *in, frame_t *fr, func_t *fn, node_t *site, uint64_t need, bool locals) {
    fr->nextfree = in->ffree; /* back to the free list, holding nothing it is not counted for */
    in->ffree = fr;
    in->ffree_mem += fr->capmem;
    int depth = 1;
    for (frame_t *f = in->top; f; f = f->up) depth++;
    mem_limit_error(site, need, "the %s of %s (a call %d deep)", locals ? "local variables" : "call records", fn->name,
                    depth);
}

static frame_t *frame_get(interp_t *in, func_t *fn, node_t *site) {
    frame_t *fr = in->ffree;
    if (fr) {
        in->ffree = fr->nextfree;
        in->ffree_mem -= fr->capmem;
    } else {
        fr = calloc(1, sizeof *fr);
        if (!fr) mem_limit_error(site, sizeof *fr, "a call of %s", fn->name);
    }
    if (fn->nslots > fr->capslots) {
        free(fr->slots);
        fr->capslots = fn->nslots + 8;
        fr->slots = malloc(sizeof(val_t) * (size_t)fr->capslots);
        if (!fr->slots) {
            fr->capslots = 0;
            frame_fail(in, fr, fn, site, sizeof(val_t) * (uint64_t)fn->nslots, false);
        }
    }
    bool fresh = false; /* a new block is zero already */
    if (fn->memsize > fr->capmem) {
        mem_block_free(fr->mem);
        fr->capmem = 0;
        fr->mem = mem_block_alloc((uint64_t)fn->memsize);
        if (!fr->mem) frame_fail(in, fr, fn, site, (uint64_t)fn->memsize, true);
        fr->capmem = (fn->memsize + 63) & ~(int64_t)63;
        fresh = true;
    }
    if (fn->nmem > fr->caphbuf) {
        free(fr->hbuf);
        fr->caphbuf = fn->nmem + 4;
        fr->hbuf = malloc(sizeof(uint32_t) * (size_t)fr->caphbuf);
        if (!fr->hbuf) {
            fr->caphbuf = 0;
            frame_fail(in, fr, fn, site, sizeof(uint32_t) * (uint64_t)fn->nmem, false);
        }
    }
    if (fn->nslots) memset(fr->slots, 0, sizeof(val_t) * (size_t)fn->nslots);
    if (fn->memsize && !fresh) memset(fr->mem, 0, (size_t)fn->memsize);
    fr->fn = fn;
    fr->call = site;
    fr->nvlas = 0;
    return fr;
}

val_t call_func(func_t *fn, val_t *args, node_t *site, frame_t *caller, char *retbuf) {
    frame_enter_check(site);
    interp_t *in = g_in;
    int tier = 0;
    if (UNLIKELY(++fn->hot >= in->native_hot_calls)) {
        val_t r;
        tier = in->up.hot_call ? in->up.hot_call(fn, args, &r) : 0;
        if (tier == 1) return r;
        in->native_block += tier == 2; /* its calls interpreted too, or each would give up again */
    }
    frame_t *fr = frame_get(in, fn, site);
    fr->retbuf = retbuf;
    fr->ret.u = 0;
    for (int i = 0; i < fn->nmem; i++)
        fr->hbuf[i] = buf_new(fr->mem + fn->mem[i].off, (uint64_t)fn->mem[i].size, PLACE_STACK, fn->mem[i].name, &fn->loc);
    for (int i = 0; i < fn->nparams; i++) {
        if (fn->pslot[i] >= 0) fr->slots[fn->pslot[i]] = args[i];
        else {
            type_t *pt = fn->ty->params[i];
            if (ty_is_aggr(pt)) memcpy(fr->mem + fn->pmem[i], args[i].p, pt->size);
            else store_code(tcode(pt), fr->mem + fn->pmem[i], args[i]);
        }
    }
    fr->up = in->top;
    in->top = fr;
    if (UNLIKELY(fn->body->sfn(fn->body, fr) == X_GOTO))
        rt_error(fr->go, "goto %s: the label is inside a block this goto is not in "
                 "(jumping into a block is not interpreted)", fr->go->str);
    in->top = fr->up;
    val_t r = fr->ret;
    if (ty_is_aggr(fn->ty->base)) r.p = retbuf;
    frame_release(fr);
    in->native_block -= tier == 2;
    return r;
}

static _Noreturn void bad_call(node_t *n, fbox_t *b) {
    if (!b->cur) rt_error(n, "function '%s' is declared but never defined", b->name);
    rt_error(n, "function '%s' was redefined with a different signature since this code was compiled; "
             "re-run the cell that calls it", b->name);
}

static val_t ev_call(node_t *n, frame_t *f) {
    fbox_t *b = n->p;
    func_t *fn = b->cur;
    if (UNLIKELY(!fn || !fn->body || (fn->ty != n->d->ty && !ty_same(fn->ty, n->d->ty)))) bad_call(n, b);
    val_t args[n->nlist ? n->nlist : 1];
    for (int i = 0; i < n->nlist; i++) args[i] = EV(n->list[i], f);
    return call_func(fn, args, n, f, n->esz >= 0 ? f->mem + n->esz : NULL);
}

func_t *eval_call_target(node_t *n, void **box) {
    if (n->fn != ev_call || n->esz >= 0) return NULL;
    fbox_t *b = n->p;
    func_t *fn = b->cur;
    if (!fn || !fn->body || (fn->ty != n->d->ty && !ty_same(fn->ty, n->d->ty))) return NULL;
    *box = b;
    return fn;
}

static val_t ev_callptr(node_t *n, frame_t *f) {
    uint64_t p = EV(n->a, f).u;
    char b[128];
    if (p == 0) rt_error(n, "call through a NULL function pointer: %s is NULL", loc_text(&n->a->loc, b, sizeof b));
    if (ptr_slot(p) != SLOT_FUNC || (uint64_t)ptr_off(p) >= (uint64_t)g_nfboxes) {
        int64_t off;
        buf_t *k = ptr_is_raw(p) ? NULL : ptr_live_buf(p, &off);
        if (k && k->place == PLACE_STRLIT && off == 0 && k->base && memchr(k->base, 0, k->size))
            rt_error(n, "%s holds the kernel %s: launch it with %s<<<grid, block>>>(...), not as a host function",
                     loc_text(&n->a->loc, b, sizeof b), k->base, b);
        rt_error(n, "call through a pointer that is not a function: %s", loc_text(&n->a->loc, b, sizeof b));
    }
    fbox_t *bx = g_fboxes[ptr_off(p)];
    func_t *fn = bx->cur;
    if (!fn || !fn->body) bad_call(n, bx);
    if (fn->ty != n->d->ty && !ty_same(fn->ty, n->d->ty)) {
        char t1[200], t2[200];
        rt_error(n, "call of %s through a pointer of another type: the function is %s, the pointer calls %s",
                 fn->name, ty_name(fn->ty, t1, sizeof t1), ty_name(n->d->ty, t2, sizeof t2));
    }
    val_t args[n->nlist ? n->nlist : 1];
    for (int i = 0; i < n->nlist; i++) args[i] = EV(n->list[i], f);
    return call_func(fn, args, n, f, n->esz >= 0 ? f->mem + n->esz : NULL);
}

node_t *mk_call(loc_t *l, fbox_t *box, type_t *fty, node_t **args, int n, int64_t tempoff) {
    node_t *c = node_new(l);
    c->ty = fty->base;
    c->p = box;
    c->d = node_new(l);
    c->d->ty = fty;
    c->list = args;
    c->nlist = n;
    c->esz = tempoff;
    c->fn = ev_call;
    return c;
}
node_t *mk_callptr(loc_t *l, node_t *fp, type_t *fty, node_t **args, int n, int64_t tempoff) {
    node_t *c = mk_call(l, NULL, fty, args, n, tempoff);
    c->a = fp;
    c->fn = ev_callptr;
    return c;
}

/* A builtin registered under name: calls to it compile to mk_builtin nodes. */
builtin_t *builtin_add(interp_t *in, const char *name, bfn_t fn, int flags) {
    builtin_t *b = pool_alloc(&in->pool, sizeof *b);
    b->name = name;
    b->fn = fn;
    b->flags = flags;
    hmap_put(&in->builtins, name, b);
    return b;
}

static val_t ev_builtin(node_t *n, frame_t *f) {
    builtin_t *b = n->p;
    val_t args[n->nlist ? n->nlist : 1];
    for (int i = 0; i < n->nlist; i++) args[i] = EV(n->list[i], f);
    return b->fn(n, args, n->nlist, f);
}
node_t *mk_builtin(loc_t *l, builtin_t *b, type_t *ret, node_t **args, int n) {
    node_t *c = node_new(l);
    c->ty = ret;
    c->p = b;
    c->list = args;
    c->nlist = n;
    c->fn = ev_builtin;
    return c;
}

static val_t ev_memset0(node_t *n, frame_t *f) {
    val_t v;
    v.p = n->a->afn(n->a, f, 1);
    memset(v.p, 0, (size_t)n->esz);
    return v;
}
node_t *mk_memset0(loc_t *l, node_t *pl, int64_t size) {
    node_t *n = node_new(l);
    n->ty = &ty_void;
    n->a = pl;
    n->esz = size;
    n->fn = ev_memset0;
    return n;
}
static val_t ev_memcpy_init(node_t *n, frame_t *f) {
    val_t v;
    v.p = n->a->afn(n->a, f, 1);
    memcpy(v.p, n->k.p, (size_t)n->esz);
    return v;
}
node_t *mk_memcpy_init(loc_t *l, node_t *pl, const char *bytes, int64_t cnt) {
    node_t *n = node_new(l);
    n->ty = &ty_void;
    n->a = pl;
    n->esz = cnt;
    n->k.p = (void *)bytes;
    n->fn = ev_memcpy_init;
    return n;
}

/* For the native tier (eval.h): what n's evaluator computes. A call of a
 * library function is the only call it compiles; the rest are exec.c's. */
int eval_expr_kind(node_t *n) { return n->fn && n->fn == ev_builtin ? NK_BUILTIN : exec_expr_kind(n); }
