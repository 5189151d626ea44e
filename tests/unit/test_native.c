/* The native tier of host code (docs/native-tier.md): programs run in a
 * fresh interpreter with the tier off and with it forced on must print the
 * same and fail the same (ename, message, traceback), the session going on
 * after an error in compiled code; loops that should compile do; and the
 * whole tests/lang suite passes with the tier forced on (test_lang run with
 * ICUDA_HOST_TIER=always). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "native_run.h"
#include "runtime/base/interrupt.h"
#include "runtime/base/strbuf.h"
#include "runtime/lang/core/core.h"

static const char *const progs[][3] = {
    /* title, cells ("%" separates cells), "1" when a loop must compile */
    /* pure functions (native_func.c): compiled whole, calls between them direct */
    {"pure recursive functions", "int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }\n"
     "unsigned mix(unsigned a, long b) { return a * 2654435761u ^ (unsigned)(b >> 3); }\n"
     "double harm(double x, int n) { double s = 0; for (int i = 1; i <= n; i++) { if (i % 7 == 0) continue; "
     "s += x / i; } return s; }\n"
     "long both(int k) { long t = 0; int j = 0; while (j < k) { t += fib(j % 15) + mix((unsigned)j, -t); j++; } return t; }\n"
     "\x01" "printf(\"%d %u %.17g %ld\\n\", fib(22), mix(7, 1234567), harm(1.5, 300), both(200));\n"
     "\x01" "both(10)", "1"},
    {"signed overflow deep in a compiled recursion: the interpreter's error and traceback",
     "int bad(int k) { return k == 0 ? 2147483647 + (k + 1) * 2147483647 : bad(k - 1) + 0; }\n"
     "\x01" "int r = bad(50);\n\x01" "printf(\"%d\\n\", 7);", "1"},
    {"division by zero, a bad shift and an out-of-range conversion in pure functions",
     "int q(int a, int b) { return a / b; }\nint sh(int a, int b) { return a << b; }\n"
     "int cv(double d) { return (int)d; }\nint sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += q(100, 9 - i); "
     "return s; }\n\x01" "sum(9)\n\x01" "sum(10)\n\x01" "sh(1, 31)\n\x01" "sh(1, 40)\n\x01" "cv(3e9)\n\x01" "cv(-7.9)", "1"},
    {"a function redefined after its callers compiled: they call the new one",
     "int g(int x) { return x + 1; }\nint f(int x) { return g(x) * 2; }\n\x01" "f(3)\n\x01"
     "int g(int x) { return x + 5; }\n\x01" "f(3)\n", "1"},
    {"loops calling pure functions: values, and errors with the interpreter's traceback",
     "float sq(float x) { return x * x + 1.0f; }\nint q(int a, int b) { return a / b; }\n"
     "int outer(int a, int b) { return q(a, b) + 1; }\n"
     "\x01" "int n = 200; float *x = (float *)malloc(n * sizeof(float)); double t = 0; long u = 0;\n"
     "for (int i = 0; i < n; i++) x[i] = i * 0.5f;\nfor (int i = 0; i < n; i++) t += sq(x[i]);\n"
     "printf(\"%.17g\\n\", t);\n"
     "\x01" "for (int i = 0; i < n; i++) u += q(1000, 150 - i);\n"
     "\x01" "for (int i = 0; i < n; i++) u += outer(1000, 120 - i);\n"
     "\x01" "printf(\"%ld\\n\", u);", "1"},
    {"a loop compiled with a function, the function redefined: the loop calls the new one",
     "int f(int x) { return x + 1; }\nlong run(int *v, int n) { long t = 0; for (int i = 0; i < n; i++) t += f(v[i]); return t; }\n"
     "\x01" "int w[5] = {1, 2, 3, 4, 5};\nprintf(\"%ld\\n\", run(w, 5));\n"
     "\x01" "int f(int x) { return x * 10; }\n"
     "\x01" "printf(\"%ld\\n\", run(w, 5));\n", "1"},
    {"functions that touch memory, print or draw random numbers stay interpreted",
     "int cnt = 0;\nint bump(int x) { cnt += x; return cnt; }\nint rd(int *p) { return p[1]; }\n"
     "int say(int x) { printf(\"%d;\", x); return x; }\nint rr(int x) { return rand() % 10 + x; }\n"
     "int st(int x) { static int k = 0; k += x; return k; }\nint arr(int x) { int a[3] = {x, x, x}; return a[x % 3]; }\n"
     "\x01" "int v[2] = {4, 5};\nfor (int i = 0; i < 3; i++) printf(\"%d %d %d %d %d %d\\n\", bump(i), rd(v), say(i), "
     "rr(i), st(i), arr(i));", ""},
    /* (how deep is too deep is the stack's size, not the language's: compiled
     * calls take less of it, so a depth between the two limits finishes
     * compiled where the interpreter stops; docs/native-tier.md) */
    {"recursion deeper than the stack allows: the interpreter's error",
     "int deep(int k) { return k == 0 ? 0 : 1 + deep(k - 1); }\n\x01" "deep(2000)\n\x01" "deep(100000000)\n\x01"
     "deep(3)", "1"},
    {"dot product", "int n = 1000; double *x = (double *)malloc(n * sizeof(double)); double s = 0;\n"
                    "for (int i = 0; i < n; i++) x[i] = i * 0.5;\n"
                    "for (int i = 0; i < n; i++) s += x[i] * x[i];\nprintf(\"%.17g\\n\", s);", "1"},
    {"out-of-bounds write in a hot loop, then the session goes on",
     "int n = 300000; float *a = (float *)malloc(n * sizeof(float));\n"
     "for (int i = 0; i <= n; i++)\n    a[i] = i * 2.0f;\n"
     "\x01printf(\"%g %d\\n\", a[n - 1], n);", "1"},
    {"out-of-bounds read before the start",
     "int *a = (int *)malloc(8 * sizeof(int)); long t = 0;\nfor (int i = 7; i >= -1; i--) t += a[i];\n", "1"},
    {"use after free in a loop", "int *a = (int *)malloc(8 * sizeof(int)); free(a);\n"
                                 "for (int i = 0; i < 8; i++) a[i] = i;\n", "1"},
    {"NULL in a loop", "int *a = 0;\nfor (int i = 0; i < 8; i++) a[i] = i;\n", "1"},
    {"array bound", "int h[4];\nfor (int i = 0; i < 5; i++) h[i] = i;\n", "1"},
    {"division by zero", "int d = 3, s = 0;\nfor (int i = 0; i < 10; i++) s += 100 / (d - i);\n", "1"},
    {"INT_MIN / -1", "int m = -2147483647 - 1, r = 0;\nfor (int i = 0; i < 2; i++) r = m / (i - 1);\n", "1"},
    {"int wrap and shifts", "int x = 2147483600; unsigned u = 5; long l = 0;\n"
                            "for (int i = 0; i < 100; i++) { x += 7; u = u * 2654435761u; l += (x >> 3) ^ (u << 5); }\n"
                            "printf(\"%d %u %ld\\n\", x, u, l);", "1"},
    {"conversions", "double d = -3.7; int k = 0; unsigned char c = 0; float f = 0; long L = 0;\n"
                    "for (int i = 0; i < 50; i++) { k += (int)d; c += (unsigned char)(i * 37); f += d / 3;"
                    " L += (long)(d * 1e15); d += 0.31; }\n"
                    "printf(\"%d %d %.9g %ld %.17g\\n\", k, c, f, L, d);", "1"},
    {"float arithmetic", "float s = 0, p = 1;\nfor (int i = 1; i < 1000; i++) { s += 1.0f / i; p *= 1.0001f; }\n"
                         "printf(\"%.9g %.9g\\n\", s, p);", "1"},
    {"math and rand", "srand(7); double s = 0;\nfor (int i = 0; i < 100; i++) s += sqrt((double)i) + sinf((float)i) + rand() % 10;\n"
                      "printf(\"%.17g %d\\n\", s, rand());", "1"},
    {"structs and pointer walk",
     "typedef struct item { long val; struct item *next; } item;\n"
     "item *v = (item *)malloc(10 * sizeof(item));\n"
     "for (int i = 0; i < 10; i++) { v[i].val = i * i; v[i].next = i < 9 ? &v[i + 1] : 0; }\n"
     "long t = 0;\nfor (item *q = v; q; q = q->next) t += q->val;\nprintf(\"%ld\\n\", t);", "1"},
    {"walk off the end of a list",
     "typedef struct item { long val; struct item *next; } item;\n"
     "item *v = (item *)malloc(3 * sizeof(item)); v[0].next = &v[1]; v[1].next = &v[2]; v[2].next = &v[3];\n"
     "long t = 0;\nfor (item *q = v; q; q = q->next) t += q->val;\n", "1"},
    {"break, continue, nested loops, while and do",
     "int s = 0, i = 0;\nfor (int a = 0; a < 10; a++) { if (a == 7) break; for (int b = 0; b < a; b++) { if (b % 2) continue; s += b; } }\n"
     "while (i < 20) { i += 3; if (i == 9) continue; s += i; }\ndo { s--; i--; } while (i > 5);\n"
     "printf(\"%d %d\\n\", s, i);", "1"},
    {"return from a loop in a function",
     "int find(int *a, int n, int x) { for (int i = 0; i < n; i++) if (a[i] == x) return i; return -1; }\n"
     "int a[6] = {4, 8, 15, 16, 23, 42};\nprintf(\"%d %d\\n\", find(a, 6, 23), find(a, 6, 5));", "1"},
    {"a loop with printf stays interpreted", "for (int i = 0; i < 3; i++) printf(\"%d\\n\", i);", ""},
    /* session variables kept in registers by compiled code (native-tier.md) */
    {"a session variable also written through a pointer",
     "long s = 0; long *ps = &s; long t = 0;\n"
     "for (int i = 0; i < 100; i++) { *ps += i; s += 1; ps[0] *= 1; t += s; }\nprintf(\"%ld %ld\\n\", s, t);", "1"},
    {"a session variable read through a pointer after a direct write",
     "int v = 0; int *pv = &v; long t = 0;\nfor (int i = 0; i < 50; i++) { v = i * 3; t += pv[0] + *pv; }\n"
     "printf(\"%d %ld\\n\", v, t);", "1"},
    {"union members and struct members", "union U { int i; float f; } u; u.i = 0; long acc = 0;\n"
     "struct S { int n; int a[4]; } st; st.n = 1; for (int k = 0; k < 4; k++) st.a[k] = 0;\n"
     "for (int k = 0; k < 40; k++) { u.f = k * 1.5f; acc += u.i & 0xff; st.a[k & 3] += st.n; st.n++; }\n"
     "printf(\"%ld %d %d %d\\n\", acc, st.n, st.a[0], st.a[3]);", "1"},
    {"an error in compiled code leaves session variables as they were",
     "int cnt = 0; double sum = 0; int *a = (int *)malloc(4 * sizeof(int));\n"
     "for (int i = 0; i < 10; i++) { cnt++; sum += 0.5; a[i] = i; }\n\x01printf(\"%d %g\\n\", cnt, sum);", "1"},
    {"pointer arithmetic past the offset field", "char *p = (char *)malloc(4); char *q = p;\n"
     "for (long i = 0; i < 3; i++) q = q + (1LL << 34);\n", "1"},
    {"pointer += past the offset field", "char *p = (char *)malloc(4); long k = 1LL << 34;\n"
     "for (int i = 0; i < 3; i++) p += k;\n", "1"},
    {"shift checks", "int x = 0; unsigned u = 0;\nfor (int i = 0; i < 40; i++) { u = 1u << (i & 31); x = 1 << i; }\n", "1"},
    {"negative shift count", "long x = 0;\nfor (int i = 3; i > -3; i--) x += 16L >> i;\n", "1"},
    {"float to int out of range in a loop", "double d = 1e9; int k = 0;\nfor (int i = 0; i < 5; i++) { k = (int)d; d *= 2; }\n", "1"},
    {"bool bytes", "unsigned char raw[4] = {0, 2, 0, 1}; bool *bp = (bool *)raw; int t = 0;\n"
     "for (int i = 0; i < 4; i++) t += bp[i];\nprintf(\"%d\\n\", t);", ""},
    {"pointer increments and comparisons",
     "double a[5] = {1, 2, 3, 4, 5}; double s = 0;\nfor (double *p = a; p < a + 5; p++) s += *p;\nprintf(\"%g\\n\", s);", "1"},
};

