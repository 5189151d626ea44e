/* Expressions and places: the evaluators a typed node points at, and the
 * builders that pick them (specialised by operand kind so that a loop's work
 * is a few indirect calls, with slot and constant operands read inline).
 * Every memory access goes through mem_at (mem.h), so nothing a cell does
 * can touch memory it does not own. Statements are exec_stmt.c's. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval.h"
#include "exec_inline.h"


node_t *node_new(loc_t *loc) {
    node_t *n = pool_alloc(&g_in->pool, sizeof *n);
    if (loc) n->loc = *loc;
    n->bound = -1;
    n->slot = -1;
    return n;
}

val_t ev_const(node_t *n, frame_t *f) { return n->k; }
val_t ev_slot(node_t *n, frame_t *f) { return f->slots[n->slot]; }

val_t eval_const(node_t *n) { return n->k; }

node_t *mk_const(loc_t *l, type_t *t, val_t v) {
    node_t *n = node_new(l);
    n->fn = ev_const;
    n->ty = t;
    n->k = v;
    n->is_const = true;
    return n;
}
node_t *mk_int(loc_t *l, type_t *t, int64_t v) { return mk_const(l, t, (val_t){.i = v}); }

/* ---------------- conversions ---------------- */
static int64_t d2i64(double d) {
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) return (int64_t)d;
    return INT64_MIN; /* what cvttsd2si gives */
}
static int64_t d2i32(double d) {
    if (d > -2147483649.0 && d < 2147483648.0) return (int32_t)d;
    return INT32_MIN;
}
static uint64_t d2u64(double d) {
    if (d < 9223372036854775808.0) return (uint64_t)d2i64(d);
    return (uint64_t)d2i64(d - 9223372036854775808.0) ^ (1ULL << 63);
}

static inline int64_t norm_int(int to, uint64_t x) {
    switch (to) {
    case T_BOOL: return x != 0;
    case T_CHAR: case T_SCHAR: return (int8_t)(uint8_t)x;
    case T_UCHAR: return (uint8_t)x;
    case T_SHORT: return (int16_t)(uint16_t)x;
    case T_USHORT: return (uint16_t)x;
    case T_INT: return (int32_t)(uint32_t)x;
    case T_UINT: return (uint32_t)x;
    default: return (int64_t)x;
    }
}

static bool code_is_float(int c) { return c == T_FLOAT || c == T_DOUBLE || c == T_LDOUBLE; }
static bool code_unsigned64(int c) { return c == T_ULONG || c == T_ULLONG || c == T_PTR; }

static val_t conv(val_t v, int from, int to) {
    val_t r;
    if (to == T_PTR) {
        if (code_is_float(from)) r.u = 0;
        else r.u = from == T_PTR ? v.u : ptr_from_int(v.u);
        return r;
    }
    if (code_is_float(to)) {
        double d;
        if (code_is_float(from)) d = v.d;
        else if (code_unsigned64(from)) d = (double)v.u;
        else d = (double)v.i;
        if (to == T_FLOAT) {
            if (code_unsigned64(from)) d = (float)v.u; /* one rounding, as gcc */
            else if (!code_is_float(from)) d = (float)v.i;
            else d = (float)d;
        }
        r.d = d;
        return r;
    }
    if (to == T_BOOL) {
        r.i = code_is_float(from) ? v.d != 0 : v.u != 0;
        return r;
    }
    uint64_t x;
    if (code_is_float(from)) {
        if (to == T_ULONG || to == T_ULLONG) x = d2u64(v.d);
        else if (to == T_LONG || to == T_LLONG || to == T_UINT) x = (uint64_t)d2i64(v.d);
        else x = (uint64_t)d2i32(v.d);
    } else x = v.u;
    r.i = norm_int(to, x);
    return r;
}

static int ccode(type_t *t) { /* conversion code: kind, enums as int */
    if (t->is_enum) return t->is_unsigned ? T_UINT : T_INT;
    return (int)t->kind;
}

static val_t ev_cast(node_t *n, frame_t *f) {
    val_t v = EV(n->a, f);
    if (code_is_float(n->op) && !code_is_float(n->kind)) ub_float_to_int(n, v.d, n->kind);
    return conv(v, n->op, n->kind);
}
static val_t ev_cast_i32(node_t *n, frame_t *f) { val_t v = EV(n->a, f); v.i = (int32_t)(uint32_t)v.u; return v; }
static val_t ev_cast_u32(node_t *n, frame_t *f) { val_t v = EV(n->a, f); v.i = (uint32_t)v.u; return v; }
static val_t ev_cast_s2d(node_t *n, frame_t *f) { val_t v = EV(n->a, f); v.d = (double)v.i; return v; }
static val_t ev_cast_d2f(node_t *n, frame_t *f) { val_t v = EV(n->a, f); v.d = (float)v.d; return v; }
static val_t ev_cast_d2i(node_t *n, frame_t *f) {
    val_t v = EV(n->a, f);
    if (UNLIKELY(!(v.d > -2147483649.0 && v.d < 2147483648.0))) ub_float_to_int(n, v.d, T_INT);
    v.i = d2i32(v.d);
    return v;
}
static val_t ev_cast_d2l(node_t *n, frame_t *f) {
    val_t v = EV(n->a, f);
    if (UNLIKELY(!(v.d >= -9223372036854775808.0 && v.d < 9223372036854775808.0))) ub_float_to_int(n, v.d, T_LONG);
    v.i = d2i64(v.d);
    return v;
}
static val_t ev_test_d(node_t *n, frame_t *f) { val_t v = EV(n->a, f); v.i = v.d != 0; return v; }
static val_t ev_test_i(node_t *n, frame_t *f) { val_t v = EV(n->a, f); v.i = v.u != 0; return v; }

node_t *mk_cast(node_t *e, type_t *to) {
    int from = ccode(e->ty), tc = ccode(to);
    if (to->kind == T_VOID) {
        node_t *n = node_new(&e->loc);
        *n = *e;
        n->ty = to;
        return n;
    }
    if (to->kind == T_LDOUBLE) tc = T_DOUBLE;
    if (from == T_LDOUBLE) from = T_DOUBLE;
    if (from == T_ARRAY || from == T_FUNC) from = T_PTR;
    bool ident = from == tc ||
                 (!code_is_float(from) && !code_is_float(tc) && tc != T_BOOL && tc != T_PTR &&
                  (tc == T_LONG || tc == T_ULONG || tc == T_LLONG || tc == T_ULLONG)) ||
                 (from == T_PTR && !code_is_float(tc) && tc != T_BOOL && tc != T_PTR &&
                  to->size == 8) ||
                 (code_is_float(from) && tc == T_DOUBLE) ||
                 (from != T_PTR && !code_is_float(from) && tc == T_INT &&
                  (from == T_BOOL || from == T_CHAR || from == T_SCHAR || from == T_UCHAR ||
                   from == T_SHORT || from == T_USHORT)) ||
                 (tc == T_UINT && (from == T_BOOL || from == T_UCHAR || from == T_USHORT)) ||
                 (from == T_PTR && tc == T_PTR);
    if (ident) {
        if (e->ty == to) return e;
        node_t *n = node_new(&e->loc);
        *n = *e;
        n->ty = to;
        if (e->is_const && from == T_PTR && tc != T_PTR) n->is_const = false;
        return n;
    }
    node_t *n = node_new(&e->loc);
    n->ty = to;
    n->a = e;
    n->op = from;
    n->kind = tc;
    if (tc == T_INT && from != T_PTR && !code_is_float(from)) n->fn = ev_cast_i32;
    else if (tc == T_UINT && from != T_PTR && !code_is_float(from)) n->fn = ev_cast_u32;
    else if (tc == T_DOUBLE && !code_is_float(from) && from != T_PTR && !code_unsigned64(from)) n->fn = ev_cast_s2d;
    else if (tc == T_FLOAT && code_is_float(from)) n->fn = ev_cast_d2f;
    else if (tc == T_INT && code_is_float(from)) n->fn = ev_cast_d2i;
    else if ((tc == T_LONG || tc == T_LLONG) && code_is_float(from)) n->fn = ev_cast_d2l;
    else if (tc == T_BOOL && code_is_float(from)) n->fn = ev_test_d;
    else if (tc == T_BOOL) n->fn = ev_test_i;
    else n->fn = ev_cast;
    if (e->is_const && from != T_PTR && tc != T_PTR) return mk_const(&e->loc, to, n->fn(n, NULL));
    if (e->is_const && from == T_PTR && tc == T_PTR) return mk_const(&e->loc, to, e->k);
    if (e->is_const && tc == T_PTR && e->k.u == 0) return mk_const(&e->loc, to, e->k);
    return n;
}

