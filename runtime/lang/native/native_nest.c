/* Native tier, whole-nest versioning, built on native_version.c's scan of
 * a loop (docs/native-tier.md "Whole loop nests"). A counted
 * loop whose body holds further counted loops
 *     for (i = ..; i < N; i++) for (int j = A(i); j < B(i); j++) ... p[e] ...
 * gets one test at its entry that covers every access of the whole nest:
 * each inner variable's range comes from its init and bound, themselves
 * intervals of the outer variables, and every p[e] must be proven inside
 * its buffer (rt->range), every step free of overflow, and the buffers
 * written disjoint from every other buffer the nest touches. Then the
 * clean nest runs as a function whose buffers are `restrict` parameters,
 * so the C compiler may vectorise across the loops as it does for a
 * program's own arrays; the integers it reads and nothing writes (a size,
 * n) are constants there, with the values they had when the code was made
 * (nest_spec; the entry test checks them too). The interrupt flag is
 * polled on the outermost back-edge only, so the inner work per outer step
 * is bounded (NEST_WORK).
 * Otherwise the checked copy runs, its innermost loops versioned as before.
 * The nest may read only its proven buffers, slots and session variables
 * kept in locals, and call nothing but the math builtins. */
#include <inttypes.h>
#include <stdio.h>
#include "native_gen.h"

#define NEST_WORK (1ULL << 24) /* inner iterations between two interrupt polls */

/* Is every mention of an inner loop's variable inside that loop (its init,
 * test, step or body)? Then its range covers every value read. */
static bool nest_scoped(vscan_t *s, node_t *e, unsigned inside) {
    if (!e) return true;
    for (int i = 0; i < s->nn; i++)
        if (s->nl[i] == e) {
            unsigned in = inside | 1u << i;
            return nest_scoped(s, e->a, in) && nest_scoped(s, e->b, in) && nest_scoped(s, e->c, in) &&
                   nest_scoped(s, e->d, in);
        }
    if (eval_expr_kind(e) == NK_SLOT || (e->is_place && e->place == PL_SLOT))
        for (int i = 0; i < s->nn; i++)
            if (s->nvar[i] == e->slot && !(inside & 1u << i)) return false;
    if (!nest_scoped(s, e->a, inside) || !nest_scoped(s, e->b, inside) || !nest_scoped(s, e->c, inside) ||
        !nest_scoped(s, e->d, inside))
        return false;
    for (int i = 0; i < e->nlist; i++)
        if (!nest_scoped(s, e->list[i], inside)) return false;
    return true;
}

/* the same pointer, read from the same slot or session variable */
static bool same_base(node_t *a, node_t *b) {
    int x = gen_var_read(a), y = gen_var_read(b);
    if (x >= 0 || y >= 0) return x == y;
    void *ra, *rb;
    int64_t oa, ob;
    return eval_expr_kind(a) == NK_LOAD && eval_expr_kind(b) == NK_LOAD && fixed_place(a->a, &ra, &oa) &&
           fixed_place(b->a, &rb, &ob) && ra == rb && oa == ob;
}

static int64_t vmax_of(int code) { return code == T_INT ? INT32_MAX : INT64_MAX; }

/* The entry test of nest n (outer variable v) into chk; false when the
 * nest does not qualify. Fills the sites' groups: grp[i] is site i's
 * restrict pointer, ra index ra0 + grp[i]. */
