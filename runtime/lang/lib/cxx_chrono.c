/* <chrono>: clocks (high_resolution_clock, steady_clock, system_clock) with
 * now(), time points, durations duration<Rep, Period> and their names
 * (nanoseconds ... hours), std::ratio and milli/micro/nano, duration_cast,
 * and std::this_thread::sleep_for. A duration is its count and nothing else
 * (sizeof as libstdc++); its period lives in the type, so conversions are
 * compiled to the arithmetic libstdc++'s duration_cast does: in the common
 * type of the two counts and intmax_t, times num, divided by den of the
 * ratio between the periods. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cxx_lib.h"
#include "runtime/base/interrupt.h"


static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a ? a : 1;
}

/* ---------------- std::ratio ---------------- */
static type_t *ratio_type(interp_t *in, int64_t num, int64_t den, loc_t *l) {
    if (den == 0) type_error(l, "std::ratio with a zero denominator");
    if (den < 0) { num = -num; den = -den; }
    int64_t g = gcd64(num, den);
    num /= g;
    den /= g;
    char key[80];
    snprintf(key, sizeof key, "std::ratio<%" PRId64 ", %" PRId64 ">", num, den);
    type_t *t = cx_instance_get(in, key);
    if (t) return t;
    cx_class_t *c;
    char *nm = pool_strndup(&in->pool, key, strlen(key));
    t = cx_lib_class(in, nm, 1, 1, LIB_RATIO, &c);
    c->iarg[0] = num;
    c->iarg[1] = den;
    cx_instance_put(in, nm, t);
    return t;
}
static type_t *ratio_inst(P *p, type_t **targs, int nt, int64_t *iargs, int ni, loc_t *l) {
    if (nt || ni < 1 || ni > 2) type_error(l, "std::ratio takes one or two integers: std::ratio<1, 1000>");
    return ratio_type(p->in, iargs[0], ni > 1 ? iargs[1] : 1, l);
}

/* ---------------- durations ---------------- */
static const char *period_name(int64_t n, int64_t d, char *b, size_t bn) {
    if (n == 1 && d == 1000000000) return "std::nano";
    if (n == 1 && d == 1000000) return "std::micro";
    if (n == 1 && d == 1000) return "std::milli";
    snprintf(b, bn, "std::ratio<%" PRId64 ", %" PRId64 ">", n, d);
    return b;
}

static type_t *duration_type(interp_t *in, type_t *rep, int64_t num, int64_t den, loc_t *l);

static cx_class_t *dur_class(type_t *t) { cx_class_t *c = cx_class_of(t); return c && c->lib == LIB_DURATION ? c : NULL; }
static cx_class_t *tp_class(type_t *t) { cx_class_t *c = cx_class_of(t); return c && c->lib == LIB_TIMEPOINT ? c : NULL; }

/* a value node for the count of duration object e */
static node_t *count_of(P *p, node_t *e) {
    cx_class_t *c = cx_class_of(e->ty);
    node_t *w = cx_this_word(p, e);
    return mk_load(pl_deref(&e->loc, c->targ[0], w, 0));
}

/* an object of class type t holding value v (a temporary) */
static node_t *make_obj(P *p, type_t *t, type_t *vt, node_t *v, loc_t *l) {
    int life;
    node_t *tmp = cx_temp(p, t, l, &life);
    node_t *set = mk_assign(l, pl_member(l, vt, tmp, 0), mk_cast(v, vt));
    node_t *w = cx_life_wrap(p, life, set, tmp);
    return pl_deref(l, t, w, 0);
}

static int rank_of(type_t *t) { /* common type of counts: long double > double > float > integers */
    if (t->kind == T_LDOUBLE) return 4;
    if (t->kind == T_DOUBLE) return 3;
    if (t->kind == T_FLOAT) return 2;
    return 1;
}
static type_t *common_rep(type_t *a, type_t *b) {
    int r = rank_of(a) > rank_of(b) ? rank_of(a) : rank_of(b);
    if (r == 4 || r == 3) return &ty_double;
    if (r == 2) return &ty_float;
    return &ty_long;
}

