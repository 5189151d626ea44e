/* Parsing and type checking in one pass: C declarations, statements and
 * expressions become typed nodes (exec.c builders) with every conversion made
 * explicit and every name resolved to a slot, a frame offset, a session
 * variable or a function box, so nothing is looked up while a cell runs.
 * A whole cell is compiled before any of it runs: undeclared names, wrong
 * argument counts and type mismatches stop it with nothing done. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang.h"
#include "../hostmem/arena.h"

typedef struct swctx { int64_t *vals; int *idx; int n, cap, def; int depth; } swctx_t;

typedef struct fctx {
    func_t *fn;
    int nslots;
    int64_t memsize;
    lvar_mem_t *mem; int nmem, capmem;
    type_t *ret;
    bool is_cell;
    int loops, blockdepth;
    swctx_t *sw;
    struct fctx *up;
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
} P;

/* function designators (node op): user function, builtin, kernel, CUDA API */
enum { FD_USER = 1001, FD_BUILTIN, FD_KERNEL, FD_GPUAPI };
enum { PEND_FUNC = 1, PEND_TYPEDEF, PEND_ENUMC, PEND_TAG, PEND_PROTO };

#define TOK (&p->t[p->i])
#define PEEK(k) (&p->t[p->i + (k) < p->n ? p->i + (k) : p->n - 1])

static node_t *expr(P *p);
static node_t *assign_expr(P *p);
static node_t *cast_expr(P *p);
static node_t *stmt(P *p);
static type_t *decl_specs(P *p, int *storage, bool *skip_item);
static bool is_dim3(type_t *t);
static type_t *declarator(P *p, type_t *base, token_t **name);
static type_t *abstract_type(P *p);
static node_t *rvalue(P *p, node_t *e);

/* ---------------- helpers ---------------- */
static void *palloc(P *p, size_t n) { return pool_alloc(&p->in->pool, n); }
static char *pstr(P *p, token_t *t) { return pool_strndup(&p->in->pool, t->s, (size_t)t->n); }

static bool is_p(P *p, int id) { return TOK->kind == TK_PUNCT && TOK->id == id; }
static bool is_kw(P *p, int id) { return TOK->kind == TK_KW && TOK->id == id; }
static bool accept(P *p, int id) {
    if ((TOK->kind == TK_PUNCT || TOK->kind == TK_KW) && TOK->id == id) { p->i++; return true; }
    return false;
}
static _Noreturn void expected(P *p, const char *what) {
    char b[80];
    syntax_error(&TOK->loc, "expected %s before '%s'", what, tok_str(TOK, b, sizeof b));
}
static void expect(P *p, int id, const char *what) {
    if (!accept(p, id)) expected(p, what);
}
static loc_t span(loc_t *a, loc_t *b) { /* from a to the end of b, on a's line */
    loc_t l = *a;
    if (b && b->line == a->line && b->col + b->len > a->col) l.len = b->col + b->len - a->col;
    return l;
}
static loc_t prevloc(P *p) { return p->t[p->i > 0 ? p->i - 1 : 0].loc; }
static loc_t from(P *p, loc_t *a) { loc_t e = prevloc(p); return span(a, &e); }

static void vadd(node_t ***v, int *n, int *cap, node_t *x) {
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 8;
        node_t **nv = pool_alloc(&g_in->pool, sizeof(node_t *) * (size_t)nc);
        if (*n) memcpy(nv, *v, sizeof(node_t *) * (size_t)*n);
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = x;
}

static char *tyname(type_t *t) {
    static char b[4][200];
    static int k;
    k = (k + 1) & 3;
    return ty_name(t, b[k], sizeof b[k]);
}

/* ---------------- scopes ---------------- */
static void scope_push(P *p) {
    if (p->nmarks == p->capmarks) {
        p->capmarks = p->capmarks ? p->capmarks * 2 : 16;
        p->marks = realloc(p->marks, sizeof(int) * (size_t)p->capmarks);
    }
    p->marks[p->nmarks++] = p->nscope;
}
static void scope_pop(P *p) { p->nscope = p->marks[--p->nmarks]; }
static void scope_add(P *p, sym_t *s) {
    if (p->nscope == p->capscope) {
        p->capscope = p->capscope ? p->capscope * 2 : 32;
        p->scope = realloc(p->scope, sizeof(sym_t *) * (size_t)p->capscope);
    }
    p->scope[p->nscope++] = s;
}

static sym_t *lookup_n(P *p, const char *s, int n) {
    char nb[256];
    if (n >= (int)sizeof nb) return NULL;
    memcpy(nb, s, (size_t)n);
    nb[n] = 0;
    for (int i = p->nscope - 1; i >= 0; i--)
        if (strcmp(p->scope[i]->name, nb) == 0) return p->scope[i];
    sym_t *r = hmap_get(&p->cell, nb);
    if (r) return r;
    return hmap_get(&p->in->globals, nb);
}
static sym_t *lookup(P *p, token_t *t) { return lookup_n(p, t->s, t->n); }

static bool is_typedef_name(P *p, token_t *t) {
    if (t->kind != TK_IDENT) return false;
    sym_t *s = lookup(p, t);
    return s && s->kind == S_TYPEDEF;
}

static bool is_type_start(P *p, token_t *t) {
    if (t->kind == TK_KW) {
        switch (t->id) {
        case KW_VOID: case KW_CHAR: case KW_SHORT: case KW_INT: case KW_LONG: case KW_FLOAT:
        case KW_DOUBLE: case KW_SIGNED: case KW_UNSIGNED: case KW_BOOL: case KW_STRUCT:
        case KW_UNION: case KW_ENUM: case KW_TYPEDEF: case KW_STATIC: case KW_EXTERN:
        case KW_CONST: case KW_VOLATILE: case KW_RESTRICT: case KW_INLINE: case KW_REGISTER:
        case KW_HOST: case KW_DEVICE: case KW_GLOBAL: case KW_FORCEINLINE: case KW_NOINLINE:
        case KW_SHARED: case KW_CONSTANT: case KW_TYPEOF: case KW_AUTO:
            return true;
        }
        return false;
    }
    if (t->kind == TK_IDENT && t->n == 13 && memcmp(t->s, "__attribute__", 13) == 0) return true;
    return is_typedef_name(p, t);
}

/* ---------------- function context ---------------- */
static int new_slot(P *p) { return p->f->nslots++; }
static int64_t new_mem(P *p, type_t *t, int64_t size) {
    int64_t al = t && t->align ? (int64_t)t->align : 8;
    if (al > 16) al = 16;
    p->f->memsize = (p->f->memsize + al - 1) / al * al;
    int64_t off = p->f->memsize;
    p->f->memsize += size ? size : 1;
    return off;
}
static int new_handle(P *p, int64_t off, int64_t size, const char *name) {
    fctx_t *f = p->f;
    if (f->nmem == f->capmem) {
        int nc = f->capmem ? f->capmem * 2 : 8;
        lvar_mem_t *nm = palloc(p, sizeof(lvar_mem_t) * (size_t)nc);
        if (f->nmem) memcpy(nm, f->mem, sizeof(lvar_mem_t) * (size_t)f->nmem);
        f->mem = nm;
        f->capmem = nc;
    }
    f->mem[f->nmem] = (lvar_mem_t){off, size, name, f->nmem};
    return f->nmem++;
}

