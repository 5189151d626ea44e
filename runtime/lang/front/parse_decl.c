/* Initialisers, declarations (locals, session variables, VLAs), function
 * definitions, and C++'s using-declarations and namespace aliases. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_internal.h"
#include "cxx_class.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

/* ---------------- initializers ---------------- */
void iadd(ilist_t *o, node_t *s) { vadd(&o->v, &o->n, &o->cap, s); }
static void init_elem(P *p, node_t *pl, type_t *t, ilist_t *o);

bool is_dim3(type_t *t) { return ty_dim3 && (t->kind == T_STRUCT) && t->sd == ty_dim3->sd; }

static void dim3_ones(P *p, node_t *pl, ilist_t *o) {
    for (int i = 0; i < 3; i++) {
        node_t *m = pl_member(&pl->loc, &ty_uint, pl, i * 4);
        iadd(o, st_expr(mk_assign(&pl->loc, m, mk_int(&pl->loc, &ty_uint, 1))));
    }
}

static void init_string(P *p, node_t *pl, type_t *t, ilist_t *o) {
    node_t *s = str_literal(p);
    int64_t n = s->esz; /* with the NUL */
    if (t->count >= 0 && n - 1 > t->count)
        type_error(&s->loc, "initializer-string is too long for %s (%" PRId64 " characters, room for %ld)", tyname(t), n - 1, t->count);
    if (t->count >= 0 && n > t->count) n = t->count;
    if (t->base->size != 1) type_error(&s->loc, "a string can only initialise a char array, not %s", tyname(t));
    iadd(o, st_expr(mk_memcpy_init(&s->loc, pl, s->str, n)));
}

/* ---- data: a run of number literals, as bytes ----
 * A cell that holds a table (int big[] = {1, 2, ...}, megabytes of it) made
 * five nodes an element, 900 bytes for two of source. In the cell's own
 * code (not in loops or functions, which the native tier compiles) a run
 * of literal elements that their type holds exactly becomes its bytes,
 * copied in by one statement; anything else takes the general path. */
typedef struct { int64_t first, n; char *bytes; size_t cap; loc_t loc; } data_run_t;

static bool data_kind(const type_t *t) {
    return t->kind >= T_CHAR && t->kind <= T_DOUBLE && !t->is_enum;
}

/* The literal element at TOK ([+-] number, ',' or '}' after it) as element
 * type et holds it, into out; its token count, or 0 (the general path). */
static int data_literal(P *p, const type_t *et, unsigned char *out) {
    int k = 0;
    bool neg = false;
    if (is_p(p, P_MINUS) || is_p(p, P_PLUS)) neg = TOK->id == P_MINUS, k = 1;
    token_t *t = PEEK(k), *after = PEEK(k + 1);
    if (!(after->kind == TK_PUNCT && (after->id == P_COMMA || after->id == P_RBRACE))) return 0;
    if (t->kind == TK_FLOAT) {
        if (et->kind != T_FLOAT && et->kind != T_DOUBLE) return 0;
        if (t->lit_type != T_FLOAT && t->lit_type != T_DOUBLE) return 0;
        double d = neg ? -t->fval : t->fval;
        if (et->kind == T_FLOAT) {
            float f = (float)d;
            memcpy(out, &f, 4);
        } else memcpy(out, &d, 8);
        return k + 1;
    }
    if (t->kind != TK_INT && t->kind != TK_CHAR) return 0;
    bool sgn = t->lit_type == T_INT || t->lit_type == T_LONG || t->lit_type == T_LLONG || t->lit_type == T_CHAR;
    if (neg && !sgn) return 0; /* -1u is unsigned arithmetic: the general path */
    /* the value: signed in v when it fits int64, else the unsigned u alone */
    bool big = !sgn && t->ival > (uint64_t)INT64_MAX;
    int64_t v = sgn ? (int64_t)t->ival : (int64_t)(t->ival & (uint64_t)INT64_MAX);
    if (neg) v = -v;
    if (et->kind == T_FLOAT || et->kind == T_DOUBLE) { /* exact in the type, whatever the rounding */
        int64_t lim = et->kind == T_FLOAT ? (int64_t)1 << 24 : (int64_t)1 << 53;
        if (big || v > lim || v < -lim) return 0;
        if (et->kind == T_FLOAT) {
            float f = (float)v;
            memcpy(out, &f, 4);
        } else {
            double d = (double)v;
            memcpy(out, &d, 8);
        }
        return k + 1;
    }
    int bits = (int)et->size * 8;
    if (et->is_unsigned) {
        if (v < 0 && !big) return 0;
        uint64_t u = big ? t->ival : (uint64_t)v;
        if (bits < 64 && u >> bits) return 0;
        memcpy(out, &u, et->size); /* little-endian: the low bytes */
    } else {
        if (big || (bits < 64 && (v < -((int64_t)1 << (bits - 1)) || v >= ((int64_t)1 << (bits - 1))))) return 0;
        memcpy(out, &v, et->size);
    }
    return k + 1;
}

