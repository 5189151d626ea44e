/* Prepared host code (interp_prepare / interp_run_prepared, what %timeit
 * runs): setup once, the statement in batches the caller chooses, nothing
 * leaking into the session, errors and interrupts surfacing as in a cell;
 * and interp_eval_number (%timeit --bytes/--flops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "runtime/base/interrupt.h"
#include "runtime/lang/interp.h"

#include "runtime/base/cell_io.h"
static void err_clear(cell_error_t *e) {
    free(e->ename);
    free(e->evalue);
    if (e->traceback) json_decref(e->traceback);
    memset(e, 0, sizeof *e);
}

/* The value a cell's last expression shows, "" on error. */
static char *value_of(interp_t *in, const char *code) {
    json_t *v = NULL;
    cell_error_t err = {0};
    char *s = strdup("");
    if (interp_run(in, code, "In [9]", NULL, &v, &err) == 0 && v) {
        free(s);
        s = strdup(json_string_value(json_object_get(v, "text/plain")));
    }
    json_decref(v);
    err_clear(&err);
    return s;
}

static void run_ok(interp_t *in, const char *code) {
    cell_error_t err = {0};
    int rc = interp_run(in, code, "In [1]", NULL, NULL, &err);
    if (rc) fprintf(stderr, "cell failed: %s: %s\n", err.ename, err.evalue);
    CHECK(rc == 0);
    err_clear(&err);
}

static void check_value(interp_t *in, const char *code, const char *want) {
    char *v = value_of(in, code);
    CHECK_STR(v, want);
    free(v);
}

/* A batch plan: sizes[i] runs, then 0; records how often it was called. */
typedef struct {
    const long *sizes;
    int nsizes, calls;
    bool ended;
    bool fail_at_second;
    bool interrupt_at_second;
} plan_t;

static long plan_batch(void *ctx, char *ename, char *msg, size_t ml) {
    plan_t *p = ctx;
    int i = p->calls++;
    if (p->fail_at_second && i == 1) {
        snprintf(ename, 64, "cudaErrorIllegalAddress");
        snprintf(msg, ml, "the GPU failed");
        return -1;
    }
    if (p->interrupt_at_second && i == 1) interrupt_raise();
    if (i < p->nsizes) return p->sizes[i];
    p->ended = true;
    return 0;
}

static int run_plan(interp_t *in, const char *setup, const char *stmt, plan_t *p, cell_error_t *err) {
    interp_text_t st = {setup, 0, "In [5]"}, tt = {stmt, 0, "In [5]"};
    interp_prepared_t *pr = interp_prepare(in, setup ? &st : NULL, &tt, err);
    if (!pr) return -2;
    int rc = interp_run_prepared(in, pr, NULL, plan_batch, p, err);
    interp_prepared_free(pr);
    return rc;
}

static void test_batches_and_scope(void) {
    interp_t *in = interp_new();
    run_ok(in, "long total = 0;");
    long sizes[] = {3, 2};
    plan_t p = {.sizes = sizes, .nsizes = 2};
    cell_error_t err = {0};
    /* setup once; its variable is the statement's; the statement's own
     * declaration is fresh on each run */
    CHECK(run_plan(in, "int k = 0;", "int one = 1; k += one; total += k;", &p, &err) == 0);
    CHECK(p.calls == 3 && p.ended);
    check_value(in, "total", "(long) 15");
    /* neither k nor one joined the session */
    cell_error_t e2 = {0};
    CHECK(interp_run(in, "k", "In [6]", NULL, NULL, &e2) == -1);
    CHECK(e2.ename && !strcmp(e2.ename, "TypeError"));
    err_clear(&e2);
    CHECK(interp_run(in, "one", "In [6]", NULL, NULL, &e2) == -1);
    err_clear(&e2);
    /* a statement without ';', as a line magic's is written */
    plan_t q = {.sizes = sizes, .nsizes = 1};
    CHECK(run_plan(in, NULL, "total++", &q, &err) == 0);
    check_value(in, "total", "(long) 18");
    /* zero runs: setup still runs once */
    plan_t z = {.sizes = NULL, .nsizes = 0};
    CHECK(run_plan(in, "total = 100;", "total++", &z, &err) == 0);
    check_value(in, "total", "(long) 100");
    /* a host function that loops, and break inside the statement */
    run_ok(in, "void work(int n) { for (int i = 0; i < n; i++) total++; }");
    long four[] = {4};
    plan_t w = {.sizes = four, .nsizes = 1};
    CHECK(run_plan(in, NULL, "work(10); if (total > 0) break;", &w, &err) == 0);
    check_value(in, "total", "(long) 140");
    CHECK(w.ended);
    err_clear(&err);
    interp_free(in);
}

