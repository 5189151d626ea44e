/* <limits>: std::numeric_limits<T>::max() and its siblings for the
 * arithmetic types, folded to constants of T at parse time, as the
 * constexpr members of libstdc++'s numeric_limits are. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cxx_lib.h"

static node_t *int_limit(loc_t *l, type_t *t, const char *m, bool *found) {
    int bits = (int)t->size * 8 - (t->is_unsigned ? 0 : 1);
    int64_t hi = t->kind == T_BOOL ? 1 : t->is_unsigned && t->size == 8 ? -1 : (int64_t)((((uint64_t)1 << (bits - 1)) - 1) * 2 + 1);
    int64_t lo = t->kind == T_BOOL || t->is_unsigned ? 0 : -hi - 1;
    *found = true;
    if (!strcmp(m, "max")) return mk_int(l, t, hi);
    if (!strcmp(m, "min") || !strcmp(m, "lowest")) return mk_int(l, t, lo);
    if (!strcmp(m, "epsilon") || !strcmp(m, "round_error") || !strcmp(m, "infinity") || !strcmp(m, "quiet_NaN") ||
        !strcmp(m, "denorm_min"))
        return mk_int(l, t, 0);
    if (!strcmp(m, "digits")) return mk_int(l, &ty_int, t->kind == T_BOOL ? 1 : bits);
    if (!strcmp(m, "digits10")) return mk_int(l, &ty_int, t->kind == T_BOOL ? 0 : (int)(bits * 0.30102999566398120));
    if (!strcmp(m, "is_signed")) return mk_int(l, &ty_bool, !t->is_unsigned && t->kind != T_BOOL);
    if (!strcmp(m, "is_integer") || !strcmp(m, "is_exact") || !strcmp(m, "is_specialized")) return mk_int(l, &ty_bool, 1);
    if (!strcmp(m, "has_infinity") || !strcmp(m, "has_quiet_NaN")) return mk_int(l, &ty_bool, 0);
    *found = false;
    return NULL;
}

static node_t *float_limit(loc_t *l, type_t *t, const char *m, bool *found) {
    bool f = t->kind == T_FLOAT;
    double v;
    *found = true;
    if (!strcmp(m, "max")) v = f ? FLT_MAX : DBL_MAX;
    else if (!strcmp(m, "min")) v = f ? FLT_MIN : DBL_MIN;
    else if (!strcmp(m, "lowest")) v = f ? -FLT_MAX : -DBL_MAX;
    else if (!strcmp(m, "epsilon")) v = f ? FLT_EPSILON : DBL_EPSILON;
    else if (!strcmp(m, "round_error")) v = 0.5;
    else if (!strcmp(m, "infinity")) v = INFINITY;
    else if (!strcmp(m, "quiet_NaN")) v = NAN;
    else if (!strcmp(m, "denorm_min")) v = f ? 0x1p-149 : 0x1p-1074;
    else if (!strcmp(m, "digits")) return mk_int(l, &ty_int, f ? FLT_MANT_DIG : DBL_MANT_DIG);
    else if (!strcmp(m, "digits10")) return mk_int(l, &ty_int, f ? FLT_DIG : DBL_DIG);
    else if (!strcmp(m, "max_digits10")) return mk_int(l, &ty_int, f ? 9 : 17);
    else if (!strcmp(m, "is_signed") || !strcmp(m, "has_infinity") || !strcmp(m, "has_quiet_NaN") ||
             !strcmp(m, "is_specialized"))
        return mk_int(l, &ty_bool, 1);
    else if (!strcmp(m, "is_integer") || !strcmp(m, "is_exact")) return mk_int(l, &ty_bool, 0);
    else {
        *found = false;
        return NULL;
    }
    return mk_const(l, t, (val_t){.d = v});
}

/* std::numeric_limits<T>::member or ::member() */
static node_t *fn_numeric_limits(P *p, loc_t *l) {
    if (!accept(p, P_LT)) type_error(l, "numeric_limits needs its type: std::numeric_limits<float>::max()");
    type_t *t = ty_unqual(abstract_type(p));
    if (!cx_template_close(p)) expected(p, "'>'");
    if (!accept(p, P_SCOPE) || TOK->kind != TK_IDENT) expected(p, "'::' and a member (max, min, lowest, epsilon, ...)");
    char m[32];
    snprintf(m, sizeof m, "%.*s", TOK->n, TOK->s);
    p->i++;
    bool found = false;
    node_t *v = NULL;
    if (ty_is_int(t) && !t->is_enum) v = int_limit(l, t, m, &found);
    else if (t->kind == T_FLOAT || t->kind == T_DOUBLE) v = float_limit(l, t, m, &found);
    else type_error(l, "std::numeric_limits<%s> is not defined here: it takes the arithmetic types", tyname(t));
    if (!found) type_error(l, "std::numeric_limits has no member '%s' here (max, min, lowest, epsilon, infinity, quiet_NaN, digits, is_signed, ...)", m);
    if (accept(p, P_LPAREN)) expect(p, P_RPAREN, "')'");
    return v;
}

void cxx_limits_register(interp_t *in) { cx_register_libfn(in, "std::numeric_limits", fn_numeric_limits); }