/* Tiering as a session meets it (auto): an inner loop gets hot, the loop
 * nest around it is compiled and entered at the inner loop's next
 * iteration; the interpreted statements around it must not run again. */
static void test_enter_outer_loop(void) {
    static const char *const nests[][2] = {
        {"outer rows", "long t = 0, rows = 0; int n = 700;\nfor (int i = 0; i < n; i++) {\n"
                       "    rows += 1;\n    for (int j = 0; j < n; j++) t += (i ^ j) & 7;\n    t -= i;\n}\n"
                       "printf(\"%ld %ld\\n\", t, rows);"},
        {"three deep, a break outside", "long t = 0; int hit = -1;\nfor (int a = 0; a < 9; a++) {\n"
                                        "    for (int i = 0; i < 200; i++) { for (int j = 0; j < 300; j++) t += j % 3; t++; }\n"
                                        "    if (t > 1000000) { hit = a; break; }\n}\nprintf(\"%ld %d\\n\", t, hit);"},
        {"in a function, returning from the nest",
         "int first_over(int n, long lim) { long s = 0; for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) s += j;"
         " if (s > lim) return i; } return -1; }\nprintf(\"%d %d\\n\", first_over(800, 100000000L), first_over(10, 5));"},
        {"a versioned inner loop entered mid-way", "int n = 500; double *x = (double *)malloc(n * n * sizeof(double)); double s = 0;\n"
         "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) x[i * n + j] = (i + j) * 0.5;\n"
         "for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) s += x[i * n + j]; s *= 0.5; }\nprintf(\"%.17g\\n\", s);"},
        {"a while loop around a for loop", "int k = 0; long t = 0;\nwhile (k < 500) { for (int j = 0; j < 500; j++) t += j & k; k++; }\n"
                                          "printf(\"%d %ld\\n\", k, t);"},
        {"an error after the switch to compiled code",
         "int n = 600; int *a = (int *)malloc(n * sizeof(int)); long t = 0;\n"
         "for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) t += j; a[i + 400] = 1; }\n\x01printf(\"%ld\\n\", t);"},
    };
    for (size_t i = 0; i < sizeof nests / sizeof nests[0]; i++) {
        long e0, e1;
        char *a = run_cells(nests[i][1], NATIVE_OFF, &e0), *b = run_cells(nests[i][1], NATIVE_AUTO, &e1);
        CHECK_MSG(!strcmp(a, b), "%s (auto): interpreted:\n%s\ntiered:\n%s", nests[i][0], a, b);
        CHECK_MSG(e1 > 0, "%s (auto): compiled code never ran", nests[i][0]);
        free(a);
        free(b);
    }
}

