/* C++ classes: struct/class bodies with member functions, constructors
 * (member-init lists, default member initialisers), destructors, static
 * member functions and access specifiers; member functions defined in the
 * body or outside it (float Timer::stop() {...}); `this`; calls x.f(),
 * p->f(), T::g(); construction T x(args), T x{args}, T x = T(args) and T(args)
 * temporaries. A member function is compiled as a function whose first
 * parameter is `this` (T *); inside it, the class's members are names of
 * the scope (S_CXX symbols) that read through `this`. Bodies written in the
 * class are compiled after its closing brace, so they see every member. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cxx_class.h"

/* the session's C++ state: instances, constructed session objects, library functions */
cx_state_t *cx_state(interp_t *in) {
    if (!in->cxx) in->cxx = pool_alloc(&in->pool, sizeof(cx_state_t));
    return in->cxx;
}

void cxx_session_free(interp_t *in) {
    if (!in->cxx) return;
    hmap_free(&in->cxx->instances);
    hmap_free(&in->cxx->gconstructed);
    hmap_free(&in->cxx->libfns);
    in->cxx = NULL;
}

cx_parse_t *cx_parse(P *p) {
    if (!p->cx) {
        p->cx = pool_alloc(&p->in->pool, sizeof(cx_parse_t));
        p->cx->gt_split = -1;
    }
    return p->cx;
}

static bool tok_is(token_t *t, const char *s) { return t->kind == TK_IDENT && (int)strlen(s) == t->n && !memcmp(t->s, s, (size_t)t->n); }

/* ---------------- classes and methods ---------------- */
bool cx_nontrivial(type_t *t) {
    while (t->kind == T_ARRAY) t = t->base;
    cx_class_t *c = cx_class_of(t);
    return c && c->nontrivial;
}

cx_class_t *cx_class_new(interp_t *in, type_t *t, const char *name) {
    cx_class_t *c = pool_alloc(&in->pool, sizeof *c);
    c->name = name;
    c->type = t;
    t->sd->cls = c;
    return c;
}

cx_method_t *cx_method_add(interp_t *in, cx_class_t *c, const char *name, type_t *fty) {
    cx_method_t *m = pool_alloc(&in->pool, sizeof *m);
    m->name = name;
    m->cls = c;
    m->fty = fty;
    m->body_at = m->init_at = -1;
    m->nreq = -1;
    cx_method_t **pp = &c->methods; /* declaration order: overloads are tried in it */
    while (*pp) pp = &(*pp)->next;
    *pp = m;
    return m;
}

cx_method_t *cx_find_method(cx_class_t *c, const char *name) {
    for (cx_method_t *m = c->methods; m; m = m->next)
        if (!strcmp(m->name, name)) return m;
    return NULL;
}

const char *cx_disp_name(cx_method_t *m, char *b, size_t n) {
    const char *nm = m->is_ctor ? m->cls->name : m->name;
    const char *cn = m->cls->name;
    const char *short_cn = strrchr(cn, ':');
    if (m->is_ctor && short_cn && !strchr(short_cn, '<')) nm = short_cn + 1;
    if (m->is_dtor) { snprintf(b, n, "%s::~%s", cn, short_cn ? short_cn + 1 : cn); return b; }
    snprintf(b, n, "%s::%s", cn, nm);
    return b;
}

/* the function a user method is: `this` first */
type_t *cx_full_fty(cx_method_t *m) {
    if (m->is_static || m->bi) return m->fty;
    type_t *f = m->fty;
    type_t **ps = pool_alloc(&g_in->pool, sizeof(type_t *) * (size_t)(f->nparams + 1));
    const char **pn = pool_alloc(&g_in->pool, sizeof(char *) * (size_t)(f->nparams + 1));
    ps[0] = ty_ptr(m->cls->type);
    pn[0] = "this";
    for (int i = 0; i < f->nparams; i++) {
        ps[i + 1] = f->params[i];
        pn[i + 1] = m->pnames ? m->pnames[i] : (f->pnames ? f->pnames[i] : NULL);
    }
    type_t *ft = ty_func(f->base, f->nparams + 1, ps, f->variadic);
    ft->pnames = pn;
    return ft;
}

fbox_t *cx_method_box(P *p, cx_method_t *m) {
    if (m->box) return m->box;
    char key[300], nb[200];
    cx_state_t *cs = cx_state(p->in);
    snprintf(key, sizeof key, "%s #%d", cx_disp_name(m, nb, sizeof nb), cs->nboxes++);
    fbox_t *b = fbox_get(p, key);
    b->name = pool_strndup(&p->in->pool, nb, strlen(nb)); /* errors show Timer::stop */
    m->box = b;
    return b;
}

/* ---------------- `>>` closing two template argument lists ---------------- */
bool cx_at_template_close(P *p) {
    return is_p(p, P_GT) || is_p(p, P_SHR) || is_p(p, P_LAUNCH_CLOSE);
}
int cx_template_close(P *p) {
    cx_parse_t *cx = cx_parse(p);
    if (is_p(p, P_GT)) { p->i++; return 1; }
    if (is_p(p, P_SHR) || is_p(p, P_LAUNCH_CLOSE)) {
        int total = TOK->id == P_SHR ? 2 : 3;
        if (cx->gt_split != p->i) { cx->gt_split = p->i; cx->gt_used = 0; }
        if (++cx->gt_used == total) { p->i++; cx->gt_split = -1; }
        return 1;
    }
    return 0;
}

