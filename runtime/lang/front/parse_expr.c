/* Expressions: every operator type-checked, its conversions made explicit,
 * each name resolved to where it lives; the result is a typed node whose
 * evaluator is chosen here (the evaluator's builders, eval.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_internal.h"
#include "cxx_class.h"
#include "runtime/base/xalloc.h"


/* ---------------- expressions ---------------- */
static type_t *lit_type(int k) {
    switch (k) {
    case T_UINT: return &ty_uint;
    case T_LONG: return &ty_long;
    case T_ULONG: return &ty_ulong;
    case T_LLONG: return &ty_llong;
    case T_ULLONG: return &ty_ullong;
    case T_FLOAT: return &ty_float;
    case T_DOUBLE: return &ty_double;
    case T_LDOUBLE: return &ty_ldouble;
    case T_CHAR: return &ty_char;
    default: return &ty_int;
    }
}

static bool is_null_const(node_t *e) {
    return e->is_const && (ty_is_int(e->ty) || (e->ty->kind == T_PTR && e->ty->base->kind == T_VOID)) && e->k.u == 0;
}

/* lvalue -> value: arrays decay to pointers, functions to function pointers */
node_t *rvalue(P *p, node_t *e) {
    if (!e->is_place) {
        if (e->ty->kind == T_ARRAY && e->p == (void *)1) { /* string literal constant */
            node_t *n = node_new(&e->loc);
            *n = *e;
            n->ty = ty_ptr(e->ty->base);
            n->p = (void *)2;
            return n;
        }
        return e;
    }
    if (e->ty->kind == T_ARRAY) {
        node_t *a = mk_addr(e);
        a->ty = ty_ptr(e->ty->base);
        a->loc = e->loc;
        return a;
    }
    if (e->ty->kind == T_FUNC) return e; /* handled by callers */
    if ((e->ty->kind == T_STRUCT || e->ty->kind == T_UNION) && !e->ty->sd->complete)
        type_error(&e->loc, "'%s' has incomplete type", tyname(e->ty));
    node_t *n = mk_load(e);
    n->loc = e->loc;
    return n;
}

/* a built-in used as a function pointer (apply(sqrt, 2.0)): a small
 * interpreted function that calls it, made once per session */
static fbox_t *builtin_thunk(P *p, builtin_t *b, loc_t *l) {
    char key[80];
    snprintf(key, sizeof key, " builtin %s", b->name);
    fbox_t *box = hmap_get(&p->in->fboxes, key);
    if (box) return box;
    type_t *ft = b->ty;
    if (ft->variadic) type_error(l, "the built-in '%s' cannot be used as a function pointer", b->name);
    func_t *fn = palloc(p, sizeof *fn);
    fn->name = b->name;
    fn->ty = ft;
    fn->defined = true;
    fn->loc = *l;
    fn->nparams = ft->nparams;
    fn->pslot = palloc(p, sizeof(int) * (size_t)(ft->nparams + 1));
    fn->pmem = palloc(p, sizeof(int64_t) * (size_t)(ft->nparams + 1));
    node_t **args = palloc(p, sizeof(node_t *) * (size_t)(ft->nparams + 1));
    for (int i = 0; i < ft->nparams; i++) {
        fn->pslot[i] = i;
        args[i] = mk_load(pl_slot(l, ft->params[i], i));
    }
    fn->nslots = ft->nparams;
    node_t *call = mk_builtin(l, b, ft->base, args, ft->nparams);
    fn->body = ft->base->kind == T_VOID ? st_expr(call) : st_return(l, call, ft->base);
    box = palloc(p, sizeof *box);
    box->name = b->name;
    box->owner = p->in->id;
    box->id = g_nfboxes;
    box->cur = fn;
    g_fboxes = xreallocarray(g_fboxes, (size_t)g_nfboxes + 1, sizeof *g_fboxes);
    g_fboxes[g_nfboxes++] = box;
    hmap_put(&p->in->fboxes, pool_strndup(&p->in->pool, key, strlen(key)), box);
    return box;
}

node_t *conv_assign(P *p, node_t *e, type_t *t, const char *what) {
    type_t *et = e->ty;
    if (et->kind == T_FUNC && e->op == FD_BUILTIN) {
        builtin_t *b = e->p;
        if (t->kind == T_PTR && t->base->kind == T_FUNC) {
            if (!ty_same(t->base, et)) type_error(&e->loc, "%s: '%s' has type %s, not %s", what, b->name, tyname(et), tyname(t->base));
            fbox_t *box = builtin_thunk(p, b, &e->loc);
            return mk_const(&e->loc, t, (val_t){.u = ((uint64_t)SLOT_FUNC << PTR_SLOT_SHIFT) | (uint64_t)box->id});
        }
    }
    type_t *ut = ty_unqual(t);
    if (et->kind == T_FUNC && e->p) { /* function designator to a function pointer */
        if (t->kind == T_PTR && t->base->kind == T_FUNC) {
            if (!ty_same(t->base, et)) type_error(&e->loc, "%s: function '%s' has type %s, not %s", what, ((fbox_t *)e->p)->name, tyname(et), tyname(t->base));
            return mk_const(&e->loc, t, (val_t){.u = ((uint64_t)SLOT_FUNC << PTR_SLOT_SHIFT) | (uint64_t)((fbox_t *)e->p)->id});
        }
    }
    if (ty_is_arith(ut) && ty_is_arith(et)) return mk_cast(e, ut);
    if (ut->kind == T_BOOL && et->kind == T_PTR) return mk_cast(e, ut);
    if (ut->kind == T_PTR) {
        if (is_null_const(e)) return mk_cast(e, ut);
        if (et->kind == T_PTR) {
            if (ty_compat_ptr(ut->base, et->base) ||
                (ty_is_int(ut->base) && ty_is_int(et->base) && ut->base->size == et->base->size &&
                 ut->base->size == 1))
                { node_t *n = mk_cast(e, ut); n->ty = ut; return n; }
            type_error(&e->loc, "%s: incompatible pointer types: %s is not %s", what, tyname(et), tyname(t));
        }
        if (ty_is_int(et)) type_error(&e->loc, "%s: an integer (%s) is not a pointer (%s); cast it if you mean it", what, tyname(et), tyname(t));
    }
    if (ty_is_int(ut) && et->kind == T_PTR)
        type_error(&e->loc, "%s: a pointer (%s) is not an integer (%s); cast it if you mean it", what, tyname(et), tyname(t));
    if ((ut->kind == T_STRUCT || ut->kind == T_UNION) && (et->kind == ut->kind) && et->sd == ut->sd) return e;
    if (ut == ty_dim3 || (ut->sd && ty_dim3 && ut->sd == ty_dim3->sd)) {
        if (ty_is_int(et)) { /* dim3 from one number: (n, 1, 1) */
            return NULL;
        }
    }
    type_error(&e->loc, "%s: cannot convert %s to %s", what, tyname(et), tyname(t));
}

static node_t *arith_conv(node_t **a, node_t **b) {
    type_t *t = ty_common((*a)->ty, (*b)->ty);
    *a = mk_cast(*a, t);
    *b = mk_cast(*b, t);
    return NULL;
}