static fbox_t *fbox_get(P *p, const char *name) {
    fbox_t *b = hmap_get(&p->in->fboxes, name);
    if (b) return b;
    b = palloc(p, sizeof *b);
    b->name = pool_strndup(&p->in->pool, name, strlen(name));
    b->owner = p->in->id;
    b->id = g_nfboxes;
    g_fboxes = realloc(g_fboxes, sizeof(fbox_t *) * (size_t)(g_nfboxes + 1));
    g_fboxes[g_nfboxes++] = b;
    hmap_put(&p->in->fboxes, b->name, b);
    return b;
}

static void pend(P *p, int kind, const char *name, void *a, void *b) {
    if (p->npend == p->cappend) {
        p->cappend = p->cappend ? p->cappend * 2 : 16;
        p->pend = realloc(p->pend, sizeof(pending_t) * (size_t)p->cappend);
    }
    p->pend[p->npend++] = (pending_t){kind, name, a, b};
}

/* ---------------- constants ---------------- */
static int64_t const_int(P *p, node_t *e, const char *what) {
    if (!e->is_const || !ty_is_int(e->ty)) {
        if (e->is_const && ty_is_float(e->ty)) type_error(&e->loc, "%s must be an integer constant", what);
        type_error(&e->loc, "%s must be a constant expression", what);
    }
    return e->k.i;
}
static node_t *const_expr(P *p) {
    node_t *e = rvalue(p, assign_expr(p));
    return e;
}

/* ---------------- types: struct/union/enum ---------------- */
static type_t *find_tag(P *p, const char *tag) {
    type_t *t = hmap_get(&p->ctags, tag);
    if (t) return t;
    return hmap_get(&p->in->tags, tag);
}

static void skip_attribute(P *p) {
    while (TOK->kind == TK_IDENT && TOK->n == 13 && memcmp(TOK->s, "__attribute__", 13) == 0) {
        p->i++;
        expect(p, P_LPAREN, "'('");
        int d = 1;
        while (d > 0 && TOK->kind != TK_EOF) {
            if (is_p(p, P_LPAREN)) d++;
            if (is_p(p, P_RPAREN)) d--;
            p->i++;
        }
    }
    if (TOK->kind == TK_IDENT && TOK->n == 8 && memcmp(TOK->s, "__align_", 8) == 0) p->i++;
}

static type_t *struct_spec(P *p, bool is_union) {
    loc_t l0 = TOK->loc;
    skip_attribute(p);
    const char *tag = NULL;
    if (TOK->kind == TK_IDENT) { tag = pstr(p, TOK); p->i++; }
    skip_attribute(p);
    if (!is_p(p, P_LBRACE)) {
        if (!tag) expected(p, "'{'");
        type_t *t = find_tag(p, tag);
        if (t) {
            if ((t->kind == T_UNION) != is_union) type_error(&l0, "'%s' defined as the wrong kind of tag", tag);
            return t;
        }
        /* an incomplete struct, completed later */
        t = palloc(p, sizeof *t);
        t->kind = is_union ? T_UNION : T_STRUCT;
        t->sd = palloc(p, sizeof(sdef_t));
        t->sd->tag = tag;
        t->sd->is_union = is_union;
        t->align = 1;
        hmap_put(&p->ctags, tag, t);
        pend(p, PEND_TAG, tag, t, NULL);
        return t;
    }
    p->i++;
    type_t *t = palloc(p, sizeof *t);
    t->kind = is_union ? T_UNION : T_STRUCT;
    sdef_t *sd = t->sd = palloc(p, sizeof(sdef_t));
    sd->tag = tag;
    sd->is_union = is_union;
    if (tag) {
        type_t *old = hmap_get(&p->ctags, tag);
        if (old && old->sd && !old->sd->complete) { t = old; sd = t->sd; }
        hmap_put(&p->ctags, tag, t);
        pend(p, PEND_TAG, tag, t, NULL);
    }
    int cap = 8;
    field_t *fs = palloc(p, sizeof(field_t) * (size_t)cap);
    int nf = 0;
    size_t off = 0, size = 0, align = 1;
    while (!accept(p, P_RBRACE)) {
        if (TOK->kind == TK_EOF) expected(p, "'}'");
        int st;
        bool skip;
        type_t *base = decl_specs(p, &st, &skip);
        if (!base) expected(p, "a member declaration");
        do {
            token_t *nm = NULL;
            type_t *ft = base;
            if (!is_p(p, P_SEMI)) ft = declarator(p, base, &nm);
            if (is_p(p, P_COLON)) syntax_error(&TOK->loc, "bit-fields are not supported");
            if (ft->kind == T_FUNC) type_error(nm ? &nm->loc : &TOK->loc, "a struct member cannot be a function");
            if (ft->vla) type_error(nm ? &nm->loc : &TOK->loc, "a struct member cannot be a variable-length array");
            if ((ft->kind == T_STRUCT || ft->kind == T_UNION) && !ft->sd->complete)
                type_error(nm ? &nm->loc : &TOK->loc, "member has incomplete type '%s'", tyname(ft));
            bool flex = ft->kind == T_ARRAY && ft->count < 0;
            if (nf + 2 >= cap) {
                field_t *n2 = palloc(p, sizeof(field_t) * (size_t)cap * 2);
                memcpy(n2, fs, sizeof(field_t) * (size_t)nf);
                fs = n2;
                cap *= 2;
            }
            size_t a = ft->align ? ft->align : 1;
            if (is_union) {
                fs[nf] = (field_t){nm ? pstr(p, nm) : NULL, ft, 0};
                if (ft->size > size) size = ft->size;
            } else {
                off = (off + a - 1) / a * a;
                fs[nf] = (field_t){nm ? pstr(p, nm) : NULL, ft, off};
                off += flex ? 0 : ft->size;
            }
            if (a > align) align = a;
            nf++;
        } while (accept(p, P_COMMA));
        expect(p, P_SEMI, "';'");
    }
    skip_attribute(p);
    if (!is_union) size = off;
    size = (size + align - 1) / align * align;
    sd->fields = fs;
    sd->nfields = nf;
    sd->complete = true;
    t->size = size;
    t->align = align;
    return t;
}

static type_t *enum_spec(P *p) {
    const char *tag = NULL;
    if (TOK->kind == TK_IDENT) { tag = pstr(p, TOK); p->i++; }
    type_t *t = ty_copy(&ty_int);
    t->is_enum = true;
    t->enum_tag = tag;
    if (!accept(p, P_LBRACE)) {
        if (!tag) expected(p, "'{'");
        type_t *o = find_tag(p, tag);
        return o ? o : t;
    }
    int64_t v = 0;
    while (!accept(p, P_RBRACE)) {
        if (TOK->kind != TK_IDENT) expected(p, "an enumerator name");
        token_t *nm = TOK;
        p->i++;
        if (accept(p, P_ASSIGN)) v = const_int(p, const_expr(p), "an enumerator value");
        sym_t *s = palloc(p, sizeof *s);
        s->name = pstr(p, nm);
        s->kind = S_ENUMC;
        s->ty = t;
        s->ival = v;
        if (p->f != p->cellf || p->nmarks > 0) scope_add(p, s);
        else { hmap_put(&p->cell, s->name, s); pend(p, PEND_ENUMC, s->name, s, NULL); }
        v++;
        if (!accept(p, P_COMMA)) { expect(p, P_RBRACE, "'}'"); break; }
    }
    if (tag) {
        hmap_put(&p->ctags, tag, t);
        pend(p, PEND_TAG, tag, t, NULL);
    }
    return t;
}

