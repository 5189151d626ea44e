/* Host code compiled once and run many times (interp.h, "prepared code"),
 * for %timeit: the setup and the statement are lexed from their own texts
 * (so errors point at the user's lines and columns) and spliced into one
 * block with a small driving loop around the statement:
 *
 *     { SETUP
 *       for (;;) { long n = __icuda_batch(); if (n <= 0) break;
 *                  while (n-- > 0) do { STMT } while (0); } }
 *
 * Setup runs once and its variables are the statement's; being locals of
 * one block, nothing either declares outlives the run (IPython's %timeit
 * does not leak its names either). __icuda_batch hands control to the
 * caller between batches, which is where the caller reads its clocks. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prepared.h"
#include "runtime/base/xalloc.h"
#include "runtime/lang/native/native.h"
#include "runtime/base/interrupt.h"

#include "runtime/base/cell_io.h"
#include "runtime/lang/interp.h"
struct interp_prepared {
    interp_t *in;
    cell_code_t cc;
};

/* The run in progress (set only while interp_run_prepared runs; saved and
 * restored, so a nested run is harmless). */
typedef struct prep_run {
    interp_batch_fn batch;
    void *ctx;
    double value;
    bool have_value;
} prep_run_t;
static prep_run_t *g_run;

static const char prep_protos[] =
    "typedef struct timeit_result {\n"
    "    double mean, std, min, max; long runs, n, r;\n"
    "    double bytes, flops, bytes_per_s, flops_per_s;\n"
    "    const char *clock; double *times; long ntimes;\n"
    "} timeit_result;\n"
    "long __icuda_batch(void); void __icuda_value(double);\n"
    "void __icuda_array(unsigned long, ...);\n";

const char *builtin_prepared_prototypes(void) { return prep_protos; }

static val_t b_batch(node_t *c, val_t *a, int n, frame_t *f) {
    if (!g_run || !g_run->batch) rt_error(c, "__icuda_batch belongs to %%timeit; it cannot be called here");
    if (interrupt_pending()) raise_interrupt(c);
    char ename[INTERP_ENAME_MAX] = "", msg[1024] = "";
    long k = g_run->batch(g_run->ctx, ename, msg, sizeof msg);
    /* no location: the failure belongs to the timing, not to a line */
    if (k < 0) lang_raise(ename[0] ? ename : "RuntimeError", NULL, "%s", msg);
    return (val_t){.i = k};
}

static val_t b_value(node_t *c, val_t *a, int n, frame_t *f) {
    if (!g_run) rt_error(c, "__icuda_value belongs to %%timeit; it cannot be called here");
    g_run->value = a[0].d;
    g_run->have_value = true;
    return (val_t){.i = 0};
}

void builtins_prepared_register(interp_t *in) {
    builtin_add(in, "__icuda_batch", b_batch, 0);
    builtin_add(in, "__icuda_value", b_value, 0);
}

/* Appends the tokens of v (without its EOF) to out. */
static void splice(tokvec_t *out, const tokvec_t *v, int cap) {
    int n = v->n - 1;
    if (n <= 0) return;
    if (out->n + n > cap) abort(); /* sized by the caller */
    memcpy(out->v + out->n, v->v, sizeof(token_t) * (size_t)n);
    out->n += n;
}

static bool ends_statement(const tokvec_t *v) {
    if (v->n < 2) return true;
    const token_t *t = &v->v[v->n - 2];
    return t->kind == TK_PUNCT && (t->id == P_SEMI || t->id == P_RBRACE);
}

/* Lexes t's code: its text with what precedes start blanked (newlines
 * kept), then the text as written put back for error lines to show. */
static void lex_text(interp_t *in, const interp_text_t *t, tokvec_t *out) {
    size_t n = strlen(t->text), start = t->start <= n ? t->start : n;
    char *code = xstrdup(t->text);
    for (size_t i = 0; i < start; i++)
        if (code[i] != '\n') code[i] = ' ';
    src_t *s = src_new(in, t->name ? t->name : "<code>", code);
    free(code);
    lex_cell(in, s, out);
    memcpy(s->text, t->text, start); /* no token lies there */
}

/* Lexes the pieces and parses them as one cell: glue[0] SETUP glue[1] STMT
 * glue[2], with a ';' after STMT where a statement lacks one (a line magic's
 * statement is written without it, as IPython users do). Returns 0 or -1
 * (err filled). */