static void need_arith(node_t *e, const char *op) {
    if (!ty_is_arith(e->ty)) type_error(&e->loc, "invalid operand to %s: %s", op, tyname(e->ty));
}
static void need_int(node_t *e, const char *op) {
    if (!ty_is_int(e->ty)) type_error(&e->loc, "invalid operand to %s: %s (an integer is needed)", op, tyname(e->ty));
}
void need_scalar(node_t *e, const char *what) {
    if (!ty_is_scalar(e->ty)) type_error(&e->loc, "%s needs a number or a pointer, not %s", what, tyname(e->ty));
}


static int64_t elem_size(type_t *pt, loc_t *l) {
    type_t *b = pt->base;
    if (b->kind == T_VOID) return 1; /* gcc's void * arithmetic */
    if (b->kind == T_FUNC) type_error(l, "arithmetic on a function pointer");
    if ((b->kind == T_STRUCT || b->kind == T_UNION) && !b->sd->complete)
        type_error(l, "arithmetic on a pointer to an incomplete type");
    return (int64_t)b->size;
}

node_t *binary(P *p, int op, node_t *a, node_t *b, loc_t *l, const char *opname) {
    if (cx_class_of(a->ty) || cx_class_of(b->ty)) return cxx_binary(p, op, a, b, l); /* C++ library operators */
    a = rvalue(p, a);
    b = rvalue(p, b);
    switch (op) {
    case P_PLUS: case P_MINUS:
        if (a->ty->kind == T_PTR && ty_is_int(b->ty)) {
            return mk_ptradd(l, a, mk_cast(b, &ty_long), elem_size(a->ty, l), op == P_MINUS ? -1 : 1);
        }
        if (op == P_PLUS && ty_is_int(a->ty) && b->ty->kind == T_PTR)
            return mk_ptradd(l, b, mk_cast(a, &ty_long), elem_size(b->ty, l), 1);
        if (op == P_MINUS && a->ty->kind == T_PTR && b->ty->kind == T_PTR) {
            if (!ty_compat_ptr(ty_unqual(a->ty->base), ty_unqual(b->ty->base)) && a->ty->base->kind != b->ty->base->kind)
                type_error(l, "subtraction of pointers of different types: %s and %s", tyname(a->ty), tyname(b->ty));
            return mk_ptrdiff(l, a, b, elem_size(a->ty, l));
        }
        /* fallthrough */
    case P_STAR: case P_DIV:
        need_arith(a, opname);
        need_arith(b, opname);
        arith_conv(&a, &b);
        return mk_binop(l, op, a->ty, a, b);
    case P_MOD: case P_AMP: case P_OR: case P_XOR:
        need_int(a, opname);
        need_int(b, opname);
        arith_conv(&a, &b);
        return mk_binop(l, op, a->ty, a, b);
    case P_SHL: case P_SHR: {
        need_int(a, opname);
        need_int(b, opname);
        a = mk_cast(a, ty_promote(a->ty));
        b = mk_cast(b, ty_promote(b->ty));
        node_t *n = mk_binop(l, op, a->ty, a, b);
        return n;
    }
    case P_LT: case P_GT: case P_LE: case P_GE: case P_EQ: case P_NE:
        if (a->ty->kind == T_PTR || b->ty->kind == T_PTR) {
            if (a->ty->kind == T_PTR && b->ty->kind == T_PTR) {
                if (!ty_compat_ptr(ty_unqual(a->ty->base), ty_unqual(b->ty->base)) && !(op == P_EQ || op == P_NE))
                    type_error(l, "comparison of distinct pointer types: %s and %s", tyname(a->ty), tyname(b->ty));
            } else if (is_null_const(a)) a = mk_cast(a, b->ty);
            else if (is_null_const(b)) b = mk_cast(b, a->ty);
            else type_error(l, "comparison between a pointer and an integer: %s and %s", tyname(a->ty), tyname(b->ty));
            return mk_cmp(l, op, a->ty, a, b);
        }
        need_arith(a, opname);
        need_arith(b, opname);
        arith_conv(&a, &b);
        return mk_cmp(l, op, a->ty, a, b);
    case P_LAND: case P_LOR:
        need_scalar(a, opname);
        need_scalar(b, opname);
        return mk_logic(l, op, a, b);
    }
    syntax_error(l, "unknown operator");
}

/* The word of a string literal's read-only buffer. Its bytes live in
 * in->keep, shared by equal literals (C allows it): a session pointer to
 * one outlives a cell whose syntax tree is given back, and a cell run again
 * and again adds no buffer. *bytes: the literal's lasting copy. */
uint64_t strlit_word(P *p, const char *s, size_t len, loc_t *l, const char **bytes) {
    interp_t *in = p->in;
    bool plain = strlen(s) == len; /* an embedded NUL cannot be a map key */
    if (plain) {
        uintptr_t slot = (uintptr_t)hmap_get(&in->strlits, s);
        if (slot && slot < g_nbufs && g_bufs[slot].state == BUF_LIVE && g_bufs[slot].place == PLACE_STRLIT &&
            g_bufs[slot].size == len + 1 && !memcmp(g_bufs[slot].base, s, len + 1)) {
            *bytes = g_bufs[slot].base;
            return ptr_make((uint32_t)slot, 0);
        }
    }
    char *k = pool_alloc(&in->keep, len + 1);
    memcpy(k, s, len + 1);
    uint32_t slot = buf_new(k, len + 1, PLACE_STRLIT, NULL, l);
    if (!slot) type_error(l, "too many buffers");
    g_bufs[slot].owner = in->id;
    if (plain) hmap_put(&in->strlits, k, (void *)(uintptr_t)slot);
    *bytes = k;
    return ptr_make(slot, 0);
}

node_t *str_literal(P *p) {
    /* adjacent literals concatenate */
    loc_t l = TOK->loc;
    size_t len = 0;
    int j = p->i;
    while (p->t[j].kind == TK_STR) len += (size_t)p->t[j++].slen - 1;
    char *s = palloc(p, len + 1);
    len = 0;
    while (TOK->kind == TK_STR) {
        memcpy(s + len, TOK->str, (size_t)TOK->slen - 1);
        len += (size_t)TOK->slen - 1;
        p->i++;
    }
    s[len] = 0;
    l = from(p, &l);
    const char *bytes;
    uint64_t w = strlit_word(p, s, len, &l, &bytes);
    node_t *n = mk_const(&l, ty_array(ty_const(&ty_char), (long)len + 1), (val_t){.u = w});
    n->is_const = false;
    n->p = (void *)1;     /* marks a string literal */
    n->str = bytes;       /* the bytes, for char-array initialisers and formats */
    n->esz = (int64_t)len + 1;
    return n;
}

/* depth: anonymous members inside anonymous members; a struct that holds
 * itself that way (struct U { struct U { ... }; }, found by fuzz_interp)
 * recursed until the stack ran out */
static field_t *find_field_in(type_t *st, const char *nm, int64_t *off, int depth) {
    sdef_t *sd = st->sd;
    if (!sd || depth > 64) return NULL;
    for (int i = 0; i < sd->nfields; i++) {
        field_t *f = &sd->fields[i];
        if (f->name && strcmp(f->name, nm) == 0) { *off += (int64_t)f->off; return f; }
        if (!f->name && (f->ty->kind == T_STRUCT || f->ty->kind == T_UNION) && f->ty->sd != sd) {
            int64_t o = *off + (int64_t)f->off;
            field_t *r = find_field_in(f->ty, nm, &o, depth + 1);
            if (r) { *off = o; return r; }
        }
    }
    return NULL;
}
static field_t *find_field(type_t *st, const char *nm, int64_t *off) { return find_field_in(st, nm, off, 0); }

