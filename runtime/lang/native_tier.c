/* Native tier, tiering (native.h): every loop statement is built with this
 * file's evaluator in front of its own. On its first run the loop's nodes
 * are checked for what the tier compiles; a loop that holds anything else
 * gets its own evaluator back and is never looked at again. A compilable
 * loop runs interpreted here (the same steps as exec.c's loops) counting
 * back-edges; when it (or a loop inside it) has run long, the outermost
 * compilable loop around it is compiled and entered at its next loop head
 * with the interpreter's current variables. Compiled code calls back into
 * this file for every slow path and every error, and the interpreter's own
 * routines raise them, so an error in compiled code is the interpreter's. */
#include <stdlib.h>
#include <string.h>
#include "native.h"
#include "native_rt.h"
#include "exec_inline.h"
#include "../interrupt.h"

enum { ST_NEW, ST_BAD, ST_OK, ST_READY };

typedef struct nloop {
    sfn_t orig;
    int kind, state;
    node_t *n;
    struct nloop *parent;
    native_fn_t fn;
    void **k;
    node_t **loops; /* the loops fn can be entered at the head of (native_src_t) */
    int nloops;
    long backedges;
} nloop_t;

typedef struct native_state {
    int mode, opt;
    native_stats_t st;
    struct nloop *unwind_to; /* the outer loop compiled code ran to its end (X_NATIVE_DONE) */
} native_state_t;

/* how many back-edges (the loop's and its inner loops') make a loop hot:
 * compiling costs tens of milliseconds, this many interpreted iterations
 * cost a few */
#define HOT_BACKEDGES 100000

static int env_mode(void) {
    const char *e = getenv("ICUDA_HOST_TIER");
    if (!e) return NATIVE_AUTO;
    if (!strcmp(e, "off")) return NATIVE_OFF;
    if (!strcmp(e, "always")) return NATIVE_ALWAYS;
    return NATIVE_AUTO;
}

static native_state_t *state(interp_t *in) {
    if (!in->native) {
        in->native = calloc(1, sizeof(native_state_t));
        if (!in->native) abort();
        in->native->mode = env_mode();
        in->native->opt = 2;
    }
    return in->native;
}
void native_set_mode(interp_t *in, int mode) { state(in)->mode = mode; }
int native_mode(interp_t *in) { return state(in)->mode; }
void native_set_opt(interp_t *in, int level) { state(in)->opt = level; }
int native_opt(interp_t *in) { return state(in)->opt; }
native_stats_t native_stats(interp_t *in) { return state(in)->st; }
void native_stats_reset(interp_t *in) { memset(&state(in)->st, 0, sizeof state(in)->st); }
void native_free(interp_t *in) {
    free(in->native);
    in->native = NULL;
}

static const char *const mode_names[] = {"off", "auto", "always"};
int interp_set_host_tier(interp_t *in, const char *mode, int opt_level) {
    native_state_t *s = state(in);
    if (mode) {
        int m = -1;
        for (int i = 0; i < 3; i++)
            if (!strcmp(mode, mode_names[i])) m = i;
        if (m < 0) return -1;
        s->mode = m;
    }
    if (opt_level >= 0) s->opt = opt_level;
    return 0;
}
const char *interp_host_tier(interp_t *in, int *opt_level) {
    native_state_t *s = state(in);
    if (opt_level) *opt_level = s->opt;
    return mode_names[s->mode];
}
void interp_host_tier_take(interp_t *in, long *entries, long *compiled, double *compile_s) {
    native_state_t *s = state(in);
    *entries = s->st.entries;
    *compiled = s->st.compiles + s->st.mem_hits + s->st.disk_hits;
    *compile_s = s->st.compile_s;
    memset(&s->st, 0, sizeof s->st);
}

/* ---- what compiled code calls (native_rt.h) ---- */
static char *rt_idx(void *node, uint64_t p, int64_t i, int wr, nic_t *c) {
    node_t *at = node;
    struct icache ic = {0};
    char *a = idx_fill(at, &ic, p, i, wr); /* raises as p[i] does */
    if (ic.span && ic.wr >= wr) *c = (nic_t){ic.p, ic.addr, ic.lo, ic.span};
    else *c = (nic_t){0, 0, 0, 0};
    return a;
}
static char *rt_deref(void *node, uint64_t p, int wr, ndc_t *c) {
    node_t *at = node;
    char *a = mem_at(ptr_add(p, at->k.i), (uint64_t)at->esz, wr, at); /* raises as *p does */
    int64_t off;
    buf_t *b = ptr_is_raw(p) ? NULL : ptr_live_buf(p, &off);
    if (b && !b->ro && !b->addr && b->size >= (uint64_t)at->esz)
        *c = (ndc_t){p >> PTR_OFF_BITS, b->base, b->size - (uint64_t)at->esz};
    else *c = (ndc_t){~0ULL, NULL, 0};
    return a;
}
static _Noreturn void rt_index_fail(void *node, int64_t i, int wr) { native_index_fail(node, i, wr); }
static _Noreturn void rt_div0(void *node) { native_div0(node); }
static _Noreturn void rt_divovf(void *node) { native_divovf(node); }
static _Noreturn void rt_interrupt(void *node) { raise_interrupt(node); }
static uint64_t rt_ptr_add(uint64_t p, int64_t d) { return ptr_add(p, d); }
extern int32_t rand_next(interp_t *in);
static int32_t rt_rand(void) { return rand_next(g_in); }

