/* Internals of the parser, shared by its files (runtime/lang/front/):
 * parse.c (scopes and names, the function being built), parse_cell.c (the
 * cell's top level), parse_types.c (specifiers, struct/union/enum,
 * declarators), parse_expr.c (expressions), parse_decl.c (initialisers,
 * declarations, function definitions), parse_stmt.c (statements), and the
 * C++ files (cxx_class.h). */
#ifndef ICUDA_PARSE_INTERNAL_H
#define ICUDA_PARSE_INTERNAL_H

#include <stdio.h>
#include <string.h>
#include "front.h"

typedef struct swctx { int64_t *vals; int *idx; int n, cap, def; int depth; } swctx_t;

typedef struct fctx {
    func_t *fn;
    int nslots;
    int64_t memsize;
    lvar_mem_t *mem; int nmem, capmem;
    type_t *ret;
    bool is_cell;
    bool discards;       /* its statements' tokens may go back once parsed (p_tokens_done) */
    int loops, blockdepth;
    swctx_t *sw;
    struct fctx *up;
    node_t **gotos; int ngotos, capgotos;     /* checked against the labels at the end */
    const char **labels; int nlabels, caplabels;
} fctx_t;

typedef struct pending { int kind; const char *name; void *a, *b; } pending_t;

typedef struct P {
    interp_t *in;
    token_t *t; int i, n;
    src_t *src;
    sym_t **scope; int nscope, capscope;  /* local symbols, innermost last */
    int *marks; int nmarks, capmarks;
    hmap_t cell;         /* top-level names declared in this cell (not yet committed) */
    hmap_t ctags;        /* struct/union/enum tags of this cell */
    hmap_t addressed;    /* names whose address is taken somewhere in the cell */
    fctx_t *f;
    fctx_t *cellf;
    pending_t *pend; int npend, cappend;
    gvar_t **newg; int nnewg, capnewg;
    node_t **top; int ntop, captop;   /* the cell's top-level statements */
    node_t *value;
    bool expr_only;
    fctx_t cellctx;
    struct P *parent;    /* a template's instantiation: the cell that asked for it */
    struct P *child;     /* ... and the other way, to clean up after an error */
    const char *ns;      /* inside `namespace a { namespace b {`: "a::b" */
    struct cx_parse *cx;  /* C++ classes: lifetimes, the class being compiled (cxx_class.h) */
    int nest;            /* how deeply the parse nests now (nest_enter) */
    int tokens_kept;     /* the cell's tokens before this were given back (p_tokens_done) */
    bool iconst;         /* parsing an array size or a case label: const integers fold (C++) */
    bool split_stmts;    /* the cell's top-level statements go to in->stmts (parse_cell.c) */
} P;

enum { PEND_FUNC = 1, PEND_TYPEDEF, PEND_ENUMC, PEND_TAG, PEND_PROTO };

#define TOK (&p->t[p->i])
#define PEEK(k) (&p->t[p->i + (k) < p->n ? p->i + (k) : p->n - 1])


/* ---------------- helpers ---------------- */
static inline void *palloc(P *p, size_t n) { return pool_alloc(&p->in->pool, n); }
uint64_t strlit_word(P *p, const char *s, size_t len, loc_t *l, const char **bytes); /* parse_expr.c */
static inline char *pstr(P *p, token_t *t) { return pool_strndup(&p->in->pool, t->s, (size_t)t->n); }

static inline bool is_p(P *p, int id) { return TOK->kind == TK_PUNCT && TOK->id == id; }
static inline bool is_kw(P *p, int id) { return TOK->kind == TK_KW && TOK->id == id; }
static inline bool accept(P *p, int id) {
    if ((TOK->kind == TK_PUNCT || TOK->kind == TK_KW) && TOK->id == id) { p->i++; return true; }
    return false;
}
static inline _Noreturn void expected(P *p, const char *what) {
    char b[80];
    syntax_error(&TOK->loc, "expected %s before '%s'", what, tok_str(TOK, b, sizeof b));
}
static inline void expect(P *p, int id, const char *what) {
    if (!accept(p, id)) expected(p, what);
}
static inline loc_t span(loc_t *a, loc_t *b) { /* from a to the end of b, on a's line */
    loc_t l = *a;
    if (b && b->line == a->line && b->col + b->len > a->col) l.len = b->col + b->len - a->col;
    return l;
}
static inline loc_t prevloc(P *p) { return p->t[p->i > 0 ? p->i - 1 : 0].loc; }
static inline loc_t from(P *p, loc_t *a) { loc_t e = prevloc(p); return span(a, &e); }

