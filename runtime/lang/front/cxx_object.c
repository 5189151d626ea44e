/* Lifetimes of C++ objects that own something (a std::vector's elements, a
 * class with a destructor): each local or temporary of such a type has a
 * flag slot in its frame, set when it is constructed and cleared when it is
 * destroyed or moved away, and the scope that holds it destroys it on the
 * way out, however it leaves (end, break, continue, return). Session
 * variables are destroyed when a later declaration replaces them.
 * Assignment, passing by value and returning by value copy or move as C++
 * does; the run-time copy/destroy/default-construct of any type lives here
 * too (the library's containers use them for their elements). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cxx_class.h"
#include "runtime/lang/eval/exec_inline.h"

/* ---------------- run time ---------------- */
static func_t *user_fn(cx_method_t *m, node_t *at) {
    if (!m->box || !m->box->cur || !m->box->cur->body) {
        char b[200];
        snprintf(b, sizeof b, "%s", m->cls->name);
        rt_error(at, "%s of %s is declared but never defined", m->is_dtor ? "the destructor" : m->is_ctor ? "a constructor" : m->name, b);
    }
    return m->box->cur;
}

void cx_rt_destroy(type_t *t, uint64_t w, node_t *at) {
    if (t->kind == T_ARRAY) {
        for (long i = t->count - 1; i >= 0; i--) cx_rt_destroy(t->base, ptr_add(w, i * (int64_t)t->base->size), at);
        return;
    }
    cx_class_t *c = cx_class_of(t);
    if (!c || !c->nontrivial) return;
    if (c->is_lib) {
        c->ops->destroy(c, mem_at(w, t->size, 1, at), at);
        return;
    }
    if (c->dtor) { /* the user's destructor, which then destroys the members */
        val_t a[1] = {{.u = w}};
        call_func(user_fn(c->dtor, at), a, at, NULL, NULL);
        return;
    }
    sdef_t *sd = t->sd;
    for (int k = sd->nfields - 1; k >= 0; k--)
        if (cx_nontrivial(sd->fields[k].ty)) cx_rt_destroy(sd->fields[k].ty, ptr_add(w, (int64_t)sd->fields[k].off), at);
}

void cx_rt_copy(type_t *t, uint64_t dst, uint64_t src, node_t *at) {
    if (dst == src) return;
    if (t->kind == T_ARRAY) {
        for (long i = 0; i < t->count; i++)
            cx_rt_copy(t->base, ptr_add(dst, i * (int64_t)t->base->size), ptr_add(src, i * (int64_t)t->base->size), at);
        return;
    }
    cx_class_t *c = cx_class_of(t);
    char *d = mem_at(dst, t->size, 1, at);
    const char *s = mem_at(src, t->size, 0, at);
    if (!c || !c->nontrivial) { memmove(d, s, t->size); return; }
    if (c->is_lib) { c->ops->copy(c, d, s, at); return; }
    if (c->copy_m) {
        if (c->copy_m->deleted) rt_error(at, "%s cannot be copied: its copy constructor is deleted", c->name);
        memset(d, 0, t->size);
        val_t a[2] = {{.u = dst}, {.u = src}};
        call_func(user_fn(c->copy_m, at), a, at, NULL, NULL);
        return;
    }
    memmove(d, s, t->size);
    sdef_t *sd = t->sd;
    for (int k = 0; k < sd->nfields; k++)
        if (cx_nontrivial(sd->fields[k].ty))
            cx_rt_copy(sd->fields[k].ty, ptr_add(dst, (int64_t)sd->fields[k].off), ptr_add(src, (int64_t)sd->fields[k].off), at);
}