/* Loop versioning (native_version.c): the clean copy runs where every
 * check is proven at the loop's entry, the checked one everywhere else,
 * with the interpreter's output and errors either way. */
static void test_versioned_loops(void) {
    static const char *const cases[][3] = {
        /* title, cells, "1": the clean copy must run, "0": it must not (the
         * entry test fails), "0-": the loop is not versioned at all */
        {"dot product", "int n = 5000; double *x = (double *)malloc(n * sizeof(double)); double s = 0;\n"
                        "for (int i = 0; i < n; i++) x[i] = i * 0.25;\nfor (int i = 0; i < n; i++) s += x[i] * x[i];\n"
                        "printf(\"%.17g\\n\", s);", "1"},
        {"a pointer into the middle, negative indices",
         "int n = 64; long *a = (long *)malloc(n * sizeof(long)); for (int i = 0; i < n; i++) a[i] = i;\n"
         "long *m = a + 32; long t = 0;\nfor (int i = -32; i < 32; i++) t += m[i] * (i + 1);\nprintf(\"%ld\\n\", t);", "1"},
        {"row-major indices with a runtime stride", "int n = 40; float *a = (float *)malloc(n * n * sizeof(float)); float s = 0;\n"
         "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) a[i * n + j] = i - j;\n"
         "for (int i = 1; i < n - 1; i++) for (int j = 1; j < n - 1; j++) s += a[(i - 1) * n + j] * a[i * n + j + 1];\n"
         "printf(\"%.9g\\n\", s);", "1"},
        {"<= bound, break and continue in the clean copy", "int a[100]; int *p = a; long t = 0;\n"
         "for (int i = 0; i <= 99; i++) p[i] = i;\nfor (int i = 10; i <= 90; i++) { if (i % 7 == 0) continue; if (p[i] > 80) break; t += p[i]; }\n"
         "printf(\"%ld\\n\", t);", "1"},
        {"one past the end: the checked copy raises at the same place",
         "int n = 50; int *a = (int *)malloc(n * sizeof(int));\nfor (int i = 0; i <= n; i++) a[i] = i;\n", "0"},
        {"an index that overflows int: proven by its mask, its product still checked",
         "int *a = (int *)malloc(16 * sizeof(int)); long t = 0;\n"
         "for (int i = 0; i < 16; i++) t += a[(i * 1000000000) & 15];\n", "1"},
        {"i <= INT_MAX", "char *a = (char *)malloc(16); long t = 0;\n"
         "for (int i = 2147483640; i <= 2147483647; i++) t += a[i - 2147483640];\n", "0"},
        {"a buffer holding a session variable kept in a register",
         "long s = 0; long *ps = &s;\nfor (int i = 0; i < 1; i++) { ps[i] += 5; s += 1; }\nprintf(\"%ld\\n\", s);", "0"},
        {"an index invariant the loop changes: one compare against the buffer",
         "int *a = (int *)malloc(8 * sizeof(int)); int k = 3;\n"
         "for (int i = 0; i < 8; i++) { a[i + k - 3] = i; k = 2; }\n", "1"},
        {"a freed buffer", "int *a = (int *)malloc(8 * sizeof(int)); free(a); long t = 0;\nfor (int i = 0; i < 8; i++) t += a[i];\n", "0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long e0, e1;
        char *a = run_cells(cases[i][1], NATIVE_OFF, &e0), *b = run_cells(cases[i][1], NATIVE_ALWAYS, &e1);
        long clean = g_clean_runs, misses = g_lean_misses;
        CHECK_MSG(!strcmp(a, b), "%s: interpreted:\n%s\ncompiled:\n%s", cases[i][0], a, b);
        CHECK_MSG(e1 > 0, "%s: nothing was compiled", cases[i][0]);
        if (cases[i][2][0] == '1') CHECK_MSG(clean > 0, "%s: the clean copy never ran", cases[i][0]);
        else CHECK_MSG(clean == 0, "%s: the clean copy ran (%ld times)", cases[i][0], clean);
        /* lean code first: where the clean copy may not run, the entry test
         * failed in it and the whole code (the checked copy) ran after */
        if (!strcmp(cases[i][2], "0")) CHECK_MSG(misses > 0, "%s: no lean code fell back", cases[i][0]);
        if (cases[i][2][0] == '1') CHECK_MSG(misses == 0, "%s: lean code fell back %ld times", cases[i][0], misses);
        free(a);
        free(b);
    }
}

/* Whole nests (native_nest.c): one entry test for a counted loop and the
 * counted loops inside it, then a clean copy with restrict buffers (and one
 * that knows the sizes); the interpreter's output and errors either way. */
static void test_nests(void) {
    static const char *const setup =
        "int n = 24; float *a = (float *)malloc(n * n * sizeof(float)), *b = (float *)malloc(n * n * sizeof(float)),\n"
        "  *c = (float *)malloc(n * n * sizeof(float));\n"
        "for (int i = 0; i < n * n; i++) { a[i] = (i % 7) * 0.5f; b[i] = (i % 5) * 0.25f; c[i] = 0; }\n\x01";
    static const char *const cases[][3] = {
        /* title, cells after setup, "1": the whole nest must run clean, "0": it must not */
        {"matrix product, its variables declared inside",
         "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { float s = 0;\n"
         "  for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];\n  c[i * n + j] = s; }\n"
         "double cs = 0; for (int i = 0; i < n * n; i++) cs += c[i] * (i % 3 + 1);\nprintf(\"%.17g\\n\", cs);", "1"},
        {"loop variables declared outside, read after the nest",
         "{ int i, j, k; float s = 5;\nfor (i = 1; i < n - 1; i++) for (j = 0; j < n; j++) { s = 0;\n"
         "  for (k = 0; k < j; k++) s += a[i * n + k] * b[(k + 1) * n + j];\n  c[(i - 1) * n + j] = s; }\n"
         "printf(\"%d %d %d %.9g %.9g\\n\", i, j, k, s, c[5 * n + 7]); }", "1"},
        {"a declaration that reads its own variable",
         "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { int t = t + 1; c[i * n + j] = t; }\n"
         "\x01" "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) { int t = t + 1; c[i * n + j] += t; }\n"
         "printf(\"%.9g %.9g\\n\", c[0], c[n * n - 1]);", "*"},
        {"the size changed after the code was made",
         "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) c[i * n + j] = a[j * n + i] + 1;\n"
         "\x01" "n = 9;\n\x01"
         "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) c[i * n + j] = a[j * n + i] + 1;\n"
         "printf(\"%.9g %.9g %.9g\\n\", c[0], c[80], c[81]);", "1"},
        {"a CPU reference function: its pointer parameters, its size a parameter",
         "void mm(const float *x, const float *y, float *z, int m) {\n"
         "  for (int i = 0; i < m; i++) for (int j = 0; j < m; j++) { float s = 0;\n"
         "    for (int k = 0; k < m; k++) s += x[i * m + k] * y[k * m + j];\n    z[i * m + j] = s; } }\n"
         "mm(a, b, c, n); mm(c, a, b, n - 1);\nprintf(\"%.9g %.9g\\n\", c[n * n - 1], b[7]);", "1"},
        {"a triangle, 64-bit sums", "long *t = (long *)malloc(n * n * sizeof(long)); long all = 0;\n"
         "for (long i = 0; i < n; i++) for (long j = 0; j <= i; j++) t[i * n + j] = i * 1000003L - j;\n"
         "for (int i = 0; i < n; i++) for (int j = 0; j <= i; j++) all += t[i * n + j];\nprintf(\"%ld\\n\", all);", "1"},
        {"writing the buffer it reads: the checked copy",
         "float *d = a + 1;\nfor (int i = 0; i < n - 1; i++) for (int j = 0; j < n; j++) d[i * n + j] = a[i * n + j] * 2;\n"
         "printf(\"%.9g\\n\", a[n * n - 1]);", "0"},
        {"an inner bound one past the end: the same error at the same line",
         "for (int i = 0; i < n; i++)\n  for (int j = 0; j <= n * n; j++)\n    c[j] = a[i] + 1;\n", "0"},
        {"signed overflow in the clean nest: the interpreter's error",
         "int *q = (int *)malloc(n * n * sizeof(int)); for (int i = 0; i < n * n; i++) q[i] = i * 100000;\n"
         "long tot = 0;\nfor (int i = 0; i < n; i++)\n  for (int j = 0; j < n; j++)\n    tot += q[i * n + j] = q[i * n + j] * 40;\n"
         "\x01" "printf(\"%d %ld\\n\", q[5], tot);", "1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *cells = malloc(strlen(setup) + strlen(cases[i][1]) + 1);
        strcpy(cells, setup);
        strcat(cells, cases[i][1]);
        long e0, e1;
        char *a = run_cells(cells, NATIVE_OFF, &e0), *b = run_cells(cells, NATIVE_ALWAYS, &e1);
        long nests = g_nest_runs, misses = g_lean_misses;
        CHECK_MSG(!strcmp(a, b), "%s: interpreted:\n%s\ncompiled:\n%s", cases[i][0], a, b);
        /* a nest is made lean first (its clean copy only): the matrix product
         * never needs more; the same loop at another size (mm's second call),
         * or aliasing buffers, make it whole */
        if (i == 0) CHECK_MSG(misses == 0, "%s: its lean code fell back %ld times", cases[i][0], misses);
        if (strstr(cases[i][0], "CPU reference") || strstr(cases[i][0], "writing the buffer it reads"))
            CHECK_MSG(misses > 0, "%s: no lean code fell back to the whole code", cases[i][0]);
        CHECK_MSG(e1 > 0, "%s: nothing was compiled", cases[i][0]);
        if (cases[i][2][0] == '1') CHECK_MSG(nests > 0, "%s: the clean nest never ran", cases[i][0]);
        else if (cases[i][2][0] == '0') CHECK_MSG(nests == 0, "%s: the clean nest ran (%ld times)", cases[i][0], nests);
        if (getenv("NEST_SHOW")) fprintf(stderr, "%s: nests %ld\n%s", cases[i][0], nests, b);
        free(a);
        free(b);
        free(cells);
    }
}

/* Background compilation (auto): a hot loop goes on interpreted while its
 * compiler runs, and switches to compiled code when it is done; a slow
 * compiler costs the loop nothing, and is stopped when the session ends. */
static void test_background_compile(void) {
    g_sync = false;
    /* long enough that the compile ends inside it on a loaded 2-core machine */
    const char *loop = "long t = 0; int n = 20000000;\nfor (int i = 0; i < n; i++) t += i % 7;\nprintf(\"%ld\\n\", t);";
    long e0, e1;
    char *a = run_cells(loop, NATIVE_OFF, &e0), *b = run_cells(loop, NATIVE_AUTO, &e1);
    CHECK_MSG(!strcmp(a, b), "background compile: interpreted:\n%s\ntiered:\n%s", a, b);
    CHECK_MSG(e1 > 0, "background compile: the loop never switched to compiled code");
    free(b);
    /* a pure function compiles in the background too, its calls interpreted meanwhile */
    const char *calls = "int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }\x01"
                        "long t = 0;\nfor (int r = 0; r < 1500; r++) t += fib(18);\nprintf(\"%ld\\n\", t);";
    char *fa = run_cells(calls, NATIVE_OFF, &e0), *fb = run_cells(calls, NATIVE_AUTO, &e1);
    CHECK_MSG(!strcmp(fa, fb), "background compile of a function: interpreted:\n%s\ntiered:\n%s", fa, fb);
    CHECK_MSG(e1 > 0, "background compile: the function never switched to compiled code");
    free(fb);
    /* a compiler that takes 30 s: the loop ends interpreted, the session
     * ends without waiting for it */
    char dir[] = "/tmp/icuda-slowcc-XXXXXX", path[64];
    if (mkdtemp(dir)) {
        snprintf(path, sizeof path, "%s/cc", dir);
        FILE *f = fopen(path, "w");
        fprintf(f, "#!/bin/sh\nsleep 30\nexec cc \"$@\"\n");
        fclose(f);
        chmod(path, 0755);
        setenv("ICUDA_HOST_CC", path, 1);
        b = run_cells(loop, NATIVE_AUTO, &e1);
        CHECK_MSG(!strcmp(a, b), "slow compiler: interpreted:\n%s\ntiered:\n%s", a, b);
        CHECK_MSG(e1 == 0, "slow compiler: compiled code ran (%ld entries)", e1);
        free(b);
        /* the function's compile is still running when the session ends: cancelled */
        b = run_cells(calls, NATIVE_AUTO, &e1);
        CHECK_MSG(!strcmp(fa, b), "slow compiler, a function: interpreted:\n%s\ntiered:\n%s", fa, b);
        CHECK_MSG(e1 == 0, "slow compiler: a compiled function ran (%ld entries)", e1);
        free(b);
        /* the loop alone in a cell that keeps nothing: its syntax tree goes
         * when the cell ends, and its compile with it (under ASan, a job
         * left behind would touch poisoned memory in the next cells) */
        char split[400]; /* constants of this run only: no cached code to load */
        unsigned salt = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL);
        snprintf(split, sizeof split,
                 "long t = 0; int n = 3000000;\x01" "for (int i = 0; i < n; i++) t += i %% %u;\x01"
                 "int k = 2;\x01" "for (int i = 0; i < n; i++) t -= i %% %u;\x01" "printf(\"%%ld\\n\", t);",
                 7 + salt % 100000, 5 + salt / 7 % 100000);
        char *c = run_cells(split, NATIVE_OFF, &e0), *d = run_cells(split, NATIVE_AUTO, &e1);
        CHECK_MSG(!strcmp(c, d), "slow compiler, rolled-back cells: interpreted:\n%s\ntiered:\n%s", c, d);
        CHECK_MSG(!strstr(d, "Error"), "slow compiler, rolled-back cells: %s", d);
        free(c);
        free(d);
        unsetenv("ICUDA_HOST_CC");
        unlink(path);
        rmdir(dir);
    }
    free(a);
    free(fa);
    g_sync = true;
}

/* compiled objects this process has mapped (the cache's host/<hash>.so, or
 * a temporary folder's when there is no cache) */
static int mapped_objects(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024], last[1024] = "";
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (!path || !strstr(path, ".so") || (!strstr(path, "/host/") && !strstr(path, "icuda-host-"))) continue;
        if (strcmp(path, last)) n++; /* an object's mappings are adjacent */
        snprintf(last, sizeof last, "%s", path);
    }
    if (f) fclose(f);
    return n;
}