/* ---------------- the class body ---------------- */
static _Noreturn void not_interp(loc_t *l, const char *what) { cxx_not_interpreted(l, what); }

/* Does the body after '{' hold what only C++ has (then the class parser
 * takes it; a C struct keeps the C parser)? */
bool cxx_struct_is_class(P *p) {
    int j = p->i;
    token_t *tag = NULL;
    if (p->t[j].kind == TK_IDENT) tag = &p->t[j++];
    if (p->t[j].kind == TK_PUNCT && p->t[j].id == P_COLON) return true; /* a base class */
    if (!(p->t[j].kind == TK_PUNCT && p->t[j].id == P_LBRACE)) return false;
    int d = 0;
    for (; j < p->n && p->t[j].kind != TK_EOF; j++) {
        token_t *k = &p->t[j];
        if (k->kind == TK_PUNCT && (k->id == P_LBRACE || k->id == P_LPAREN || k->id == P_LBRACK)) {
            if (d == 1 && k->id == P_LPAREN && j > 0 && p->t[j - 1].kind == TK_IDENT && !tok_is(&p->t[j - 1], "__attribute__") &&
                !(j > 1 && p->t[j - 2].kind == TK_PUNCT && p->t[j - 2].id == P_LPAREN))
                return true; /* name( : a member function or constructor */
            if (d == 1 && k->id == P_LBRACE && j > 0 && p->t[j - 1].kind == TK_IDENT && j > 1 &&
                !(p->t[j - 2].kind == TK_KW && (p->t[j - 2].id == KW_STRUCT || p->t[j - 2].id == KW_UNION || p->t[j - 2].id == KW_ENUM)))
                return true; /* int x{0}; */
            d++;
            continue;
        }
        if (k->kind == TK_PUNCT && (k->id == P_RBRACE || k->id == P_RPAREN || k->id == P_RBRACK)) {
            if (--d == 0) return false;
            continue;
        }
        if (d != 1) continue;
        if (k->kind == TK_KW) {
            switch (k->id) {
            case KW_PUBLIC: case KW_PRIVATE: case KW_PROTECTED: case KW_VIRTUAL: case KW_FRIEND: case KW_OPERATOR:
            case KW_TEMPLATE: case KW_USING: case KW_STATIC: case KW_EXPLICIT: case KW_CONSTEXPR: case KW_TYPEDEF:
            case KW_MUTABLE:
                return true;
            }
        }
        if (k->kind == TK_PUNCT && (k->id == P_TILDE || k->id == P_ASSIGN)) return true;
        if (tag && k->kind == TK_IDENT && k->n == tag->n && !memcmp(k->s, tag->s, (size_t)tag->n)) return true;
    }
    return false;
}

typedef struct { int at; bool eq; } nsdmi_t;

static const char *ns_name(P *p, const char *tag) { /* namespace shapes { struct rect: shapes::rect */
    if (!p->ns) return tag;
    token_t tk = {0};
    tk.s = tag;
    tk.n = (int)strlen(tag);
    return cxx_decl_name(p, &tk);
}

/* C++: `enum color {...};` makes `color` a type name */
void cxx_enum_tag_type(P *p, type_t *t, const char *tag) {
    tag = ns_name(p, tag);
    sym_t *old = lookup_name(p, tag);
    if (old && old->kind != S_TYPEDEF) return;
    type_t *td = ty_copy(t);
    td->name = t->enum_tag ? t->enum_tag : tag;
    sym_t *s = palloc(p, sizeof *s);
    s->name = tag;
    s->kind = S_TYPEDEF;
    s->ty = td;
    if (p->f != p->cellf || p->nmarks > 0) scope_add(p, s);
    else { hmap_put(&p->cell, tag, s); pend(p, PEND_TYPEDEF, tag, s, NULL); }
}

/* C++: `struct point {...};` makes `point` a type name too (a copy of the
 * struct type that shows as "point"). */
static type_t *tag_typedef(P *p, type_t *t) {
    const char *tag = ns_name(p, t->sd->tag);
    sym_t *old = lookup_name(p, tag);
    if (old && old->kind != S_TYPEDEF) {
        bool here = p->f != p->cellf || p->nmarks > 0 ? false : hmap_get(&p->cell, tag) == old;
        if (here || old->kind != S_VAR_GLOBAL) return NULL; /* a variable of that name, declared here: it wins */
    }
    if (old && old->kind == S_TYPEDEF && old->ty->sd == t->sd) return old->ty;
    type_t *td = ty_copy(t);
    td->name = t->sd->tag;
    sym_t *s = palloc(p, sizeof *s);
    s->name = tag;
    s->kind = S_TYPEDEF;
    s->ty = td;
    if (p->f != p->cellf || p->nmarks > 0) scope_add(p, s);
    else { hmap_put(&p->cell, tag, s); pend(p, PEND_TYPEDEF, tag, s, NULL); }
    return td;
}
static void compile_method(P *p, cx_class_t *c, cx_method_t *m, nsdmi_t *nsdmi);

/* A C struct finished (struct_spec): its tag names it, and when its members
 * are class objects (std::string name; std::mt19937 gen;) it is a class of
 * its own that constructs and destroys them. */