node_t *mk_test(node_t *e) {
    if (ty_is_int(e->ty) && !e->is_place) return e; /* normalized ints test as != 0 */
    return mk_cast(e, &ty_bool);
}

/* ---------------- places ---------------- */
static char *pa_frame(node_t *n, frame_t *f, int wr) { return f->mem + n->k.i; }
static char *pa_global(node_t *n, frame_t *f, int wr) { return n->k.p; }
static char *pa_deref(node_t *n, frame_t *f, int wr) {
    uint64_t p = EV(n->a, f).u;
    return mem_at(ptr_add(p, n->k.i), (uint64_t)n->esz, wr, n);
}
static char *pa_index_ptr(node_t *n, frame_t *f, int wr) {
    uint64_t p = EV(n->a, f).u;
    int64_t i = EV(n->b, f).i;
    return idx_at(n, p, i, wr);
}
static _Noreturn void index_fail(node_t *n, int64_t i, int wr) {
    char b[128], tb[128], pb[96];
    loc_text(&n->a->loc, b, sizeof b);
    ty_decl(n->a->ty, b, tb, sizeof tb);
    rt_error(n, "out-of-bounds %s: %s[%" PRId64 "] is %s %s (%s: %" PRId64 " %s, valid indexes 0 to %" PRId64 ")",
             wr ? "write" : "read", b, i, i < 0 ? "before the start of" : "past the end of", b, tb, n->bound,
             ty_plural(n->ty, pb, sizeof pb), n->bound - 1);
}
static char *pa_index_arr(node_t *n, frame_t *f, int wr) {
    int64_t i = EV(n->b, f).i;
    if (UNLIKELY((uint64_t)i >= (uint64_t)n->bound)) index_fail(n, i, wr);
    return n->a->afn(n->a, f, wr) + i * n->esz;
}
static char *pa_member(node_t *n, frame_t *f, int wr) { return n->a->afn(n->a, f, wr) + n->k.i; }
static char *pa_temp(node_t *n, frame_t *f, int wr) { return EV(n->a, f).p; }
static char *pa_vla(node_t *n, frame_t *f, int wr) {
    uint64_t p = f->slots[n->slot].u;
    return mem_at(p, g_bufs[ptr_slot(p)].size, wr, n);
}

static node_t *mkplace(loc_t *l, type_t *t, int pl) {
    node_t *n = node_new(l);
    n->ty = t;
    n->is_place = true;
    n->place = pl;
    n->esz = (int64_t)t->size;
    return n;
}
node_t *pl_slot(loc_t *l, type_t *t, int slot) {
    node_t *n = mkplace(l, t, PL_SLOT);
    n->slot = slot;
    return n;
}
node_t *pl_frame(loc_t *l, type_t *t, int64_t off, int hidx) {
    node_t *n = mkplace(l, t, PL_FRAME);
    n->afn = pa_frame;
    n->k.i = off;
    n->slot2 = hidx;
    return n;
}
node_t *pl_global(loc_t *l, gvar_t *g) {
    node_t *n = mkplace(l, g->ty, PL_GLOBAL);
    n->afn = pa_global;
    n->k.p = g->addr;
    n->p = g;
    return n;
}
node_t *pl_deref(loc_t *l, type_t *t, node_t *ptr, int64_t off) {
    node_t *n = mkplace(l, t, PL_DEREF);
    n->afn = pa_deref;
    n->a = ptr;
    n->k.i = off;
    return n;
}
node_t *pl_index(loc_t *l, type_t *t, node_t *base, node_t *idx) {
    node_t *n = mkplace(l, t, PL_INDEX);
    n->a = base;
    n->b = idx;
    if (base->is_place) {
        n->afn = pa_index_arr;
        n->bound = base->ty->count;
    } else {
        n->afn = pa_index_ptr;
        n->ic = pool_alloc(&g_in->pool, sizeof *n->ic);
    }
    return n;
}
node_t *pl_member(loc_t *l, type_t *t, node_t *base, int64_t off) {
    if (base->place == PL_DEREF) { /* p->x: check just the member */
        node_t *n = pl_deref(l, t, base->a, base->k.i + off);
        return n;
    }
    if (base->place == PL_FRAME) { node_t *n = pl_frame(l, t, base->k.i + off, -1); n->p = base; return n; }
    if (base->place == PL_GLOBAL) {
        node_t *n = mkplace(l, t, PL_GLOBAL);
        n->afn = pa_global;
        n->k.p = (char *)base->k.p + off;
        n->p = base->p;
        n->d = base;
        n->esz = off; /* offset from the variable, for & */
        n->esz = (int64_t)t->size;
        n->slot2 = (int)off;
        return n;
    }
    node_t *n = mkplace(l, t, PL_MEMBER);
    n->afn = pa_member;
    n->a = base;
    n->k.i = off;
    return n;
}
node_t *pl_temp(loc_t *l, type_t *t, node_t *val) {
    node_t *n = mkplace(l, t, PL_TEMP);
    n->afn = pa_temp;
    n->a = val;
    return n;
}
node_t *pl_vla(loc_t *l, type_t *t, int slot) {
    node_t *n = mkplace(l, t, PL_VLA);
    n->afn = pa_vla;
    n->slot = slot;
    return n;
}

/* loads */
#define LOADFNS(X) X(b, T_BOOL) X(i8, T_CHAR) X(u8, T_UCHAR) X(i16, T_SHORT) X(u16, T_USHORT) \
    X(i32, T_INT) X(u32, T_UINT) X(f32, T_FLOAT) X(f64, T_DOUBLE) X(i64, T_ULONG)
#define X(nm, c) \
    static val_t ev_load_##nm(node_t *n, frame_t *f) { return load_code(c, n->a->afn(n->a, f, 0)); } \
    static val_t ev_gload_##nm(node_t *n, frame_t *f) { return load_code(c, n->k.p); } \
    static val_t ev_fload_##nm(node_t *n, frame_t *f) { return load_code(c, f->mem + n->k.i); } \
    static val_t ev_iload_##nm(node_t *n, frame_t *f) { \
        node_t *pl = n->a; \
        uint64_t p = EV(pl->a, f).u; \
        int64_t i = EV(pl->b, f).i; \
        return load_code(c, idx_at(pl, p, i, 0)); } \
    static val_t ev_xload_##nm(node_t *n, frame_t *f) { /* p[i]: see is_fast_idx_pl */ \
        uint64_t p; \
        memcpy(&p, (const char *)((n->slot2 ? (uintptr_t)f->slots : 0) + n->k.u), 8); \
        return load_code(c, idx_at(n->a, p, f->slots[n->slot].i, 0)); }
LOADFNS(X)
#undef X
static val_t ev_load_aggr(node_t *n, frame_t *f) { val_t v; v.p = n->a->afn(n->a, f, 0); return v; }

