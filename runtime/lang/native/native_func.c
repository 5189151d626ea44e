/* Native tier, pure host functions (the tier's side is native_tier.c's
 * native_call). A function qualifies when all it
 * does is compute on its parameters and locals: scalar parameters and
 * locals kept in slots (none addressed), a scalar or void result, no
 * memory access at all, no output, no rand(), and calls only to functions
 * that qualify too (itself included). Such a call has no effect but its
 * value, so compiled code may give up at any point and the call be run
 * again interpreted: every check that would raise (overflow, division,
 * shifts, conversions, an interrupt, a stack deeper than the
 * interpreter's limit) makes the code give up instead (the runtime table
 * native_call passes makes those routines longjmp out), and the
 * interpreted run raises the interpreter's own error with its own
 * traceback. The unit holds the function and every function it calls,
 * as static C functions calling each other directly. */
#include <inttypes.h>
#include <stdio.h>
#include "native_gen.h"


static bool fn_qualifies(func_t *fn) {
    if (!fn || !fn->body || fn->nmem || fn->memsize || fn->nvla || ty_is_aggr(fn->ty->base) ||
        fn->ty->nparams != fn->nparams || fn->nparams > 16)
        return false;
    for (int i = 0; i < fn->nparams; i++)
        if (fn->pslot[i] < 0 || ty_is_aggr(fn->ty->params[i]) || fn->ty->params[i]->is_ref) return false;
    return true;
}

/* fn's index in the unit, added when new; -1 when it cannot be compiled */
static int unit_add(unit_t *u, func_t *fn, void *box) {
    for (int i = 0; i < u->n; i++)
        if (u->fn[i] == fn) return i;
    if (u->n == MAXFN || !fn_qualifies(fn)) return -1;
    u->fn[u->n] = fn;
    u->box[u->n] = box;
    return u->n++;
}

unit_t *gen_unit_new(void) {
    unit_t *u = xcalloc(1, sizeof *u);
    u->cur = -1;
    return u;
}

/* how many nodes tree n has (counted up to a bound) */
enum { SMALL_FN = 200 };
static int nodes_in(node_t *n, int acc) {
    if (!n || acc > SMALL_FN) return acc;
    acc++;
    acc = nodes_in(n->a, acc);
    acc = nodes_in(n->b, acc);
    acc = nodes_in(n->c, acc);
    acc = nodes_in(n->d, acc);
    for (int i = 0; i < n->nlist; i++) acc = nodes_in(n->list[i], acc);
    return acc;
}

/* Is function i of u on a cycle of calls (recursive, directly or not)? */
static bool recursive(unit_t *u, int i) {
    unsigned char seen[MAXFN] = {0};
    int stack[MAXFN], top = 0;
    stack[top++] = i;
    while (top) {
        int f = stack[--top];
        for (int j = 0; j < u->n; j++)
            if (u->calls[f][j]) {
                if (j == i) return true;
                if (!seen[j]) { seen[j] = 1; stack[top++] = j; }
            }
    }
    return false;
}

/* a direct call of a function in the unit, its arguments evaluated left to
 * right as ev_call does. From a function: a C call. From a loop: a C call
 * that may give up, and then the interpreter's call of the same function
 * with the same arguments (rt->call), which raises what it raises. */
