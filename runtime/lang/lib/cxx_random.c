/* <random>: the engines std::mt19937, std::mt19937_64, std::minstd_rand0
 * (= std::default_random_engine in libstdc++) and std::minstd_rand,
 * std::random_device, and uniform_int_distribution, uniform_real_distribution
 * and normal_distribution, each with libstdc++'s own algorithm (Lemire's
 * nearly divisionless downscaling or the two-division fallback for
 * integers, generate_canonical for reals, the Marsaglia polar method with
 * its saved second value for normals), in the same float or double
 * arithmetic, so that dist(gen) gives the numbers g++ gives. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "cxx_lib.h"


enum { G_MT, G_MT64, G_MINSTD0, G_MINSTD, G_RDEV };

/* ---------------- engines ---------------- */
typedef struct { uint64_t x[624]; uint64_t p; } mt32_t;
typedef struct { uint64_t x[312]; uint64_t p; } mt64_t;

static void mt32_seed(mt32_t *g, uint64_t s) {
    g->x[0] = s & 0xffffffffu;
    for (uint64_t i = 1; i < 624; i++) {
        uint64_t x = g->x[i - 1];
        x ^= x >> 30;
        x *= 1812433253u;
        x += i;
        g->x[i] = x & 0xffffffffu;
    }
    g->p = 624;
}
static uint64_t mt32_next(mt32_t *g) {
    if (g->p >= 624) {
        const uint64_t up = ~UINT64_C(0) << 31 & 0xffffffffu, lo = ~up & 0xffffffffu, a = 0x9908b0dfu;
        for (int k = 0; k < 624 - 397; k++) {
            uint64_t y = (g->x[k] & up) | (g->x[k + 1] & lo);
            g->x[k] = g->x[k + 397] ^ (y >> 1) ^ ((y & 1) ? a : 0);
        }
        for (int k = 624 - 397; k < 623; k++) {
            uint64_t y = (g->x[k] & up) | (g->x[k + 1] & lo);
            g->x[k] = g->x[k + (397 - 624)] ^ (y >> 1) ^ ((y & 1) ? a : 0);
        }
        uint64_t y = (g->x[623] & up) | (g->x[0] & lo);
        g->x[623] = g->x[396] ^ (y >> 1) ^ ((y & 1) ? a : 0);
        g->p = 0;
    }
    uint64_t z = g->x[g->p++];
    z ^= (z >> 11) & 0xffffffffu;
    z ^= (z << 7) & 0x9d2c5680u;
    z ^= (z << 15) & 0xefc60000u;
    z ^= z >> 18;
    return z & 0xffffffffu;
}
static void mt64_seed(mt64_t *g, uint64_t s) {
    g->x[0] = s;
    for (uint64_t i = 1; i < 312; i++) {
        uint64_t x = g->x[i - 1];
        x ^= x >> 62;
        x *= UINT64_C(6364136223846793005);
        x += i;
        g->x[i] = x;
    }
    g->p = 312;
}
static uint64_t mt64_next(mt64_t *g) {
    if (g->p >= 312) {
        const uint64_t up = ~UINT64_C(0) << 31, lo = ~up, a = UINT64_C(0xb5026f5aa96619e9);
        for (int k = 0; k < 312 - 156; k++) {
            uint64_t y = (g->x[k] & up) | (g->x[k + 1] & lo);
            g->x[k] = g->x[k + 156] ^ (y >> 1) ^ ((y & 1) ? a : 0);
        }
        for (int k = 312 - 156; k < 311; k++) {
            uint64_t y = (g->x[k] & up) | (g->x[k + 1] & lo);
            g->x[k] = g->x[k + (156 - 312)] ^ (y >> 1) ^ ((y & 1) ? a : 0);
        }
        uint64_t y = (g->x[311] & up) | (g->x[0] & lo);
        g->x[311] = g->x[155] ^ (y >> 1) ^ ((y & 1) ? a : 0);
        g->p = 0;
    }
    uint64_t z = g->x[g->p++];
    z ^= (z >> 29) & UINT64_C(0x5555555555555555);
    z ^= (z << 17) & UINT64_C(0x71d67fffeda60000);
    z ^= (z << 37) & UINT64_C(0xfff7eee000000000);
    z ^= z >> 43;
    return z;
}
static void lcg_seed(uint64_t *x, uint64_t s) { s %= 2147483647u; *x = s ? s : 1; }
static uint64_t lcg_next(uint64_t *x, uint64_t a) { *x = (*x * a) % 2147483647u; return *x; }