void cx_rt_default(type_t *t, uint64_t w, node_t *at) {
    memset(mem_at(w, t->size, 1, at), 0, t->size);
    if (t->kind == T_ARRAY) {
        for (long i = 0; i < t->count; i++) cx_rt_default(t->base, ptr_add(w, i * (int64_t)t->base->size), at);
        return;
    }
    cx_class_t *c = cx_class_of(t);
    if (c && c->default_ctor && !c->is_lib) {
        cx_method_t *m = c->default_ctor;
        if (m->nreq == -2) rt_error(at, "%s's default constructor has default arguments that are not constants", c->name);
        val_t a[5] = {{.u = w}};
        for (int i = 0; i < m->fty->nparams && i < 4; i++) a[i + 1] = m->defv[i];
        call_func(user_fn(m, at), a, at, NULL, NULL);
    } else if (c && c->default_ctor && c->default_ctor->bi) { /* a library class's own default constructor */
        node_t call = at ? *at : (node_t){0};
        call.p = c->default_ctor->bi;
        call.list = NULL;
        call.nlist = 0;
        val_t a[1] = {{.u = w}};
        c->default_ctor->bi->fn(&call, a, 1, NULL);
    }
}

static val_t ev_destroy(node_t *n, frame_t *f) {
    cx_rt_destroy(n->ty == &ty_void ? (type_t *)n->p : n->ty, EV(n->a, f).u, n);
    return (val_t){.u = 0};
}
node_t *mk_cx_destroy(loc_t *l, type_t *t, node_t *word) {
    node_t *n = node_new(l);
    n->ty = &ty_void;
    n->p = t;
    n->a = word;
    n->fn = ev_destroy;
    return n;
}
static val_t ev_copy(node_t *n, frame_t *f) {
    uint64_t d = EV(n->a, f).u, s = EV(n->b, f).u;
    cx_rt_copy(n->p, d, s, n);
    return (val_t){.u = d};
}
node_t *mk_cx_copy(loc_t *l, type_t *t, node_t *dst, node_t *src) {
    node_t *n = node_new(l);
    n->ty = ty_ptr(t);
    n->p = t;
    n->a = dst;
    n->b = src;
    n->fn = ev_copy;
    return n;
}
static val_t ev_default(node_t *n, frame_t *f) {
    uint64_t w = EV(n->a, f).u;
    cx_rt_default(n->p, w, n);
    return (val_t){.u = w};
}
node_t *mk_cx_default(loc_t *l, type_t *t, node_t *word) {
    node_t *n = node_new(l);
    n->ty = ty_ptr(t);
    n->p = t;
    n->a = word;
    n->fn = ev_default;
    return n;
}
/* new T[n] of a class with a default constructor: every element of the new buffer */
static val_t ev_default_n(node_t *n, frame_t *f) {
    uint64_t w = EV(n->a, f).u;
    type_t *t = n->p;
    int64_t off;
    buf_t *b = ptr_live_buf(w, &off);
    if (!b) mem_fail(w, t->size, 1, n);
    uint64_t k = b->size / t->size;
    for (uint64_t i = 0; i < k; i++) cx_rt_default(t, ptr_add(w, (int64_t)(i * t->size)), n);
    return (val_t){.u = w};
}
node_t *mk_cx_default_n(loc_t *l, type_t *t, node_t *word) {
    node_t *n = mk_cx_default(l, t, word);
    n->fn = ev_default_n;
    return n;
}
/* delete p / delete[] p: the object(s) in p's buffer are destroyed first */
static val_t ev_destroy_buf(node_t *n, frame_t *f) {
    uint64_t w = EV(n->a, f).u;
    type_t *t = n->p;
    if (!w) return (val_t){.u = 0};
    int64_t off;
    buf_t *b = ptr_live_buf(w, &off);
    /* what delete will refuse (a dead pointer, delete of new[] ...) it refuses before any destructor runs */
    if (!b || b->place != PLACE_HEAP || off != 0 || b->alloc != (n->op ? ALLOC_NEW_ARRAY : ALLOC_NEW)) return (val_t){.u = w};
    if (!n->op) { cx_rt_destroy(t, w, n); return (val_t){.u = w}; }
    int64_t k = (int64_t)((b->size - (uint64_t)off) / t->size);
    for (int64_t i = k - 1; i >= 0; i--) cx_rt_destroy(t, ptr_add(w, i * (int64_t)t->size), n);
    return (val_t){.u = w};
}
node_t *mk_cx_destroy_buf(loc_t *l, type_t *t, node_t *word, bool array) {
    node_t *n = mk_cx_destroy(l, t, word);
    n->ty = ty_ptr(t);
    n->op = array;
    n->fn = ev_destroy_buf;
    return n;
}

