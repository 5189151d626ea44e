/* Running statements: the evaluators of blocks, branches, loops (counted
 * loops with their head compiled in), switch, jumps, goto and declarations,
 * the builders that pick them, and running a compiled cell. Expressions are
 * exec.c's. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "eval.h"
#include "exec_inline.h"
#include "runtime/base/vec.h"

/* ---------------- statements ---------------- */
/* a loop statement is whole: the native tier may take it (lang_upcalls_t) */
static void loop_built(node_t *n, int kind) {
    if (g_in->up.loop_built) g_in->up.loop_built(n, kind);
}
static int sx_expr(node_t *n, frame_t *f) { n->a->fn(n->a, f); return X_NORMAL; }
/* an expression that is its own statement (st_expr_lean) */
static int sx_expr_self(node_t *n, frame_t *f) { n->fn(n, f); return X_NORMAL; }
node_t *st_expr_lean(node_t *e) {
    if (e->sfn) return st_expr(e);
    e->sfn = sx_expr_self;
    return e;
}
node_t *st_expr(node_t *e) {
    node_t *n = node_new(&e->loc);
    n->a = e;
    n->sfn = sx_expr;
    return n;
}
static int sx_block(node_t *n, frame_t *f) {
    node_t **v = n->list;
    for (int i = 0, c = n->nlist; i < c; i++) {
        int r = v[i]->sfn(v[i], f);
        if (r) return r;
    }
    return X_NORMAL;
}
static int sx_block1(node_t *n, frame_t *f) { return n->list[0]->sfn(n->list[0], f); }
static int sx_nop(node_t *n, frame_t *f) { return X_NORMAL; }
node_t *st_nop(loc_t *l) {
    node_t *n = node_new(l);
    n->sfn = sx_nop;
    return n;
}
/* goto: the statement returns X_GOTO with f->go set; each block on the way
 * out looks for the label among its own statements and goes on from there. */
static int sx_label(node_t *n, frame_t *f) { return n->a->sfn(n->a, f); }
node_t *st_label(loc_t *l, const char *name, node_t *body) {
    node_t *n = node_new(l);
    n->str = name;
    n->a = body;
    n->sfn = sx_label;
    return n;
}
static int sx_goto(node_t *n, frame_t *f) {
    f->go = n;
    return X_GOTO;
}
node_t *st_goto(loc_t *l, const char *name) {
    node_t *n = node_new(l);
    n->str = name;
    n->sfn = sx_goto;
    return n;
}
static int sx_block_labels(node_t *n, frame_t *f) {
    node_t **v = n->list;
    for (int i = 0, c = n->nlist; i < c; i++) {
        int r = v[i]->sfn(v[i], f);
        if (r == X_GOTO) {
            int j = 0;
            while (j < c && !(v[j]->sfn == sx_label && !strcmp(v[j]->str, f->go->str))) j++;
            if (j == c) return r;
            poll_interrupt(f->go);
            i = j - 1;
            continue;
        }
        if (r) return r;
    }
    return X_NORMAL;
}
node_t *st_block(loc_t *l, node_t **v, int c) {
    node_t *n = node_new(l);
    n->list = v;
    n->nlist = c;
    n->sfn = c == 1 ? sx_block1 : c == 0 ? sx_nop : sx_block;
    for (int i = 0; i < c; i++)
        if (v[i]->sfn == sx_label) n->sfn = sx_block_labels;
    return n;
}
static int sx_if(node_t *n, frame_t *f) {
    if (EV(n->a, f).i) return n->b->sfn(n->b, f);
    if (n->c) return n->c->sfn(n->c, f);
    return X_NORMAL;
}
node_t *st_if(loc_t *l, node_t *c, node_t *a, node_t *b) {
    node_t *n = node_new(l);
    n->a = mk_test(c);
    n->b = a;
    n->c = b;
    n->sfn = sx_if;
    return n;
}
/* A loop's back-edge poll, in a loop evaluator: where the interrupt is
 * looked at (every 1024 ticks) the native tier is asked too (up.loop_tick)
 * when it waits on this loop (not hot yet, or its compile in flight); it
 * may enter compiled code there, at the loop's head, which runs the loop
 * to its end: its result (>= 0) is the loop's. So a loop the tier waits on
 * runs at the interpreter's own speed. */