static inline void vadd(node_t ***v, int *n, int *cap, node_t *x) {
    if (*n == *cap) { /* a long list grows in place (a chunk of its own): no copies left behind */
        int nc = *cap ? *cap * 2 : 8;
        *v = pool_regrow(&g_in->pool, *v, sizeof(node_t *) * (size_t)*n, sizeof(node_t *) * (size_t)nc);
        *cap = nc;
    }
    (*v)[(*n)++] = x;
}

static inline char *tyname(type_t *t) {
    static char b[4][200];
    static int k;
    k = (k + 1) & 3;
    return ty_name(t, b[k], sizeof b[k]);
}

typedef struct ilist { node_t **v; int n, cap; } ilist_t;

/* parse.c */
void scope_push(P *p);
void scope_pop(P *p);
void scope_add(P *p, sym_t *s);
sym_t *lookup(P *p, token_t *t);
bool is_typedef_name(P *p, token_t *t);
bool is_type_start(P *p, token_t *t);
int new_slot(P *p);
int64_t new_mem(P *p, type_t *t, int64_t size);
int new_handle(P *p, int64_t off, int64_t size, const char *name);
fbox_t *fbox_get(P *p, const char *name);
void pend(P *p, int kind, const char *name, void *a, void *b);
int cxx_name_candidates(interp_t *in, const char *name, char buf[][256], const char **out, int max);

/* parse_cell.c: a child parse (a template's instance) of the cell parent's tokens */
P *p_child(P *parent, token_t *t, int n);
void p_tokens_done(P *p);   /* between statements of the cell's own code (parse_cell.c) */
void p_child_finish(P *c);

/* parse_kernel.c: kernels of device cells named in host code */
node_t *kernel_value(P *p, const char *name, loc_t *l);
const char *kernel_launch_name(P *p, const char *name, node_t **args, int nargs, loc_t *l);

/* parse_types.c */
type_t *decl_specs(P *p, int *storage, bool *skip_item);
type_t *params(P *p, type_t *ret, const char ***names);
type_t *declarator(P *p, type_t *t, token_t **name);
type_t *abstract_type(P *p);
field_t field_layout(P *p, token_t *nm, type_t *ft, bool is_union, bool flex, size_t *off, size_t *size, size_t *align);

/* parse_expr.c */
node_t *rvalue(P *p, node_t *e);
node_t *conv_assign(P *p, node_t *e, type_t *t, const char *what);
void need_scalar(node_t *e, const char *what);
node_t *binary(P *p, int op, node_t *a, node_t *b, loc_t *l, const char *opname);
node_t *str_literal(P *p);
node_t *member(P *p, node_t *e, bool arrow, loc_t *l0);
bool has_vla(type_t *t);
node_t *assign_to(P *p, node_t *lhs, node_t *rhs, loc_t *l, const char *what);
node_t *assign_expr(P *p);
node_t *expression(P *p);            /* the comma expression */
node_t *cast_expr(P *p);
node_t *explicit_cast(P *p, node_t *e, type_t *t, loc_t *at);
node_t *const_expr(P *p);
int64_t const_int(P *p, node_t *e, const char *what);