void cxx_tag_type(P *p, type_t *t) {
    if (!t->sd || !t->sd->complete) return;
    sdef_t *sd = t->sd;
    bool nontrivial = false, need_init = false;
    for (int i = 0; i < sd->nfields; i++) {
        type_t *ft = sd->fields[i].ty;
        while (ft->kind == T_ARRAY) ft = ft->base;
        cx_class_t *fc = cx_class_of(ft);
        if (fc && fc->nontrivial) nontrivial = true;
        if (fc && fc->default_ctor) need_init = true;
    }
    type_t *named = sd->tag ? tag_typedef(p, t) : NULL;
    if (!nontrivial && !need_init) return;
    cx_class_t *c = cx_class_new(p->in, t, sd->tag ? sd->tag : "<anonymous struct>");
    c->type = named ? named : t;
    c->nontrivial = nontrivial;
    c->has_dtor = nontrivial;
    c->nfields = sd->nfields;
    if (!need_init) return;
    if (p->f != p->cellf || p->nmarks > 0)
        type_error(&p->t[p->i > 0 ? p->i - 1 : 0].loc, "a struct whose members need constructing (%s) must be defined at the top level of a cell",
                   c->name);
    nsdmi_t *ni = palloc(p, sizeof(nsdmi_t) * (size_t)(sd->nfields + 1));
    for (int i = 0; i < sd->nfields; i++) ni[i].at = -1;
    type_t **ps = palloc(p, sizeof(type_t *));
    const char **pn = palloc(p, sizeof(char *));
    ps[0] = &ty_ulong;
    pn[0] = "#skip";
    loc_t l0 = p->t[p->i > 0 ? p->i - 1 : 0].loc;
    cx_method_t *im = cx_method_add(p->in, c, "#init", ty_func(&ty_void, 1, ps, false));
    im->body_at = -2;
    im->loc = l0;
    im->pnames = pn;
    c->init_m = im;
    cx_method_t *dm = cx_method_add(p->in, c, "#ctor", ty_func(&ty_void, 0, NULL, false));
    dm->is_ctor = true;
    dm->body_at = -2;
    dm->loc = l0;
    c->default_ctor = dm;
    compile_method(p, c, im, ni);
    compile_method(p, c, dm, ni);
}


static void skip_balanced(P *p) { /* from an opening bracket to after its match */
    int d = 0;
    do {
        if (TOK->kind == TK_EOF) expected(p, "a closing bracket");
        if (is_p(p, P_LPAREN) || is_p(p, P_LBRACE) || is_p(p, P_LBRACK)) d++;
        else if (is_p(p, P_RPAREN) || is_p(p, P_RBRACE) || is_p(p, P_RBRACK)) d--;
        p->i++;
    } while (d > 0);
}

static void skip_init(P *p) { /* a default member initialiser: to ',' or ';' outside brackets */
    while (TOK->kind != TK_EOF && !is_p(p, P_COMMA) && !is_p(p, P_SEMI)) {
        if (is_p(p, P_LPAREN) || is_p(p, P_LBRACE) || is_p(p, P_LBRACK)) skip_balanced(p);
        else p->i++;
    }
}

static void skip_body(P *p) { /* from '{' to after its '}' */
    if (!is_p(p, P_LBRACE)) expected(p, "'{'");
    skip_balanced(p);
}

static void method_tail(P *p, cx_method_t *m, bool ctor) {
    /* after the parameters: const, noexcept, override, = default/delete; then ';' or [': inits'] body */
    for (;;) {
        if (accept(p, KW_CONST) || accept(p, KW_VOLATILE)) continue;
        if (accept(p, KW_NOEXCEPT)) {
            if (accept(p, P_LPAREN)) { while (!accept(p, P_RPAREN)) { if (TOK->kind == TK_EOF) expected(p, "')'"); p->i++; } }
            continue;
        }
        if (tok_is(TOK, "override") || tok_is(TOK, "final")) { p->i++; continue; }
        if (is_p(p, P_ARROW)) not_interp(&TOK->loc, "a trailing return type");
        break;
    }
    if (accept(p, P_ASSIGN)) {
        if (tok_is(TOK, "default") || is_kw(p, KW_DEFAULT)) { p->i++; m->body_at = -2; }
        else if (is_kw(p, KW_DELETE)) { p->i++; m->deleted = true; }
        else if (TOK->kind == TK_INT) not_interp(&TOK->loc, "a pure virtual function");
        else expected(p, "'default' or 'delete'");
        expect(p, P_SEMI, "';'");
        return;
    }
    if (accept(p, P_SEMI)) return;
    if (is_p(p, P_COLON)) {
        if (!ctor) syntax_error(&TOK->loc, "only a constructor has a member initialiser list");
        m->init_at = p->i++;
        do {
            if (TOK->kind != TK_IDENT) expected(p, "a member name");
            p->i++;
            if (!is_p(p, P_LPAREN) && !is_p(p, P_LBRACE)) expected(p, "'(' or '{' after the member name");
            skip_balanced(p);
        } while (accept(p, P_COMMA));
    }
    if (!is_p(p, P_LBRACE)) expected(p, "';' or a function body");
    m->body_at = p->i;
    skip_body(p);
}

static type_t *method_params(P *p, type_t *ret, const char ***names) {
    expect(p, P_LPAREN, "'('");
    return params(p, ret, names);
}

static void compile_method(P *p, cx_class_t *c, cx_method_t *m, nsdmi_t *nsdmi);
static void skip_balanced(P *p);