/* A session keeps at most native_max_loaded() compiled objects, and closes
 * them when it ends or is reset (each is ~40 KB and five mappings: a long
 * session of distinct loops ran out of mappings before) */
static void test_loaded_code_is_bounded(void) {
    setenv("ICUDA_HOST_MAX_LOADED", "3", 1);
    int before = mapped_objects();
    interp_t *in = interp_new();
    native_set_mode(in, NATIVE_ALWAYS);
    native_set_sync(in, true);
    unsigned salt = ((unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL)) % 100000; /* no cached code */
    out_t o = {0};
    cell_io_t io = {&o, io_stream, NULL, NULL, NULL};
    bool right = true;
    for (unsigned r = 0; r < 7; r++) {
        char cell[200];
        unsigned m = 7 + salt + r;
        snprintf(cell, sizeof cell, "{ long s = 0; for (int i = 0; i < 5000; i++) s += i %% %u; printf(\"%%ld\\n\", s); }", m);
        cell_error_t err = {0};
        json_t *v = NULL;
        free(o.s);
        o = (out_t){0};
        int rc = interp_run(in, cell, "In [1]", &io, &v, &err);
        interp_flush_output(in);
        long want = 0;
        for (int i = 0; i < 5000; i++) want += i % (int)m;
        right &= rc == 0 && o.s && atol(o.s) == want;
        json_decref(v);
        cell_error_clear(&err);
        if (r == 6) {
            CHECK_MSG(mapped_objects() - before == 3, "loaded code: %d objects mapped, 3 allowed", mapped_objects() - before);
            CHECK_MSG(native_stats(in).refused == 4, "loaded code: %ld refused, 4 expected", native_stats(in).refused);
        }
    }
    CHECK_MSG(right, "loaded code: a loop gave a wrong sum (last output %s)", o.s ? o.s : "");
    interp_reset(in);
    CHECK_MSG(mapped_objects() == before, "loaded code: %d objects still mapped after %%reset", mapped_objects() - before);
    interp_free(in);
    free(o.s);
    unsetenv("ICUDA_HOST_MAX_LOADED");
}