static int compile(interp_t *in_arg, const interp_text_t *setup, const interp_text_t *stmt,
                   const char *const glue[3], bool statement, cell_code_t *out, cell_error_t *err) {
    interp_t *volatile in = in_arg;
    interp_t *volatile saved = g_in;
    jmp_buf jb;
    lang_enter(in, NULL, err, &jb, STACK_HERE());
    memset(out, 0, sizeof *out);
    if (setjmp(jb)) {
        parse_abort_cleanup();
        pool_free(&in->scratch);
        in->jb = NULL;
        in->err = NULL;
        lang_use(saved ? saved : in);
        return -1;
    }
    src_t *gsrc = src_new(in, "<timeit>", glue[0]);
    tokvec_t g0 = {0}, g1 = {0}, g2 = {0}, s = {0}, t = {0}, semi = {0};
    lex_cell(in, gsrc, &g0);
    lex_cell(in, src_new(in, "<timeit>", glue[1]), &g1);
    lex_cell(in, src_new(in, "<timeit>", glue[2]), &g2);
    if (setup) lex_text(in, setup, &s);
    lex_text(in, stmt, &t);
    if (t.n < 2) syntax_error(&t.v[0].loc, statement ? "nothing to run" : "an expression is missing");
    if (statement && !ends_statement(&t)) lex_cell(in, src_new(in, "<timeit>", ";"), &semi);
    int cap = g0.n + g1.n + g2.n + s.n + t.n + semi.n + 1;
    tokvec_t all = {pool_alloc(&in->scratch, sizeof(token_t) * (size_t)cap), 0, cap};
    splice(&all, &g0, cap);
    splice(&all, &s, cap);
    splice(&all, &g1, cap);
    splice(&all, &t, cap);
    splice(&all, &semi, cap);
    splice(&all, &g2, cap);
    all.v[all.n++] = g2.v[g2.n - 1]; /* EOF */
    parse_cell(in, &all, gsrc, out, false);
    pool_free(&in->scratch);
    in->jb = NULL;
    in->err = NULL;
    lang_use(saved ? saved : in);
    return 0;
}

static const char *const loop_glue[3] = {
    "{\n",
    "\nfor (;;) { long __icuda_n = __icuda_batch(); if (__icuda_n <= 0) break;\n"
    "while (__icuda_n-- > 0) do {\n",
    "\n} while (0); } }\n",
};

interp_prepared_t *interp_prepare(interp_t *in, const interp_text_t *setup, const interp_text_t *stmt,
                                  cell_error_t *err) {
    interp_prepared_t *p = xcalloc(1, sizeof *p);
    p->in = in;
    if (compile(in, setup, stmt, loop_glue, true, &p->cc, err)) {
        free(p);
        return NULL;
    }
    return p;
}

void interp_prepared_free(interp_prepared_t *p) {
    if (!p) return;
    /* the nodes live in the session's pool; only the list of statics is ours */
    free(p->cc.newg);
    free(p);
}

/* Runs compiled code once: 0, or -1 with err filled. */
static int execute(interp_t *in_arg, cell_code_t *cc, const cell_io_t *io, prep_run_t *run, cell_error_t *err) {
    interp_t *volatile in = in_arg;
    interp_t *volatile saved = g_in;
    prep_run_t *volatile saved_run = g_run;
    g_run = run;
    jmp_buf jb;
    lang_enter(in, io, err, &jb, STACK_HERE());
    int rc = 0;
    if (setjmp(jb)) {
        lang_recover(in);
        rc = -1;
        if (in->exited && err && err->ename && !strcmp(err->ename, "__exit__")) {
            /* exit() ends the run as it ends a cell; the caller sees that
             * the statement did not finish */
            cell_error_clear(err);
            rc = 0;
        }
        goto out;
    }
    run_cell(in, cc);
    out_flush();
out:
    in->jb = NULL;
    in->err = NULL;
    in->io = NULL;
    g_run = saved_run;
    lang_use(saved ? saved : in);
    return rc;
}

int interp_run_prepared(interp_t *in, interp_prepared_t *p, const cell_io_t *io, interp_batch_fn batch, void *ctx,
                        cell_error_t *err) {
    prep_run_t run = {batch, ctx, 0, false};
    /* one tier for every timed repeat: a loop that gets hot in the warm-up
     * compiles then, in the foreground, not in the middle of a repeat */
    bool was = native_set_sync(in, true);
    int rc = execute(in, &p->cc, io, &run, err);
    native_set_sync(in, was);
    return rc;
}

static const char *const value_glue[3] = {"{ __icuda_value((double)(\n", "", "\n)); }\n"};

int interp_eval_number(interp_t *in, const interp_text_t *expr, double *out, cell_error_t *err) {
    cell_code_t cc;
    /* the expression goes where a statement would: "{ ... ((" expr ")); }" */
    if (compile(in, NULL, expr, value_glue, false, &cc, err)) return -1;
    prep_run_t run = {NULL, NULL, 0, false};
    int rc = execute(in, &cc, NULL, &run, err);
    free(cc.newg);
    if (rc == 0 && !run.have_value) {
        cell_error_set(err, "RuntimeError", NULL, "the expression %s gave no value", expr->text + expr->start);
        return -1;
    }
    if (rc == 0) *out = run.value;
    return rc;
}

bool interp_is_type_name(interp_t *in, const char *name) {
    sym_t *s = hmap_get(&in->globals, name);
    return s && s->kind == S_TYPEDEF;
}

/* Runs glue[0] first glue[1] second glue[2] once (session_data.c's probe
 * of an array). */
int prepared_run_glued(interp_t *in, const interp_text_t *first, const interp_text_t *second,
                       const char *const glue[3], cell_error_t *err) {
    cell_code_t cc;
    if (compile(in, first, second, glue, false, &cc, err)) return -1;
    prep_run_t run = {NULL, NULL, 0, false};
    int rc = execute(in, &cc, NULL, &run, err);
    free(cc.newg);
    return rc;
}