type_t *cxx_class_spec(P *p, bool is_union, bool is_class) {
    loc_t l0 = TOK->loc;
    const char *tag = NULL;
    if (TOK->kind == TK_IDENT) { tag = pstr(p, TOK); p->i++; }
    if (tok_is(TOK, "final")) p->i++;
    if (is_p(p, P_COLON)) not_interp(&TOK->loc, "a class derived from another (inheritance)");
    if (!is_p(p, P_LBRACE)) expected(p, "'{'");
    if (p->f != p->cellf || p->nmarks > 0)
        type_error(&l0, "a class with member functions must be defined at the top level of a cell, not inside a function");
    p->i++;
    type_t *t = palloc(p, sizeof *t);
    t->kind = is_union ? T_UNION : T_STRUCT;
    sdef_t *sd = t->sd = palloc(p, sizeof(sdef_t));
    sd->tag = tag ? tag : "<anonymous>";
    sd->is_union = is_union;
    if (tag) {
        type_t *old = hmap_get(&p->ctags, tag);
        if (old && old->sd && !old->sd->complete) { t = old; sd = t->sd; }
        hmap_put(&p->ctags, tag, t);
        pend(p, PEND_TAG, tag, t, NULL);
    }
    t->align = 1;
    cx_class_t *c = cx_class_new(p->in, t, sd->tag);
    type_t *named = tag ? tag_typedef(p, t) : NULL;
    c->type = named ? named : t;
    int cap = 8, nf = 0;
    field_t *fs = palloc(p, sizeof(field_t) * (size_t)cap);
    nsdmi_t *ni = palloc(p, sizeof(nsdmi_t) * (size_t)cap);
    size_t off = 0, size = 0, align = 1;
    while (!accept(p, P_RBRACE)) {
        if (TOK->kind == TK_EOF) expected(p, "'}'");
        loc_t ml = TOK->loc;
        if ((is_kw(p, KW_PUBLIC) || is_kw(p, KW_PRIVATE) || is_kw(p, KW_PROTECTED)) && PEEK(1)->kind == TK_PUNCT &&
            PEEK(1)->id == P_COLON) { p->i += 2; continue; }
        if (accept(p, P_SEMI)) continue;
        switch (TOK->kind == TK_KW ? TOK->id : 0) {
        case KW_VIRTUAL: not_interp(&ml, "a virtual member function (inheritance and virtual calls)");
        case KW_FRIEND: not_interp(&ml, "a friend declaration");
        case KW_OPERATOR: not_interp(&ml, "operator overloading (a member operator)");
        case KW_TEMPLATE: not_interp(&ml, "a member template");
        case KW_USING: case KW_TYPEDEF: not_interp(&ml, "a type declared inside a class");
        }
        bool is_static = false, is_explicit = false;
        for (;;) {
            if (accept(p, KW_STATIC)) is_static = true;
            else if (accept(p, KW_EXPLICIT)) is_explicit = true;
            else if (accept(p, KW_INLINE) || accept(p, KW_CONSTEXPR) || accept(p, KW_MUTABLE) ||
                     accept(p, KW_HOST) || accept(p, KW_DEVICE) || accept(p, KW_FORCEINLINE)) {}
            else break;
        }
        if (is_kw(p, KW_VIRTUAL)) not_interp(&TOK->loc, "a virtual member function (inheritance and virtual calls)");
        /* constructor and destructor */
        bool is_dtor = is_p(p, P_TILDE);
        token_t *nt = is_dtor ? PEEK(1) : TOK;
        if (tag && tok_is(nt, tag) && (is_dtor ? PEEK(2) : PEEK(1))->kind == TK_PUNCT &&
            (is_dtor ? PEEK(2) : PEEK(1))->id == P_LPAREN) {
            p->i += is_dtor ? 2 : 1;
            const char **pn = NULL;
            type_t *ft = method_params(p, &ty_void, &pn);
            if (is_dtor && ft->nparams) type_error(&ml, "a destructor takes no parameters");
            cx_method_t *m = cx_method_add(p->in, c, is_dtor ? "~" : "#ctor", ft);
            m->is_ctor = !is_dtor;
            m->is_dtor = is_dtor;
            m->is_explicit = is_explicit;
            m->pnames = pn;
            m->loc = ml;
            method_tail(p, m, !is_dtor);
            if (is_dtor) {
                if (c->dtor) type_error(&ml, "%s has two destructors", c->name);
                if (m->body_at != -2) { c->dtor = m; c->user_dtor = true; }
            } else c->has_ctor = true;
            continue;
        }
        int st;
        bool skip;
        type_t *base = decl_specs(p, &st, &skip);
        if (!base) expected(p, "a member declaration");
        if (st == KW_TYPEDEF) not_interp(&ml, "a type declared inside a class");
        if (accept(p, P_SEMI)) continue; /* struct inner {...}; */
        do {
            token_t *nm = NULL;
            loc_t dl = TOK->loc;
            if (is_kw(p, KW_OPERATOR)) not_interp(&dl, "operator overloading (a member operator)");
            type_t *ft = base;
            if (!is_p(p, P_SEMI)) ft = declarator(p, base, &nm);
            if (ft->kind == T_FUNC) {
                if (!nm) expected(p, "a member function name");
                const char *mn = pstr(p, nm);
                if (strstr(mn, "::")) type_error(&nm->loc, "a member function is declared with its plain name, not %s", mn);
                cx_method_t *m = cx_method_add(p->in, c, mn, ft);
                m->is_static = is_static;
                m->pnames = ft->pnames;
                m->loc = nm->loc;
                method_tail(p, m, false);
                goto next_member;
            }
            if (is_static) not_interp(&dl, "a static data member");
            if (is_p(p, P_COLON)) syntax_error(&TOK->loc, "bit-fields are not supported");
            if (ft->vla) type_error(nm ? &nm->loc : &dl, "a struct member cannot be a variable-length array");
            if ((ft->kind == T_STRUCT || ft->kind == T_UNION) && !ft->sd->complete)
                type_error(nm ? &nm->loc : &dl, "member has incomplete type '%s'", tyname(ft));
            if (ft->kind == T_ARRAY && ft->count < 0) type_error(nm ? &nm->loc : &dl, "a class member cannot be an array of unknown size");
            if (nf + 2 >= cap) {
                field_t *f2 = palloc(p, sizeof(field_t) * (size_t)cap * 2);
                nsdmi_t *n2 = palloc(p, sizeof(nsdmi_t) * (size_t)cap * 2);
                memcpy(f2, fs, sizeof(field_t) * (size_t)nf);
                memcpy(n2, ni, sizeof(nsdmi_t) * (size_t)nf);
                fs = f2;
                ni = n2;
                cap *= 2;
            }
            fs[nf] = field_layout(p, nm, ft, is_union, false, &off, &size, &align);
            ni[nf].at = -1;
            if (is_p(p, P_ASSIGN) || is_p(p, P_LBRACE) || (is_p(p, P_LPAREN) && nm)) {
                if (is_p(p, P_LPAREN)) syntax_error(&TOK->loc, "a default member initialiser is written with '=' or '{...}', not '(...)'");
                ni[nf].at = p->i;
                ni[nf].eq = is_p(p, P_ASSIGN);
                if (ni[nf].eq) p->i++;
                skip_init(p);
            }
            nf++;
        } while (accept(p, P_COMMA));
        expect(p, P_SEMI, "';'");
    next_member:;
    }
    if (!is_union) size = off;
    size = (size + align - 1) / align * align;
    if (size == 0) size = 1; /* C++: an empty class has size 1 */
    sd->fields = fs;
    sd->nfields = nf;
    sd->complete = true;
    t->size = size;
    t->align = align;
    if (named) { named->size = size; named->align = align; }
    c->nfields = nf;
    /* nontrivial: a destructor of its own, or members that need one */
    c->nontrivial = c->user_dtor;
    for (int i = 0; i < nf; i++)
        if (cx_nontrivial(fs[i].ty)) c->nontrivial = true;
    /* the default constructor: declared, or made when members need initialising */
    bool need_init = false;
    for (int i = 0; i < nf; i++) {
        type_t *ft = fs[i].ty;
        while (ft->kind == T_ARRAY) ft = ft->base;
        cx_class_t *fc = cx_class_of(ft);
        if (ni[i].at >= 0 || (fc && fc->default_ctor)) need_init = true;
    }
    for (cx_method_t *m = c->methods; m; m = m->next) {
        if (m->is_ctor && !m->deleted && (m->fty->nparams == 0 || (m->fty->defaults && m->fty->defaults[0]))) {
            c->default_ctor = m; /* T() or T(int a = 4): what T x; and the elements of a vector run */
            m->nreq = 0;
            for (int i = 0; i < m->fty->nparams; i++) { /* run-time defaults: constants only */
                node_t *d = i < 4 ? conv_assign(p, rvalue(p, m->fty->defaults[i]), m->fty->params[i], "a default argument") : NULL;
                if (d && d->is_const) m->defv[i] = d->k;
                else m->nreq = -2;
            }
        }
        type_t *pt = m->is_ctor && m->fty->nparams == 1 ? m->fty->params[0] : NULL;
        if (pt && pt->is_ref && cx_class_of(pt->base) && cx_class_of(pt->base)->type->sd == t->sd && m->body_at != -2) {
            c->copy_m = m; /* T(const T &o): copies go through it (= delete: they are errors) */
            c->nontrivial = true;
        }
    }
    if (need_init) {
        type_t **ps = palloc(p, sizeof(type_t *));
        const char **pn = palloc(p, sizeof(char *));
        ps[0] = &ty_ulong;
        pn[0] = "#skip";
        cx_method_t *m = cx_method_add(p->in, c, "#init", ty_func(&ty_void, 1, ps, false));
        m->body_at = -2;
        m->loc = l0;
        m->pnames = pn;
        c->init_m = m;
    }
    if (!c->has_ctor && need_init) {
        cx_method_t *m = cx_method_add(p->in, c, "#ctor", ty_func(&ty_void, 0, NULL, false));
        m->is_ctor = true;
        m->body_at = -2;
        m->loc = l0;
        c->default_ctor = m;
    }
    if (c->default_ctor && c->default_ctor->body_at == -2 && !need_init) c->default_ctor = NULL; /* T() = default: zero is enough */
    if (c->dtor == NULL && c->nontrivial) c->has_dtor = true;
    if (c->user_dtor) c->has_dtor = true;
    c->nsdmi = palloc(p, sizeof(int) * (size_t)(nf + 1));
    for (int i = 0; i < nf; i++) c->nsdmi[i] = ni[i].at;
    /* now the bodies, which may use any member */
    int resume = p->i;
    for (cx_method_t *m = c->methods; m; m = m->next) {
        if (m->deleted) continue;
        if (m->body_at >= 0 || (m->body_at == -2 && ((m->is_ctor && m->fty->nparams == 0) || m == c->init_m))) compile_method(p, c, m, ni);
    }
    p->i = resume;
    return t;
}