#define LOOP_POLL(n, f)                                                                     \
    do {                                                                                    \
        if (UNLIKELY(--g_tick <= 0)) {                                                      \
            poll_interrupt(n);                                                              \
            int t_ = (n)->native && g_in->up.loop_tick ? g_in->up.loop_tick(n, f) : -1;     \
            if (t_ >= 0) return t_;                                                         \
        }                                                                                   \
    } while (0)
static int sx_while(node_t *n, frame_t *f) {
    while (EV(n->a, f).i) {
        int r = n->b->sfn(n->b, f);
        if (r == X_BREAK) break;
        if (r >= X_RETURN) return r;
        LOOP_POLL(n, f);
    }
    return X_NORMAL;
}
node_t *st_while(loc_t *l, node_t *c, node_t *body) {
    node_t *n = node_new(l);
    n->a = mk_test(c);
    n->b = body;
    n->sfn = sx_while;
    loop_built(n, NK_S_WHILE);
    return n;
}
static int sx_do(node_t *n, frame_t *f) {
    do {
        int r = n->b->sfn(n->b, f);
        if (r == X_BREAK) break;
        if (r >= X_RETURN) return r;
        LOOP_POLL(n, f); /* compiled code enters a do loop at its test */
    } while (EV(n->a, f).i);
    return X_NORMAL;
}
node_t *st_do(loc_t *l, node_t *body, node_t *c) {
    node_t *n = node_new(l);
    n->a = mk_test(c);
    n->b = body;
    n->sfn = sx_do;
    loop_built(n, NK_S_DO);
    return n;
}
static int sx_for(node_t *n, frame_t *f) {
    if (n->a) n->a->sfn(n->a, f);
    node_t *c = n->b, *step = n->c, *body = n->d;
    for (;;) {
        if (c && !EV(c, f).i) break;
        int r = body->sfn(body, f);
        if (r == X_BREAK) break;
        if (r >= X_RETURN) return r;
        if (step) step->fn(step, f);
        LOOP_POLL(n, f);
    }
    return X_NORMAL;
}
/* for whose body is one expression statement: the common hot loop */
static int sx_for_expr(node_t *n, frame_t *f) {
    if (n->a) n->a->sfn(n->a, f);
    node_t *c = n->b, *step = n->c, *e = n->d->a;
    efn_t ef = e->fn, sf = step ? step->fn : NULL;
    for (;;) {
        if (c && !EV(c, f).i) break;
        ef(e, f);
        if (sf) sf(step, f);
        LOOP_POLL(n, f);
    }
    return X_NORMAL;
}

/* Counted loops, for (init; i OP lim; i++ / i--) with i an integer local and
 * lim a local, a constant or a session variable: the head is compiled into the
 * loop (compare and step inline, no calls); the limit and i are re-read every
 * iteration, so a body that changes either behaves as C says. */