char *gen_user_call(gen_t *g, node_t *n) {
    void *box = NULL;
    func_t *fn = eval_call_target(n, &box);
    int id = fn ? unit_add(g->unit, fn, box) : -1;
    if (id < 0 || n->nlist != fn->nparams) return bad(g);
    if (g->unit->cur >= 0) g->unit->calls[g->unit->cur][id] = 1;
    int t = g->ntmp++;
    strbuf_t s = {0};
    sb_printf(&s, "({ ");
    for (int i = 0; i < n->nlist; i++) {
        char *a = gen_expr(g, n->list[i]);
        sb_printf(&s, "nval_t a%d_%d = {.%s = %s}; ", t, i, isf(n->list[i]->ty) ? "d" : "i", a);
        free(a);
    }
    /* F<id> returns its value and a flag, in two registers: set when the call
     * gave up (a check failed); a function passes it on to its caller */
    sb_printf(&s, "nret_t c%d_ = F%d(rt", t, id);
    for (int i = 0; i < n->nlist; i++) sb_printf(&s, ", a%d_%d", t, i);
    sb_printf(&s, ");\n");
    if (g->fnmode) {
        sb_printf(&s, "if (__builtin_expect(c%d_.g, 0)) return c%d_;\nc%d_.v.%s; })", t, t, t, isf(n->ty) ? "d" : "i");
        return s.data;
    }
    /* from a loop: the interpreter's call of the same function with the
     * same arguments, which raises what the compiled call met */
    sb_printf(&s, "if (__builtin_expect(c%d_.g, 0)) { NT_SYNC(); nval_t av%d_[%d] = {", t, t, n->nlist ? n->nlist : 1);
    for (int i = 0; i < n->nlist; i++) sb_printf(&s, "%sa%d_%d", i ? ", " : "", t, i);
    sb_printf(&s, "}; c%d_.v = rt->call(k%d, av%d_); }\nc%d_.v.%s; })", t, gen_kidx(g, n), t, t, isf(n->ty) ? "d" : "i");
    return s.data;
}

/* A function's read of p[i] or *(p + k): through a cache of its own
 * (nt_fic / nt_fdc, emptied at every entry of the code: compiled code
 * frees nothing, so a buffer found live stays so until it returns); a
 * miss asks the interpreter, without raising, what p may reach
 * (nt_ffill / nt_fdfill); outside that, or where it holds a session
 * variable the loop keeps in a local, the call gives up and the loop runs
 * it again interpreted: the interpreter raises, or reads what is there. */
char *gen_fn_read(gen_t *g, node_t *pl) {
    char *p = gen_expr(g, pl->a), *r;
    if (pl->place == PL_INDEX) {
        char *i = gen_expr(g, pl->b);
        int j = g->nfic++;
        r = xasprintf("({ uint64_t p_ = (uint64_t)%s; int64_t i_ = %s; char *a_; nic_t *c_ = &nt_fic[%d];"
                      " if (__builtin_expect(p_ == c_->p && (uint64_t)i_ - (uint64_t)c_->lo < c_->span, 1))"
                      " a_ = (char *)(c_->addr + (uint64_t)i_ * %" PRId64 "u);"
                      " else if (!(a_ = nt_ffill(rt, c_, p_, i_, %" PRId64 "))) return NT_GAVE_UP; a_; })",
                      p, i, j, pl->esz, pl->esz);
        free(i);
    } else {
        int j = g->nfdc++;
        r = xasprintf("({ uint64_t p_ = (uint64_t)%s; int64_t o_ = nt_off(p_) + %" PRId64 "; char *a_; ndc_t *c_ = &nt_fdc[%d];"
                      " if (__builtin_expect((p_ >> NT_OFF_BITS) == c_->key && (uint64_t)o_ <= c_->lim, 1)) a_ = c_->base + o_;"
                      " else if (!(a_ = nt_fdfill(rt, c_, p_, %" PRId64 ", %" PRId64 "))) return NT_GAVE_UP; a_; })",
                      p, pl->k.i, j, pl->k.i, pl->esz);
    }
    free(p);
    return r;
}

/* A session variable a function reads by name: not one the loop keeps in
 * a local and writes (its memory is behind then) */
bool gen_fn_global_ok(gen_t *g, node_t *pl) {
    gen_t *lp = g->parent;
    void *r;
    int64_t o;
    if (!lp || !fixed_place(pl, &r, &o)) return true;
    for (int i = 0; i < lp->ngv; i++)
        if (lp->gv[i].cached && lp->gv[i].written && lp->gv[i].root == r) return false;
    return true;
}

