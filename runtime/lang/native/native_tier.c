/* Native tier, tiering (native.h): every loop statement is built with this
 * file's evaluator in front of its own. On its first run the loop's nodes
 * are checked for what the tier compiles; a loop that holds anything else
 * gets its own evaluator back and is never looked at again. A compilable
 * loop runs as the interpreter's own loop, which asks this file where it
 * polls the interrupt (native_loop_tick: every 1024 ticks, so 1024
 * back-edges); when it (or a loop inside it) has run long, the outermost
 * compilable loop around it is compiled and entered at its next loop head
 * with the interpreter's current variables. Compiled code calls back into
 * this file for every slow path and every error, and the interpreter's own
 * routines raise them, so an error in compiled code is the interpreter's. */
#include <stdlib.h>
#include <string.h>
#include "native.h"
#include "runtime/lang/lib/lib.h"
#include "runtime/base/vec.h"
#include "native_rt.h"
#include "runtime/lang/eval/exec_inline.h"
#include "runtime/base/interrupt.h"

/* ST_COMPILING: its compiler runs in the background (job) */
enum { ST_NEW, ST_BAD, ST_OK, ST_READY, ST_COMPILING };

typedef struct nloop {
    native_loop_head_t head; /* first: native_gen.c reads it (native_stmt_kind) */
    int state;
    node_t *n;
    struct nloop *parent;
    native_fn_t fn;
    void **k;
    node_t **loops; /* the loops fn can be entered at the head of (native_src_t) */
    int nloops;
    long backedges;
    native_job_t *job;      /* ST_COMPILING */
    native_src_t pend;      /* its constants and loops, kept until it is done */
    struct nloop *waiting;  /* hot, and waiting for this outer loop's compile */
    bool whole;             /* its lean code met a case it lacks (NT_LEAN): made whole from now on */
    bool enter_outer;       /* an outer loop's code is ready but has no head for this loop (lean code) */
} nloop_t;

/* a pure function's record (native_func.c, native_call below) */
enum { NF_READY = 1, NF_BAD, NF_COMPILING };
typedef struct nfunc {
    int state;
    native_fn_t fn;
    void **k;
    void **deps; /* (fbox, func) of each function it calls, as compiled */
    int ndeps;
    native_job_t *job; /* NF_COMPILING */
    native_src_t pend; /* its source and constants until it is done */
    unsigned polls;
} nfunc_t;

typedef struct native_state {
    int mode, opt;
    bool sync; /* compile in the foreground (tests that need to know when code runs) */
    native_stats_t st;
    struct nloop *unwind_to; /* the outer loop compiled code ran to its end (X_NATIVE_DONE) */
    struct nloop **compiling; /* loops whose compiler runs: stopped at native_free */
    int ncompiling, capcompiling;
    struct nfunc **fjobs; /* pure functions whose compiler runs */
    int nfjobs, capfjobs;
    native_libs_t libs; /* the code this session has loaded: closed when its nodes are gone */
    /* compiles of loops whose cell is gone (it kept nothing): they finish
     * into the cache, and the code is loaded, so that the cell run again
     * finds it; stopped with the session, %reset or an interrupt */
    native_job_t **orphans;
    int norphans, caporphans;
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
        in->native = xcalloc(1, sizeof(native_state_t));
        in->native->mode = env_mode();
        in->native->opt = 2;
    }
    return in->native;
}
void native_set_mode(interp_t *in, int mode) { state(in)->mode = mode; }
int native_mode(interp_t *in) { return state(in)->mode; }
void native_set_opt(interp_t *in, int level) { state(in)->opt = level; }
bool native_set_sync(interp_t *in, bool sync) {
    bool was = state(in)->sync;
    state(in)->sync = sync;
    return was;
}
int native_opt(interp_t *in) { return state(in)->opt; }
native_stats_t native_stats(interp_t *in) {
    native_stats_t r = state(in)->st;
    r.refused = state(in)->libs.refused;
    return r;
}
void native_stats_reset(interp_t *in) { memset(&state(in)->st, 0, sizeof state(in)->st); }
/* before nodes go (the session's, or a rolled-back cell's: gone(L)): no
 * compile may finish into them */