static type_t *qualify(type_t *ft, type_t *outer) {
    return outer->is_const && !ft->is_const ? ty_const(ft) : ft;
}

node_t *member(P *p, node_t *e, bool arrow, loc_t *l0) {
    token_t *nm = TOK;
    if (nm->kind != TK_IDENT) expected(p, "a member name");
    p->i++;
    {
        node_t *r = cxx_member(p, e, arrow, nm, l0); /* C++: x.f(...) */
        if (r) return r;
    }
    loc_t l = from(p, l0);
    type_t *st;
    node_t *base;
    if (arrow) {
        node_t *r = rvalue(p, e);
        if (r->ty->kind != T_PTR || (r->ty->base->kind != T_STRUCT && r->ty->base->kind != T_UNION))
            type_error(&e->loc, "'->' needs a pointer to a struct, but %s has type %s", "the left side", tyname(r->ty));
        st = r->ty->base;
        if (!st->sd->complete) type_error(&e->loc, "'%s' is an incomplete type", tyname(st));
        char nbuf[128];
        const char *nb = lang_name(p->in, nbuf, sizeof nbuf, nm->s, (size_t)nm->n);
        int64_t off = 0;
        field_t *f = find_field(st, nb, &off);
        if (!f) type_error(&nm->loc, "%s has no member named '%s'", tyname(st), nb);
        node_t *n = pl_deref(&l, qualify(f->ty, st), r, off);
        return n;
    }
    if (e->ty->kind != T_STRUCT && e->ty->kind != T_UNION) {
        char b[100];
        if (e->ty->kind == T_PTR && (e->ty->base->kind == T_STRUCT || e->ty->base->kind == T_UNION))
            type_error(&e->loc, "'.%.*s' needs a struct, but %s is a pointer (%s): use '->'", nm->n, nm->s, loc_text(&e->loc, b, sizeof b), tyname(e->ty));
        type_error(&e->loc, "'.%.*s' needs a struct, but %s has type %s", nm->n, nm->s, loc_text(&e->loc, b, sizeof b), tyname(e->ty));
    }
    st = e->ty;
    base = e->is_place ? e : pl_temp(&e->loc, e->ty, e);
    char nbuf[128];
    const char *nb = lang_name(p->in, nbuf, sizeof nbuf, nm->s, (size_t)nm->n);
    int64_t off = 0;
    field_t *f = find_field(st, nb, &off);
    if (!f) type_error(&nm->loc, "%s has no member named '%s'", tyname(st), nb);
    return pl_member(&l, qualify(f->ty, st), base, off);
}

static node_t *funcdesig(loc_t *l, type_t *t, int op, void *what) {
    node_t *n = node_new(l);
    n->ty = t;
    n->op = op;
    n->p = what;
    return n;
}

/* A device-side name (a __constant__/__device__ variable, a kernel) given
 * to a CUDA API call, e.g. cudaMemcpyToSymbol(coef, ...): the host does not
 * know it, so it travels as its name, a string. */
static node_t *device_name_word(P *p, int close);
static node_t *device_name_arg(P *p) {
    /* (void *)kernel, (const void *)kernel, reinterpret_cast<void *>(kernel), as the samples write it */
    int save = p->i, close = 0;
    if (is_p(p, P_LPAREN) && PEEK(1)->kind == TK_KW && (PEEK(1)->id == KW_VOID || PEEK(1)->id == KW_CONST)) {
        int j = p->i + 1;
        while (j < p->n && !(p->t[j].kind == TK_PUNCT && p->t[j].id == P_RPAREN)) j++;
        p->i = j + 1;
    } else if (is_kw(p, KW_REINTERPRET_CAST) || is_kw(p, KW_STATIC_CAST)) {
        int j = p->i + 1;
        while (j < p->n && !(p->t[j].kind == TK_PUNCT && (p->t[j].id == P_GT || p->t[j].id == P_SEMI))) j++;
        if (j + 1 < p->n && p->t[j].id == P_GT && p->t[j + 1].kind == TK_PUNCT && p->t[j + 1].id == P_LPAREN) {
            p->i = j + 2;
            close = 1;
        }
    }
    node_t *r = device_name_word(p, close);
    if (!r) p->i = save;
    return r;
}

static node_t *device_name_word(P *p, int close) {
    token_t *t = TOK;
    if (t->kind != TK_IDENT || lookup(p, t)) return NULL;
    token_t *nx = PEEK(1);
    if (close && nx->kind == TK_PUNCT && nx->id == P_RPAREN) nx = PEEK(2);
    if (nx->kind != TK_PUNCT || (nx->id != P_COMMA && nx->id != P_RPAREN)) return NULL;
    if (hmap_getn(&p->in->builtins, t->s, (size_t)t->n)) return NULL;
    p->i += close ? 2 : 1;
    char *s = palloc(p, (size_t)t->n + 1);
    memcpy(s, t->s, (size_t)t->n);
    s[t->n] = 0;
    const char *bytes;
    uint64_t w = strlit_word(p, s, (size_t)t->n, &t->loc, &bytes);
    node_t *n = mk_const(&t->loc, ty_ptr(ty_const(&ty_char)), (val_t){.u = w});
    n->str = bytes;
    return n;
}

/* cudaCreateChannelDesc<T>()'s parts, read from the type of its argument
 * (never evaluated): __icuda_chan_bits(v, i), the bits of component i of a
 * number or a vector type (float4, uchar2, ...), 0 past its last;
 * __icuda_chan_kind(v), cudaChannelFormatKind's signed (0), unsigned (1) or
 * float (2). */
static node_t *channel_of(P *p, const char *name, node_t **args, int n, loc_t *l) {
    bool bits = !strcmp(name, "__icuda_chan_bits");
    if (n != (bits ? 2 : 1) || (bits && !args[1]->is_const)) type_error(l, "%s: not a channel query", name);
    type_t *t = args[0]->ty, *elem = t;
    int count = 1;
    if (t->kind == T_STRUCT && t->sd && t->sd->nfields >= 1 && t->sd->nfields <= 4) {
        elem = t->sd->fields[0].ty;
        count = t->sd->nfields;
        for (int i = 1; i < count; i++)
            if (t->sd->fields[i].ty->kind != elem->kind) elem = NULL;
    }
    if (!elem || !(ty_is_int(elem) || ty_is_float(elem)) || elem->kind == T_BOOL)
        type_error(l, "cudaCreateChannelDesc<%s>: a channel is a number or a vector type of up to four numbers",
                   tyname(t));
    if (!bits) return mk_int(l, &ty_int, ty_is_float(elem) ? 2 : elem->is_unsigned ? 1 : 0);
    int64_t i = args[1]->k.i;
    return mk_int(l, &ty_int, i >= 0 && i < count ? (int)(8 * elem->size) : 0);
}