/* declaration specifiers; NULL when the tokens do not start a declaration.
 * *skip_item: a device-only item (__global__, __device__ without __host__,
 * __constant__, __shared__) that the host does not run. */
static type_t *decl_specs(P *p, int *storage, bool *skip_item) {
    int nlong = 0, nshort = 0, nsigned = 0, nunsigned = 0, nint = 0;
    type_t *base = NULL;
    bool cnst = false, any = false, host = false, device = false;
    *storage = 0;
    *skip_item = false;
    for (;;) {
        token_t *t = TOK;
        skip_attribute(p);
        if (TOK != t) { any = true; continue; }
        if (t->kind == TK_IDENT && !base && !nlong && !nshort && !nsigned && !nunsigned && !nint &&
            is_typedef_name(p, t)) {
            sym_t *s = lookup(p, t);
            base = s->ty;
            p->i++;
            any = true;
            continue;
        }
        if (t->kind != TK_KW) break;
        switch (t->id) {
        case KW_TYPEDEF: *storage = KW_TYPEDEF; break;
        case KW_STATIC: *storage = KW_STATIC; break;
        case KW_EXTERN: *storage = KW_EXTERN;
            if (PEEK(1)->kind == TK_STR) p->i++; /* extern "C" */
            break;
        case KW_CONST: cnst = true; break;
        case KW_VOLATILE: case KW_RESTRICT: case KW_INLINE: case KW_REGISTER: case KW_FORCEINLINE:
        case KW_NOINLINE: case KW_AUTO:
            break;
        case KW_HOST: host = true; break;
        case KW_DEVICE: device = true; break;
        case KW_GLOBAL: case KW_SHARED: case KW_CONSTANT: *skip_item = true; break;
        case KW_VOID: base = &ty_void; break;
        case KW_BOOL: base = &ty_bool; break;
        case KW_CHAR: base = &ty_char; break;
        case KW_FLOAT: base = &ty_float; break;
        case KW_DOUBLE: base = &ty_double; break;
        case KW_SHORT: nshort++; break;
        case KW_INT: nint++; break;
        case KW_LONG: nlong++; break;
        case KW_SIGNED: nsigned++; break;
        case KW_UNSIGNED: nunsigned++; break;
        case KW_STRUCT: case KW_UNION:
            p->i++;
            base = struct_spec(p, t->id == KW_UNION);
            any = true;
            continue;
        case KW_ENUM:
            p->i++;
            base = enum_spec(p);
            any = true;
            continue;
        case KW_TYPEOF: {
            p->i++;
            expect(p, P_LPAREN, "'('");
            if (is_type_start(p, TOK)) base = abstract_type(p);
            else {
                node_t *e = expr(p);
                base = e->ty;
            }
            expect(p, P_RPAREN, "')'");
            any = true;
            continue;
        }
        default:
            goto done;
        }
        p->i++;
        any = true;
    }
done:
    if (!any) return NULL;
    if (device && !host) *skip_item = true;
    if (nlong || nshort || nsigned || nunsigned || nint) {
        if (base == &ty_double && nlong) base = &ty_ldouble;
        else if (base == &ty_char) base = nunsigned ? &ty_uchar : nsigned ? &ty_schar : &ty_char;
        else if (base && base != &ty_double) syntax_error(&TOK->loc, "two or more data types in declaration specifiers");
        else if (nshort) base = nunsigned ? &ty_ushort : &ty_short;
        else if (nlong >= 2) base = nunsigned ? &ty_ullong : &ty_llong;
        else if (nlong == 1) base = nunsigned ? &ty_ulong : &ty_long;
        else base = nunsigned ? &ty_uint : &ty_int;
    }
    if (!base) base = &ty_int; /* "unsigned", "const x" */
    if (cnst) base = ty_const(base);
    return base;
}

static type_t *params(P *p, type_t *ret, const char ***names) {
    /* after '(' */
    int cap = 8, n = 0;
    type_t **ps = palloc(p, sizeof(type_t *) * (size_t)cap);
    const char **nm = palloc(p, sizeof(char *) * (size_t)cap);
    bool variadic = false;
    if (is_kw(p, KW_VOID) && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_RPAREN) p->i++;
    scope_push(p); /* earlier parameters are visible to later ones: double v[n] */
    while (!accept(p, P_RPAREN)) {
        if (n && !accept(p, P_COMMA)) expected(p, "',' or ')'");
        if (accept(p, P_ELLIPSIS)) { variadic = true; expect(p, P_RPAREN, "')'"); break; }
        int st;
        bool skip;
        type_t *b = decl_specs(p, &st, &skip);
        if (!b) expected(p, "a parameter type");
        token_t *pn = NULL;
        type_t *t = declarator(p, b, &pn);
        if (t->kind == T_ARRAY) { type_t *q = ty_ptr(t->base); q->is_const = false; t = q; }
        else if (t->kind == T_FUNC) t = ty_ptr(t);
        if (t->kind == T_VOID) type_error(&TOK->loc, "parameter has type void");
        if (n + 1 >= cap) {
            type_t **a2 = palloc(p, sizeof(type_t *) * (size_t)cap * 2);
            const char **n2 = palloc(p, sizeof(char *) * (size_t)cap * 2);
            memcpy(a2, ps, sizeof(type_t *) * (size_t)n);
            memcpy(n2, nm, sizeof(char *) * (size_t)n);
            ps = a2;
            nm = n2;
            cap *= 2;
        }
        nm[n] = pn ? pstr(p, pn) : NULL;
        if (pn) {
            sym_t *s = palloc(p, sizeof *s);
            s->name = nm[n];
            s->kind = S_VAR_LOCAL;
            s->ty = t;
            s->slot = n; /* the slot it gets in the body when no earlier parameter is addressed
                          * (func_def checks this for double m[r][c] parameters) */
            scope_add(p, s);
        }
        ps[n++] = t;
    }
    scope_pop(p);
    type_t *ft = ty_func(ret, n, ps, variadic);
    ft->pnames = nm;
    if (names) *names = nm;
    return ft;
}

static type_t *suffix(P *p, type_t *t) {
    if (accept(p, P_LPAREN)) {
        type_t *ft = params(p, t, NULL);
        if (t->kind == T_ARRAY || t->kind == T_FUNC) type_error(&TOK->loc, "a function cannot return an array or a function");
        return ft;
    }
    if (accept(p, P_LBRACK)) {
        while (is_kw(p, KW_STATIC) || is_kw(p, KW_CONST) || is_kw(p, KW_RESTRICT)) p->i++;
        node_t *len = NULL;
        loc_t l = TOK->loc;
        if (!is_p(p, P_RBRACK)) len = rvalue(p, assign_expr(p));
        expect(p, P_RBRACK, "']'");
        type_t *inner = suffix(p, t);
        if (inner->kind == T_FUNC) type_error(&l, "array of functions");
        if (!len) return ty_array(inner, -1);
        if (!ty_is_int(len->ty)) type_error(&len->loc, "size of array has non-integer type '%s'", tyname(len->ty));
        if (len->is_const) {
            if (len->k.i < 0) type_error(&len->loc, "size of array is negative");
            if ((uint64_t)len->k.i * (inner->size ? inner->size : 1) > ((uint64_t)1 << 36))
                type_error(&len->loc, "array is too large");
            return ty_array(inner, len->k.i);
        }
        type_t *a = ty_array(inner, -1);
        a->vla = mk_cast(len, &ty_long);
        return a;
    }
    return t;
}

