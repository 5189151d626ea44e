/* C++ classes, the other half of parse_class.c: calls of member functions
 * (overloads ranked by how well the arguments fit, library methods taking
 * objects by reference), construction (T x(args), T x{args}, T x = e,
 * T(args) temporaries, converting constructors), class templates' argument
 * lists, operators of library classes, and range-for over containers. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cxx_class.h"

/* ---------------- calls ---------------- */
/* A braced list as an argument ({1, 2, 3} for a vector parameter, {"a", 1}
 * for a struct): a node that only constructions and conversions accept. */
static val_t ev_brace(node_t *n, frame_t *f) { rt_error(n, "a braced list can only make an object"); }
bool cx_is_brace(node_t *e) { return e && e->fn == ev_brace; }

node_t **cx_args(P *p, int *n, int close) {
    node_t **v = NULL;
    int k = 0, cap = 0;
    while (!accept(p, close)) {
        if (k && !accept(p, P_COMMA)) expected(p, close == P_RPAREN ? "',' or ')'" : "',' or '}'");
        if (close == P_RBRACE && is_p(p, P_RBRACE)) break; /* {a, b,} */
        if (is_p(p, P_LBRACE)) {
            loc_t l0 = TOK->loc;
            p->i++;
            node_t *b = node_new(&l0);
            b->list = cx_args(p, &b->nlist, P_RBRACE);
            b->loc = from(p, &l0);
            b->ty = &ty_void;
            b->fn = ev_brace;
            vadd(&v, &k, &cap, b);
            continue;
        }
        vadd(&v, &k, &cap, assign_expr(p));
    }
    *n = k;
    return v;
}

/* e (a braced list) into the plain (not class) object at place pl */
static node_t *brace_into(P *p, node_t *pl, type_t *t, node_t *e, loc_t *l) {
    if (t->kind == T_ARRAY) {
        if (t->count >= 0 && e->nlist > t->count) type_error(&e->loc, "too many values for %s", tyname(t));
        node_t *r = mk_memset0(l, pl, (int64_t)t->size);
        for (int i = 0; i < e->nlist; i++) {
            node_t *ep = pl_index(l, t->base, pl, mk_int(l, &ty_long, i));
            node_t *a = e->list[i];
            node_t *put = cx_class_of(t->base) ? cx_construct(p, ep, t->base, cx_is_brace(a) ? a->list : &e->list[i],
                                                              cx_is_brace(a) ? a->nlist : 1, cx_is_brace(a), l)
                          : cx_is_brace(a) ? brace_into(p, ep, t->base, a, l) : assign_to(p, ep, rvalue(p, a), l, "initialization");
            r = mk_comma(l, r, put);
        }
        return r;
    }
    if (t->kind == T_STRUCT || t->kind == T_UNION) {
        sdef_t *sd = t->sd;
        node_t *r = mk_memset0(l, pl, (int64_t)t->size);
        for (int i = 0; i < e->nlist; i++) {
            if (i >= sd->nfields) type_error(&e->list[i]->loc, "too many values for %s", tyname(t));
            field_t *f = &sd->fields[i];
            node_t *fp = pl_member(l, f->ty, pl, (int64_t)f->off);
            node_t *a = e->list[i];
            node_t *put = cx_class_of(f->ty) ? cx_construct(p, fp, f->ty, cx_is_brace(a) ? a->list : &e->list[i],
                                                            cx_is_brace(a) ? a->nlist : 1, cx_is_brace(a), l)
                          : cx_is_brace(a) ? brace_into(p, fp, f->ty, a, l) : assign_to(p, fp, rvalue(p, a), l, "initialization");
            r = mk_comma(l, r, put);
        }
        return r;
    }
    if (e->nlist > 1) type_error(&e->loc, "one value is needed for %s, not %d", tyname(t), e->nlist);
    if (!e->nlist) return mk_memset0(l, pl, (int64_t)t->size);
    if (cx_is_brace(e->list[0])) return brace_into(p, pl, t, e->list[0], l);
    return assign_to(p, pl, rvalue(p, e->list[0]), l, "initialization");
}

/* how well e fits parameter type t: -1 not at all, higher better */
static int score(P *p, node_t *e, type_t *t) {
    type_t *et = e->ty, *ut = ty_unqual(t);
    if (cx_is_brace(e)) { /* {..} makes a class object, a struct or array, or one value */
        if (t->is_ref) ut = ty_unqual(t->base);
        return cx_class_of(ut) || ty_is_aggr(ut) || e->nlist <= 1 ? 1 : -1;
    }
    if (et->kind == T_ARRAY) et = ty_ptr(et->base);
    if (et->kind == T_FUNC) return ut->kind == T_PTR && ut->base->kind == T_FUNC ? 2 : -1;
    cx_class_t *tc = cx_class_of(ut), *ec = cx_class_of(et);
    if (tc) {
        if (ec && ec->type->sd == tc->type->sd) return 4;
        for (cx_method_t *m = tc->methods; m; m = m->next)
            if (m->is_ctor && !m->is_explicit && m->fty->nparams == 1 && !m->deleted) {
                node_t tmp = *e;
                if (m->special) return 1; /* a library constructor that types its own argument */
                if (cx_class_of(m->fty->params[0]) == tc) continue;
                if (score(p, &tmp, m->fty->params[0]) >= 2) return 1;
            }
        return -1;
    }
    if (ec) {
        if (ut->kind == T_PTR && ty_same(ty_unqual(ut->base), ty_unqual(et))) return 4; /* a library reference */
        return -1;
    }
    if (ty_same(ty_unqual(et), ut)) return 4;
    if (ty_is_arith(et) && ty_is_arith(ut)) {
        if (ty_is_int(et) && ty_is_int(ut)) return 3;
        if (ty_is_float(et) && ty_is_float(ut)) return 3;
        return 2;
    }
    if (ut->kind == T_PTR && et->kind == T_PTR) return ty_compat_ptr(ut->base, et->base) ? 3 : -1;
    if (ut->kind == T_PTR && e->is_const && ty_is_int(et) && e->k.u == 0) return 2;
    if (ut->kind == T_BOOL && et->kind == T_PTR) return 1;
    return -1;
}