/* count v of period (n1/d1) as a count of rep `to` with period (n2/d2), as duration_cast does */
static node_t *convert_count(node_t *v, type_t *from_rep, int64_t n1, int64_t d1, type_t *to, int64_t n2, int64_t d2, loc_t *l) {
    int64_t g1 = gcd64(n1, n2), g2 = gcd64(d1, d2);
    int64_t num = (n1 / g1) * (d2 / g2), den = (d1 / g2) * (n2 / g1);
    int64_t g = gcd64(num, den);
    num /= g;
    den /= g;
    type_t *cr = common_rep(to, from_rep);
    node_t *x = mk_cast(v, cr);
    if (num != 1) x = mk_binop(l, P_STAR, cr, x, mk_cast(mk_int(l, &ty_long, num), cr));
    if (den != 1) x = mk_binop(l, P_DIV, cr, x, mk_cast(mk_int(l, &ty_long, den), cr));
    return mk_cast(x, to);
}

static node_t *dur_from(P *p, node_t *src, type_t *to, bool cast, loc_t *l) {
    cx_class_t *sc = dur_class(src->ty), *tc = dur_class(to);
    if (!cast && ty_is_int(tc->targ[0])) {
        /* implicit only when nothing is lost: an integer count from a coarser period */
        bool ok = !ty_is_float(sc->targ[0]);
        int64_t num = sc->iarg[0] * tc->iarg[1], den = sc->iarg[1] * tc->iarg[0];
        if (ok && num % den) ok = false;
        if (!ok) type_error(&src->loc, "%s cannot hold %s without losing precision: use std::chrono::duration_cast<%s>(...)",
                            tc->name, sc->name, tc->name);
    }
    node_t *v = convert_count(count_of(p, src), sc->targ[0], sc->iarg[0], sc->iarg[1], tc->targ[0], tc->iarg[0], tc->iarg[1], l);
    return make_obj(p, to, tc->targ[0], v, l);
}

static node_t *dur_ctor(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    cx_class_t *c = m->cls;
    node_t *slot = pl_deref(l, c->targ[0], cx_this_word(p, obj), 0);
    if (n == 0) return mk_assign(l, slot, mk_cast(mk_int(l, &ty_int, 0), c->targ[0]));
    if (n > 1) type_error(l, "%s takes one value", c->name);
    node_t *a = args[0];
    if (dur_class(a->ty)) {
        node_t *d = dur_from(p, a, c->type, false, l);
        return mk_assign(l, slot, count_of(p, d));
    }
    node_t *v = rvalue(p, a);
    if (!ty_is_arith(v->ty)) type_error(&a->loc, "%s needs a count (a number) or another duration, not %s", c->name, tyname(v->ty));
    return mk_assign(l, slot, mk_cast(v, c->targ[0]));
}

static node_t *dur_count(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    if (n) type_error(l, "count() takes no arguments");
    node_t *v = count_of(p, obj);
    v->loc = *l;
    return v;
}

/* the common type of two durations: the finer period, the wider count */
static type_t *common_dur(P *p, cx_class_t *a, cx_class_t *b, loc_t *l) {
    int64_t n = gcd64(a->iarg[0], b->iarg[0]);
    int64_t da = a->iarg[1], db = b->iarg[1];
    int64_t d = da / gcd64(da, db) * db;
    return duration_type(p->in, common_rep(a->targ[0], b->targ[0]), n, d, l);
}