static void data_flush(P *p, node_t *pl, type_t *t, data_run_t *r, ilist_t *o) {
    if (!r->n) return;
    size_t n = (size_t)r->n * t->base->size;
    char *b = palloc(p, n);
    memcpy(b, r->bytes, n);
    pool_release(&p->in->scratch, r->bytes);
    node_t *el = pl_index(&r->loc, t->base, pl, mk_int(&r->loc, &ty_long, r->first));
    iadd(o, st_expr(mk_memcpy_init(&r->loc, el, b, (int64_t)n)));
    r->n = 0;
    r->bytes = NULL;
    r->cap = 0;
}

/* element idx as data when it is a literal its type holds: true, consumed */
static bool data_elem(P *p, type_t *t, int64_t idx, data_run_t *r, node_t *pl, ilist_t *o) {
    unsigned char v[8];
    int k = data_literal(p, t->base, v);
    if (!k) return false;
    if (r->n && r->first + r->n != idx) data_flush(p, pl, t, r, o); /* a designator moved on */
    size_t es = t->base->size, need = (size_t)(r->n + 1) * es;
    if (!r->n) {
        r->first = idx;
        r->loc = TOK->loc;
    }
    if (need > r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 4096;
        r->bytes = pool_regrow(&p->in->scratch, r->bytes, (size_t)r->n * es, cap);
        r->cap = cap;
    }
    memcpy(r->bytes + (size_t)r->n * es, v, es);
    r->n++;
    p->i += k;
    return true;
}

static void init_array(P *p, node_t *pl, type_t *t, bool braced, ilist_t *o) {
    if (TOK->kind == TK_STR && t->base->size == 1 && ty_is_int(t->base)) {
        init_string(p, pl, t, o);
        if (braced) { accept(p, P_COMMA); expect(p, P_RBRACE, "'}'"); }
        return;
    }
    int64_t idx = 0;
    int64_t count = t->count;
    bool data = braced && count >= 0 && data_kind(t->base) && p->f->is_cell && !p->f->loops;
    data_run_t run = {0};
    while (!is_p(p, P_RBRACE) && TOK->kind != TK_EOF) {
        if (!braced && count >= 0 && idx >= count) return;
        if (is_p(p, P_LBRACK) && braced) {
            p->i++;
            idx = const_int(p, const_expr(p), "an array designator");
            expect(p, P_RBRACK, "']'");
            expect(p, P_ASSIGN, "'='");
        }
        if (count >= 0 && idx >= count) type_error(&TOK->loc, "excess elements in array initializer (%s has %ld)", tyname(t), count);
        if (idx < 0) type_error(&TOK->loc, "negative array designator");
        if (!data || !data_elem(p, t, idx, &run, pl, o)) {
            data_flush(p, pl, t, &run, o);
            node_t *el = pl_index(&TOK->loc, t->base, pl, mk_int(&TOK->loc, &ty_long, idx));
            init_elem(p, el, t->base, o);
        }
        idx++;
        if (data) p_tokens_done(p);
        if (!braced && count >= 0 && idx >= count) return; /* the parent takes the comma */
        if (!braced && is_p(p, P_COMMA) && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_RBRACE) return;
        if (!accept(p, P_COMMA)) break;
    }
    data_flush(p, pl, t, &run, o);
    if (braced) expect(p, P_RBRACE, "'}'");
}

static void init_struct(P *p, node_t *pl, type_t *t, bool braced, ilist_t *o) {
    sdef_t *sd = t->sd;
    if (!sd->complete) type_error(&pl->loc, "initialising incomplete type %s", tyname(t));
    if (is_dim3(t)) dim3_ones(p, pl, o);
    int fi = 0;
    while (!is_p(p, P_RBRACE) && TOK->kind != TK_EOF) {
        if (accept(p, P_DOT) && braced) {
            if (TOK->kind != TK_IDENT) expected(p, "a member name");
            int k;
            for (k = 0; k < sd->nfields; k++)
                if (sd->fields[k].name && (int)strlen(sd->fields[k].name) == TOK->n && !memcmp(sd->fields[k].name, TOK->s, (size_t)TOK->n)) break;
            if (k == sd->nfields) type_error(&TOK->loc, "%s has no member named '%.*s'", tyname(t), TOK->n, TOK->s);
            p->i++;
            expect(p, P_ASSIGN, "'='");
            fi = k;
        }
        if (fi >= sd->nfields || (sd->is_union && fi > 0 && !braced)) {
            if (!braced) return;
            type_error(&TOK->loc, "excess elements in struct initializer");
        }
        field_t *f = &sd->fields[fi];
        node_t *m = pl_member(&TOK->loc, f->ty, pl, (int64_t)f->off);
        init_elem(p, m, f->ty, o);
        fi++;
        if (sd->is_union && !braced) return;
        if (!accept(p, P_COMMA)) break;
        if (!braced && (is_p(p, P_RBRACE) || fi >= sd->nfields)) {
            if (is_p(p, P_RBRACE) || fi >= sd->nfields) { p->i--; return; }
        }
    }
    if (braced) expect(p, P_RBRACE, "'}'");
}