node_t *mk_load(node_t *pl) {
    if (pl->place == PL_SLOT) {
        node_t *n = node_new(&pl->loc);
        n->fn = ev_slot;
        n->slot = pl->slot;
        n->ty = pl->ty;
        n->a = pl;
        return n;
    }
    node_t *n = node_new(&pl->loc);
    n->ty = pl->ty;
    n->a = pl;
    if (ty_is_aggr(pl->ty) || pl->ty->kind == T_FUNC) {
        n->fn = ev_load_aggr;
        return n;
    }
    int c = tcode(pl->ty);
    if (c == T_LONG) c = T_ULONG; /* the same 8-byte load */
    switch (c) {
#define X(nm, cc) case cc: \
        n->fn = pl->place == PL_GLOBAL ? ev_gload_##nm : pl->place == PL_FRAME ? ev_fload_##nm : \
                pl->place == PL_INDEX && pl->afn == pa_index_ptr ? ev_iload_##nm : ev_load_##nm; \
        if (pl->place == PL_GLOBAL) n->k.p = pl->k.p; \
        if (pl->place == PL_FRAME) n->k.i = pl->k.i; \
        if (n->fn == ev_iload_##nm && pl->b->fn == ev_slot && (pl->a->fn == ev_slot || pl->a->fn == ev_gload_i64)) { \
            n->fn = ev_xload_##nm; \
            n->slot = pl->b->slot; \
            n->slot2 = pl->a->fn == ev_slot; \
            n->k.u = n->slot2 ? (uint64_t)pl->a->slot * sizeof(val_t) : (uint64_t)(uintptr_t)pl->a->k.p; \
        } \
        break;
        LOADFNS(X)
#undef X
    case T_SCHAR: n->fn = ev_load_i8; break;
    default: n->fn = ev_load_i64; break;
    }
    return n;
}

/* addresses */
static val_t ev_addr_frame(node_t *n, frame_t *f) {
    val_t v;
    v.u = ptr_add(ptr_make(f->hbuf[n->slot2], 0), n->k.i);
    return v;
}
static val_t ev_ptr_addk(node_t *n, frame_t *f) { val_t v = EV(n->a, f); v.u = ptr_add_at(v.u, n->k.i, n); return v; }
static val_t ev_ptr_add(node_t *n, frame_t *f) {
    val_t v = EV(n->a, f);
    int64_t i = EV(n->b, f).i;
    v.u = ptr_add_at(v.u, ptr_scale_at(i, n->esz, v.u, n), n);
    return v;
}
static val_t ev_ptr_sub(node_t *n, frame_t *f) {
    val_t v = EV(n->a, f);
    int64_t i = EV(n->b, f).i;
    v.u = ptr_add_at(v.u, -ptr_scale_at(i, n->esz, v.u, n), n);
    return v;
}
static val_t ev_vla_ptr(node_t *n, frame_t *f) { return f->slots[n->slot]; }

node_t *mk_addr(node_t *pl) {
    node_t *n = node_new(&pl->loc);
    n->ty = ty_ptr(pl->ty);
    switch (pl->place) {
    case PL_FRAME: {
        /* a member of a frame struct: find the variable's handle */
        node_t *v = pl;
        int64_t off = 0;
        while (v->slot2 < 0 && v->p) { v = v->p; }
        off = pl->k.i - v->k.i;
        n->fn = ev_addr_frame;
        n->slot2 = v->slot2;
        n->k.i = off;
        return n;
    }
    case PL_GLOBAL: {
        gvar_t *g = pl->p;
        int64_t off = (char *)pl->k.p - g->addr;
        n->fn = ev_const;
        n->is_const = false; /* a pointer value, not an arithmetic constant */
        n->k.u = ptr_make(g->bslot, off);
        return n;
    }
    case PL_DEREF:
        if (pl->k.i == 0) { node_t *c = mk_cast(pl->a, n->ty); return c; }
        n->fn = ev_ptr_addk;
        n->a = pl->a;
        n->k.i = pl->k.i;
        return n;
    case PL_INDEX:
        n->fn = ev_ptr_add;
        n->a = pl->a->is_place ? mk_addr(pl->a) : pl->a;
        n->b = pl->b;
        n->esz = pl->esz;
        return n;
    case PL_MEMBER:
        n->fn = ev_ptr_addk;
        n->a = mk_addr(pl->a);
        n->k.i = pl->k.i;
        return n;
    case PL_VLA:
        n->fn = ev_vla_ptr;
        n->slot = pl->slot;
        return n;
    default:
        type_error(&pl->loc, "cannot take the address of this value");
    }
}

/* ---------------- arithmetic ---------------- */

static _Noreturn void div0(node_t *n) {
    char b[128];
    rt_error(n, "integer division by zero: %s is 0", loc_text(&n->b->loc, b, sizeof b));
}
static _Noreturn void divovf(node_t *n) {
    rt_error(n, "integer overflow in division: the most negative value divided by -1");
}

static val_t arith(int op, int k, val_t a, val_t b, node_t *n) {
    val_t r;
    if (k == K_F32 || k == K_F64) {
        double x = a.d, y = b.d, z;
        switch (op) {
        case P_PLUS: z = x + y; break;
        case P_MINUS: z = x - y; break;
        case P_STAR: z = x * y; break;
        case P_DIV: z = x / y; break;
        default: z = 0; break;
        }
        r.d = k == K_F32 ? (double)(float)z : z;
        return r;
    }
    uint64_t x = a.u, y = b.u, z = 0;
    int sh = (k == K_I32 || k == K_U32) ? 31 : 63;
    if (k == K_I64 && (op == P_PLUS || op == P_MINUS || op == P_STAR)) {
        int64_t s;
        bool o = op == P_PLUS ? __builtin_add_overflow(a.i, b.i, &s)
               : op == P_MINUS ? __builtin_sub_overflow(a.i, b.i, &s) : __builtin_mul_overflow(a.i, b.i, &s);
        if (UNLIKELY(o)) ub_overflow(n, op, a.i, b.i);
    } else if (k == K_I32 && (op == P_PLUS || op == P_MINUS || op == P_STAR)) {
        int64_t s = op == P_PLUS ? a.i + b.i : op == P_MINUS ? a.i - b.i : a.i * b.i;
        if (UNLIKELY(s != (int32_t)s)) ub_overflow(n, op, a.i, b.i);
    } else if (op == P_SHL || op == P_SHR) {
        ub_shift_check(n, op, k, a.i, b.i);
    }
    switch (op) {
    case P_PLUS: z = x + y; break;
    case P_MINUS: z = x - y; break;
    case P_STAR: z = x * y; break;
    case P_DIV: case P_MOD:
        if (y == 0) div0(n);
        if (k == K_I32 || k == K_I64) {
            int64_t sx = a.i, sy = b.i;
            if (sy == -1 && ((k == K_I32 && sx == INT32_MIN) || (k == K_I64 && sx == INT64_MIN))) divovf(n);
            z = (uint64_t)(op == P_DIV ? sx / sy : sx % sy);
        } else if (k == K_U32) z = op == P_DIV ? (uint32_t)x / (uint32_t)y : (uint32_t)x % (uint32_t)y;
        else z = op == P_DIV ? x / y : x % y;
        break;
    case P_SHL: z = x << (y & (uint64_t)sh); break;
    case P_SHR:
        if (k == K_I32) z = (uint64_t)(int64_t)((int32_t)a.i >> (y & 31));
        else if (k == K_I64) z = (uint64_t)(a.i >> (y & 63));
        else if (k == K_U32) z = (uint32_t)x >> (y & 31);
        else z = x >> (y & 63);
        break;
    case P_AMP: z = x & y; break;
    case P_OR: z = x | y; break;
    case P_XOR: z = x ^ y; break;
    }
    switch (k) {
    case K_I32: r.i = NI32(z); break;
    case K_U32: r.i = NU32(z); break;
    default: r.u = z; break;
    }
    return r;
}

static val_t ev_arith(node_t *n, frame_t *f) {
    val_t a = EV(n->a, f), b = EV(n->b, f);
    return arith(n->op, n->kind, a, b, n);
}