static node_t *dur_binop(P *p, int op, node_t *a, node_t *b, loc_t *l) {
    cx_class_t *ca = dur_class(a->ty), *cb = dur_class(b->ty);
    if (ca && cb) {
        type_t *ct = common_dur(p, ca, cb, l);
        cx_class_t *cc = dur_class(ct);
        node_t *x = count_of(p, dur_from(p, a, ct, true, l)), *y = count_of(p, dur_from(p, b, ct, true, l));
        switch (op) {
        case P_PLUS: case P_MINUS: return make_obj(p, ct, cc->targ[0], mk_binop(l, op, cc->targ[0], x, y), l);
        case P_DIV: return mk_binop(l, P_DIV, cc->targ[0], x, y);
        case P_MOD: if (ty_is_float(cc->targ[0])) break;
            return make_obj(p, ct, cc->targ[0], mk_binop(l, P_MOD, cc->targ[0], x, y), l);
        case P_LT: case P_GT: case P_LE: case P_GE: case P_EQ: case P_NE: return mk_cmp(l, op, cc->targ[0], x, y);
        }
        type_error(l, "this operator does not apply to two durations");
    }
    /* a duration and a number: d * k, k * d, d / k, d % k */
    cx_class_t *c = ca ? ca : cb;
    node_t *d = ca ? a : b, *k = rvalue(p, ca ? b : a);
    if (!ty_is_arith(k->ty)) type_error(&k->loc, "a duration can be multiplied or divided by a number, not by %s", tyname(k->ty));
    if ((op == P_DIV || op == P_MOD) && !ca) type_error(l, "a number cannot be divided by a duration");
    if (op != P_STAR && op != P_DIV && op != P_MOD) type_error(l, "a duration and a number: only *, / and %% apply");
    type_t *cr = common_rep(c->targ[0], k->ty);
    type_t *rt = duration_type(p->in, cr, c->iarg[0], c->iarg[1], l);
    node_t *v = mk_binop(l, op, cr, mk_cast(count_of(p, d), cr), mk_cast(k, cr));
    return make_obj(p, rt, cr, v, l);
}

static node_t *dur_op(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    int op = (int)m->defv[0].i;
    if (m->name[0] == 'r') return dur_binop(p, op, args[0], obj, l); /* k * d */
    return dur_binop(p, op, obj, args[0], l);
}
static node_t *dur_opeq(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    int op = (int)m->defv[0].i;
    cx_class_t *c = m->cls;
    node_t *r = dur_binop(p, op, obj, args[0], l);
    node_t *v = dur_class(r->ty) ? dur_from(p, r, c->type, false, l) : NULL;
    if (!v) type_error(l, "bad compound assignment of a duration");
    return mk_assign(l, pl_deref(l, c->targ[0], cx_this_word(p, obj), 0), count_of(p, v));
}

static type_t *duration_type(interp_t *in, type_t *rep, int64_t num, int64_t den, loc_t *l) {
    if (!ty_is_arith(rep)) type_error(l, "a duration counts with a number type, not %s", tyname(rep));
    int64_t g = gcd64(num, den);
    num /= g;
    den /= g;
    if (den < 0) { num = -num; den = -den; }
    if (num <= 0) type_error(l, "a duration's period must be positive");
    type_t *r = ty_unqual(rep);
    if (r->kind == T_LLONG) r = &ty_long;
    char rb[64], pb[64], key[200];
    ty_name(r, rb, sizeof rb);
    if (num == 1 && den == 1) snprintf(key, sizeof key, "std::chrono::duration<%s>", rb);
    else snprintf(key, sizeof key, "std::chrono::duration<%s, %s>", rb, period_name(num, den, pb, sizeof pb));
    type_t *t = cx_instance_get(in, key);
    if (t) return t;
    cx_class_t *c;
    char *nm = pool_strndup(&in->pool, key, strlen(key));
    t = cx_lib_class(in, nm, r->size, r->align, LIB_DURATION, &c);
    c->targ[0] = r;
    c->iarg[0] = num;
    c->iarg[1] = den;
    static const struct { const char *name; int op; } ops[] = {
        {"operator+", P_PLUS}, {"operator-", P_MINUS}, {"operator*", P_STAR}, {"operator/", P_DIV}, {"operator%", P_MOD},
        {"operator<", P_LT}, {"operator>", P_GT}, {"operator<=", P_LE}, {"operator>=", P_GE}, {"operator==", P_EQ},
        {"operator!=", P_NE}, {"roperator*", P_STAR},
    };
    cx_method_t *m = cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 1, r), cx_nop_builtin, c);
    m->special = dur_ctor;
    m = cx_lib_method(in, c, "count", cx_fty(r, 0), cx_nop_builtin, c);
    m->special = dur_count;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        m = cx_lib_method(in, c, ops[i].name, cx_fty(t, 1, t), cx_nop_builtin, c);
        m->special = dur_op;
        m->defv[0].i = ops[i].op;
    }
    m = cx_lib_method(in, c, "operator+=", cx_fty(t, 1, t), cx_nop_builtin, c);
    m->special = dur_opeq;
    m->defv[0].i = P_PLUS;
    m = cx_lib_method(in, c, "operator-=", cx_fty(t, 1, t), cx_nop_builtin, c);
    m->special = dur_opeq;
    m->defv[0].i = P_MINUS;
    cx_instance_put(in, nm, t);
    return t;
}