/* an argument converted for parameter type t */
static node_t *conv_arg(P *p, node_t *a, type_t *t, const char *what, bool lib);
node_t *cxx_arg(P *p, node_t *a, type_t *t, const char *what) { return conv_arg(p, a, t, what, false); }
node_t *cx_lib_arg(P *p, node_t *a, type_t *t, const char *what) { return conv_arg(p, a, t, what, true); }
static node_t *conv_arg(P *p, node_t *a, type_t *t, const char *what, bool lib) {
    if (cx_is_brace(a) && !cx_class_of(t->is_ref ? t->base : t)) { /* {..} for a plain struct, array or value */
        type_t *ut = ty_unqual(t->is_ref ? t->base : t);
        int64_t off = new_mem(p, ut, (int64_t)ut->size);
        int h = new_handle(p, off, (int64_t)ut->size, "a temporary");
        node_t *tmp = pl_frame(&a->loc, ut, off, h);
        node_t *mk = brace_into(p, tmp, ut, a, &a->loc);
        node_t *w = cx_life_wrap(p, -1, mk, tmp);
        a = pl_deref(&a->loc, ut, w, 0);
        if (!t->is_ref && !ty_is_aggr(ut)) return conv_assign(p, rvalue(p, a), t, what);
    }
    if (t->is_ref) return cxx_ref_target(p, t, a, what);
    type_t *ut = ty_unqual(t);
    if (cx_class_of(ut)) {
        node_t *v = cx_convert(p, a, ut, what);
        if (!v) type_error(&a->loc, "%s: cannot convert %s to %s", what, tyname(a->ty), tyname(t));
        if (lib) return cx_this_word(p, v); /* library functions take objects by reference */
        if (cx_nontrivial(ut)) return cxx_arg_by_value(p, v, ut);
        return rvalue(p, v);
    }
    if (lib && ut->kind == T_PTR && cx_class_of(a->ty) && ty_same(ty_unqual(ut->base), ty_unqual(a->ty)))
        return cx_this_word(p, a);
    node_t *r = (a->ty->kind == T_FUNC && (a->op == FD_USER || a->op == FD_BUILTIN)) ? a : rvalue(p, a);
    node_t *c = conv_assign(p, r, t, what);
    if (!c) type_error(&a->loc, "%s: cannot convert %s to %s", what, tyname(a->ty), tyname(t));
    return c;
}

static char *sig_text(cx_method_t *m, char *b, size_t n) {
    char nb[200];
    size_t k = (size_t)snprintf(b, n, "%s(", cx_disp_name(m, nb, sizeof nb));
    for (int i = 0; i < m->fty->nparams && k < n; i++) {
        char tb[160];
        k += (size_t)snprintf(b + k, n - k, "%s%s", i ? ", " : "", ty_name(m->fty->params[i], tb, sizeof tb));
    }
    if (k < n) snprintf(b + k, n - k, ")");
    return b;
}

