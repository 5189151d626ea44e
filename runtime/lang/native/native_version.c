/* Native tier, loop versioning (docs/native-tier.md "Checks hoisted out of
 * counted loops"). An innermost counted loop
 *     for (...; v < B; v++) body        (or v <= B)
 * whose pointer accesses p[e] have an invariant p and an index e built
 * from v, invariants and + - * gets a second, clean copy. At each entry,
 * after the init, the range of v and with it the range of every such
 * index is computed by interval arithmetic; when every index stays inside
 * its buffer (asked of the interpreter without raising: rt->range), no
 * buffer overlaps a session variable kept in a register, and no integer
 * step of an index or of v can overflow, the clean copy runs: those
 * accesses and that arithmetic carry no check and no call, so the C
 * compiler keeps the loop in registers. Otherwise the checked copy runs,
 * and its checks raise exactly where the interpreter would. Nothing in the
 * loop may write memory through a pointer it cannot prove, and v and the
 * invariants are written nowhere in it. */
#include <inttypes.h>
#include <stdio.h>
#include "native_gen.h"

static void vscan_expr(vscan_t *s, node_t *n);

/* place pl, read (wr 0) or written (wr 1) */
static void vscan_place(vscan_t *s, node_t *pl, bool wr) {
    if (!pl || s->bad) return;
    switch (pl->place) {
    case PL_SLOT:
        if (wr && pl->slot >= 0 && pl->slot < MAXSLOTS && s->wslot[pl->slot] < 255) s->wslot[pl->slot]++;
        return;
    case PL_GLOBAL: case PL_MEMBER: {
        void *r;
        int64_t o;
        if (fixed_place(pl, &r, &o)) {
            /* a nest's clean copy reads no memory but its proven buffers */
            if (s->nest && gen_gvar_ref(s->g, pl, false) < 0) { s->bad = true; return; }
            if (wr) {
                if (s->nw == MAXGL) s->bad = true;
                else { s->wroot[s->nw] = r; s->woff[s->nw++] = o; }
            }
            return;
        }
        vscan_place(s, pl->a, wr); /* a member of something addressed */
        return;
    }
    case PL_FRAME:
        if (s->nest) s->bad = true;
        return;
    case PL_DEREF:
        if (wr) s->bad = true; /* *p = ...: a pointer the loop cannot prove */
        vscan_expr(s, pl->a);
        return;
    case PL_INDEX:
        if (eval_place_kind(pl) == 1) {
            int i = 0;
            while (i < s->nsites && s->sites[i] != pl) i++;
            if (i == s->nsites) {
                if (i == MAXPROVEN) { s->bad = true; return; }
                s->sites[s->nsites] = pl;
                s->swr[s->nsites++] = false;
            }
            s->swr[i] |= wr;
            vscan_expr(s, pl->a);
        } else if (s->nest) s->bad = true;
        else vscan_place(s, pl->a, false); /* an array: writes stay inside it */
        vscan_expr(s, pl->b);
        return;
    }
    s->bad = true;
}

static void vscan_expr(vscan_t *s, node_t *n) {
    if (!n || s->bad) return;
    if (s->nest && (eval_expr_kind(n) == NK_NONE)) { s->bad = true; return; }
    switch (eval_expr_kind(n)) {
    case NK_CONST: case NK_SLOT: return;
    case NK_LOAD: vscan_place(s, n->a, false); return;
    case NK_ASSIGN: vscan_place(s, n->a, true); vscan_expr(s, n->b); return;
    case NK_COMPOUND: case NK_INCDEC: vscan_place(s, n->a, true); vscan_expr(s, n->b); return;
    case NK_BUILTIN:
        for (int i = 0; i < n->nlist; i++) vscan_expr(s, n->list[i]);
        return;
    case NK_COND: vscan_expr(s, n->c); /* fall through */
    default: vscan_expr(s, n->a); vscan_expr(s, n->b); return;
    }
}

void gen_vscan_stmt(vscan_t *s, node_t *n) {
    if (!n || s->bad) return;
    switch (native_stmt_kind(n)) {
    case NK_S_EXPR: vscan_expr(s, n->a); return;
    case NK_S_RETURN:
        if (s->nest) s->bad = true;
        vscan_expr(s, n->a);
        return;
    case NK_S_BLOCK:
        for (int i = 0; i < n->nlist; i++) gen_vscan_stmt(s, n->list[i]);
        return;
    case NK_S_IF: vscan_expr(s, n->a); gen_vscan_stmt(s, n->b); gen_vscan_stmt(s, n->c); return;
    case NK_S_NOP: case NK_S_JUMP: return;
    case NK_S_FOR: { /* in a nest, a counted loop with its init */
        int v = gen_counted_var(n);
        if (!s->nest || s->nn == MAXNEST || v < 0 || !n->a) { s->bad = true; return; }
        int me = s->nn++, was = s->cur;
        s->nl[me] = n;
        s->nvar[me] = v;
        s->npar[me] = was;
        s->cur = me;
        gen_vscan_stmt(s, n->a);
        vscan_expr(s, n->b);
        vscan_expr(s, n->c);
        gen_vscan_stmt(s, n->d);
        s->cur = was;
        return;
    }
    default: s->bad = true; return; /* other loops: only counted loops are versioned */
    }
}