static type_t *duration_inst(P *p, type_t **targs, int nt, int64_t *iargs, int ni, loc_t *l) {
    if (nt < 1 || nt > 2 || ni) type_error(l, "std::chrono::duration takes a count type and a period: duration<double, std::milli>");
    int64_t num = 1, den = 1;
    if (nt == 2) {
        cx_class_t *r = cx_class_of(targs[1]);
        if (!r || r->lib != LIB_RATIO) type_error(l, "a duration's period is a std::ratio (std::milli, std::ratio<1, 1000>), not %s", tyname(targs[1]));
        num = r->iarg[0];
        den = r->iarg[1];
    }
    return duration_type(p->in, targs[0], num, den, l);
}

/* duration_cast<To>(d) */
static node_t *fn_duration_cast(P *p, loc_t *l) {
    if (!accept(p, P_LT)) type_error(l, "duration_cast needs its target type: std::chrono::duration_cast<std::chrono::milliseconds>(d)");
    type_t *to = abstract_type(p);
    if (!cx_template_close(p)) expected(p, "'>'");
    if (!dur_class(to)) type_error(l, "duration_cast converts to a duration, not to %s", tyname(to));
    expect(p, P_LPAREN, "'('");
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    loc_t lc = from(p, l);
    if (n != 1 || !dur_class(args[0]->ty)) type_error(&lc, "duration_cast takes one duration");
    return dur_from(p, args[0], to, true, &lc);
}

/* ---------------- clocks and time points ---------------- */
static val_t clk_now(node_t *c, val_t *a, int n, frame_t *f) {
    struct timespec ts;
    clock_gettime(c->op ? CLOCK_MONOTONIC : CLOCK_REALTIME, &ts);
    int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    memcpy(cx_obj(a, 0, 8, c), &ns, 8);
    return (val_t){.u = a[0].u};
}
static node_t *clk_now_special(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    if (n) type_error(l, "now() takes no arguments");
    return cx_lib_call_ret(p, l, clk_now, m->fty->base, NULL, 0, (int)m->defv[0].i, "now");
}

static node_t *tp_ns(P *p, node_t *e) { return mk_load(pl_deref(&e->loc, &ty_long, cx_this_word(p, e), 0)); }