node_t *cx_call(P *p, cx_method_t *m0, node_t *obj, node_t **args, int n, loc_t *l) {
    for (cx_method_t *m = m0; m; m = m->next)
        if (m->special && !strcmp(m->name, m0->name) && m->is_ctor == m0->is_ctor) return m->special(p, m, obj, args, n, l);
    cx_method_t *best = NULL;
    int bests = -1, nviable = 0;
    for (cx_method_t *m = m0; m; m = m->next) {
        if (m->is_ctor != m0->is_ctor || m->is_dtor != m0->is_dtor || (!m0->is_ctor && !m0->is_dtor && strcmp(m->name, m0->name)))
            continue;
        if (m->deleted) continue;
        type_t *f = m->fty;
        int req = m->bi && m->nreq >= 0 ? m->nreq : f->nparams;
        while (!m->bi && req > 0 && f->defaults && f->defaults[req - 1]) req--; /* C++ default arguments */
        if (n < req || (n > f->nparams && !f->variadic)) continue;
        int s = 0;
        for (int i = 0; i < n && i < f->nparams && s >= 0; i++) {
            int k = score(p, args[i], f->params[i]);
            s = k < 0 ? -1 : s + k;
        }
        if (s < 0) continue;
        nviable++;
        if (s > bests) { bests = s; best = m; }
    }
    char nb[200];
    if (!best) {
        char msg[1200];
        size_t k = 0;
        k += (size_t)snprintf(msg + k, sizeof msg - k, "no matching call to %s(", cx_disp_name(m0, nb, sizeof nb));
        for (int i = 0; i < n && k < sizeof msg; i++) {
            char tb[120];
            k += (size_t)snprintf(msg + k, sizeof msg - k, "%s%s", i ? ", " : "", ty_name(args[i]->ty, tb, sizeof tb));
        }
        if (k < sizeof msg) k += (size_t)snprintf(msg + k, sizeof msg - k, "); candidates:");
        for (cx_method_t *m = m0; m && k < sizeof msg; m = m->next) {
            if (m->is_ctor != m0->is_ctor || (!m0->is_ctor && strcmp(m->name, m0->name))) continue;
            char sb[300];
            k += (size_t)snprintf(msg + k, sizeof msg - k, " %s%s", sig_text(m, sb, sizeof sb), m->deleted ? " (deleted)" : "");
        }
        type_error(l, "%s", msg);
    }
    cx_method_t *m = best;
    if (m->special) return m->special(p, m, obj, args, n, l);
    type_t *f = m->fty;
    bool lib = m->bi != NULL;
    if (!lib && n < f->nparams && f->defaults && f->defaults[n]) { /* the defaults of the arguments not given */
        node_t **a2 = palloc(p, sizeof(node_t *) * (size_t)(f->nparams + 1));
        if (n) memcpy(a2, args, sizeof(node_t *) * (size_t)n);
        for (int i = n; i < f->nparams; i++) a2[i] = f->defaults[i];
        args = a2;
        n = f->nparams;
    }
    if (!m->is_static && !obj) type_error(l, "%s needs an object: call it as x.%s(...)", cx_disp_name(m, nb, sizeof nb), m->name);
    int extra = m->is_static ? 0 : 1;
    node_t **v = palloc(p, sizeof(node_t *) * (size_t)(n + 1));
    if (extra) v[0] = cx_this_word(p, obj);
    for (int i = 0; i < n; i++) {
        char what[240];
        snprintf(what, sizeof what, "argument %d of %s", i + 1, cx_disp_name(m, nb, sizeof nb));
        if (i < f->nparams) v[i + extra] = conv_arg(p, args[i], f->params[i], what, lib);
        else { /* variadic: as C passes them */
            node_t *a = rvalue(p, args[i]);
            if (a->ty->kind == T_FLOAT) a = mk_cast(a, &ty_double);
            else if (ty_is_int(a->ty)) a = mk_cast(a, ty_promote(a->ty));
            v[i + extra] = a;
        }
        v[i + extra]->loc = args[i]->loc;
    }
    if (lib && n < f->nparams) { /* defaults */
        node_t **v2 = palloc(p, sizeof(node_t *) * (size_t)(f->nparams + 1));
        memcpy(v2, v, sizeof(node_t *) * (size_t)(n + extra));
        for (int i = n; i < f->nparams; i++) v2[i + extra] = mk_const(l, f->params[i], m->defv[i - m->nreq]);
        v = v2;
        n = f->nparams;
    }
    type_t *rt = f->base;
    node_t *c;
    if (lib) {
        c = mk_builtin(l, m->bi, m->ret_ref ? ty_ptr(rt) : rt, v, n + extra);
        if (m->ret_ref) return pl_deref(l, rt, c, 0);
        if (ty_is_aggr(rt)) { /* the builtin writes into a temporary whose address comes first */
            int life;
            node_t *tmp = cx_temp(p, rt, l, &life);
            node_t **v2 = palloc(p, sizeof(node_t *) * (size_t)(n + extra + 1));
            v2[0] = mk_addr(tmp);
            memcpy(v2 + 1, v, sizeof(node_t *) * (size_t)(n + extra));
            c = mk_builtin(l, m->bi, ty_ptr(rt), v2, n + extra + 1);
            node_t *w = cx_life_wrap(p, life, c, tmp);
            return pl_deref(l, rt, w, 0);
        }
        return c;
    }
    fbox_t *box = cx_method_box(p, m);
    type_t *ff = cx_full_fty(m);
    int64_t tempoff = -1;
    if (ty_is_aggr(rt)) tempoff = new_mem(p, rt, (int64_t)rt->size);
    c = mk_call(l, box, ff, v, n + extra, tempoff);
    if (rt->is_ref) return cxx_deref_value(c, l); /* float &at(int r, int c) */
    if (cx_class_of(rt)) return cxx_call_result(p, c);
    return c;
}

/* x.f(...), p->f(...); NULL when f is a field (member() goes on) */
node_t *cxx_member(P *p, node_t *e, bool arrow, token_t *nm, loc_t *l0) {
    type_t *st;
    if (arrow) {
        node_t *r = rvalue(p, e);
        if (r->ty->kind != T_PTR) return NULL;
        st = r->ty->base;
    } else st = e->ty;
    cx_class_t *c = cx_class_of(st);
    if (!c) return NULL;
    char nbuf[128];
    const char *nb = lang_name(p->in, nbuf, sizeof nbuf, nm->s, (size_t)nm->n);
    cx_method_t *m = cx_find_method(c, nb);
    if (!m) {
        if (c->is_lib) {
            for (int i = 0; i < st->sd->nfields; i++)
                if (st->sd->fields[i].name && !strcmp(st->sd->fields[i].name, nb)) return NULL;
            type_error(&nm->loc, "%s has no member named '%s'", c->name, nb);
        }
        return NULL;
    }
    node_t *obj = arrow ? pl_deref(&e->loc, c->type, rvalue(p, e), 0) : e;
    if (!is_p(p, P_LPAREN)) type_error(&nm->loc, "member function '%s' of %s must be called: %s(...)", nb, c->name, nb);
    p->i++;
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    loc_t l = from(p, l0);
    return cx_call(p, m, m->is_static ? NULL : obj, args, n, &l);
}

/* T::g(...) for a class T (user or library): its static member functions */
static node_t *static_call(P *p, const char *name, loc_t *l) {
    const char *sep = NULL;
    for (const char *q = name; (q = strstr(q, "::")); q += 2) sep = q;
    if (!sep) return NULL;
    char cbuf[256];
    const char *cn = lang_name(p->in, cbuf, sizeof cbuf, name, (size_t)(sep - name));
    sym_t *s = lookup_name(p, cn);
    cx_class_t *c = s && s->kind == S_TYPEDEF ? cx_class_of(s->ty) : NULL;
    if (!c) return NULL;
    cx_method_t *m = cx_find_method(c, sep + 2);
    if (!m) type_error(l, "%s has no member named '%s'", c->name, sep + 2);
    if (!is_p(p, P_LPAREN)) type_error(l, "'%s' must be called: %s(...)", name, name);
    p->i++;
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    loc_t lc = from(p, l);
    if (!m->is_static) {
        cx_parse_t *cx = cx_parse(p);
        if (cx->cls == c && cx_find_this(p) && cx->this_f == p->f)
            return cx_call(p, m, pl_deref(l, c->type, cx_this_value(p, l), 0), args, n, &lc);
        type_error(l, "%s is not a static member function: call it on an object, x.%s(...)", name, sep + 2);
    }
    return cx_call(p, m, NULL, args, n, &lc);
}

