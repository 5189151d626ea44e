/* <iterator> beyond what the library's templates do on pointers
 * (std::distance, std::advance, std::next, std::prev: front/parse_template.c):
 * std::begin and std::end of arrays and of library containers, and
 * std::back_inserter as std::copy's destination, which appends to a
 * vector. std::copy is named here so that it sees std::back_inserter
 * before the template does; any other call goes on to the template. */
#include <string.h>
#include "cxx_lib.h"

static bool tok_named(token_t *t, const char *a, const char *b) {
    size_t n = (size_t)t->n;
    return t->kind == TK_IDENT && ((strlen(a) == n && !memcmp(t->s, a, n)) || (strlen(b) == n && !memcmp(t->s, b, n)));
}

/* std::begin(x), std::end(x): an array's first and one-past-last element,
 * a container's begin() and end() */
static node_t *begin_end(P *p, loc_t *l, bool end) {
    expect(p, P_LPAREN, "'('");
    node_t *x = assign_expr(p);
    expect(p, P_RPAREN, "')'");
    loc_t lc = from(p, l);
    const char *which = end ? "end" : "begin";
    cx_class_t *c = cx_class_of(x->ty);
    if (c) {
        cx_method_t *m = cx_find_method(c, which);
        if (!m) type_error(&lc, "std::%s of %s, which has no %s()", which, c->name, which);
        return cx_call(p, m, x, NULL, 0, &lc);
    }
    if (x->ty->kind != T_ARRAY || x->ty->count < 0 || x->ty->vla)
        type_error(&lc, "std::%s takes an array of known size or a container, not %s (a pointer does not know "
                   "where its array ends)", which, tyname(x->ty));
    node_t *first = rvalue(p, x);
    if (!end) return first;
    type_t *el = x->ty->base;
    return mk_ptradd(&lc, first, mk_int(&lc, &ty_long, x->ty->count), (int64_t)el->size, 1);
}
static node_t *fn_begin(P *p, loc_t *l) { return begin_end(p, l, false); }
static node_t *fn_end(P *p, loc_t *l) { return begin_end(p, l, true); }

static node_t *fn_back_inserter(P *p, loc_t *l) {
    type_error(l, "std::back_inserter(v) is interpreted as the destination of std::copy: "
               "std::copy(first, last, std::back_inserter(v)); elsewhere, v.push_back(x)");
}

/* Is the third argument of the call whose '(' is at index open
 * std::back_inserter(...)? Its name's index, or -1. */
static int back_inserter_arg(P *p, int open) {
    int d = 0, commas = 0;
    for (int j = open; j < p->n && p->t[j].kind != TK_EOF; j++) {
        token_t *u = &p->t[j];
        if (u->kind != TK_PUNCT) continue;
        if (u->id == P_LPAREN || u->id == P_LBRACK || u->id == P_LBRACE) d++;
        else if (u->id == P_RPAREN || u->id == P_RBRACK || u->id == P_RBRACE) {
            if (--d == 0) return -1;
        } else if (u->id == P_SEMI) return -1;
        else if (d == 1 && u->id == P_COMMA && ++commas == 2)
            return tok_named(&p->t[j + 1], "std::back_inserter", "back_inserter") ? j + 1 : -1;
    }
    return -1;
}

static node_t *fn_copy(P *p, loc_t *l) {
    if (!is_p(p, P_LPAREN) || back_inserter_arg(p, p->i) < 0) { /* the template, as any other algorithm */
        sym_t *s = lookup_name(p, "std::__copy");
        if (!s || s->kind != S_TEMPLATE) type_error(l, "std::copy is missing from the C++ library");
        return cxx_template_ref(p, s, l);
    }
    p->i++;
    node_t *first = assign_expr(p);
    expect(p, P_COMMA, "','");
    node_t *last = assign_expr(p);
    expect(p, P_COMMA, "','");
    p->i++; /* std::back_inserter */
    expect(p, P_LPAREN, "'('");
    node_t *v = assign_expr(p);
    expect(p, P_RPAREN, "')'");
    expect(p, P_RPAREN, "')'");
    loc_t lc = from(p, l);
    return cx_vector_append(p, v, first, last, &lc);
}

void cxx_iterator_register(interp_t *in) {
    cx_register_libfn(in, "std::begin", fn_begin);
    cx_register_libfn(in, "std::end", fn_end);
    cx_register_libfn(in, "std::cbegin", fn_begin);
    cx_register_libfn(in, "std::cend", fn_end);
    cx_register_libfn(in, "std::back_inserter", fn_back_inserter);
    cx_register_libfn(in, "std::copy", fn_copy);
}
