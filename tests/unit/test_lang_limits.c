/* The interpreter's limits on hostile code, in one process with
 * LeakSanitizer watching: deep nesting of every kind is a SyntaxError (not a
 * stack overflow), printf widths and local frames are bounded, and a failing
 * cell leaks nothing (the parser leaked 192 bytes per failing switch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/lang/interp.h"

#include "runtime/base/cell_io.h"
static char *repeat(const char *head, const char *unit, int n, const char *tail) {
    size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
    char *s = malloc(h + u * (size_t)n + t + 1), *q = s;
    memcpy(q, head, h), q += h;
    for (int i = 0; i < n; i++) memcpy(q, unit, u), q += u;
    memcpy(q, tail, t + 1);
    return s;
}

static char *wrap(const char *head, const char *open, int n, const char *mid, const char *close, const char *tail) {
    char *a = repeat(head, open, n, mid), *b = repeat(a, close, n, tail);
    free(a);
    return b;
}

/* Runs code; returns its error's "ename: evalue" ("" on success) in buf. */
static const char *run(interp_t *in, const char *code, char *buf, size_t n) {
    json_t *v = NULL;
    cell_error_t err = {0};
    buf[0] = 0;
    if (interp_run(in, code, "In [1]", NULL, &v, &err) != 0)
        snprintf(buf, n, "%s: %s", err.ename ? err.ename : "?", err.evalue ? err.evalue : "");
    json_decref(v);
    free(err.ename);
    free(err.evalue);
    json_decref(err.traceback);
    return buf;
}

static void expect_error(interp_t *in, const char *what, char *code, const char *want) {
    char buf[512];
    run(in, code, buf, sizeof buf);
    if (!strstr(buf, want)) fprintf(stderr, "  %s: got '%s', want '%s'\n", what, buf, want);
    CHECK(strstr(buf, want) != NULL);
    free(code);
}

#define DEEP "SyntaxError: expression nested too deeply"