static void fn_params(strbuf_t *s, func_t *fn) {
    sb_printf(s, "const nrt_t *rt");
    for (int i = 0; i < fn->nparams; i++) sb_printf(s, ", nval_t a%d", i);
}

/* function u->fn[id] as static C function F<id> into s */
static void gen_function(gen_t *g, unit_t *u, int id, strbuf_t *s) {
    func_t *fn = u->fn[id];
    memset(g->slotc, 0, sizeof g->slotc);
    g->nlab = g->depth = 0;
    free(g->body.data);
    g->body = (strbuf_t){0};
    u->cur = id;
    int reads0 = g->nfic + g->nfdc;
    gen_stmt(g, fn->body);
    u->cur = -1;
    /* a function with a loop over memory stays interpreted, its loop
     * compiled (and versioned: native_version.c) */
    if (g->nlab && g->nfic + g->nfdc > reads0) g->fail = true;
    if (g->fail || g->nic || g->ndc || g->nra || g->nrb) {
        g->fail = true;
        return;
    }
    /* inline: gcc inlines a small recursive function into itself a few
     * levels deep only when it is declared so (fib: 8 ms -> 5 ms) */
    sb_printf(s, "static inline nret_t F%d(", id);
    fn_params(s, fn);
    /* a recursive function: no deeper than the interpreter's stack limit,
     * and the interrupt polled, one test a call (NT_GUARD<id>: the guard
     * word, interrupt.h); one that is not goes no deeper than its callers
     * and, but for its loops (which poll), ends soon: no test, which lets
     * gcc inline it into a loop as a program's own helper */
    sb_printf(s, ") {\nNT_GUARD%d\n", id);
    for (int i = 0; i < MAXSLOTS; i++)
        if (g->slotc[i]) sb_printf(s, "%s s%d = 0;\n", slot_ctype(g->slotc[i] - 1), i);
    for (int i = 0; i < fn->nparams; i++) {
        int sl = fn->pslot[i];
        if (sl < MAXSLOTS && g->slotc[sl])
            sb_printf(s, "s%d = (%s)a%d.%s;\n", sl, slot_ctype(g->slotc[sl] - 1), i, c_float(g->slotc[sl] - 1) ? "d" : "i");
        else sb_printf(s, "(void)a%d;\n", i);
    }
    sb_printf(s, "%s", g->body.data ? g->body.data : "");
    sb_printf(s, "return (nret_t){{.i = 0}, 0};\n}\n");
}

/* What every unit with functions declares: a call's result (its value and
 * whether it gave up), the constants' table, the lowest stack address, the
 * back-edge count of loops inside functions (poll_code; a loop's own code
 * counts in a local of the same name), how to read the stack pointer, and
 * the cold path of the one test a call (the guard word). */
const char gen_unit_statics[] =
    "typedef struct nret { nval_t v; int64_t g; } nret_t;\n#define NT_GAVE_UP ((nret_t){{.i = 0}, 1})\n"
    "static void *const *K_;\nstatic char *nt_stack_lo;\nstatic int nt_tick = 1024;\n"
    /* the stack pointer: __builtin_frame_address would cost every
     * function a frame pointer (a tenth of fib's time) */
    "#if defined(__x86_64__)\n#define NT_SP() ({ char *sp_; __asm__ volatile(\"mov %%rsp, %0\" : \"=r\"(sp_)); sp_; })\n"
    "#elif defined(__aarch64__)\n#define NT_SP() ({ char *sp_; __asm__ volatile(\"mov %0, sp\" : \"=r\"(sp_)); sp_; })\n"
    "#else\n#define NT_SP() ((char *)__builtin_frame_address(0))\n#endif\n"
    /* the guard word set back to the stack limit, then the flag read: an
     * interrupt raised meanwhile sets it again (interrupt_raise's order) */
    "__attribute__((noinline, cold)) static void nt_guard(const nrt_t *rt) {\n"
    "__atomic_store_n(rt->guard, nt_stack_lo, __ATOMIC_SEQ_CST);\n"
    "if (__atomic_load_n(rt->iflag, __ATOMIC_SEQ_CST)) __atomic_store_n(rt->guard, (char *)-1, __ATOMIC_SEQ_CST);\n}\n"
    /* 1: give up (the interrupt, or a stack deeper than the interpreter's limit) */
    "__attribute__((noinline, cold)) static int nt_poll(const nrt_t *rt, char *frame) {\n"
    "nt_guard(rt);\nreturn *rt->iflag || frame < nt_stack_lo;\n}\n";