static void *raise_later(void *arg) {
    usleep(300000);
    interrupt_raise();
    return NULL;
}

/* Raises the interrupt once the compiler has finished and the interpreter
 * has reaped it: the loop's code is loaded and entered then, whatever the
 * machine's load (an interrupt during the compile abandons it and the loop
 * runs interpreted, which is another test). The compiler, named by
 * ICUDA_HOST_CC, writes its pid to this file first. */
static void *raise_once_compiled(void *pidfile) {
    long pid = 0;
    for (int i = 0; i < 120000 && pid <= 0; i++) {
        FILE *f = fopen(pidfile, "r");
        if (f) {
            if (fscanf(f, "%ld", &pid) != 1) pid = 0;
            fclose(f);
        }
        if (pid <= 0) usleep(1000);
    }
    /* a zombie still takes signals: kill fails once waitpid has reaped it */
    for (int i = 0; i < 120000 && pid > 0 && kill((pid_t)pid, 0) == 0; i++) usleep(1000);
    interrupt_raise();
    return NULL;
}

/* A long loop body over many arrays: its access caches are shared per
 * pointer (ic_share) and past 16 live in memory (ic[], nt_imiss); the
 * interpreter's output, and its error at the same line for a short array. */
static void test_many_access_sites(void) {
    for (int shortened = 0; shortened < 2; shortened++) {
        strbuf_t c = {0};
        sb_printf(&c, "int n = 300; float *a[24]; long chk = 0;\n"
                      "for (int k = 0; k < 24; k++) { a[k] = (float *)malloc((n - (%d && k == 19 ? 7 : 0)) * sizeof(float));\n"
                      "  for (int i = 0; i < n - (%d && k == 19 ? 7 : 0); i++) a[k][i] = k + i * 0.5f; }\n"
                      "float *b0 = a[0]", shortened, shortened);
        for (int k = 1; k < 24; k++) sb_printf(&c, ", *b%d = a[%d]", k, k);
        sb_printf(&c, ";\n\x01" "for (int i = 0; i < n; i++) {\n");
        for (int k = 0; k < 24; k++) sb_printf(&c, "  b%d[i] = b%d[i] * 0.5f + b%d[i];\n", k, (k + 1) % 24, (k + 7) % 24);
        sb_printf(&c, "}\nfor (int k = 0; k < 24; k++) chk += (long)(b0[k] * 8 + a[k][n / 2]);\nprintf(\"%%ld\\n\", chk);\n");
        char *cells = sb_take(&c);
        long e0, e1;
        char *x = run_cells(cells, NATIVE_OFF, &e0), *y = run_cells(cells, NATIVE_ALWAYS, &e1);
        CHECK_MSG(!strcmp(x, y), "many access sites (%d): interpreted:\n%s\ncompiled:\n%s", shortened, x, y);
        CHECK_MSG(e1 > 0, "many access sites (%d): nothing was compiled:\n%s", shortened, y);
        CHECK_MSG(!shortened || strstr(y, "Error"), "many access sites: no error for the short array:\n%s", y);
        free(x);
        free(y);
        free(cells);
    }
}