/* ---------------- compiling a member function ---------------- */
typedef struct cx_memref { field_t *f; cx_method_t *m; cx_class_t *c; } cx_memref_t;

static void add_member_syms(P *p, cx_class_t *c) {
    sdef_t *sd = c->type->sd;
    for (int i = 0; i < sd->nfields; i++) {
        if (!sd->fields[i].name) continue;
        sym_t *s = palloc(p, sizeof *s);
        cx_memref_t *r = palloc(p, sizeof *r);
        r->f = &sd->fields[i];
        r->c = c;
        s->name = sd->fields[i].name;
        s->kind = S_CXX;
        s->ty = sd->fields[i].ty;
        s->cx = r;
        scope_add(p, s);
    }
    for (cx_method_t *m = c->methods; m; m = m->next) {
        if (m->is_ctor || m->is_dtor) continue;
        bool seen = false;
        for (cx_method_t *q = c->methods; q != m; q = q->next) seen |= !strcmp(q->name, m->name);
        if (seen) continue;
        sym_t *s = palloc(p, sizeof *s);
        cx_memref_t *r = palloc(p, sizeof *r);
        r->m = m;
        r->c = c;
        s->name = m->name;
        s->kind = S_CXX;
        s->ty = m->fty;
        s->cx = r;
        scope_add(p, s);
    }
}

