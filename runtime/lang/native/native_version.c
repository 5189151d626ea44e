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
            if (wr && gen_gvar_ref(s->g, pl, false) < 0) s->memwr = true; /* a session variable in memory */
            if (wr) {
                if (s->nw == MAXGL) s->bad = true;
                else { s->wroot[s->nw] = r; s->woff[s->nw++] = o; }
            }
            return;
        }
        vscan_place(s, pl->a, wr); /* a member of something addressed */
        return;
    }
    case PL_FRAME: /* a local in the frame: an array, or one whose address was taken */
        s->memwr |= wr;
        if (s->nest && s->nregions < MAXPROVEN) s->regions[s->nregions++] = pl;
        else if (s->nest) s->bad = true;
        return;
    case PL_DEREF:
        if (wr) s->bad = true; /* *p = ...: a pointer the loop cannot prove */
        s->memwr |= wr;
        vscan_expr(s, pl->a);
        return;
    case PL_INDEX:
        s->memwr |= wr;
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
        } else { /* an array: writes stay inside it */
            if (s->nasites < MAXPROVEN) s->asites[s->nasites++] = pl;
            if (!s->nest) vscan_place(s, pl->a, false);
            else { /* the array's storage, under its indexes and members: a region */
                node_t *r = pl->a;
                while (r->place == PL_MEMBER || (r->place == PL_INDEX && eval_place_kind(r) == 2)) {
                    if (r->place == PL_INDEX) {
                        if (s->nasites < MAXPROVEN) s->asites[s->nasites++] = r;
                        vscan_expr(s, r->b);
                    }
                    r = r->a;
                }
                if (((r->place == PL_FRAME && eval_place_kind(r)) || (r->place == PL_GLOBAL && eval_place_kind(r))) &&
                    s->nregions < MAXPROVEN)
                    s->regions[s->nregions++] = r;
                else s->bad = true;
            }
        }
        vscan_expr(s, pl->b);
        return;
    }
    s->bad = true;
}