/* the compiler below writes its pid to this file, then sleeps: the raiser
 * waits for the file, so the interrupt comes while the compile runs */
static void *raise_when_compiling(void *pidfile) {
    for (int i = 0; i < 60000 && access(pidfile, F_OK) != 0; i++) usleep(1000);
    interrupt_raise();
    return NULL;
}

/* An interrupt while the interpreter waits for a compile (the tier forced
 * on compiles a loop in the foreground) abandons the compile: the compiler
 * is killed, the cell ends with KeyboardInterrupt, and the session goes on.
 * ICUDA_HOST_CC names a compiler that never finishes. */
static void test_interrupt_abandons_a_foreground_compile(void) {
    char dir[] = "/tmp/icuda-slow-cc-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cc[64], pidfile[64];
    snprintf(cc, sizeof cc, "%s/cc", dir);
    snprintf(pidfile, sizeof pidfile, "%s/pid", dir);
    FILE *f = fopen(cc, "w");
    char pids[64]; /* every compile's pid, one a line */
    snprintf(pids, sizeof pids, "%s/pids", dir);
    fprintf(f, "#!/bin/sh\necho $$ >> %s\necho $$ > %s.tmp && mv %s.tmp %s\nexec sleep 600\n", pids, pidfile, pidfile,
            pidfile);
    fclose(f);
    chmod(cc, 0700);
    setenv("ICUDA_HOST_CC", cc, 1);
    interp_t *in = interp_new();
    native_set_mode(in, NATIVE_ALWAYS);
    cell_error_t err = {0};
    json_t *v = NULL;
    interrupt_clear();
    CHECK(interp_run(in, "int before = 1;", "In [1]", NULL, &v, &err) == 0);
    pthread_t t;
    pthread_create(&t, NULL, raise_when_compiling, pidfile);
    /* a block: the cell keeps nothing, so its code is pure and could be
     * compiled whole */
    int rc = interp_run(in, "{ long s = 0;\n  for (;;) s++; }\n", "In [2]", NULL, &v, &err);
    pthread_join(t, NULL);
    interrupt_clear();
    CHECK_MSG(rc == -1 && err.ename && !strcmp(err.ename, "KeyboardInterrupt"), "interrupted compile: %s",
              err.ename ? err.ename : "the cell succeeded");
    CHECK_MSG(native_stats(in).abandoned == 1 && native_stats(in).compiles == 0 && native_stats(in).failures == 0,
              "interrupted compile: %ld abandoned, %ld compiled, %ld failed", native_stats(in).abandoned,
              native_stats(in).compiles, native_stats(in).failures);
    cell_error_clear(&err);
    /* the compiler is gone */
    long pid = 0;
    if ((f = fopen(pidfile, "r"))) {
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
    }
    CHECK_MSG(pid > 0 && kill((pid_t)pid, 0) != 0, "interrupted compile: the compiler (pid %ld) still runs", pid);
    /* the loop's was the cell's only compile (a cell runs once: it is not
     * compiled whole as a function, a compile that would outlive it) */
    int ncompiles = 0, nalive = 0;
    if ((f = fopen(pids, "r"))) {
        long p;
        while (fscanf(f, "%ld", &p) == 1) {
            ncompiles++;
            nalive += kill((pid_t)p, 0) == 0;
        }
        fclose(f);
    }
    CHECK_MSG(ncompiles == 1 && nalive == 0, "interrupted cell: %d compiles started, %d still run", ncompiles, nalive);
    /* the same for a pure function compiled on its first call (foreground:
     * sync): the call runs interpreted, the function stays compilable and
     * compiles on a later call (it was marked uncompilable for good) */
    unsetenv("ICUDA_HOST_CC");
    native_set_sync(in, true);
    CHECK(interp_run(in, "long tw(long x) { return x * 2 + 1; }", "In [3]", NULL, &v, &err) == 0);
    setenv("ICUDA_HOST_CC", cc, 1);
    unlink(pidfile);
    long a0 = native_stats(in).abandoned;
    pthread_create(&t, NULL, raise_when_compiling, pidfile);
    interp_run(in, "tw(3)", "In [4]", NULL, &v, &err); /* KeyboardInterrupt or not: no loop polls after the call */
    pthread_join(t, NULL);
    interrupt_clear();
    CHECK_MSG(native_stats(in).abandoned > a0, "interrupted function compile: nothing abandoned");
    json_decref(v);
    v = NULL;
    cell_error_clear(&err);
    if ((f = fopen(pidfile, "r"))) {
        if (fscanf(f, "%ld", &pid) != 1) pid = 0;
        fclose(f);
        CHECK(pid > 0 && kill((pid_t)pid, 0) != 0);
    }
    unsetenv("ICUDA_HOST_CC");
    long e0 = native_stats(in).entries;
    CHECK(interp_run(in, "tw(4)", "In [5]", NULL, &v, &err) == 0);
    CHECK_MSG(native_stats(in).entries > e0, "interrupted function compile: not compiled on a later call");
    json_decref(v);
    v = NULL;
    cell_error_clear(&err);
    native_set_sync(in, false);
    /* the session goes on, and the loop can still compile */
    CHECK(interp_run(in, "before + 1", "In [6]", NULL, &v, &err) == 0 && v);
    if (v) CHECK_STR(json_string_value(json_object_get(v, "text/plain")), "(int) 2");
    json_decref(v);
    v = NULL;
    cell_error_clear(&err);
    CHECK(interp_run(in, "long z = 0;\nfor (int i = 0; i < 100; i++) z += i;", "In [7]", NULL, &v, &err) == 0);
    CHECK(native_stats(in).entries > 0);
    cell_error_clear(&err);
    interp_free(in);
    unlink(pidfile);
    unlink(pids);
    unlink(cc);
    rmdir(dir);
}