static bool nest_check(gen_t *g, vscan_t *s, node_t *n, int v, strbuf_t *chk, int *ngrp) {
    node_t *cond = n->b;
    char *b = gen_expr(g, cond->b);
    sb_printf(chk, "int ok_ = 1; int64_t vlo_ = (int64_t)s%d, vhi_ = (int64_t)(%s)%s;\n", v, b, cond->op == P_LT ? " - 1" : "");
    free(b);
    sb_printf(chk, "if (vlo_ > vhi_ || vhi_ >= %" PRId64 "LL) ok_ = 0;\nuint64_t work_ = 1;\n", vmax_of(ccode_of(n->c->a->ty)));
    for (int i = 0; i < s->nn; i++) { /* parents first: their ranges are known */
        node_t *l = s->nl[i];
        int w = s->nvar[i];
        node_t *iv = gen_init_value(l->a, w);
        int ia = iv ? gen_ivl(s, iv, v, chk) : -1;
        int ib = ia < 0 ? -1 : gen_ivl(s, l->b->b, v, chk);
        if (ib < 0) return false;
        int id = g->niv++;
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d%s;\n", id, ia, id, ib, l->b->op == P_LT ? " - 1" : "");
        sb_printf(chk, "if (vl%d > vh%d || vh%d >= %" PRId64 "LL) ok_ = 0;\n", id, id, id, vmax_of(ccode_of(l->c->a->ty)));
        sb_printf(chk, "if (ok_ && __builtin_mul_overflow(work_, (uint64_t)(vh%d - vl%d) + 1, &work_)) ok_ = 0;\n", id, id);
        s->ivmap[w] = id;
        gen_prove(g, l->c);
    }
    sb_printf(chk, "if (work_ > %lluULL) ok_ = 0;\n", (unsigned long long)NEST_WORK);
    int grp[MAXPROVEN], gfirst[MAXPROVEN];
    bool gwr[MAXPROVEN] = {0};
    int ra0 = g->nra;
    *ngrp = 0;
    for (int i = 0; i < s->nsites; i++) {
        node_t *pl = s->sites[i];
        int id = gen_invariant(s, pl->a) ? gen_ivl(s, pl->b, v, chk) : -1;
        if (id < 0 || g->nsite == MAXPROVEN) return false; /* every access proven, or no clean nest */
        int k = 0;
        while (k < *ngrp && !same_base(s->sites[gfirst[k]]->a, pl->a)) k++;
        if (k == *ngrp) {
            gfirst[k] = i;
            (*ngrp)++;
            g->nra++;
        }
        grp[i] = k;
        gwr[k] |= s->swr[i];
        g->site[g->nsite] = pl;
        g->site_ra[g->nsite++] = ra0 + k;
        char *p = gen_expr(g, pl->a);
        sb_printf(chk, "uintptr_t blo%d = 0, bhi%d = 0;\n{ uint64_t p_ = (uint64_t)%s; nic_t c_;\n"
                    "if (!ok_ || !rt->range(p_, %" PRId64 ", %d, &c_) || vl%d < c_.lo || vh%d >= c_.lo + (int64_t)c_.span ||\n"
                    "    NT_ALIAS(c_.addr + (uint64_t)vl%d * %" PRId64 "u, (uint64_t)(vh%d - vl%d + 1) * %" PRId64 "u)) ok_ = 0;\n"
                    "else { ra%d = c_.addr; blo%d = c_.addr + (uint64_t)vl%d * %" PRId64 "u;"
                    " bhi%d = c_.addr + (uint64_t)(vh%d + 1) * %" PRId64 "u; } }\n",
               i, i, p, pl->esz, s->swr[i] ? 1 : 0, id, id, id, pl->esz, id, id, pl->esz, ra0 + k, i, id, pl->esz, i, id,
               pl->esz);
        free(p);
    }
    gen_prove_arrays(g, s, v, chk);
    /* the memory outside its buffers (a local array, a session array): no
     * buffer of the nest overlaps it, or `restrict` would not hold */
    for (int r = 0; r < s->nregions; r++) {
        node_t *pl = s->regions[r];
        char *lo = pl->place == PL_FRAME ? xasprintf("(uintptr_t)(M + %" PRId64 ")", pl->k.i)
                                         : xasprintf("(uintptr_t)k%d", gen_kidx(g, pl->k.p));
        for (int i = 0; i < s->nsites; i++)
            sb_printf(chk, "if (blo%d < %s + %" PRId64 "u && %s < bhi%d) ok_ = 0;\n", i, lo, pl->ty->size, lo, i);
        free(lo);
    }
    /* restrict: what one pointer writes, no other pointer of the nest reaches */
    for (int i = 0; i < s->nsites; i++)
        for (int j = i + 1; j < s->nsites; j++)
            if (grp[i] != grp[j] && (gwr[grp[i]] || gwr[grp[j]]))
                sb_printf(chk, "if (blo%d < bhi%d && blo%d < bhi%d) ok_ = 0;\n", i, j, j, i);
    return true;
}

/* Does any node of tree e satisfy hit (with its own ctx)? The one walk
 * of the questions below. */
static bool any_node(node_t *e, bool (*hit)(node_t *, void *), void *ctx) {
    if (!e) return false;
    if (hit(e, ctx)) return true;
    if (any_node(e->a, hit, ctx) || any_node(e->b, hit, ctx) || any_node(e->c, hit, ctx) || any_node(e->d, hit, ctx))
        return true;
    for (int i = 0; i < e->nlist; i++)
        if (any_node(e->list[i], hit, ctx)) return true;
    return false;
}