/* ---------------- lifetimes at parse time ---------------- */
int cx_life_add(P *p, node_t *pl, type_t *t, bool temp) {
    if (!cx_nontrivial(t)) return -1;
    cx_parse_t *cx = cx_parse(p);
    if (cx->nlives == cx->caplives) {
        int nc = cx->caplives ? cx->caplives * 2 : 16;
        cx_life_t *nv = pool_alloc(&p->in->pool, sizeof(cx_life_t) * (size_t)nc);
        if (cx->nlives) memcpy(nv, cx->lives, sizeof(cx_life_t) * (size_t)cx->nlives);
        cx->lives = nv;
        cx->caplives = nc;
    }
    cx_life_t *L = &cx->lives[cx->nlives];
    memset(L, 0, sizeof *L);
    L->pl = pl;
    L->ty = t;
    L->flag = new_slot(p);
    L->temp = temp;
    L->f = p->f;
    return cx->nlives++;
}

cx_life_t *cx_life_of(P *p, node_t *e) {
    cx_parse_t *cx = cx_parse(p);
    if (!cx->nlives) return NULL;
    node_t *w = NULL;
    if (e->is_place && e->place == PL_DEREF && e->k.i == 0) w = e->a;
    else if (!e->is_place && e->a && e->a->is_place && e->a->place == PL_DEREF && e->a->k.i == 0) w = e->a->a;
    if (!w) return NULL;
    for (int i = cx->nlives - 1; i >= 0; i--)
        if (cx->lives[i].mk == w && cx->lives[i].f == p->f) return &cx->lives[i];
    return NULL;
}

static cx_life_t *named_life(P *p, node_t *e) { /* a local variable's own life (return x moves it) */
    cx_parse_t *cx = cx_parse(p);
    if (!e->is_place || e->place != PL_FRAME) return NULL;
    for (int i = cx->nlives - 1; i >= 0; i--) {
        cx_life_t *L = &cx->lives[i];
        if (!L->temp && L->f == p->f && L->pl->place == PL_FRAME && L->pl->k.i == e->k.i && L->pl->slot2 == e->slot2)
            return L;
    }
    return NULL;
}

static node_t *word_of(node_t *pl) { node_t *w = mk_addr(pl); w->loc = pl->loc; return w; }

static val_t ev_life_begin(node_t *n, frame_t *f) {
    if (f->slots[n->slot].i) {
        f->slots[n->slot].i = 0;
        cx_rt_destroy(n->p, EV(n->a, f).u, n);
    }
    return (val_t){.u = 0};
}
node_t *cx_life_begin(P *p, int life) {
    cx_life_t *L = &cx_parse(p)->lives[life];
    node_t *n = node_new(&L->pl->loc);
    n->ty = &ty_void;
    n->slot = L->flag;
    n->p = L->ty;
    n->a = word_of(L->pl);
    n->fn = ev_life_begin;
    return st_expr(n);
}
static val_t ev_life_set(node_t *n, frame_t *f) { f->slots[n->slot].i = 1; return (val_t){.u = 0}; }
node_t *cx_life_set(P *p, int life) {
    cx_life_t *L = &cx_parse(p)->lives[life];
    node_t *n = node_new(&L->pl->loc);
    n->ty = &ty_void;
    n->slot = L->flag;
    n->fn = ev_life_set;
    return st_expr(n);
}