/* An interrupt stops compiled code with KeyboardInterrupt. Each loop is
 * new to the code cache (a constant of this run), so it is compiled, and
 * the interrupt comes once its compiler is done: the compiled code runs. */
static void test_interrupt_compiled(void) {
    char dir[] = "/tmp/icuda-pid-cc-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cc[64], pidfile[64];
    snprintf(cc, sizeof cc, "%s/cc", dir);
    snprintf(pidfile, sizeof pidfile, "%s/pid", dir);
    FILE *f = fopen(cc, "w");
    fprintf(f, "#!/bin/sh\necho $$ > %s.tmp && mv %s.tmp %s\nexec cc \"$@\"\n", pidfile, pidfile, pidfile);
    fclose(f);
    chmod(cc, 0700);
    setenv("ICUDA_HOST_CC", cc, 1);
    unsigned salt = 3 + ((unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL)) % 100000;
    char cell[300];
    interp_t *in = interp_new();
    native_set_mode(in, NATIVE_ALWAYS);
    cell_error_t err = {0};
    json_t *v = NULL;
    interrupt_clear();
    pthread_t t;
    pthread_create(&t, NULL, raise_once_compiled, pidfile);
    snprintf(cell, sizeof cell, "long s = 0;\nfor (long i = 0; i >= 0; i++) s += i %% %u;\n", salt);
    int rc = interp_run(in, cell, "In [1]", NULL, &v, &err);
    pthread_join(t, NULL);
    interrupt_clear();
    CHECK(rc == -1 && err.ename && !strcmp(err.ename, "KeyboardInterrupt"));
    CHECK_MSG(native_stats(in).entries > 0 && native_stats(in).abandoned == 0,
              "interrupted loop: %ld entries, %ld compiles abandoned", native_stats(in).entries,
              native_stats(in).abandoned);
    cell_error_clear(&err);
    /* a clean nest polls on its outermost loop only: still stopped */
    CHECK(interp_run(in, "int *a = (int *)malloc(64 * sizeof(int));", "In [2]", NULL, &v, &err) == 0);
    interrupt_clear();
    unlink(pidfile);
    pthread_create(&t, NULL, raise_once_compiled, pidfile);
    snprintf(cell, sizeof cell,
             "for (long r = 0; r < 4000000000000L; r++)\n  for (int j = 0; j < 64; j++) a[j] = (int)(r %% %u) + j;\n", salt);
    rc = interp_run(in, cell, "In [3]", NULL, &v, &err);
    pthread_join(t, NULL);
    interrupt_clear();
    CHECK(rc == -1 && err.ename && !strcmp(err.ename, "KeyboardInterrupt"));
    CHECK_MSG(native_stats(in).clean_runs[1] > 0, "interrupted nest: the clean nest never ran");
    cell_error_clear(&err);
    unsetenv("ICUDA_HOST_CC");
    unlink(pidfile);
    unlink(cc);
    rmdir(dir);
    /* a compiled recursive function has no loop: its one test a call (the
     * guard word) sees the interrupt, called from a cell and from a loop.
     * Compiled on its first call (sync), before any interrupt comes. */
    native_set_sync(in, true);
    CHECK(interp_run(in, "long fibl(long k) { return k < 2 ? k : fibl(k - 1) + fibl(k - 2); }\nlong warm = 0;\n"
                         "for (int w = 0; w < 300; w++) warm += fibl(12);",
                     "In [4]", NULL, &v, &err) == 0);
    native_set_sync(in, false);
    const char *calls[] = {"fibl(90)", "long q = 0;\nfor (int i = 0; i < 100000; i++) q += fibl(i < 90000 ? 3 : 90);"};
    for (int i = 0; i < 2; i++) {
        native_stats_t st = native_stats(in);
        long before = st.entries + st.gave_up;
        interrupt_clear();
        pthread_create(&t, NULL, raise_later, NULL);
        rc = interp_run(in, calls[i], "In [5]", NULL, &v, &err);
        pthread_join(t, NULL);
        interrupt_clear();
        CHECK(rc == -1 && err.ename && !strcmp(err.ename, "KeyboardInterrupt"));
        st = native_stats(in);
        CHECK(st.entries + st.gave_up > before);
        cell_error_clear(&err);
    }
    /* and once cleared, the guard word is the stack limit again: it runs */
    v = NULL;
    CHECK(interp_run(in, "fibl(20)", "In [6]", NULL, &v, &err) == 0 && v);
    char *shown = v ? json_dumps(v, 0) : NULL;
    CHECK(shown && strstr(shown, "6765"));
    free(shown);
    if (v) json_decref(v);
    interp_free(in);
}