node_t *cxx_libfn(P *p, const char *name, loc_t *l) {
    cx_state_t *cs = cx_state(p->in);
    char cb[8][256];
    const char *cand[8];
    int nc = cxx_name_candidates(p->in, name, cb, cand, 8);
    for (int k = 0; k < nc; k++) {
        cx_libfn *fp = hmap_get(&cs->libfns, cand[k]);
        if (fp) return (*fp)(p, l);
    }
    return static_call(p, name, l);
}

/* ---------------- construction ---------------- */
/* a place that has an address: the object's word */
node_t *cx_this_word(P *p, node_t *obj) {
    if (obj->is_place && obj->place != PL_TEMP && obj->place != PL_SLOT &&
        !(obj->place == PL_FRAME && obj->slot2 < 0 && !obj->p)) {
        node_t *w = mk_addr(obj);
        w->loc = obj->loc;
        return w;
    }
    /* a value: copied to a temporary first */
    int life;
    node_t *tmp = cx_temp(p, obj->ty, &obj->loc, &life);
    node_t *v = obj->is_place ? mk_load(obj) : obj;
    node_t *set = mk_assign(&obj->loc, tmp, v);
    node_t *w = cx_life_wrap(p, life, set, tmp);
    return w;
}

node_t *cx_temp(P *p, type_t *t, loc_t *l, int *life) {
    int64_t off = new_mem(p, t, (int64_t)t->size);
    int h = new_handle(p, off, (int64_t)t->size, "a temporary");
    node_t *pl = pl_frame(l, t, off, h);
    *life = cx_life_add(p, pl, t, true);
    return pl;
}

/* obj (a fresh place) constructed from args */
node_t *cx_construct(P *p, node_t *pl, type_t *t, node_t **args, int n, bool braced, loc_t *l) {
    cx_class_t *c = cx_class_of(t);
    node_t *zero = mk_memset0(l, pl, (int64_t)t->size);
    if (n == 1 && cx_class_of(args[0]->ty) && cx_class_of(args[0]->ty)->type->sd == t->sd) {
        node_t *src = args[0];
        if (cx_life_of(p, src)) return mk_assign(l, pl, cx_move_from(p, src)); /* a temporary: its object moves (elision) */
        if (c->copy_m && c->copy_m->deleted) type_error(l, "%s cannot be copied: its copy constructor is deleted", c->name);
        if (!c->copy_m) { /* the implicit copy: member by member */
            if (!c->nontrivial) return mk_assign(l, pl, rvalue(p, src));
            return mk_comma(l, zero, mk_cx_copy(l, t, mk_addr(pl), cx_this_word(p, src)));
        }
        return mk_comma(l, zero, cx_call(p, c->copy_m, pl, args, 1, l)); /* the class's own copy constructor */
    }
    cx_method_t *ctor = NULL;
    for (cx_method_t *m = c->methods; m; m = m->next)
        if (m->is_ctor) { ctor = m; break; }
    if (!ctor || (!c->has_ctor && !c->is_lib)) {
        if (n == 0) {
            if (c->default_ctor) return mk_comma(l, zero, cx_call(p, c->default_ctor, pl, NULL, 0, l));
            return zero;
        }
        if (!braced) type_error(l, "%s has no constructor taking %d argument%s", c->name, n, n == 1 ? "" : "s");
        /* aggregate initialisation: the fields in order */
        sdef_t *sd = t->sd;
        node_t *r = zero;
        if (c->default_ctor) r = mk_comma(l, r, cx_call(p, c->default_ctor, pl, NULL, 0, l));
        int fi = 0;
        for (int i = 0; i < n; i++, fi++) {
            while (fi < sd->nfields && !sd->fields[fi].name) fi++;
            if (fi >= sd->nfields) type_error(&args[i]->loc, "too many values for %s (it has %d members)", c->name, sd->nfields);
            field_t *f = &sd->fields[fi];
            node_t *fp = pl_member(l, f->ty, pl, (int64_t)f->off);
            node_t *put;
            node_t *a = args[i];
            if (cx_class_of(f->ty)) put = cx_construct(p, fp, f->ty, cx_is_brace(a) ? a->list : &args[i], cx_is_brace(a) ? a->nlist : 1,
                                                       cx_is_brace(a), l);
            else if (cx_is_brace(a)) put = brace_into(p, fp, f->ty, a, l);
            else put = assign_to(p, fp, rvalue(p, a), l, "initialization");
            r = mk_comma(l, r, put);
        }
        return r;
    }
    if (n == 0 && c->is_lib) { /* all zero bytes are an empty library object, unless it has a default constructor */
        for (cx_method_t *m = c->methods; m; m = m->next)
            if (m->is_ctor && !m->special && m->fty->nparams == 0) return mk_comma(l, zero, cx_call(p, m, pl, NULL, 0, l));
        return zero;
    }
    cx_parse(p)->braced = braced;
    node_t *r = mk_comma(l, zero, cx_call(p, ctor, pl, args, n, l));
    cx_parse(p)->braced = false;
    return r;
}