static type_t *declarator(P *p, type_t *t, token_t **name) {
    skip_attribute(p);
    while (accept(p, P_STAR) || accept(p, P_AMP)) {
        t = ty_ptr(t);
        for (;;) {
            if (accept(p, KW_CONST)) t = ty_const(t);
            else if (accept(p, KW_VOLATILE) || accept(p, KW_RESTRICT)) {}
            else break;
        }
    }
    skip_attribute(p);
    if (is_p(p, P_LPAREN) && !is_type_start(p, PEEK(1)) && !(PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_RPAREN)) {
        /* nested declarator: parse what follows it first */
        int start = ++p->i;
        int d = 1;
        while (d > 0) {
            if (TOK->kind == TK_EOF) expected(p, "')'");
            if (is_p(p, P_LPAREN)) d++;
            if (is_p(p, P_RPAREN)) d--;
            p->i++;
        }
        type_t *outer = suffix(p, t);
        int end = p->i;
        p->i = start;
        type_t *r = declarator(p, outer, name);
        expect(p, P_RPAREN, "')'");
        p->i = end;
        return r;
    }
    if (TOK->kind == TK_IDENT) {
        if (name) *name = TOK;
        p->i++;
        /* dim3 b(16, 16): a constructor, not a function declarator */
        if (is_dim3(t) && is_p(p, P_LPAREN) && !is_type_start(p, PEEK(1)) &&
            !(PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_RPAREN))
            return t;
    }
    return suffix(p, t);
}

static type_t *abstract_type(P *p) {
    int st;
    bool skip;
    type_t *b = decl_specs(p, &st, &skip);
    if (!b) expected(p, "a type name");
    token_t *nm = NULL;
    type_t *t = declarator(p, b, &nm);
    if (nm) syntax_error(&nm->loc, "unexpected name '%.*s' in a type name", nm->n, nm->s);
    return t;
}

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
    default: return &ty_int;
    }
}

static bool is_null_const(node_t *e) {
    return e->is_const && (ty_is_int(e->ty) || (e->ty->kind == T_PTR && e->ty->base->kind == T_VOID)) && e->k.u == 0;
}

/* lvalue -> value: arrays decay to pointers, functions to function pointers */
static node_t *rvalue(P *p, node_t *e) {
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
    g_fboxes = realloc(g_fboxes, sizeof(fbox_t *) * (size_t)(g_nfboxes + 1));
    g_fboxes[g_nfboxes++] = box;
    hmap_put(&p->in->fboxes, pool_strndup(&p->in->pool, key, strlen(key)), box);
    return box;
}