sym_t *cx_find_this(P *p) {
    for (int i = p->nscope - 1; i >= 0; i--)
        if (!strcmp(p->scope[i]->name, "this")) return p->scope[i];
    return NULL;
}

node_t *cx_this_value(P *p, loc_t *l) {
    sym_t *s = cx_find_this(p);
    cx_parse_t *cx = cx_parse(p);
    if (!s || !cx->cls || cx->this_f != p->f) {
        if (cx->cls && cx->this_f == p->f) type_error(l, "'this' is not available in a static member function");
        type_error(l, "'this' is only available inside a member function");
    }
    return mk_load(pl_slot(l, s->ty, s->slot));
}

node_t *cxx_this(P *p, loc_t *l) {
    node_t *v = cx_this_value(p, l);
    node_t *c = node_new(l);
    *c = *v;
    c->loc = *l;
    return c;
}

static node_t *field_place(P *p, node_t *thisv, field_t *f, loc_t *l) {
    return pl_deref(l, f->ty, thisv, (int64_t)f->off);
}

/* the constructor's member initialisation, in declaration order */
/* The class's own initialisation of its members, when it has default member
 * initialisers or members that need constructing: compiled once with the
 * class (the initialisers' tokens exist only in the defining cell) as the
 * hidden member #init(this, skip), skip having bit k for member k that a
 * constructor's initialiser list sets itself. */
static void nsdmi_inits(P *p, cx_class_t *c, nsdmi_t *nsdmi, node_t *thisv, node_t *mask, ilist_t *o) {
    sdef_t *sd = c->type->sd;
    for (int k = 0; k < sd->nfields; k++) {
        field_t *f = &sd->fields[k];
        ilist_t one = {0};
        loc_t l = c->init_m->loc;
        if (nsdmi[k].at >= 0) {
            p->i = nsdmi[k].at;
            l = TOK->loc;
            node_t *pl = field_place(p, thisv, f, &l);
            if (nsdmi[k].eq) p->i++;
            cx_construct_from_tokens(p, pl, f->ty, nsdmi[k].eq, &one, &l);
        } else {
            type_t *ft = f->ty;
            node_t *pl = field_place(p, thisv, f, &l);
            if (cx_class_of(ft) && cx_class_of(ft)->default_ctor)
                iadd(&one, st_expr(cx_construct(p, pl, ft, NULL, 0, false, &l)));
            else if (ft->kind == T_ARRAY && cx_class_of(ft->base) && cx_class_of(ft->base)->default_ctor)
                iadd(&one, st_expr(mk_cx_default(&l, ft, mk_addr(pl))));
        }
        if (!one.n) continue;
        node_t *body = st_block(&l, one.v, one.n);
        if (k < 64) {
            node_t *bit = mk_binop(&l, P_AMP, &ty_ulong, mask, mk_int(&l, &ty_ulong, (int64_t)(UINT64_C(1) << k)));
            body = st_if(&l, mk_cmp(&l, P_EQ, &ty_ulong, bit, mk_int(&l, &ty_ulong, 0)), body, NULL);
        }
        iadd(o, body);
    }
}