#define BIN(name, expr) static val_t name(node_t *n, frame_t *f) { \
    val_t a = EV(n->a, f), b = EV(n->b, f), r; expr; return r; }
/* signed: an overflow is an error (ub_checks.c); the operands are in range, so the 64-bit result is exact */
#define CHK32(OP, opc) r.i = a.i OP b.i; if (UNLIKELY(r.i != (int32_t)r.i)) ub_overflow(n, opc, a.i, b.i)
#define CHK64(FN, opc) if (UNLIKELY(FN(a.i, b.i, &r.i))) ub_overflow(n, opc, a.i, b.i)
BIN(add_i32, CHK32(+, P_PLUS)) BIN(sub_i32, CHK32(-, P_MINUS)) BIN(mul_i32, CHK32(*, P_STAR))
BIN(add_s64, CHK64(__builtin_add_overflow, P_PLUS)) BIN(sub_s64, CHK64(__builtin_sub_overflow, P_MINUS))
BIN(mul_s64, CHK64(__builtin_mul_overflow, P_STAR))
BIN(add_u32, r.i = NU32(a.u + b.u)) BIN(sub_u32, r.i = NU32(a.u - b.u)) BIN(mul_u32, r.i = NU32(a.u * b.u))
BIN(add_64, r.u = a.u + b.u) BIN(sub_64, r.u = a.u - b.u) BIN(mul_64, r.u = a.u * b.u)
BIN(add_f64, r.d = a.d + b.d) BIN(sub_f64, r.d = a.d - b.d) BIN(mul_f64, r.d = a.d * b.d) BIN(div_f64, r.d = a.d / b.d)
BIN(add_f32, r.d = (float)(a.d + b.d)) BIN(sub_f32, r.d = (float)(a.d - b.d))
BIN(mul_f32, r.d = (float)(a.d * b.d)) BIN(div_f32, r.d = (float)(a.d / b.d))
BIN(and_i, r.u = a.u & b.u) BIN(or_i, r.u = a.u | b.u) BIN(xor_i, r.u = a.u ^ b.u)
BIN(lt_s, r.i = a.i < b.i) BIN(le_s, r.i = a.i <= b.i) BIN(gt_s, r.i = a.i > b.i) BIN(ge_s, r.i = a.i >= b.i)
BIN(lt_u, r.i = a.u < b.u) BIN(le_u, r.i = a.u <= b.u) BIN(gt_u, r.i = a.u > b.u) BIN(ge_u, r.i = a.u >= b.u)
BIN(eq_i, r.i = a.u == b.u) BIN(ne_i, r.i = a.u != b.u)
BIN(lt_d, r.i = a.d < b.d) BIN(le_d, r.i = a.d <= b.d) BIN(gt_d, r.i = a.d > b.d) BIN(ge_d, r.i = a.d >= b.d)
BIN(eq_d, r.i = a.d == b.d) BIN(ne_d, r.i = a.d != b.d)

static int ptrcmp(uint64_t a, uint64_t b) {
    if (ptr_slot(a) == ptr_slot(b) && !ptr_is_raw(a)) {
        int64_t x = ptr_off(a), y = ptr_off(b);
        return x < y ? -1 : x > y;
    }
    return a < b ? -1 : a > b;
}
BIN(lt_p, r.i = ptrcmp(a.u, b.u) < 0) BIN(le_p, r.i = ptrcmp(a.u, b.u) <= 0)
BIN(gt_p, r.i = ptrcmp(a.u, b.u) > 0) BIN(ge_p, r.i = ptrcmp(a.u, b.u) >= 0)

node_t *mk_binop(loc_t *l, int op, type_t *t, node_t *a, node_t *b) {
    node_t *n = node_new(l);
    n->ty = t;
    n->a = a;
    n->b = b;
    n->op = op;
    int k = n->kind = ty_opkind(t);
    n->fn = ev_arith;
    bool i32 = k == K_I32, u32 = k == K_U32, i64 = k == K_I64 || k == K_U64, s64 = k == K_I64;
    switch (op) {
    case P_PLUS: n->fn = i32 ? add_i32 : u32 ? add_u32 : s64 ? add_s64 : i64 ? add_64 : k == K_F64 ? add_f64 : add_f32; break;
    case P_MINUS: n->fn = i32 ? sub_i32 : u32 ? sub_u32 : s64 ? sub_s64 : i64 ? sub_64 : k == K_F64 ? sub_f64 : sub_f32; break;
    case P_STAR: n->fn = i32 ? mul_i32 : u32 ? mul_u32 : s64 ? mul_s64 : i64 ? mul_64 : k == K_F64 ? mul_f64 : mul_f32; break;
    case P_DIV: if (k == K_F64) n->fn = div_f64; else if (k == K_F32) n->fn = div_f32; break;
    case P_AMP: n->fn = and_i; break;
    case P_OR: n->fn = or_i; break;
    case P_XOR: n->fn = xor_i; break;
    }
    if (a->is_const && b->is_const && !ub_would_fault(op, k, a->k.i, b->k.i, b->ty) && /* else it faults when run */
        !((op == P_DIV || op == P_MOD) && k != K_F32 && k != K_F64 && b->k.u == 0) &&
        !((op == P_DIV || op == P_MOD) && b->k.i == -1 && (k == K_I32 || k == K_I64)))
        return mk_const(l, t, n->fn(n, NULL));
    return n;
}

node_t *mk_cmp(loc_t *l, int op, type_t *t, node_t *a, node_t *b) {
    node_t *n = node_new(l);
    n->ty = &ty_int;
    n->a = a;
    n->b = b;
    n->op = op;
    int k = n->kind = ty_opkind(t);
    bool fl = k == K_F32 || k == K_F64, un = k == K_U32 || k == K_U64, pt = k == K_PTR;
    switch (op) {
    case P_LT: n->fn = fl ? lt_d : pt ? lt_p : un ? lt_u : lt_s; break;
    case P_LE: n->fn = fl ? le_d : pt ? le_p : un ? le_u : le_s; break;
    case P_GT: n->fn = fl ? gt_d : pt ? gt_p : un ? gt_u : gt_s; break;
    case P_GE: n->fn = fl ? ge_d : pt ? ge_p : un ? ge_u : ge_s; break;
    case P_EQ: n->fn = fl ? eq_d : eq_i; break;
    default: n->fn = fl ? ne_d : ne_i; break;
    }
    if (a->is_const && b->is_const) return mk_const(l, &ty_int, n->fn(n, NULL));
    return n;
}

node_t *mk_ptradd(loc_t *l, node_t *p, node_t *i, int64_t esz, int sign) {
    node_t *n = node_new(l);
    n->ty = p->ty;
    n->a = p;
    n->b = i;
    n->esz = esz;
    n->fn = sign < 0 ? ev_ptr_sub : ev_ptr_add;
    return n;
}

static val_t ev_ptrdiff(node_t *n, frame_t *f) {
    val_t a = EV(n->a, f), b = EV(n->b, f), r;
    if (ptr_is_raw(a.u) && ptr_is_raw(b.u)) { /* real addresses: as C computes them */
        r.i = (int64_t)(a.u - b.u) / n->esz;
        return r;
    }
    if (ptr_slot(a.u) != ptr_slot(b.u) || ptr_is_raw(a.u) != ptr_is_raw(b.u)) {
        char x[100], y[100];
        rt_error(n, "subtraction of pointers into different buffers: %s and %s",
                 loc_text(&n->a->loc, x, sizeof x), loc_text(&n->b->loc, y, sizeof y));
    }
    r.i = (ptr_off(a.u) - ptr_off(b.u)) / n->esz;
    return r;
}
node_t *mk_ptrdiff(loc_t *l, node_t *a, node_t *b, int64_t esz) {
    node_t *n = node_new(l);
    n->ty = &ty_long;
    n->a = a;
    n->b = b;
    n->esz = esz ? esz : 1;
    n->fn = ev_ptrdiff;
    return n;
}