/* T x = e: e as a T (same class: copy or move; otherwise a converting constructor) */
node_t *cx_convert(P *p, node_t *e, type_t *t, const char *what) {
    cx_class_t *c = cx_class_of(t);
    cx_class_t *ec = cx_class_of(e->ty);
    if (cx_is_brace(e)) { /* T{...} */
        int life;
        node_t *tmp = cx_temp(p, t, &e->loc, &life);
        node_t *mk = cx_construct(p, tmp, t, e->list, e->nlist, true, &e->loc);
        node_t *w = cx_life_wrap(p, life, mk, tmp);
        return pl_deref(&e->loc, t, w, 0);
    }
    if (ec && ec->type->sd == c->type->sd) return e;
    cx_method_t *best = NULL;
    for (cx_method_t *m = c->methods; m; m = m->next)
        if (m->is_ctor && !m->is_explicit && !m->deleted && m->fty->nparams == 1 &&
            (m->special || (score(p, e, m->fty->params[0]) >= 0 && cx_class_of(m->fty->params[0]) != c))) { best = m; break; }
    if (!best) return NULL;
    int life;
    node_t *tmp = cx_temp(p, t, &e->loc, &life);
    node_t *a[1] = {e};
    node_t *mk = cx_construct(p, tmp, t, a, 1, false, &e->loc);
    node_t *w = cx_life_wrap(p, life, mk, tmp);
    return pl_deref(&e->loc, t, w, 0);
}

void cx_construct_from_tokens(P *p, node_t *pl, type_t *t, bool has_eq, ilist_t *o, loc_t *l0) {
    cx_class_t *c = cx_class_of(t);
    loc_t l = *l0;
    if (!c) { /* a member of plain type: = expr or {...} */
        if (!has_eq && !is_p(p, P_LBRACE)) return;
        if (is_p(p, P_LBRACE) && ty_is_scalar(t)) {
            p->i++;
            if (accept(p, P_RBRACE)) { iadd(o, st_expr(mk_memset0(&l, pl, (int64_t)t->size))); return; }
            node_t *e = assign_expr(p);
            accept(p, P_COMMA);
            expect(p, P_RBRACE, "'}'");
            iadd(o, st_expr(assign_to(p, pl, rvalue(p, e), &e->loc, "initialization")));
            return;
        }
        decl_initializer(p, pl, t, o);
        return;
    }
    if (t->kind == T_ARRAY) type_error(&l, "arrays of class objects are not interpreted; use std::vector");
    if (has_eq) {
        if (is_p(p, P_LBRACE)) { /* T x = {args} */
            p->i++;
            int n;
            node_t **args = cx_args(p, &n, P_RBRACE);
            loc_t la = from(p, &l);
            iadd(o, st_expr(cx_construct(p, pl, t, args, n, true, &la)));
            return;
        }
        node_t *e = assign_expr(p);
        node_t *v = cx_convert(p, e, t, "initialization");
        if (!v) type_error(&e->loc, "cannot initialise %s with %s", tyname(t), tyname(e->ty));
        node_t *a[1] = {v};
        iadd(o, st_expr(cx_construct(p, pl, t, a, 1, false, &e->loc)));
        return;
    }
    if (is_p(p, P_LPAREN) || is_p(p, P_LBRACE)) {
        bool braced = is_p(p, P_LBRACE);
        p->i++;
        int n;
        node_t **args = cx_args(p, &n, braced ? P_RBRACE : P_RPAREN);
        loc_t la = from(p, &l);
        iadd(o, st_expr(cx_construct(p, pl, t, args, n, braced, &la)));
        return;
    }
    if (c->has_ctor && !c->default_ctor && !c->is_lib)
        type_error(&l, "%s has no default constructor: give the constructor's arguments, e.g. %s x(...)", c->name, c->name);
    iadd(o, st_expr(cx_construct(p, pl, t, NULL, 0, false, &l)));
}

/* `T x(args)`: a constructor, not a function declaration */
bool cxx_declarator_ctor(P *p, type_t *t) {
    if (!cx_class_of(t) || !is_p(p, P_LPAREN)) return false;
    token_t *n = PEEK(1);
    if (n->kind == TK_PUNCT && n->id == P_RPAREN) return false; /* T x(); declares a function, as in C++ */
    return !is_type_start(p, n);
}

/* a declaration's object of class type: constructed, and destroyed when its scope ends */
/* T a[n]; T a[n] = {T(1), {2, 3}, x}: each element constructed, the rest by default */
static void array_elems(P *p, node_t *pl, type_t *t, bool has_init, ilist_t *o, loc_t *l) {
    type_t *et = t->base;
    cx_class_t *c = cx_class_of(et);
    long i = 0;
    if (has_init || is_p(p, P_LBRACE)) {
        expect(p, P_LBRACE, "'{' and the elements");
        while (!accept(p, P_RBRACE)) {
            if (i && !accept(p, P_COMMA)) expected(p, "',' or '}'");
            if (accept(p, P_RBRACE)) break;
            if (i >= t->count) type_error(&TOK->loc, "too many elements for %s (it has %ld)", tyname(t), t->count);
            loc_t el = TOK->loc;
            node_t *ep = pl_index(&el, et, pl, mk_int(&el, &ty_long, i));
            if (accept(p, P_LBRACE)) {
                int n;
                node_t **args = cx_args(p, &n, P_RBRACE);
                loc_t la = from(p, &el);
                iadd(o, st_expr(cx_construct(p, ep, et, args, n, true, &la)));
            } else {
                node_t *e = assign_expr(p);
                node_t *v = cx_convert(p, e, et, "an element");
                if (!v) type_error(&e->loc, "cannot make %s from %s", c->name, tyname(e->ty));
                node_t *a[1] = {v};
                iadd(o, st_expr(cx_construct(p, ep, et, a, 1, false, &e->loc)));
            }
            i++;
        }
    }
    if (i < t->count && c->has_ctor && !c->default_ctor && !c->is_lib)
        type_error(l, "%s has no default constructor for the elements that the list does not give", c->name);
    for (; i < t->count; i++) {
        node_t *ep = pl_index(l, et, pl, mk_int(l, &ty_long, i));
        iadd(o, st_expr(cx_construct(p, ep, et, NULL, 0, false, l)));
    }
}