/* a temporary: (destroy what an earlier pass left; make it; it lives) -> its word */
static val_t ev_life_wrap(node_t *n, frame_t *f) {
    if (n->slot >= 0 && f->slots[n->slot].i) {
        f->slots[n->slot].i = 0;
        cx_rt_destroy(n->p, EV(n->b, f).u, n);
    }
    EV(n->a, f);
    if (n->slot >= 0) f->slots[n->slot].i = 1;
    return EV(n->b, f);
}
node_t *cx_life_wrap(P *p, int life, node_t *make, node_t *pl) {
    node_t *n = node_new(&pl->loc);
    n->ty = ty_ptr(pl->ty);
    n->a = make;
    n->b = word_of(pl);
    n->p = pl->ty;
    n->slot = -1;
    if (life >= 0) {
        cx_life_t *L = &cx_parse(p)->lives[life];
        n->slot = L->flag;
        L->mk = n;
    }
    n->fn = ev_life_wrap;
    return n;
}

/* the bytes of a temporary or local whose object now belongs elsewhere */
static val_t ev_move(node_t *n, frame_t *f) {
    uint64_t w = EV(n->a, f).u;
    f->slots[n->slot].i = 0;
    return (val_t){.p = mem_at(w, n->ty->size, 0, n)};
}
static node_t *move_node(loc_t *l, type_t *t, node_t *word, int flag) {
    node_t *n = node_new(l);
    n->ty = t;
    n->a = word;
    n->slot = flag;
    n->fn = ev_move;
    return n;
}
node_t *cx_move_from(P *p, node_t *e) {
    cx_life_t *L = cx_life_of(p, e);
    node_t *pl = e->is_place ? e : e->a;
    if (!L) type_error(&e->loc, "internal: not a temporary");
    return move_node(&e->loc, pl->ty, pl->a, L->flag);
}

/* copy-constructs into a fresh temporary that nobody here owns (a callee or
 * a return value takes it): its bytes */
static val_t ev_copy_out(node_t *n, frame_t *f) {
    uint64_t d = EV(n->a, f).u, s = EV(n->b, f).u;
    memset(mem_at(d, n->ty->size, 1, n), 0, n->ty->size);
    cx_rt_copy(n->ty, d, s, n);
    return (val_t){.p = mem_at(d, n->ty->size, 0, n)};
}
static node_t *copy_out(P *p, node_t *src, type_t *t) {
    int64_t off = new_mem(p, t, (int64_t)t->size);
    int h = new_handle(p, off, (int64_t)t->size, "a copy");
    node_t *n = node_new(&src->loc);
    n->ty = t;
    n->a = word_of(pl_frame(&src->loc, t, off, h));
    n->b = cx_this_word(p, src);
    n->fn = ev_copy_out;
    return n;
}

node_t *cxx_arg_by_value(P *p, node_t *arg, type_t *pt) {
    if (cx_life_of(p, arg)) return cx_move_from(p, arg);
    cx_class_t *c = cx_class_of(pt);
    if (c && c->copy_m && c->copy_m->deleted) type_error(&arg->loc, "%s cannot be passed by value: its copy constructor is deleted", c->name);
    return copy_out(p, arg, pt);
}

node_t *cxx_call_result(P *p, node_t *call) {
    type_t *t = call->ty;
    if (!cx_nontrivial(t)) return call;
    int life;
    node_t *tmp = cx_temp(p, t, &call->loc, &life);
    node_t *w = cx_life_wrap(p, life, mk_assign(&call->loc, tmp, call), tmp);
    return pl_deref(&call->loc, t, w, 0);
}

node_t *cxx_return_value(P *p, node_t *e, type_t *rt) {
    if (!cx_class_of(rt)) return e;
    cx_class_t *ec = cx_class_of(e->ty);
    if (!ec || ec->type->sd != rt->sd) {
        node_t *v = cx_convert(p, e, rt, "return value");
        if (!v) return e; /* conv_assign says why */
        e = v;
    }
    if (!cx_nontrivial(rt)) return e;
    if (cx_life_of(p, e)) return cx_move_from(p, e);
    cx_life_t *L = named_life(p, e);
    if (L) return move_node(&e->loc, rt, word_of(e), L->flag);
    return copy_out(p, e, rt);
}