static node_t *call_expr(P *p, node_t *fn, loc_t *l0) {
    node_t **args = NULL;
    int n = 0, cap = 0;
    while (!accept(p, P_RPAREN)) {
        if (n && !accept(p, P_COMMA)) expected(p, "',' or ')'");
        node_t *dn = fn->op == FD_GPUAPI ? device_name_arg(p) : NULL;
        vadd(&args, &n, &cap, dn ? dn : assign_expr(p));
    }
    loc_t l = from(p, l0);
    if (fn->op == FD_GPUAPI || fn->op == FD_KERNEL) {
        node_t *c = node_new(&l);
        c->ty = &ty_int;
        c->p = fn->p;
        for (int i = 0; i < n; i++) rvalue(p, args[i]);
        return mk_gpu_call(&l, fn->p, args, n);
    }
    if (fn->op == FD_TEMPLATE) fn = cxx_template_call(p, fn, args, n, &l);
    if (fn->op == FD_OVERLOAD) fn = cxx_overload_pick(p, fn, args, n, &l);
    if (fn->op == FD_BUILTIN && fn->kind) fn = cxx_float_math(p, fn, args, n);
    if (fn->op == FD_BUILTIN && !strncmp(((builtin_t *)fn->p)->name, "__icuda_chan_", 13))
        return channel_of(p, ((builtin_t *)fn->p)->name, args, n, &l);
    if (fn->op == FD_BUILTIN && !strcmp(((builtin_t *)fn->p)->name, "__icuda_kind")) {
        if (n != 1) type_error(&l, "__icuda_kind takes one value");
        type_t *t = args[0]->ty; /* the element kind std::sort compares by */
        return mk_int(&l, &ty_int, ty_is_float(t) ? 3 : t->kind == T_PTR ? 2 : !ty_is_int(t) ? 0 : t->is_unsigned ? 2 : 1);
    }
    type_t *fty;
    const char *fname;
    char fnb[128];
    builtin_t *bi = NULL;
    node_t *fptr = NULL;
    if (fn->op == FD_USER) { fty = fn->ty; fname = ((fbox_t *)fn->p)->name; }
    else if (fn->op == FD_BUILTIN) { bi = fn->p; fty = fn->ty; fname = bi->name; }
    else {
        fptr = rvalue(p, fn);
        if (fptr->ty->kind == T_FUNC) fty = fptr->ty;
        else if (fptr->ty->kind == T_PTR && fptr->ty->base->kind == T_FUNC) fty = fptr->ty->base;
        else type_error(&fn->loc, "called object %s is not a function (it has type %s)", loc_text(&fn->loc, fnb, sizeof fnb), tyname(fptr->ty));
        fname = loc_text(&fn->loc, fnb, sizeof fnb);
        if (fty->oldstyle) /* only kernels' values have unspecified parameters */
            type_error(&fn->loc, "%s holds a kernel: launch it with %s<<<grid, block>>>(...), not as a host function",
                       fname, fname);
    }
    if (n < fty->nparams && fty->defaults && fty->defaults[n]) /* C++ default arguments */
        while (n < fty->nparams) vadd(&args, &n, &cap, fty->defaults[n]);
    if (n < fty->nparams || (n > fty->nparams && !fty->variadic))
        type_error(&l, "too %s arguments to function '%s': expected %d, got %d", n < fty->nparams ? "few" : "many",
                   fname, fty->nparams, n);
    for (int i = 0; i < n; i++) {
        char what[160];
        snprintf(what, sizeof what, "argument %d of %s", i + 1, fname);
        if (i < fty->nparams && cx_class_of(fty->params[i])) { args[i] = cxx_arg(p, args[i], fty->params[i], what); continue; }
        if (i < fty->nparams && fty->params[i]->is_ref) {
            loc_t al = args[i]->loc;
            args[i] = cxx_ref_target(p, fty->params[i], args[i], what);
            args[i]->loc = al;
        } else if (i < fty->nparams) {
            node_t *a = rvalue(p, args[i]);
            if (args[i]->ty->kind == T_FUNC && args[i]->op == FD_USER) a = args[i];
            else if (args[i]->ty->kind == T_FUNC && args[i]->op == FD_BUILTIN) a = args[i];
            node_t *c = conv_assign(p, a, fty->params[i], what);
            if (!c) type_error(&a->loc, "%s: cannot convert %s to %s", what, tyname(a->ty), tyname(fty->params[i]));
            c->loc = args[i]->loc;
            args[i] = c;
        } else {
            node_t *a = rvalue(p, args[i]);
            if (a->ty->kind == T_FUNC) type_error(&a->loc, "%s: a function cannot be passed here", what);
            if (a->ty->kind == T_FLOAT) a = mk_cast(a, &ty_double);
            else if (ty_is_int(a->ty)) a = mk_cast(a, ty_promote(a->ty));
            a->loc = args[i]->loc;
            args[i] = a;
        }
    }
    int64_t tempoff = -1;
    if (ty_is_aggr(fty->base)) tempoff = new_mem(p, fty->base, (int64_t)fty->base->size);
    node_t *c;
    if (bi) {
        c = mk_builtin(&l, bi, fty->base, args, n);
        if (bi->check) bi->check(c, bi);
    } else if (fptr) c = mk_callptr(&l, fptr, fty, args, n, tempoff);
    else c = mk_call(&l, fn->p, fty, args, n, tempoff);
    if (fty->base->is_ref) return cxx_deref_value(c, &l);
    if (!bi && cx_class_of(c->ty)) c = cxx_call_result(p, c); /* C++: a temporary that is destroyed */
    return c;
}


/* k<<<grid, block[, shmem[, stream]]>>>(args): k a kernel's name (FD_KERNEL)
 * or a value that holds one (table[i], a kernel pointer variable) */
static node_t *launch_expr(P *p, node_t *k, loc_t *l0) {
    node_t **cfg = NULL;
    int nc = 0, cc = 0;
    do vadd(&cfg, &nc, &cc, rvalue(p, assign_expr(p)));
    while (accept(p, P_COMMA));
    expect(p, P_LAUNCH_CLOSE, "'>>>'");
    if (nc < 2 || nc > 4) type_error(&cfg[0]->loc, "a launch takes 2 to 4 configuration values <<<grid, block, shmem, stream>>>, not %d", nc);
    expect(p, P_LPAREN, "'(' and the kernel's arguments");
    node_t **args = NULL;
    int n = 0, cap = 0;
    while (!accept(p, P_RPAREN)) {
        if (n && !accept(p, P_COMMA)) expected(p, "',' or ')'");
        vadd(&args, &n, &cap, rvalue(p, assign_expr(p)));
    }
    loc_t l = from(p, l0);
    if (k->op != FD_KERNEL) {
        node_t *c = mk_launch(&l, NULL, cfg, nc, args, n);
        c->a = k;
        return c;
    }
    return mk_launch(&l, kernel_launch_name(p, k->p, args, n, &l), cfg, nc, args, n);
}

/* A value host code may launch: a pointer to a function (a kernel's value
 * has that type). */
static bool launchable(node_t *e) {
    return e->ty->kind == T_PTR && e->ty->base->kind == T_FUNC && e->ty->base->base->kind == T_VOID;
}