static void init_elem_inner(P *p, node_t *pl, type_t *t, ilist_t *o);
static void init_elem(P *p, node_t *pl, type_t *t, ilist_t *o) {
    nest_enter(p);
    init_elem_inner(p, pl, t, o);
    nest_leave(p);
}

static void init_elem_inner(P *p, node_t *pl, type_t *t, ilist_t *o) {
    loc_t l0 = TOK->loc;
    if (t->kind == T_ARRAY) {
        if (accept(p, P_LBRACE)) init_array(p, pl, t, true, o);
        else init_array(p, pl, t, false, o);
        return;
    }
    if (t->kind == T_STRUCT || t->kind == T_UNION) {
        if (accept(p, P_LBRACE)) { init_struct(p, pl, t, true, o); return; }
        int save = p->i;
        node_t *e = assign_expr(p);
        if ((e->ty->kind == t->kind && e->ty->sd == t->sd) || (is_dim3(t) && ty_is_int(e->ty))) {
            loc_t l = from(p, &l0);
            iadd(o, st_expr(assign_to(p, pl, rvalue(p, e), &l, "initialization")));
            return;
        }
        p->i = save;
        init_struct(p, pl, t, false, o);
        return;
    }
    bool br = accept(p, P_LBRACE);
    node_t *e = assign_expr(p);
    if (br) { accept(p, P_COMMA); expect(p, P_RBRACE, "'}'"); }
    loc_t l = from(p, &l0);
    if (e->ty->kind == T_FUNC && (e->op == FD_USER || e->op == FD_BUILTIN)) iadd(o, st_expr(assign_to(p, pl, e, &l, "initialization")));
    else iadd(o, st_expr(assign_to(p, pl, rvalue(p, e), &l, "initialization")));
}

/* the whole initializer of an object at pl */
static void initializer(P *p, node_t *pl, type_t *t, ilist_t *o) {
    if (is_p(p, P_LBRACE) || (t->kind == T_ARRAY && TOK->kind == TK_STR)) {
        if (t->kind == T_ARRAY || t->kind == T_STRUCT || t->kind == T_UNION)
            iadd(o, st_expr(mk_memset0(&pl->loc, pl, (int64_t)t->size)));
    }
    init_elem(p, pl, t, o);
}

/* C++: a const integer initialised with a constant is itself a constant
 * expression (const int n = 5; double a[n] = {...}). */
static void const_value(sym_t *s, type_t *t, const node_t *pl, const ilist_t *io) {
    const node_t *as = io->n == 1 ? io->v[0]->a : NULL;
    bool k = t->is_const && ty_is_int(t) && !t->is_ref && as && as->a == pl && as->b && as->b->is_const;
    int64_t v = k ? as->b->k.i : 0;
    if (s->kind == S_VAR_GLOBAL) {
        s->gv->has_cval = k;
        s->gv->cval = v;
    } else {
        s->cval = k;
        s->ival = v;
    }
}

/* int a[] = {...}: the element count from the tokens */
static long count_init(P *p, type_t *t) {
    int j = p->i;
    if (p->t[j].kind == TK_STR) {
        long n = 0;
        while (p->t[j].kind == TK_STR) n += p->t[j++].slen - 1;
        return n + 1;
    }
    if (p->t[j].kind == TK_PUNCT && p->t[j].id == P_LBRACE && p->t[j + 1].kind == TK_STR && t->base->size == 1)
        return p->t[j + 1].slen;
    if (!(p->t[j].kind == TK_PUNCT && p->t[j].id == P_LBRACE)) type_error(&p->t[j].loc, "an array of unknown size needs a braced initializer");
    int d = 0;
    long n = 0, idx = 0, mx = 0;
    bool item = false;
    /* elements per top-level item: a scalar element type takes one per comma,
     * an aggregate element without braces takes several (brace elision) */
    long per = 1;
    if (t->base->kind != T_ARRAY && t->base->kind != T_STRUCT && t->base->kind != T_UNION) per = 1;
    for (; j < p->n; j++) {
        token_t *k = &p->t[j];
        if (k->kind == TK_EOF) break;
        if (k->kind == TK_PUNCT && (k->id == P_LBRACE || k->id == P_LPAREN || k->id == P_LBRACK)) {
            if (d == 1 && k->id == P_LBRACK && !item) { /* designator */
                if (p->t[j + 1].kind == TK_INT) idx = (long)p->t[j + 1].ival;
            }
            d++;
            if (d == 2 && k->id != P_LBRACK) item = true; /* {...} or an element that starts with '(' (NULL) */
            continue;
        }
        if (k->kind == TK_PUNCT && (k->id == P_RBRACE || k->id == P_RPAREN || k->id == P_RBRACK)) {
            d--;
            if (d == 0) { if (item) { idx++; if (idx > mx) mx = idx; } break; }
            continue;
        }
        if (d == 1 && k->kind == TK_PUNCT && k->id == P_COMMA) {
            if (item) { idx++; if (idx > mx) mx = idx; }
            item = false;
            n++;
            continue;
        }
        if (d == 1 && !(k->kind == TK_PUNCT && k->id == P_ASSIGN)) item = true;
    }
    (void)per;
    if (t->base->kind == T_STRUCT && t->base->sd->complete) {
        /* brace-elided structs: count scalars */
        bool braced_items = false;
        for (int q = p->i + 1; q < j; q++) if (p->t[q].kind == TK_PUNCT && p->t[q].id == P_LBRACE) { braced_items = true; break; }
        if (!braced_items && t->base->sd->nfields > 0) mx = (mx + t->base->sd->nfields - 1) / t->base->sd->nfields;
    }
    return mx;
}