/* ---------------- assignment ---------------- */
static val_t ev_assign_obj(node_t *n, frame_t *f) {
    uint64_t d = EV(n->a, f).u;
    type_t *t = n->p;
    if (n->op) { /* from a temporary: take its bytes */
        val_t v = EV(n->b, f);
        char *dp = mem_at(d, t->size, 1, n);
        if (v.p == dp) return (val_t){.u = d};
        cx_rt_destroy(t, d, n);
        memmove(mem_at(d, t->size, 1, n), v.p, t->size);
        return (val_t){.u = d};
    }
    uint64_t s = EV(n->b, f).u;
    if (s == d) return (val_t){.u = d};
    /* copy first into a scratch buffer: the source may live inside the destination (v = v.inner) */
    uint64_t tmp = mem_alloc(t->size, PLACE_HEAP, "a copy", &n->loc);
    if (!tmp) rt_error(n, "out of memory for a copy of %s", cx_class_of(t)->name);
    cx_rt_copy(t, tmp, s, n);
    cx_rt_destroy(t, d, n);
    memmove(mem_at(d, t->size, 1, n), mem_at(tmp, t->size, 0, n), t->size);
    mem_free_heap(tmp, n);
    return (val_t){.u = d};
}

node_t *cxx_assign(P *p, int op, node_t *lhs, node_t *rhs, loc_t *l) {
    cx_class_t *c = cx_class_of(lhs->ty);
    if (!c) return NULL;
    char b[128];
    if (!lhs->is_place || lhs->place == PL_TEMP) type_error(&lhs->loc, "assignment needs an object, and %s is a value", loc_text(&lhs->loc, b, sizeof b));
    if (lhs->ty->is_const) type_error(&lhs->loc, "assignment: %s is const", loc_text(&lhs->loc, b, sizeof b));
    if (op) {
        static const char *names[] = {[P_PLUS] = "operator+=", [P_MINUS] = "operator-=", [P_STAR] = "operator*=",
                                      [P_DIV] = "operator/=", [P_MOD] = "operator%="};
        const char *nm = op < (int)(sizeof names / sizeof *names) ? names[op] : NULL;
        cx_method_t *m = nm ? cx_find_method(c, nm) : NULL;
        if (!m) type_error(l, "%s has no compound assignment here (operator overloading of your own classes is not interpreted)", c->name);
        node_t *a[1] = {rhs};
        return cx_call(p, m, lhs, a, 1, l);
    }
    cx_method_t *m = cx_find_method(c, "operator=");
    if (m) { node_t *a[1] = {rhs}; return cx_call(p, m, lhs, a, 1, l); }
    node_t *v = cx_convert(p, rhs, lhs->ty, "assignment");
    if (!v) type_error(&rhs->loc, "assignment: cannot convert %s to %s", tyname(rhs->ty), tyname(lhs->ty));
    if (!c->nontrivial) {
        node_t *a = mk_assign(l, lhs, rvalue(p, v));
        return a;
    }
    node_t *n = node_new(l);
    n->ty = ty_ptr(lhs->ty);
    n->p = lhs->ty;
    n->a = word_of(lhs);
    if (cx_life_of(p, v)) { n->op = 1; n->b = cx_move_from(p, v); }
    else n->b = cx_this_word(p, v);
    n->fn = ev_assign_obj;
    return pl_deref(l, lhs->ty, n, 0);
}

/* ---------------- scopes ---------------- */
void cxx_scope_open(P *p) {
    cx_parse_t *cx = cx_parse(p);
    if (cx->nscopes == cx->capscopes) {
        int nc = cx->capscopes ? cx->capscopes * 2 : 16;
        int *nv = pool_alloc(&p->in->pool, sizeof(int) * (size_t)nc);
        if (cx->nscopes) memcpy(nv, cx->scopes, sizeof(int) * (size_t)cx->nscopes);
        cx->scopes = nv;
        cx->capscopes = nc;
    }
    cx->scopes[cx->nscopes++] = cx->nlives;
    if (!p->f->is_cell && p->f->blockdepth == 0 && cx->params_f != p->f) {
        /* a function's body: its parameters by value are its own */
        cx->params_f = p->f;
        int from = p->nmarks ? p->marks[p->nmarks - 1] : 0;
        for (int i = from; i < p->nscope; i++) {
            sym_t *s = p->scope[i];
            if (s->kind != S_VAR_LOCAL || !s->addressable || !cx_nontrivial(s->ty)) continue;
            node_t *pl = pl_frame(&p->f->fn->loc, s->ty, s->memoff, s->hidx);
            int life = cx_life_add(p, pl, s->ty, false);
            cx->lives[life].param = true;
        }
    }
}

