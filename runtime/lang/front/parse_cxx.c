/* The C++ of CUDA host code that is about names: qualified names `a::b::c`
 * (joined into one identifier token before parsing, so every lookup sees the
 * whole name), the namespaces known, a declared name's full spelling. (The
 * order in which a name is looked for is parse.c's cxx_name_candidates;
 * `using` and namespace aliases are declarations: parse_decl.c.) Also the
 * C++ that is not interpreted: a clear error naming it. */
#include <stdlib.h>
#include "parse_internal.h"

static bool tok_is_scope(token_t *t) { return t->kind == TK_PUNCT && t->id == P_SCOPE; }

/* IDENT (:: IDENT)* and ::IDENT become one TK_IDENT "a::b::c" ("::x" is x).
 * Template arguments in the middle (`vector<int>::iterator`) are left alone. */
void cxx_join_qualified(interp_t *in, tokvec_t *tv) {
    int w = 0;
    for (int r = 0; r < tv->n;) {
        token_t t = tv->v[r];
        bool lead = tok_is_scope(&t) && r + 1 < tv->n && tv->v[r + 1].kind == TK_IDENT &&
                    !(r > 0 && (tv->v[r - 1].kind == TK_IDENT || tok_is_scope(&tv->v[r - 1]) ||
                                (tv->v[r - 1].kind == TK_PUNCT && tv->v[r - 1].id == P_GT)));
        if (lead) t = tv->v[++r]; /* "::x": the global x, spelled so */
        if (t.kind == TK_IDENT && (lead || (r + 2 < tv->n && tok_is_scope(&tv->v[r + 1]) && tv->v[r + 2].kind == TK_IDENT))) {
            size_t len = (size_t)t.n + (lead ? 2 : 0);
            int e = r;
            while (e + 2 < tv->n && tok_is_scope(&tv->v[e + 1]) && tv->v[e + 2].kind == TK_IDENT) {
                len += 2 + (size_t)tv->v[e + 2].n;
                e += 2;
            }
            char *s = pool_alloc(&in->pool, len + 1), *o = s;
            if (lead) { memcpy(o, "::", 2); o += 2; }
            for (int k = r; k <= e; k += 2) {
                if (k > r) { memcpy(o, "::", 2); o += 2; }
                memcpy(o, tv->v[k].s, (size_t)tv->v[k].n);
                o += tv->v[k].n;
            }
            *o = 0;
            token_t *last = &tv->v[e];
            if (last->loc.line == t.loc.line && last->loc.col + last->loc.len > t.loc.col)
                t.loc.len = last->loc.col + last->loc.len - t.loc.col;
            t.s = s;
            t.n = (int)len;
            r = e + 1;
        } else
            r++;
        tv->v[w++] = t;
    }
    tv->n = w;
}

static bool known_namespace(const char *ns) {
    static const char *const known[] = {"std", "std::chrono", "cooperative_groups", "cg", "std::placeholders", NULL};
    for (int i = 0; known[i]; i++)
        if (!strcmp(ns, known[i])) return true;
    return false;
}

bool cxx_is_namespace(interp_t *in, const char *name) {
    const char *al = hmap_get(&in->ns_alias, name);
    return known_namespace(al ? al : name);
}

_Noreturn void cxx_not_interpreted(loc_t *at, const char *what) {
    lang_raise("UnsupportedError", at,
               "%s is C++ that host cells do not interpret; run the whole program with %%%%program "
               "(or move this part into device code)", what);
}

/* C++ that stops a cell with that error, recognised where it starts. */
void cxx_check_unsupported(P *p) {
    token_t *t = TOK;
    loc_t l = t->loc;
    if (t->kind == TK_KW) {
        switch (t->id) {
        case KW_TRY: case KW_CATCH: cxx_not_interpreted(&l, "exception handling (try/catch)");
        case KW_THROW: cxx_not_interpreted(&l, "throw (exceptions)");
        case KW_OPERATOR: cxx_not_interpreted(&l, "operator overloading");
        case KW_VIRTUAL: cxx_not_interpreted(&l, "a virtual function");
        case KW_DYNAMIC_CAST: cxx_not_interpreted(&l, "dynamic_cast");
        case KW_FRIEND: cxx_not_interpreted(&l, "a friend declaration");
        case KW_DECLTYPE: cxx_not_interpreted(&l, "decltype");
        }
    }
}

/* The name a top-level declaration gets: inside a namespace block, with
 * the namespace in front. */
char *cxx_decl_name(P *p, token_t *t) {
    if (!p->ns) return pstr(p, t);
    size_t a = strlen(p->ns), n = (size_t)t->n;
    char *s = palloc(p, a + 2 + n + 1);
    memcpy(s, p->ns, a);
    memcpy(s + a, "::", 2);
    memcpy(s + a + 2, t->s, n);
    s[a + 2 + n] = 0;
    return s;
}