static node_t *primary(P *p) {
    token_t *t = TOK;
    loc_t l = t->loc;
    switch (t->kind) {
    case TK_INT: case TK_CHAR:
        p->i++;
        return mk_int(&l, lit_type(t->lit_type), (int64_t)t->ival);
    case TK_FLOAT:
        p->i++;
        return mk_const(&l, lit_type(t->lit_type), (val_t){.d = t->fval});
    case TK_STR:
        return str_literal(p);
    case TK_KW:
        if (t->id == KW_TRUE || t->id == KW_FALSE) { p->i++; return mk_int(&l, &ty_bool, t->id == KW_TRUE); }
        if (t->id == KW_NULLPTR) { p->i++; return mk_const(&l, ty_ptr(&ty_void), (val_t){.u = 0}); }
        if (t->id == KW_THIS) { p->i++; return cxx_this(p, &l); }
        {
            node_t *c = cxx_primary_kw(p);
            if (c) return c;
            cxx_check_unsupported(p);
        }
        break;
    case TK_PUNCT:
        if (t->id == P_LBRACK) cxx_not_interpreted(&l, "a lambda expression");
        if (t->id == P_LPAREN) {
            p->i++;
            node_t *e = expression(p);
            expect(p, P_RPAREN, "')'");
            loc_t l2 = from(p, &l);
            if (e->is_place || e->is_const || e->ty->kind == T_FUNC) {
                node_t *c = node_new(&l2);
                *c = *e;
                c->loc = l2;
                return c;
            }
            return e;
        }
        break;
    case TK_IDENT: {
        p->i++;
        if (is_p(p, P_LAUNCH_OPEN)) { /* a kernel by name, unless a variable that holds one */
            sym_t *v = lookup(p, t);
            if (!v || (v->kind != S_VAR_LOCAL && v->kind != S_VAR_GLOBAL) || v->ty->kind != T_PTR ||
                v->ty->base->kind != T_FUNC)
                return funcdesig(&l, &ty_void, FD_KERNEL, pstr(p, t));
        }
        if (is_p(p, P_LT) && !lookup(p, t)) { /* a template kernel: scale<float, 4><<<...>>> */
            int j = p->i, depth = 0;
            for (; j < p->n && p->t[j].kind != TK_EOF; j++) {
                token_t *u = &p->t[j];
                if (u->kind == TK_PUNCT && u->id == P_LT) depth++;
                else if (u->kind == TK_PUNCT && u->id == P_GT && --depth == 0) break;
                else if (u->kind == TK_PUNCT && (u->id == P_SEMI || u->id == P_LBRACE || u->id == P_RBRACE)) break;
            }
            if (depth == 0 && j + 1 < p->n && p->t[j + 1].kind == TK_PUNCT && p->t[j + 1].id == P_LAUNCH_OPEN) {
                size_t len = (size_t)t->n + 1;
                for (int q = p->i; q <= j; q++) len += (size_t)p->t[q].n + 1;
                char *nm = palloc(p, len);
                size_t o = 0;
                memcpy(nm, t->s, (size_t)t->n);
                o = (size_t)t->n;
                for (int q = p->i; q <= j; q++) {
                    token_t *u = &p->t[q], *prev = &p->t[q - 1];
                    bool word = (u->kind == TK_IDENT || u->kind == TK_KW || u->kind == TK_INT);
                    bool pword = (prev->kind == TK_IDENT || prev->kind == TK_KW || prev->kind == TK_INT);
                    if (word && pword && q > p->i) nm[o++] = ' ';
                    sym_t *ts = u->kind == TK_IDENT ? lookup(p, u) : NULL;
                    if (ts && ts->kind == S_TYPEDEF && ts->ival == 1) { /* inside a host template: T is its type */
                        char tb[200];
                        ty_name(ts->ty, tb, sizeof tb);
                        size_t tl = strlen(tb);
                        char *grown = palloc(p, len + tl + 1);
                        memcpy(grown, nm, o);
                        nm = grown;
                        len += tl;
                        memcpy(nm + o, tb, tl);
                        o += tl;
                        continue;
                    }
                    memcpy(nm + o, u->s, (size_t)u->n);
                    o += (size_t)u->n;
                }
                nm[o] = 0;
                p->i = j + 1;
                return funcdesig(&l, &ty_void, FD_KERNEL, nm);
            }
        }
        sym_t *s = lookup(p, t);
        if (s) {
            switch (s->kind) {
            case S_VAR_LOCAL:
                if (p->iconst && s->cval) return mk_int(&l, ty_unqual(s->ty), s->ival);
                if (s->is_vla) return pl_vla(&l, s->ty, s->slot);
                if (s->addressable) {
                    node_t *n = pl_frame(&l, s->ty, s->memoff, s->hidx);
                    return s->ty->is_ref ? cxx_deref_ref(n, &l) : n;
                }
                if (s->ty->is_ref) return cxx_deref_ref(pl_slot(&l, s->ty, s->slot), &l);
                return pl_slot(&l, s->ty, s->slot);
            case S_VAR_GLOBAL:
                if (p->iconst && s->gv->has_cval) return mk_int(&l, ty_unqual(s->ty), s->gv->cval);
                if (s->ty->is_ref) return cxx_deref_ref(pl_global(&l, s->gv), &l);
                return pl_global(&l, s->gv);
            case S_ENUMC: return mk_int(&l, &ty_int, s->ival);
            case S_FUNC:
                if (s->ovl) return funcdesig(&l, s->ty, FD_OVERLOAD, s);
                return funcdesig(&l, s->ty, FD_USER, fbox_get(p, s->box ? s->box : s->name));
            case S_TEMPLATE: return cxx_template_ref(p, s, &l);
            case S_CXX: return cxx_sym(p, s, &l); /* a member, inside a member function */
            case S_TYPEDEF:
                if (is_p(p, P_LPAREN) && s->ty->sd && ty_dim3 && s->ty->sd == ty_dim3->sd) {
                    p->i++;
                    node_t **v = NULL;
                    int n = 0, cap = 0;
                    while (!accept(p, P_RPAREN)) {
                        if (n && !accept(p, P_COMMA)) expected(p, "',' or ')'");
                        vadd(&v, &n, &cap, rvalue(p, assign_expr(p)));
                    }
                    loc_t l2 = from(p, &l);
                    return dim3_literal(p, &l2, v, n);
                }
                if (is_p(p, P_LPAREN) && ty_is_scalar(s->ty)) return cxx_functional_cast(p, s->ty, &l);
                if (cx_class_of(s->ty)) return cxx_type_expr(p, s->ty, &l); /* T(args): a temporary */
                syntax_error(&l, "unexpected type name '%.*s'", t->n, t->s);
            }
        }
        char nbuf[128];
        const char *nb = lang_name(p->in, nbuf, sizeof nbuf, t->s, (size_t)t->n);
        char cb[8][256];
        const char *cand[8];
        int nc = cxx_name_candidates(p->in, nb, cb, cand, 8);
        for (int k = 0; k < nc; k++) {
            builtin_t *b = hmap_get(&p->in->builtins, cand[k]);
            if (b) {
                node_t *d = funcdesig(&l, b->ty, FD_BUILTIN, b);
                d->kind = strcmp(cand[k], nb) != 0 || p->in->nusings; /* C++'s <cmath>: float overloads */
                return d;
            }
        }
        if (is_p(p, P_LPAREN) && (!strncmp(nb, "cuda", 4) || !strncmp(nb, "cublas", 6) || !strncmp(nb, "curand", 6) ||
                                  !strncmp(nb, "cu", 2) || !strncmp(nb, "nvtx", 4) || !strncmp(nb, "nccl", 4)))
            return funcdesig(&l, &ty_int, FD_GPUAPI, pstr(p, t));
        {
            node_t *x = cxx_libfn(p, nb, &l); /* std::chrono::duration_cast<...>(...), T::g() */
            if (x) return x;
        }
        {
            node_t *k = kernel_value(p, nb, &l); /* a device cell's kernel as a value */
            if (k) return k;
        }
        {
            node_t *m = cxx_main_args(p, nb, &l);
            if (m) return m;
        }
        type_error(&l, "'%s' is undeclared", nb);
    }
    default: break;
    }
    char b[80];
    syntax_error(&l, "expected an expression before '%s'", tok_str(t, b, sizeof b));
}