static void stop_jobs(interp_t *in, bool (*gone)(interp_t *, const nloop_t *, const void *), const void *arg) {
    native_state_t *s = in->native;
    if (!s) return;
    int kept = 0;
    for (int i = 0; i < s->ncompiling; i++) {
        nloop_t *L = s->compiling[i];
        if (gone && !gone(in, L, arg)) {
            s->compiling[kept++] = L;
            continue;
        }
        if (gone) { /* its loop is gone, not its code: finished, it is cached for the next run */
            ARRAY_GROW(s->orphans, s->norphans, s->caporphans);
            s->orphans[s->norphans++] = L->job;
        } else native_compile_cancel(L->job);
        L->job = NULL;
        native_src_free(&L->pend);
        L->state = ST_OK;
    }
    s->ncompiling = kept;
    if (gone) return; /* functions are never in a rolled-back cell's pool */
    for (int i = 0; i < s->norphans; i++) native_compile_cancel(s->orphans[i]);
    s->norphans = 0;
    for (int i = 0; i < s->nfjobs; i++) {
        struct nfunc *F = s->fjobs[i];
        native_compile_cancel(F->job);
        F->job = NULL;
        native_src_free(&F->pend);
        F->state = NF_BAD;
    }
    s->nfjobs = 0;
}
void native_stop_jobs(interp_t *in) { stop_jobs(in, NULL, NULL); }
static bool in_rolled_back(interp_t *in, const nloop_t *L, const void *mark) {
    return pool_since(&in->pool, *(const pool_mark_t *)mark, L);
}
void native_stop_jobs_since(interp_t *in, pool_mark_t m) { stop_jobs(in, in_rolled_back, &m); }
static bool loop_in(interp_t *in, const nloop_t *L, const void *nodes) {
    return pool_since((pool_t *)nodes, (pool_mark_t){0}, L->n);
}
void native_stop_jobs_in(interp_t *in, pool_t *nodes) { stop_jobs(in, loop_in, nodes); }
void native_unload(interp_t *in) {
    native_stop_jobs(in);
    if (in->native) native_libs_close(&in->native->libs);
}
void native_free(interp_t *in) {
    native_unload(in);
    if (in->native) {
        free(in->native->compiling);
        free(in->native->fjobs);
        free(in->native->orphans);
    }
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
__attribute__((noreturn)) static void rt_index_fail(void *node, int64_t i, int wr) { eval_index_fail(node, i, wr); }
__attribute__((noreturn)) static void rt_div0(void *node) { eval_div0(node); }
__attribute__((noreturn)) static void rt_divovf(void *node) { eval_divovf(node); }
__attribute__((noreturn)) static void rt_ptrdiff(void *node) { eval_ptrdiff_error(node); }
__attribute__((noreturn)) static void rt_interrupt(void *node) { raise_interrupt(node); }
static uint64_t rt_ptr_add(uint64_t p, int64_t d) { return ptr_add(p, d); }
static int32_t rt_rand(void) { return rand_next(g_in); }

__attribute__((noreturn)) static void rt_ovf(void *node, int op, int64_t a, int64_t b) { ub_overflow(node, op, a, b); }
/* ++ and -- name the type of the place they change, as exec.c does; the
 * code passes the wrapped result, whose old value is b back */
__attribute__((noreturn)) static void rt_ovf_place(void *node, int op, int64_t res, int64_t b) {
    node_t *n = node;
    uint64_t old = op == P_PLUS ? (uint64_t)res - (uint64_t)b : (uint64_t)res + (uint64_t)b;
    int64_t a = n->a->ty->size == 4 ? (int64_t)(int32_t)(uint32_t)old : (int64_t)old;
    ub_overflow_typed(n, n->a->ty, op, a, b);
}
/* compiled code tests these inline and calls only to raise */
__attribute__((noreturn)) static void rt_shift(void *node, int op, int k, int64_t x, int64_t count) {
    ub_shift_check(node, op, k, x, count);
    abort();
}
__attribute__((noreturn)) static void rt_f2i(void *node, double d, int to) {
    ub_float_to_int(node, d, to);
    abort();
}
__attribute__((noreturn)) static void rt_neg(void *node, int64_t a) { ub_negation(node, a); }
__attribute__((noreturn)) static void rt_pwrap(void *node, uint64_t p, int64_t d) { ub_pointer_wrap(node, p, d); }
/* idx_range, for a loop about to run without checks (native_version.c) */
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
                           rt_pwrap, rt_range, NULL, NULL, NULL, (char *volatile *)&icuda_interrupt_guard,
                           rt_ptrdiff};