static _Noreturn void rt_ovf(void *node, int op, int64_t a, int64_t b) { ub_overflow(node, op, a, b); }
/* ++ and -- name the type of the place they change, as exec.c does */
static _Noreturn void rt_ovf_place(void *node, int op, int64_t a, int64_t b) {
    node_t *n = node;
    ub_overflow_typed(n, n->a->ty, op, a, b);
}
/* compiled code tests these inline and calls only to raise */
static _Noreturn void rt_shift(void *node, int op, int k, int64_t x, int64_t count) {
    ub_shift_check(node, op, k, x, count);
    abort();
}
static _Noreturn void rt_f2i(void *node, double d, int to) {
    ub_float_to_int(node, d, to);
    abort();
}
static _Noreturn void rt_neg(void *node, int64_t a) { ub_negation(node, a); }
static _Noreturn void rt_pwrap(void *node, uint64_t p, int64_t d) { ub_pointer_wrap(node, p, d); }
/* idx_range, for a loop about to run without checks (native_version.inc) */
static int rt_range(uint64_t p, int64_t esz, int wr, nic_t *c) {
    uintptr_t addr;
    int64_t lo;
    uint64_t span;
    if (!idx_range(p, esz, wr, &addr, &lo, &span)) return 0;
    *c = (nic_t){p, addr, lo, span};
    return 1;
}

static const nrt_t g_rt = { /* clean_runs: the session's, at each entry */
                           rt_idx, rt_deref, rt_index_fail, rt_div0, rt_divovf, rt_interrupt, rt_ptr_add, rt_rand,
                           (volatile int *)&icuda_interrupt_flag, rt_ovf, rt_ovf_place, rt_shift, rt_f2i, rt_neg,
                           rt_pwrap, rt_range, NULL};

/* ---- loops ---- */
static int sx_native(node_t *n, frame_t *f);

int native_stmt_kind(node_t *n) {
    if (n->sfn == sx_native) return ((nloop_t *)n->native)->kind;
    return native_stmt_kind_base(n->sfn);
}

/* the loops directly inside statement n (not inside those) get parent L */
static void adopt(node_t *n, nloop_t *L) {
    if (!n) return;
    if (n->sfn == sx_native) {
        ((nloop_t *)n->native)->parent = L;
        return;
    }
    switch (native_stmt_kind_base(n->sfn)) {
    case NK_S_BLOCK:
        for (int i = 0; i < n->nlist; i++) adopt(n->list[i], L);
        break;
    case NK_S_IF: adopt(n->b, L); adopt(n->c, L); break;
    default: break;
    }
}

void native_hook_loop(node_t *n, int kind) {
    nloop_t *L = pool_alloc(&g_in->pool, sizeof *L);
    L->orig = n->sfn;
    L->kind = kind;
    L->n = n;
    n->native = L;
    n->sfn = sx_native;
    if (kind == NK_S_FOR) { adopt(n->a, L); adopt(n->d, L); }
    else adopt(n->b, L);
}

/* compile L's loop: ST_READY, or ST_BAD */
static void compile_loop(nloop_t *L) {
    native_state_t *s = state(g_in);
    native_src_t src;
    if (native_gen(L->n, &src) != 0) {
        L->state = ST_BAD;
        return;
    }
    int how = 0;
    double secs = 0;
    native_fn_t fn = native_compile(src.text, s->opt, &how, &secs);
    free(src.text);
    if (!fn) {
        free(src.k);
        free(src.loops);
        if (how < 0) return; /* interrupted: still compilable; the interpreter raises */
        s->st.failures++;
        L->state = ST_BAD;
        return;
    }
    /* the constants live as long as the nodes: a loop of an earlier cell's
     * function may compile while a cell that keeps nothing runs */
    void **k = pool_alloc(&g_in->keep, sizeof(void *) * (size_t)(src.nk ? src.nk : 1));
    memcpy(k, src.k, sizeof(void *) * (size_t)src.nk);
    free(src.k);
    L->loops = pool_alloc(&g_in->keep, sizeof(node_t *) * (size_t)(src.nloops ? src.nloops : 1));
    memcpy(L->loops, src.loops, sizeof(node_t *) * (size_t)src.nloops);
    L->nloops = src.nloops;
    free(src.loops);
    L->k = k;
    L->fn = fn;
    L->state = ST_READY;
    if (how == 0) s->st.compiles++;
    else if (how == 1) s->st.mem_hits++;
    else s->st.disk_hits++;
    s->st.compile_s += secs;
}