static bool array_init(P *p, node_t *pl, type_t *t, bool has_init, bool global, sym_t *s, ilist_t *decl, ilist_t *o, loc_t *l) {
    bool sess = global && s->kind == S_VAR_GLOBAL && s->gv && cx_nontrivial(t);
    if (sess && decl->n && decl->v[decl->n - 1]->p == s->gv) decl->v[decl->n - 1] = cx_gvar_replace(p, s->gv, decl->v[decl->n - 1], l);
    int life = global ? -1 : cx_life_add(p, pl, t, false);
    if (life >= 0) iadd(o, cx_life_begin(p, life));
    ilist_t mk = {0};
    cxx_scope_open(p);
    array_elems(p, pl, t, has_init, &mk, l);
    cxx_full_expr(p, &mk);
    for (int i = 0; i < mk.n; i++) iadd(o, mk.v[i]);
    if (life >= 0) iadd(o, cx_life_set(p, life));
    if (sess) iadd(o, cx_gvar_constructed(p, s->gv, l));
    return true;
}

static void construct_from(P *p, node_t *pl, type_t *t, bool has_init, node_t *pre, ilist_t *o, loc_t *l) {
    if (!pre) { cx_construct_from_tokens(p, pl, t, has_init, o, l); return; }
    node_t *v = cx_convert(p, pre, t, "initialization"); /* auto x = ...: the initialiser came first */
    if (!v) type_error(&pre->loc, "cannot initialise %s with %s", tyname(t), tyname(pre->ty));
    node_t *a[1] = {v};
    iadd(o, st_expr(cx_construct(p, pl, t, a, 1, false, &pre->loc)));
}

bool cxx_declare_init(P *p, node_t *pl, type_t *t, bool has_init, bool global, sym_t *s, ilist_t *decl, ilist_t *o, loc_t *l,
                      node_t *pre) {
    type_t *et = t;
    while (et->kind == T_ARRAY) et = et->base;
    cx_class_t *c = cx_class_of(et);
    if (!c) {
        if (!has_init && !pre && is_p(p, P_LBRACE)) { /* int x{5}; point q{1, 2}; */
            cx_construct_from_tokens(p, pl, t, false, o, l);
            return true;
        }
        return false;
    }
    if (t->kind == T_ARRAY) {
        if (!c->nontrivial && !c->default_ctor && !c->has_ctor) return false; /* C's arrays of structs */
        if (t->base->kind == T_ARRAY || t->vla || t->count < 0 || pre)
            type_error(l, "this array of %s is not interpreted (one dimension of a known length is); use std::vector<%s>",
                       c->name, c->name);
        return array_init(p, pl, t, has_init, global, s, decl, o, l);
    }
    if (global && s->kind == S_VAR_GLOBAL && s->gv && c->nontrivial) {
        if (decl->n && decl->v[decl->n - 1]->p == s->gv) decl->v[decl->n - 1] = cx_gvar_replace(p, s->gv, decl->v[decl->n - 1], l);
        cxx_scope_open(p);
        construct_from(p, pl, t, has_init, pre, o, l);
        cxx_full_expr(p, o);
        iadd(o, cx_gvar_constructed(p, s->gv, l));
        return true;
    }
    if (global) {
        cxx_scope_open(p);
        construct_from(p, pl, t, has_init, pre, o, l);
        cxx_full_expr(p, o);
        return true;
    }
    int life = cx_life_add(p, pl, t, false);
    if (life >= 0) iadd(o, cx_life_begin(p, life));
    ilist_t mk = {0};
    cxx_scope_open(p);
    construct_from(p, pl, t, has_init, pre, &mk, l);
    cxx_full_expr(p, &mk);
    for (int i = 0; i < mk.n; i++) iadd(o, mk.v[i]);
    if (life >= 0) iadd(o, cx_life_set(p, life));
    return true;
}

/* Do the tokens from k spell a class type followed by its constructor's
 * arguments (Point(1, 2), std::chrono::milliseconds(5), std::vector<int>{1})?
 * Then `(` before them opens an expression, not a cast or sizeof's type. */
bool cxx_type_then_args(P *p, int k) {
    token_t *t = &p->t[k];
    if (cxx_functional_cast_ahead(p, k, false)) return true;
    if (t->kind != TK_IDENT) return false;
    sym_t *s = lookup(p, t);
    if (!s || s->kind != S_TYPEDEF || !cx_class_of(s->ty)) return false;
    int j = k + 1;
    if (cx_class_of(s->ty)->tmpl && j < p->n && p->t[j].kind == TK_PUNCT && p->t[j].id == P_LT) {
        int d = 0;
        for (; j < p->n && p->t[j].kind != TK_EOF; j++) {
            token_t *u = &p->t[j];
            if (u->kind != TK_PUNCT) continue;
            if (u->id == P_LT) d++;
            else if (u->id == P_GT) d--;
            else if (u->id == P_SHR) d -= 2;
            else if (u->id == P_SEMI || u->id == P_LBRACE || u->id == P_RPAREN) return false;
            if (d <= 0) { j++; break; }
        }
    }
    return j < p->n && p->t[j].kind == TK_PUNCT && (p->t[j].id == P_LPAREN || p->t[j].id == P_LBRACE);
}

/* T(args), T{args}, Tmpl<...>(args) in an expression: a temporary */
node_t *cxx_type_expr(P *p, type_t *t, loc_t *l) {
    cx_class_t *c = cx_class_of(t);
    if (c && c->tmpl) t = cxx_type_after_name(p, t, l), c = cx_class_of(t);
    if (!c) return NULL;
    if (!is_p(p, P_LPAREN) && !is_p(p, P_LBRACE))
        syntax_error(l, "unexpected type name %s: construct an object with %s(...)", c->name, c->name);
    bool braced = is_p(p, P_LBRACE);
    p->i++;
    int n;
    node_t **args = cx_args(p, &n, braced ? P_RBRACE : P_RPAREN);
    loc_t la = from(p, l);
    int life;
    node_t *tmp = cx_temp(p, t, &la, &life);
    node_t *mk = cx_construct(p, tmp, t, args, n, braced, &la);
    node_t *w = cx_life_wrap(p, life, mk, tmp);
    return pl_deref(&la, t, w, 0);
}