/* ---------------- declarations ---------------- */
static val_t ev_clit(node_t *n, frame_t *f) {
    n->a->sfn(n->a, f);
    return (val_t){.p = f->mem + n->k.i};
}
node_t *compound_literal(P *p, type_t *t, loc_t *l0) {
    if (t->kind == T_ARRAY && t->count < 0) t = ty_array(t->base, count_init(p, t));
    if (t->vla) type_error(l0, "a compound literal cannot have a variable size");
    int64_t off = new_mem(p, t, (int64_t)t->size);
    node_t *tmp = pl_frame(l0, t, off, -1);
    ilist_t o = {0};
    accept(p, P_LBRACE);
    iadd(&o, st_expr(mk_memset0(l0, tmp, (int64_t)t->size)));
    if (t->kind == T_ARRAY) init_array(p, tmp, t, true, &o);
    else if (t->kind == T_STRUCT || t->kind == T_UNION) init_struct(p, tmp, t, true, &o);
    else {
        node_t *e = rvalue(p, assign_expr(p));
        accept(p, P_COMMA);
        expect(p, P_RBRACE, "'}'");
        iadd(&o, st_expr(assign_to(p, tmp, e, &e->loc, "initialization")));
    }
    loc_t l = from(p, l0);
    node_t *v = node_new(&l);
    v->ty = t;
    v->a = st_block(&l, o.v, o.n);
    v->k.i = off;
    v->fn = ev_clit;
    if (ty_is_aggr(t)) return pl_temp(&l, t, v);
    node_t *pl = pl_temp(&l, t, v);
    return pl;
}

node_t *dim3_literal(P *p, loc_t *l, node_t **vals, int n) {
    if (n > 3) type_error(l, "dim3 takes at most 3 values, not %d", n);
    int64_t off = new_mem(p, ty_dim3, 12);
    node_t *tmp = pl_frame(l, ty_dim3, off, -1);
    ilist_t o = {0};
    for (int i = 0; i < 3; i++) {
        node_t *m = pl_member(l, &ty_uint, tmp, i * 4);
        node_t *v;
        if (i < n) {
            if (!ty_is_arith(vals[i]->ty)) type_error(&vals[i]->loc, "dim3 needs numbers, not %s", tyname(vals[i]->ty));
            v = mk_cast(vals[i], &ty_uint);
        } else v = mk_int(l, &ty_uint, 1);
        iadd(&o, st_expr(mk_assign(l, m, v)));
    }
    node_t *v = node_new(l);
    v->ty = ty_dim3;
    v->a = st_block(l, o.v, o.n);
    v->k.i = off;
    v->fn = ev_clit;
    return pl_temp(l, ty_dim3, v);
}

void skip_item(P *p) {
    int d = 0;
    while (TOK->kind != TK_EOF) {
        if (is_p(p, P_LBRACE) || is_p(p, P_LPAREN) || is_p(p, P_LBRACK)) d++;
        else if (is_p(p, P_RBRACE) || is_p(p, P_RPAREN) || is_p(p, P_RBRACK)) {
            d--;
            if (d == 0 && is_p(p, P_RBRACE)) {
                p->i++;
                accept(p, P_SEMI);
                return;
            }
        } else if (d == 0 && is_p(p, P_SEMI)) { p->i++; return; }
        p->i++;
    }
}

static bool name_addressed(P *p, const char *nm) { return hmap_get(&p->addressed, nm) != NULL; }

static gvar_t *new_gvar(P *p, const char *name, type_t *t, loc_t *l, bool hidden) {
    /* the same name with the same type keeps its storage, so functions
     * compiled earlier keep seeing it */
    sym_t *old = hidden ? NULL : hmap_get(&p->in->globals, name);
    sym_t *cur = hidden ? NULL : hmap_get(&p->cell, name);
    if (cur && cur->kind == S_VAR_GLOBAL && ty_same(cur->gv->ty, t)) return cur->gv;
    if (old && old->kind == S_VAR_GLOBAL && ty_same(old->gv->ty, t) && old->gv->ty->size == t->size) return old->gv;
    gvar_t *g = palloc(p, sizeof *g);
    g->name = name;
    g->ty = t;
    g->loc = *l;
    uint64_t ptr = mem_alloc(t->size, PLACE_GLOBAL, name, l);
    if (!ptr) type_error(l, "out of memory for %s (%zu bytes)", name, t->size);
    g->bslot = ptr_slot(ptr);
    g->addr = g_bufs[g->bslot].base;
    ARRAY_GROW(p->newg, p->nnewg, p->capnewg);
    p->newg[p->nnewg++] = g;
    interp_t *in = p->in;
    ARRAY_GROW(in->gvars, in->ngvars, in->capgvars);
    in->gvars[in->ngvars++] = g;
    if (hidden) g->committed = true;
    return g;
}