static const struct { uint64_t min, max; size_t size; } gen_info[] = {
    [G_MT] = {0, 0xffffffffu, sizeof(mt32_t)}, [G_MT64] = {0, UINT64_MAX, sizeof(mt64_t)},
    [G_MINSTD0] = {1, 2147483646u, 8}, [G_MINSTD] = {1, 2147483646u, 8}, [G_RDEV] = {0, 0xffffffffu, 1},
};

static uint64_t gen_next(int kind, uint64_t w, node_t *at) {
    char *o = mem_at(w, gen_info[kind].size, 1, at);
    switch (kind) {
    case G_MT: return mt32_next((mt32_t *)o);
    case G_MT64: return mt64_next((mt64_t *)o);
    case G_MINSTD0: return lcg_next((uint64_t *)o, 16807);
    case G_MINSTD: return lcg_next((uint64_t *)o, 48271);
    default: {
        uint32_t r = 0;
        if (getrandom(&r, sizeof r, 0) != sizeof r) r = (uint32_t)time(NULL) * 2654435761u ^ (uint32_t)clock();
        return r;
    }
    }
}
static void gen_seed(int kind, char *o, uint64_t s) {
    switch (kind) {
    case G_MT: mt32_seed((mt32_t *)o, s); break;
    case G_MT64: mt64_seed((mt64_t *)o, s); break;
    default: lcg_seed((uint64_t *)o, s); break;
    }
}

static int gen_kind(node_t *c) { return (int)((cx_class_t *)((builtin_t *)c->p)->data)->iarg[0]; }
static val_t g_ctor0(node_t *c, val_t *a, int n, frame_t *f) {
    int k = gen_kind(c);
    gen_seed(k, cx_obj(a, 0, gen_info[k].size, c), k == G_MT || k == G_MT64 ? 5489 : 1);
    return (val_t){.u = 0};
}
static val_t g_seed(node_t *c, val_t *a, int n, frame_t *f) {
    int k = gen_kind(c);
    gen_seed(k, cx_obj(a, 0, gen_info[k].size, c), a[1].u);
    return (val_t){.u = 0};
}
static val_t g_call(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = gen_next(gen_kind(c), a[0].u, c)}; }
static val_t g_discard(node_t *c, val_t *a, int n, frame_t *f) {
    for (uint64_t i = 0; i < a[1].u; i++) {
        if ((i & 0xfffff) == 0xfffff) poll_interrupt(c);
        gen_next(gen_kind(c), a[0].u, c);
    }
    return (val_t){.u = 0};
}
static val_t g_min(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = gen_info[gen_kind(c)].min}; }
static val_t g_max(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = gen_info[gen_kind(c)].max}; }
static val_t rd_entropy(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = 0.0}; }

static void engine_class(interp_t *in, const char *name, int kind, const char **aliases) {
    cx_class_t *c;
    type_t *rt = kind == G_RDEV ? &ty_uint : &ty_ulong;
    type_t *t = cx_lib_class(in, name, gen_info[kind].size, 8, kind == G_RDEV ? LIB_RANDOM_DEVICE : LIB_MT19937, &c);
    if (kind == G_RDEV) t->align = 1;
    c->iarg[0] = kind;
    cx_lib_type_name(in, name, t);
    for (int i = 0; aliases && aliases[i]; i++) cx_lib_type_name(in, aliases[i], t);
    cx_method_t *m;
    if (kind != G_RDEV) {
        cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 0), g_ctor0, c);
        cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 1, &ty_ulong), g_seed, c);
        m = cx_lib_method(in, c, "seed", cx_fty(&ty_void, 1, &ty_ulong), g_seed, c);
        m->nreq = 0;
        m->defv[0].u = kind == G_MT || kind == G_MT64 ? 5489 : 1;
        cx_lib_method(in, c, "discard", cx_fty(&ty_void, 1, &ty_ulong), g_discard, c);
    } else cx_lib_method(in, c, "entropy", cx_fty(&ty_double, 0), rd_entropy, c);
    cx_lib_method(in, c, "operator()", cx_fty(rt, 0), g_call, c);
    m = cx_lib_method(in, c, "min", cx_fty(rt, 0), g_min, c);
    m->is_static = true;
    m = cx_lib_method(in, c, "max", cx_fty(rt, 0), g_max, c);
    m->is_static = true;
}

