/* Declaration specifiers, struct/union/enum definitions and declarators:
 * the C types a declaration names. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_internal.h"
#include "cxx_class.h"

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

/* __attribute__((aligned(N))) of a struct (vector_types.h: float4 is
 * 16-byte aligned): the largest N asked for, 0 if none; other attributes
 * are skipped. */
/* NAME(N) at the token: N read, *al raised to it. */
static void alignment_of(P *p, size_t *al) {
    p->i += 2;
    int64_t v = const_int(p, const_expr(p), "an alignment");
    if (v > 0 && (size_t)v > *al) *al = (size_t)v;
    expect(p, P_RPAREN, "')'");
}

static size_t attribute_align(P *p) {
    size_t al = 0;
    /* CUDA's __align__(N) and C++'s alignas(N) ask the same */
    while (TOK->kind == TK_IDENT && ((TOK->n == 9 && !memcmp(TOK->s, "__align__", 9)) ||
                                     (TOK->n == 7 && !memcmp(TOK->s, "alignas", 7))) &&
           PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_LPAREN)
        alignment_of(p, &al);
    while (TOK->kind == TK_IDENT && TOK->n == 13 && memcmp(TOK->s, "__attribute__", 13) == 0) {
        p->i++;
        expect(p, P_LPAREN, "'('");
        int d = 1;
        while (d > 0 && TOK->kind != TK_EOF) {
            if (d == 2 && TOK->kind == TK_IDENT && ((TOK->n == 7 && !memcmp(TOK->s, "aligned", 7)) ||
                                                    (TOK->n == 11 && !memcmp(TOK->s, "__aligned__", 11))) &&
                PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_LPAREN) {
                alignment_of(p, &al);
                continue;
            }
            if (is_p(p, P_LPAREN)) d++;
            if (is_p(p, P_RPAREN)) d--;
            p->i++;
        }
    }
    return al;
}

/* The next member of a struct or union being laid out: C's offsets (each
 * member aligned after the last; all at 0 in a union), the running size and
 * alignment updated. A flexible array member takes no room. */
field_t field_layout(P *p, token_t *nm, type_t *ft, bool is_union, bool flex, size_t *off, size_t *size, size_t *align) {
    size_t a = ft->align ? ft->align : 1;
    field_t f = {nm ? pstr(p, nm) : NULL, ft, 0};
    if (is_union) {
        if (ft->size > *size) *size = ft->size;
    } else {
        *off = (*off + a - 1) / a * a;
        f.off = *off;
        *off += flex ? 0 : ft->size;
    }
    if (a > *align) *align = a;
    return f;
}

static type_t *struct_spec_inner(P *p, bool is_union);
static type_t *struct_spec(P *p, bool is_union) {
    nest_enter(p);
    type_t *t = struct_spec_inner(p, is_union);
    nest_leave(p);
    return t;
}

static type_t *struct_spec_inner(P *p, bool is_union) {
    loc_t l0 = TOK->loc;
    size_t want_align = attribute_align(p);
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
            fs[nf] = field_layout(p, nm, ft, is_union, flex, &off, &size, &align);
            nf++;
        } while (accept(p, P_COMMA));
        expect(p, P_SEMI, "';'");
    }
    size_t after = attribute_align(p);
    if (after > want_align) want_align = after;
    if (want_align > align) align = want_align;
    if (!is_union) size = off;
    size = (size + align - 1) / align * align;
    sd->fields = fs;
    sd->nfields = nf;
    sd->complete = true;
    t->size = size;
    t->align = align;
    cxx_tag_type(p, t); /* C++: the tag is a type name */
    return t;
}

static type_t *enum_spec(P *p) {
    const char *tag = NULL;
    /* C++: enum class / enum struct: its enumerators are named Tag::Name */
    bool scoped = accept(p, KW_STRUCT);
    if (TOK->kind == TK_IDENT) { tag = pstr(p, TOK); p->i++; }
    if (scoped && !tag) expected(p, "the scoped enumeration's name");
    type_t *t = ty_copy(&ty_int);
    if (accept(p, P_COLON)) { /* C++: enum E : unsigned char {...}, the underlying type */
        int st;
        bool skip;
        type_t *u = decl_specs(p, &st, &skip);
        if (!u || !ty_is_int(u) || u->is_enum) type_error(&TOK->loc, "an enumeration's underlying type must be an integer type");
        t = ty_copy(ty_unqual(u));
    }
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
        /* the value must fit the enumeration's type (C: int): arithmetic on
         * the constant is checked as of that type, and would overflow */
        if (t->size < 8) {
            int bits = (int)t->size * 8;
            int64_t lo = t->is_unsigned ? 0 : -((int64_t)1 << (bits - 1));
            int64_t hi = t->is_unsigned ? ((int64_t)1 << bits) - 1 : ((int64_t)1 << (bits - 1)) - 1;
            if (v < lo || v > hi) {
                char tn[64];
                type_t base = *t;
                base.is_enum = false;
                base.enum_tag = NULL;
                type_error(&nm->loc, "enumerator value %" PRId64 " for '%s' is outside the range of '%s'", v,
                           pstr(p, nm), ty_name(&base, tn, sizeof tn));
            }
        }
        sym_t *s = palloc(p, sizeof *s);
        s->name = pstr(p, nm);
        if (scoped) {
            size_t l = strlen(tag) + strlen(s->name) + 3;
            char *q = palloc(p, l);
            snprintf(q, l, "%s::%s", tag, s->name);
            s->name = q;
        }
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
        cxx_enum_tag_type(p, t, tag); /* C++: enum color {...}; color c; */
    }
    return t;
}

