/* C++ overloading of host functions: f(int) and f(float) are two functions
 * under one name; a call picks the one whose parameters its arguments fit
 * best (exact, then promotions, then conversions), as C++ ranks them. A
 * definition with the parameters of an existing f replaces that one, so
 * re-running a cell works as in C. */
#include <limits.h>
#include "parse_internal.h"

static bool same_params(type_t *a, type_t *b) {
    if (a->nparams != b->nparams || a->variadic != b->variadic) return false;
    for (int i = 0; i < a->nparams; i++)
        if (!ty_same(ty_unqual(a->params[i]), ty_unqual(b->params[i]))) return false;
    return true;
}

static const char *box_of(sym_t *s) { return s->box ? s->box : s->name; }

static char *signature(P *p, const char *name, type_t *ft) {
    char b[600];
    size_t k = (size_t)snprintf(b, sizeof b, "%s(", name);
    for (int i = 0; i < ft->nparams && k < sizeof b; i++) {
        char t[200];
        k += (size_t)snprintf(b + k, sizeof b - k, "%s%s", i ? ", " : "", ty_name(ft->params[i], t, sizeof t));
    }
    if (k < sizeof b) snprintf(b + k, sizeof b - k, ")");
    return pool_strndup(&p->in->pool, b, strlen(b));
}

sym_t *cxx_overload_add(P *p, sym_t *s, func_t *fn) {
    sym_t *old = hmap_get(&p->cell, s->name);
    if (!old) old = hmap_get(&p->in->globals, s->name);
    if (!old || old->kind != S_FUNC) return s;
    sym_t *chain = NULL, **tail = &chain;
    const char *box = NULL;
    for (sym_t *q = old; q; q = q->ovl) {
        if (same_params(q->ty, s->ty)) { /* replaced; defaults given on its declaration stay */
            box = box_of(q);
            if (!s->ty->defaults && q->ty->defaults) s->ty->defaults = q->ty->defaults;
            continue;
        }
        sym_t *c = palloc(p, sizeof *c);
        *c = *q;
        c->ovl = NULL;
        *tail = c;
        tail = &c->ovl;
    }
    if (!box) box = chain ? signature(p, s->name, s->ty) : s->name;
    fn->name = box;
    s->box = strcmp(box, s->name) ? box : NULL;
    s->ovl = chain;
    return s;
}

/* How well an argument of type at fits a parameter of type pt: 0 exact,
 * 1 promotion, 2 conversion, -1 not at all. */
static int fit(node_t *arg, type_t *pt) {
    type_t *at = arg->ty;
    if (at->kind == T_ARRAY) at = ty_ptr(at->base);
    if (pt->is_ref) {
        type_t *want = pt->base;
        if (ty_same(ty_unqual(at), ty_unqual(want))) return at->is_const && !want->is_const ? -1 : 0;
        if (want->is_const && ty_is_arith(want) && ty_is_arith(at)) return 2;
        return -1;
    }
    if (ty_same(ty_unqual(at), ty_unqual(pt))) return 0;
    if (ty_is_arith(at) && ty_is_arith(pt)) {
        if ((ty_is_int(at) && pt->kind == T_INT && at->size < 4) || (at->kind == T_FLOAT && pt->kind == T_DOUBLE)) return 1;
        return 2;
    }
    if (pt->kind == T_PTR && at->kind == T_PTR)
        return pt->base->kind == T_VOID || ty_compat_ptr(pt->base, at->base) ? 2 : -1;
    if (pt->kind == T_PTR && arg->is_const && ty_is_int(at) && arg->k.i == 0) return 2;
    return -1;
}

static int match(type_t *ft, node_t **args, int n) {
    if (n > ft->nparams && !ft->variadic) return -1;
    if (n < ft->nparams && !(ft->defaults && ft->defaults[n])) return -1;
    int score = 0;
    for (int i = 0; i < n && i < ft->nparams; i++) {
        int f = fit(args[i], ft->params[i]);
        if (f < 0) return -1;
        score += f;
    }
    return score;
}

node_t *cxx_overload_pick(P *p, node_t *fn, node_t **args, int n, loc_t *l) {
    sym_t *s = fn->p, *best = NULL;
    int bestscore = INT_MAX, ties = 0;
    for (sym_t *q = s; q; q = q->ovl) {
        int sc = match(q->ty, args, n);
        if (sc < 0) continue;
        if (sc < bestscore) { best = q; bestscore = sc; ties = 0; }
        else if (sc == bestscore) ties++;
    }
    if (!best || ties) {
        char list[1200];
        size_t k = 0;
        list[0] = 0;
        for (sym_t *q = s; q && k < sizeof list; q = q->ovl) {
            char d[300];
            k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", k ? "; " : "", ty_decl(q->ty, s->name, d, sizeof d));
        }
        type_error(l, "%s call to %s: the candidates are %s", best ? "an ambiguous" : "no overload fits this", s->name, list);
    }
    node_t *d = node_new(&fn->loc);
    d->ty = best->ty;
    d->op = FD_USER;
    d->p = fbox_get(p, box_of(best));
    return d;
}

/* std::sqrt(float) is float in C++ (<cmath> overloads it): a libm function
 * named through std:: (or under using namespace) whose arguments are all
 * float calls its float twin, sqrtf. */
node_t *cxx_float_math(P *p, node_t *fn, node_t **args, int n) {
    builtin_t *b = fn->p;
    if (!n || !b->ty || b->ty->base->kind != T_DOUBLE) return fn;
    for (int i = 0; i < n; i++)
        if (args[i]->ty->kind != T_FLOAT) return fn;
    char nb[64];
    snprintf(nb, sizeof nb, "%sf", b->name);
    builtin_t *f = hmap_get(&p->in->builtins, nb);
    if (!f || !f->ty || f->ty->base->kind != T_FLOAT) return fn;
    node_t *d = node_new(&fn->loc);
    *d = *fn;
    d->p = f;
    d->ty = f->ty;
    return d;
}