/* ---------------- generate_canonical ---------------- */
static double canonical_d(int kind, uint64_t w, node_t *at) {
    long double r = (long double)gen_info[kind].max - (long double)gen_info[kind].min + 1.0L;
    size_t log2r = (size_t)(logl(r) / logl(2.0L));
    size_t m = (53 + log2r - 1) / log2r;
    if (m < 1) m = 1;
    double sum = 0, tmp = 1;
    for (size_t k = m; k; k--) {
        sum += (double)(gen_next(kind, w, at) - gen_info[kind].min) * tmp;
        tmp = (double)((long double)tmp * r);
    }
    double ret = sum / tmp;
    if (ret >= 1.0) ret = nextafter(1.0, 0.0);
    return ret;
}
static float canonical_f(int kind, uint64_t w, node_t *at) {
    long double r = (long double)gen_info[kind].max - (long double)gen_info[kind].min + 1.0L;
    size_t log2r = (size_t)(logl(r) / logl(2.0L));
    size_t m = (24 + log2r - 1) / log2r;
    if (m < 1) m = 1;
    float sum = 0, tmp = 1;
    for (size_t k = m; k; k--) {
        sum += (float)(gen_next(kind, w, at) - gen_info[kind].min) * tmp;
        tmp = (float)((long double)tmp * r);
    }
    float ret = sum / tmp;
    if (ret >= 1.0f) ret = nextafterf(1.0f, 0.0f);
    return ret;
}

/* ---------------- distributions ---------------- */
/* Lemire's nearly divisionless method, W twice as wide as U */
static uint64_t nd32(int kind, uint64_t w, uint32_t range, node_t *at) {
    uint64_t product = gen_next(kind, w, at) * (uint64_t)range;
    uint32_t low = (uint32_t)product;
    if (low < range) {
        uint32_t threshold = (uint32_t)(-range) % range;
        while (low < threshold) {
            product = gen_next(kind, w, at) * (uint64_t)range;
            low = (uint32_t)product;
        }
    }
    return product >> 32;
}
static uint64_t nd64(int kind, uint64_t w, uint64_t range, node_t *at) {
    unsigned __int128 product = (unsigned __int128)gen_next(kind, w, at) * range;
    uint64_t low = (uint64_t)product;
    if (low < range) {
        uint64_t threshold = (uint64_t)(-range) % range;
        while (low < threshold) {
            product = (unsigned __int128)gen_next(kind, w, at) * range;
            low = (uint64_t)product;
        }
    }
    return (uint64_t)(product >> 64);
}
/* uniform_int_distribution::operator(): urange is b - a in the common unsigned type
 * (64 bits here: the engines' result_type is unsigned long) */
static uint64_t uniform_u(int kind, uint64_t w, uint64_t urange, node_t *at) {
    uint64_t gmin = gen_info[kind].min, grange = gen_info[kind].max - gen_info[kind].min;
    if (grange > urange) {
        uint64_t uerange = urange + 1;
        if (grange == UINT64_MAX) return nd64(kind, w, uerange, at);
        if (grange == 0xffffffffu) return nd32(kind, w, (uint32_t)uerange, at);
        uint64_t scaling = grange / uerange, past = uerange * scaling, r;
        do r = gen_next(kind, w, at) - gmin;
        while (r >= past);
        return r / scaling;
    }
    if (grange < urange) {
        uint64_t tmp, r;
        do {
            uint64_t uerngrange = grange + 1;
            tmp = uerngrange * uniform_u(kind, w, urange / uerngrange, at);
            r = tmp + (gen_next(kind, w, at) - gmin);
        } while (r > urange || r < tmp);
        return r;
    }
    return gen_next(kind, w, at) - gmin;
}

typedef struct { int64_t a, b; } xuid_t; /* stored in the distribution's own int type */

static cx_class_t *DC(node_t *c) { return ((builtin_t *)c->p)->data; }
static type_t *DT(node_t *c) { return DC(c)->targ[0]; }