static node_t *tp_op(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    int op = (int)m->defv[0].i;
    node_t *b = args[0];
    type_t *nanos = duration_type(p->in, &ty_long, 1, 1000000000, l);
    if (tp_class(b->ty)) {
        if (cx_class_of(b->ty) != m->cls) type_error(l, "time points of different clocks cannot be combined");
        node_t *x = tp_ns(p, obj), *y = tp_ns(p, b);
        if (op == P_MINUS) return make_obj(p, nanos, &ty_long, mk_binop(l, P_MINUS, &ty_long, x, y), l);
        if (op == P_PLUS) type_error(l, "two time points cannot be added (subtract them for a duration)");
        return mk_cmp(l, op, &ty_long, x, y);
    }
    if (dur_class(b->ty) && (op == P_PLUS || op == P_MINUS)) {
        node_t *d = count_of(p, dur_from(p, b, nanos, true, l));
        return make_obj(p, m->cls->type, &ty_long, mk_binop(l, op, &ty_long, tp_ns(p, obj), d), l);
    }
    type_error(l, "a time point takes another time point (-) or a duration (+, -), not %s", tyname(b->ty));
}
static node_t *tp_since_epoch(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    type_t *nanos = duration_type(p->in, &ty_long, 1, 1000000000, l);
    return make_obj(p, nanos, &ty_long, tp_ns(p, obj), l);
}

val_t cx_nop_builtin(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = 0}; }

static void clock_class(interp_t *in, const char *name, const char *tpname, bool steady, const char **aliases) {
    cx_class_t *cc, *tc;
    type_t *ct = cx_lib_class(in, name, 1, 1, LIB_CLOCK, &cc);
    type_t *tt = cx_lib_class(in, tpname, 8, 8, LIB_TIMEPOINT, &tc);
    cc->targ[0] = tt; /* std::chrono::time_point<Clock> */
    cx_lib_type_name(in, name, ct);
    cx_lib_type_name(in, tpname, tt);
    char b[160];
    snprintf(b, sizeof b, "%s::time_point", name);
    cx_lib_type_name(in, pool_strndup(&in->pool, b, strlen(b)), tt);
    snprintf(b, sizeof b, "%s::duration", name);
    type_t *nanos = duration_type(in, &ty_long, 1, 1000000000, NULL);
    cx_lib_type_name(in, pool_strndup(&in->pool, b, strlen(b)), nanos);
    for (int i = 0; aliases && aliases[i]; i++) {
        cx_lib_type_name(in, aliases[i], ct);
        snprintf(b, sizeof b, "%s::time_point", aliases[i]);
        cx_lib_type_name(in, pool_strndup(&in->pool, b, strlen(b)), tt);
        snprintf(b, sizeof b, "%s::duration", aliases[i]);
        cx_lib_type_name(in, pool_strndup(&in->pool, b, strlen(b)), nanos);
    }
    cx_method_t *m = cx_lib_method(in, cc, "now", cx_fty(tt, 0), cx_nop_builtin, cc);
    m->is_static = true;
    m->special = clk_now_special;
    m->defv[0].i = steady;
    static const struct { const char *name; int op; } ops[] = {
        {"operator-", P_MINUS}, {"operator+", P_PLUS}, {"operator<", P_LT}, {"operator>", P_GT},
        {"operator<=", P_LE}, {"operator>=", P_GE}, {"operator==", P_EQ}, {"operator!=", P_NE},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        m = cx_lib_method(in, tc, ops[i].name, cx_fty(tt, 1, tt), cx_nop_builtin, tc);
        m->special = tp_op;
        m->defv[0].i = ops[i].op;
    }
    m = cx_lib_method(in, tc, "time_since_epoch", cx_fty(nanos, 0), cx_nop_builtin, tc);
    m->special = tp_since_epoch;
}

/* std::chrono::time_point<Clock[, Duration]>: Clock::time_point. Its
 * count is in nanoseconds, so a Duration may only be nanoseconds. */