static void member_inits(P *p, cx_class_t *c, cx_method_t *m, node_t *thisv, ilist_t *o) {
    sdef_t *sd = c->type->sd;
    int nf = sd->nfields;
    int *given = palloc(p, sizeof(int) * (size_t)(nf + 1));
    for (int i = 0; i < nf; i++) given[i] = -1;
    uint64_t skip = 0;
    if (m->init_at >= 0) {
        p->i = m->init_at;
        expect(p, P_COLON, "':'");
        do {
            if (TOK->kind != TK_IDENT) expected(p, "a member name");
            token_t *nm = TOK;
            int k;
            for (k = 0; k < nf; k++)
                if (sd->fields[k].name && tok_is(nm, sd->fields[k].name)) break;
            if (k == nf) {
                if (hmap_getn(&p->in->tags, nm->s, (size_t)nm->n) || hmap_getn(&p->ctags, nm->s, (size_t)nm->n))
                    not_interp(&nm->loc, "a base class initialiser (inheritance)");
                type_error(&nm->loc, "'%.*s' is not a member of %s", nm->n, nm->s, c->name);
            }
            if (given[k] >= 0) type_error(&nm->loc, "member '%s' is initialised twice", sd->fields[k].name);
            p->i++;
            given[k] = p->i;
            if (k < 64) skip |= UINT64_C(1) << k;
            if (!is_p(p, P_LPAREN) && !is_p(p, P_LBRACE)) expected(p, "'(' or '{' after the member name");
            skip_balanced(p);
        } while (accept(p, P_COMMA));
    }
    loc_t l0 = m->loc;
    if (c->init_m) {
        node_t *a[1] = {mk_int(&l0, &ty_ulong, (int64_t)skip)};
        iadd(o, st_expr(cx_call(p, c->init_m, pl_deref(&l0, c->type, thisv, 0), a, 1, &l0)));
    }
    for (int k = 0; k < nf; k++) {
        field_t *f = &sd->fields[k];
        if (given[k] < 0) continue;
        p->i = given[k];
        loc_t l = TOK->loc;
        node_t *pl = field_place(p, thisv, f, &l);
        bool braced = is_p(p, P_LBRACE);
        p->i++;
        int n;
        node_t **args = cx_args(p, &n, braced ? P_RBRACE : P_RPAREN);
        loc_t la = from(p, &l);
        if (cx_class_of(f->ty)) {
            if (k >= 64 && cx_nontrivial(f->ty)) iadd(o, st_expr(mk_cx_destroy(&la, f->ty, mk_addr(pl))));
            iadd(o, st_expr(cx_construct(p, pl, f->ty, args, n, braced, &la)));
        } else {
            if (n > 1 || (n == 0 && !braced && f->ty->kind == T_ARRAY))
                type_error(&la, "member '%s' (%s) takes one value", f->name, tyname(f->ty));
            if (n == 0) iadd(o, st_expr(mk_memset0(&la, pl, (int64_t)f->ty->size)));
            else if (f->ty->is_ref) iadd(o, st_expr(cxx_bind_ref(p, pl, f->ty, args[0], &la)));
            else {
                node_t *a = args[0];
                node_t *v = conv_assign(p, a->ty->kind == T_FUNC ? a : rvalue(p, a), f->ty, "a member initialiser");
                if (!v) type_error(&a->loc, "cannot initialise %s with %s", tyname(f->ty), tyname(a->ty));
                iadd(o, st_expr(mk_assign(&la, pl, v)));
            }
        }
    }
}

static int sx_method(node_t *n, frame_t *f) { /* prologue, body, epilogue even after a return */
    if (n->a) n->a->sfn(n->a, f);
    int r = n->b->sfn(n->b, f);
    if (n->c) n->c->sfn(n->c, f);
    return r;
}

static void compile_method(P *p, cx_class_t *c, cx_method_t *m, nsdmi_t *nsdmi) {
    int save_i = p->i;
    char nb[200];
    cx_disp_name(m, nb, sizeof nb);
    fbox_t *box = cx_method_box(p, m);
    type_t *ft = cx_full_fty(m);
    func_t *fn = palloc(p, sizeof *fn);
    fn->name = pool_strndup(&p->in->pool, nb, strlen(nb));
    fn->ty = ft;
    fn->loc = m->loc;
    fn->defined = true;
    if (ty_is_aggr(ft->base) && ft->base->kind != T_ARRAY && !ft->base->sd->complete)
        type_error(&m->loc, "return type %s is incomplete", tyname(ft->base));
    fctx_t fc = {0};
    fc.fn = fn;
    fc.ret = ft->base;
    fc.up = p->f;
    fctx_t *saved = p->f;
    p->f = &fc;
    cx_parse_t *cx = cx_parse(p);
    cx_class_t *saved_cls = cx->cls;
    fctx_t *saved_this = cx->this_f;
    cx->cls = c;
    cx->this_f = &fc;
    scope_push(p);
    add_member_syms(p, c);
    scope_push(p);
    fn->nparams = ft->nparams;
    fn->pslot = palloc(p, sizeof(int) * (size_t)(ft->nparams + 1));
    fn->pmem = palloc(p, sizeof(int64_t) * (size_t)(ft->nparams + 1));
    func_params(p, fn, ft, ft->pnames, m->is_static ? -1 : 0);
    cxx_scope_open(p); /* the parameters by value and the prologue's temporaries */
    ilist_t pro = {0};
    loc_t bl = m->loc;
    node_t *thisv = m->is_static ? NULL : mk_load(pl_slot(&bl, ft->params[0], fn->pslot[0]));
    if (m == c->init_m) nsdmi_inits(p, c, nsdmi, thisv, mk_load(pl_slot(&bl, ft->params[1], fn->pslot[1])), &pro);
    else if (m->is_ctor) member_inits(p, c, m, thisv, &pro);
    node_t *body;
    if (m->body_at >= 0) {
        p->i = m->body_at;
        bl = TOK->loc;
        expect(p, P_LBRACE, "'{'");
        body = block(p, &bl);
    } else body = st_nop(&bl);
    ilist_t epi = {0};
    if (m->is_dtor) { /* then the members, last first */
        sdef_t *sd = c->type->sd;
        for (int k = sd->nfields - 1; k >= 0; k--) {
            field_t *f = &sd->fields[k];
            if (!cx_nontrivial(f->ty)) continue;
            node_t *pl = field_place(p, thisv, f, &bl);
            iadd(&epi, st_expr(mk_cx_destroy(&bl, f->ty, mk_addr(pl))));
        }
    }
    node_t *n = node_new(&bl);
    n->a = pro.n ? st_block(&bl, pro.v, pro.n) : NULL;
    n->b = body;
    n->c = epi.n ? st_block(&bl, epi.v, epi.n) : NULL;
    n->sfn = sx_method;
    fn->body = cxx_scope_close(p, n);
    scope_pop(p);
    scope_pop(p);
    fn->nslots = fc.nslots;
    fn->memsize = fc.memsize;
    fn->mem = fc.mem;
    fn->nmem = fc.nmem;
    p->f = saved;
    cx->cls = saved_cls;
    cx->this_f = saved_this;
    box->cur = fn;
    p->in->defs++; /* a method's body compiled when first called: its cell keeps its pool */
    m->defined = true;
    p->i = save_i;
}