static void put_num(type_t *t, char *at, double d, int64_t i) {
    switch (t->kind) {
    case T_FLOAT: { float f = (float)d; memcpy(at, &f, 4); break; }
    case T_DOUBLE: case T_LDOUBLE: memcpy(at, &d, 8); break;
    default:
        if (t->size == 8) memcpy(at, &i, 8);
        else if (t->size == 4) { int32_t v = (int32_t)i; memcpy(at, &v, 4); }
        else if (t->size == 2) { int16_t v = (int16_t)i; memcpy(at, &v, 2); }
        else { int8_t v = (int8_t)i; memcpy(at, &v, 1); }
    }
}
static int64_t get_int(type_t *t, const char *at) {
    switch (t->size) {
    case 1: return t->kind == T_UCHAR ? (int64_t)*(uint8_t *)at : (int64_t) * (int8_t *)at;
    case 2: { int16_t v; uint16_t u; memcpy(&v, at, 2); memcpy(&u, at, 2); return t->kind == T_USHORT ? u : v; }
    case 4: { int32_t v; uint32_t u; memcpy(&v, at, 4); memcpy(&u, at, 4); return t->kind == T_UINT ? (int64_t)u : v; }
    default: { int64_t v; memcpy(&v, at, 8); return v; }
    }
}
static double get_real(type_t *t, const char *at) {
    if (t->kind == T_FLOAT) { float f; memcpy(&f, at, 4); return f; }
    double d;
    memcpy(&d, at, 8);
    return d;
}

/* ---- uniform_int_distribution<T> ---- */
static val_t ui_ctor(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = DT(c);
    char *o = cx_obj(a, 0, 2 * t->size, c);
    int64_t lo = n > 1 ? a[1].i : 0;
    int64_t hi = n > 2 ? a[2].i : (t->size == 8 ? (t->kind == T_ULONG || t->kind == T_ULLONG ? -1 : INT64_MAX)
                                                 : (int64_t)((UINT64_C(1) << (t->size * 8 - (t->kind == T_UINT || t->kind == T_USHORT || t->kind == T_UCHAR ? 0 : 1))) - 1));
    put_num(t, o, 0, lo);
    put_num(t, o + t->size, 0, hi);
    return (val_t){.u = 0};
}
static val_t ui_call(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = DT(c);
    char *o = cx_obj(a, 0, 2 * t->size, c);
    int64_t lo = get_int(t, o), hi = get_int(t, o + t->size);
    uint64_t mask = t->size == 8 ? UINT64_MAX : (UINT64_C(1) << (t->size * 8)) - 1;
    uint64_t urange = ((uint64_t)hi - (uint64_t)lo) & mask;
    uint64_t r = uniform_u((int)c->op, a[1].u, urange, c);
    int64_t v = (int64_t)(r + (uint64_t)lo);
    val_t out;
    out.i = v;
    return out;
}
static val_t ui_a(node_t *c, val_t *a, int n, frame_t *f) { type_t *t = DT(c); return (val_t){.i = get_int(t, cx_obj(a, 0, 2 * t->size, c))}; }
static val_t ui_b(node_t *c, val_t *a, int n, frame_t *f) { type_t *t = DT(c); return (val_t){.i = get_int(t, cx_obj(a, 0, 2 * t->size, c) + t->size)}; }

/* ---- uniform_real_distribution<T> ---- */
static val_t ur_ctor(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = DT(c);
    char *o = cx_obj(a, 0, 2 * t->size, c);
    put_num(t, o, n > 1 ? a[1].d : 0.0, 0);
    put_num(t, o + t->size, n > 2 ? a[2].d : 1.0, 0);
    return (val_t){.u = 0};
}
static val_t ur_call(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = DT(c);
    char *o = cx_obj(a, 0, 2 * t->size, c);
    if (t->kind == T_FLOAT) {
        float lo = (float)get_real(t, o), hi = (float)get_real(t, o + 4);
        float u = canonical_f((int)c->op, a[1].u, c);
        return (val_t){.d = (u * (hi - lo)) + lo};
    }
    double lo = get_real(t, o), hi = get_real(t, o + 8);
    double u = canonical_d((int)c->op, a[1].u, c);
    return (val_t){.d = (u * (hi - lo)) + lo};
}
static val_t ur_a(node_t *c, val_t *a, int n, frame_t *f) { type_t *t = DT(c); return (val_t){.d = get_real(t, cx_obj(a, 0, 2 * t->size, c))}; }
static val_t ur_b(node_t *c, val_t *a, int n, frame_t *f) { type_t *t = DT(c); return (val_t){.d = get_real(t, cx_obj(a, 0, 2 * t->size, c) + t->size)}; }