static type_t *time_point_inst(P *p, type_t **targs, int nt, int64_t *iargs, int ni, loc_t *l) {
    cx_class_t *c = nt >= 1 ? cx_class_of(targs[0]) : NULL;
    if (nt < 1 || nt > 2 || ni || !c || c->lib != LIB_CLOCK)
        type_error(l, "std::chrono::time_point takes a clock: time_point<std::chrono::steady_clock>");
    if (nt == 2) {
        cx_class_t *d = dur_class(targs[1]);
        if (!d || !ty_is_int(d->targ[0]) || d->iarg[0] != 1 || d->iarg[1] != 1000000000)
            type_error(l, "a time point of a duration other than nanoseconds (%s) is C++ that host cells do not "
                       "interpret; use the clock's time_point", tyname(targs[1]));
    }
    return c->targ[0];
}

/* std::this_thread::sleep_for(d): in short naps, so an interrupt ends it */
static val_t sleep_ns(node_t *c, val_t *a, int n, frame_t *f) {
    int64_t ns = a[0].i;
    while (ns > 0) {
        if (interrupt_pending()) raise_interrupt(c);
        int64_t k = ns > 20000000 ? 20000000 : ns;
        struct timespec ts = {k / 1000000000, k % 1000000000};
        nanosleep(&ts, NULL);
        ns -= k;
    }
    return (val_t){.u = 0};
}
static node_t *fn_sleep_for(P *p, loc_t *l) {
    expect(p, P_LPAREN, "'('");
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    loc_t lc = from(p, l);
    if (n != 1 || !dur_class(args[0]->ty)) type_error(&lc, "sleep_for takes one duration, e.g. std::chrono::milliseconds(100)");
    type_t *nanos = duration_type(p->in, &ty_long, 1, 1000000000, l);
    node_t *v = count_of(p, dur_from(p, args[0], nanos, true, &lc));
    builtin_t *b = palloc(p, sizeof *b);
    b->name = "std::this_thread::sleep_for";
    b->fn = sleep_ns;
    node_t **av = palloc(p, sizeof(node_t *));
    av[0] = v;
    return mk_builtin(&lc, b, &ty_void, av, 1);
}

void cxx_chrono_register(interp_t *in) {
    cx_register_template(in, "std::ratio", ratio_inst);
    cx_register_template(in, "std::chrono::duration", duration_inst);
    cx_register_template(in, "std::chrono::time_point", time_point_inst);
    static const struct { const char *name; int64_t num, den; } ratios[] = {
        {"std::nano", 1, 1000000000}, {"std::micro", 1, 1000000}, {"std::milli", 1, 1000}, {"std::centi", 1, 100},
        {"std::deci", 1, 10}, {"std::deca", 10, 1}, {"std::hecto", 100, 1}, {"std::kilo", 1000, 1},
        {"std::mega", 1000000, 1}, {"std::giga", 1000000000, 1},
    };
    for (size_t i = 0; i < sizeof ratios / sizeof *ratios; i++)
        cx_lib_type_name(in, ratios[i].name, ratio_type(in, ratios[i].num, ratios[i].den, NULL));
    static const struct { const char *name; int64_t num, den; } durs[] = {
        {"std::chrono::nanoseconds", 1, 1000000000}, {"std::chrono::microseconds", 1, 1000000},
        {"std::chrono::milliseconds", 1, 1000}, {"std::chrono::seconds", 1, 1},
        {"std::chrono::minutes", 60, 1}, {"std::chrono::hours", 3600, 1},
    };
    for (size_t i = 0; i < sizeof durs / sizeof *durs; i++)
        cx_lib_type_name(in, durs[i].name, duration_type(in, &ty_long, durs[i].num, durs[i].den, NULL));
    /* libstdc++: high_resolution_clock is system_clock */
    static const char *hrc[] = {"std::chrono::high_resolution_clock", NULL};
    clock_class(in, "std::chrono::system_clock", "std::chrono::system_clock::time_point", false, hrc);
    clock_class(in, "std::chrono::steady_clock", "std::chrono::steady_clock::time_point", true, NULL);
    cx_register_libfn(in, "std::chrono::duration_cast", fn_duration_cast);
    cx_register_libfn(in, "std::this_thread::sleep_for", fn_sleep_for);
}