/* the statements of a full expression (in o) in the scope opened for it */
void cxx_full_expr(P *p, ilist_t *o) {
    cx_parse_t *cx = cx_parse(p);
    if (cx->nscopes && cx->scopes[cx->nscopes - 1] == cx->nlives) { cx->nscopes--; return; } /* no temporaries */
    node_t **v = pool_alloc(&p->in->pool, sizeof(node_t *) * (size_t)(o->n ? o->n : 1));
    if (o->n) memcpy(v, o->v, sizeof(node_t *) * (size_t)o->n);
    loc_t l = o->n ? o->v[0]->loc : (loc_t){0};
    node_t *b = cxx_scope_close(p, st_block(&l, v, o->n));
    o->n = 0;
    iadd(o, b);
}

/* the scope just opened joins the one around it (a cell's value: its temporaries live until it is shown) */
void cxx_scope_merge(P *p) {
    cx_parse_t *cx = cx_parse(p);
    if (cx->nscopes) cx->nscopes--;
}

static int sx_scope(node_t *n, frame_t *f) {
    if (n->b) n->b->sfn(n->b, f);
    int r = n->a->sfn(n->a, f);
    for (int i = n->nlist - 1; i >= 0; i--) {
        node_t *d = n->list[i];
        if (f->slots[d->slot].i) {
            f->slots[d->slot].i = 0;
            cx_rt_destroy(d->p, EV(d->a, f).u, d);
        }
    }
    return r;
}

node_t *cxx_scope_close(P *p, node_t *body) {
    cx_parse_t *cx = cx_parse(p);
    if (!cx->nscopes) return body;
    int start = cx->scopes[--cx->nscopes];
    int n = cx->nlives - start;
    if (n <= 0) return body;
    node_t *w = node_new(&body->loc);
    w->a = body;
    w->list = pool_alloc(&p->in->pool, sizeof(node_t *) * (size_t)n);
    w->nlist = n;
    ilist_t set = {0};
    for (int i = 0; i < n; i++) {
        cx_life_t *L = &cx->lives[start + i];
        node_t *d = node_new(&L->pl->loc);
        d->slot = L->flag;
        d->p = L->ty;
        d->a = word_of(L->pl);
        w->list[i] = d;
        if (L->param) iadd(&set, cx_life_set(p, start + i));
    }
    if (set.n) w->b = st_block(&body->loc, set.v, set.n);
    cx->nlives = start;
    w->sfn = sx_scope;
    return w;
}

/* ---------------- session variables ---------------- */
static int sx_gvar_replace(node_t *n, frame_t *f) {
    cx_state_t *cs = cx_state(g_in);
    gvar_t *g = n->p;
    gvar_t *old = hmap_get(&cs->gconstructed, g->name);
    if (old) {
        hmap_del(&cs->gconstructed, g->name);
        if (g_bufs[old->bslot].state == BUF_LIVE) cx_rt_destroy(old->ty, ptr_make(old->bslot, 0), n);
    }
    return n->a->sfn(n->a, f);
}
node_t *cx_gvar_replace(P *p, gvar_t *g, node_t *gdecl, loc_t *l) {
    node_t *n = node_new(l);
    n->p = g;
    n->a = gdecl;
    n->sfn = sx_gvar_replace;
    return n;
}
static int sx_gvar_constructed(node_t *n, frame_t *f) {
    gvar_t *g = n->p;
    hmap_put(&cx_state(g_in)->gconstructed, g->name, g);
    return X_NORMAL;
}
node_t *cx_gvar_constructed(P *p, gvar_t *g, loc_t *l) {
    node_t *n = node_new(l);
    n->p = g;
    n->sfn = sx_gvar_constructed;
    return n;
}