static void vscan_expr(vscan_t *s, node_t *n) {
    if (!n || s->bad) return;
    if (eval_expr_kind(n) == NK_NONE && !s->nest && eval_call_target(n, &(void *){NULL})) {
        /* a call of a pure function (native_func.c): it touches nothing of
         * the loop's; its arguments are the loop's */
        for (int i = 0; i < n->nlist; i++) vscan_expr(s, n->list[i]);
        return;
    }
    if (s->nest && (eval_expr_kind(n) == NK_NONE)) { s->bad = true; return; }
    switch (eval_expr_kind(n)) {
    case NK_CONST: case NK_SLOT: return;
    case NK_LOAD: vscan_place(s, n->a, false); return;
    case NK_ASSIGN:
        /* a local declared in the body, with its value: a let (gen_ivl) */
        if (n->a && n->a->place == PL_SLOT && n->a->is_decl && n->a->slot >= 0 && n->a->slot < MAXSLOTS && n->b) {
            if (!s->letinit) s->letinit = xcalloc(MAXSLOTS, sizeof *s->letinit);
            if (!s->wslot[n->a->slot]) s->letinit[n->a->slot] = n->b;
        }
        vscan_place(s, n->a, true);
        vscan_expr(s, n->b);
        return;
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
    case NK_S_SWITCH: vscan_expr(s, n->a); gen_vscan_stmt(s, n->b); return; /* control flow, as if's */
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

/* A loop's bound, evaluated by its first test (so it raises there if it
 * raises at all): invariant leaves, and where the body writes no memory,
 * loads through invariant pointers at invariant indexes too (CSR's
 * rp[i + 1]) */
static bool bound_invariant(vscan_t *s, node_t *e) {
    switch (eval_expr_kind(e)) {
    case NK_ARITH: return !isf(e->ty) && bound_invariant(s, e->a) && bound_invariant(s, e->b);
    case NK_CAST: return !c_float(e->op) && bound_invariant(s, e->a);
    case NK_LOAD:
        if (!s->memwr && e->a->place == PL_INDEX && eval_place_kind(e->a) == 1)
            return gen_invariant(s, e->a->a) && bound_invariant(s, e->a->b);
        return gen_invariant(s, e);
    default: return gen_invariant(s, e);
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

bool gen_reads_slot(node_t *e, int w) {
    if (!e) return false;
    if ((eval_expr_kind(e) == NK_SLOT || (e->is_place && e->place == PL_SLOT)) && e->slot == w) return true;
    if (gen_reads_slot(e->a, w) || gen_reads_slot(e->b, w) || gen_reads_slot(e->c, w) || gen_reads_slot(e->d, w)) return true;
    for (int i = 0; i < e->nlist; i++)
        if (gen_reads_slot(e->list[i], w)) return true;
    return false;
}

/* The values integer type code c holds, when int64_t holds them all. */
static bool code_range(int c, int64_t *lo, int64_t *hi) {
    switch (c) {
    case T_BOOL: *lo = 0; *hi = 1; return true;
    case T_CHAR: case T_SCHAR: *lo = INT8_MIN; *hi = INT8_MAX; return true;
    case T_UCHAR: *lo = 0; *hi = UINT8_MAX; return true;
    case T_SHORT: *lo = INT16_MIN; *hi = INT16_MAX; return true;
    case T_USHORT: *lo = 0; *hi = UINT16_MAX; return true;
    case T_INT: *lo = INT32_MIN; *hi = INT32_MAX; return true;
    case T_UINT: *lo = 0; *hi = UINT32_MAX; return true;
    case T_LONG: case T_LLONG: *lo = INT64_MIN; *hi = INT64_MAX; return true;
    default: return false;
    }
}

/* What integer expression e can be, whatever the data (the loop's entry
 * test needs no value of it): its type's range, narrowed where its form
 * says more (a constant, a compare, x & mask, x % k, a conditional). */
bool gen_static_ival(node_t *e, int64_t *lo, int64_t *hi) {
    if (!e || !e->ty || isf(e->ty) || e->ty->kind == T_PTR || ty_is_aggr(e->ty)) return false;
    int64_t tlo, thi;
    if (!code_range(ccode_of(e->ty), &tlo, &thi)) return false;
    int64_t al, ah, bl, bh;
    switch (eval_expr_kind(e)) {
    case NK_CONST:
        if (e->k.i < tlo || e->k.i > thi) return false;
        *lo = *hi = e->k.i;
        return true;
    case NK_CMP: case NK_NOT: case NK_LAND: case NK_LOR: *lo = 0; *hi = 1; return true;
    case NK_COND:
        if (!gen_static_ival(e->b, &al, &ah) || !gen_static_ival(e->c, &bl, &bh)) break;
        *lo = al < bl ? al : bl;
        *hi = ah > bh ? ah : bh;
        return true;
    case NK_LOAD: /* a load converts as it reads: what the place holds */
        if (e->a && e->a->is_place && e->a->ty && !isf(e->a->ty) && !e->a->ty->is_enum &&
            code_range(ccode_of(e->a->ty), &al, &ah) && al >= tlo && ah <= thi) {
            *lo = al;
            *hi = ah;
            return true;
        }
        break;
    case NK_CAST: /* a widening conversion keeps the value */
        if (!c_float(e->op) && code_range(e->op, &al, &ah) && al >= tlo && ah <= thi && gen_static_ival(e->a, lo, hi))
            return true;
        break;
    case NK_ARITH:
        if (e->op == P_AMP) { /* x & m, m >= 0: 0 .. m */
            node_t *m = eval_expr_kind(e->b) == NK_CONST ? e->b : eval_expr_kind(e->a) == NK_CONST ? e->a : NULL;
            if (m && m->k.i >= 0 && m->k.i <= thi) { *lo = 0; *hi = m->k.i; return true; }
        }
        if (e->op == P_MOD && eval_expr_kind(e->b) == NK_CONST && e->b->k.i > 0 && e->b->k.i <= thi) {
            /* x % k: the sign of x, less than k in size */
            bool nonneg = gen_static_ival(e->a, &al, &ah) && al >= 0;
            *lo = nonneg || tlo == 0 ? 0 : -(e->b->k.i - 1);
            *hi = e->b->k.i - 1;
            return true;
        }
        break;
    default: break;
    }
    *lo = tlo;
    *hi = thi;
    return true;
}

/* Interval code for index expression e over v in [vlo, vhi]: the id of its
 * locals vlN / vhN, written into chk (which clears ok_ when a bound or a
 * step would overflow); -1 when e is not built so. An expression the
 * loop's data decide gets what its type and form allow (gen_static_ival:
 * a byte indexes 0 .. 255). */
static int ivl_of(vscan_t *s, node_t *e, int v, strbuf_t *chk);
int gen_ivl(vscan_t *s, node_t *e, int v, strbuf_t *chk) {
    size_t len0 = chk->len;
    int id = ivl_of(s, e, v, chk);
    if (id >= 0) return id;
    if (chk->data) chk->data[chk->len = len0] = 0; /* what the failed attempt wrote */
    int64_t lo, hi;
    /* Lean code only, and an index from 0 to some bound (a byte, x & 255):
     * where the entry test fails (a buffer shorter than that) the whole
     * code is made, whose clean copy has one compare at each such access
     * (a bounded site: nt_rbound); an index of any int, or a char that may
     * be negative, would fail it for good. */
    if (!s->optimistic || !gen_static_ival(e, &lo, &hi) || lo < 0 || hi > (1 << 24)) return -1;
    id = s->g->niv++;
    sb_printf(chk, "int64_t vl%d = %" PRId64 "LL, vh%d = %" PRId64 "LL;\n", id, lo, id, hi);
    return id;
}
/* A condition x OP k, x a counter (v, an inner loop's), k invariant: the
 * intervals of x where it holds (*tid) and where it does not (*fid), and
 * x's slot (*slot; -1 when c is not so). An empty one (lo > hi) is of a
 * branch that never runs: its union with the other is still a superset. */
static void cond_ranges(vscan_t *s, node_t *c, int v, strbuf_t *chk, int *slot, int *tid, int *fid) {
    if (eval_expr_kind(c) != NK_CMP || (c->kind != K_I32 && c->kind != K_I64)) return;
    int op = c->op;
    if (op != P_LT && op != P_LE && op != P_GT && op != P_GE) return;
    node_t *x = c->a, *k = c->b;
    int xs = gen_var_read(x);
    bool ctr = xs >= 0 && (xs == v || (s->ivmap && xs < MAXSLOTS && s->ivmap[xs] >= 0));
    if (!ctr) { /* k OP x: x OP' k */
        x = c->b;
        k = c->a;
        xs = gen_var_read(x);
        ctr = xs >= 0 && (xs == v || (s->ivmap && xs < MAXSLOTS && s->ivmap[xs] >= 0));
        op = op == P_LT ? P_GT : op == P_LE ? P_GE : op == P_GT ? P_LT : P_LE;
    }
    if (!ctr || !gen_invariant_expr(s, k)) return;
    int X = gen_ivl(s, x, v, chk), K = X < 0 ? -1 : gen_ivl(s, k, v, chk);
    if (K < 0) return;
    int t = s->g->niv++, f = s->g->niv++;
    /* x > k holds for x >= k + 1 (k < INT64_MAX: an int or long's bound, widened) */
    switch (op) {
    case P_GT:
        sb_printf(chk, "int64_t vl%d = vl%d > vl%d + 1 ? vl%d : vl%d + 1, vh%d = vh%d;\n", t, X, K, X, K, t, X);
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d < vh%d ? vh%d : vh%d;\n", f, X, f, X, K, X, K);
        break;
    case P_GE:
        sb_printf(chk, "int64_t vl%d = vl%d > vl%d ? vl%d : vl%d, vh%d = vh%d;\n", t, X, K, X, K, t, X);
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d < vh%d - 1 ? vh%d : vh%d - 1;\n", f, X, f, X, K, X, K);
        break;
    case P_LT:
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d < vh%d - 1 ? vh%d : vh%d - 1;\n", t, X, t, X, K, X, K);
        sb_printf(chk, "int64_t vl%d = vl%d > vl%d ? vl%d : vl%d, vh%d = vh%d;\n", f, X, K, X, K, f, X);
        break;
    default: /* P_LE */
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d < vh%d ? vh%d : vh%d;\n", t, X, t, X, K, X, K);
        sb_printf(chk, "int64_t vl%d = vl%d > vl%d + 1 ? vl%d : vl%d + 1, vh%d = vh%d;\n", f, X, K, X, K, f, X);
        break;
    }
    *slot = xs;
    *tid = t;
    *fid = f;
}

static int ivl_of(vscan_t *s, node_t *e, int v, strbuf_t *chk) {
    gen_t *g = s->g;
    int id = g->niv++;

    int rv = gen_var_read(e);
    for (int i = s->nref - 1; i >= 0 && rv >= 0; i--)
        if (s->refslot[i] == rv) { /* inside a conditional that narrows it */
            sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d;\n", id, s->refid[i], id, s->refid[i]);
            return id;
        }
    if (is_var_read(e, v)) {
        sb_printf(chk, "int64_t vl%d = vlo_, vh%d = vhi_;\n", id, id);
        return id;
    }
    int lv = s->ivmap ? gen_var_read(e) : -1;
    if (lv >= 0 && lv < MAXSLOTS && s->ivmap[lv] >= 0) { /* an inner loop's variable */
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d;\n", id, s->ivmap[lv], id, s->ivmap[lv]);
        return id;
    }
    /* A let: declared in the body with its value and written nowhere
     * else. Slots are never reused and C scopes a name after its
     * declaration, so every read of it in the body follows that
     * declaration in the same iteration: its values are its value's. */
    int w = gen_var_read(e);
    if (w >= 0 && w < MAXSLOTS && w != v && s->letinit && s->letinit[w] && s->wslot[w] == 1 && s->letdepth < 8 &&
        !gen_reads_slot(s->letinit[w], w)) {
        s->letdepth++;
        int a = gen_ivl(s, s->letinit[w], v, chk);
        s->letdepth--;
        if (a < 0) return -1;
        sb_printf(chk, "int64_t vl%d = vl%d, vh%d = vh%d;\n", id, a, id, a);
        return id;
    }
    switch (eval_expr_kind(e)) {
    case NK_COND: { /* either value; a counter compared in the condition narrowed in each */
        int slot = -1, tid = -1, fid = -1;
        cond_ranges(s, e->a, v, chk, &slot, &tid, &fid);
        if (slot >= 0 && s->nref < MAXREF) { s->refslot[s->nref] = slot; s->refid[s->nref++] = tid; }
        int b = gen_ivl(s, e->b, v, chk);
        if (slot >= 0 && s->nref && s->refslot[s->nref - 1] == slot) s->refid[s->nref - 1] = fid;
        int c = b < 0 ? -1 : gen_ivl(s, e->c, v, chk);
        if (slot >= 0 && s->nref && s->refslot[s->nref - 1] == slot) s->nref--;
        if (c < 0) return -1;
        sb_printf(chk, "int64_t vl%d = vl%d < vl%d ? vl%d : vl%d, vh%d = vh%d > vh%d ? vh%d : vh%d;\n", id, b, c, b, c, id, b,
                  c, b, c);
        return id;
    }
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


/* The arrays of scan s whose indexes have known ranges over the loop (v its
 * variable): each proven inside its bound by the entry test (chk), its
 * access unchecked in the clean copy (g->asite). */
void gen_prove_arrays(gen_t *g, vscan_t *s, int v, strbuf_t *chk) {
    for (int i = 0; i < s->nasites && g->nasite < MAXPROVEN; i++) {
        node_t *pl = s->asites[i];
        if (pl->bound <= 0) continue;
        int id = gen_ivl(s, pl->b, v, chk);
        if (id < 0) continue; /* its own test stays: one compare */
        sb_printf(chk, "if (vl%d < 0 || vh%d >= %" PRId64 "LL) ok_ = 0;\n", id, id, pl->bound);
        g->asite[g->nasite++] = pl;
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

/* ---- the clean copy in chunks ----
 * A clean copy runs its loop in chunks of CHUNK iterations: the interrupt
 * is looked at between two chunks, not at every back-edge, and its counter
 * is a 64-bit local; an inner loop of that form, with no call and nothing
 * but proven accesses, is what gcc vectorises.
 * An accumulator, an integer variable the body changes only by ++, --,
 * += e and -= e (a count, a sum of bytes), cannot overflow in a chunk when
 * its value and the most each iteration adds keep it inside its type for
 * CHUNK iterations: that is tested before each chunk, and such a chunk runs
 * its arithmetic unchecked; otherwise the chunk runs a copy of the body
 * with the checks, which raise where the interpreter would. */
#define CHUNK 4096
enum { MAXACC = 16, MAXACCSITE = 32 };
typedef struct accum {
    int slot, gv;      /* a slot, or a session variable kept in g<gv> (slot -1) */
    int code;          /* its type code */
    __int128 dlo, dhi; /* the most one iteration takes from it and adds to it */
    node_t *sites[MAXACCSITE];
    int nsites;
    bool bad;          /* written otherwise too */
} accum_t;
typedef struct accums { accum_t a[MAXACC]; int n; gen_t *g; int v; } accums_t;

static accum_t *acc_of(accums_t *A, int slot, int gv) {
    for (int i = 0; i < A->n; i++)
        if (A->a[i].slot == slot && A->a[i].gv == gv) return &A->a[i];
    if (A->n == MAXACC) return NULL;
    A->a[A->n] = (accum_t){.slot = slot, .gv = gv};
    return &A->a[A->n++];
}

/* a write of the body: an accumulator's step, or what spoils one */
static void acc_write(accums_t *A, node_t *n) {
    node_t *pl = n->a;
    int slot = -1, gv = -1;
    if (pl->place == PL_SLOT) slot = pl->slot;
    else if ((gv = gen_gvar_ref(A->g, pl, false)) < 0) return; /* memory */
    if (slot >= 0 && slot == A->v) return;
    accum_t *a = acc_of(A, slot, gv);
    if (!a) return;
    int pc = ccode_of(pl->ty), k = eval_expr_kind(n);
    int64_t lo, hi;
    a->code = pc;
    bool ok = (pc == T_INT || pc == T_LONG || pc == T_LLONG) && a->nsites < MAXACCSITE;
    if (ok && k == NK_INCDEC) lo = hi = n->k.i;
    else if (ok && k == NK_COMPOUND && !n->esz && (n->op == P_PLUS || n->op == P_MINUS) && n->c &&
             ty_opkind(n->c->ty) == (pc == T_INT ? K_I32 : K_I64) && gen_static_ival(n->b, &lo, &hi)) {
        if (n->op == P_MINUS) {
            int64_t t = lo;
            ok = lo != INT64_MIN && hi != INT64_MIN; /* its negation is no int64_t */
            lo = ok ? -hi : 0;
            hi = ok ? -t : 0;
        }
    } else ok = false;
    if (!ok) {
        a->bad = true;
        return;
    }
    a->dlo += lo < 0 ? lo : 0; /* a site may not run: 0 is in its range */
    a->dhi += hi > 0 ? hi : 0;
    a->sites[a->nsites++] = n;
}

static void acc_walk(accums_t *A, node_t *n) {
    if (!n) return;
    int k = eval_expr_kind(n);
    if ((k == NK_ASSIGN || k == NK_COMPOUND || k == NK_INCDEC) && n->a && n->a->is_place) acc_write(A, n);
    acc_walk(A, n->a);
    acc_walk(A, n->b);
    acc_walk(A, n->c);
    acc_walk(A, n->d);
    for (int i = 0; i < n->nlist; i++) acc_walk(A, n->list[i]);
}

/* the test that a chunk of nt_ce - nt_iv iterations keeps every
 * accumulator of A inside its type (malloc'd; NULL when there is none) */
static char *acc_test(accums_t *A, int Lc) {
    strbuf_t t = {0};
    for (int i = 0; i < A->n; i++) {
        accum_t *a = &A->a[i];
        __int128 big = (__int128)1 << 80;
        if (a->bad || !a->nsites || a->dhi > big || a->dlo < -big) continue;
        int64_t lo, hi;
        code_range(a->code, &lo, &hi);
        char x[32];
        if (a->slot >= 0) snprintf(x, sizeof x, "s%d", a->slot);
        else snprintf(x, sizeof x, "g%d", a->gv);
        sb_printf(&t, "%s(__int128)%s + (__int128)(nt_ce%d - nt_iv%d) * (__int128)%" PRId64 " >= (__int128)%" PRId64 "LL"
                  " && (__int128)%s + (__int128)(nt_ce%d - nt_iv%d) * (__int128)%" PRId64 " <= (__int128)%" PRId64 "LL",
                  t.len ? " && " : "", x, Lc, Lc, (int64_t)a->dlo, lo, x, Lc, Lc, (int64_t)a->dhi, hi);
        for (int j = 0; j < a->nsites; j++) gen_prove(A->g, a->sites[j]);
    }
    return t.data;
}

/* one inner loop of a chunk: body under label Lb (continue: C<Lb>,
 * break: B<Lb>) */
static void chunk_body(gen_t *g, node_t *n, int Lc, int Lb) {
    g->brk[g->depth] = Lb;
    g->cont[g->depth] = Lb;
    g->depth++;
    sb_printf(&g->body, "for (; nt_iv%d < nt_ce%d; nt_iv%d++) {\n", Lc, Lc, Lc);
    gen_stmt(g, n->d);
    sb_printf(&g->body, "C%d:;\n}\n", Lb);
    g->depth--;
}

/* The clean copy of counted loop n (counter v; its end in ve<L>). */
static void gen_clean_chunks(gen_t *g, node_t *n, int v, int L) {
    if (g->depth + 1 >= MAXDEPTH || !gen_use_slot(g, v, n->c->a->ty)) {
        g->fail = true;
        return;
    }
    int Lc = gen_new_label(g, NULL);
    accums_t *A = xcalloc(1, sizeof *A);
    A->g = g;
    A->v = v;
    acc_walk(A, n->d);
    int np0 = g->nproven;
    char *acc = acc_test(A, Lc);
    free(A);
    sb_printf(&g->body, "{\nint64_t nt_iv%d = (int64_t)s%d;\nfor (;;) {\n"
              "int64_t nt_ce%d = (uint64_t)ve%d - (uint64_t)nt_iv%d > %d ? nt_iv%d + %d : ve%d;\n",
              Lc, v, Lc, L, Lc, CHUNK, Lc, CHUNK, L);
    g->civ_slot1 = v + 1;
    g->civ_label = Lc;
    if (acc) sb_printf(&g->body, "if (%s) {\n", acc);
    chunk_body(g, n, Lc, Lc);
    if (acc) { /* the accumulators' checks back: the chunk that may overflow */
        g->nproven = np0;
        int Ls = gen_new_label(g, NULL);
        sb_printf(&g->body, "} else {\n");
        chunk_body(g, n, Lc, Ls);
        sb_printf(&g->body, "}\nif (0) { B%d:; goto B%d; }\n", Ls, Lc);
    }
    g->civ_slot1 = 0;
    g->nproven = np0;
    free(acc);
    sb_printf(&g->body, "if (nt_iv%d >= ve%d) break;\n", Lc, L);
    gen_poll(g, n);
    sb_printf(&g->body, "}\nB%d:;\ns%d = (%s)nt_iv%d;\n}\n", Lc, v, slot_ctype(g->slotc[v] - 1), Lc);
}

/* Emits loop n (a for loop, label L) versioned, with its init; false (and
 * nothing emitted) when it does not qualify. */
bool gen_loop_versioned(gen_t *g, node_t *n, int L) {
    if (g->collect || g->in_clean || g->fnmode || !n->b || !n->c || !n->d) return false;
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
    s->optimistic = lean;
    if (ok) wslot[v] = 1; /* v varies: its reads are the interval, not an invariant */
    if (ok && !bound_invariant(s, cond->b)) ok = false;
    strbuf_t chk = {0};
    int nproven0 = g->nproven, nsite0 = g->nsite, nbsite0 = g->nbsite, nproved = 0;
    char **keys = xcalloc(MAXPROVEN, sizeof *keys), **bkeys = xcalloc(MAXPROVEN, sizeof *bkeys),
         **pkeys = xcalloc(MAXPROVEN, sizeof *pkeys);
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
            bool inv = gen_invariant(s, pl->a);
            int id = inv ? gen_ivl(s, pl->b, v, &one) : -1;
            if (id < 0 && inv) { /* p[data]: one compare against p's buffer, found here */
                free(one.data);
                if (g->nbsite == MAXPROVEN) { ok = false; break; }
                char *p = gen_expr(g, pl->a);
                char *key = xasprintf("B|%s|%" PRId64 "|%d", p, pl->esz, s->swr[i] ? 1 : 0);
                int twin = -1;
                for (int j = nbsite0; j < g->nbsite && twin < 0; j++)
                    if (!strcmp(bkeys[j - nbsite0], key)) twin = g->bsite_rb[j];
                g->bsite[g->nbsite] = pl;
                if (twin >= 0) g->bsite_rb[g->nbsite] = twin;
                else {
                    int rb = g->nrb++;
                    g->bsite_rb[g->nbsite] = rb;
                    int rc = g->nrc++;
                    sb_printf(&chk, "if (ok_) { uint64_t p_ = (uint64_t)%s; if (nt_rc[%d].span && p_ == nt_rc[%d].p) { rb%d = nt_rc[%d].addr;"
                              " rl%d = nt_rc[%d].lo; rs%d = nt_rc[%d].span; }\n"
                              "  else if (!(rb%d = nt_rbound(rt, K, p_, %" PRId64 ", %d, &rl%d, &rs%d, &nt_rc[%d]))) ok_ = 0; }\n",
                              p, rc, rc, rb, rc, rb, rc, rb, rc, rb, pl->esz, s->swr[i] ? 1 : 0, rb, rb, rc);
                    g->rbound = true;
                }
                bkeys[g->nbsite - nbsite0] = key;
                g->nbsite++;
                nproved++;
                free(p);
                continue;
            }
            if (id < 0) {
                free(one.data);
                if (s->swr[i]) ok = false; /* a write through a pointer the loop changes */
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
            /* p[i - 1] beside p[i]: one base variable for both (each range
             * still checked), so gcc sees one buffer and keeps the value a
             * store left for the next iteration's load in a register */
            char *pkey = xasprintf("%s|%" PRId64, p, pl->esz);
            int ra = -1;
            for (int j = nsite0; j < g->nsite && ra < 0; j++)
                if (pkeys[j - nsite0] && !strcmp(pkeys[j - nsite0], pkey)) ra = g->site_ra[j];
            if (ra < 0) ra = g->nra++;
            pkeys[g->nsite - nsite0] = pkey;
            keys[g->nsite - nsite0] = key;
            g->site[g->nsite] = pl;
            g->site_ra[g->nsite++] = ra;
            nproved++;
            /* the check in one function (nt_rcheck), not inline: 48 checks
             * over 24 arrays, each with NT_ALIAS's 25 ranges, took gcc 2 s */
            int rc = g->nrc++;
            sb_printf(&chk, "%sif (ok_) { uint64_t p_ = (uint64_t)%s; if (NT_RC(nt_rc[%d], p_, vl%d, vh%d)) ra%d = nt_rc[%d].addr;\n"
                      "  else if (!(ra%d = nt_rcheck(rt, K, p_, %" PRId64 ", %d, vl%d, vh%d, &nt_rc[%d]))) ok_ = 0; }\n",
                      one.data ? one.data : "", p, rc, id, id, ra, rc, ra, pl->esz, s->swr[i] ? 1 : 0, id, id, rc);
            g->rcheck = true;
            free(p);
            free(one.data);
        }
    }
    int nasite0 = g->nasite;
    if (ok) gen_prove_arrays(g, s, v, &chk);
    free(wslot);
    free(s->letinit);
    free(s);
    for (int i = 0; i < MAXPROVEN; i++) {
        free(keys[i]);
        free(bkeys[i]);
        free(pkeys[i]);
    }
    free(keys);
    free(bkeys);
    free(pkeys);
    if (!ok || !nproved) {
        g->nproven = nproven0;
        g->nsite = nsite0;
        g->nbsite = nbsite0;
        g->nasite = nasite0;
        free(chk.data);
        return false;
    }
    gen_prove(g, step); /* v + 1 <= B, or vhi_ < the type's maximum */
    sb_printf(&g->body, "{\n");
    if (n->a) gen_stmt(g, n->a);
    sb_printf(&g->body, "V%d:;\nint64_t ve%d = 0;\n{ %s if (ok_) { ve%d = vhi_ + 1; goto V%dc; } }\n", L, L, chk.data, L, L);
    free(chk.data);
    if (lean) /* nothing stored yet: the interpreter goes on, the loop is made whole */
        sb_printf(&g->body, "return %d;\n", NT_LEAN);
    else {
        gen_loop_core(g, n, NK_S_FOR, L, false);
        sb_printf(&g->body, "goto V%dx;\n", L);
    }
    sb_printf(&g->body, "V%dc:;\n(*rt->clean_runs)++;\n", L);
    /* the clean copy: its own labels, never an entry (g->loops NULL) */
    g->in_clean = true;
    gen_clean_chunks(g, n, v, L);
    g->in_clean = false;
    g->nbsite = nbsite0; /* its bounds and proven arrays are this clean copy's */
    g->nasite = nasite0;
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
