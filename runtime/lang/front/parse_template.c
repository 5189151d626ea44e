/* Host function templates: `template <typename T> void alloc_bytes(T &p,
 * size_t n) {...}` is kept as tokens; a call deduces T from its arguments
 * (or takes f<float>(...)), and each new set of types is parsed again with T
 * standing for them, as a function named "alloc_bytes<float *>". Also the
 * standard algorithms CUDA host code uses, written the same way. */
#include <stdlib.h>
#include "parse_internal.h"
#include "runtime/base/strbuf.h"
#include "cxx_class.h"

#define TMAX 8

typedef struct tmpl {
    const char *name;
    int nparams;
    const char *pnames[TMAX];
    token_t *toks; int ntoks;  /* from after "template <...>" to the end of the body, then EOF */
    type_t *pattern;           /* the function's type, parameters as placeholders */
    struct inst *inst;         /* the instances made so far */
    struct tmpl *next;         /* another template of this name, with another number of parameters */
} tmpl_t;
typedef struct inst { struct inst *next; const char *key; sym_t *s; } inst_t; /* pool memory, like the rest */

static bool punct(token_t *t, int id) { return t->kind == TK_PUNCT && t->id == id; }

void cxx_template_def(P *p) {
    loc_t l0 = TOK->loc;
    expect(p, KW_TEMPLATE, "'template'");
    expect(p, P_LT, "'<'");
    tmpl_t *tp = palloc(p, sizeof *tp);
    while (!accept(p, P_GT)) {
        if (tp->nparams && !accept(p, P_COMMA)) expected(p, "',' or '>'");
        if (!accept(p, KW_TYPENAME) && !accept(p, KW_STRUCT))
            cxx_not_interpreted(&TOK->loc, "a template with a non-type parameter");
        if (TOK->kind != TK_IDENT) expected(p, "the template parameter's name");
        if (tp->nparams == TMAX) syntax_error(&TOK->loc, "more than %d template parameters", TMAX);
        tp->pnames[tp->nparams++] = pstr(p, TOK);
        p->i++;
        if (is_p(p, P_ASSIGN)) cxx_not_interpreted(&TOK->loc, "a default template argument");
    }
    if (is_kw(p, KW_STRUCT) || is_kw(p, KW_UNION)) cxx_not_interpreted(&l0, "a class template");
    if (is_kw(p, KW_TEMPLATE)) cxx_not_interpreted(&l0, "a nested template");
    /* the item's extent: to the end of the body, or a ';' (a declaration) */
    int start = p->i, d = 0, end = -1;
    for (int j = start; j < p->n && p->t[j].kind != TK_EOF; j++) {
        token_t *u = &p->t[j];
        if (punct(u, P_LPAREN) || punct(u, P_LBRACK)) d++;
        else if (punct(u, P_RPAREN) || punct(u, P_RBRACK)) d--;
        else if (d == 0 && punct(u, P_SEMI)) { end = j; break; }
        else if (d == 0 && punct(u, P_LBRACE)) {
            int b = 0;
            for (; j < p->n && p->t[j].kind != TK_EOF; j++) {
                if (punct(&p->t[j], P_LBRACE)) b++;
                else if (punct(&p->t[j], P_RBRACE) && --b == 0) break;
            }
            if (b) syntax_error(&l0, "the template's body is not closed");
            end = j;
            break;
        }
    }
    if (end < 0) syntax_error(&l0, "expected a function after 'template <...>'");
    if (punct(&p->t[end], P_SEMI)) { p->i = end + 1; return; } /* a declaration: the definition comes later */
    tp->ntoks = end + 1 - start;
    tp->toks = palloc(p, sizeof(token_t) * (size_t)(tp->ntoks + 1));
    memcpy(tp->toks, p->t + start, sizeof(token_t) * (size_t)tp->ntoks);
    for (int j = 0; j < tp->ntoks; j++) { /* tokens live in the cell's scratch: keep what they point to */
        token_t *u = &tp->toks[j];
        u->s = pool_strndup(&p->in->pool, u->s, (size_t)u->n);
        if (u->kind == TK_STR && u->str) {
            char *c = pool_alloc(&p->in->pool, (size_t)u->slen + 1);
            memcpy(c, u->str, (size_t)u->slen);
            u->str = c;
        }
    }
    tp->toks[tp->ntoks] = p->t[p->n - 1]; /* EOF */
    tp->toks[tp->ntoks].kind = TK_EOF;
    /* read the header with the parameters as placeholders */
    P *c = p_child(p, tp->toks, tp->ntoks + 1);
    scope_push(c);
    for (int k = 0; k < tp->nparams; k++) {
        type_t *ph = ty_copy(&ty_int);
        ph->name = tp->pnames[k];
        ph->tparam = k + 1;
        sym_t *s = palloc(p, sizeof *s);
        s->name = tp->pnames[k];
        s->kind = S_TYPEDEF;
        s->ty = ph;
        scope_add(c, s);
    }
    int st;
    bool skip;
    type_t *b = decl_specs(c, &st, &skip);
    if (!b || skip) cxx_not_interpreted(&l0, "a device template here (a template for the GPU belongs in device code)");
    token_t *nm = NULL;
    type_t *ft = declarator(c, b, &nm);
    if (!nm || ft->kind != T_FUNC || !is_p(c, P_LBRACE)) cxx_not_interpreted(&l0, "a template that is not a function");
    tp->name = pstr(p, nm);
    tp->pattern = ft;
    p_child_finish(c);
    sym_t *old = hmap_get(&p->cell, tp->name);
    if (!old) old = hmap_get(&p->in->globals, tp->name);
    if (old && old->kind == S_TEMPLATE) /* overloads by arity (std::sort with and without a comparison) */
        for (tmpl_t *o = old->tp; o; o = o->next)
            if (o->pattern->nparams != ft->nparams) {
                tmpl_t *c = palloc(p, sizeof *c);
                *c = *o;
                c->next = tp->next;
                tp->next = c;
            }
    sym_t *s = palloc(p, sizeof *s);
    s->name = tp->name;
    s->kind = S_TEMPLATE;
    s->tp = tp;
    s->ty = ft;
    if (p->parent || p->f != p->cellf) syntax_error(&l0, "a template must be defined at the top level of a cell");
    hmap_put(&p->cell, tp->name, s);
    pend(p, PEND_TYPEDEF, tp->name, s, NULL);
    p->i = end + 1;
}