/* a top-level VLA runs: a session array of the size computed now */
static int sx_gvla(node_t *n, frame_t *f) {
    interp_t *in = g_in;
    int64_t cnt = n->a->fn(n->a, f).i;
    if (cnt <= 0 || cnt > ((int64_t)1 << 36) / (n->esz ? n->esz : 1))
        rt_error(n, "variable-length array %s has %s size %" PRId64, (char *)n->p, cnt == 0 ? "zero" : "invalid", cnt);
    type_t *t = ty_array((type_t *)n->c, (long)cnt);
    if (n->nlist) { /* double m[r][c]: the session variable gets the sizes computed now */
        t = (type_t *)n->c;
        for (int i = n->nlist - 1; i >= 0; i--) t = ty_array(t, (long)n->list[i]->fn(n->list[i], f).i);
    }
    gvar_t *g = pool_alloc(&in->pool, sizeof *g);
    g->name = n->p;
    g->ty = t;
    g->loc = n->loc;
    uint64_t ptr = mem_alloc(t->size, PLACE_GLOBAL, g->name, &n->loc);
    if (!ptr) mem_limit_error(n, t->size, "the variable-length array %s would", g->name);
    g->bslot = ptr_slot(ptr);
    g->addr = g_bufs[g->bslot].base;
    g->committed = true;
    ARRAY_GROW(in->gvars, in->ngvars, in->capgvars);
    in->gvars[in->ngvars++] = g;
    sym_t *s = pool_alloc(&in->pool, sizeof *s);
    s->name = g->name;
    s->kind = S_VAR_GLOBAL;
    s->ty = t;
    s->gv = g;
    hmap_put(&in->globals, g->name, s);
    f->slots[n->slot].u = ptr;
    if (n->slot2 >= 0) f->slots[n->slot2].i = cnt;
    return X_NORMAL;
}

/* double m[r][c] (a variable dimension below the first): copies t's array
 * levels, gives every variable one a slot that the statements added to o set
 * (in order, once: C fixes a VLA's size at its declaration), and returns the
 * number of innermost elements; *dims gets each level's count (for sx_gvla). */
static node_t *vla_nested(P *p, type_t **tp, loc_t *l, ilist_t *o, node_t ***dims, int *ndims) {
    type_t *top = ty_copy(*tp), *t = top;
    int n = 1;
    while (t->base->kind == T_ARRAY) { t->base = ty_copy(t->base); t = t->base; n++; }
    node_t **dv = palloc(p, sizeof(node_t *) * (size_t)n);
    n = 0;
    for (t = top; t->kind == T_ARRAY; t = t->base) {
        if (t->vla) {
            int slot = new_slot(p);
            iadd(o, st_expr(mk_assign(l, pl_slot(l, &ty_long, slot), mk_cast(t->vla, &ty_long))));
            t->vla_slot = slot;
            /* a dimension <= 0 makes the whole size 0: "has zero size" */
            node_t *v = mk_load(pl_slot(l, &ty_long, slot));
            dv[n++] = mk_cond(l, &ty_long, mk_cmp(l, P_GT, &ty_long, v, mk_int(l, &ty_long, 0)), v, mk_int(l, &ty_long, 0));
        } else dv[n++] = mk_int(l, &ty_long, t->count);
    }
    node_t *total = dv[0];
    for (int i = 1; i < n; i++) total = mk_binop(l, P_STAR, &ty_long, total, dv[i]);
    *tp = top;
    if (dims) *dims = dv;
    if (ndims) *ndims = n;
    return total;
}