/* decl_specs met a type name: a class template takes its arguments here */
type_t *cxx_type_after_name(P *p, type_t *t, loc_t *l) {
    cx_class_t *c = cx_class_of(t);
    if (!c || !c->tmpl) return t;
    if (!accept(p, P_LT)) type_error(l, "%s is a class template: give its arguments, e.g. %s<float>", c->name, c->name);
    type_t *targs[4];
    int64_t iargs[4];
    int nt = 0, ni = 0;
    if (!cx_at_template_close(p)) {
        do {
            if (nt + ni >= 4) syntax_error(&TOK->loc, "too many template arguments for %s", c->name);
            if (is_type_start(p, TOK)) targs[nt++] = abstract_type(p);
            else {
                /* a number (std::ratio<1, 1000>): a literal, so that '>' ends it */
                bool neg = accept(p, P_MINUS);
                if (TOK->kind != TK_INT) expected(p, "a type or an integer as a template argument");
                iargs[ni++] = neg ? -(int64_t)TOK->ival : (int64_t)TOK->ival;
                p->i++;
            }
        } while (accept(p, P_COMMA));
    }
    if (!cx_template_close(p)) expected(p, "'>' closing the template arguments");
    loc_t la = from(p, l);
    type_t *r = c->tmpl(p, targs, nt, iargs, ni, &la);
    while (is_p(p, P_SCOPE) && PEEK(1)->kind == TK_IDENT && cx_class_of(r)) { /* std::vector<int>::iterator */
        cx_class_t *rc = cx_class_of(r);
        token_t *nm = PEEK(1);
        struct cx_nested *q = rc->nested;
        while (q && ((int)strlen(q->name) != nm->n || memcmp(q->name, nm->s, (size_t)nm->n))) q = q->next;
        if (!q) type_error(&nm->loc, "%s has no member type '%.*s'", rc->name, nm->n, nm->s);
        p->i += 2;
        r = q->ty;
    }
    return r;
}

/* for new and delete (parse_cxx_expr.c) */
bool cxx_new_takes(P *p, type_t *t) {
    return cx_class_of(t) || ((t->kind == T_STRUCT || t->kind == T_UNION || t->kind == T_ARRAY) && is_p(p, P_LBRACE));
}

static val_t ev_stmts(node_t *n, frame_t *f) { n->a->sfn(n->a, f); return (val_t){.u = 0}; }

/* new T, new T(args), new T{args}: (tmp = the zeroed buffer, constructed, tmp) */
node_t *cxx_new_object(P *p, type_t *t, loc_t *l0) {
    bool braced = is_p(p, P_LBRACE);
    if (!cx_class_of(t)) { /* new S{1, 2.5f}: C's initialiser of the new object */
        loc_t l = *l0;
        builtin_t *b = hmap_get(&p->in->builtins, "__icuda_new");
        if (!b || !b->ty) type_error(&l, "internal: new is missing");
        node_t **v = palloc(p, sizeof(node_t *) * 4);
        v[0] = mk_int(&l, &ty_ulong, 1);
        v[1] = mk_int(&l, &ty_ulong, (int64_t)t->size);
        v[2] = mk_int(&l, &ty_int, ALLOC_NEW);
        v[3] = mk_int(&l, &ty_int, 1);
        type_t *pt = ty_ptr(t);
        int slot = new_slot(p);
        node_t *set = mk_assign(&l, pl_slot(&l, pt, slot), mk_cast(mk_builtin(&l, b, b->ty->base, v, 4), pt));
        ilist_t o = {0};
        cx_construct_from_tokens(p, pl_deref(&l, t, mk_load(pl_slot(&l, pt, slot)), 0), t, false, &o, &l);
        node_t *run = node_new(&l);
        run->ty = &ty_void;
        run->a = st_block(&l, o.v, o.n);
        run->fn = ev_stmts;
        loc_t le = from(p, l0);
        node_t *r = mk_comma(&le, mk_comma(&le, set, run), mk_load(pl_slot(&le, pt, slot)));
        r->ty = pt;
        return r;
    }
    int n = 0;
    node_t **args = NULL;
    if (is_p(p, P_LPAREN) || braced) {
        p->i++;
        args = cx_args(p, &n, braced ? P_RBRACE : P_RPAREN);
    }
    loc_t l = from(p, l0);
    builtin_t *b = hmap_get(&p->in->builtins, "__icuda_new");
    if (!b || !b->ty) type_error(&l, "internal: new is missing");
    node_t **v = palloc(p, sizeof(node_t *) * 4);
    v[0] = mk_int(&l, &ty_ulong, 1);
    v[1] = mk_int(&l, &ty_ulong, (int64_t)t->size);
    v[2] = mk_int(&l, &ty_int, ALLOC_NEW);
    v[3] = mk_int(&l, &ty_int, 1);
    type_t *pt = ty_ptr(t);
    node_t *c = mk_cast(mk_builtin(&l, b, b->ty->base, v, 4), pt);
    int slot = new_slot(p);
    node_t *set = mk_assign(&l, pl_slot(&l, pt, slot), c);
    node_t *obj = pl_deref(&l, t, mk_load(pl_slot(&l, pt, slot)), 0);
    node_t *mk = cx_construct(p, obj, t, args, n, braced, &l);
    node_t *r = mk_comma(&l, mk_comma(&l, set, mk), mk_load(pl_slot(&l, pt, slot)));
    r->ty = pt;
    return r;
}
/* new T[n]: each element default-constructed (the count is the buffer's) */
node_t *cxx_new_array_init(P *p, node_t *ptr, node_t *count, type_t *t, loc_t *l) {
    cx_class_t *c = cx_class_of(t);
    if (!c || (!c->default_ctor && !c->has_ctor)) return ptr;
    if (c->has_ctor && !c->default_ctor && !c->is_lib)
        type_error(l, "new %s[n] needs a default constructor, and %s has none", c->name, c->name);
    node_t *n = mk_cx_default_n(l, t, ptr);
    n->ty = ptr->ty;
    return n;
}
node_t *cxx_destroy(P *p, node_t *ptr, type_t *t, bool array, loc_t *l) {
    if (!cx_nontrivial(t)) return NULL;
    node_t *n = mk_cx_destroy_buf(l, t, ptr, array);
    n->ty = ptr->ty;
    return n;
}