/* f or f<float, int>: the template, with the types given so far */
typedef struct tref { tmpl_t *tp; int nexplicit; type_t *types[TMAX]; } tref_t;

node_t *cxx_template_ref(P *p, sym_t *s, loc_t *l) {
    tref_t *r = palloc(p, sizeof *r);
    r->tp = s->tp;
    if (is_p(p, P_LT)) {
        p->i++;
        while (!accept(p, P_GT)) {
            if (r->nexplicit && !accept(p, P_COMMA)) expected(p, "',' or '>'");
            if (r->nexplicit == r->tp->nparams)
                type_error(&TOK->loc, "too many template arguments for %s", r->tp->name);
            r->types[r->nexplicit++] = abstract_type(p);
        }
    }
    node_t *n = node_new(l);
    n->ty = s->ty;
    n->op = FD_TEMPLATE;
    n->p = r;
    return n;
}

/* C++ deduction, the cases host code meets: T, T *, const T *, T &, const T & */
static bool deduce(type_t *pat, type_t *arg, type_t **bind, int nexplicit, bool top) {
    if (pat->tparam && pat->tparam <= nexplicit) return true; /* given: the argument converts */
    if (pat->tparam) {
        type_t *t = arg;
        if (top) {
            if (t->kind == T_ARRAY) t = ty_ptr(t->base);
            else if (t->kind == T_FUNC) t = ty_ptr(t);
            t = ty_unqual(t);
        } else if (pat->is_const)
            t = ty_unqual(t);
        type_t **b = &bind[pat->tparam - 1];
        if (*b && !ty_same(ty_unqual(*b), ty_unqual(t))) return false;
        if (!*b) *b = t;
        return true;
    }
    if (pat->kind == T_PTR && pat->is_ref) return deduce(pat->base, arg, bind, nexplicit, false);
    if (pat->kind == T_STRUCT && arg->kind == T_STRUCT && pat->sd && arg->sd && pat->sd->cls && arg->sd->cls &&
        pat->sd->cls->lib && pat->sd->cls->lib == arg->sd->cls->lib) { /* std::vector<T> from a std::vector<float> */
        for (int k = 0; k < 2; k++)
            if (pat->sd->cls->targ[k] && arg->sd->cls->targ[k] &&
                !deduce(pat->sd->cls->targ[k], arg->sd->cls->targ[k], bind, nexplicit, false))
                return false;
        return true;
    }
    if (pat->kind == T_PTR && (arg->kind == T_PTR || arg->kind == T_ARRAY)) return deduce(pat->base, arg->base, bind, nexplicit, false);
    return true;
}