static void test_errors(void) {
    interp_t *in = interp_new();
    run_ok(in, "int *p = (int *)malloc(4 * sizeof(int)); int i = 0;");
    cell_error_t err = {0};
    long sizes[] = {100};
    /* a syntax error, located in the statement's own text, shown as written */
    plan_t p = {.sizes = sizes, .nsizes = 1};
    interp_text_t bad = {"%timeit -n 3 i = = 2;", 13, "%timeit"};
    CHECK(interp_prepare(in, NULL, &bad, &err) == NULL);
    CHECK(err.ename && !strcmp(err.ename, "SyntaxError"));
    CHECK(json_array_size(err.traceback) == 4);
    CHECK_STR(json_string_value(json_array_get(err.traceback, 0)), "%timeit, line 1:");
    CHECK_STR(json_string_value(json_array_get(err.traceback, 1)), "    %timeit -n 3 i = = 2;");
    CHECK_STR(json_string_value(json_array_get(err.traceback, 2)), "                     ^");
    err_clear(&err);
    CHECK(run_plan(in, NULL, "i = = 2;", &p, &err) == -2);
    CHECK(p.calls == 0);
    err_clear(&err);
    /* a runtime error stops the runs at once */
    plan_t q = {.sizes = sizes, .nsizes = 1};
    CHECK(run_plan(in, NULL, "p[i++] = 1", &q, &err) == -1);
    CHECK(err.ename && !strcmp(err.ename, "RuntimeError"));
    CHECK(err.evalue && strstr(err.evalue, "p") != NULL);
    CHECK(q.calls == 1 && !q.ended);
    check_value(in, "i", "(int) 5");
    err_clear(&err);
    /* the batch callback's own error */
    plan_t r = {.sizes = sizes, .nsizes = 1, .fail_at_second = true};
    CHECK(run_plan(in, NULL, "i++", &r, &err) == -1);
    CHECK(err.ename && !strcmp(err.ename, "cudaErrorIllegalAddress"));
    CHECK_STR(err.evalue, "the GPU failed");
    err_clear(&err);
    /* an interrupt between batches */
    plan_t s = {.sizes = sizes, .nsizes = 2, .interrupt_at_second = true};
    long two[] = {1, 1};
    s.sizes = two;
    CHECK(run_plan(in, NULL, "i++", &s, &err) == -1);
    CHECK(err.ename && !strcmp(err.ename, "KeyboardInterrupt"));
    CHECK(!s.ended);
    interrupt_clear();
    err_clear(&err);
    /* exit() ends the run quietly; the caller sees it was not told to end */
    plan_t t = {.sizes = sizes, .nsizes = 1};
    CHECK(run_plan(in, NULL, "exit(0)", &t, &err) == 0);
    CHECK(t.calls == 1 && !t.ended);
    err_clear(&err);
    /* the session goes on */
    /* 5 before the failing access, 100 + 2 more runs, none by exit(0) */
    check_value(in, "i + 1", "(int) 108");
    interp_free(in);
}

static int eval(interp_t *in, const char *expr, double *v, cell_error_t *err) {
    interp_text_t t = {expr, 0, "--bytes"};
    return interp_eval_number(in, &t, v, err);
}

static void test_eval_number(void) {
    interp_t *in = interp_new();
    run_ok(in, "int N = 10; double *d = 0; struct S { int a; } s;");
    double v = 0;
    cell_error_t err = {0};
    CHECK(eval(in, "3 * N * sizeof(double)", &v, &err) == 0 && v == 240);
    CHECK(eval(in, "N / 4.0", &v, &err) == 0 && v == 2.5);
    CHECK(eval(in, "M * 2", &v, &err) == -1);
    CHECK(err.ename && !strcmp(err.ename, "TypeError"));
    char *tb = err.traceback ? json_dumps(err.traceback, 0) : strdup("");
    CHECK(strstr(tb, "--bytes, line 1") != NULL);
    free(tb);
    err_clear(&err);
    CHECK(eval(in, "s", &v, &err) == -1);
    err_clear(&err);
    CHECK(eval(in, "3 *", &v, &err) == -1);
    CHECK(err.ename && !strcmp(err.ename, "SyntaxError"));
    err_clear(&err);
    CHECK(eval(in, "", &v, &err) == -1);
    err_clear(&err);
    interp_free(in);
}

static void test_result_type(void) {
    interp_t *in = interp_new();
    run_ok(in, "timeit_result t; t.mean = 1.5; t.n = 10; t.clock = \"host clock\";"
               "t.times = (double *)malloc(2 * sizeof(double)); t.ntimes = 2;");
    check_value(in, "t.mean * t.n", "(double) 15");
    check_value(in, "t.clock", "(const char *) \"host clock\"");
    check_value(in, "sizeof(timeit_result)", "(unsigned long) 112");
    interp_free(in);
}

int main(void) {
    test_batches_and_scope();
    test_errors();
    test_eval_number();
    test_result_type();
    return check_report();
}
