/* C's types as x86-64 gcc lays them out: sizes, promotions, the usual
 * arithmetic conversions, compatibility, and how a type is spelled in
 * messages and value displays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "runtime/base/strbuf.h"

#define BT(nm, k, sz, u) type_t nm = {.kind = k, .size = sz, .align = sz ? sz : 1, .is_unsigned = u}
BT(ty_void, T_VOID, 0, 0);
BT(ty_bool, T_BOOL, 1, 1);
BT(ty_char, T_CHAR, 1, 0);
BT(ty_schar, T_SCHAR, 1, 0);
BT(ty_uchar, T_UCHAR, 1, 1);
BT(ty_short, T_SHORT, 2, 0);
BT(ty_ushort, T_USHORT, 2, 1);
BT(ty_int, T_INT, 4, 0);
BT(ty_uint, T_UINT, 4, 1);
BT(ty_long, T_LONG, 8, 0);
BT(ty_ulong, T_ULONG, 8, 1);
BT(ty_llong, T_LLONG, 8, 0);
BT(ty_ullong, T_ULLONG, 8, 1);
BT(ty_float, T_FLOAT, 4, 0);
BT(ty_double, T_DOUBLE, 8, 0);
type_t ty_ldouble = {.kind = T_LDOUBLE, .size = 16, .align = 16};

/* Types are small and made while compiling; they live as long as the process
 * needs them (a session's functions keep referring to them). */
static type_t *tnew(void) {
    return pool_alloc(&g_in->pool, sizeof(type_t));
}

type_t *ty_copy(type_t *t) {
    type_t *n = tnew();
    *n = *t;
    return n;
}

type_t *ty_ptr(type_t *base) {
    type_t *t = tnew();
    t->kind = T_PTR;
    t->size = t->align = 8;
    t->is_unsigned = true;
    t->base = base;
    return t;
}

type_t *ty_ref(type_t *base) {
    type_t *t = ty_ptr(base);
    t->is_ref = true;
    return t;
}

type_t ty_auto = {.kind = T_VOID, .name = "auto"};

type_t *ty_array(type_t *base, long n) {
    type_t *t = tnew();
    t->kind = T_ARRAY;
    t->base = base;
    t->count = n;
    t->size = n < 0 ? 0 : base->size * (size_t)n;
    t->align = base->align;
    return t;
}

type_t *ty_func(type_t *ret, int n, type_t **params, bool variadic) {
    type_t *t = tnew();
    t->kind = T_FUNC;
    t->base = ret;
    t->nparams = n;
    t->params = params;
    t->variadic = variadic;
    t->size = 1;
    t->align = 1;
    return t;
}

type_t *ty_const(type_t *t) {
    if (t->is_const) return t;
    type_t *n = ty_copy(t);
    n->is_const = true;
    return n;
}

type_t *ty_unqual(type_t *t) {
    if (!t->is_const) return t;
    type_t *n = ty_copy(t);
    n->is_const = false;
    return n;
}

bool ty_is_int(type_t *t) { return t->kind >= T_BOOL && t->kind <= T_ULLONG; }
bool ty_is_float(type_t *t) { return t->kind >= T_FLOAT && t->kind <= T_LDOUBLE; }
bool ty_is_arith(type_t *t) { return t->kind >= T_BOOL && t->kind <= T_LDOUBLE; }
bool ty_is_ptr(type_t *t) { return t->kind == T_PTR; }
bool ty_is_scalar(type_t *t) { return ty_is_arith(t) || t->kind == T_PTR; }
bool ty_is_aggr(type_t *t) { return t->kind == T_STRUCT || t->kind == T_UNION || t->kind == T_ARRAY; }

static int rank(type_t *t) {
    switch (t->kind) {
    case T_BOOL: return 0;
    case T_CHAR: case T_SCHAR: case T_UCHAR: return 1;
    case T_SHORT: case T_USHORT: return 2;
    case T_INT: case T_UINT: return 3;
    case T_LONG: case T_ULONG: return 4;
    case T_LLONG: case T_ULLONG: return 5;
    default: return 6;
    }
}