/* ---------------- operators of library classes ---------------- */
static const char *op_text(int op) {
    switch (op) {
    case P_PLUS: return "+"; case P_MINUS: return "-"; case P_STAR: return "*"; case P_DIV: return "/";
    case P_MOD: return "%"; case P_SHL: return "<<"; case P_SHR: return ">>"; case P_EQ: return "==";
    case P_NE: return "!="; case P_LT: return "<"; case P_GT: return ">"; case P_LE: return "<=";
    case P_GE: return ">="; case P_AMP: return "&"; case P_OR: return "|"; case P_XOR: return "^";
    case P_LAND: return "&&"; case P_LOR: return "||";
    }
    return "?";
}

node_t *cxx_binary(P *p, int op, node_t *a, node_t *b, loc_t *l) {
    cx_class_t *ca = cx_class_of(a->ty), *cb = cx_class_of(b->ty);
    char nm[40];
    snprintf(nm, sizeof nm, "operator%s", op_text(op));
    if (ca) {
        cx_method_t *m = cx_find_method(ca, nm);
        if (m) return cx_call(p, m, a, &b, 1, l);
    }
    if (cb) {
        char rn[44];
        snprintf(rn, sizeof rn, "r%s", nm);
        cx_method_t *m = cx_find_method(cb, rn);
        if (m) return cx_call(p, m, b, &a, 1, l);
    }
    cx_class_t *c = ca ? ca : cb;
    if (!c->is_lib)
        type_error(l, "'%s' on %s: operator overloading of your own classes is not interpreted (compare or combine "
                   "the members, or run the program with %%%%program)", op_text(op), c->name);
    type_error(l, "no operator '%s' for %s and %s", op_text(op), tyname(a->ty), tyname(b->ty));
}

node_t *cxx_index(P *p, node_t *base, loc_t *l0) {
    cx_class_t *c = cx_class_of(base->ty);
    node_t *i = expression(p);
    expect(p, P_RBRACK, "']'");
    loc_t l = from(p, l0);
    cx_method_t *m = cx_find_method(c, "operator[]");
    if (!m) type_error(&l, "%s cannot be indexed (operator[] of your own classes is not interpreted)", c->name);
    return cx_call(p, m, base, &i, 1, &l);
}

node_t *cxx_call_object(P *p, node_t *obj, loc_t *l0) {
    cx_class_t *c = cx_class_of(obj->ty);
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    loc_t l = from(p, l0);
    cx_method_t *m = cx_find_method(c, "operator()");
    if (!m) type_error(&l, "%s cannot be called like a function (operator() of your own classes is not interpreted)", c->name);
    return cx_call(p, m, obj, args, n, &l);
}

/* const std::string &s bound to "abc": the temporary a converting constructor makes */
node_t *cxx_ref_class_arg(P *p, type_t *want, node_t *e, const char *what) {
    cx_class_t *c = cx_class_of(want), *ec = cx_class_of(e->ty);
    if (!c || (ec && ec->type->sd == c->type->sd)) return e;
    if (!want->is_const) return e;
    node_t *v = cx_convert(p, e, ty_unqual(want), what);
    return v ? v : e;
}

/* for (x : v) over a class with begin()/end() returning pointers; the range
 * is evaluated once (its word kept in a slot: it may be a temporary) */
node_t *cxx_class_range(P *p, node_t *range, node_t **end) {
    cx_class_t *c = cx_class_of(range->ty);
    if (!c) return NULL;
    cx_method_t *b = cx_find_method(c, "begin"), *e = cx_find_method(c, "end");
    if (!b || !e) return NULL;
    loc_t l = range->loc;
    int slot = new_slot(p);
    type_t *pt = ty_ptr(c->type);
    node_t *set = mk_assign(&l, pl_slot(&l, pt, slot), cx_this_word(p, range));
    node_t *first = cx_call(p, b, pl_deref(&l, c->type, mk_load(pl_slot(&l, pt, slot)), 0), NULL, 0, &l);
    node_t *last = cx_call(p, e, pl_deref(&l, c->type, mk_load(pl_slot(&l, pt, slot)), 0), NULL, 0, &l);
    if (first->ty->kind != T_PTR || last->ty->kind != T_PTR)
        type_error(&l, "a range-based for over %s needs begin() and end() that return pointers", c->name);
    node_t *f = mk_comma(&l, set, first);
    f->ty = first->ty;
    *end = last;
    return f;
}

bool cxx_class_elem(type_t *t) { return cx_class_of(t) != NULL; }

/* for (std::string s : names): each pass copies the element, and the copy is destroyed */
node_t *cxx_range_var(P *p, node_t *pl, type_t *t, node_t *elem, loc_t *l) {
    ilist_t o = {0};
    int life = cx_life_add(p, pl, t, false);
    if (life >= 0) iadd(&o, cx_life_begin(p, life));
    node_t *a[1] = {elem};
    iadd(&o, st_expr(cx_construct(p, pl, t, a, 1, false, l)));
    if (life >= 0) iadd(&o, cx_life_set(p, life));
    return st_block(l, o.v, o.n);
}
