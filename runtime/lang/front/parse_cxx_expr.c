/* C++ expressions of host code: new and delete, the named casts
 * (static_cast<T>(e) ...), functional casts T(e), and main's argc/argv. */
#include <stdlib.h>
#include "parse_internal.h"

static node_t *call_builtin(P *p, loc_t *l, const char *name, node_t **args, int n) {
    builtin_t *b = hmap_get(&p->in->builtins, name);
    if (!b || !b->ty) type_error(l, "internal: builtin %s is missing", name);
    node_t **v = palloc(p, sizeof(node_t *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) v[i] = conv_assign(p, args[i], b->ty->params[i], "an argument");
    return mk_builtin(l, b, b->ty->base, v, n);
}

static type_t *new_type(P *p) { /* the type after new: specifiers and '*'s, no array part */
    int st;
    bool skip;
    loc_t l = TOK->loc;
    type_t *t = decl_specs(p, &st, &skip);
    if (!t) syntax_error(&l, "expected a type after 'new'");
    while (accept(p, P_STAR)) {
        t = ty_ptr(t);
        while (accept(p, KW_CONST) || accept(p, KW_VOLATILE) || accept(p, KW_RESTRICT)) {}
    }
    return t;
}

static node_t *new_expr(P *p, loc_t *l0) {
    if (is_p(p, P_LPAREN)) cxx_not_interpreted(l0, "placement new");
    type_t *t = new_type(p);
    if (t->kind == T_VOID || t->kind == T_FUNC) type_error(l0, "new cannot make a %s", tyname(t));
    if (ty_is_aggr(t) && !t->size) type_error(l0, "new of an incomplete type %s", tyname(t));
    if (accept(p, P_LBRACK)) {
        node_t *count = rvalue(p, expression(p));
        if (!ty_is_int(count->ty)) type_error(&count->loc, "the length in new[] must be an integer, not %s", tyname(count->ty));
        expect(p, P_RBRACK, "']'");
        long dims[8];
        int nd = 0;
        while (accept(p, P_LBRACK)) { /* new int[n][3]: rows of 3 */
            node_t *d = const_expr(p);
            if (nd == 8) type_error(&d->loc, "too many array dimensions");
            dims[nd++] = (long)const_int(p, d, "an inner array length in new[]");
            expect(p, P_RBRACK, "']'");
        }
        for (int k = nd - 1; k >= 0; k--) t = ty_array(t, dims[k]);
        bool zero = false;
        if (accept(p, P_LPAREN)) { expect(p, P_RPAREN, "')' (new T[n]() takes no values)"); zero = true; }
        node_t **vals = NULL;
        int nv = 0, cv = 0;
        if (!zero && accept(p, P_LBRACE)) { /* new T[n]{a, b, ...}: the rest zero */
            zero = true;
            while (!accept(p, P_RBRACE)) {
                if (nv && !accept(p, P_COMMA)) expected(p, "',' or '}'");
                if (accept(p, P_RBRACE)) break;
                node_t *v = rvalue(p, assign_expr(p));
                node_t *c = t->kind == T_ARRAY ? NULL : conv_assign(p, v, t, "an initial value");
                if (!c) type_error(&v->loc, "cannot initialise %s with %s", tyname(t), tyname(v->ty));
                vadd(&vals, &nv, &cv, c);
            }
        }
        loc_t l = from(p, l0);
        if (nv && count->is_const && count->k.i < nv)
            type_error(&l, "new %s[%lld] with %d initial values", tyname(t), (long long)count->k.i, nv);
        node_t *args[4] = {count, mk_int(&l, &ty_ulong, (int64_t)t->size), mk_int(&l, &ty_int, ALLOC_NEW_ARRAY),
                           mk_int(&l, &ty_int, zero)};
        node_t *c = call_builtin(p, &l, "__icuda_new", args, 4);
        c = mk_cast(c, ty_ptr(t));
        c->loc = l;
        if (cxx_class_elem(t)) c = cxx_new_array_init(p, c, NULL, t, &l); /* C++ classes: each element constructed */
        if (!nv) return c;
        int slot = new_slot(p);
        node_t *r = mk_assign(&l, pl_slot(&l, ty_ptr(t), slot), c);
        for (int i = 0; i < nv; i++) {
            node_t *el = pl_index(&l, t, mk_load(pl_slot(&l, ty_ptr(t), slot)), mk_int(&l, &ty_long, i));
            r = mk_comma(&l, r, mk_assign(&l, el, vals[i]));
        }
        r = mk_comma(&l, r, mk_load(pl_slot(&l, ty_ptr(t), slot)));
        r->ty = ty_ptr(t);
        return r;
    }
    if (cxx_new_takes(p, t)) return cxx_new_object(p, t, l0); /* C++ classes, S{...}: constructed (parse_class_call.c) */
    node_t *init = NULL;
    bool zero = false;
    int close = 0;
    if (accept(p, P_LPAREN)) close = P_RPAREN;
    else if (accept(p, P_LBRACE)) close = P_RBRACE;
    if (close) {
        if (accept(p, close)) zero = true;
        else {
            init = rvalue(p, assign_expr(p));
            if (is_p(p, P_COMMA)) cxx_not_interpreted(&init->loc, "new with several constructor arguments for this type");
            expect(p, close, close == P_RPAREN ? "')'" : "'}'");
        }
    }
    loc_t l = from(p, l0);
    node_t *args[4] = {mk_int(&l, &ty_ulong, 1), mk_int(&l, &ty_ulong, (int64_t)t->size), mk_int(&l, &ty_int, ALLOC_NEW),
                       mk_int(&l, &ty_int, zero)};
    node_t *c = mk_cast(call_builtin(p, &l, "__icuda_new", args, 4), ty_ptr(t));
    c->loc = l;
    if (!init) return c;
    /* (tmp = new, *tmp = init, tmp) */
    int slot = new_slot(p);
    node_t *tmp = pl_slot(&l, ty_ptr(t), slot);
    node_t *set = mk_assign(&l, tmp, c);
    node_t *v = conv_assign(p, init, t, "the initial value");
    if (!v) type_error(&init->loc, "cannot initialise %s with %s", tyname(t), tyname(init->ty));
    node_t *put = mk_assign(&l, pl_deref(&l, t, mk_load(pl_slot(&l, ty_ptr(t), slot)), 0), v);
    node_t *r = mk_comma(&l, mk_comma(&l, set, put), mk_load(pl_slot(&l, ty_ptr(t), slot)));
    r->ty = ty_ptr(t);
    return r;
}

node_t *cxx_new_delete(P *p) {
    loc_t l0 = TOK->loc;
    if (accept(p, KW_NEW)) return new_expr(p, &l0);
    expect(p, KW_DELETE, "'delete'");
    int how = ALLOC_NEW;
    if (accept(p, P_LBRACK)) {
        expect(p, P_RBRACK, "']'");
        how = ALLOC_NEW_ARRAY;
    }
    node_t *e = rvalue(p, cast_expr(p));
    loc_t l = from(p, &l0);
    if (e->ty->kind != T_PTR) type_error(&e->loc, "delete needs a pointer, not %s", tyname(e->ty));
    {
        node_t *d = cxx_destroy(p, e, e->ty->base, how == ALLOC_NEW_ARRAY, &l); /* C++ classes: the destructor first */
        if (d) e = d;
    }
    node_t *args[2] = {mk_cast(e, ty_ptr(&ty_void)), mk_int(&l, &ty_int, how)};
    args[0]->loc = e->loc;
    return call_builtin(p, &l, "__icuda_delete", args, 2);
}

node_t *cxx_functional_cast(P *p, type_t *t, loc_t *l0) {
    expect(p, P_LPAREN, "'('");
    if (accept(p, P_RPAREN)) { /* T(): a zero */
        loc_t l = from(p, l0);
        node_t *z = mk_int(&l, &ty_int, 0);
        return explicit_cast(p, z, t, &l);
    }
    node_t *e = rvalue(p, assign_expr(p));
    expect(p, P_RPAREN, "')'");
    loc_t l = from(p, l0);
    return explicit_cast(p, e, t, &l);
}

static bool type_keyword(int id) {
    switch (id) {
    case KW_CHAR: case KW_SHORT: case KW_INT: case KW_LONG: case KW_FLOAT: case KW_DOUBLE:
    case KW_SIGNED: case KW_UNSIGNED: case KW_BOOL:
        return true;
    }
    return false;
}

static bool punct_at(P *p, int j, int id) { return j < p->n && p->t[j].kind == TK_PUNCT && p->t[j].id == id; }

/* Tokens from k: a scalar type's one-word name and a parenthesised
 * expression, double(RAND_MAX), float(n) / 2, size_t(k), a functional cast,
 * where C would see a type (a cast's, sizeof's, a declaration's). As C++
 * decides: what is in the parentheses is a declarator when it can only be
 * one (*, &, [, a type name: double(*)(int), void(int)); a lone name is a
 * declarator in a statement followed by what a declaration goes on with
 * (int(x);), an expression in a cast or sizeof. */
bool cxx_functional_cast_ahead(P *p, int k, bool statement) {
    if (k + 2 >= p->n) return false;
    token_t *t = &p->t[k];
    if (t->kind == TK_KW) {
        if (!type_keyword(t->id)) return false;
    } else if (t->kind == TK_IDENT) {
        sym_t *s = lookup(p, t);
        if (!s || s->kind != S_TYPEDEF || !ty_is_scalar(s->ty)) return false;
    } else return false;
    if (!punct_at(p, k + 1, P_LPAREN)) return false;
    token_t *c = &p->t[k + 2];
    if (c->kind == TK_PUNCT)
        return !(c->id == P_STAR || c->id == P_AMP || c->id == P_LAND || c->id == P_XOR || c->id == P_LBRACK ||
                 c->id == P_ELLIPSIS || (c->id == P_LPAREN && punct_at(p, k + 3, P_STAR)));
    if (c->kind == TK_KW) return !is_type_start(p, c);
    if (c->kind != TK_IDENT) return true; /* a number, a string */
    if (is_type_start(p, c)) return false;
    if (!statement || !punct_at(p, k + 3, P_RPAREN)) return true;
    int after = k + 4; /* int(x); int(x) = 3; int(x), y; int(x)[4]; */
    return !(punct_at(p, after, P_SEMI) || punct_at(p, after, P_ASSIGN) || punct_at(p, after, P_COMMA) ||
             punct_at(p, after, P_LBRACK) || punct_at(p, after, P_LBRACE));
}

node_t *cxx_primary_kw(P *p) {
    token_t *t = TOK;
    loc_t l0 = t->loc;
    if (t->id == KW_STATIC_CAST || t->id == KW_REINTERPRET_CAST || t->id == KW_CONST_CAST) {
        p->i++;
        expect(p, P_LT, "'<' and a type");
        type_t *ty = abstract_type(p);
        expect(p, P_GT, "'>'");
        expect(p, P_LPAREN, "'('");
        node_t *e = rvalue(p, expression(p));
        expect(p, P_RPAREN, "')'");
        loc_t l = from(p, &l0);
        bool null = e->is_const && ty_is_int(e->ty) && e->k.i == 0;
        bool bad = (ty->kind == T_PTR) != (e->ty->kind == T_PTR || e->ty->kind == T_ARRAY) && !(ty->kind == T_PTR && null);
        if (ty->kind == T_PTR && e->ty->kind == T_PTR && ty->base->kind != T_VOID && e->ty->base->kind != T_VOID &&
            !ty_same(ty_unqual(ty->base), ty_unqual(e->ty->base)))
            bad = true;
        if (t->id == KW_STATIC_CAST && bad)
            type_error(&l, "static_cast cannot convert %s to %s (reinterpret_cast can)", tyname(e->ty), tyname(ty));
        return explicit_cast(p, e, ty, &l);
    }
    if (type_keyword(t->id) && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_LPAREN) {
        p->i++;
        type_t *ty = t->id == KW_CHAR ? &ty_char : t->id == KW_SHORT ? &ty_short : t->id == KW_INT ? &ty_int
                   : t->id == KW_LONG ? &ty_long : t->id == KW_FLOAT ? &ty_float : t->id == KW_DOUBLE ? &ty_double
                   : t->id == KW_UNSIGNED ? &ty_uint : t->id == KW_BOOL ? &ty_bool : &ty_int;
        return cxx_functional_cast(p, ty, &l0);
    }
    return NULL;
}

node_t *cxx_main_args(P *p, const char *name, loc_t *l) {
    if (!strcmp(name, "argc")) return mk_int(l, &ty_int, 1);
    if (!strcmp(name, "argv")) return call_builtin(p, l, "__icuda_argv", NULL, 0);
    if (!strcmp(name, "__func__") || !strcmp(name, "__FUNCTION__")) { /* a cell is main's body */
        const char *fn = p->f->is_cell || !p->f->fn ? "main" : p->f->fn->name;
        size_t n = strlen(fn);
        char *s = palloc(p, n + 1);
        memcpy(s, fn, n + 1);
        const char *bytes;
        uint64_t w = strlit_word(p, s, n, l, &bytes);
        node_t *r = mk_const(l, ty_ptr(ty_const(&ty_char)), (val_t){.u = w});
        r->str = bytes;
        return r;
    }
    return NULL;
}

node_t *cxx_cell_return(P *p, node_t *v, loc_t *l0) {
    loc_t l = from(p, l0);
    if (!ty_is_int(v->ty)) type_error(&v->loc, "a cell's return value is main's exit status: an integer, not %s", tyname(v->ty));
    return call_builtin(p, &l, "__icuda_cell_return", &v, 1);
}

/* ---------------- auto and references ---------------- */
bool cxx_has_auto(type_t *t) {
    for (; t; t = t->kind == T_PTR ? t->base : NULL)
        if (t->kind == T_VOID && t->name && !strcmp(t->name, "auto")) return true;
    return false;
}

/* C++'s deduction for `auto x = e`, `auto *p = e`, `const auto &r = e`:
 * the initialiser's type, arrays and functions decayed, top-level const
 * dropped unless written. */
static type_t *deduce(P *p, type_t *decl, type_t *init, loc_t *l, bool decay) {
    if (decl->kind == T_VOID) { /* the placeholder */
        type_t *t = init;
        if (decay && t->kind == T_ARRAY) t = ty_ptr(t->base);
        else if (decay && t->kind == T_FUNC) t = ty_ptr(t);
        if (decay) t = ty_unqual(t);
        if (t->kind == T_VOID) type_error(l, "cannot deduce auto from an expression of type void");
        return decl->is_const ? ty_const(t) : t;
    }
    if (decl->is_ref) return ty_ref(deduce(p, decl->base, init, l, false));
    if (init->kind == T_ARRAY) init = ty_ptr(init->base);
    if (init->kind != T_PTR) type_error(l, "'auto *' needs a pointer, not %s", tyname(init));
    type_t *r = ty_ptr(deduce(p, decl->base, init->base, l, false));
    return decl->is_const ? ty_const(r) : r;
}

type_t *cxx_deduce_auto(P *p, type_t *decl, node_t *init, loc_t *l) {
    type_t *it = init->ty;
    if (it->kind == T_FUNC && init->op != FD_USER) type_error(l, "cannot deduce auto from a built-in function");
    return deduce(p, decl, it, l, true);
}

/* A use of a reference: the object it refers to. */
node_t *cxx_deref_ref(node_t *ref, loc_t *l) {
    type_t *pt = ty_copy(ref->ty);
    pt->is_ref = false;
    ref->ty = pt;
    return pl_deref(l, pt->base, mk_load(ref), 0);
}

/* A call that returns a reference: the object it refers to. */
node_t *cxx_deref_value(node_t *v, loc_t *l) {
    type_t *pt = ty_copy(v->ty);
    pt->is_ref = false;
    v->ty = pt;
    return pl_deref(l, pt->base, v, 0);
}

/* The address a reference of type rt is bound to when initialised with e: e's
 * own place, or, for a reference to const, a temporary holding e's value. */
node_t *cxx_ref_target(P *p, type_t *rt, node_t *e, const char *what) {
    type_t *want = rt->base;
    e = cxx_ref_class_arg(p, want, e, what); /* C++ classes: a converting constructor's temporary (parse_class.c) */
    if (e->is_place && e->place != PL_TEMP && e->place != PL_SLOT && ty_same(ty_unqual(e->ty), ty_unqual(want))) {
        if (e->ty->is_const && !want->is_const)
            type_error(&e->loc, "%s: binding a reference to %s drops its const", what, tyname(e->ty));
        return mk_addr(e);
    }
    if (e->is_place && e->place == PL_SLOT && ty_same(ty_unqual(e->ty), ty_unqual(want))) {
        char b[100];
        type_error(&e->loc, "%s: '%s' cannot be bound to a reference here (internal: it has no address); "
                   "declare it outside the function or take its address once with &",
                   what, loc_text(&e->loc, b, sizeof b));
    }
    if (!want->is_const) {
        if (e->is_place)
            type_error(&e->loc, "%s: a reference to %s cannot refer to %s", what, tyname(want), tyname(e->ty));
        type_error(&e->loc, "%s: a reference to non-const %s needs a variable, not a value", what, tyname(want));
    }
    node_t *v = conv_assign(p, rvalue(p, e), ty_unqual(want), what);
    if (!v) type_error(&e->loc, "%s: cannot convert %s to %s", what, tyname(e->ty), tyname(want));
    type_t *tt = ty_unqual(want);
    int64_t off = new_mem(p, tt, (int64_t)tt->size);
    int h = new_handle(p, off, (int64_t)tt->size, "a temporary");
    node_t *set = mk_assign(&e->loc, pl_frame(&e->loc, tt, off, h), v);
    node_t *r = mk_comma(&e->loc, set, mk_addr(pl_frame(&e->loc, tt, off, h)));
    r->ty = ty_ptr(tt);
    return r;
}

node_t *cxx_bind_ref(P *p, node_t *pl, type_t *rt, node_t *init, loc_t *l) {
    node_t *a = cxx_ref_target(p, rt, init, "the reference's initial value");
    type_t *pt = ty_copy(pl->ty);
    pt->is_ref = false;
    pl->ty = pt;
    a->ty = pt;
    return mk_assign(l, pl, a);
}

/* ---------------- goto ---------------- */
void cxx_note_goto(P *p, node_t *g) { vadd(&p->f->gotos, &p->f->ngotos, &p->f->capgotos, g); }

void cxx_note_label(P *p, const char *name, loc_t *at) {
    fctx_t *f = p->f;
    for (int i = 0; i < f->nlabels; i++)
        if (!strcmp(f->labels[i], name)) syntax_error(at, "duplicate label '%s'", name);
    if (f->nlabels == f->caplabels) {
        f->caplabels = f->caplabels ? f->caplabels * 2 : 8;
        const char **nl = palloc(p, sizeof(char *) * (size_t)f->caplabels);
        if (f->nlabels) memcpy(nl, f->labels, sizeof(char *) * (size_t)f->nlabels);
        f->labels = nl;
    }
    f->labels[f->nlabels++] = name;
}

void cxx_check_labels(P *p) {
    fctx_t *f = p->f;
    for (int i = 0; i < f->ngotos; i++) {
        int j = 0;
        while (j < f->nlabels && strcmp(f->labels[j], f->gotos[i]->str)) j++;
        if (j == f->nlabels) syntax_error(&f->gotos[i]->loc, "label '%s' used but not defined", f->gotos[i]->str);
    }
}

/* ---------------- range-based for ---------------- */
/* After "for (": is there a ':' before the first ';' at this depth? */
bool cxx_is_range_for(P *p) {
    int d = 0;
    for (int j = p->i; j < p->n && p->t[j].kind != TK_EOF; j++) {
        token_t *u = &p->t[j];
        if (u->kind != TK_PUNCT) continue;
        if (u->id == P_LPAREN || u->id == P_LBRACK || u->id == P_LBRACE) d++;
        else if (u->id == P_RPAREN || u->id == P_RBRACK || u->id == P_RBRACE) { if (--d < 0) return false; }
        else if (u->id == P_SEMI) return false;
        else if (u->id == P_QUEST) return false;
        else if (u->id == P_COLON && d == 0) return true;
    }
    return false;
}

/* A local of the function being parsed, in a slot or (when its address is
 * taken somewhere) in frame memory. */
static node_t *new_local(P *p, const char *name, type_t *t, loc_t *l) {
    sym_t *s = palloc(p, sizeof *s);
    s->name = name;
    s->ty = t;
    s->kind = S_VAR_LOCAL;
    node_t *pl;
    type_t *st = t;
    if (t->is_ref) { st = ty_copy(t); st->is_ref = false; }
    if (ty_is_aggr(t) || hmap_get(&p->addressed, name)) {
        s->addressable = true;
        s->memoff = new_mem(p, st, (int64_t)st->size);
        s->hidx = new_handle(p, s->memoff, (int64_t)st->size, name);
        pl = pl_frame(l, st, s->memoff, s->hidx);
    } else {
        s->slot = new_slot(p);
        pl = pl_slot(l, st, s->slot);
    }
    scope_add(p, s);
    return pl;
}

/* for (x : {a, b, c}): the list as an array of the loop variable's type
 * (or, with auto, of the first value's) */
static node_t *braced_range(P *p, type_t *vt, node_t **stores) {
    loc_t l0 = TOK->loc;
    expect(p, P_LBRACE, "'{'");
    node_t **v = NULL;
    int n = 0, cap = 0;
    while (!accept(p, P_RBRACE)) {
        if (n && !accept(p, P_COMMA)) expected(p, "',' or '}'");
        vadd(&v, &n, &cap, rvalue(p, assign_expr(p)));
    }
    if (!n) type_error(&l0, "a range-based for over an empty list");
    type_t *et = vt->is_ref ? vt->base : vt;
    if (cxx_has_auto(et)) et = ty_unqual(v[0]->ty);
    et = ty_unqual(et);
    type_t *at = ty_array(et, n);
    loc_t l = from(p, &l0);
    int64_t off = new_mem(p, at, (int64_t)at->size);
    int h = new_handle(p, off, (int64_t)at->size, "a braced list");
    node_t *r = NULL;
    for (int i = 0; i < n; i++) {
        node_t *c = conv_assign(p, v[i], et, "a list value");
        if (!c) type_error(&v[i]->loc, "cannot convert %s to %s in the list", tyname(v[i]->ty), tyname(et));
        node_t *set = mk_assign(&l, pl_index(&l, et, pl_frame(&l, at, off, h), mk_int(&l, &ty_long, i)), c);
        r = r ? mk_comma(&l, r, set) : set;
    }
    *stores = st_expr(r); /* run before the loop starts */
    return pl_frame(&l, at, off, h);
}

/* for (T x : range) body, over an array or a class with begin()/end():
 *   { E *it = first, *end = last; for (; it != end; ++it) { T x = *it; body } } */
node_t *cxx_range_for(P *p, loc_t *l0) {
    scope_push(p);
    int st;
    bool skip;
    type_t *b = decl_specs(p, &st, &skip);
    if (!b) expected(p, "a declaration of the loop variable");
    token_t *nm = NULL;
    type_t *vt = declarator(p, b, &nm);
    if (!nm) expected(p, "the loop variable's name");
    expect(p, P_COLON, "':'");
    node_t *stores = NULL;
    node_t *range = is_p(p, P_LBRACE) ? braced_range(p, vt, &stores) : expression(p);
    expect(p, P_RPAREN, "')'");
    loc_t rl = range->loc;
    node_t *first, *last;
    type_t *et;
    if (range->ty->kind == T_ARRAY) {
        if (range->ty->count < 0 || range->ty->vla) type_error(&rl, "a range-based for needs an array of known length");
        et = range->ty->base;
        first = rvalue(p, range);
        last = mk_ptradd(&rl, rvalue(p, range), mk_int(&rl, &ty_long, range->ty->count), (int64_t)et->size, 1);
    } else if (range->ty->kind == T_STRUCT && (first = cxx_class_range(p, range, &last))) {
        et = first->ty->base;
    } else
        type_error(&rl, "a range-based for needs an array or a container, not %s", tyname(range->ty));
    type_t *pt = ty_ptr(et);
    int its = new_slot(p), ends = new_slot(p);
    node_t *init = st_block(l0, NULL, 0);
    node_t **iv = palloc(p, sizeof(node_t *) * 3);
    int ni = 0;
    if (stores) iv[ni++] = stores;
    iv[ni++] = st_expr(mk_assign(&rl, pl_slot(&rl, pt, its), first));
    iv[ni++] = st_expr(mk_assign(&rl, pl_slot(&rl, pt, ends), last));
    init = st_block(l0, iv, ni);
    node_t *cond = mk_cmp(&rl, P_NE, pt, mk_load(pl_slot(&rl, pt, its)), mk_load(pl_slot(&rl, pt, ends)));
    node_t *step = mk_incdec(&rl, pl_slot(&rl, pt, its), 1, false);
    char *name = pstr(p, nm);
    loc_t vl = nm->loc;
    node_t *elem = pl_deref(&vl, et, mk_load(pl_slot(&rl, pt, its)), 0);
    if (cxx_has_auto(vt)) vt = cxx_deduce_auto(p, vt, elem, &vl);
    node_t *pl = new_local(p, name, vt, &vl);
    node_t *set;
    if (vt->is_ref) {
        node_t *a = cxx_ref_target(p, vt, elem, "the loop variable");
        a->ty = pl->ty;
        set = st_expr(mk_assign(&vl, pl, a));
    } else if (cxx_class_elem(vt)) set = cxx_range_var(p, pl, vt, elem, &vl); /* a copy that is destroyed (parse_class.c) */
    else
        set = st_expr(assign_to(p, pl, rvalue(p, elem), &vl, "the loop variable"));
    node_t *body = loop_body(p);
    node_t **bv = palloc(p, sizeof(node_t *) * 2);
    bv[0] = set;
    bv[1] = body;
    scope_pop(p);
    return st_for(l0, init, cond, step, st_block(l0, bv, 2));
}