/* where the limit is read from during this run of the loop (frame slots do not move) */
static inline const char *counted_limp(const counted_t *h, frame_t *f) {
    return h->lk == LK_CONST ? (const char *)&h->k : h->lk == LK_SLOT ? (const char *)&f->slots[h->ls] : h->lg;
}
#define COUNTED(name, cmp)                                                              \
    static int sx_cnt_e_##name(node_t *n, frame_t *f) {                                \
        if (n->a) n->a->sfn(n->a, f);                                                  \
        const counted_t *h = n->p;                                                     \
        node_t *e = n->d->a;                                                           \
        efn_t ef = e->fn;                                                              \
        const char *lp = counted_limp(h, f);                                           \
        bool l32 = h->lk == LK_G32, s32 = h->s32;                                      \
        val_t *iv = &f->slots[h->i], *sv = &f->slots[h->sslot];                        \
        uint64_t d = (uint64_t)h->delta;                                               \
        const int64_t edge = h->checked ? h->edge : INT64_MIN + 1 - h->delta; /* never met */ \
        for (;;) {                                                                     \
            val_t a_ = *iv, b_;                                                        \
            if (l32) { int32_t t_; memcpy(&t_, lp, 4); b_.i = t_; }                    \
            else memcpy(&b_, lp, 8);                                                   \
            if (!(cmp)) break;                                                         \
            ef(e, f);                                                                  \
            if (UNLIKELY(sv->i == edge && h->checked)) /* a signed counter past its type */ \
                ub_overflow_typed(n->c, n->c->ty, h->delta > 0 ? P_PLUS : P_MINUS, sv->i, 1); \
            uint64_t x_ = sv->u + d;                                                   \
            sv->i = s32 ? NI32(x_) : (int64_t)x_;                                      \
            LOOP_POLL(n, f);                                                           \
        }                                                                              \
        return X_NORMAL;                                                               \
    }                                                                                  \
    static int sx_cnt_s_##name(node_t *n, frame_t *f) {                                \
        if (n->a) n->a->sfn(n->a, f);                                                  \
        const counted_t *h = n->p;                                                     \
        node_t *body = n->d;                                                           \
        sfn_t bf = body->sfn;                                                          \
        const char *lp = counted_limp(h, f);                                           \
        bool l32 = h->lk == LK_G32, s32 = h->s32;                                      \
        val_t *iv = &f->slots[h->i], *sv = &f->slots[h->sslot];                        \
        uint64_t d = (uint64_t)h->delta;                                               \
        const int64_t edge = h->checked ? h->edge : INT64_MIN + 1 - h->delta; /* never met */ \
        for (;;) {                                                                     \
            val_t a_ = *iv, b_;                                                        \
            if (l32) { int32_t t_; memcpy(&t_, lp, 4); b_.i = t_; }                    \
            else memcpy(&b_, lp, 8);                                                   \
            if (!(cmp)) break;                                                         \
            int r = bf(body, f);                                                       \
            if (UNLIKELY(r)) {                                                         \
                if (r == X_BREAK) break;                                               \
                if (r >= X_RETURN) return r;                                           \
            }                                                                          \
            if (UNLIKELY(sv->i == edge && h->checked)) /* a signed counter past its type */ \
                ub_overflow_typed(n->c, n->c->ty, h->delta > 0 ? P_PLUS : P_MINUS, sv->i, 1); \
            uint64_t x_ = sv->u + d;                                                   \
            sv->i = s32 ? NI32(x_) : (int64_t)x_;                                      \
            LOOP_POLL(n, f);                                                           \
        }                                                                              \
        return X_NORMAL;                                                               \
    }