static node_t *conv_assign(P *p, node_t *e, type_t *t, const char *what) {
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
static void need_scalar(node_t *e, const char *what) {
    if (!ty_is_scalar(e->ty)) type_error(&e->loc, "%s needs a number or a pointer, not %s", what, tyname(e->ty));
}

static node_t *binary(P *p, int op, node_t *a, node_t *b, loc_t *l, const char *opname);

static int64_t elem_size(type_t *pt, loc_t *l) {
    type_t *b = pt->base;
    if (b->kind == T_VOID) return 1; /* gcc's void * arithmetic */
    if (b->kind == T_FUNC) type_error(l, "arithmetic on a function pointer");
    if ((b->kind == T_STRUCT || b->kind == T_UNION) && !b->sd->complete)
        type_error(l, "arithmetic on a pointer to an incomplete type");
    return (int64_t)b->size;
}

static node_t *binary(P *p, int op, node_t *a, node_t *b, loc_t *l, const char *opname) {
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

static node_t *str_literal(P *p) {
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
    uint32_t slot = buf_new(s, len + 1, PLACE_STRLIT, NULL, &l);
    if (!slot) type_error(&l, "too many buffers");
    g_bufs[slot].owner = p->in->id;
    node_t *n = mk_const(&l, ty_array(ty_const(&ty_char), (long)len + 1), (val_t){.u = ptr_make(slot, 0)});
    n->is_const = false;
    n->p = (void *)1;     /* marks a string literal */
    n->str = s;           /* the bytes, for char-array initialisers and formats */
    n->esz = (int64_t)len + 1;
    return n;
}

static field_t *find_field(type_t *st, const char *nm, int64_t *off) {
    sdef_t *sd = st->sd;
    for (int i = 0; i < sd->nfields; i++) {
        field_t *f = &sd->fields[i];
        if (f->name && strcmp(f->name, nm) == 0) { *off += (int64_t)f->off; return f; }
        if (!f->name && (f->ty->kind == T_STRUCT || f->ty->kind == T_UNION)) {
            int64_t o = *off + (int64_t)f->off;
            field_t *r = find_field(f->ty, nm, &o);
            if (r) { *off = o; return r; }
        }
    }
    return NULL;
}

static type_t *qualify(type_t *ft, type_t *outer) {
    return outer->is_const && !ft->is_const ? ty_const(ft) : ft;
}

static node_t *member(P *p, node_t *e, bool arrow, loc_t *l0) {
    token_t *nm = TOK;
    if (nm->kind != TK_IDENT) expected(p, "a member name");
    p->i++;
    loc_t l = from(p, l0);
    type_t *st;
    node_t *base;
    if (arrow) {
        node_t *r = rvalue(p, e);
        if (r->ty->kind != T_PTR || (r->ty->base->kind != T_STRUCT && r->ty->base->kind != T_UNION))
            type_error(&e->loc, "'->' needs a pointer to a struct, but %s has type %s", "the left side", tyname(r->ty));
        st = r->ty->base;
        if (!st->sd->complete) type_error(&e->loc, "'%s' is an incomplete type", tyname(st));
        char nb[128];
        snprintf(nb, sizeof nb, "%.*s", nm->n, nm->s);
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
    char nb[128];
    snprintf(nb, sizeof nb, "%.*s", nm->n, nm->s);
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

static bool printf_like(builtin_t *b) { return b && (b->flags & (BF_PRINTF | BF_FPRINTF | BF_SPRINTF | BF_SNPRINTF)); }

/* A device-side name (a __constant__/__device__ variable, a kernel) given
 * to a CUDA API call, e.g. cudaMemcpyToSymbol(coef, ...): the host does not
 * know it, so it travels as its name, a string. */
static node_t *device_name_arg(P *p) {
    token_t *t = TOK;
    if (t->kind != TK_IDENT || lookup(p, t)) return NULL;
    token_t *nx = PEEK(1);
    if (nx->kind != TK_PUNCT || (nx->id != P_COMMA && nx->id != P_RPAREN)) return NULL;
    char nb[128];
    snprintf(nb, sizeof nb, "%.*s", t->n, t->s);
    if (hmap_get(&p->in->builtins, nb)) return NULL;
    p->i++;
    char *s = palloc(p, (size_t)t->n + 1);
    memcpy(s, t->s, (size_t)t->n);
    s[t->n] = 0;
    uint32_t slot = buf_new(s, (uint64_t)t->n + 1, PLACE_STRLIT, NULL, &t->loc);
    if (!slot) type_error(&t->loc, "too many buffers");
    g_bufs[slot].owner = p->in->id;
    node_t *n = mk_const(&t->loc, ty_ptr(ty_const(&ty_char)), (val_t){.u = ptr_make(slot, 0)});
    n->str = s;
    return n;
}

static node_t *call(P *p, node_t *fn, loc_t *l0) {
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
        extern node_t *mk_gpu_call(loc_t *l, const char *name, node_t **args, int n);
        return mk_gpu_call(&l, fn->p, args, n);
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
    }
    if (n < fty->nparams || (n > fty->nparams && !fty->variadic))
        type_error(&l, "too %s arguments to function '%s': expected %d, got %d", n < fty->nparams ? "few" : "many",
                   fname, fty->nparams, n);
    for (int i = 0; i < n; i++) {
        char what[160];
        snprintf(what, sizeof what, "argument %d of %s", i + 1, fname);
        if (i < fty->nparams) {
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
        if (printf_like(bi)) {
            int fi = bi->flags & BF_FPRINTF ? 1 : bi->flags & BF_SPRINTF ? 1 : bi->flags & BF_SNPRINTF ? 2 : 0;
            printf_check(c, fi, bi->name);
        }
    } else if (fptr) c = mk_callptr(&l, fptr, fty, args, n, tempoff);
    else c = mk_call(&l, fn->p, fty, args, n, tempoff);
    return c;
}

static node_t *dim3_literal(P *p, loc_t *l, node_t **vals, int n);

static node_t *launch(P *p, node_t *k, loc_t *l0) {
    /* k<<<grid, block[, shmem[, stream]]>>>(args) */
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
    extern node_t *mk_launch(loc_t *l, const char *name, node_t **cfg, int nc, node_t **args, int n);
    return mk_launch(&l, k->p, cfg, nc, args, n);
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
        if (t->id == KW_TRUE || t->id == KW_FALSE) { p->i++; return mk_int(&l, &ty_int, t->id == KW_TRUE); }
        if (t->id == KW_NULLPTR) { p->i++; return mk_const(&l, ty_ptr(&ty_void), (val_t){.u = 0}); }
        break;
    case TK_PUNCT:
        if (t->id == P_LPAREN) {
            p->i++;
            node_t *e = expr(p);
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
        if (is_p(p, P_LAUNCH_OPEN)) {
            node_t *k = funcdesig(&l, &ty_void, FD_KERNEL, pstr(p, t));
            return k;
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
                if (s->is_vla) return pl_vla(&l, s->ty, s->slot);
                if (s->addressable) {
                    node_t *n = pl_frame(&l, s->ty, s->memoff, s->hidx);
                    return n;
                }
                return pl_slot(&l, s->ty, s->slot);
            case S_VAR_GLOBAL: return pl_global(&l, s->gv);
            case S_ENUMC: return mk_int(&l, &ty_int, s->ival);
            case S_FUNC: return funcdesig(&l, s->ty, FD_USER, fbox_get(p, s->name));
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
                syntax_error(&l, "unexpected type name '%.*s'", t->n, t->s);
            }
        }
        char nb[128];
        snprintf(nb, sizeof nb, "%.*s", t->n, t->s);
        builtin_t *b = hmap_get(&p->in->builtins, nb);
        if (b) return funcdesig(&l, b->ty, FD_BUILTIN, b);
        if (is_p(p, P_LPAREN) && (!strncmp(nb, "cuda", 4) || !strncmp(nb, "cublas", 6) || !strncmp(nb, "curand", 6) ||
                                  !strncmp(nb, "cu", 2)))
            return funcdesig(&l, &ty_int, FD_GPUAPI, pstr(p, t));
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

static bool has_vla(type_t *t);
static node_t *vla_elems(P *p, type_t *t, loc_t *l, type_t **elem);
static node_t *postfix(P *p) {
    loc_t l0 = TOK->loc;
    node_t *e = primary(p);
    for (;;) {
        if (e->op == FD_KERNEL && e->ty->kind == T_VOID && !e->is_place && is_p(p, P_LAUNCH_OPEN)) {
            p->i++;
            e = launch(p, e, &l0);
            continue;
        }
        if (accept(p, P_LBRACK)) {
            node_t *idx = rvalue(p, expr(p));
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
            e = call(p, e, &l0);
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
        return e;
    }
}

/* Arrays with a variable dimension below the first (double m[r][c]): their
 * element counts live in slots (vla_slot, set at the declaration) or, for a
 * parameter's type, are its length expression over earlier parameters. */
static bool has_vla(type_t *t) {
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

static node_t *compound_literal(P *p, type_t *t, loc_t *l0);

static node_t *unary(P *p) {
    token_t *t = TOK;
    loc_t l0 = t->loc;
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
        if (is_p(p, P_LPAREN) && is_type_start(p, PEEK(1))) {
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

static node_t *cast_expr(P *p) {
    if (is_p(p, P_LPAREN) && is_type_start(p, PEEK(1))) {
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
                    node_t *idx = mk_cast(rvalue(p, expr(p)), &ty_long);
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
    return unary(p);
}


static node_t *binexpr(P *p, int minp) {
    loc_t l0 = TOK->loc;
    node_t *l = cast_expr(p);
    for (;;) {
        token_t *t = TOK;
        int pr = binary_precedence(t);
        if (pr < minp) return l;
        p->i++;
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
    node_t *a = rvalue(p, expr(p));
    expect(p, P_COLON, "':'");
    node_t *b = rvalue(p, cond_expr(p));
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

static node_t *assign_to(P *p, node_t *lhs, node_t *rhs, loc_t *l, const char *what) {
    node_t *c = conv_assign(p, rhs, lhs->ty, what);
    if (!c) { /* dim3 = integer */
        node_t *v[1] = {rhs};
        c = mk_load(dim3_literal(p, &rhs->loc, v, 1));
    }
    return mk_assign(l, lhs, c);
}

static node_t *assign_expr(P *p) {
    loc_t l0 = TOK->loc;
    node_t *lhs = cond_expr(p);
    int op = assign_op(TOK);
    if (op < 0) return lhs;
    token_t *ot = TOK;
    p->i++;
    node_t *rhs = assign_expr(p);
    loc_t l = from(p, &l0);
    char opn[8];
    snprintf(opn, sizeof opn, "'%.*s'", ot->n, ot->s);
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

static node_t *expr(P *p) {
    loc_t l0 = TOK->loc;
    node_t *e = assign_expr(p);
    while (accept(p, P_COMMA)) {
        node_t *r = assign_expr(p);
        loc_t l = from(p, &l0);
        e = mk_comma(&l, rvalue(p, e), rvalue(p, r));
    }
    return e;
}

/* ---------------- initializers ---------------- */
typedef struct ilist { node_t **v; int n, cap; } ilist_t;
static void iadd(ilist_t *o, node_t *s) { vadd(&o->v, &o->n, &o->cap, s); }
static void init_elem(P *p, node_t *pl, type_t *t, ilist_t *o);

static bool is_dim3(type_t *t) { return ty_dim3 && (t->kind == T_STRUCT) && t->sd == ty_dim3->sd; }

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

static void init_array(P *p, node_t *pl, type_t *t, bool braced, ilist_t *o) {
    if (TOK->kind == TK_STR && t->base->size == 1 && ty_is_int(t->base)) {
        init_string(p, pl, t, o);
        if (braced) { accept(p, P_COMMA); expect(p, P_RBRACE, "'}'"); }
        return;
    }
    int64_t idx = 0;
    int64_t count = t->count;
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
        node_t *el = pl_index(&TOK->loc, t->base, pl, mk_int(&TOK->loc, &ty_long, idx));
        init_elem(p, el, t->base, o);
        idx++;
        if (!braced && count >= 0 && idx >= count) return; /* the parent takes the comma */
        if (!braced && is_p(p, P_COMMA) && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_RBRACE) return;
        if (!accept(p, P_COMMA)) break;
    }
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

static void init_elem(P *p, node_t *pl, type_t *t, ilist_t *o) {
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
            if (d == 2 && k->id == P_LBRACE) item = true;
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
static node_t *compound_literal(P *p, type_t *t, loc_t *l0) {
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

static node_t *dim3_literal(P *p, loc_t *l, node_t **vals, int n) {
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

static void skip_item(P *p) {
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
    if (p->nnewg == p->capnewg) {
        p->capnewg = p->capnewg ? p->capnewg * 2 : 8;
        p->newg = realloc(p->newg, sizeof(gvar_t *) * (size_t)p->capnewg);
    }
    p->newg[p->nnewg++] = g;
    interp_t *in = p->in;
    if (in->ngvars == in->capgvars) {
        in->capgvars = in->capgvars ? in->capgvars * 2 : 16;
        in->gvars = realloc(in->gvars, sizeof(gvar_t *) * (size_t)in->capgvars);
    }
    in->gvars[in->ngvars++] = g;
    if (hidden) g->committed = true;
    return g;
}

static void func_def(P *p, type_t *ft, token_t *name, const char **pnames);

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
    if (!ptr) rt_error(n, "out of memory for %s", g->name);
    g->bslot = ptr_slot(ptr);
    g->addr = g_bufs[g->bslot].base;
    g->committed = true;
    if (in->ngvars == in->capgvars) {
        in->capgvars = in->capgvars ? in->capgvars * 2 : 16;
        in->gvars = realloc(in->gvars, sizeof(gvar_t *) * (size_t)in->capgvars);
    }
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
static void declaration(P *p, type_t *base, int storage, bool global, ilist_t *o) {
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
        char *name = pstr(p, nm);
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
            if (t->kind == T_VOID) type_error(&l, "variable '%s' declared void", name);
            bool has_init = accept(p, P_ASSIGN);
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
                }
                /* the initializer sees the variable (int x = sizeof x), so add it first */
                scope_add(p, s);
            }
            ilist_t io = {0};
            if (has_init) initializer(p, pl, t, &io);
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

/* ---------------- statements ---------------- */
static node_t *block(P *p, loc_t *l0) {
    /* after '{' */
    scope_push(p);
    p->f->blockdepth++;
    ilist_t o = {0};
    while (!accept(p, P_RBRACE)) {
        if (TOK->kind == TK_EOF) syntax_error(&TOK->loc, "expected '}' at the end of the cell (a '{' is not closed)");
        if (is_type_start(p, TOK) && !(is_typedef_name(p, TOK) && PEEK(1)->kind == TK_PUNCT &&
                                        (PEEK(1)->id == P_LPAREN && is_dim3(lookup(p, TOK)->ty)))) {
            int st;
            bool skip;
            type_t *b = decl_specs(p, &st, &skip);
            if (skip) { skip_item(p); continue; }
            if (accept(p, P_SEMI)) continue;
            declaration(p, b, st, false, &o);
            continue;
        }
        iadd(&o, stmt(p));
    }
    p->f->blockdepth--;
    scope_pop(p);
    return st_block(l0, o.v, o.n);
}

static node_t *cond_of(P *p) {
    expect(p, P_LPAREN, "'('");
    node_t *c = rvalue(p, expr(p));
    expect(p, P_RPAREN, "')'");
    need_scalar(c, "a condition");
    return c;
}

static node_t *loop_body(P *p) {
    p->f->loops++;
    swctx_t *sw = p->f->sw;
    node_t *b = stmt(p);
    p->f->sw = sw;
    p->f->loops--;
    return b;
}

static node_t *switch_stmt(P *p, loc_t *l0) {
    node_t *c = cond_of(p);
    if (!ty_is_int(c->ty)) type_error(&c->loc, "switch needs an integer, not %s", tyname(c->ty));
    c = mk_cast(c, ty_promote(c->ty));
    swctx_t sw = {0};
    sw.def = -1;
    swctx_t *outer = p->f->sw;
    p->f->sw = &sw;
    if (!is_p(p, P_LBRACE)) syntax_error(&TOK->loc, "the body of a switch must be a { block }");
    loc_t bl = TOK->loc;
    p->i++;
    scope_push(p);
    p->f->blockdepth++;
    sw.depth = p->f->blockdepth;
    ilist_t o = {0};
    p->f->loops += 1000; /* break is allowed */
    while (!accept(p, P_RBRACE)) {
        if (TOK->kind == TK_EOF) syntax_error(&TOK->loc, "expected '}'");
        if (is_type_start(p, TOK)) {
            int st;
            bool skip;
            type_t *b = decl_specs(p, &st, &skip);
            if (accept(p, P_SEMI)) continue;
            declaration(p, b, st, false, &o);
            continue;
        }
        while (is_kw(p, KW_CASE) || is_kw(p, KW_DEFAULT)) {
            loc_t cl = TOK->loc;
            if (accept(p, KW_DEFAULT)) {
                if (sw.def >= 0) syntax_error(&cl, "multiple default labels in one switch");
                sw.def = o.n;
            } else {
                p->i++;
                node_t *v = mk_cast(const_expr(p), c->ty);
                int64_t cv = const_int(p, v, "a case label");
                for (int i = 0; i < sw.n; i++)
                    if (sw.vals[i] == cv) type_error(&v->loc, "duplicate case value %" PRId64, cv);
                if (sw.n == sw.cap) {
                    sw.cap = sw.cap ? sw.cap * 2 : 16;
                    sw.vals = realloc(sw.vals, sizeof(int64_t) * (size_t)sw.cap);
                    sw.idx = realloc(sw.idx, sizeof(int) * (size_t)sw.cap);
                }
                sw.vals[sw.n] = cv;
                sw.idx[sw.n++] = o.n;
            }
            expect(p, P_COLON, "':'");
        }
        if (is_p(p, P_RBRACE)) continue;
        iadd(&o, stmt(p));
    }
    p->f->loops -= 1000;
    p->f->blockdepth--;
    scope_pop(p);
    p->f->sw = outer;
    node_t *body = st_block(&bl, o.v, o.n);
    body->sfn = NULL;
    node_t *r = st_switch(l0, c, body, sw.vals, sw.idx, sw.n, sw.def);
    free(sw.vals);
    free(sw.idx);
    return r;
}

static node_t *stmt(P *p) {
    token_t *t = TOK;
    loc_t l0 = t->loc;
    if (t->kind == TK_PUNCT && t->id == P_LBRACE) { p->i++; return block(p, &l0); }
    if (t->kind == TK_PUNCT && t->id == P_SEMI) { p->i++; return st_nop(&l0); }
    if (t->kind == TK_KW) {
        switch (t->id) {
        case KW_IF: {
            p->i++;
            node_t *c = cond_of(p);
            node_t *a = stmt(p);
            node_t *b = accept(p, KW_ELSE) ? stmt(p) : NULL;
            return st_if(&l0, c, a, b);
        }
        case KW_WHILE: {
            p->i++;
            node_t *c = cond_of(p);
            return st_while(&l0, c, loop_body(p));
        }
        case KW_DO: {
            p->i++;
            node_t *b = loop_body(p);
            if (!accept(p, KW_WHILE)) expected(p, "'while'");
            node_t *c = cond_of(p);
            expect(p, P_SEMI, "';'");
            return st_do(&l0, b, c);
        }
        case KW_FOR: {
            p->i++;
            expect(p, P_LPAREN, "'('");
            scope_push(p);
            node_t *init = NULL;
            if (is_type_start(p, TOK)) {
                int st;
                bool skip;
                type_t *b = decl_specs(p, &st, &skip);
                ilist_t o = {0};
                declaration(p, b, st, false, &o);
                init = st_block(&l0, o.v, o.n);
            } else if (!accept(p, P_SEMI)) {
                init = st_expr(rvalue(p, expr(p)));
                expect(p, P_SEMI, "';'");
            }
            node_t *c = NULL, *step = NULL;
            if (!is_p(p, P_SEMI)) { c = rvalue(p, expr(p)); need_scalar(c, "a loop condition"); }
            expect(p, P_SEMI, "';'");
            if (!is_p(p, P_RPAREN)) step = expr(p);
            expect(p, P_RPAREN, "')'");
            node_t *body = loop_body(p);
            scope_pop(p);
            return st_for(&l0, init, c, step, body);
        }
        case KW_SWITCH: p->i++; return switch_stmt(p, &l0);
        case KW_BREAK:
            p->i++;
            if (!p->f->loops) syntax_error(&l0, "break statement not within a loop or switch");
            expect(p, P_SEMI, "';'");
            return st_jump(&l0, X_BREAK);
        case KW_CONTINUE:
            p->i++;
            if (p->f->loops % 1000 == 0) syntax_error(&l0, "continue statement not within a loop");
            expect(p, P_SEMI, "';'");
            return st_jump(&l0, X_CONTINUE);
        case KW_RETURN: {
            p->i++;
            node_t *e = NULL;
            type_t *rt = p->f->ret;
            if (!is_p(p, P_SEMI)) {
                e = expr(p);
                loc_t el = e->loc;
                if (rt->kind == T_VOID) {
                    if (e->ty->kind != T_VOID) type_error(&el, "a void function cannot return a value");
                    e = rvalue(p, e);
                } else {
                    node_t *c = conv_assign(p, (e->ty->kind == T_FUNC && e->op == FD_USER) ? e : rvalue(p, e), rt, "return value");
                    if (!c) { node_t *v[1] = {rvalue(p, e)}; c = mk_load(dim3_literal(p, &el, v, 1)); }
                    e = c;
                }
            } else if (rt->kind != T_VOID && !p->f->is_cell)
                type_error(&l0, "a function returning %s must return a value", tyname(rt));
            expect(p, P_SEMI, "';'");
            loc_t l = from(p, &l0);
            return st_return(&l, e, rt);
        }
        case KW_CASE: case KW_DEFAULT:
            syntax_error(&l0, "case label not directly inside a switch body");
        case KW_GOTO:
            syntax_error(&l0, "goto is not supported by the interpreter");
        case KW_ELSE:
            syntax_error(&l0, "'else' without a previous 'if'");
        case KW_STATIC_ASSERT: {
            p->i++;
            expect(p, P_LPAREN, "'('");
            node_t *c = const_expr(p);
            int64_t v = const_int(p, c, "static_assert");
            if (accept(p, P_COMMA)) str_literal(p);
            expect(p, P_RPAREN, "')'");
            expect(p, P_SEMI, "';'");
            if (!v) type_error(&l0, "static assertion failed");
            return st_nop(&l0);
        }
        }
    }
    if (t->kind == TK_IDENT && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_COLON) { /* a label */
        p->i += 2;
        if (is_p(p, P_RBRACE)) return st_nop(&l0);
        return stmt(p);
    }
    node_t *e = expr(p);
    if (!is_p(p, P_SEMI)) expected(p, "';'");
    p->i++;
    if (e->ty->kind == T_FUNC && !e->is_place) {
        char b[100];
        type_error(&e->loc, "'%s' is a function; call it with ()", loc_text(&e->loc, b, sizeof b));
    }
    /* a CUDA call whose cudaError_t is thrown away: its failure is the cell's (DESIGN §4) */
    extern void gpu_call_mark_discarded(node_t *);
    gpu_call_mark_discarded(e);
    return st_expr(e->is_place ? rvalue(p, e) : e);
}

/* ---------------- functions ---------------- */
static void func_def(P *p, type_t *ft, token_t *name, const char **pnames) {
    char *nm = pstr(p, name);
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
    hmap_put(&p->cell, nm, s);
    fbox_t *box = fbox_get(p, nm);
    (void)box;
    if (ty_is_aggr(ft->base) && ft->base->kind != T_ARRAY && !ft->base->sd->complete)
        type_error(&name->loc, "return type %s is incomplete", tyname(ft->base));
    fctx_t fc = {0};
    fc.fn = fn;
    fc.ret = ft->base;
    fc.up = p->f;
    fctx_t *saved = p->f;
    p->f = &fc;
    int saved_marks = p->nmarks;
    scope_push(p);
    fn->nparams = ft->nparams;
    fn->pslot = palloc(p, sizeof(int) * (size_t)(ft->nparams + 1));
    fn->pmem = palloc(p, sizeof(int64_t) * (size_t)(ft->nparams + 1));
    for (int i = 0; i < ft->nparams; i++) {
        type_t *pt = ft->params[i];
        sym_t *ps = palloc(p, sizeof *ps);
        ps->name = pnames && pnames[i] ? pnames[i] : "";
        ps->kind = S_VAR_LOCAL;
        ps->ty = pt;
        if (ty_is_aggr(pt) || (pnames && pnames[i] && name_addressed(p, pnames[i]))) {
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
                    type_error(&name->loc, "variable-length array parameter '%s' of %s: its size must come from "
                               "earlier parameters that are not addressed (&) and not structs",
                               ps->name, nm);
        if (pnames && pnames[i]) scope_add(p, ps);
    }
    loc_t bl = TOK->loc;
    expect(p, P_LBRACE, "'{'");
    fn->body = block(p, &bl);
    scope_pop(p);
    (void)saved_marks;
    fn->nslots = fc.nslots;
    fn->memsize = fc.memsize;
    fn->mem = fc.mem;
    fn->nmem = fc.nmem;
    p->f = saved;
    pend(p, PEND_FUNC, nm, fn, s);
}

/* ---------------- the cell ---------------- */
static void scan_addressed(P *p) {
    for (int i = 0; i + 1 < p->n; i++) {
        token_t *t = &p->t[i];
        if (t->kind != TK_PUNCT || t->id != P_AMP) continue;
        token_t *pr = i ? &p->t[i - 1] : NULL;
        bool binary = pr && (pr->kind == TK_IDENT || pr->kind == TK_INT || pr->kind == TK_FLOAT ||
                             pr->kind == TK_CHAR || pr->kind == TK_STR ||
                             (pr->kind == TK_PUNCT && (pr->id == P_RPAREN || pr->id == P_RBRACK)));
        if (binary) continue;
        int j = i + 1;
        while (j < p->n && p->t[j].kind == TK_PUNCT && p->t[j].id == P_LPAREN) j++;
        if (p->t[j].kind == TK_IDENT) {
            char *nm = pstr(p, &p->t[j]);
            hmap_put(&p->addressed, nm, (void *)1);
        }
    }
}

static void commit(P *p) {
    interp_t *in = p->in;
    for (int i = 0; i < p->npend; i++) {
        pending_t *q = &p->pend[i];
        switch (q->kind) {
        case PEND_TAG: hmap_put(&in->tags, q->name, q->a); break;
        case PEND_TYPEDEF: case PEND_ENUMC: hmap_put(&in->globals, q->name, q->a); break;
        case PEND_FUNC: {
            fbox_t *b = fbox_get(p, q->name);
            b->cur = q->a;
            hmap_put(&in->globals, q->name, q->b);
            break;
        }
        case PEND_PROTO: {
            sym_t *old = hmap_get(&in->globals, q->name);
            sym_t *cur = hmap_get(&p->cell, q->name);
            if (cur && cur != q->a) break; /* defined in this cell too */
            if (!old || old->kind != S_FUNC || !ty_same(old->ty, ((sym_t *)q->a)->ty)) hmap_put(&in->globals, q->name, q->a);
            break;
        }
        }
    }
}

static void top_item(P *p) {
    token_t *t = TOK;
    if (accept(p, P_SEMI)) return;
    if (t->kind == TK_IDENT && ((t->n == 8 && !memcmp(t->s, "template", 8)) || (t->n == 9 && !memcmp(t->s, "namespace", 9)) ||
                                (t->n == 5 && !memcmp(t->s, "using", 5)))) {
        skip_item(p);
        return;
    }
    if (is_type_start(p, t) && !(is_typedef_name(p, t) && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_LPAREN &&
                                 is_dim3(lookup(p, t)->ty))) {
        int st;
        bool skip;
        type_t *b = decl_specs(p, &st, &skip);
        if (skip) { skip_item(p); return; }
        if (accept(p, P_SEMI)) return;
        ilist_t o = {0};
        declaration(p, b, st, true, &o);
        for (int i = 0; i < o.n; i++) vadd(&p->top, &p->ntop, &p->captop, o.v[i]);
        return;
    }
    /* a statement; an expression without ';' at the very end is the cell's value */
    bool exprstart = !(t->kind == TK_KW && t->id != KW_SIZEOF && t->id != KW_TRUE && t->id != KW_FALSE &&
                       t->id != KW_NULLPTR && t->id != KW_ALIGNOF) &&
                     !(t->kind == TK_PUNCT && (t->id == P_LBRACE)) &&
                     !(t->kind == TK_IDENT && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_COLON);
    if (exprstart) {
        node_t *e = expr(p);
        if (TOK->kind == TK_EOF) {
            if (e->ty->kind == T_FUNC && !e->is_place) {
                char b[100];
                type_error(&e->loc, "'%s' is a function; call it with ()", loc_text(&e->loc, b, sizeof b));
            }
            p->value = e;
            return;
        }
        if (p->expr_only) expected(p, "the end of the expression");
        if (!is_p(p, P_SEMI)) expected(p, "';'");
        p->i++;
        if (e->ty->kind == T_FUNC && !e->is_place) {
            char b[100];
            type_error(&e->loc, "'%s' is a function; call it with ()", loc_text(&e->loc, b, sizeof b));
        }
        extern void gpu_call_mark_discarded(node_t *);
        gpu_call_mark_discarded(e);
        vadd(&p->top, &p->ntop, &p->captop, st_expr(e->is_place ? rvalue(p, e) : e));
        return;
    }
    if (p->expr_only) expected(p, "an expression");
    vadd(&p->top, &p->ntop, &p->captop, stmt(p));
}

static void p_cleanup(P *p) {
    free(p->scope);
    free(p->marks);
    free(p->pend);
    hmap_free(&p->cell);
    hmap_free(&p->ctags);
    hmap_free(&p->addressed);
}

static P *g_p; /* the parse in progress, for cleanup after a longjmp */

void parse_abort_cleanup(void) {
    if (!g_p) return;
    /* storage of variables this cell would have made */
    for (int i = 0; i < g_p->nnewg; i++) {
        gvar_t *g = g_p->newg[i];
        if (!g->committed && g->addr) {
            arena_free(g->addr);
            buf_kill(g->bslot, BUF_FREED);
            g->addr = NULL;
        }
    }
    free(g_p->newg);
    p_cleanup(g_p);
    free(g_p);
    g_p = NULL;
}

void parse_cell(interp_t *in, tokvec_t *toks, src_t *src, cell_code_t *out, bool expr_only) {
    P *p = calloc(1, sizeof *p);
    g_p = p;
    p->in = in;
    p->t = toks->v;
    p->n = toks->n;
    p->src = src;
    p->expr_only = expr_only;
    scan_addressed(p);
    fctx_t *cf = &p->cellctx;
    func_t *fn = palloc(p, sizeof *fn);
    fn->name = src->name;
    fn->ty = ty_func(&ty_void, 0, NULL, false);
    fn->defined = true;
    cf->fn = fn;
    cf->ret = &ty_void;
    cf->is_cell = true;
    p->f = p->cellf = cf;
    while (TOK->kind != TK_EOF) top_item(p);
    if (expr_only && !p->value) syntax_error(&TOK->loc, "expected an expression");
    loc_t l0 = {src, 1, 0, 0};
    out->value = p->value;
    if (p->value) {
        extern node_t *st_value(node_t *e);
        vadd(&p->top, &p->ntop, &p->captop, st_value(p->value));
    }
    fn->body = st_block(&l0, p->top, p->ntop);
    fn->nslots = cf->nslots;
    fn->memsize = cf->memsize;
    fn->mem = cf->mem;
    fn->nmem = cf->nmem;
    fn->loc = l0;
    out->fn = fn;
    out->newg = p->newg;
    out->nnewg = p->nnewg;
    p->newg = NULL;
    commit(p);
    p_cleanup(p);
    free(p);
    g_p = NULL;
}

/* Builtin prototypes, parsed by the same parser: "double sqrt(double);" */
void parse_prelude(interp_t *in) {
    extern const char *builtin_prototypes(void);
    src_t *src = src_new(in, "<builtin>", builtin_prototypes());
    tokvec_t tv = {0};
    lex_cell(in, src, &tv);
    P pp = {0}, *p = &pp;
    p->in = in;
    p->t = tv.v;
    p->n = tv.n;
    p->src = src;
    fctx_t cf = {0};
    p->f = p->cellf = &cf;
    while (TOK->kind != TK_EOF) {
        int st;
        bool skip;
        type_t *b = decl_specs(p, &st, &skip);
        if (!b) expected(p, "a declaration");
        if (accept(p, P_SEMI)) continue;
        if (st == KW_TYPEDEF) {
            ilist_t o = {0};
            declaration(p, b, st, true, &o);
            continue;
        }
        token_t *nm = NULL;
        type_t *t = declarator(p, b, &nm);
        expect(p, P_SEMI, "';'");
        char nb[64];
        snprintf(nb, sizeof nb, "%.*s", nm->n, nm->s);
        builtin_t *bi = hmap_get(&in->builtins, nb);
        if (!bi) { fprintf(stderr, "icuda: builtin %s has no implementation\n", nb); continue; }
        bi->ty = t;
    }
    /* the prelude's typedefs become session types */
    for (int i = 0; i < p->npend; i++) {
        pending_t *q = &p->pend[i];
        if (q->kind == PEND_TYPEDEF || q->kind == PEND_ENUMC) hmap_put(&in->globals, q->name, q->a);
        if (q->kind == PEND_TAG) hmap_put(&in->tags, q->name, q->a);
    }
    sym_t *d = hmap_get(&in->globals, "dim3");
    if (d) ty_dim3 = d->ty;
    sym_t *f = hmap_get(&in->globals, "FILE");
    if (f) ty_file = f->ty;
    sym_t *sz = hmap_get(&in->globals, "size_t");
    if (sz) ty_size_t = sz->ty;
    p_cleanup(p);
}