/* one declaration (after its specifiers); adds statements to o */
void declaration(P *p, type_t *base, int storage, bool global, ilist_t *o) {
    for (;;) {
        token_t *nm = NULL;
        loc_t dl = TOK->loc;
        type_t *t = declarator(p, base, &nm);
        if (!nm) {
            if (t->kind == T_STRUCT || t->kind == T_UNION || t->is_enum) { /* struct x {...}; */
                if (!is_p(p, P_SEMI)) expected(p, "';'");
                return;
            }
            expected(p, "a name in the declaration");
        }
        char *name = global ? cxx_decl_name(p, nm) : pstr(p, nm);
        loc_t l = nm->loc;
        if (storage == KW_TYPEDEF) {
            sym_t *s = palloc(p, sizeof *s);
            s->name = name;
            s->kind = S_TYPEDEF;
            type_t *td = ty_copy(t);
            if (!td->name) td->name = name;
            else td->name = name;
            if (t->kind == T_STRUCT || t->kind == T_UNION) { /* C++: the tag is a name too */ }
            s->ty = td;
            if (!global) scope_add(p, s);
            else { hmap_put(&p->cell, name, s); pend(p, PEND_TYPEDEF, name, s, NULL); }
        } else if (t->kind == T_FUNC) {
            if (global && strstr(name, "::") && cxx_method_def(p, t, nm)) return; /* float Timer::stop() {...} */
            if (is_p(p, P_LBRACE)) {
                if (!global) syntax_error(&l, "a function cannot be defined inside another function");
                func_def(p, t, nm, t->pnames);
                return;
            }
            sym_t *s = palloc(p, sizeof *s);
            s->name = name;
            s->kind = S_FUNC;
            s->ty = t;
            fbox_get(p, name);
            if (!global) scope_add(p, s);
            else {
                sym_t *cur = hmap_get(&p->cell, name);
                if (!(cur && cur->kind == S_FUNC)) hmap_put(&p->cell, name, s);
                pend(p, PEND_PROTO, name, s, NULL);
            }
        } else if (storage == KW_EXTERN) {
            sym_t *s = lookup(p, nm);
            if (!s || (s->kind != S_VAR_GLOBAL)) type_error(&l, "extern variable '%s' is not defined in this session", name);
        } else {
            bool has_init = accept(p, P_ASSIGN);
            node_t *pre = NULL; /* auto and references: the initialiser, parsed before the variable exists */
            if (cxx_has_auto(t) || t->is_ref) {
                int close = 0;
                if (!has_init && accept(p, P_LBRACE)) close = P_RBRACE;
                else if (!has_init && accept(p, P_LPAREN)) close = P_RPAREN;
                if (!has_init && !close)
                    type_error(&l, "'%s' needs an initialiser (it is %s)", name, t->is_ref ? "a reference" : "declared auto");
                pre = assign_expr(p);
                if (close) expect(p, close, close == P_RBRACE ? "'}'" : "')'");
                has_init = true;
                if (cxx_has_auto(t)) t = cxx_deduce_auto(p, t, pre, &l);
            }
            if (t->kind == T_VOID) type_error(&l, "variable '%s' declared void", name);
            bool ctor = !has_init && is_dim3(t) && is_p(p, P_LPAREN);
            if (t->kind == T_ARRAY && t->count < 0 && !t->vla) {
                if (!has_init) type_error(&l, "array size missing in '%s'", name);
                t = ty_array(t->base, count_init(p, t));
            }
            if ((t->kind == T_STRUCT || t->kind == T_UNION) && !t->sd->complete)
                type_error(&l, "storage size of '%s' isn't known (%s is incomplete)", name, tyname(t));
            node_t *pl;
            sym_t *s = palloc(p, sizeof *s);
            s->name = name;
            s->ty = t;
            if (global && has_vla(t) && (!t->vla || has_vla(t->base))) {
                if (has_init) type_error(&l, "a variable-length array cannot be initialised");
                s->kind = S_VAR_LOCAL;
                s->is_vla = true;
                s->slot = new_slot(p);
                node_t **dims;
                int nd;
                node_t *total = vla_nested(p, &t, &l, o, &dims, &nd);
                s->ty = t;
                type_t *el = t;
                while (el->kind == T_ARRAY) el = el->base;
                node_t *st = st_vla(&l, s->slot, total, (int64_t)el->size, -1, name);
                st->sfn = sx_gvla;
                st->c = (node_t *)el;
                st->list = dims;
                st->nlist = nd;
                hmap_put(&p->cell, name, s);
                iadd(o, st);
                goto next;
            }
            if (global && t->vla) {
                if (has_init) type_error(&l, "a variable-length array cannot be initialised");
                s->kind = S_VAR_LOCAL;
                s->is_vla = true;
                s->slot = new_slot(p);
                int cslot = new_slot(p);
                type_t *vt = ty_copy(t);
                vt->vla_slot = cslot;
                s->ty = vt;
                node_t *st = st_vla(&l, s->slot, t->vla, (int64_t)t->base->size, cslot, name);
                st->sfn = sx_gvla;
                st->c = (node_t *)t->base;
                hmap_put(&p->cell, name, s);
                iadd(o, st);
                goto next;
            }
            if (global || storage == KW_STATIC) {
                if (t->vla) type_error(&l, "a static variable cannot be a variable-length array ('%s')", name);
                gvar_t *g = new_gvar(p, name, t, &l, !global);
                s->kind = S_VAR_GLOBAL;
                s->gv = g;
                pl = pl_global(&l, g);
                if (global) {
                    hmap_put(&p->cell, name, s);
                    iadd(o, st_gdecl(&dl, g));
                } else scope_add(p, s);
            } else {
                s->kind = S_VAR_LOCAL;
                if (has_vla(t) && (!t->vla || has_vla(t->base))) {
                    if (has_init) type_error(&l, "a variable-length array cannot be initialised");
                    s->is_vla = true;
                    s->slot = new_slot(p);
                    node_t *total = vla_nested(p, &t, &l, o, NULL, NULL);
                    s->ty = t;
                    type_t *el = t;
                    while (el->kind == T_ARRAY) el = el->base;
                    iadd(o, st_vla(&l, s->slot, total, (int64_t)el->size, -1, name));
                    scope_add(p, s);
                    goto next;
                }
                if (t->vla) {
                    s->is_vla = true;
                    s->slot = new_slot(p);
                    int cslot = new_slot(p);
                    type_t *vt = ty_copy(t);
                    vt->vla_slot = cslot;
                    s->ty = t = vt;
                    if (has_init) type_error(&l, "a variable-length array cannot be initialised");
                    iadd(o, st_vla(&l, s->slot, t->vla, (int64_t)t->base->size, cslot, name));
                    scope_add(p, s);
                    goto next;
                }
                bool addr = ty_is_aggr(t) || name_addressed(p, name);
                if (addr) {
                    s->addressable = true;
                    s->memoff = new_mem(p, t, (int64_t)t->size);
                    s->hidx = new_handle(p, s->memoff, (int64_t)t->size, name);
                    pl = pl_frame(&l, t, s->memoff, s->hidx);
                } else {
                    s->slot = new_slot(p);
                    pl = pl_slot(&l, t, s->slot);
                    pl->is_decl = true; /* its scope starts here (the native tier's nests) */
                }
                /* the initializer sees the variable (int x = sizeof x), so add it first */
                scope_add(p, s);
            }
            ilist_t io = {0};
            if (pre && t->is_ref) iadd(&io, st_expr(cxx_bind_ref(p, pl, t, pre, &l)));
            else if (cxx_declare_init(p, pl, t, has_init, global || storage == KW_STATIC, s, o, &io, &l, pre)) {} /* C++ objects */
            else if (pre) iadd(&io, st_expr(assign_to(p, pl, rvalue(p, pre), &l, "the initial value")));
            else if (has_init) {
                cxx_scope_open(p); /* C++: the initialiser's temporaries end with the declaration */
                initializer(p, pl, t, &io);
                cxx_full_expr(p, &io);
                const_value(s, t, pl, &io);
            }
            else if (ctor) {
                p->i++;
                node_t **v = NULL;
                int n = 0, cap = 0;
                while (!accept(p, P_RPAREN)) {
                    if (n && !accept(p, P_COMMA)) expected(p, "',' or ')'");
                    vadd(&v, &n, &cap, rvalue(p, assign_expr(p)));
                }
                node_t *d = dim3_literal(p, &l, v, n);
                iadd(&io, st_expr(mk_assign(&l, pl, mk_load(d))));
            } else if (is_dim3(t)) dim3_ones(p, pl, &io);
            else if (!global && storage != KW_STATIC && ty_is_aggr(t)) {
                /* a fresh object on each pass through a loop body: zero it as
                 * gcc -O0 would most often show (not required by C) */
            }
            if (storage == KW_STATIC && !global) {
                if (io.n) iadd(o, st_once(&l, st_block(&l, io.v, io.n)));
            } else
                for (int i = 0; i < io.n; i++) iadd(o, io.v[i]);
        }
    next:
        if (accept(p, P_COMMA)) continue;
        expect(p, P_SEMI, "';'");
        return;
    }
}