static bool is_slot_use(node_t *e, void *w) {
    return (eval_expr_kind(e) == NK_SLOT || (e->is_place && e->place == PL_SLOT)) && e->slot == *(int *)w;
}
/* Does e read or write slot w? */
static bool mentions_slot(node_t *e, int w) { return any_node(e, is_slot_use, &w); }

static bool marks_local(node_t *e, void *local) {
    if (eval_expr_kind(e) == NK_ASSIGN && e->a && e->a->is_place && e->a->place == PL_SLOT && e->a->is_decl &&
        e->a->slot >= 0 && e->a->slot < MAXSLOTS && !mentions_slot(e->b, e->a->slot))
        ((unsigned char *)local)[e->a->slot] = 1;
    return false; /* on through the whole tree */
}
/* Marks in local[] the slots declared, with an initialiser that does not
 * read them, inside the nest (vscan has accepted it: plain nodes only).
 * Slots are never reused, so such a variable is named nowhere outside its
 * scope and is written before it is read on every pass: the clean nest
 * keeps it in a local of its own, neither loaded nor stored back (a value
 * that left the inner loops would keep gcc from vectorising the outer one). */
static void nest_locals(node_t *e, unsigned char *local) { any_node(e, marks_local, local); }

/* The integers the clean nest is made for, as they are when the code is
 * made: session variables and locals (a size parameter) that the nest
 * reads and nothing in the compiled code writes. The entry test checks
 * them; the clean nest knows them as constants, which gcc needs to
 * vectorise across its loops. */
typedef struct nest_spec {
    bool slot[MAXSLOTS], gv[MAXGL];
    int64_t sval[MAXSLOTS], gval[MAXGL];
} nest_spec_t;

static bool is_slot_write(node_t *e, void *w) {
    int k = eval_expr_kind(e);
    return (k == NK_ASSIGN || k == NK_COMPOUND || k == NK_INCDEC) && e->a && e->a->is_place &&
           e->a->place == PL_SLOT && e->a->slot == *(int *)w;
}
/* Is slot w written by e (an assignment, a compound one, ++/--)? */
static bool slot_written(node_t *e, int w) { return any_node(e, is_slot_write, &w); }

typedef struct { gen_t *g; int i; } gvar_q_t;
static bool is_gvar_read(node_t *e, void *q) {
    gvar_q_t *v = q;
    return e->is_place && e->place != PL_SLOT && gen_gvar_ref(v->g, e, false) == v->i;
}
/* Does e read session variable i (kept in g<i>)? */
static bool reads_gvar(gen_t *g, node_t *e, int i) { return any_node(e, is_gvar_read, &(gvar_q_t){g, i}); }

static bool int_code(int c) { return c == T_INT || c == T_LONG || c == T_LLONG; }

/* Fills sp for nest n; its entry condition (malloc'd), or NULL when the
 * nest is made for no value. */
static char *nest_spec(gen_t *g, node_t *n, nest_spec_t *sp) {
    memset(sp, 0, sizeof *sp);
    strbuf_t cond = {0};
    for (int i = 0; i < g->ngv; i++) {
        cvar_t *e = &g->gv[i];
        if (!e->cached || e->written || !int_code(e->code) || !reads_gvar(g, n, i)) continue;
        if (e->code == T_INT) {
            int32_t x;
            memcpy(&x, (char *)e->root + e->off, sizeof x);
            sp->gval[i] = x;
        } else memcpy(&sp->gval[i], (char *)e->root + e->off, sizeof sp->gval[i]);
        sp->gv[i] = true;
        sb_printf(&cond, " && g%d == %" PRId64 "LL", i, sp->gval[i]);
    }
    for (int i = 0; g->slotv && i < MAXSLOTS; i++) {
        if (!g->slotc[i] || !int_code(g->slotc[i] - 1) || !mentions_slot(n, i) || slot_written(g->root, i)) continue;
        sp->sval[i] = g->slotc[i] - 1 == T_INT ? (int64_t)(int32_t)g->slotv[i].i : g->slotv[i].i;
        sp->slot[i] = true;
        sb_printf(&cond, " && s%d == %" PRId64 "LL", i, sp->sval[i]);
    }
    return cond.data;
}

/* The clean nest function, nt_nest<L>, into f: its state through
 * pointers, except the nest's own locals and the values it is made for
 * (sp), which are constants. */