/* parse_decl.c */
void iadd(ilist_t *o, node_t *s);
bool is_dim3(type_t *t);
node_t *compound_literal(P *p, type_t *t, loc_t *l0);
node_t *dim3_literal(P *p, loc_t *l, node_t **vals, int n);
void skip_item(P *p);
void declaration(P *p, type_t *base, int storage, bool global, ilist_t *o);
void func_def(P *p, type_t *ft, token_t *name, const char **pnames);
void func_params(P *p, func_t *fn, type_t *ft, const char **pnames, int in_slot);
void decl_initializer(P *p, node_t *pl, type_t *t, ilist_t *o); /* C++ member initialisers */
bool cxx_using_item(P *p);                                      /* using ...; namespace a = b; */

/* parse.c: nesting is bounded by LANG_MAX_NEST (parentheses, unary
 * operators, statements, initialisers, declarators, and the length of a
 * chain such as a + b + c, which nests as deeply when evaluated); past it,
 * SyntaxError "expression nested too deeply", never a C stack overflow. */
#define LANG_MAX_NEST 1000
void nest_enter(P *p);
/* A function's (or a cell's) local variables take at most LANG_MAX_FRAME
 * bytes: each call allocates them. */
#define LANG_MAX_FRAME ((int64_t)64 << 20)
void frame_size_check(P *p, int64_t memsize);
static inline void nest_leave(P *p) { p->nest--; }

/* parse_stmt.c */
node_t *block(P *p, loc_t *l0);
node_t *stmt(P *p);
node_t *loop_body(P *p);

/* parse_cxx.c */
void cxx_join_qualified(interp_t *in, tokvec_t *tv);
bool cxx_is_namespace(interp_t *in, const char *name);
char *cxx_decl_name(P *p, token_t *t);
_Noreturn void cxx_not_interpreted(loc_t *at, const char *what);
void cxx_check_unsupported(P *p);
node_t *cxx_new_delete(P *p);
node_t *cxx_primary_kw(P *p);
node_t *cxx_functional_cast(P *p, type_t *t, loc_t *l0);
node_t *cxx_main_args(P *p, const char *name, loc_t *l);
node_t *cxx_cell_return(P *p, node_t *v, loc_t *l0);
bool cxx_has_auto(type_t *t);
void cxx_note_goto(P *p, node_t *g);
void cxx_note_label(P *p, const char *name, loc_t *at);
void cxx_check_labels(P *p);
bool cxx_is_range_for(P *p);
node_t *cxx_range_for(P *p, loc_t *l0);
void cxx_template_def(P *p);
node_t *cxx_template_ref(P *p, sym_t *s, loc_t *l);
node_t *cxx_template_call(P *p, node_t *fn, node_t **args, int n, loc_t *l);
void cxx_library(interp_t *in);
node_t *cxx_overload_pick(P *p, node_t *fn, node_t **args, int n, loc_t *l);
node_t *cxx_float_math(P *p, node_t *fn, node_t **args, int n);
sym_t *cxx_overload_add(P *p, sym_t *s, func_t *fn);
node_t *cxx_class_range(P *p, node_t *range, node_t **end); /* parse_class.c: begin()/end() of a class object */
type_t *cxx_deduce_auto(P *p, type_t *decl, node_t *init, loc_t *l);
node_t *cxx_deref_ref(node_t *ref, loc_t *l);
node_t *cxx_deref_value(node_t *v, loc_t *l);
node_t *cxx_ref_target(P *p, type_t *rt, node_t *e, const char *what);
node_t *cxx_ref_class_arg(P *p, type_t *want, node_t *e, const char *what); /* parse_class.c */
bool cxx_class_elem(type_t *t);                                             /* parse_class.c */
node_t *cxx_new_object(P *p, type_t *t, loc_t *l0);                         /* new T(args) of a class */
bool cxx_new_takes(P *p, type_t *t);
node_t *cxx_new_array_init(P *p, node_t *ptr, node_t *count, type_t *t, loc_t *l);
node_t *cxx_destroy(P *p, node_t *ptr, type_t *t, bool array, loc_t *l);
node_t *cxx_range_var(P *p, node_t *pl, type_t *t, node_t *elem, loc_t *l); /* parse_class.c */
node_t *cxx_bind_ref(P *p, node_t *pl, type_t *rt, node_t *init, loc_t *l);

#endif