type_t *ty_promote(type_t *t) {
    if (ty_is_int(t) && rank(t) < 3) return &ty_int;
    if (t->is_enum) return t->is_unsigned ? &ty_uint : &ty_int;
    return t;
}

static type_t *plain(type_t *t) {
    switch (t->kind) {
    case T_INT: return &ty_int;
    case T_UINT: return &ty_uint;
    case T_LONG: return &ty_long;
    case T_ULONG: return &ty_ulong;
    case T_LLONG: return &ty_llong;
    case T_ULLONG: return &ty_ullong;
    case T_FLOAT: return &ty_float;
    case T_DOUBLE: return &ty_double;
    case T_LDOUBLE: return &ty_ldouble;
    default: return t;
    }
}

/* the usual arithmetic conversions */
type_t *ty_common(type_t *a, type_t *b) {
    if (a->kind == T_LDOUBLE || b->kind == T_LDOUBLE) return &ty_ldouble;
    if (a->kind == T_DOUBLE || b->kind == T_DOUBLE) return &ty_double;
    if (a->kind == T_FLOAT || b->kind == T_FLOAT) return &ty_float;
    a = plain(ty_promote(a));
    b = plain(ty_promote(b));
    if (a->kind == b->kind) return a;
    if (a->is_unsigned == b->is_unsigned) return rank(a) >= rank(b) ? a : b;
    type_t *u = a->is_unsigned ? a : b, *s = a->is_unsigned ? b : a;
    if (rank(u) >= rank(s)) return u;
    if (s->size > u->size) return s;
    switch (s->kind) {
    case T_LONG: return &ty_ulong;
    case T_LLONG: return &ty_ullong;
    default: return &ty_uint;
    }
}

int ty_opkind(type_t *t) {
    switch (t->kind) {
    case T_BOOL: case T_CHAR: case T_SCHAR: case T_UCHAR: case T_SHORT: case T_USHORT:
    case T_INT: return K_I32;
    case T_UINT: return K_U32;
    case T_LONG: case T_LLONG: return K_I64;
    case T_ULONG: case T_ULLONG: return K_U64;
    case T_FLOAT: return K_F32;
    case T_DOUBLE: case T_LDOUBLE: return K_F64;
    case T_PTR: return K_PTR;
    default: return K_NONE;
    }
}

bool ty_same(type_t *a, type_t *b) {
    if (a == b) return true;
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case T_PTR: return ty_same(a->base, b->base) && a->base->is_const == b->base->is_const && a->is_ref == b->is_ref;
    case T_ARRAY: return a->count == b->count && ty_same(a->base, b->base);
    case T_STRUCT: case T_UNION: return a->sd == b->sd;
    case T_FUNC:
        if (a->nparams != b->nparams || a->variadic != b->variadic || !ty_same(a->base, b->base))
            return false;
        for (int i = 0; i < a->nparams; i++)
            if (!ty_same(ty_unqual(a->params[i]), ty_unqual(b->params[i]))) return false;
        return true;
    default: return true;
    }
}

bool ty_compat_ptr(type_t *a, type_t *b) {
    if (a->kind == T_VOID || b->kind == T_VOID) return true;
    if (a->kind != b->kind) {
        /* char / signed char / unsigned char differ, but so do int/long: strict */
        return false;
    }
    switch (a->kind) {
    case T_PTR: return ty_compat_ptr(a->base, b->base);
    case T_ARRAY: return (a->count == b->count || a->count < 0 || b->count < 0 || a->vla || b->vla) &&
                         ty_compat_ptr(a->base, b->base);
    case T_STRUCT: case T_UNION: return a->sd == b->sd;
    case T_FUNC: /* a function of unspecified parameters (a kernel's value) goes with any of its return type */
        return a->oldstyle || b->oldstyle ? ty_same(a->base, b->base) : ty_same(a, b);
    default: return true;
    }
}