static void nest_function(gen_t *g, strbuf_t *f, int L, int ra0, int ngrp, const unsigned char *local,
                          const char *body, const nest_spec_t *sp) {
    /* noinline: gcc keeps `restrict` of a called function's parameters, not of an inlined one's */
    sb_printf(f, "static __attribute__((noinline)) void nt_nest%d(const nrt_t *rt, void *const *K, char *M, int *tick_", L);
    for (int k = 0; k < ngrp; k++) sb_printf(f, ", char *restrict rb%d", ra0 + k);
    for (int i = 0; i < MAXSLOTS; i++)
        if (g->slotc[i]) sb_printf(f, ", %s *ps%d", slot_ctype(g->slotc[i] - 1), i);
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached) sb_printf(f, ", %s *pg%d", gen_gvar_ctype(g->gv[i].code), i);
    sb_printf(f, ") {\n(void)M; NT_KDECL\nint nt_tick = *tick_;\n");
    for (int i = 0; i < MAXSLOTS; i++) {
        if (!g->slotc[i]) continue;
        const char *t = slot_ctype(g->slotc[i] - 1);
        if (sp->slot[i]) sb_printf(f, "const %s s%d = %" PRId64 "LL; (void)ps%d;\n", t, i, sp->sval[i], i);
        else if (local[i]) sb_printf(f, "%s s%d = 0; (void)ps%d;\n", t, i, i);
        else sb_printf(f, "%s s%d = *ps%d;\n", t, i, i);
    }
    for (int i = 0; i < g->ngv; i++) {
        if (!g->gv[i].cached) continue;
        const char *t = gen_gvar_ctype(g->gv[i].code);
        if (sp->gv[i]) sb_printf(f, "const %s g%d = %" PRId64 "LL; (void)pg%d;\n", t, i, sp->gval[i], i);
        else sb_printf(f, "%s g%d = *pg%d;\n", t, i, i);
    }
    sb_printf(f, "%s*tick_ = nt_tick;\n", body);
    for (int i = 0; i < MAXSLOTS; i++)
        if (g->slotc[i] && !local[i] && !sp->slot[i]) sb_printf(f, "*ps%d = s%d;\n", i, i);
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached && g->gv[i].written) sb_printf(f, "*pg%d = g%d;\n", i, i);
    sb_printf(f, "}\n");
}

/* The clean nest as a function of its state (g->nestfns), and its call;
 * sp: the values it is made for (the entry test has checked them). One copy
 * only: where they differ, the checked copy is as fast as a clean one that
 * does not know them, and a second copy would double the compile. */
static void nest_clean(gen_t *g, node_t *n, int L, int ra0, int ngrp, const nest_spec_t *sp) {
    strbuf_t saved = g->body;
    g->body = (strbuf_t){0};
    g->in_clean = true;
    g->nest_fn = true;
    g->poll_only = n;
    int Lc = gen_new_label(g, NULL);
    gen_loop_core(g, n, NK_S_FOR, Lc, false);
    g->in_clean = false;
    g->nest_fn = false;
    g->poll_only = NULL;
    strbuf_t inner = g->body;
    g->body = saved;
    unsigned char local[MAXSLOTS] = {0};
    nest_locals(n->d, local);
    strbuf_t args = {0};
    sb_printf(&args, "rt, K, M, &nt_tick");
    for (int k = 0; k < ngrp; k++) sb_printf(&args, ", (char *)ra%d", ra0 + k);
    for (int i = 0; i < MAXSLOTS; i++)
        if (g->slotc[i]) sb_printf(&args, ", &s%d", i);
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached) sb_printf(&args, ", &g%d", i);
    nest_function(g, &g->nestfns, L, ra0, ngrp, local, inner.data ? inner.data : "", sp);
    sb_printf(&g->body, "nt_nest%d(%s);\n", L, args.data);
    free(inner.data);
    free(args.data);
}

/* Emits loop n (label L), a counted loop holding counted loops, versioned
 * as a whole with its init; false (nothing emitted) when it does not
 * qualify, and loop_versioned is tried. */