/* Generates every function of u (u grows with the calls found) in
 * function mode, sharing g's constants; into s their C text with the
 * macros they need around it. false when one does not qualify. */
bool gen_unit_functions(gen_t *g, unit_t *u, strbuf_t *s) {
    gen_t *fg = xcalloc(1, sizeof *fg);
    fg->unit = u;
    fg->fnmode = true;
    fg->parent = g;
    fg->k = g->k;
    fg->nk = g->nk;
    fg->capk = g->capk;
    strbuf_t fns = {0};
    for (int i = 0; i < u->n && !fg->fail; i++) gen_function(fg, u, i, &fns);
    g->k = fg->k;
    g->nk = fg->nk;
    g->capk = fg->capk;
    bool ok = !fg->fail;
    if (ok) {
        sb_printf(s, "#define NT_SYNC() do { } while (0)\n#define NT_RELOAD() do { } while (0)\n#define NT_ALIAS(lo, n) 0\n"
                  "#undef NT_RAISE\n#define NT_RAISE(call) return NT_GAVE_UP\n");
        for (int j = 0; j < g->nk; j++) sb_printf(s, "#define k%d (K_[%d])\n", j, j);
        /* the functions' read caches, emptied at each entry (nt_freset) */
        gen_alias_macro(g, s, "NT_KALIAS");
        sb_printf(s, "static nic_t nt_fic[%d]; static ndc_t nt_fdc[%d];\n"
                  "static void nt_freset(void) { __builtin_memset(nt_fic, 0, sizeof nt_fic); __builtin_memset(nt_fdc, 0xff, sizeof nt_fdc); }\n"
                  "static __attribute__((noinline, cold)) char *nt_ffill(const nrt_t *rt, nic_t *c, uint64_t p, int64_t i, int64_t esz) {\n"
                  "  if (!rt->range(p, esz, 0, c) || (uint64_t)i - (uint64_t)c->lo >= c->span ||\n"
                  "      NT_KALIAS(c->addr + (uint64_t)c->lo * (uint64_t)esz, c->span * (uint64_t)esz)) { c->span = 0; return 0; }\n"
                  "  return (char *)(c->addr + (uint64_t)i * (uint64_t)esz); }\n"
                  "static __attribute__((noinline, cold)) char *nt_fdfill(const nrt_t *rt, ndc_t *c, uint64_t p, int64_t off, int64_t esz) {\n"
                  "  nic_t r; c->key = ~0ULL;\n"
                  "  if (!rt->range(p, 1, 0, &r)) return 0;\n"
                  "  char *base = (char *)(r.addr + (uint64_t)r.lo); int64_t o = nt_off(p) + off;\n"
                  "  if (r.span < (uint64_t)esz || o < 0 || (uint64_t)o > r.span - (uint64_t)esz || NT_KALIAS((uintptr_t)base, r.span)) return 0;\n"
                  "  c->key = p >> NT_OFF_BITS; c->base = base; c->lim = r.span - (uint64_t)esz; return base + o; }\n",
                  fg->nfic ? fg->nfic : 1, fg->nfdc ? fg->nfdc : 1);
        for (int i = 0; i < u->n; i++)
            sb_printf(s, "#define NT_GUARD%d %s\n", i, recursive(u, i) ? "if (__builtin_expect(NT_SP() < *rt->guard, 0) && "
                                                                            "nt_poll(rt, NT_SP())) return NT_GAVE_UP;" : "");
        for (int i = 0; i < u->n; i++) {
            /* a small helper that is not recursive goes into its caller as
             * gcc inlines a program's own (its heuristics call a call cold
             * beside the checks' cold paths, and would not) */
            bool small = !recursive(u, i) && nodes_in(u->fn[i]->body, 0) <= SMALL_FN;
            sb_printf(s, "static inline %snret_t F%d(", small ? "__attribute__((always_inline)) " : "", i);
            fn_params(s, u->fn[i]);
            sb_printf(s, ");\n");
        }
        sb_printf(s, "%s", fns.data ? fns.data : "");
        sb_printf(s, "#undef NT_SYNC\n#undef NT_RELOAD\n#undef NT_ALIAS\n#undef NT_KALIAS\n#undef NT_RAISE\n#define NT_RAISE(call) call\n");
        for (int i = 0; i < u->n; i++) sb_printf(s, "#undef NT_GUARD%d\n", i);
        for (int j = 0; j < g->nk; j++) sb_printf(s, "#undef k%d\n", j);
    }
    free(fns.data);
    free(fg->body.data);
    free(fg->loops);
    free(fg->versioned);
    free(fg);
    return ok;
}