/* ---- normal_distribution<T>: mean, stddev, saved, saved_available ---- */
static size_t nd_size(type_t *t) { return t->kind == T_FLOAT ? 16 : 32; }
static val_t nd_ctor(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = DT(c);
    char *o = cx_obj(a, 0, nd_size(t), c);
    put_num(t, o, n > 1 ? a[1].d : 0.0, 0);
    put_num(t, o + t->size, n > 2 ? a[2].d : 1.0, 0);
    return (val_t){.u = 0};
}
static val_t nd_call(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = DT(c);
    char *o = cx_obj(a, 0, nd_size(t), c);
    int kind = (int)c->op;
    uint64_t g = a[1].u;
    if (t->kind == T_FLOAT) {
        float mean, sd, saved, ret;
        memcpy(&mean, o, 4);
        memcpy(&sd, o + 4, 4);
        memcpy(&saved, o + 8, 4);
        if (o[12]) { o[12] = 0; ret = saved; }
        else {
            float x, y, r2;
            do {
                x = 2.0f * canonical_f(kind, g, c) - 1.0;
                y = 2.0f * canonical_f(kind, g, c) - 1.0;
                r2 = x * x + y * y;
            } while (r2 > 1.0 || r2 == 0.0);
            const float mult = sqrtf(-2 * logf(r2) / r2);
            saved = x * mult;
            memcpy(o + 8, &saved, 4);
            o[12] = 1;
            ret = y * mult;
        }
        ret = ret * sd + mean;
        return (val_t){.d = ret};
    }
    double mean, sd, saved, ret;
    memcpy(&mean, o, 8);
    memcpy(&sd, o + 8, 8);
    memcpy(&saved, o + 16, 8);
    if (o[24]) { o[24] = 0; ret = saved; }
    else {
        double x, y, r2;
        do {
            x = 2.0 * canonical_d(kind, g, c) - 1.0;
            y = 2.0 * canonical_d(kind, g, c) - 1.0;
            r2 = x * x + y * y;
        } while (r2 > 1.0 || r2 == 0.0);
        const double mult = sqrt(-2 * log(r2) / r2);
        saved = x * mult;
        memcpy(o + 16, &saved, 8);
        o[24] = 1;
        ret = y * mult;
    }
    return (val_t){.d = ret * sd + mean};
}
static val_t nd_reset(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = DT(c);
    char *o = cx_obj(a, 0, nd_size(t), c);
    o[t->kind == T_FLOAT ? 12 : 24] = 0;
    return (val_t){.u = 0};
}

/* dist(gen): the engine's kind is known when the call compiles */
static node_t *dist_call(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    cx_class_t *gc = n == 1 ? cx_class_of(args[0]->ty) : NULL;
    if (!gc || (gc->lib != LIB_MT19937 && gc->lib != LIB_RANDOM_DEVICE))
        type_error(l, "%s(...) takes a random engine such as std::mt19937 (as dist(gen))", m->cls->name);
    node_t **v = palloc(p, sizeof(node_t *) * 2);
    v[0] = cx_this_word(p, obj);
    v[1] = cx_this_word(p, args[0]);
    node_t *c = mk_builtin(l, m->bi, m->fty->base, v, 2);
    c->op = (int)gc->iarg[0];
    return c;
}