bool gen_nest_versioned(gen_t *g, node_t *n, int L) {
    if (g->collect || g->in_clean || g->fnmode || g->in_nest) return false;
    int v = gen_counted_var(n);
    if (v < 0) return false;
    vscan_t *s = xcalloc(1, sizeof *s);
    unsigned char *wslot = xcalloc(MAXSLOTS, 1);
    int *ivmap = xmalloc(sizeof(int) * MAXSLOTS);
    for (int i = 0; i < MAXSLOTS; i++) ivmap[i] = -1;
    s->wslot = wslot;
    s->g = g;
    s->nest = true;
    s->cur = -1;
    s->ivmap = ivmap;
    gen_vscan_stmt(s, n->d);
    bool ok = !s->bad && s->nn > 0 && s->nsites > 0 && !wslot[v];
    for (int i = 0; i < s->nn && ok; i++) { /* each inner variable: its own init and step, and nothing else */
        int w = s->nvar[i];
        if (w == v || wslot[w] != 2) ok = false;
    }
    ok = ok && nest_scoped(s, n->d, 0);
    bool lean = gen_lean_ok(g, s, n, v);
    if (ok) wslot[v] = 1; /* v varies: its reads are the interval */
    if (ok && !gen_invariant_expr(s, n->b->b)) ok = false;
    strbuf_t chk = {0};
    int nproven0 = g->nproven, nsite0 = g->nsite, nra0 = g->nra, nasite0 = g->nasite, ngrp = 0;
    if (ok) ok = nest_check(g, s, n, v, &chk, &ngrp);
    free(ivmap);
    free(wslot);
    free(s->letinit);
    free(s);
    if (!ok) {
        g->nproven = nproven0;
        g->nsite = nsite0;
        g->nra = nra0;
        g->nasite = nasite0;
        free(chk.data);
        return false;
    }
    gen_prove(g, n->c);
    /* what the test proves holds in the clean nest only: set aside while
     * the checked copy (whose inner loops prove their own) is made */
    int np = g->nproven - nproven0, ns = g->nsite - nsite0, na = g->nasite - nasite0;
    node_t **pv = xmalloc(sizeof(node_t *) * (size_t)(np + 1)), **st = xmalloc(sizeof(node_t *) * (size_t)(ns + 1));
    node_t **as = xmalloc(sizeof(node_t *) * (size_t)(na + 1));
    int *sr = xmalloc(sizeof(int) * (size_t)(ns + 1));
    memcpy(pv, g->proven + nproven0, sizeof(node_t *) * (size_t)np);
    memcpy(st, g->site + nsite0, sizeof(node_t *) * (size_t)ns);
    memcpy(sr, g->site_ra + nsite0, sizeof(int) * (size_t)ns);
    memcpy(as, g->asite + nasite0, sizeof(node_t *) * (size_t)na);
    g->nproven = nproven0;
    g->nsite = nsite0;
    g->nasite = nasite0;
    sb_printf(&g->body, "{\n");
    if (n->a) gen_stmt(g, n->a);
    nest_spec_t *sp = xmalloc(sizeof *sp);
    char *spec = nest_spec(g, n, sp);
    sb_printf(&g->body, "V%d:;\n{ %s if (ok_%s) goto V%dc; }\n", L, chk.data, spec ? spec : "", L);
    free(chk.data);
    if (lean) {
        /* nothing stored yet: the interpreter goes on, and the loop is
         * made again with its checked copy */
        sb_printf(&g->body, "return %d;\n", NT_LEAN);
        g->leaned = true;
    } else {
        g->in_nest = true; /* the checked copy's inner loops: versioned one by one */
        gen_loop_core(g, n, NK_S_FOR, L, false);
        g->in_nest = false;
        sb_printf(&g->body, "goto V%dx;\n", L);
    }
    sb_printf(&g->body, "V%dc:;\nrt->clean_runs[1]++;\n", L);
    g->nproven = nproven0;
    g->nsite = nsite0;
    memcpy(g->proven + nproven0, pv, sizeof(node_t *) * (size_t)np);
    memcpy(g->site + nsite0, st, sizeof(node_t *) * (size_t)ns);
    memcpy(g->site_ra + nsite0, sr, sizeof(int) * (size_t)ns);
    memcpy(g->asite + nasite0, as, sizeof(node_t *) * (size_t)na);
    g->nproven += np;
    g->nsite += ns;
    g->nasite += na;
    nest_clean(g, n, L, nra0, ngrp, sp);
    free(spec);
    free(sp);
    g->nproven = nproven0;
    g->nsite = nsite0;
    g->nasite = nasite0;
    free(pv);
    free(st);
    free(sr);
    free(as);
    sb_printf(&g->body, "V%dx:;\n}\n", L);
    g->versioned[L] = true;
    return true;
}