/* ---- pure functions (native_func.c) ----
 * A compiled pure function never raises: where a check fails it gives up
 * (its code returns 1), and native_call has the call run interpreted,
 * where the interpreter raises its own error. */

/* F gets code fn for src (NULL: the compiler failed, NF_BAD); frees src */
static void fn_install(nfunc_t *F, native_src_t *src, native_fn_t code, int how, double secs) {
    native_state_t *s = state(g_in);
    if (!code) {
        s->st.failures++;
        F->state = NF_BAD;
        native_src_free(src);
        return;
    }
    F->k = pool_alloc(&g_in->keep, sizeof(void *) * (size_t)(src->nk ? src->nk : 1));
    if (src->nk) memcpy(F->k, src->k, sizeof(void *) * (size_t)src->nk);
    F->deps = pool_alloc(&g_in->keep, sizeof(void *) * (size_t)(2 * src->ndeps + 1));
    if (src->ndeps) memcpy(F->deps, src->deps, sizeof(void *) * (size_t)(2 * src->ndeps));
    F->ndeps = src->ndeps;
    native_src_free(src);
    F->fn = code;
    F->state = NF_READY;
    if (how == 0) s->st.compiles++;
    else if (how == 1) s->st.mem_hits++;
    else s->st.disk_hits++;
    s->st.compile_s += secs;
}

/* fn's record on its first hot call: the code from the cache, or a
 * compile started (in the background unless the session compiles in the
 * foreground) */
static nfunc_t *fn_record(func_t *fn) {
    native_state_t *s = state(g_in);
    nfunc_t *F = pool_alloc(&g_in->keep, sizeof *F);
    fn->native = F;
    if (native_gen_func(fn, &F->pend) != 0) {
        F->state = NF_BAD;
        return F;
    }
    native_fn_t code = NULL;
    int how = 0;
    double secs = 0;
    if (s->sync) {
        code = native_compile(&s->libs, F->pend.text, s->opt, &how, &secs);
        if (how < 0) { /* an interrupt stopped the compile: a later hot call tries again */
            s->st.abandoned++;
            native_src_free(&F->pend);
            fn->native = NULL;
            return NULL;
        }
        fn_install(F, &F->pend, code, how, secs);
        return F;
    }
    F->job = native_compile_start(&s->libs, F->pend.text, s->opt, &code, &how);
    if (!F->job) {
        fn_install(F, &F->pend, code, how, 0);
        return F;
    }
    F->state = NF_COMPILING;
    ARRAY_GROW(s->fjobs, s->nfjobs, s->capfjobs);
    s->fjobs[s->nfjobs++] = F;
    return F;
}

/* F's background compile: done yet? (looked at every 256 calls) */
static void fn_poll(nfunc_t *F) {
    if ((++F->polls & 255) != 0) return;
    native_fn_t code = NULL;
    double secs = 0;
    int r = native_compile_poll(F->job, false, &code, &secs);
    if (r == 0) return;
    F->job = NULL;
    native_state_t *s = state(g_in);
    for (int i = 0; i < s->nfjobs; i++)
        if (s->fjobs[i] == F) s->fjobs[i] = s->fjobs[--s->nfjobs];
    fn_install(F, &F->pend, r == 1 ? code : NULL, 0, secs);
}

int native_call(func_t *fn, val_t *args, val_t *r) {
    interp_t *in = g_in;
    native_state_t *s = state(in);
    /* always: every function the tier can compile, from its first call */
    in->native_hot_calls = s->mode == NATIVE_ALWAYS ? 1 : NATIVE_FN_HOT;
    if (s->mode == NATIVE_OFF) {
        fn->hot = 0;
        return 0;
    }
    fn->hot = in->native_hot_calls; /* stays hot: every call comes here */
    if (in->native_block) return 0;
    nfunc_t *F = fn->native;
    if (F && F->state == NF_READY)
        for (int i = 0; i < F->ndeps; i++)
            if (((fbox_t *)F->deps[2 * i])->cur != F->deps[2 * i + 1]) {
                F = NULL; /* a function it calls was redefined: compile again */
                break;
            }
    if (!F && !(F = fn_record(fn))) return 0; /* interpreted: its poll raises the interrupt */
    if (F->state == NF_COMPILING) fn_poll(F);
    if (F->state == NF_COMPILING) return 0;
    if (F->state != NF_READY) {
        fn->hot = INT32_MIN; /* never again */
        return 0;
    }
    val_t ret = {0};
    nrt_t rt = g_rt;
    rt.clean_runs = s->st.clean_runs;
    if (F->fn(&rt, F->k, args, in->stack_base - in->stack_limit, &ret, 0)) {
        s->st.gave_up++;
        return 2;
    }
    s->st.entries++;
    *r = ret;
    return 1;
}