/* A function's parameters as locals of its body: each in a slot, or in
 * frame memory when it is a struct or its address is taken somewhere in the
 * cell; parameter in_slot (a method's this) always in a slot. */
void func_params(P *p, func_t *fn, type_t *ft, const char **pnames, int in_slot) {
    for (int i = 0; i < ft->nparams; i++) {
        type_t *pt = ft->params[i];
        sym_t *ps = palloc(p, sizeof *ps);
        ps->name = pnames && pnames[i] ? pnames[i] : "";
        ps->kind = S_VAR_LOCAL;
        ps->ty = pt;
        if (i != in_slot && (ty_is_aggr(pt) || (pnames && pnames[i] && name_addressed(p, pnames[i])))) {
            ps->addressable = true;
            ps->memoff = new_mem(p, pt, (int64_t)pt->size);
            ps->hidx = new_handle(p, ps->memoff, (int64_t)pt->size, ps->name);
            fn->pslot[i] = -1;
            fn->pmem[i] = ps->memoff;
        } else {
            ps->slot = new_slot(p);
            fn->pslot[i] = ps->slot;
        }
        if (pt->kind == T_PTR && pt->base->kind == T_ARRAY && has_vla(pt->base))
            for (int k = 0; k < i; k++)
                if (fn->pslot[k] != k)
                    type_error(&fn->loc, "variable-length array parameter '%s' of %s: its size must come from "
                               "earlier parameters that are not addressed (&) and not structs",
                               ps->name, fn->name);
        if (pnames && pnames[i]) scope_add(p, ps);
    }
}