/* the slot read by e, through widening integer casts; -1 when e is not one */
int gen_var_read(node_t *e) {
    while (eval_expr_kind(e) == NK_CAST && !c_float(e->op) && !c_float(e->kind) && code_size(e->kind) >= code_size(e->op) &&
           e->kind != T_BOOL)
        e = e->a;
    if (eval_expr_kind(e) == NK_SLOT) return e->slot;
    return eval_expr_kind(e) == NK_LOAD && e->a && e->a->place == PL_SLOT ? e->a->slot : -1;
}
static bool is_var_read(node_t *e, int v) { return gen_var_read(e) == v; }

/* Is e's value the same all through the loop (scan s)? Only reads of
 * slots and session variables that the loop does not write, and constants. */
bool gen_invariant(vscan_t *s, node_t *e) {
    switch (eval_expr_kind(e)) {
    case NK_CONST: return true;
    case NK_SLOT: return e->slot >= 0 && e->slot < MAXSLOTS && !s->wslot[e->slot];
    case NK_LOAD: {
        node_t *pl = e->a;
        if (pl->place == PL_SLOT) return pl->slot >= 0 && pl->slot < MAXSLOTS && !s->wslot[pl->slot];
        void *r;
        int64_t o;
        if (gen_gvar_ref(s->g, pl, false) < 0 || !fixed_place(pl, &r, &o)) return false;
        for (int i = 0; i < s->nw; i++)
            if (s->wroot[i] == r) return false;
        return true;
    }
    default: return false;
    }
}

/* an invariant expression: invariant leaves under integer + - * and casts */
bool gen_invariant_expr(vscan_t *s, node_t *e) {
    switch (eval_expr_kind(e)) {
    case NK_ARITH: return !isf(e->ty) && gen_invariant_expr(s, e->a) && gen_invariant_expr(s, e->b);
    case NK_CAST: return !c_float(e->op) && gen_invariant_expr(s, e->a);
    default: return gen_invariant(s, e);
    }
}

static bool signed_code(int c) { return c == T_INT || c == T_LONG || c == T_LLONG || c == T_SHORT || c == T_CHAR || c == T_SCHAR; }

/* Interval code for index expression e over v in [vlo, vhi]: the id of its
 * locals vlN / vhN, written into chk (which clears ok_ when a bound or a
 * step would overflow); -1 when e is not an affine-like index. */