/* ---- loops ---- */
static int sx_native(node_t *n, frame_t *f);
static void use_code(nloop_t *L, native_src_t *src, bool build);
static void install(nloop_t *L, native_src_t *src, native_fn_t fn, int how, double secs);
static bool finish_job(nloop_t *L, bool wait);

/* the loops directly inside statement n (not inside those) get parent L */
static void adopt(node_t *n, nloop_t *L) {
    if (!n) return;
    if (n->sfn == sx_native) {
        ((nloop_t *)n->native)->parent = L;
        return;
    }
    switch (eval_stmt_kind(n->sfn)) {
    case NK_S_BLOCK:
        for (int i = 0; i < n->nlist; i++) adopt(n->list[i], L);
        break;
    case NK_S_IF: adopt(n->b, L); adopt(n->c, L); break;
    case NK_S_SWITCH: adopt(n->b, L); break;
    default: break;
    }
}

void native_hook_loop(node_t *n, int kind) {
    nloop_t *L = pool_alloc(&g_in->pool, sizeof *L);
    L->head.orig = n->sfn;
    L->head.kind = kind;
    L->n = n;
    n->native = L;
    n->sfn = sx_native;
    if (kind == NK_S_FOR) { adopt(n->a, L); adopt(n->d, L); }
    else adopt(n->b, L);
}

/* compile L's loop, in frame f (the code may be made for its slots' values
 * now: native_nest.c): ST_READY, or ST_BAD */
static void compile_loop(nloop_t *L, frame_t *f) {
    if (L->state == ST_COMPILING) {
        finish_job(L, true);
        return;
    }
    native_src_t src;
    if (native_gen(L->n, f->slots, !L->whole, &src) != 0) {
        L->state = ST_BAD;
        return;
    }
    use_code(L, &src, true);
}

/* Starts compiling L's loop in the background: ST_COMPILING, or at once
 * ST_READY (cached) or ST_BAD. */
static void start_job(nloop_t *L, frame_t *f) {
    native_state_t *s = state(g_in);
    native_src_t src;
    if (native_gen(L->n, f->slots, !L->whole, &src) != 0) {
        L->state = ST_BAD;
        return;
    }
    native_fn_t fn = NULL;
    int how = 0;
    native_job_t *j = NULL;
    /* the same code on its way already, for this loop's cell run before */
    uint64_t h = s->norphans ? native_code_hash(src.text, s->opt) : 0;
    for (int i = 0; i < s->norphans && !j; i++)
        if (native_job_hash(s->orphans[i]) == h) {
            j = s->orphans[i];
            s->orphans[i] = s->orphans[--s->norphans];
        }
    if (!j) j = native_compile_start(&s->libs, src.text, s->opt, &fn, &how);
    if (fn || !j) { /* cached, or the compiler cannot start */
        use_code(L, &src, fn != NULL);
        if (!fn) L->state = ST_BAD;
        return;
    }
    free(src.text);
    src.text = NULL;
    L->pend = src;
    L->job = j;
    L->state = ST_COMPILING;
    ARRAY_GROW(s->compiling, s->ncompiling, s->capcompiling);
    s->compiling[s->ncompiling++] = L;
}

/* Is L's background compile done (wait: wait for it)? Then L is ST_READY
 * or ST_BAD (ST_OK again when an interrupt stopped it). */
static bool finish_job(nloop_t *L, bool wait) {
    native_state_t *s = state(g_in);
    native_fn_t fn;
    double secs = 0;
    int r = native_compile_poll(L->job, wait, &fn, &secs);
    if (r == 0) return false;
    L->job = NULL;
    for (int i = 0; i < s->ncompiling; i++)
        if (s->compiling[i] == L) s->compiling[i] = s->compiling[--s->ncompiling];
    native_src_t src = L->pend;
    memset(&L->pend, 0, sizeof L->pend);
    if (r < 0) {
        s->st.abandoned++;
        native_src_free(&src);
        L->state = ST_OK;
        return true;
    }
    install(L, &src, fn, 0, secs);
    return true;
}