static void check_modifiable(P *p, node_t *e, const char *what) {
    char b[128];
    if (!e->is_place) type_error(&e->loc, "%s needs a variable or memory location, and %s is a value", what, loc_text(&e->loc, b, sizeof b));
    if (e->ty->kind == T_ARRAY) type_error(&e->loc, "%s: an array (%s) cannot be assigned; copy its elements (memcpy)", what, loc_text(&e->loc, b, sizeof b));
    if (e->ty->is_const) type_error(&e->loc, "%s: %s is const", what, loc_text(&e->loc, b, sizeof b));
    if (e->place == PL_TEMP) type_error(&e->loc, "%s: %s is a temporary value", what, loc_text(&e->loc, b, sizeof b));
}

static node_t *vla_elems(P *p, type_t *t, loc_t *l, type_t **elem);
static node_t *postfix(P *p) {
    loc_t l0 = TOK->loc;
    node_t *e = primary(p);
    int nest0 = p->nest;
    for (;; nest_enter(p)) { /* x.a.b, f()(), p[0][0]: one deeper each */
        if (e->op == FD_KERNEL && e->ty->kind == T_VOID && !e->is_place && is_p(p, P_LAUNCH_OPEN)) {
            p->i++;
            e = launch_expr(p, e, &l0);
            continue;
        }
        if (is_p(p, P_LAUNCH_OPEN) && e->op != FD_KERNEL && e->ty->kind == T_PTR && launchable(rvalue(p, e))) {
            p->i++;
            e = launch_expr(p, rvalue(p, e), &l0);
            continue;
        }
        if (accept(p, P_LBRACK)) {
            if (cx_class_of(e->ty)) { e = cxx_index(p, e, &l0); continue; } /* v[i] */
            node_t *idx = rvalue(p, expression(p));
            expect(p, P_RBRACK, "']'");
            loc_t l = from(p, &l0);
            node_t *base = e;
            if (ty_is_int(base->ty) && !base->is_place && (idx->ty->kind == T_PTR)) { node_t *x = base; base = idx; idx = x; }
            else if (ty_is_int(rvalue(p, base)->ty) && idx->ty->kind == T_PTR) { node_t *x = rvalue(p, base); base = idx; idx = x; }
            if (!ty_is_int(idx->ty)) type_error(&idx->loc, "array index is not an integer (it has type %s)", tyname(idx->ty));
            idx = mk_cast(idx, &ty_long);
            if (base->is_place && base->ty->kind == T_ARRAY && base->ty->count >= 0 && !base->ty->vla &&
                !has_vla(base->ty->base)) {
                e = pl_index(&l, base->ty->base, base, idx);
            } else {
                node_t *r = rvalue(p, base);
                if (r->ty->kind == T_PTR && r->ty->base->kind == T_ARRAY && has_vla(r->ty->base)) {
                    /* a row of a variable-size array: p + i * (elements per row), checked at the element */
                    type_t *row = r->ty->base, *el;
                    node_t *per = vla_elems(p, row, &l, &el);
                    node_t *q = mk_cast(r, ty_ptr(el));
                    node_t *np = mk_ptradd(&l, q, mk_binop(&l, P_STAR, &ty_long, idx, per), (int64_t)(el->size ? el->size : 1), 1);
                    np->ty = ty_ptr(row);
                    e = pl_deref(&l, row, np, 0);
                    continue;
                }
                if (r->ty->kind != T_PTR) {
                    char b[100];
                    type_error(&base->loc, "%s cannot be indexed: it has type %s, not an array or pointer", loc_text(&base->loc, b, sizeof b), tyname(r->ty));
                }
                if (r->ty->base->kind == T_VOID) type_error(&base->loc, "indexing a void pointer: cast it to a typed pointer first");
                elem_size(r->ty, &l);
                e = pl_index(&l, r->ty->base, r, idx);
            }
            continue;
        }
        if (accept(p, P_LPAREN)) {
            if (cx_class_of(e->ty)) { e = cxx_call_object(p, e, &l0); continue; } /* gen(), dist(gen) */
            e = call_expr(p, e, &l0);
            continue;
        }
        if (accept(p, P_DOT)) { e = member(p, e, false, &l0); continue; }
        if (accept(p, P_ARROW)) { e = member(p, e, true, &l0); continue; }
        if (is_p(p, P_INC) || is_p(p, P_DEC)) {
            int d = TOK->id == P_INC ? 1 : -1;
            p->i++;
            loc_t l = from(p, &l0);
            check_modifiable(p, e, d > 0 ? "'++'" : "'--'");
            need_scalar(e, d > 0 ? "'++'" : "'--'");
            if (e->ty->kind == T_PTR) elem_size(e->ty, &l);
            e = mk_incdec(&l, e, d, true);
            continue;
        }
        p->nest = nest0;
        return e;
    }
}

/* Arrays with a variable dimension below the first (double m[r][c]): their
 * element counts live in slots (vla_slot, set at the declaration) or, for a
 * parameter's type, are its length expression over earlier parameters. */
bool has_vla(type_t *t) {
    for (; t->kind == T_ARRAY; t = t->base)
        if (t->vla) return true;
    return false;
}
static node_t *vla_count(P *p, type_t *t, loc_t *l) { /* elements of one level, as long */
    if (!t->vla) return mk_int(l, &ty_long, t->count);
    if (t->vla_slot > 0) return mk_load(pl_slot(l, &ty_long, t->vla_slot));
    return mk_cast(t->vla, &ty_long);
}
static node_t *vla_elems(P *p, type_t *t, loc_t *l, type_t **elem) { /* innermost elements in t */
    node_t *n = vla_count(p, t, l);
    for (t = t->base; t->kind == T_ARRAY; t = t->base) n = mk_binop(l, P_STAR, &ty_long, n, vla_count(p, t, l));
    *elem = t;
    return n;
}
static node_t *sizeof_type(P *p, type_t *t, loc_t *l) {
    if (t->kind == T_ARRAY && has_vla(t)) {
        type_t *el;
        node_t *n = vla_elems(p, t, l, &el);
        return mk_binop(l, P_STAR, &ty_ulong, mk_cast(n, &ty_ulong), mk_int(l, &ty_ulong, (int64_t)el->size));
    }
    if (t->kind == T_ARRAY && t->vla) {
        node_t *cnt = pl_slot(l, &ty_long, t->vla_slot);
        return mk_binop(l, P_STAR, &ty_ulong, mk_cast(mk_load(cnt), &ty_ulong), mk_int(l, &ty_ulong, (int64_t)t->base->size));
    }
    if (t->kind == T_FUNC) type_error(l, "sizeof of a function type");
    if ((t->kind == T_STRUCT || t->kind == T_UNION) && !t->sd->complete) type_error(l, "sizeof of incomplete type '%s'", tyname(t));
    if (t->kind == T_ARRAY && t->count < 0) type_error(l, "sizeof of an array of unknown size");
    if (t->kind == T_VOID) return mk_int(l, &ty_ulong, 1);
    return mk_int(l, &ty_ulong, (int64_t)t->size);
}


static node_t *unary_inner(P *p);
static node_t *unary(P *p) { /* ++++x and sizeof sizeof x recurse here, not through cast_expr */
    nest_enter(p);
    node_t *r = unary_inner(p);
    nest_leave(p);
    return r;
}