COUNTED(lt_s, a_.i < b_.i) COUNTED(le_s, a_.i <= b_.i) COUNTED(gt_s, a_.i > b_.i)
COUNTED(ge_s, a_.i >= b_.i) COUNTED(lt_u, a_.u < b_.u) COUNTED(le_u, a_.u <= b_.u)
COUNTED(gt_u, a_.u > b_.u) COUNTED(ge_u, a_.u >= b_.u) COUNTED(ne, a_.u != b_.u)
#undef COUNTED
/* the counted-loop evaluator for this for, or NULL */
static sfn_t counted_for(node_t *n) {
    counted_t h;
    int cmp;
    if (!counted_head(n->b, n->c, &h, &cmp)) return NULL;
    bool ex = n->d->sfn == sx_expr;
    static const sfn_t by_cmp[][2] = {
        [CNT_LT_S] = {sx_cnt_s_lt_s, sx_cnt_e_lt_s}, [CNT_LE_S] = {sx_cnt_s_le_s, sx_cnt_e_le_s},
        [CNT_GT_S] = {sx_cnt_s_gt_s, sx_cnt_e_gt_s}, [CNT_GE_S] = {sx_cnt_s_ge_s, sx_cnt_e_ge_s},
        [CNT_LT_U] = {sx_cnt_s_lt_u, sx_cnt_e_lt_u}, [CNT_LE_U] = {sx_cnt_s_le_u, sx_cnt_e_le_u},
        [CNT_GT_U] = {sx_cnt_s_gt_u, sx_cnt_e_gt_u}, [CNT_GE_U] = {sx_cnt_s_ge_u, sx_cnt_e_ge_u},
        [CNT_NE] = {sx_cnt_s_ne, sx_cnt_e_ne},
    };
    sfn_t r = by_cmp[cmp][ex];
    counted_t *hp = pool_alloc(&g_in->pool, sizeof *hp);
    *hp = h;
    n->p = hp;
    return r;
}
node_t *st_for(loc_t *l, node_t *init, node_t *c, node_t *step, node_t *body) {
    node_t *n = node_new(l);
    n->a = init;
    n->b = c ? mk_test(c) : NULL;
    n->c = step;
    n->d = body;
    n->sfn = body->sfn == sx_expr ? sx_for_expr : sx_for;
    sfn_t cnt = counted_for(n);
    if (cnt) n->sfn = cnt;
    loop_built(n, NK_S_FOR);
    return n;
}
static int sx_switch(node_t *n, frame_t *f) {
    int64_t v = EV(n->a, f).i;
    int64_t *vals = n->p;
    int ncase = (int)n->k.i;
    int *idx = (int *)(vals + ncase);
    int start = n->slot;
    for (int i = 0; i < ncase; i++)
        if (vals[i] == v) { start = idx[i]; break; }
    if (start < 0) return X_NORMAL;
    node_t *body = n->b;
    for (int i = start; i < body->nlist; i++) {
        int r = body->list[i]->sfn(body->list[i], f);
        if (r == X_BREAK) return X_NORMAL;
        if (r) return r;
    }
    return X_NORMAL;
}
node_t *st_switch(loc_t *l, node_t *c, node_t *body, int64_t *vals, int *idx, int ncase, int defidx) {
    node_t *n = node_new(l);
    n->a = c;
    n->b = body;
    int64_t *tab = pool_alloc(&g_in->pool, sizeof(int64_t) * (size_t)ncase + sizeof(int) * (size_t)ncase + 8);
    if (ncase) { /* a switch with only a default label has no table */
        memcpy(tab, vals, sizeof(int64_t) * (size_t)ncase);
        memcpy(tab + ncase, idx, sizeof(int) * (size_t)ncase);
    }
    n->p = tab;
    n->k.i = ncase; /* not nlist: walkers of the tree read nlist as list's length */
    n->slot = defidx;
    n->sfn = sx_switch;
    return n;
}
static int sx_jump(node_t *n, frame_t *f) { return n->op; }
node_t *st_jump(loc_t *l, int code) {
    node_t *n = node_new(l);
    n->op = code;
    n->sfn = sx_jump;
    return n;
}
static int sx_return(node_t *n, frame_t *f) {
    if (n->a) {
        val_t v = EV(n->a, f);
        if (n->esz) { memmove(f->retbuf, v.p, (size_t)n->esz); v.p = f->retbuf; }
        f->ret = v;
    }
    return X_RETURN;
}
node_t *st_return(loc_t *l, node_t *e, type_t *rt) {
    node_t *n = node_new(l);
    n->a = e;
    n->esz = e && ty_is_aggr(rt) ? (int64_t)rt->size : 0;
    n->sfn = sx_return;
    return n;
}

/* a top-level declaration runs: the variable joins the session */
static int sx_gdecl(node_t *n, frame_t *f) {
    gvar_t *g = n->p;
    interp_t *in = g_in;
    memset(g->addr, 0, g->ty->size);
    sym_t *s = hmap_get(&in->globals, g->name);
    if (!s || s->kind != S_VAR_GLOBAL || s->gv != g) {
        s = pool_alloc(&in->pool, sizeof *s);
        s->name = g->name;
        s->kind = S_VAR_GLOBAL;
        s->ty = g->ty;
        s->gv = g;
        hmap_put(&in->globals, g->name, s);
        in->gdecl_puts++; /* a definition made as the cell runs that points at no statement */
    }
    g->committed = true;
    return X_NORMAL;
}
node_t *st_gdecl(loc_t *l, gvar_t *g) {
    node_t *n = node_new(l);
    n->p = g;
    n->sfn = sx_gdecl;
    return n;
}

