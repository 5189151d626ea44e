/* The evaluator's small inline pieces, shared by exec.c (expressions,
 * places, statements) and calls.c (frames and calls): how a node's value is
 * read in the common cases, and how a value of a type code is loaded and
 * stored. Only runtime/lang includes it. */
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