static node_t *unary_inner(P *p) {
    token_t *t = TOK;
    loc_t l0 = t->loc;
    if (t->kind == TK_KW && (t->id == KW_NEW || t->id == KW_DELETE)) return cxx_new_delete(p);
    if (t->kind == TK_PUNCT) {
        switch (t->id) {
        case P_INC: case P_DEC: {
            p->i++;
            node_t *e = unary(p);
            loc_t l = from(p, &l0);
            check_modifiable(p, e, t->id == P_INC ? "'++'" : "'--'");
            need_scalar(e, t->id == P_INC ? "'++'" : "'--'");
            if (e->ty->kind == T_PTR) elem_size(e->ty, &l);
            return mk_incdec(&l, e, t->id == P_INC ? 1 : -1, false);
        }
        case P_AMP: {
            p->i++;
            node_t *e = cast_expr(p);
            loc_t l = from(p, &l0);
            if (e->ty->kind == T_FUNC && e->op == FD_USER)
                return mk_const(&l, ty_ptr(e->ty), (val_t){.u = ((uint64_t)SLOT_FUNC << PTR_SLOT_SHIFT) | (uint64_t)((fbox_t *)e->p)->id});
            if (e->ty->kind == T_FUNC) type_error(&l, "cannot take the address of a built-in function");
            if (e->is_const && e->ty->kind == T_PTR && e->ty->base->kind == T_FUNC && e->ty->base->oldstyle)
                return e; /* &kernel: a kernel's value is its address already (parse_kernel.c) */
            if (!e->is_place) {
                char b[100];
                type_error(&l, "cannot take the address of %s: it is a value, not a variable", loc_text(&e->loc, b, sizeof b));
            }
            if (e->place == PL_SLOT) {
                char b[100];
                type_error(&l, "internal: %s has no address", loc_text(&e->loc, b, sizeof b));
            }
            if (e->place == PL_TEMP) type_error(&l, "cannot take the address of a temporary value");
            node_t *a = mk_addr(e);
            a->loc = l;
            return a;
        }
        case P_STAR: {
            p->i++;
            node_t *e = rvalue(p, cast_expr(p));
            loc_t l = from(p, &l0);
            if (e->ty->kind == T_FUNC) return e;
            if (e->ty->kind != T_PTR) {
                char b[100];
                type_error(&l, "cannot dereference %s: it has type %s, not a pointer", loc_text(&e->loc, b, sizeof b), tyname(e->ty));
            }
            if (e->ty->base->kind == T_FUNC) return e;
            if (e->ty->base->kind == T_VOID) type_error(&l, "dereferencing a void pointer: cast it to a typed pointer first");
            node_t *pl = pl_deref(&l, e->ty->base, e, 0);
            return pl;
        }
        case P_PLUS: case P_MINUS: case P_TILDE: {
            p->i++;
            node_t *e = rvalue(p, cast_expr(p));
            loc_t l = from(p, &l0);
            if (t->id == P_TILDE) need_int(e, "'~'");
            else need_arith(e, t->id == P_PLUS ? "unary '+'" : "unary '-'");
            e = mk_cast(e, ty_promote(e->ty));
            if (t->id == P_PLUS) { node_t *c = node_new(&l); *c = *e; c->loc = l; return c; }
            return mk_unop(&l, t->id, e->ty, e);
        }
        case P_NOT: {
            p->i++;
            node_t *e = rvalue(p, cast_expr(p));
            loc_t l = from(p, &l0);
            need_scalar(e, "'!'");
            return mk_not(&l, e);
        }
        }
    }
    if (t->kind == TK_KW && (t->id == KW_SIZEOF || t->id == KW_ALIGNOF)) {
        p->i++;
        bool al = t->id == KW_ALIGNOF;
        if (is_p(p, P_LPAREN) && is_type_start(p, PEEK(1)) && !cxx_type_then_args(p, p->i + 1)) { /* not sizeof(T(1).f()) */
            p->i++;
            type_t *ty = abstract_type(p);
            expect(p, P_RPAREN, "')'");
            loc_t l = from(p, &l0);
            if (is_p(p, P_LBRACE)) { /* sizeof (T){...} */
                node_t *c = compound_literal(p, ty, &l0);
                return sizeof_type(p, c->ty, &l);
            }
            if (al) return mk_int(&l, &ty_ulong, (int64_t)ty->align);
            return sizeof_type(p, ty, &l);
        }
        node_t *e = unary(p);
        loc_t l = from(p, &l0);
        if (al) return mk_int(&l, &ty_ulong, (int64_t)e->ty->align);
        if (e->p == (void *)2 && e->str) return mk_int(&l, &ty_ulong, 8); /* decayed literal */
        if (e->ty->kind == T_FUNC) type_error(&l, "sizeof of a function");
        return sizeof_type(p, e->ty, &l);
    }
    return postfix(p);
}

static node_t *cast_expr_inner(P *p);
node_t *cast_expr(P *p) {
    nest_enter(p);
    node_t *r = cast_expr_inner(p);
    nest_leave(p);
    return r;
}

static node_t *cast_expr_inner(P *p) {
    if (is_p(p, P_LPAREN) && is_type_start(p, PEEK(1)) && !cxx_type_then_args(p, p->i + 1)) { /* not (T(1)).x */
        loc_t l0 = TOK->loc;
        p->i++;
        type_t *t = abstract_type(p);
        expect(p, P_RPAREN, "')'");
        if (is_p(p, P_LBRACE)) {
            node_t *c = compound_literal(p, t, &l0);
            /* postfix operators may follow a compound literal */
            for (;;) {
                if (accept(p, P_DOT)) { c = member(p, c, false, &l0); continue; }
                if (accept(p, P_LBRACK)) {
                    node_t *idx = mk_cast(rvalue(p, expression(p)), &ty_long);
                    expect(p, P_RBRACK, "']'");
                    loc_t l = from(p, &l0);
                    if (c->ty->kind == T_ARRAY) c = pl_index(&l, c->ty->base, c, idx);
                    else type_error(&l, "cannot index this value");
                    continue;
                }
                break;
            }
            return c;
        }
        node_t *e = rvalue(p, cast_expr(p));
        loc_t l = from(p, &l0);
        return explicit_cast(p, e, t, &l);
    }
    return unary(p);
}

/* (T)e, and C++'s static_cast<T>(e), T(e) and the like */
node_t *explicit_cast(P *p, node_t *e, type_t *t, loc_t *at) {
    loc_t l = *at;
    if (e->ty->kind == T_FUNC && e->op == FD_USER && t->kind == T_PTR)
        e = mk_const(&e->loc, ty_ptr(e->ty), (val_t){.u = ((uint64_t)SLOT_FUNC << PTR_SLOT_SHIFT) | (uint64_t)((fbox_t *)e->p)->id});
    if (t->kind == T_VOID) { node_t *c = mk_cast(e, t); c->loc = l; return c; }
    if (t->kind == T_STRUCT || t->kind == T_UNION) {
        if (e->ty->kind == t->kind && e->ty->sd == t->sd) return e;
        type_error(&l, "cannot cast %s to %s", tyname(e->ty), tyname(t));
    }
    if (!ty_is_scalar(t)) type_error(&l, "cannot cast to %s", tyname(t));
    if (!ty_is_scalar(e->ty)) type_error(&l, "cannot cast %s to %s", tyname(e->ty), tyname(t));
    if ((t->kind == T_PTR && ty_is_float(e->ty)) || (ty_is_float(t) && e->ty->kind == T_PTR))
        type_error(&l, "cannot cast %s to %s", tyname(e->ty), tyname(t));
    node_t *c = mk_cast(e, ty_unqual(t));
    if (c == e) { c = node_new(&l); *c = *e; }
    c->loc = l;
    c->ty = ty_unqual(t);
    return c;
}