/* the (fbox, func) pairs of the unit's calls, as compiled: stale when one changes */
static void unit_deps(unit_t *u, native_src_t *out) {
    out->deps = xmalloc(sizeof(void *) * (size_t)(2 * u->n));
    out->ndeps = 0;
    for (int i = 0; i < u->n; i++)
        if (u->box[i]) {
            out->deps[2 * out->ndeps] = u->box[i];
            out->deps[2 * out->ndeps + 1] = u->fn[i];
            out->ndeps++;
        }
}

/* in a loop's code, before anything runs: a function it calls redefined
 * since the code was made means the code is stale (NT_STALE) */
void gen_unit_entry_checks(gen_t *g, unit_t *u, strbuf_t *s) {
    sb_printf(s, "K_ = K; nt_stack_lo = rt->stack_lo; nt_guard(rt); nt_freset();\n");
    for (int i = 0; i < u->n; i++)
        sb_printf(s, "if (*(void *const *)((char *)k%d + %zu) != k%d) return %d;\n", gen_kidx(g, u->box[i]),
               offsetof(fbox_t, cur), gen_kidx(g, u->fn[i]), NT_STALE);
}

int native_gen_func(func_t *root, native_src_t *out) {
    memset(out, 0, sizeof *out);
    unit_t u = {0};
    if (unit_add(&u, root, NULL) != 0) return -1;
    gen_t *g = xcalloc(1, sizeof *g);
    strbuf_t fns = {0};
    if (!gen_unit_functions(g, &u, &fns)) {
        free(fns.data);
        free(g->k);
        free(g);
        return -1;
    }
    strbuf_t s = {0};
    sb_printf(&s, gen_prelude, PTR_OFF_BITS, PTR_SLOT_SHIFT, PTR_SLOT_SHIFT, (unsigned long long)PTR_RAW_LIMIT,
           (unsigned long long)PTR_RAW_LIMIT);
    sb_printf(&s, "%s%s", gen_unit_statics, fns.data);
    free(fns.data);
    /* S: the arguments; M: the lowest stack address the code may use; R:
     * the result. 1: the call gave up (native_call runs it interpreted) */
    sb_printf(&s, "int icuda_native(const nrt_t *rt, void *const *K, nval_t *S, char *M, nval_t *R, int osr) {\n"
               "(void)osr; K_ = K; nt_stack_lo = M; nt_guard(rt); nt_freset();\nnret_t r_ = F0(rt");
    for (int i = 0; i < root->nparams; i++) sb_printf(&s, ", S[%d]", i);
    sb_printf(&s, ");\nif (r_.g) return 1;\n*R = r_.v;\nreturn 0;\n}\n");
    out->text = s.data;
    out->k = g->k;
    out->nk = g->nk;
    unit_deps(&u, out);
    free(g);
    return 0;
}