/* ---- a small differential fuzzer: random loops over every scalar type ---- */
static unsigned fz_state;
static unsigned fz(unsigned n) {
    fz_state = fz_state * 1103515245u + 12345u;
    return (fz_state >> 8) % n;
}
static const char *const fz_vars[] = {"a", "b", "u", "l", "d", "f", "c", "h[i & 15]", "i"};
/* a random expression too deep for its buffer is cut: snprintf's truncation is meant */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
static void fz_expr(char *o, size_t n, int depth) {
    if (depth <= 0 || fz(3) == 0) {
        if (fz(3) == 0) snprintf(o, n, "%d", (int)fz(2000) - 1000);
        else snprintf(o, n, "%s", fz_vars[fz(9)]);
        return;
    }
    char x[1024], y[1024];
    fz_expr(x, sizeof x, depth - 1);
    fz_expr(y, sizeof y, depth - 1);
    static const char *const ops[] = {"+", "-", "*", "<", "==", "&&", "||"};
    static const char *const iops[] = {"&", "|", "^"};
    switch (fz(9)) {
    case 0: snprintf(o, n, "((int)(%s) / ((int)(%s) | 1))", x, y); break;
    case 1: snprintf(o, n, "((long)(%s) %% ((long)(%s) | 1))", x, y); break;
    case 2: snprintf(o, n, "((int)(%s) << ((int)(%s) & 15))", x, y); break;
    case 3: snprintf(o, n, "((unsigned)(%s) >> ((int)(%s) & 31))", x, y); break;
    case 4: snprintf(o, n, "((long)(%s) %s (long)(%s))", x, iops[fz(3)], y); break;
    case 5: snprintf(o, n, "((%s) ? (%s) : (%s))", x, y, fz(2) ? "d" : "a"); break;
    case 6: snprintf(o, n, "(%s)(%s)", fz(2) ? "float" : fz(2) ? "char" : "unsigned char", x); break;
    default: snprintf(o, n, "((%s) %s (%s))", x, ops[fz(7)], y); break;
    }
}
static void fuzz(int programs) {
    static const char *const lhs[] = {"a", "b", "u", "l", "d", "f", "c", "h[i & 15]"};
    static const char *const aops[] = {"=", "+=", "-=", "*="};
    for (int p = 0; p < programs; p++) {
        fz_state = 12345u + (unsigned)p * 7919u;
        char prog[16384], e[1024], e2[1024];
        int k = snprintf(prog, sizeof prog,
                         "int a = 3, b = -7; unsigned u = 11; long l = 1234567; double d = 0.5; float f = 1.25f;"
                         " char c = 9; int h[16] = {0};\nfor (int i = 0; i < 40; i++) {\n");
        for (int st = 0, ns = 3 + (int)fz(4); st < ns; st++) {
            fz_expr(e, sizeof e, 3);
            if (fz(4) == 0) {
                fz_expr(e2, sizeof e2, 2);
                k += snprintf(prog + k, sizeof prog - (size_t)k, "  if (%s) %s %s %s;\n", e2, lhs[fz(8)], aops[fz(4)], e);
            } else k += snprintf(prog + k, sizeof prog - (size_t)k, "  %s %s %s;\n", lhs[fz(8)], aops[fz(4)], e);
        }
        snprintf(prog + k, sizeof prog - (size_t)k,
                 "}\nprintf(\"%%d %%d %%u %%ld %%a %%a %%d\\n\", a, b, u, l, d, (double)f, c);\n"
                 "for (int i = 0; i < 16; i++) printf(\"%%d \", h[i]);\n");
        char title[16600];
        snprintf(title, sizeof title, "fuzz program %d:\n%s", p, prog);
        same(title, prog, false);
    }
}

int main(int argc, char **argv) {
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) same(progs[i][0], progs[i][1], progs[i][2][0] == '1');
    test_interrupt_compiled();
    test_interrupt_abandons_a_foreground_compile();
    test_enter_outer_loop();
    test_versioned_loops();
    test_nests();
    test_many_access_sites();
    test_background_compile();
    test_loaded_code_is_bounded();
    fuzz(40);
    /* the conformance suite with the tier forced on */
    /* the log beside the binary: checkouts side by side do not share it */
    char *self = strdup(argv[0]), cmd[4200], log[2100];
    const char *dir = dirname(self);
    snprintf(log, sizeof log, "%s/test_native-parity.log", dir);
    snprintf(cmd, sizeof cmd, "ICUDA_HOST_TIER=always %s/test_lang >%s 2>&1", dir, log);
    int rc = system(cmd);
    CHECK_MSG(rc == 0, "tests/lang with the native tier forced on failed: see %s", log);
    free(self);
    return check_report();
}