static node_t *binexpr(P *p, int minp) {
    loc_t l0 = TOK->loc;
    node_t *l = cast_expr(p);
    int nest0 = p->nest; /* a chain a + b + c nests one deeper per operator */
    for (;;) {
        token_t *t = TOK;
        int pr = binary_precedence(t);
        if (pr < minp) { p->nest = nest0; return l; }
        p->i++;
        nest_enter(p);
        node_t *r = binexpr(p, pr + 1);
        loc_t lc = from(p, &l0);
        char opn[8];
        snprintf(opn, sizeof opn, "'%.*s'", t->n, t->s);
        l = binary(p, t->id, l, r, &lc, opn);
    }
}

static node_t *cond_expr(P *p) {
    loc_t l0 = TOK->loc;
    node_t *c = binexpr(p, 1);
    if (!accept(p, P_QUEST)) return c;
    c = rvalue(p, c);
    need_scalar(c, "the condition of '?:'");
    node_t *a = rvalue(p, expression(p));
    expect(p, P_COLON, "':'");
    nest_enter(p);
    node_t *b = rvalue(p, cond_expr(p));
    nest_leave(p);
    loc_t l = from(p, &l0);
    type_t *t;
    if (ty_is_arith(a->ty) && ty_is_arith(b->ty)) {
        t = ty_common(a->ty, b->ty);
        a = mk_cast(a, t);
        b = mk_cast(b, t);
    } else if (a->ty->kind == T_PTR && b->ty->kind == T_PTR) {
        t = a->ty->base->kind == T_VOID ? b->ty : a->ty;
    } else if (a->ty->kind == T_PTR && is_null_const(b)) { t = a->ty; b = mk_cast(b, t); }
    else if (b->ty->kind == T_PTR && is_null_const(a)) { t = b->ty; a = mk_cast(a, t); }
    else if (a->ty->kind == T_VOID && b->ty->kind == T_VOID) t = &ty_void;
    else if ((a->ty->kind == T_STRUCT || a->ty->kind == T_UNION) && a->ty->sd == b->ty->sd) t = a->ty;
    else type_error(&l, "the two branches of '?:' have incompatible types %s and %s", tyname(a->ty), tyname(b->ty));
    return mk_cond(&l, t, c, a, b);
}

static int assign_op(token_t *t) {
    if (t->kind != TK_PUNCT) return -1;
    switch (t->id) {
    case P_ASSIGN: return 0;
    case P_ADDEQ: return P_PLUS;
    case P_SUBEQ: return P_MINUS;
    case P_MULEQ: return P_STAR;
    case P_DIVEQ: return P_DIV;
    case P_MODEQ: return P_MOD;
    case P_SHLEQ: return P_SHL;
    case P_SHREQ: return P_SHR;
    case P_ANDEQ: return P_AMP;
    case P_OREQ: return P_OR;
    case P_XOREQ: return P_XOR;
    }
    return -1;
}

node_t *assign_to(P *p, node_t *lhs, node_t *rhs, loc_t *l, const char *what) {
    node_t *c = conv_assign(p, rhs, lhs->ty, what);
    if (!c) { /* dim3 = integer */
        node_t *v[1] = {rhs};
        c = mk_load(dim3_literal(p, &rhs->loc, v, 1));
    }
    return mk_assign(l, lhs, c);
}

node_t *assign_expr(P *p) {
    loc_t l0 = TOK->loc;
    node_t *lhs = cond_expr(p);
    int op = assign_op(TOK);
    if (op < 0) return lhs;
    token_t *ot = TOK;
    p->i++;
    nest_enter(p);
    node_t *rhs;
    if (op == 0 && is_p(p, P_LBRACE) && lhs->is_place && !cx_class_of(lhs->ty) && lhs->ty->kind != T_ARRAY) {
        loc_t lb = TOK->loc; /* C++: p[i] = {x, y}; the braced list is a value of the left side's type */
        rhs = compound_literal(p, ty_unqual(lhs->ty), &lb);
    } else {
        rhs = assign_expr(p);
    }
    nest_leave(p);
    loc_t l = from(p, &l0);
    char opn[8];
    snprintf(opn, sizeof opn, "'%.*s'", ot->n, ot->s);
    if (cx_class_of(lhs->ty)) return cxx_assign(p, op, lhs, rhs, &l); /* C++ objects */
    check_modifiable(p, lhs, "assignment");
    if (op == 0) {
        if (rhs->ty->kind == T_FUNC && (rhs->op == FD_USER || rhs->op == FD_BUILTIN)) return assign_to(p, lhs, rhs, &l, "assignment");
        return assign_to(p, lhs, rvalue(p, rhs), &l, "assignment");
    }
    rhs = rvalue(p, rhs);
    if (lhs->ty->kind == T_PTR && (op == P_PLUS || op == P_MINUS)) {
        if (!ty_is_int(rhs->ty)) type_error(&rhs->loc, "%s on a pointer needs an integer, not %s", opn, tyname(rhs->ty));
        elem_size(lhs->ty, &l);
        return mk_compound(&l, op, lhs, mk_cast(rhs, &ty_long), lhs->ty);
    }
    /* type check as the binary operator would */
    node_t *lv = mk_load(lhs);
    if (op == P_SHL || op == P_SHR) {
        need_int(lv, opn);
        need_int(rhs, opn);
        type_t *ot2 = ty_promote(lhs->ty);
        return mk_compound(&l, op, lhs, mk_cast(rhs, ty_promote(rhs->ty)), ot2);
    }
    if (op == P_MOD || op == P_AMP || op == P_OR || op == P_XOR) { need_int(lv, opn); need_int(rhs, opn); }
    else { need_arith(lv, opn); need_arith(rhs, opn); }
    type_t *ct = ty_common(lhs->ty, rhs->ty);
    return mk_compound(&l, op, lhs, mk_cast(rhs, ct), ct);
}

node_t *expression(P *p) {
    loc_t l0 = TOK->loc;
    node_t *e = assign_expr(p);
    int nest0 = p->nest;
    while (accept(p, P_COMMA)) {
        nest_enter(p);
        node_t *r = assign_expr(p);
        loc_t l = from(p, &l0);
        /* a function designator has no value to evaluate (fuzz_interp: it crashed) */
        for (node_t *side = e; side; side = side == e ? r : NULL)
            if (side->ty->kind == T_FUNC && !side->is_place) {
                char b[100];
                type_error(&side->loc, "'%s' is a function; call it with ()", loc_text(&side->loc, b, sizeof b));
            }
        e = mk_comma(&l, rvalue(p, e), rvalue(p, r));
    }
    p->nest = nest0;
    return e;
}

/* ---------------- constants ---------------- */
int64_t const_int(P *p, node_t *e, const char *what) {
    if (!e->is_const || !ty_is_int(e->ty)) {
        if (e->is_const && ty_is_float(e->ty)) type_error(&e->loc, "%s must be an integer constant", what);
        type_error(&e->loc, "%s must be a constant expression", what);
    }
    return e->k.i;
}
node_t *const_expr(P *p) {
    bool was = p->iconst;
    p->iconst = true;
    node_t *e = rvalue(p, assign_expr(p));
    p->iconst = was;
    return e;
}