static type_t *dist_inst(P *p, type_t **targs, int nt, int64_t *iargs, int ni, loc_t *l, int lib) {
    const char *tn = lib == LIB_UNIFORM_INT ? "std::uniform_int_distribution" : lib == LIB_UNIFORM_REAL ? "std::uniform_real_distribution"
                     : "std::normal_distribution";
    if (ni || nt > 1) type_error(l, "%s takes one type argument", tn);
    type_t *t = nt ? ty_unqual(targs[0]) : lib == LIB_UNIFORM_INT ? &ty_int : &ty_double;
    if (lib == LIB_UNIFORM_INT && (!ty_is_int(t) || t->kind == T_BOOL || t->kind == T_CHAR || t->kind == T_SCHAR || t->kind == T_UCHAR))
        type_error(l, "%s<%s>: the type must be an integer type such as int or long", tn, tyname(t));
    if (lib != LIB_UNIFORM_INT && !ty_is_float(t)) type_error(l, "%s<%s>: the type must be float or double", tn, tyname(t));
    if (t->kind == T_LDOUBLE) t = &ty_double;
    if (t->kind == T_LLONG) t = &ty_long;
    if (t->kind == T_ULLONG) t = &ty_ulong;
    char tb[64], key[160];
    snprintf(key, sizeof key, "%s<%s>", tn, ty_name(t, tb, sizeof tb));
    interp_t *in = p->in;
    type_t *have = cx_instance_get(in, key);
    if (have) return have;
    char *nm = pool_strndup(&in->pool, key, strlen(key));
    cx_class_t *c;
    size_t size = lib == LIB_NORMAL ? nd_size(t) : 2 * t->size;
    type_t *dt = cx_lib_class(in, nm, size, t->align, lib, &c);
    c->targ[0] = t;
    type_t *ret = t;
    cx_method_t *m;
    bfn_t ctor = lib == LIB_UNIFORM_INT ? ui_ctor : lib == LIB_UNIFORM_REAL ? ur_ctor : nd_ctor;
    type_t *pt = lib == LIB_UNIFORM_INT ? (t->size == 8 ? t : &ty_long) : &ty_double;
    cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 0), ctor, c);
    cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 1, pt), ctor, c);
    cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 2, pt, pt), ctor, c);
    m = cx_lib_method(in, c, "operator()", cx_fty(ret, 0), lib == LIB_UNIFORM_INT ? ui_call : lib == LIB_UNIFORM_REAL ? ur_call : nd_call, c);
    m->special = dist_call;
    if (lib == LIB_UNIFORM_INT) {
        cx_lib_method(in, c, "a", cx_fty(ret, 0), ui_a, c);
        cx_lib_method(in, c, "b", cx_fty(ret, 0), ui_b, c);
        cx_lib_method(in, c, "min", cx_fty(ret, 0), ui_a, c);
        cx_lib_method(in, c, "max", cx_fty(ret, 0), ui_b, c);
    } else if (lib == LIB_UNIFORM_REAL) {
        cx_lib_method(in, c, "a", cx_fty(ret, 0), ur_a, c);
        cx_lib_method(in, c, "b", cx_fty(ret, 0), ur_b, c);
        cx_lib_method(in, c, "min", cx_fty(ret, 0), ur_a, c);
        cx_lib_method(in, c, "max", cx_fty(ret, 0), ur_b, c);
    } else {
        cx_lib_method(in, c, "mean", cx_fty(ret, 0), ur_a, c);
        cx_lib_method(in, c, "stddev", cx_fty(ret, 0), ur_b, c);
        cx_lib_method(in, c, "reset", cx_fty(&ty_void, 0), nd_reset, c);
    }
    cx_instance_put(in, nm, dt);
    return dt;
}
static type_t *ui_inst(P *p, type_t **ta, int nt, int64_t *ia, int ni, loc_t *l) { return dist_inst(p, ta, nt, ia, ni, l, LIB_UNIFORM_INT); }
static type_t *ur_inst(P *p, type_t **ta, int nt, int64_t *ia, int ni, loc_t *l) { return dist_inst(p, ta, nt, ia, ni, l, LIB_UNIFORM_REAL); }
static type_t *nd_inst(P *p, type_t **ta, int nt, int64_t *ia, int ni, loc_t *l) { return dist_inst(p, ta, nt, ia, ni, l, LIB_NORMAL); }

void cxx_random_register(interp_t *in) {
    engine_class(in, "std::mt19937", G_MT, NULL);
    engine_class(in, "std::mt19937_64", G_MT64, NULL);
    static const char *dre[] = {"std::default_random_engine", NULL};
    engine_class(in, "std::minstd_rand0", G_MINSTD0, dre);
    engine_class(in, "std::minstd_rand", G_MINSTD, NULL);
    engine_class(in, "std::random_device", G_RDEV, NULL);
    cx_register_template(in, "std::uniform_int_distribution", ui_inst);
    cx_register_template(in, "std::uniform_real_distribution", ur_inst);
    cx_register_template(in, "std::normal_distribution", nd_inst);
}