/* Is the loop compilable at all? (decided once, on its first run) */
static bool check(nloop_t *L) {
    if (L->state == ST_NEW) {
        native_src_t src;
        if (native_gen(L->n, &src) != 0) L->state = ST_BAD;
        else {
            native_src_free(&src);
            L->state = ST_OK;
        }
    }
    return L->state != ST_BAD;
}

static int run_compiled(nloop_t *L, frame_t *f, int osr) {
    native_state_t *s = state(g_in);
    s->st.entries++;
    nrt_t rt = g_rt;
    rt.clean_runs = &s->st.clean_runs;
    int r = L->fn(&rt, L->k, f->slots, f->mem, &f->ret, osr);
    return r == X_RETURN ? X_RETURN : X_NORMAL;
}

/* Compiled code of an outer loop top, entered at the head of the loop L
 * that runs interpreted inside it: it runs top to its end, so the
 * interpreter's statements between L and top must not go on. They are
 * left with X_NATIVE_DONE, which top's own evaluator turns into its
 * result. -1: top's code cannot be entered at L. */
static int run_compiled_at(nloop_t *top, nloop_t *L, frame_t *f) {
    for (int i = 0; i < top->nloops; i++)
        if (top->loops[i] == L->n) {
            int r = run_compiled(top, f, i + 1);
            if (r == X_RETURN) return r;
            state(g_in)->unwind_to = top;
            return X_NATIVE_DONE;
        }
    return -1;
}

/* At a back-edge of interpreted loop L: enter compiled code now? */
static bool backedge(nloop_t *L, frame_t *f, int *rc) {
    if (L->state == ST_READY) return true;
    if (++L->backedges < HOT_BACKEDGES) return false;
    L->backedges = 0;
    /* the outermost compilable loop around L gets compiled; L itself, if
     * that is L, is entered now, an outer loop at its own next head */
    nloop_t *top = L;
    for (nloop_t *p = L->parent; p && p->state != ST_BAD; p = p->parent) top = p;
    while (top != L && top->state != ST_READY) {
        compile_loop(top);
        if (top->state == ST_READY) break;
        nloop_t *q = L; /* top failed: the next one inside it */
        while (q->parent != top) q = q->parent;
        top = q;
    }
    if (top == L) compile_loop(L);
    if (top != L) {
        /* go on in top's code now, at L's next iteration */
        if (top->state == ST_READY && (*rc = run_compiled_at(top, L, f)) >= 0) return false;
        *rc = -1;
        for (nloop_t *p = L->parent; p && p != top; p = p->parent) p->backedges += HOT_BACKEDGES;
        return false;
    }
    return L->state == ST_READY;
}

#define BODY_RESULT(r)                                                        \
    do {                                                                      \
        if ((r) == X_NATIVE_DONE && state(g_in)->unwind_to == L) {            \
            state(g_in)->unwind_to = NULL;                                    \
            return X_NORMAL;                                                  \
        }                                                                     \
        if ((r) == X_BREAK) goto done;                                        \
        if ((r) >= X_RETURN) return (r);                                      \
    } while (0)
/* after the back-edge's poll: compiled code entered here or further out */
#define BACKEDGE()                                                            \
    do {                                                                      \
        int rc_ = -1;                                                         \
        if (UNLIKELY(backedge(L, f, &rc_))) return run_compiled(L, f, 1);      \
        if (UNLIKELY(rc_ >= 0)) return rc_;                                   \
    } while (0)

static int sx_native(node_t *n, frame_t *f) {
    nloop_t *L = n->native;
    int mode = state(g_in)->mode;
    if (mode == NATIVE_OFF) return L->orig(n, f);
    if (!check(L)) {
        n->sfn = L->orig; /* for good: nothing in it will ever compile */
        return L->orig(n, f);
    }
    if (mode == NATIVE_ALWAYS && L->state != ST_READY) compile_loop(L);
    if (L->state == ST_READY) return run_compiled(L, f, 0);
    if (L->state == ST_BAD) return L->orig(n, f);
    /* interpreted, as exec.c's sx_for / sx_while / sx_do, counting */
    int r;
    switch (L->kind) {
    case NK_S_FOR:
        if (n->a) n->a->sfn(n->a, f);
        for (;;) {
            if (n->b && !EV(n->b, f).i) break;
            r = n->d->sfn(n->d, f);
            BODY_RESULT(r);
            if (n->c) n->c->fn(n->c, f);
            poll_interrupt(n);
            BACKEDGE();
        }
        break;
    case NK_S_WHILE:
        while (EV(n->a, f).i) {
            r = n->b->sfn(n->b, f);
            BODY_RESULT(r);
            poll_interrupt(n);
            BACKEDGE();
        }
        break;
    default: /* do */
        do {
            r = n->b->sfn(n->b, f);
            BODY_RESULT(r);
            poll_interrupt(n);
            BACKEDGE();
        } while (EV(n->a, f).i);
        break;
    }
done:
    return X_NORMAL;
}