/* L's code for src (compiled unless build is false: from a cache only):
 * ST_READY, ST_BAD when the compiler failed, unchanged otherwise. Frees src. */
static void use_code(nloop_t *L, native_src_t *s_, bool build) {
    native_state_t *s = state(g_in);
    native_src_t src = *s_;
    int how = 0;
    double secs = 0;
    native_fn_t fn = build ? native_compile(&s->libs, src.text, s->opt, &how, &secs)
                           : native_lookup(&s->libs, src.text, s->opt, &how);
    free(src.text);
    src.text = NULL;
    if (!fn && !build) {
        free(src.k);
        free(src.loops);
        return;
    }
    if (!fn && how < 0) { /* interrupted: still compilable; the interpreter raises */
        s->st.abandoned++;
        free(src.k);
        free(src.loops);
        return;
    }
    install(L, &src, fn, how, secs);
}

/* L gets code fn for src (NULL: the compiler failed, ST_BAD); frees src */
static void install(nloop_t *L, native_src_t *s_, native_fn_t fn, int how, double secs) {
    native_state_t *s = state(g_in);
    native_src_t src = *s_;
    free(src.text);
    if (!fn) {
        free(src.k);
        free(src.loops);
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

/* Orphaned compiles that are done: their code loaded (and cached) */
static void reap_orphans(native_state_t *s) {
    int kept = 0;
    for (int i = 0; i < s->norphans; i++) {
        native_fn_t fn;
        double secs;
        if (native_compile_poll(s->orphans[i], false, &fn, &secs) == 0) s->orphans[kept++] = s->orphans[i];
    }
    s->norphans = kept;
}

/* Is the loop compilable at all? (decided once, on its first run) Code
 * already made for the same loop (a cell run again, a kernel restarted)
 * is taken at once from the cache, without waiting to get hot. */
static bool check(nloop_t *L, frame_t *f) {
    if (L->state == ST_NEW) {
        if (state(g_in)->norphans) reap_orphans(state(g_in));
        native_src_t src;
        if (native_gen(L->n, f->slots, !L->whole, &src) != 0) L->state = ST_BAD;
        else {
            L->state = ST_OK;
            if (state(g_in)->mode != NATIVE_OFF) use_code(L, &src, false);
            else native_src_free(&src);
        }
    }
    return L->state != ST_BAD;
}

/* a call of a pure function from compiled loop code that gave up: the
 * interpreter's call, which raises the error the compiled call met, with
 * its frames; nothing inside it compiled */
static nval_t rt_call(void *node, nval_t *args) {
    void *box;
    func_t *fn = eval_call_target(node, &box);
    if (!fn) rt_error(node, "internal error: a compiled loop's call has no function"); /* the entry checks it */
    g_in->native_block++;
    val_t r = call_func(fn, (val_t *)args, node, NULL, NULL);
    g_in->native_block--;
    nval_t v;
    memcpy(&v, &r, sizeof v);
    return v;
}

/* L's code from its start (osr 0) or a loop head; NT_STALE: a function
 * it calls was redefined, nothing ran, and L compiles again when hot */
static int run_compiled(nloop_t *L, frame_t *f, int osr) {
    interp_t *in = g_in;
    native_state_t *s = state(in);
    nrt_t rt = g_rt;
    rt.clean_runs = s->st.clean_runs;
    rt.call = rt_call;
    rt.stack_lo = in->stack_base - in->stack_limit;
    s->st.entries++;
    int r = L->fn(&rt, L->k, f->slots, f->mem, &f->ret, osr);
    if (r == NT_STALE || r == NT_LEAN) {
        s->st.entries--;
        L->state = ST_OK;
        L->fn = NULL;
        if (r == NT_LEAN) { /* the whole code, now: the loop is hot already */
            s->st.lean_misses++;
            L->whole = true;
            start_job(L, f);
            if (L->state == ST_COMPILING && s->sync) finish_job(L, true);
            /* ready at once (cached, or compiled in the foreground): it
             * runs from where the lean code gave up, which stored nothing */
            if (L->state == ST_READY) return run_compiled(L, f, osr);
        }
        return NT_STALE;
    }
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
            if (r == NT_STALE) return -1;
            if (r == X_RETURN) return r;
            state(g_in)->unwind_to = top;
            return X_NATIVE_DONE;
        }
    return -1;
}

/* At a back-edge of interpreted loop L: enter compiled code now? true:
 * L's own, at its head; or *rc >= 0: an outer loop's code ran (its result) */
/* step back-edges more: at most one look at a compiler (a waitpid) per
 * 4096, every fourth poll, a few per cent of an interpreted loop's time
 * when made at every poll */
#define WAIT_BACKEDGES 4096
static bool every_wait(nloop_t *L, int step) {
    if ((L->backedges += step) < WAIT_BACKEDGES) return false;
    L->backedges = 0;
    return true;
}
static bool backedge(nloop_t *L, frame_t *f, int *rc, int step) {
    if (L->state == ST_READY) return true;
    if (L->state == ST_COMPILING && L->whole) /* its own whole code on the way (NT_LEAN) */
        return every_wait(L, step) && finish_job(L, false) && L->state == ST_READY;
    nloop_t *top = L->waiting;
    if (top) { /* an outer loop's compiler runs: look at it now and then */
        if (!every_wait(L, step)) return false;
        if (top->state == ST_COMPILING && !finish_job(top, false)) return false;
        L->waiting = NULL;
        L->backedges = 0;
    } else {
        if ((L->backedges += step) < HOT_BACKEDGES) return false;
        L->backedges = 0;
        /* the outermost loop around L that may compile gets compiled, in
         * the background while L goes on interpreted */
        top = L;
        for (nloop_t *p = L->parent; p && p->state != ST_BAD; p = p->parent) top = p;
        if (top->state == ST_OK) start_job(top, f);
        if (top->state == ST_COMPILING && state(g_in)->sync) finish_job(top, true);
        if (top->state == ST_COMPILING) {
            L->waiting = top;
            return false;
        }
    }
    if (top->state != ST_READY) return false; /* it failed: next time, a loop further in */
    if (top == L) return true;
    /* go on in top's code now, at L's next iteration */
    *rc = run_compiled_at(top, L, f);
    if (*rc < 0) {
        *rc = -1;
        L->enter_outer = true;
    }
    return false;
}

/* A loop's poll, every 1024 ticks at a back-edge (LOOP_POLL in
 * exec_stmt.c): as that many back-edges. The loop runs as the
 * interpreter's own while the tier waits for it to get hot or for its
 * compile, at the interpreter's speed (the tier's own interpreted loop,
 * which counted every back-edge, was up to 2x slower); compiled code is
 * entered from here, at the loop's head: its own, or an outer loop's. */
int native_loop_tick(node_t *n, frame_t *f) {
    nloop_t *L = n->native;
    if (!L || n->sfn != sx_native || state(g_in)->mode == NATIVE_OFF || L->state == ST_BAD ||
        L->state == ST_NEW)
        return -1;
    state(g_in)->st.ticks++;
    int rc = -1;
    if (backedge(L, f, &rc, 1024) && (rc = run_compiled(L, f, 1)) != NT_STALE) return rc;
    return rc >= 0 ? rc : -1;
}

static int sx_native(node_t *n, frame_t *f) {
    nloop_t *L = n->native;
    int mode = state(g_in)->mode;
    if (mode == NATIVE_OFF) return L->head.orig(n, f);
    if (!check(L, f)) {
        n->sfn = L->head.orig; /* for good: nothing in it will ever compile */
        return L->head.orig(n, f);
    }
    if (mode == NATIVE_ALWAYS && L->state != ST_READY) compile_loop(L, f);
    /* its compile in flight: an entry counts as 64 back-edges, so a short
     * loop entered a million times (a quicksort's partition) looks at the
     * compiler now and then, not at every entry */
    if (L->state == ST_COMPILING && every_wait(L, 64)) finish_job(L, false);
    if (L->state == ST_READY) {
        int rc = run_compiled(L, f, 0);
        if (rc != NT_STALE) return rc;
    }
    /* the interpreter's own loop, at its speed: native_loop_tick counts and
     * enters compiled code; an outer loop's code that ran this loop to its
     * end unwinds to here */
    int r = L->head.orig(n, f);
    if (UNLIKELY(L->enter_outer)) {
        /* the outer loop enters its code at its next poll: make that poll
         * the next one, not a thousand of this loop's later */
        L->enter_outer = false;
        g_tick = 1;
    }
    if (r == X_NATIVE_DONE && state(g_in)->unwind_to == L) {
        state(g_in)->unwind_to = NULL;
        return X_NORMAL;
    }
    return r;
}