int main(void) {
    interp_t *in = interp_new();
    char buf[512];
    expect_error(in, "parens", wrap("int x = ", "(", 10000, "1", ")", ";"), DEEP);
    expect_error(in, "braces", wrap("", "{", 30000, "", "}", ""), DEEP);
    expect_error(in, "ifs", repeat("int v = 0;\n", "if (1) ", 30000, "v = 1;"), DEEP);
    expect_error(in, "unary minus", repeat("int y = ", "- ", 30000, "1;"), DEEP);
    expect_error(in, "decrements", repeat("int y2 = 0; ", "--", 30000, "y2;"), DEEP);
    expect_error(in, "else if", repeat("int z = 0;\nif (z) z = 1;\n", "else if (z == 2) z = 3;\n", 30000, ""), DEEP);
    expect_error(in, "sizeof", repeat("unsigned long s = ", "sizeof ", 30000, "1;"), DEEP);
    expect_error(in, "pointer", repeat("int ", "*", 30000, "pp;"), DEEP);
    expect_error(in, "arrays", repeat("int ", "[1]", 30000, "aa;"), DEEP);
    expect_error(in, "declarator parens", wrap("int ", "(", 30000, "dd", ")", ";"), DEEP);
    expect_error(in, "struct in struct", wrap("", "struct { ", 30000, "int a;", " } m;", ""), DEEP);
    expect_error(in, "initializer", wrap("int q[1] = ", "{", 30000, "1", "}", ";"), "SyntaxError");
    expect_error(in, "chain", repeat("int c = 1", " + 1", 50000, ";"), DEEP);
    expect_error(in, "comma chain", repeat("int cc = (1", ", 1", 50000, ");"), DEEP);
    expect_error(in, "member chain", repeat("struct L { struct L *n; } l0 = {&l0}; struct L *lp = l0.n", "->n", 50000, ";"),
                 DEEP);
    expect_error(in, "assignment chain", repeat("int a1; ", "a1 = ", 30000, "1;"), DEEP);
    expect_error(in, "ternary chain", repeat("int t = ", "1 ? 1 : ", 30000, "0;"), DEEP);
    expect_error(in, "function call args", wrap("int f1(int a) { return a; } int r = ", "f1(", 20000, "1", ")", ";"), DEEP);
    expect_error(in, "loops", repeat("", "while (0) ", 30000, ";"), DEEP);
    {
        json_t *v = NULL;
        cell_error_t err = {0};
        char *e = wrap("", "(", 20000, "1", ")", "");
        CHECK(interp_eval(in, e, &v, &err) != 0 && err.evalue && strstr(err.evalue, "nested too deeply"));
        free(e);
        free(err.ename), free(err.evalue), json_decref(err.traceback), json_decref(v);
    }
    /* what fits under the bound still runs */
    char *ok = wrap("int n200 = ", "(", 200, "7", ")", ";");
    CHECK_STR(run(in, ok, buf, sizeof buf), "");
    free(ok);
    ok = repeat("int s500 = 0", " + 1", 500, ";");
    CHECK_STR(run(in, ok, buf, sizeof buf), "");
    free(ok);

    /* macros nested past the bound are an error that says so, naming the chain */
    {
        char *chain = malloc(10000 * 32), *q = chain;
        q += sprintf(q, "#define M0 1\n");
        for (int i = 1; i < 10000; i++) q += sprintf(q, "#define M%d M%d\n", i, i - 1);
        sprintf(q, "int deep = M9999;");
        expect_error(in, "macro chain", chain, "SyntaxError: macro expansion nested more than 200 deep (M9999 \u2192 M9998");
        chain = malloc(200 * 32), q = chain;
        q += sprintf(q, "#define N0 1\n");
        for (int i = 1; i < 150; i++) q += sprintf(q, "#define N%d N%d\n", i, i - 1);
        sprintf(q, "int shallow = N149;");
        CHECK_STR(run(in, chain, buf, sizeof buf), "");
        free(chain);
        /* an alias of a function-like macro, used many times in one cell: each
         * use is rescanned at its own depth, not one deeper than the last */
        char *uses = repeat("#define f_impl(x) (x)\n#define F f_impl\nint sum = 0;\n", "sum += F(1);\n", 1000, "");
        CHECK_STR(run(in, uses, buf, sizeof buf), "");
        free(uses);
    }

    /* an identifier of any length that fits the cell is one name */
    {
        char *name = repeat("", "v", 100000, "");
        size_t n = strlen(name);
        char *code = malloc(6 * n + 100);
        sprintf(code, "long %s1 = 3; long %s2 = 4; long %s3 = %s1 * 10 + %s2;", name, name, name, name, name);
        CHECK_STR(run(in, code, buf, sizeof buf), "");
        sprintf(code, "%s3 == 34 ? 0 : 1 / 0", name);
        CHECK_STR(run(in, code, buf, sizeof buf), "");
        free(code);
        free(name);
    }

    /* printf */
    CHECK(strstr(run(in, "printf(\"%2147483647d\", 1);", buf, sizeof buf), "larger than the limit"));
    CHECK(strstr(run(in, "printf(\"%*d\", 1000000000, 1);", buf, sizeof buf), "larger than the limit"));
    CHECK(strstr(run(in, "printf(\"%.*e\", 1000000000, 1.0);", buf, sizeof buf), "larger than the limit"));
    CHECK_STR(run(in, "char pb[16]; snprintf(pb, 16, \"%5d|%.*f\", 3, -1, 2.5);", buf, sizeof buf), "");

    /* frames */
    CHECK(strstr(run(in, "void fbig(void) { char big[1LL << 33]; big[0] = 1; }", buf, sizeof buf), "frame may hold"));
    CHECK(strstr(run(in, "{ char big2[1LL << 30]; big2[0] = 1; }", buf, sizeof buf), "frame may hold"));
    CHECK_STR(run(in, "void fok(void) { char m[1 << 20]; m[1] = 2; } fok();", buf, sizeof buf), "");

    /* failing cells leak nothing (LeakSanitizer checks at exit) */
    for (int i = 0; i < 20; i++) {
        CHECK(run(in, "switch (1) { case 1: y; }", buf, sizeof buf)[0] != 0);
        CHECK(run(in, "switch (2) { case 1: case 2: case 3: break; default: undefined_thing(); }", buf, sizeof buf)[0] != 0);
    }
    for (int i = 0; i < 20; i++) /* printf's text so far, when %s reads past a buffer (fuzz_interp) */
        CHECK(strstr(run(in, "{ char ub[8]; memset(ub, 'x', sizeof ub); printf(\"%d %s\\n\", 1, ub); }", buf, sizeof buf),
                     "RuntimeError"));
    for (int i = 0; i < 20; i++) { /* sprintf's and snprintf's text, when the destination is too small (fuzz_interp) */
        CHECK(strstr(run(in, "{ char sd[4]; sprintf(sd, \"%d\", 123456); }", buf, sizeof buf), "RuntimeError"));
        CHECK(strstr(run(in, "{ char sn[4]; snprintf(sn, 16, \"%d\", 123456); }", buf, sizeof buf), "RuntimeError"));
    }
    for (int i = 0; i < 20; i++) { /* ... and when the destination overlaps what the format reads */
        CHECK(strstr(run(in, "{ char so[64] = \"abc\"; sprintf(so, \"%s%d\", so, 1); }", buf, sizeof buf),
                     "'sprintf' argument 3 overlaps destination object 'so'"));
        CHECK(strstr(run(in, "{ char so[64] = \"abc\"; snprintf(so + 1, 8, \"%s\", so); }", buf, sizeof buf),
                     "'snprintf' argument 4 overlaps destination object 'so + 1'"));
    }
    CHECK_STR(run(in, "int sw = 0; switch (3) { case 1: sw = 1; break; case 3: sw = 3; break; }", buf, sizeof buf), "");
    interp_free(in);
    return check_report();
}