static val_t ev_neg(node_t *n, frame_t *f) {
    val_t a = EV(n->a, f), r;
    switch (n->kind) {
    case K_I32: if (UNLIKELY(a.i == INT32_MIN)) ub_negation(n, a.i); r.i = NI32(0 - a.u); break;
    case K_U32: r.i = NU32(0 - a.u); break;
    case K_F32: case K_F64: r.d = -a.d; break;
    case K_I64: if (UNLIKELY(a.i == INT64_MIN)) ub_negation(n, a.i); r.u = 0 - a.u; break;
    default: r.u = 0 - a.u; break;
    }
    return r;
}
static val_t ev_bnot(node_t *n, frame_t *f) {
    val_t a = EV(n->a, f), r;
    r.i = n->kind == K_U32 ? NU32(~a.u) : (int64_t)~a.u;
    return r;
}
node_t *mk_unop(loc_t *l, int op, type_t *t, node_t *a) {
    node_t *n = node_new(l);
    n->ty = t;
    n->a = a;
    n->kind = ty_opkind(t);
    n->fn = op == P_MINUS ? ev_neg : ev_bnot;
    if (a->is_const) return mk_const(l, t, n->fn(n, NULL));
    return n;
}

static val_t ev_land(node_t *n, frame_t *f) { val_t r; r.i = EV(n->a, f).i && EV(n->b, f).i; return r; }
static val_t ev_lor(node_t *n, frame_t *f) { val_t r; r.i = EV(n->a, f).i || EV(n->b, f).i; return r; }
static val_t ev_not(node_t *n, frame_t *f) { val_t r; r.i = !EV(n->a, f).i; return r; }
node_t *mk_logic(loc_t *l, int op, node_t *a, node_t *b) {
    node_t *n = node_new(l);
    n->ty = &ty_int;
    n->a = mk_test(a);
    n->b = mk_test(b);
    n->fn = op == P_LAND ? ev_land : ev_lor;
    if (n->a->is_const && n->b->is_const) return mk_const(l, &ty_int, n->fn(n, NULL));
    return n;
}
node_t *mk_not(loc_t *l, node_t *a) {
    node_t *n = node_new(l);
    n->ty = &ty_int;
    n->a = mk_test(a);
    n->fn = ev_not;
    if (n->a->is_const) return mk_const(l, &ty_int, n->fn(n, NULL));
    return n;
}
static val_t ev_cond(node_t *n, frame_t *f) { return EV(n->a, f).i ? EV(n->b, f) : EV(n->c, f); }
node_t *mk_cond(loc_t *l, type_t *t, node_t *c, node_t *a, node_t *b) {
    node_t *n = node_new(l);
    n->ty = t;
    n->a = mk_test(c);
    n->b = a;
    n->c = b;
    n->fn = ev_cond;
    if (n->a->is_const && a->is_const && b->is_const) return n->a->k.i ? a : b;
    return n;
}
static val_t ev_comma(node_t *n, frame_t *f) { EV(n->a, f); return EV(n->b, f); }
node_t *mk_comma(loc_t *l, node_t *a, node_t *b) {
    node_t *n = node_new(l);
    n->ty = b->ty;
    n->a = a;
    n->b = b;
    n->fn = ev_comma;
    return n;
}

/* ---------------- assignment ---------------- */
static val_t ev_assign_slot(node_t *n, frame_t *f) { return f->slots[n->slot] = EV(n->b, f); }
static val_t ev_assign(node_t *n, frame_t *f) {
    val_t v = EV(n->b, f); /* the value first: it may free what the place points to */
    store_code(n->kind, n->a->afn(n->a, f, 1), v);
    return v;
}
static val_t ev_assign_g(node_t *n, frame_t *f) {
    val_t v = EV(n->b, f);
    store_code(n->kind, n->k.p, v);
    return v;
}
static val_t ev_assign_f64_idx(node_t *n, frame_t *f) {
    val_t v = EV(n->b, f);
    node_t *pl = n->a;
    uint64_t p = EV(pl->a, f).u;
    int64_t i = EV(pl->b, f).i;
    char *a = idx_at(pl, p, i, 1);
    memcpy(a, &v.d, 8);
    return v;
}
/* Superinstructions for p[i] with p a pointer variable (a local or a session
 * variable) and i an integer local. The pointer word is read from
 * (frame slots or 0) + off, so one evaluator serves both; the access itself is
 * idx_at's cache test, inline, with the full check (idx_at -> idx_fill) in a
 * separate slow path, so the hot path makes no calls. */
typedef struct fidx { struct icache ic; uintptr_t poff; int pslot, islot; node_t *pl; } fidx_t;
static bool is_fast_idx_pl(node_t *pl) {
    return pl->place == PL_INDEX && pl->afn == pa_index_ptr && pl->b->fn == ev_slot &&
           (pl->a->fn == ev_gload_i64 || pl->a->fn == ev_slot);
}
static bool is_fast_idx(node_t *x) { return (x->fn == ev_iload_f64 || x->fn == ev_xload_f64) && is_fast_idx_pl(x->a); }
static void fidx_init(fidx_t *x, node_t *pl) {
    x->pl = pl;
    x->pslot = pl->a->fn == ev_slot;
    x->poff = x->pslot ? (uintptr_t)pl->a->slot * sizeof(val_t) : (uintptr_t)pl->a->k.p;
    x->islot = pl->b->slot;
}
static inline uint64_t fidx_ptr(const fidx_t *x, frame_t *f) {
    uint64_t p;
    memcpy(&p, (const char *)((x->pslot ? (uintptr_t)f->slots : 0) + x->poff), 8);
    return p;
}
/* does x's cache cover element i of pointer word p? */
static inline bool fidx_ok(const fidx_t *x, uint64_t p, int64_t i, uint64_t epoch, int wr) {
    return p == x->ic.p && x->ic.epoch == epoch && (uint64_t)i - (uint64_t)x->ic.lo < x->ic.span && wr <= x->ic.wr;
}
static inline char *fidx_at(fidx_t *x, frame_t *f, int wr) {
    uint64_t p = fidx_ptr(x, f);
    int64_t i = f->slots[x->islot].i;
    if (LIKELY(fidx_ok(x, p, i, g_buf_epoch, wr))) return (char *)(x->ic.addr + (uint64_t)i * (uint64_t)x->pl->esz);
    return idx_fill(x->pl, &x->ic, p, i, wr);
}
/* p[i] = v with p a pointer variable and i an integer local (is_fast_idx_pl) */
#define X(nm, c) \
    static val_t ev_xassign_##nm(node_t *n, frame_t *f) { \
        val_t v = EV(n->b, f); \
        store_code(c, fidx_at(n->p, f, 1), v); \
        return v; }
LOADFNS(X)
#undef X
static val_t ev_assign_aggr(node_t *n, frame_t *f) {
    val_t v = EV(n->b, f);
    char *d = n->a->afn(n->a, f, 1);
    memmove(d, v.p, (size_t)n->esz);
    v.p = d;
    return v;
}
node_t *mk_assign(loc_t *l, node_t *pl, node_t *rhs) {
    node_t *n = node_new(l);
    n->ty = pl->ty;
    n->a = pl;
    n->b = rhs;
    if (pl->place == PL_SLOT) {
        n->fn = ev_assign_slot;
        n->slot = pl->slot;
    } else if (ty_is_aggr(pl->ty)) {
        n->fn = ev_assign_aggr;
        n->esz = (int64_t)pl->ty->size;
    } else {
        n->kind = tcode(pl->ty);
        if (pl->place == PL_GLOBAL) { n->fn = ev_assign_g; n->k.p = pl->k.p; }
        else if (pl->place == PL_INDEX && pl->afn == pa_index_ptr && n->kind == T_DOUBLE) n->fn = ev_assign_f64_idx;
        else n->fn = ev_assign;
        if (is_fast_idx_pl(pl)) {
            switch (n->kind) {
#define X(nm, c) case c: n->fn = ev_xassign_##nm; break;
            LOADFNS(X)
#undef X
            default: break;
            }
            if (n->fn != ev_assign && n->fn != ev_assign_f64_idx) {
                fidx_t *x = pool_alloc(&g_in->pool, sizeof *x);
                fidx_init(x, pl);
                n->p = x;
            }
        }
    }
    return n;
}

