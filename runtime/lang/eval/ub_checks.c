/* Undefined behaviour in host code is an error, named as UBSan names it, so
 * that a cell never goes on with a value C does not define: signed overflow in + - * ++ --, shifts by a negative count or
 * by the width or more, left shifts of negative values or past the type,
 * floating values out of an integer type's range, and pointer arithmetic
 * that leaves every buffer's reach. The evaluator tests for the fault
 * inline (exec.c, exec_stmt.c); these cold paths only word the error. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include "ub_checks.h"

static const char *type_of(node_t *n, char *buf, size_t cap) {
    type_t *t = n->c && n->c->ty ? n->c->ty : n->ty; /* x op= y: the operating type */
    if (!t) return "int";
    return ty_name(t, buf, cap);
}

_Noreturn __attribute__((cold)) void ub_overflow(node_t *n, int op, int64_t a, int64_t b) {
    char tn[64];
    const char *ops = op == P_PLUS ? "+" : op == P_MINUS ? "-" : "*";
    rt_error(n, "signed integer overflow: %" PRId64 " %s %" PRId64 " cannot be represented in type '%s'", a, ops, b,
             type_of(n, tn, sizeof tn));
}

_Noreturn __attribute__((cold)) void ub_overflow_typed(node_t *n, type_t *t, int op, int64_t a, int64_t b) {
    char tn[64];
    const char *ops = op == P_PLUS ? "+" : op == P_MINUS ? "-" : "*";
    rt_error(n, "signed integer overflow: %" PRId64 " %s %" PRId64 " cannot be represented in type '%s'", a, ops, b,
             ty_name(t, tn, sizeof tn));
}

void ub_shift_check(node_t *n, int op, int k, int64_t x, int64_t count) {
    char tn[64];
    int width = (k == K_I32 || k == K_U32) ? 32 : 64;
    node_t *cn = n->b;
    int ck = cn && cn->ty ? ty_opkind(cn->ty) : K_I32;
    bool count_signed = ck != K_U32 && ck != K_U64;
    if (count_signed && count < 0) rt_error(n, "shift exponent %" PRId64 " is negative", count);
    if ((uint64_t)count >= (uint64_t)width) {
        if (count_signed) rt_error(n, "shift exponent %" PRId64 " is too large for %d-bit type '%s'", count, width, type_of(n, tn, sizeof tn));
        rt_error(n, "shift exponent %" PRIu64 " is too large for %d-bit type '%s'", (uint64_t)count, width, type_of(n, tn, sizeof tn));
    }
    if (op != P_SHL || (k != K_I32 && k != K_I64)) return;
    if (x < 0) rt_error(n, "left shift of negative value %" PRId64, x);
    /* the bits shifted out, and the sign bit, must be zero */
    if (count > 0 && (uint64_t)x >> (width - 1 - count) != 0)
        rt_error(n, "left shift of %" PRId64 " by %" PRId64 " places cannot be represented in type '%s'", x, count,
                 type_of(n, tn, sizeof tn));
}

/* The open range (lo, hi) of doubles that convert to integer type code to. */
bool ub_f2i_range(int to, double *lo, double *hi) {
    switch (to) {
    case T_CHAR: case T_SCHAR: *lo = -129.0, *hi = 128.0; return true;
    case T_UCHAR: *lo = -1.0, *hi = 256.0; return true;
    case T_SHORT: *lo = -32769.0, *hi = 32768.0; return true;
    case T_USHORT: *lo = -1.0, *hi = 65536.0; return true;
    case T_INT: *lo = -2147483649.0, *hi = 2147483648.0; return true;
    case T_UINT: *lo = -1.0, *hi = 4294967296.0; return true;
    case T_LONG: case T_LLONG: *lo = -9223372036854777856.0, *hi = 9223372036854775808.0; return true;
    case T_ULONG: case T_ULLONG: *lo = -1.0, *hi = 18446744073709551616.0; return true;
    }
    return false;
}

void ub_float_to_int(node_t *n, double d, int to) {
    double lo, hi;
    if (!ub_f2i_range(to, &lo, &hi)) return;
    if (d > lo && d < hi) return;
    char tn[64], v[40];
    snprintf(v, sizeof v, "%g", d);
    rt_error(n, "%s is outside the range of representable values of type '%s'", v, n->ty ? ty_name(n->ty, tn, sizeof tn) : "int");
}

_Noreturn __attribute__((cold)) void ub_pointer_wrap(node_t *n, uint64_t p, int64_t d) {
    char b[128];
    rt_error(n, "pointer arithmetic: %s moves the pointer %" PRId64 " bytes from its offset %" PRId64
                " in its buffer, farther than any buffer reaches (it would wrap onto another address)",
             n ? loc_text(&n->loc, b, sizeof b) : "this", d, ptr_off(p));
}

_Noreturn __attribute__((cold)) void ub_negation(node_t *n, int64_t a) {
    char tn[64];
    rt_error(n, "negation of %" PRId64 " cannot be represented in type '%s'; cast to an unsigned type to negate this "
                "value to itself", a, n->ty ? ty_name(n->ty, tn, sizeof tn) : "int");
}

bool ub_would_fault(int op, int k, int64_t a, int64_t b, type_t *bt) {
    int64_t s;
    if (k == K_I64 && op == P_PLUS) return __builtin_add_overflow(a, b, &s);
    if (k == K_I64 && op == P_MINUS) return __builtin_sub_overflow(a, b, &s);
    if (k == K_I64 && op == P_STAR) return __builtin_mul_overflow(a, b, &s);
    if (k == K_I32 && (op == P_PLUS || op == P_MINUS || op == P_STAR)) {
        /* checked in 64 bits too: an operand need not be an int's value (fuzz_interp) */
        bool o = op == P_PLUS ? __builtin_add_overflow(a, b, &s) : op == P_MINUS ? __builtin_sub_overflow(a, b, &s)
                                                                   : __builtin_mul_overflow(a, b, &s);
        return o || s != (int32_t)s;
    }
    if ((op == P_SHL || op == P_SHR) && k != K_F32 && k != K_F64) {
        int width = (k == K_I32 || k == K_U32) ? 32 : 64;
        int ck = bt ? ty_opkind(bt) : K_I32;
        bool count_signed = ck != K_U32 && ck != K_U64;
        if ((count_signed && b < 0) || (uint64_t)b >= (uint64_t)width) return true;
        if (op == P_SHL && (k == K_I32 || k == K_I64)) return a < 0 || (b > 0 && (uint64_t)a >> (width - 1 - b) != 0);
    }
    return false;
}