/* ---------------- functions ---------------- */
void func_def(P *p, type_t *ft, token_t *name, const char **pnames) {
    char *nm = p->parent ? pstr(p, name) : cxx_decl_name(p, name);
    func_t *fn = palloc(p, sizeof *fn);
    fn->name = nm;
    fn->ty = ft;
    fn->loc = name->loc;
    fn->defined = true;
    /* visible to its own body (recursion) and the rest of the cell */
    sym_t *s = palloc(p, sizeof *s);
    s->name = nm;
    s->kind = S_FUNC;
    s->ty = ft;
    s = cxx_overload_add(p, s, fn); /* C++: another f with other parameter types joins f's overloads */
    hmap_put(&p->cell, nm, s);
    fbox_t *box = fbox_get(p, fn->name);
    (void)box;
    if (ty_is_aggr(ft->base) && ft->base->kind != T_ARRAY && !ft->base->sd->complete)
        type_error(&name->loc, "return type %s is incomplete", tyname(ft->base));
    fctx_t fc = {0};
    fc.fn = fn;
    fc.ret = ft->base;
    fc.up = p->f;
    /* a function of the cell's own (not a method, not a template's): nothing
     * looks back at its statements' tokens once they are parsed */
    fc.discards = p->f == p->cellf && !p->parent;
    fctx_t *saved = p->f;
    p->f = &fc;
    int saved_marks = p->nmarks;
    scope_push(p);
    fn->nparams = ft->nparams;
    fn->pslot = palloc(p, sizeof(int) * (size_t)(ft->nparams + 1));
    fn->pmem = palloc(p, sizeof(int64_t) * (size_t)(ft->nparams + 1));
    func_params(p, fn, ft, pnames, -1);
    loc_t bl = TOK->loc;
    expect(p, P_LBRACE, "'{'");
    fn->body = block(p, &bl);
    cxx_check_labels(p);
    scope_pop(p);
    (void)saved_marks;
    fn->nslots = fc.nslots;
    fn->memsize = fc.memsize;
    fn->mem = fc.mem;
    fn->nmem = fc.nmem;
    p->f = saved;
    pend(p, PEND_FUNC, nm, fn, s);
}

/* the initializer of an object at pl, for C++ member initialisers (parse_class.c) */
void decl_initializer(P *p, node_t *pl, type_t *t, ilist_t *o) { initializer(p, pl, t, o); }

/* ---------------- C++ using-declarations and namespace aliases ---------------- */
static char *qual_text(P *p) { /* an identifier, possibly qualified (joined) */
    if (TOK->kind != TK_IDENT) expected(p, "a name");
    char *s = pstr(p, TOK);
    p->i++;
    return s;
}

static void add_using(interp_t *in, const char *ns) {
    for (int i = 0; i < in->nusings; i++)
        if (!strcmp(in->usings[i], ns)) return;
    in->usings = xreallocarray(in->usings, (size_t)in->nusings + 1, sizeof *in->usings);
    in->usings[in->nusings++] = ns;
}

/* `using namespace N;`, `using N::x;`, `using T = type;`, `namespace a = b;`
 * at the top of a cell or in a block: session-wide, as the device prelude
 * keeps them too. */
bool cxx_using_item(P *p) {
    interp_t *in = p->in;
    loc_t l0 = TOK->loc;
    if (accept(p, KW_USING)) {
        if (accept(p, KW_NAMESPACE)) {
            char *ns = qual_text(p);
            const char *al = hmap_get(&in->ns_alias, ns);
            expect(p, P_SEMI, "';'");
            add_using(in, al ? al : ns);
            return true;
        }
        accept(p, KW_TYPENAME);
        char *nm = qual_text(p);
        if (accept(p, P_ASSIGN)) { /* using T = type; is a typedef */
            type_t *t = abstract_type(p);
            expect(p, P_SEMI, "';'");
            sym_t *s = palloc(p, sizeof *s);
            s->name = nm;
            s->kind = S_TYPEDEF;
            s->ty = t;
            if (p->f->is_cell && p->nmarks == 0) {
                hmap_put(&p->cell, nm, s);
                pend(p, PEND_TYPEDEF, nm, s, NULL);
            } else
                scope_add(p, s);
            return true;
        }
        expect(p, P_SEMI, "';'");
        const char *last = strrchr(nm, ':');
        if (!last) syntax_error(&l0, "'using %s;' needs a qualified name such as std::%s", nm, nm);
        hmap_put(&in->ns_alias, pool_strndup(&in->pool, last + 1, strlen(last + 1)), nm);
        return true;
    }
    if (is_kw(p, KW_NAMESPACE)) {
        p->i++;
        if (TOK->kind == TK_IDENT && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_ASSIGN) {
            char *a = qual_text(p);
            p->i++;
            char *target = qual_text(p);
            expect(p, P_SEMI, "';'");
            const char *al = hmap_get(&in->ns_alias, target);
            hmap_put(&in->ns_alias, a, (void *)(al ? al : target));
            return true;
        }
        p->i--;
        return false; /* a namespace block: the cell's top level reads it */
    }
    return false;
}