static sym_t *instantiate(P *p, tmpl_t *tp, type_t **types, loc_t *l) {
    /* the instance's name is its key: whole, so that types whose names
     * differ only past some length are different instances */
    strbuf_t kb = {0};
    sb_printf(&kb, "%s<", tp->name);
    for (int i = 0; i < tp->nparams; i++) {
        char *tn = ty_decl_alloc(types[i], NULL);
        sb_printf(&kb, "%s%s", i ? ", " : "", tn);
        free(tn);
    }
    sb_putc(&kb, '>');
    char *key = sb_take(&kb);
    for (inst_t *i = tp->inst; i; i = i->next)
        if (!strcmp(i->key, key)) { free(key); return i->s; }
    sym_t *s;
    char *name = pool_strndup(&p->in->pool, key, strlen(key));
    free(key);
    P *c = p_child(p, tp->toks, tp->ntoks + 1);
    scope_push(c);
    for (int i = 0; i < tp->nparams; i++) {
        sym_t *ts = palloc(p, sizeof *ts);
        ts->name = tp->pnames[i];
        ts->kind = S_TYPEDEF;
        ts->ty = types[i];
        ts->ival = 1; /* a template parameter: spelled as its type where it names a kernel (k<T><<<...>>>) */
        scope_add(c, ts);
    }
    int st;
    bool skip;
    type_t *b = decl_specs(c, &st, &skip);
    token_t *nm = NULL;
    type_t *ft = declarator(c, b, &nm);
    token_t as = *nm;
    as.s = name;
    as.n = (int)strlen(name);
    /* registered before the body is read, so the body may call itself */
    s = palloc(p, sizeof *s);
    s->name = name;
    s->kind = S_FUNC;
    s->ty = ft;
    inst_t *in = palloc(p, sizeof *in);
    in->key = name;
    in->s = s;
    in->next = tp->inst;
    tp->inst = in;
    func_def(c, ft, &as, ft->pnames);
    p_child_finish(c);
    (void)l;
    return s;
}

node_t *cxx_template_call(P *p, node_t *fn, node_t **args, int n, loc_t *l) {
    tref_t *r = fn->p;
    tmpl_t *tp = r->tp;
    for (tmpl_t *o = tp; o; o = o->next)
        if (o->pattern->nparams == n) { tp = o; break; }
    type_t *bind[TMAX] = {0};
    for (int i = 0; i < r->nexplicit; i++) bind[i] = r->types[i];
    type_t *pat = tp->pattern;
    if (n > pat->nparams) type_error(l, "too many arguments to %s: it takes %d", tp->name, pat->nparams);
    for (int i = 0; i < n; i++)
        if (!deduce(pat->params[i], args[i]->ty, bind, r->nexplicit, true))
            type_error(&args[i]->loc, "%s: argument %d (%s) does not match the type deduced for the other "
                       "arguments; give the types: %s<...>(...)", tp->name, i + 1, tyname(args[i]->ty), tp->name);
    for (int k = 0; k < tp->nparams; k++)
        if (!bind[k])
            type_error(l, "cannot deduce the template parameter %s of %s; give it: %s<type>(...)", tp->pnames[k],
                       tp->name, tp->name);
    sym_t *s = instantiate(p, tp, bind, l);
    node_t *d = node_new(&fn->loc);
    d->ty = s->ty;
    d->op = FD_USER;
    d->p = fbox_get(p, s->name);
    return d;
}

/* std:: algorithms as CUDA host code uses them, on pointers (vector's
 * begin()/end() are pointers too). */