int gen_ivl(vscan_t *s, node_t *e, int v, strbuf_t *chk) {
    gen_t *g = s->g;
    int id = g->niv++;
    if (is_var_read(e, v)) {
        sb_printf(chk, "int64_t vl%d = vlo_, vh%d = vhi_;\n", id, id);
        return id;
    }
    int lv = s->ivmap ? gen_var_read(e) : -1;
    if (lv >= 0 && lv < MAXSLOTS && s->ivmap[lv] >= 0) { /* an inner loop's variable */
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d;\n", id, s->ivmap[lv], id, s->ivmap[lv]);
        return id;
    }
    switch (eval_expr_kind(e)) {
    case NK_CONST: case NK_SLOT: case NK_LOAD: {
        if (isf(e->ty) || !gen_invariant(s, e)) return -1;
        char *x = gen_expr(g, e);
        sb_printf(chk, "int64_t vl%d = (int64_t)%s, vh%d = vl%d;\n", id, x, id, id);
        free(x);
        return id;
    }
    case NK_CAST: {
        int from = e->op, to = e->kind;
        if (!signed_code(from) || !signed_code(to)) return -1;
        int a = gen_ivl(s, e->a, v, chk);
        if (a < 0) return -1;
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d;\n", id, a, id, a);
        if (code_size(to) < code_size(from)) {
            if (to != T_INT) return -1;
            sb_printf(chk, "if (vl%d < INT32_MIN || vh%d > INT32_MAX) ok_ = 0;\n", id, id);
        }
        return id;
    }
    case NK_ARITH: {
        int k = e->kind, op = e->op;
        if ((k != K_I32 && k != K_I64) || (op != P_PLUS && op != P_MINUS && op != P_STAR)) return -1;
        int a = gen_ivl(s, e->a, v, chk);
        int b = a < 0 ? -1 : gen_ivl(s, e->b, v, chk);
        if (b < 0) return -1;
        if (op == P_PLUS)
            sb_printf(chk, "int64_t vl%d, vh%d; if (__builtin_add_overflow(vl%d, vl%d, &vl%d) | __builtin_add_overflow(vh%d, vh%d, &vh%d)) ok_ = 0;\n",
                   id, id, a, b, id, a, b, id);
        else if (op == P_MINUS)
            sb_printf(chk, "int64_t vl%d, vh%d; if (__builtin_sub_overflow(vl%d, vh%d, &vl%d) | __builtin_sub_overflow(vh%d, vl%d, &vh%d)) ok_ = 0;\n",
                   id, id, a, b, id, a, b, id);
        else
            sb_printf(chk, "int64_t vl%d, vh%d; { int64_t p1_, p2_, p3_, p4_; if (__builtin_mul_overflow(vl%d, vl%d, &p1_) |"
                        " __builtin_mul_overflow(vl%d, vh%d, &p2_) | __builtin_mul_overflow(vh%d, vl%d, &p3_) |"
                        " __builtin_mul_overflow(vh%d, vh%d, &p4_)) ok_ = 0; vl%d = p1_ < p2_ ? p1_ : p2_; vl%d = p3_ < vl%d ? p3_ : vl%d;"
                        " vl%d = p4_ < vl%d ? p4_ : vl%d; vh%d = p1_ > p2_ ? p1_ : p2_; vh%d = p3_ > vh%d ? p3_ : vh%d;"
                        " vh%d = p4_ > vh%d ? p4_ : vh%d; }\n",
                   id, id, a, b, a, b, a, b, a, b, id, id, id, id, id, id, id, id, id, id, id, id, id, id);
        if (k == K_I32) sb_printf(chk, "if (vl%d < INT32_MIN || vh%d > INT32_MAX) ok_ = 0;\n", id, id);
        gen_prove(g, e);
        return id;
    }
    default: return -1;
    }
}


/* the value an inner loop's init `w = value` stores, or NULL */
node_t *gen_init_value(node_t *st, int w) {
    while (st && native_stmt_kind(st) == NK_S_BLOCK && st->nlist == 1) st = st->list[0]; /* a declaration */
    if (!st || native_stmt_kind(st) != NK_S_EXPR || !st->a || eval_expr_kind(st->a) != NK_ASSIGN) return NULL;
    node_t *pl = st->a->a;
    if (!pl || !pl->is_place || pl->place != PL_SLOT || pl->slot != w || !st->a->b) return NULL;
    return st->a->b;
}

/* May loop n (counter v, body scanned in s) get lean code (native_gen)?
 * It is the compiled loop itself, and lean code returns after its init:
 * only an init that changes nothing the interpreter sees (v is a local of
 * the code until it syncs). Whole nests ask the same (native_nest.c). */
bool gen_lean_ok(gen_t *g, vscan_t *s, node_t *n, int v) {
    node_t *iv = n->a ? gen_init_value(n->a, v) : NULL;
    return g->lean && n == g->root && (!n->a || (iv && gen_invariant_expr(s, iv)));
}

/* Has site i an equal before it (same pointer and index text, size and
 * direction)? Its index of g->site then, whose buffer check covers it. */
static int same_site(gen_t *g, int nsite0, const char *key, char **keys) {
    for (int i = nsite0; i < g->nsite; i++)
        if (keys[i - nsite0] && !strcmp(keys[i - nsite0], key)) return i;
    return -1;
}

/* Emits loop n (a for loop, label L) versioned, with its init; false (and
 * nothing emitted) when it does not qualify. */