/* x op= y: old value converted to the operating type, result back to x's */
static val_t ev_compound(node_t *n, frame_t *f) {
    val_t v = EV(n->b, f);
    node_t *pl = n->a;
    char *a = pl->place == PL_SLOT ? NULL : pl->afn(pl, f, 1);
    val_t old = a ? load_code(n->kind, a) : f->slots[pl->slot];
    int pc = ccode(pl->ty), oc = n->slot2;
    val_t r;
    if (n->esz) { /* pointer += int */
        r.u = ptr_add_at(old.u, ptr_scale_at(n->op == P_MINUS ? -v.i : v.i, n->esz, old.u, n), n);
    } else {
        r = arith(n->op, ty_opkind(n->c->ty), conv(old, pc, oc), v, n);
        if (code_is_float(oc) && !code_is_float(pc)) ub_float_to_int(n, r.d, pc); /* i += 1e20 */
        r = conv(r, oc, pc);
    }
    if (a) store_code(n->kind, a, r);
    else f->slots[pl->slot] = r;
    return r;
}
static val_t ev_addeq_f64_g(node_t *n, frame_t *f) {
    double v = EV(n->b, f).d;
    val_t r;
    memcpy(&r.d, n->k.p, 8);
    r.d += v;
    memcpy(n->k.p, &r.d, 8);
    return r;
}
static val_t ev_addeq_f64_s(node_t *n, frame_t *f) {
    double v = EV(n->b, f).d;
    return (val_t){.d = f->slots[n->slot].d += v};
}
static val_t ev_addeq_i64_s(node_t *n, frame_t *f) {
    int64_t v = EV(n->b, f).i;
    return (val_t){.u = f->slots[n->slot].u += (uint64_t)v};
}
static val_t ev_addeq_s64_s(node_t *n, frame_t *f) { /* signed: an overflow is an error */
    int64_t v = EV(n->b, f).i, o = f->slots[n->slot].i, r;
    if (UNLIKELY(__builtin_add_overflow(o, v, &r))) ub_overflow(n, P_PLUS, o, v);
    return (val_t){.i = f->slots[n->slot].i = r};
}
static val_t ev_addeq_i32_s(node_t *n, frame_t *f) {
    int64_t v = EV(n->b, f).i, o = f->slots[n->slot].i, r = o + v;
    if (UNLIKELY(r != (int32_t)r)) ub_overflow(n, P_PLUS, o, v);
    return (val_t){.i = f->slots[n->slot].i = r};
}
/* s += x[i] * y[i], s a double local or session variable */
typedef struct dot { fidx_t a, b; } dot_t;
static inline double *dot_sum(node_t *n, frame_t *f) {
    return n->slot >= 0 ? &f->slots[n->slot].d : (double *)n->k.p;
}
static __attribute__((noinline)) val_t dot_slow(node_t *n, frame_t *f) {
    dot_t *d = n->p;
    double xa, xb;
    memcpy(&xa, fidx_at(&d->a, f, 0), 8);
    memcpy(&xb, fidx_at(&d->b, f, 0), 8);
    double *s = dot_sum(n, f), r;
    memcpy(&r, s, 8);
    r += xa * xb;
    memcpy(s, &r, 8);
    return (val_t){.d = r};
}
static val_t ev_dot(node_t *n, frame_t *f) {
    const dot_t *d = n->p;
    uint64_t e = g_buf_epoch, pa = fidx_ptr(&d->a, f), pb = fidx_ptr(&d->b, f);
    int64_t ia = f->slots[d->a.islot].i, ib = f->slots[d->b.islot].i;
    if (UNLIKELY(!fidx_ok(&d->a, pa, ia, e, 0) || !fidx_ok(&d->b, pb, ib, e, 0))) return dot_slow(n, f);
    double xa, xb, r;
    memcpy(&xa, (const char *)(d->a.ic.addr + (uint64_t)ia * 8), 8);
    memcpy(&xb, (const char *)(d->b.ic.addr + (uint64_t)ib * 8), 8);
    double *s = dot_sum(n, f);
    memcpy(&r, s, 8);
    r += xa * xb;
    memcpy(s, &r, 8);
    return (val_t){.d = r};
}

static inline bool s64_overflows(int op, int64_t a, int64_t b) {
    int64_t r;
    return op == P_PLUS ? __builtin_add_overflow(a, b, &r) : op == P_MINUS ? __builtin_sub_overflow(a, b, &r)
                                                           : __builtin_mul_overflow(a, b, &r);
}

/* x op= y where x's type is the operating type (no conversions): + - * on
 * int, unsigned, 64-bit integers, double and float, for x a local, a session
 * variable, p[i] (fast index) or any other place. The value is evaluated
 * first, as in ev_compound (it may free what the place points to). */
#define CA_I32(a, b, OP) r.i = (a).i OP (b).i; if (UNLIKELY(r.i != (int32_t)r.i)) ub_overflow(n, n->op, (a).i, (b).i)
#define CA_S64(a, b, OP) r.u = (a).u OP (b).u; if (UNLIKELY(s64_overflows(n->op, (a).i, (b).i))) ub_overflow(n, n->op, (a).i, (b).i)
#define CA_U32(a, b, OP) r.i = NU32((a).u OP (b).u)
#define CA_I64(a, b, OP) r.u = (a).u OP (b).u
#define CA_F64(a, b, OP) r.d = (a).d OP (b).d
#define CA_F32(a, b, OP) r.d = (float)((a).d OP (b).d)
#define CA_FNS(ty, code, CALC, opn, OP)                                                             \
    static val_t ca_s_##opn##_##ty(node_t *n, frame_t *f) {                                      \
        val_t v = EV(n->b, f), r;                                                                  \
        CALC(f->slots[n->slot], v, OP);                                                            \
        return f->slots[n->slot] = r;                                                              \
    }                                                                                              \
    static val_t ca_g_##opn##_##ty(node_t *n, frame_t *f) {                                      \
        val_t v = EV(n->b, f), r, o = load_code(code, n->k.p);                                     \
        CALC(o, v, OP);                                                                            \
        store_code(code, n->k.p, r);                                                               \
        return r;                                                                                  \
    }                                                                                              \
    static val_t ca_x_##opn##_##ty(node_t *n, frame_t *f) {                                      \
        val_t v = EV(n->b, f), r;                                                                  \
        char *a = fidx_at(n->p, f, 1);                                                             \
        val_t o = load_code(code, a);                                                              \
        CALC(o, v, OP);                                                                            \
        store_code(code, a, r);                                                                    \
        return r;                                                                                  \
    }                                                                                              \
    static val_t ca_p_##opn##_##ty(node_t *n, frame_t *f) {                                      \
        val_t v = EV(n->b, f), r;                                                                  \
        char *a = n->a->afn(n->a, f, 1);                                                           \
        val_t o = load_code(code, a);                                                              \
        CALC(o, v, OP);                                                                            \
        store_code(code, a, r);                                                                    \
        return r;                                                                                  \
    }