/* declaration specifiers; NULL when the tokens do not start a declaration.
 * *skip_item: a device-only item (__global__, __device__ without __host__,
 * __constant__, __shared__) that the host does not run. */
type_t *decl_specs(P *p, int *storage, bool *skip_item) {
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
            base = cxx_type_after_name(p, base, &t->loc); /* C++: std::vector<float> */
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
        case KW_CONST: case KW_CONSTEXPR: cnst = true; break;
        case KW_EXPLICIT: case KW_MUTABLE: break;
        case KW_VOLATILE: case KW_RESTRICT: case KW_INLINE: case KW_REGISTER: case KW_FORCEINLINE:
        case KW_NOINLINE:
            break;
        case KW_AUTO: /* C++: a type deduced from the initialiser (C's storage class otherwise) */
            if (!base && !(PEEK(1)->kind == TK_KW && (PEEK(1)->id == KW_INT || PEEK(1)->id == KW_LONG ||
                                                      PEEK(1)->id == KW_CHAR || PEEK(1)->id == KW_SHORT ||
                                                      PEEK(1)->id == KW_UNSIGNED || PEEK(1)->id == KW_SIGNED ||
                                                      PEEK(1)->id == KW_FLOAT || PEEK(1)->id == KW_DOUBLE)))
                base = &ty_auto;
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
            if (cxx_struct_is_class(p)) base = cxx_class_spec(p, t->id == KW_UNION, t->n == 5); /* C++ members */
            else base = struct_spec(p, t->id == KW_UNION);
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
                node_t *e = expression(p);
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

type_t *params(P *p, type_t *ret, const char ***names) {
    /* after '(' */
    int cap = 8, n = 0;
    type_t **ps = palloc(p, sizeof(type_t *) * (size_t)cap);
    const char **nm = palloc(p, sizeof(char *) * (size_t)cap);
    node_t **defs = NULL;
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
        if (accept(p, P_ASSIGN)) { /* C++ default argument */
            node_t *d = rvalue(p, assign_expr(p));
            if (!defs) defs = palloc(p, sizeof(node_t *) * (size_t)(cap > 64 ? cap : 64));
            if (n >= 64) type_error(&d->loc, "too many parameters with default values");
            defs[n] = d;
        } else if (defs && n < 64)
            type_error(&TOK->loc, "a parameter without a default value follows one with a default");
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
    ft->defaults = defs;
    if (names) *names = nm;
    return ft;
}

static type_t *suffix_inner(P *p, type_t *t);
static type_t *suffix(P *p, type_t *t) {
    nest_enter(p);
    t = suffix_inner(p, t);
    nest_leave(p);
    return t;
}

static type_t *suffix_inner(P *p, type_t *t) {
    if (accept(p, P_LPAREN)) {
        type_t *ft = params(p, t, NULL);
        if (t->kind == T_ARRAY || t->kind == T_FUNC) type_error(&TOK->loc, "a function cannot return an array or a function");
        return ft;
    }
    if (accept(p, P_LBRACK)) {
        while (is_kw(p, KW_STATIC) || is_kw(p, KW_CONST) || is_kw(p, KW_RESTRICT)) p->i++;
        node_t *len = NULL;
        loc_t l = TOK->loc;
        if (!is_p(p, P_RBRACK)) {
            bool was = p->iconst;
            p->iconst = true; /* C++: const int n = 5; int a[n] is an array, not a VLA */
            len = rvalue(p, assign_expr(p));
            p->iconst = was;
        }
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

static type_t *declarator_inner(P *p, type_t *t, token_t **name);
type_t *declarator(P *p, type_t *t, token_t **name) {
    int nest0 = p->nest; /* each '*' makes the type one deeper */
    nest_enter(p);
    t = declarator_inner(p, t, name);
    p->nest = nest0;
    return t;
}

static type_t *declarator_inner(P *p, type_t *t, token_t **name) {
    skip_attribute(p);
    if (is_kw(p, KW_OPERATOR)) /* float3 operator+(float3 a, float3 b) */
        cxx_not_interpreted(&TOK->loc, "operator overloading (a free operator function)");
    while (is_p(p, P_STAR) || is_p(p, P_AMP) || is_p(p, P_LAND)) {
        nest_enter(p);
        bool ref = !is_p(p, P_STAR);
        if (ref && t->is_ref) type_error(&TOK->loc, "a reference to a reference");
        p->i++;
        t = ref ? ty_ref(t) : ty_ptr(t);
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
        if (cxx_declarator_ctor(p, t)) return t; /* Matrix m(3, 4): a constructor */
    }
    return suffix(p, t);
}

type_t *abstract_type(P *p) {
    int st;
    bool skip;
    type_t *b = decl_specs(p, &st, &skip);
    if (!b) expected(p, "a type name");
    token_t *nm = NULL;
    type_t *t = declarator(p, b, &nm);
    if (nm) syntax_error(&nm->loc, "unexpected name '%.*s' in a type name", nm->n, nm->s);
    return t;
}