bool gen_loop_versioned(gen_t *g, node_t *n, int L) {
    if (g->collect || g->in_clean || !n->b || !n->c || !n->d) return false;
    node_t *cond = n->b, *step = n->c;
    int v = gen_counted_var(n), vc = v < 0 ? 0 : ccode_of(step->a->ty);
    if (v < 0) return false;
    vscan_t *s = xcalloc(1, sizeof *s);
    unsigned char *wslot = xcalloc(MAXSLOTS, 1);
    s->wslot = wslot;
    s->g = g;
    gen_vscan_stmt(s, n->d);
    bool ok = !s->bad && !wslot[v] && s->nsites > 0;
    bool lean = gen_lean_ok(g, s, n, v);
    if (ok) wslot[v] = 1; /* v varies: its reads are the interval, not an invariant */
    if (ok && !gen_invariant_expr(s, cond->b)) ok = false;
    strbuf_t chk = {0};
    int nproven0 = g->nproven, nsite0 = g->nsite, nproved = 0;
    char **keys = xcalloc(MAXPROVEN, sizeof *keys);
    if (ok) {
        /* B: evaluated as the loop's first test evaluates it (it is pure) */
        char *b = gen_expr(g, cond->b);
        sb_printf(&chk, "int ok_ = 1; int64_t vlo_ = (int64_t)s%d, vhi_ = (int64_t)(%s)%s;\n", v, b,
               cond->op == P_LT ? " - 1" : "");
        free(b);
        int64_t vmax = vc == T_INT ? INT32_MAX : INT64_MAX;
        sb_printf(&chk, "if (vlo_ > vhi_ || vhi_ >= %" PRId64 "LL) ok_ = 0;\n", vmax);
        for (int i = 0; i < s->nsites && ok; i++) {
            node_t *pl = s->sites[i];
            strbuf_t one = {0};
            int id = gen_invariant(s, pl->a) ? gen_ivl(s, pl->b, v, &one) : -1;
            if (id < 0) {
                free(one.data);
                if (s->swr[i]) ok = false; /* a write it cannot prove */
                continue;
            }
            if (g->nsite == MAXPROVEN) { free(one.data); ok = false; break; }
            char *p = gen_expr(g, pl->a), *ix = gen_expr(g, pl->b);
            char *key = xasprintf("%s|%s|%" PRId64 "|%d", p, ix, pl->esz, s->swr[i] ? 1 : 0);
            free(ix);
            int twin = same_site(g, nsite0, key, keys);
            if (twin >= 0) { /* z[i] again: the first one's check and buffer */
                g->site[g->nsite] = pl;
                g->site_ra[g->nsite++] = g->site_ra[twin];
                nproved++;
                frees(3, key, p, one.data);
                continue;
            }
            int ra = g->nra++;
            keys[g->nsite - nsite0] = key;
            g->site[g->nsite] = pl;
            g->site_ra[g->nsite++] = ra;
            nproved++;
            /* the check in one function (nt_rcheck), not inline: 48 checks
             * over 24 arrays, each with NT_ALIAS's 25 ranges, took gcc 2 s */
            sb_printf(&chk, "%sif (ok_ && !(ra%d = nt_rcheck(rt, K, (uint64_t)%s, %" PRId64 ", %d, vl%d, vh%d))) ok_ = 0;\n",
                   one.data ? one.data : "", ra, p, pl->esz, s->swr[i] ? 1 : 0, id, id);
            g->rcheck = true;
            free(p);
            free(one.data);
        }
    }
    free(wslot);
    free(s);
    for (int i = 0; i < MAXPROVEN; i++) free(keys[i]);
    free(keys);
    if (!ok || !nproved) {
        g->nproven = nproven0;
        g->nsite = nsite0;
        free(chk.data);
        return false;
    }
    gen_prove(g, step); /* v + 1 <= B, or vhi_ < the type's maximum */
    sb_printf(&g->body, "{\n");
    if (n->a) gen_stmt(g, n->a);
    sb_printf(&g->body, "V%d:;\n{ %s if (ok_) goto V%dc; }\n", L, chk.data, L);
    free(chk.data);
    if (lean) /* nothing stored yet: the interpreter goes on, the loop is made whole */
        sb_printf(&g->body, "return %d;\n", NT_LEAN);
    else {
        gen_loop_core(g, n, NK_S_FOR, L, false);
        sb_printf(&g->body, "goto V%dx;\n", L);
    }
    sb_printf(&g->body, "V%dc:;\n(*rt->clean_runs)++;\n", L);
    /* the clean copy: its own labels, never an entry (g->loops NULL) */
    int Lc = gen_new_label(g, NULL);
    g->in_clean = true;
    gen_loop_core(g, n, NK_S_FOR, Lc, false);
    g->in_clean = false;
    sb_printf(&g->body, "V%dx:;\n}\n", L);
    g->versioned[L] = true;
    return true;
}

/* The variable of a counted loop: v < B or v <= B, v++ (an int, long or
 * long long slot); -1 for any other loop. */
int gen_counted_var(node_t *n) {
    node_t *cond = n->b, *step = n->c;
    if (!cond || !step || !n->d) return -1;
    if (eval_expr_kind(cond) != NK_CMP || (cond->op != P_LT && cond->op != P_LE) ||
        (cond->kind != K_I32 && cond->kind != K_I64))
        return -1;
    if (eval_expr_kind(step) != NK_INCDEC || !step->a || step->a->place != PL_SLOT || step->k.i != 1) return -1;
    int v = step->a->slot, vc = ccode_of(step->a->ty);
    if (v < 0 || v >= MAXSLOTS || (vc != T_INT && vc != T_LONG && vc != T_LLONG) || !is_var_read(cond->a, v)) return -1;
    return v;
}