#define CA_TYPE(ty, code, CALC) CA_FNS(ty, code, CALC, add, +) CA_FNS(ty, code, CALC, sub, -) CA_FNS(ty, code, CALC, mul, *)
CA_TYPE(i32, T_INT, CA_I32) CA_TYPE(u32, T_UINT, CA_U32) CA_TYPE(i64, T_ULONG, CA_I64)
CA_TYPE(f64, T_DOUBLE, CA_F64) CA_TYPE(f32, T_FLOAT, CA_F32) CA_TYPE(s64, T_LONG, CA_S64)
#undef CA_TYPE
#undef CA_FNS
/* [type][op][place: slot, global, fast index, other] */
static const efn_t ca_table[6][3][4] = {
#define CA_ROW(ty) { { ca_s_add_##ty, ca_g_add_##ty, ca_x_add_##ty, ca_p_add_##ty }, \
                     { ca_s_sub_##ty, ca_g_sub_##ty, ca_x_sub_##ty, ca_p_sub_##ty }, \
                     { ca_s_mul_##ty, ca_g_mul_##ty, ca_x_mul_##ty, ca_p_mul_##ty } },
    CA_ROW(i32) CA_ROW(u32) CA_ROW(i64) CA_ROW(f64) CA_ROW(f32) CA_ROW(s64)
#undef CA_ROW
};
static bool ca_pick(node_t *n, node_t *pl, int pk, int ok) {
    if (pk != ok) return false;
    int t = pk == T_INT ? 0 : pk == T_UINT ? 1 : (pk == T_LONG || pk == T_LLONG) ? 5 : (pk == T_ULONG || pk == T_ULLONG) ? 2
          : pk == T_DOUBLE ? 3 : pk == T_FLOAT ? 4 : -1;
    int o = n->op == P_PLUS ? 0 : n->op == P_MINUS ? 1 : n->op == P_STAR ? 2 : -1;
    if (t < 0 || o < 0) return false;
    int w;
    if (pl->place == PL_SLOT) { w = 0; n->slot = pl->slot; }
    else if (pl->place == PL_GLOBAL) { w = 1; n->k.p = pl->k.p; }
    else if (is_fast_idx_pl(pl)) {
        fidx_t *x = pool_alloc(&g_in->pool, sizeof *x);
        fidx_init(x, pl);
        n->p = x;
        w = 2;
    } else w = 3;
    n->fn = ca_table[t][o][w];
    return true;
}

node_t *mk_compound(loc_t *l, int op, node_t *pl, node_t *rhs, type_t *optype) {
    node_t *n = node_new(l);
    n->ty = pl->ty;
    n->a = pl;
    n->b = rhs;
    n->op = op;
    n->kind = tcode(pl->ty);
    n->c = node_new(l);
    n->c->ty = optype;
    n->slot2 = ccode(optype);
    n->fn = ev_compound;
    if (pl->ty->kind == T_PTR) {
        n->esz = pl->ty->base->size ? (int64_t)pl->ty->base->size : 1;
        return n;
    }
    int pk = ccode(pl->ty);
    if (op == P_PLUS && optype->kind == T_DOUBLE && pk == T_DOUBLE) {
        bool dot = rhs->fn == mul_f64 && is_fast_idx(rhs->a) && is_fast_idx(rhs->b);
        if (pl->place == PL_GLOBAL) { n->fn = ev_addeq_f64_g; n->k.p = pl->k.p; }
        else if (pl->place == PL_SLOT) { n->fn = ev_addeq_f64_s; n->slot = pl->slot; }
        else dot = false;
        if (dot) {
            dot_t *d = pool_alloc(&g_in->pool, sizeof *d);
            fidx_init(&d->a, rhs->a->a);
            fidx_init(&d->b, rhs->b->a);
            n->p = d;
            n->fn = ev_dot;
        }
    } else if (op == P_PLUS && pl->place == PL_SLOT && (pk == T_LONG || pk == T_ULONG || pk == T_LLONG || pk == T_ULLONG) &&
               (optype->kind == T_LONG || optype->kind == T_ULONG || optype->kind == T_LLONG || optype->kind == T_ULLONG)) {
        n->fn = (optype->kind == T_LONG || optype->kind == T_LLONG) ? ev_addeq_s64_s : ev_addeq_i64_s;
        n->slot = pl->slot;
    } else if (op == P_PLUS && pl->place == PL_SLOT && pk == T_INT && optype->kind == T_INT) {
        n->fn = ev_addeq_i32_s;
        n->slot = pl->slot;
    }
    if (n->fn == ev_compound) ca_pick(n, pl, pk, n->slot2);
    return n;
}

static val_t ev_incdec(node_t *n, frame_t *f) {
    node_t *pl = n->a;
    char *a = pl->place == PL_SLOT ? NULL : pl->afn(pl, f, 1);
    val_t old = a ? load_code(n->kind, a) : f->slots[pl->slot], r;
    int pc = ccode(pl->ty);
    if (pc == T_PTR) r.u = ptr_add_at(old.u, n->k.i * n->esz, n);
    else if (code_is_float(pc)) { r.d = old.d + (double)n->k.i; if (pc == T_FLOAT) r.d = (float)r.d; }
    else if (pc == T_BOOL) r.i = n->k.i > 0 ? 1 : !old.i;
    else if (pc == T_INT || pc == T_LONG || pc == T_LLONG) {
        int64_t lim = pc == T_INT ? INT32_MAX : INT64_MAX, lo = pc == T_INT ? INT32_MIN : INT64_MIN;
        if (UNLIKELY(n->k.i > 0 ? old.i > lim - n->k.i : old.i < lo - n->k.i))
            ub_overflow_typed(n, pl->ty, n->k.i > 0 ? P_PLUS : P_MINUS, old.i, n->k.i > 0 ? n->k.i : -n->k.i);
        r.i = norm_int(pc, old.u + (uint64_t)n->k.i);
    } else r.i = norm_int(pc, old.u + (uint64_t)n->k.i);
    if (a) store_code(n->kind, a, r);
    else f->slots[pl->slot] = r;
    return n->op ? old : r;
}
/* ++ and -- of a slot: the old value when postfix (n->op), else the new */
static val_t ev_inc_i64_s(node_t *n, frame_t *f) {
    val_t o = f->slots[n->slot];
    f->slots[n->slot].u++;
    return n->op ? o : f->slots[n->slot];
}
static val_t ev_inc_i32_s(node_t *n, frame_t *f) {
    val_t o = f->slots[n->slot];
    if (UNLIKELY(o.i == INT32_MAX)) ub_overflow_typed(n, n->ty, P_PLUS, o.i, 1);
    f->slots[n->slot].i = o.i + 1;
    return n->op ? o : f->slots[n->slot];
}
static val_t ev_inc_s64_s(node_t *n, frame_t *f) {
    val_t o = f->slots[n->slot];
    if (UNLIKELY(o.i == INT64_MAX)) ub_overflow_typed(n, n->ty, P_PLUS, o.i, 1);
    f->slots[n->slot].i = o.i + 1;
    return n->op ? o : f->slots[n->slot];
}
static val_t ev_dec_s64_s(node_t *n, frame_t *f) {
    val_t o = f->slots[n->slot];
    if (UNLIKELY(o.i == INT64_MIN)) ub_overflow_typed(n, n->ty, P_MINUS, o.i, 1);
    f->slots[n->slot].i = o.i - 1;
    return n->op ? o : f->slots[n->slot];
}
static val_t ev_dec_i64_s(node_t *n, frame_t *f) {
    val_t o = f->slots[n->slot];
    f->slots[n->slot].u--;
    return n->op ? o : f->slots[n->slot];
}
static val_t ev_dec_i32_s(node_t *n, frame_t *f) {
    val_t o = f->slots[n->slot];
    if (UNLIKELY(o.i == INT32_MIN)) ub_overflow_typed(n, n->ty, P_MINUS, o.i, 1);
    f->slots[n->slot].i = o.i - 1;
    return n->op ? o : f->slots[n->slot];
}
node_t *mk_incdec(loc_t *l, node_t *pl, int delta, bool post) {
    node_t *n = node_new(l);
    n->ty = pl->ty;
    n->a = pl;
    n->k.i = delta;
    n->op = post;
    n->kind = tcode(pl->ty);
    n->esz = pl->ty->kind == T_PTR ? (pl->ty->base->size ? (int64_t)pl->ty->base->size : 1) : 0;
    n->fn = ev_incdec;
    int pc = ccode(pl->ty);
    if (pl->place == PL_SLOT && (delta == 1 || delta == -1)) {
        n->slot = pl->slot;
        bool up = delta == 1;
        if (pc == T_LONG || pc == T_LLONG) n->fn = up ? ev_inc_s64_s : ev_dec_s64_s;
        else if (pc == T_ULONG || pc == T_ULLONG) n->fn = up ? ev_inc_i64_s : ev_dec_i64_s;
        else if (pc == T_INT) n->fn = up ? ev_inc_i32_s : ev_dec_i32_s;
    }
    return n;
}

/* ---------------- counted loops' heads (exec_stmt.c) ---------------- */
/* for (init; i OP lim; i++ / i--) with i an integer local, lim a local, a
 * constant or a session variable, and the plain evaluators of each: what
 * the counted loop needs to know of condition c and step, and in *cmp which
 * comparison (CNT_*); false when the head is not such. */
bool counted_head(node_t *c, node_t *step, counted_t *hp, int *cmp) {
    if (!c || !step || !c->a || c->a->fn != ev_slot) return false; /* a folded condition has no a */
    counted_t h = {.i = c->a->slot, .sslot = step->slot};
    efn_t sf = step->fn;
    if (sf == ev_inc_i64_s || sf == ev_inc_i32_s || sf == ev_inc_s64_s) h.delta = 1;
    else if (sf == ev_dec_i64_s || sf == ev_dec_i32_s || sf == ev_dec_s64_s) h.delta = -1;
    else return false;
    h.s32 = sf == ev_inc_i32_s || sf == ev_dec_i32_s;
    /* the value a signed counter may not step from (unsigned ones wrap: an edge never met) */
    h.edge = sf == ev_inc_i32_s ? INT32_MAX : sf == ev_dec_i32_s ? INT32_MIN : sf == ev_inc_s64_s ? INT64_MAX
           : sf == ev_dec_s64_s ? INT64_MIN : 0;
    h.checked = sf != ev_inc_i64_s && sf != ev_dec_i64_s;
    node_t *lim = c->b; /* none where c is unary: for (...; !i; i++) */
    if (!lim) return false;
    if (lim->fn == ev_const) { h.lk = LK_CONST; h.k = lim->k.i; }
    else if (lim->fn == ev_slot) { h.lk = LK_SLOT; h.ls = lim->slot; }
    else if (lim->fn == ev_gload_i64) { h.lk = LK_G64; h.lg = lim->k.p; }
    else if (lim->fn == ev_gload_i32) { h.lk = LK_G32; h.lg = lim->k.p; }
    else return false;
    efn_t cf = c->fn;
    *cmp = cf == lt_s ? CNT_LT_S : cf == le_s ? CNT_LE_S : cf == gt_s ? CNT_GT_S : cf == ge_s ? CNT_GE_S
         : cf == lt_u ? CNT_LT_U : cf == le_u ? CNT_LE_U : cf == gt_u ? CNT_GT_U : cf == ge_u ? CNT_GE_U
         : cf == ne_i ? CNT_NE : -1;
    if (*cmp < 0) return false;
    *hp = h;
    return true;
}

/* ---------------- what each evaluator computes (eval.h, for the native tier) ----------------
 * An evaluator that is not listed here (a new specialised one, printf, a
 * call, a launch) simply keeps its loop interpreted. */
/* exec.c's own evaluators (calls.c's eval_expr_kind asks here after its own) */
int exec_expr_kind(node_t *n) {
    efn_t f = n->fn;
    if (!f) return NK_NONE;
    if (f == ev_const) return NK_CONST;
    if (f == ev_slot) return NK_SLOT;
    if (f == ev_cast || f == ev_cast_i32 || f == ev_cast_u32 || f == ev_cast_s2d || f == ev_cast_d2f ||
        f == ev_cast_d2i || f == ev_cast_d2l || f == ev_test_d || f == ev_test_i)
        return NK_CAST;
#define X(nm, c) if (f == ev_load_##nm || f == ev_gload_##nm || f == ev_fload_##nm || f == ev_iload_##nm || \
                      f == ev_xload_##nm) return NK_LOAD;
    LOADFNS(X)
#undef X
#define X(nm, c) if (f == ev_xassign_##nm) return NK_ASSIGN;
    LOADFNS(X)
#undef X
    if (f == ev_ptr_add) return NK_PTRADD;
    if (f == ev_ptr_sub) return NK_PTRSUB;
    if (f == ev_ptr_addk) return NK_PTRADDK;
    if (f == ev_arith || f == add_i32 || f == sub_i32 || f == mul_i32 || f == add_u32 || f == sub_u32 ||
        f == mul_u32 || f == add_64 || f == sub_64 || f == mul_64 || f == add_s64 || f == sub_s64 ||
        f == mul_s64 || f == add_f64 || f == sub_f64 ||
        f == mul_f64 || f == div_f64 || f == add_f32 || f == sub_f32 || f == mul_f32 || f == div_f32 ||
        f == and_i || f == or_i || f == xor_i)
        return NK_ARITH;
    if (f == lt_s || f == le_s || f == gt_s || f == ge_s || f == lt_u || f == le_u || f == gt_u || f == ge_u ||
        f == eq_i || f == ne_i || f == lt_d || f == le_d || f == gt_d || f == ge_d || f == eq_d || f == ne_d ||
        f == lt_p || f == le_p || f == gt_p || f == ge_p)
        return NK_CMP;
    if (f == ev_neg) return NK_NEG;
    if (f == ev_bnot) return NK_BNOT;
    if (f == ev_land) return NK_LAND;
    if (f == ev_lor) return NK_LOR;
    if (f == ev_not) return NK_NOT;
    if (f == ev_cond) return NK_COND;
    if (f == ev_comma) return NK_COMMA;
    if (f == ev_assign_slot || f == ev_assign || f == ev_assign_g || f == ev_assign_f64_idx) return NK_ASSIGN;
    if (f == ev_compound || f == ev_addeq_f64_g || f == ev_addeq_f64_s || f == ev_addeq_i64_s ||
        f == ev_addeq_i32_s || f == ev_addeq_s64_s || f == ev_dot)
        return NK_COMPOUND;
    for (int t = 0; t < (int)(sizeof ca_table / sizeof ca_table[0]); t++)
        for (int o = 0; o < 3; o++)
            for (int w = 0; w < 4; w++)
                if (f == ca_table[t][o][w]) return NK_COMPOUND;
    if (f == ev_incdec || f == ev_inc_i64_s || f == ev_inc_i32_s || f == ev_dec_i64_s || f == ev_dec_i32_s ||
        f == ev_inc_s64_s || f == ev_dec_s64_s)
        return NK_INCDEC;
    return NK_NONE;
}

/* Is this place's address computed the way the native tier assumes (pa_*)? */
int eval_place_kind(node_t *pl) {
    switch (pl->place) {
    case PL_SLOT: return 1;
    case PL_FRAME: return pl->afn == pa_frame;
    case PL_GLOBAL: return pl->afn == pa_global;
    case PL_DEREF: return pl->afn == pa_deref;
    case PL_INDEX: return pl->afn == pa_index_ptr ? 1 : pl->afn == pa_index_arr ? 2 : 0;
    case PL_MEMBER: return pl->afn == pa_member;
    default: return 0;
    }
}

_Noreturn void eval_index_fail(node_t *n, int64_t i, int wr) { index_fail(n, i, wr); }
_Noreturn void eval_div0(node_t *n) { div0(n); }
_Noreturn void eval_divovf(node_t *n) { divovf(n); }