/* float Timer::stop() {...}: a member function defined outside its class */
bool cxx_method_def(P *p, type_t *ft, token_t *name) {
    char nbuf[256];
    char *nb = lang_name(p->in, nbuf, sizeof nbuf, name->s, (size_t)name->n);
    char *sep = strstr(nb, "::");
    if (!sep) return false;
    char *last = nb + strlen(nb);
    while (last > nb && !(last[-1] == ':' && last[-2] == ':')) last--;
    last[-2] = 0;
    const char *mname = last;
    sym_t *s = lookup_name(p, nb);
    cx_class_t *c = s && s->kind == S_TYPEDEF ? cx_class_of(s->ty) : NULL;
    if (!c) return false;
    if (c->is_lib) type_error(&name->loc, "%s is a library class: its member functions cannot be defined here", c->name);
    if (p->f != p->cellf || p->nmarks > 0) syntax_error(&name->loc, "a function cannot be defined inside another function");
    bool ctor = !strcmp(mname, c->type->sd->tag);
    cx_method_t *found = NULL;
    for (cx_method_t *m = c->methods; m; m = m->next) {
        if (ctor ? !m->is_ctor : strcmp(m->name, mname)) continue;
        if (m->fty->nparams != ft->nparams) continue;
        bool same = ty_same(ty_unqual(m->fty->base), ty_unqual(ft->base)) || ctor;
        for (int i = 0; i < ft->nparams && same; i++)
            same = ty_same(ty_unqual(m->fty->params[i]), ty_unqual(ft->params[i]));
        if (same) { found = m; break; }
    }
    if (!found) type_error(&name->loc, "%s has no member function %s with these parameters (declare it in the class)", c->name, mname);
    if (found->defined && found->body_at >= 0) type_error(&name->loc, "%s is already defined in its class", nb);
    found->pnames = ft->pnames;
    method_tail(p, found, ctor);
    int after = p->i;
    compile_method(p, c, found, NULL);
    p->i = after;
    return true;
}

/* Timer::Timer() {...}, Timer::~Timer() {...} at the top of a cell */
bool cxx_outofclass_def(P *p) {
    token_t *t = TOK;
    if (t->kind != TK_IDENT) return false;
    const char *sep = NULL;
    for (int k = t->n - 2; k > 0; k--)
        if (t->s[k] == ':' && t->s[k + 1] == ':') { sep = t->s + k; break; }
    bool dtor = false;
    char cbuf[256];
    const char *cname;
    if (!sep && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_SCOPE && PEEK(2)->kind == TK_PUNCT && PEEK(2)->id == P_TILDE) {
        dtor = true;
        cname = lang_name(p->in, cbuf, sizeof cbuf, t->s, (size_t)t->n);
    } else if (sep && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_LPAREN) {
        cname = lang_name(p->in, cbuf, sizeof cbuf, t->s, (size_t)(sep - t->s));
        const char *mn = sep + 2;
        const char *tail = strrchr(cname, ':');
        const char *shortc = tail ? tail + 1 : cname;
        if ((int)strlen(shortc) != (int)(t->s + t->n - mn) || strncmp(shortc, mn, strlen(shortc))) return false;
    } else return false;
    sym_t *s = lookup_name(p, cname);
    cx_class_t *c = s && s->kind == S_TYPEDEF ? cx_class_of(s->ty) : NULL;
    if (!c) return false;
    loc_t l0 = t->loc;
    if (dtor) {
        p->i += 3;
        if (!tok_is(TOK, c->type->sd->tag)) expected(p, "the class name after '~'");
        p->i++;
        cx_method_t *m = c->dtor ? c->dtor : NULL;
        for (cx_method_t *q = c->methods; q && !m; q = q->next) if (q->is_dtor) m = q;
        if (!m) type_error(&l0, "%s declares no destructor", c->name);
        expect(p, P_LPAREN, "'('");
        expect(p, P_RPAREN, "')'");
        method_tail(p, m, false);
        if (m->body_at < 0) expected(p, "the destructor's body");
        int after = p->i;
        compile_method(p, c, m, NULL);
        p->i = after;
        return true;
    }
    p->i++;
    const char **pn = NULL;
    type_t *ft = method_params(p, &ty_void, &pn);
    ft->pnames = pn;
    token_t fake = *t;
    return cxx_method_def(p, ft, &fake);
}

/* ---------------- names inside member functions ---------------- */
node_t *cxx_sym(P *p, sym_t *s, loc_t *l) {
    cx_memref_t *r = s->cx;
    cx_parse_t *cx = cx_parse(p);
    bool have_this = cx_find_this(p) && cx->this_f == p->f;
    if (r->f) {
        if (!have_this) type_error(l, "member '%s' of %s needs an object (this is a static member function)", r->f->name, r->c->name);
        return field_place(p, cx_this_value(p, l), r->f, l);
    }
    if (!is_p(p, P_LPAREN)) type_error(l, "member function '%s' must be called: %s(...)", s->name, s->name);
    p->i++;
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    loc_t lc = from(p, l);
    node_t *obj = have_this ? pl_deref(l, r->c->type, cx_this_value(p, l), 0) : NULL;
    return cx_call(p, r->m, obj, args, n, &lc);
}

