/* math.h: every function calls libm itself, so results match a gcc program
 * bit for bit; the float variants round through float as C does. */
#include <math.h>
#include <string.h>
#include "lib.h"

typedef double (*d1_t)(double);
typedef double (*d2_t)(double, double);
typedef float (*f1_t)(float);
typedef float (*f2_t)(float, float);

static void *bdata(node_t *c) { return ((builtin_t *)c->p)->data; }
static val_t m_d1(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = ((d1_t)bdata(c))(a[0].d)}; }
static val_t m_d2(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = ((d2_t)bdata(c))(a[0].d, a[1].d)}; }
static val_t m_f1(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = ((f1_t)bdata(c))((float)a[0].d)}; }
static val_t m_f2(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = ((f2_t)bdata(c))((float)a[0].d, (float)a[1].d)}; }
static val_t m_fma(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = fma(a[0].d, a[1].d, a[2].d)}; }
static val_t m_fmaf(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = fmaf((float)a[0].d, (float)a[1].d, (float)a[2].d)}; }
static val_t m_ldexp(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = ldexp(a[0].d, (int)a[1].i)}; }
static val_t m_ldexpf(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = ldexpf((float)a[0].d, (int)a[1].i)}; }
static val_t m_isnan(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = isnan(a[0].d) != 0}; }
static val_t m_isinf(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = isinf(a[0].d) ? (a[0].d > 0 ? 1 : -1) : 0}; }
static val_t m_isfinite(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = isfinite(a[0].d) != 0}; }
static val_t m_signbit(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = signbit(a[0].d) != 0}; }
static val_t m_lround(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = lround(a[0].d)}; }
static val_t m_lrint(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = lrint(a[0].d)}; }
static val_t m_inff(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = INFINITY}; }
static val_t m_nanf(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = (double)__builtin_nanf("")}; }
static val_t m_frexp(node_t *c, val_t *a, int n, frame_t *f) {
    int e;
    double r = frexp(a[0].d, &e);
    char *p = mem_at(a[1].u, 4, 1, c->list[1]);
    memcpy(p, &e, 4);
    return (val_t){.d = r};
}
static val_t m_modf(node_t *c, val_t *a, int n, frame_t *f) {
    double ip;
    double r = modf(a[0].d, &ip);
    char *p = mem_at(a[1].u, 8, 1, c->list[1]);
    memcpy(p, &ip, 8);
    return (val_t){.d = r};
}

#define D1(nm) builtin_add(in, #nm, m_d1, 0)->data = (void *)(d1_t)nm; \
               builtin_add(in, #nm "f", m_f1, 0)->data = (void *)(f1_t)nm##f
#define D2(nm) builtin_add(in, #nm, m_d2, 0)->data = (void *)(d2_t)nm; \
               builtin_add(in, #nm "f", m_f2, 0)->data = (void *)(f2_t)nm##f

void builtins_math_register(interp_t *in) {
    D1(sqrt); D1(cbrt); D1(fabs); D1(exp); D1(exp2); D1(expm1); D1(log); D1(log2); D1(log10);
    D1(log1p); D1(sin); D1(cos); D1(tan); D1(asin); D1(acos); D1(atan); D1(sinh); D1(cosh);
    D1(tanh); D1(asinh); D1(acosh); D1(atanh); D1(floor); D1(ceil); D1(round); D1(trunc);
    D1(rint); D1(nearbyint); D1(erf); D1(erfc); D1(tgamma); D1(lgamma);
    D2(pow); D2(atan2); D2(fmod); D2(fmin); D2(fmax); D2(hypot); D2(copysign); D2(fdim);
    D2(remainder); D2(nextafter);
    builtin_add(in, "fma", m_fma, 0);
    builtin_add(in, "fmaf", m_fmaf, 0);
    builtin_add(in, "ldexp", m_ldexp, 0);
    builtin_add(in, "ldexpf", m_ldexpf, 0);
    builtin_add(in, "frexp", m_frexp, 0);
    builtin_add(in, "modf", m_modf, 0);
    builtin_add(in, "__icuda_isnan", m_isnan, 0);
    builtin_add(in, "__icuda_isinf", m_isinf, 0);
    builtin_add(in, "__icuda_isfinite", m_isfinite, 0);
    builtin_add(in, "__icuda_signbit", m_signbit, 0);
    builtin_add(in, "lround", m_lround, 0);
    builtin_add(in, "llround", m_lround, 0);
    builtin_add(in, "lrint", m_lrint, 0);
    builtin_add(in, "__builtin_inff", m_inff, 0);
    builtin_add(in, "__builtin_nanf", m_nanf, 0);
}
