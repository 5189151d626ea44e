/* The evaluator's small inline pieces, shared by exec.c (expressions and
 * places), exec_stmt.c (statements) and calls.c (frames and calls), and read
 * by the stages that evaluate nodes themselves (the native tier, C++
 * objects): how a node's value is read in the common cases, and how a value
 * of a type code is loaded and stored. Only runtime/lang includes it. */
#ifndef ICUDA_EXEC_INLINE_H
#define ICUDA_EXEC_INLINE_H

#include <string.h>
#include "eval.h"

val_t ev_const(node_t *n, frame_t *f);
val_t ev_slot(node_t *n, frame_t *f);

/* A node's value, without the call for the two commonest kinds. */
static inline val_t EV(node_t *x, frame_t *f) {
    if (x->fn == ev_slot) return f->slots[x->slot];
    if (x->fn == ev_const) return x->k;
    return x->fn(x, f);
}

/* an integer result normalised to its operating type, as a val_t holds it */
#define NI32(x) ((int64_t)(int32_t)(uint32_t)(x))
#define NU32(x) ((int64_t)(uint32_t)(x))
#define NI64(x) ((int64_t)(uint64_t)(x))
#define NU64(x) ((int64_t)(uint64_t)(x))

/* A counted loop's head, for (init; i OP lim; i++ / i--) (exec_stmt.c),
 * as exec.c's counted_head reads it from the condition's and the step's
 * evaluators: the counter's slot i and the slot sslot the step writes
 * (s32: a 32-bit int), the step delta (+1 or -1), and where the limit is
 * read (lk: a constant k, a slot ls, a session variable's bytes lg of 64
 * or 32 bits). checked: the counter is signed, and stepping from edge is
 * an overflow. */
enum { LK_CONST, LK_SLOT, LK_G64, LK_G32 };
typedef struct counted { int i, ls, lk, sslot, s32; int64_t k, delta; const char *lg; int64_t edge; int checked; } counted_t;
enum { CNT_LT_S, CNT_LE_S, CNT_GT_S, CNT_GE_S, CNT_LT_U, CNT_LE_U, CNT_GT_U, CNT_GE_U, CNT_NE };
bool counted_head(node_t *c, node_t *step, counted_t *h, int *cmp);

/* what exec.c's own evaluators compute (eval.h NK_*), NK_NONE for others */
int exec_expr_kind(node_t *n);

/* ---------------- memory access by type ---------------- */
#define LD(ct, a) ({ ct x_; memcpy(&x_, (a), sizeof x_); x_; })
#define ST(ct, a, v) do { ct x_ = (ct)(v); memcpy((a), &x_, sizeof x_); } while (0)

static inline int tcode(type_t *t) {
    if (t->is_enum) return t->is_unsigned ? T_UINT : T_INT;
    switch (t->kind) {
    case T_LLONG: return T_LONG;
    case T_ULLONG: case T_ULONG: case T_PTR: return T_ULONG;
    case T_LDOUBLE: return T_DOUBLE;
    default: return (int)t->kind;
    }
}

static inline val_t load_code(int c, const char *a) {
    val_t v;
    switch (c) {
    case T_BOOL: v.i = LD(uint8_t, a) != 0; break;
    case T_CHAR: case T_SCHAR: v.i = LD(int8_t, a); break;
    case T_UCHAR: v.i = LD(uint8_t, a); break;
    case T_SHORT: v.i = LD(int16_t, a); break;
    case T_USHORT: v.i = LD(uint16_t, a); break;
    case T_INT: v.i = LD(int32_t, a); break;
    case T_UINT: v.i = LD(uint32_t, a); break;
    case T_FLOAT: v.d = LD(float, a); break;
    case T_DOUBLE: v.d = LD(double, a); break;
    default: v.u = LD(uint64_t, a); break;
    }
    return v;
}

static inline void store_code(int c, char *a, val_t v) {
    switch (c) {
    case T_BOOL: ST(uint8_t, a, v.i != 0); break;
    case T_CHAR: case T_SCHAR: case T_UCHAR: ST(uint8_t, a, (uint8_t)v.u); break;
    case T_SHORT: case T_USHORT: ST(uint16_t, a, (uint16_t)v.u); break;
    case T_INT: case T_UINT: ST(uint32_t, a, (uint32_t)v.u); break;
    case T_FLOAT: ST(float, a, (float)v.d); break;
    case T_DOUBLE: ST(double, a, v.d); break;
    default: ST(uint64_t, a, v.u); break;
    }
}

#endif