static const char *basic_name(type_t *t) {
    switch (t->kind) {
    case T_VOID: return "void";
    case T_BOOL: return "bool";
    case T_CHAR: return "char";
    case T_SCHAR: return "signed char";
    case T_UCHAR: return "unsigned char";
    case T_SHORT: return "short";
    case T_USHORT: return "unsigned short";
    case T_INT: return "int";
    case T_UINT: return "unsigned int";
    case T_LONG: return "long";
    case T_ULONG: return "unsigned long";
    case T_LLONG: return "long long";
    case T_ULLONG: return "unsigned long long";
    case T_FLOAT: return "float";
    case T_DOUBLE: return "double";
    case T_LDOUBLE: return "long double";
    default: return NULL;
    }
}

/* Spells a declaration of name with type t: the inside-out C syntax, whole
 * whatever the names' lengths (a template instance's key, a constant of the
 * device prelude). Caller frees. */
char *ty_decl_alloc(type_t *t, const char *name) {
    strbuf_t inner = {0};
    sb_puts(&inner, name ? name : "");
    for (;;) {
        if (t->name) break;
        if (t->kind == T_PTR) {
            bool paren = t->base->kind == T_ARRAY || t->base->kind == T_FUNC;
            strbuf_t w = {0};
            sb_printf(&w, "%s%s%s", paren ? "(" : "", t->is_ref ? "&" : "*", t->is_const ? "const " : "");
            sb_append(&w, inner.data, inner.len);
            if (paren) sb_putc(&w, ')');
            free(inner.data);
            inner = w;
            t = t->base;
        } else if (t->kind == T_ARRAY) {
            if (t->count >= 0 && !t->vla) sb_printf(&inner, "[%ld]", t->count);
            else sb_puts(&inner, "[]");
            t = t->base;
        } else if (t->kind == T_FUNC) {
            sb_putc(&inner, '(');
            for (int i = 0; i < t->nparams; i++) {
                char *pd = ty_decl_alloc(t->params[i], NULL);
                if (i) sb_puts(&inner, ", ");
                sb_puts(&inner, pd);
                free(pd);
            }
            if (t->variadic) sb_puts(&inner, t->nparams ? ", ..." : "...");
            if (!t->nparams && !t->variadic && !t->oldstyle) sb_puts(&inner, "void");
            sb_putc(&inner, ')');
            t = t->base;
        } else break;
    }
    strbuf_t d = {0};
    const char *cq = t->is_const ? "const " : "";
    if (t->name) sb_printf(&d, "%s%s", cq, t->name);
    else if (t->kind == T_STRUCT || t->kind == T_UNION)
        sb_printf(&d, "%s%s %s", cq, t->kind == T_STRUCT ? "struct" : "union",
                  t->sd && t->sd->tag ? t->sd->tag : "<anonymous>");
    else if (t->is_enum) sb_printf(&d, "%senum %s", cq, t->enum_tag ? t->enum_tag : "<anonymous>");
    else sb_printf(&d, "%s%s", cq, basic_name(t) ? basic_name(t) : "?");
    if (inner.len && inner.data[0] != '[' && inner.data[0] != '(') sb_putc(&d, ' ');
    if (inner.len) sb_append(&d, inner.data, inner.len);
    free(inner.data);
    return sb_take(&d);
}

/* ... into buf, cut at n bytes: for messages */
char *ty_decl(type_t *t, const char *name, char *buf, size_t n) {
    char *d = ty_decl_alloc(t, name);
    snprintf(buf, n, "%s", d);
    free(d);
    return buf;
}

char *ty_name(type_t *t, char *buf, size_t n) { return ty_decl(t, NULL, buf, n); }

const char *ty_plural(type_t *t, char *buf, size_t n) {
    char b[200];
    ty_name(ty_unqual(t), b, sizeof b);
    if (strchr(b, ' ') || strchr(b, '*') || strchr(b, '['))
        snprintf(buf, n, "elements of type %s", b);
    else snprintf(buf, n, "%ss", b);
    return buf;
}
