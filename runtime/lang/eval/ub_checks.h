/* Undefined behaviour in host code as errors (ub_checks.c): the cold paths
 * that word each error, and the checked pointer arithmetic every evaluator
 * (and the native tier's code) uses. */
#ifndef ICUDA_LANG_EVAL_UB_CHECKS_H
#define ICUDA_LANG_EVAL_UB_CHECKS_H

#include "runtime/lang/core/core.h"
#include "mem.h"

_Noreturn void ub_overflow(node_t *n, int op, int64_t a, int64_t b);
_Noreturn void ub_overflow_typed(node_t *n, type_t *t, int op, int64_t a, int64_t b);
void ub_shift_check(node_t *n, int op, int k, int64_t x, int64_t count);
void ub_float_to_int(node_t *n, double d, int to);
/* The open range (lo, hi) of doubles that convert to integer type code to; false: no limit. */
bool ub_f2i_range(int to, double *lo, double *hi);
_Noreturn void ub_negation(node_t *n, int64_t a);
/* Would a op b (operating kind k, b of type bt) be undefined? For constant folding. */
bool ub_would_fault(int op, int k, int64_t a, int64_t b, type_t *bt);
_Noreturn void ub_pointer_wrap(node_t *n, uint64_t p, int64_t d);
/* p + d for pointer arithmetic in host code: an error, never a wrap of the
 * 36-bit offset field onto another address of the same buffer's word. */
static inline uint64_t ptr_add_at(uint64_t p, int64_t d, node_t *at) {
    if (ptr_is_raw(p)) return p + (uint64_t)d;
    int64_t o;
    if (UNLIKELY(__builtin_add_overflow(ptr_off(p), d, &o) || o >= (INT64_C(1) << (PTR_OFF_BITS - 1)) ||
                 o < -(INT64_C(1) << (PTR_OFF_BITS - 1))))
        ub_pointer_wrap(at, p, d);
    return (p & ~PTR_OFF_MASK) | ((uint64_t)o & PTR_OFF_MASK);
}
/* i * esz for pointer arithmetic, which may not overflow either */
static inline int64_t ptr_scale_at(int64_t i, int64_t esz, uint64_t p, node_t *at) {
    int64_t d;
    if (UNLIKELY(__builtin_mul_overflow(i, esz, &d))) ub_pointer_wrap(at, p, i);
    return d;
}

#endif