static const char library[] =
    "template <typename T> T std::min(T a, T b) { return b < a ? b : a; }\n"
    "template <typename T> T std::max(T a, T b) { return a < b ? b : a; }\n"
    "template <typename T> T std::abs(T a) { return a < 0 ? -a : a; }\n"
    /* CUDA's own min and max, which nvcc gives host code too (math_functions.h) */
    "template <typename T> T min(T a, T b) { return b < a ? b : a; }\n"
    "template <typename T> T max(T a, T b) { return a < b ? b : a; }\n"
    "template <typename T> void std::swap(T &a, T &b) { T t = a; a = b; b = t; }\n"
    "template <typename P, typename T> void std::fill(P first, P last, const T &v) {\n"
    "    for (; first != last; ++first) *first = v; }\n"
    "template <typename P, typename N, typename T> P std::fill_n(P first, N n, const T &v) {\n"
    "    for (; n > 0; --n, ++first) *first = v; return first; }\n"
    "template <typename P, typename Q> Q std::__copy(P first, P last, Q out) {\n"
    "    for (; first != last; ++first, ++out) *out = *first; return out; }\n"
    "template <typename P, typename G> void std::generate(P first, P last, G gen) {\n"
    "    for (; first != last; ++first) *first = gen(); }\n"
    "template <typename P, typename N, typename G> P std::generate_n(P first, N n, G gen) {\n"
    "    for (; n > 0; --n, ++first) *first = gen(); return first; }\n"
    "template <typename P, typename T> T std::accumulate(P first, P last, T init) {\n"
    "    for (; first != last; ++first) init = init + *first; return init; }\n"
    "template <typename P, typename T> void std::iota(P first, P last, T v) {\n"
    "    for (; first != last; ++first, ++v) *first = v; }\n"
    "template <typename P> P std::max_element(P first, P last) {\n"
    "    P best = first; if (first == last) return last;\n"
    "    for (++first; first != last; ++first) if (*best < *first) best = first; return best; }\n"
    "template <typename P> P std::min_element(P first, P last) {\n"
    "    P best = first; if (first == last) return last;\n"
    "    for (++first; first != last; ++first) if (*first < *best) best = first; return best; }\n"
    "template <typename P> void std::sort(P first, P last) {\n"
    "    __icuda_sort(first, last - first, sizeof *first, __icuda_kind(*first)); }\n"
    "template <typename P, typename C> void std::sort(P first, P last, C comp) {\n"
    "    long n = last - first;\n"
    "    for (long gap = n / 2; gap > 0; gap /= 2)\n"
    "        for (long i = gap; i < n; i++) {\n"
    "            auto t = first[i]; long j = i;\n"
    "            for (; j >= gap && comp(t, first[j - gap]); j -= gap) first[j] = first[j - gap];\n"
    "            first[j] = t; } }\n"
    "template <typename P, typename T> long std::count(P first, P last, const T &v) {\n"
    "    long n = 0; for (; first != last; ++first) if (*first == v) n++; return n; }\n"
    "template <typename P, typename T> P std::find(P first, P last, const T &v) {\n"
    "    for (; first != last; ++first) if (*first == v) return first; return last; }\n"
    "template <typename P, typename Q> bool std::equal(P first, P last, Q other) {\n"
    "    for (; first != last; ++first, ++other) if (!(*first == *other)) return false; return true; }\n"
    /* <iterator> over pointers (std::begin, std::end: lib/cxx_iterator.c) */
    "template <typename P> long std::distance(P first, P last) { return last - first; }\n"
    "template <typename P, typename N> void std::advance(P &it, N n) { it += n; }\n"
    "template <typename P> P std::next(P it) { return it + 1; }\n"
    "template <typename P, typename N> P std::next(P it, N n) { return it + n; }\n"
    "template <typename P> P std::prev(P it) { return it - 1; }\n"
    /* cuda_runtime.h's channel of a type (its name in parentheses: the
     * five-number form is a macro) */
    "template <typename T> cudaChannelFormatDesc (cudaCreateChannelDesc)(void) {\n"
    "    return cudaCreateChannelDesc(__icuda_chan_bits(*(T *)0, 0), __icuda_chan_bits(*(T *)0, 1),\n"
    "        __icuda_chan_bits(*(T *)0, 2), __icuda_chan_bits(*(T *)0, 3),\n"
    "        (enum cudaChannelFormatKind)__icuda_chan_kind(*(T *)0)); }\n"
    "template <typename P, typename N> P std::prev(P it, N n) { return it - n; }\n";

void cxx_library(interp_t *in) {
    src_t *src = src_new(in, "<c++ library>", library);
    tokvec_t tv = {0};
    lex_cell(in, src, &tv);
    cell_code_t cc;
    memset(&cc, 0, sizeof cc);
    parse_cell(in, &tv, src, &cc, false);
    pool_free(&in->scratch);
    /* std::copy is the library's own (lib/cxx_iterator.c: it takes
     * std::back_inserter), which hands other calls to this template: its
     * messages and instances say std::copy */
    sym_t *copy = hmap_get(&in->globals, "std::__copy");
    if (copy && copy->kind == S_TEMPLATE) copy->tp->name = "std::copy";
}