static int sx_vla(node_t *n, frame_t *f) {
    int64_t cnt = EV(n->a, f).i;
    char b[100];
    if (cnt <= 0 || cnt > (int64_t)1 << 40)
        rt_error(n, "variable-length array %s has %s size %" PRId64, n->p ? (char *)n->p : "",
                 cnt == 0 ? "zero" : "invalid", cnt);
    (void)b;
    uint64_t size;
    if (__builtin_mul_overflow((uint64_t)cnt, (uint64_t)n->esz, &size)) size = UINT64_MAX;
    uint64_t old = f->slots[n->slot].u;
    if (old && ptr_valid(old)) { /* the declaration runs again (a loop): a new array */
        uint32_t s = ptr_slot(old);
        mem_block_free(g_bufs[s].base);
        g_bufs[s].base = NULL;
        buf_kill(s, BUF_DEAD_FRAME);
    }
    char *mem = mem_block_alloc(size);
    if (!mem) mem_limit_error(n, size, "the variable-length array %s would", (char *)n->p);
    uint32_t s = buf_new(mem, size, PLACE_STACK, n->p, &n->loc);
    ARRAY_GROW(f->vlas, f->nvlas, f->capvlas);
    f->vlas[f->nvlas++] = s;
    f->slots[n->slot].u = ptr_make(s, 0);
    if (n->slot2 >= 0) f->slots[n->slot2].i = cnt;
    return X_NORMAL;
}
node_t *st_vla(loc_t *l, int slot, node_t *count, int64_t esz, int countslot, const char *name) {
    node_t *n = node_new(l);
    n->a = count;
    n->slot = slot;
    n->slot2 = countslot;
    n->esz = esz;
    n->p = (void *)name;
    n->sfn = sx_vla;
    return n;
}

static int sx_launch(node_t *n, frame_t *f) {
    rt_error(n, "kernel launches need the GPU layer, and this interpreter has none attached (launch of %s)", (char *)n->p);
}
node_t *st_launch(loc_t *l, const char *kernel) {
    node_t *n = node_new(l);
    n->p = (void *)kernel;
    n->sfn = sx_launch;
    return n;
}

static int sx_once(node_t *n, frame_t *f) {
    if (n->op) return X_NORMAL;
    n->op = 1;
    return n->a->sfn(n->a, f);
}
node_t *st_once(loc_t *l, node_t *body) {
    node_t *n = node_new(l);
    n->a = body;
    n->sfn = sx_once;
    return n;
}

int64_t node_line(node_t *n) { return n->loc.line; }

/* runs the cell's top level as a function with no arguments */
void run_cell(interp_t *in, cell_code_t *cc) {
    val_t none[1];
    call_func(cc->fn, none, NULL, NULL, NULL);
}

/* what each statement evaluator computes (eval.h, for the native tier) */
int eval_stmt_kind(sfn_t s) {
    if (s == sx_expr) return NK_S_EXPR;
    if (s == sx_block || s == sx_block1) return NK_S_BLOCK;
    if (s == sx_nop) return NK_S_NOP;
    if (s == sx_if) return NK_S_IF;
    if (s == sx_while) return NK_S_WHILE;
    if (s == sx_do) return NK_S_DO;
    if (s == sx_jump) return NK_S_JUMP;
    if (s == sx_return) return NK_S_RETURN;
    if (s == sx_switch) return NK_S_SWITCH;
    if (s == sx_for || s == sx_for_expr) return NK_S_FOR;
#define C(name) if (s == sx_cnt_e_##name || s == sx_cnt_s_##name) return NK_S_FOR;
    C(lt_s) C(le_s) C(gt_s) C(ge_s) C(lt_u) C(le_u) C(gt_u) C(ge_u) C(ne)
#undef C
    return NK_NONE;
}
