/* Host code speed (docs/performance.md "Host code"): each loop
 * runs as a cell in the interpreter (native tier off), in the native tier
 * (compiled, steady state; the first run with its compile is shown too),
 * and as the same C program built with gcc -O0, -O2 and -O2
 * -fsanitize=address. Times are the best of several runs.
 * Usage: build/bench/host_suite [runs] [filter]   (make bench-host) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "host_harness.h"

static const bench_t benches[] = {
    {"matmul 256^3 float", NULL,
     "int n = 256;\n"
     "float *a = (float *)malloc(n * n * sizeof(float)), *b = (float *)malloc(n * n * sizeof(float)),\n"
     "      *c = (float *)malloc(n * n * sizeof(float));\n"
     "for (int i = 0; i < n * n; i++) { a[i] = (i % 7) * 0.5f; b[i] = (i % 5) * 0.25f; }\n",
     "for (int i = 0; i < n; i++)\n"
     "    for (int j = 0; j < n; j++) {\n"
     "        float s = 0;\n"
     "        for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];\n"
     "        c[i * n + j] = s;\n"
     "    }\n",
     "double cs = 0;\nfor (int i = 0; i < n * n; i++) cs += c[i];\nprintf(\"%f\\n\", cs);\n"},
    {"histogram 2^24 bytes", NULL,
     "int N = 1 << 24;\n"
     "unsigned char *d = (unsigned char *)malloc(N);\n"
     "for (int i = 0; i < N; i++) d[i] = (unsigned char)((unsigned)i * 2654435761u >> 24);\n"
     "int hist[256];\n"
     "for (int i = 0; i < 256; i++) hist[i] = 0;\n",
     "for (int i = 0; i < N; i++) hist[d[i]]++;\n",
     "printf(\"%d %d\\n\", hist[0], hist[255]);\n"},
    {"dot 10^7 doubles", NULL,
     "int n = 10000000;\n"
     "double *x = (double *)malloc(n * sizeof(double)), *y = (double *)malloc(n * sizeof(double));\n"
     "for (int i = 0; i < n; i++) { x[i] = i * 1e-7; y[i] = 1.0 - i * 1e-7; }\n"
     "double s = 0;\n",
     "for (int i = 0; i < n; i++) s += x[i] * y[i];\n",
     "printf(\"%.6f\\n\", s);\n"},
    {"stencil 1024^2 x5", NULL,
     "int n = 1024;\n"
     "double *u = (double *)malloc(n * n * sizeof(double)), *v = (double *)malloc(n * n * sizeof(double));\n"
     "for (int i = 0; i < n * n; i++) { u[i] = (i % 13) * 0.1; v[i] = 0; }\n",
     "for (int t = 0; t < 5; t++)\n"
     "    for (int i = 1; i < n - 1; i++)\n"
     "        for (int j = 1; j < n - 1; j++)\n"
     "            v[i * n + j] = 0.2 * (u[i * n + j] + u[(i - 1) * n + j] + u[(i + 1) * n + j] +\n"
     "                                  u[i * n + j - 1] + u[i * n + j + 1]);\n",
     "double vs = 0;\nfor (int i = 0; i < n * n; i++) vs += v[i];\nprintf(\"%.6f\\n\", vs);\n"},
    {"rand() fill 10^7", NULL,
     "int n = 10000000;\n"
     "int *r = (int *)malloc(n * sizeof(int));\n",
     "for (int i = 0; i < n; i++) r[i] = rand();\n",
     "long rs = 0;\nfor (int i = 0; i < n; i++) rs += r[i];\nprintf(\"%ld\\n\", rs);\n"},
    {"recursive fib(27)", "int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }\n",
     "int f = 0;\n",
     "f = fib(27);\n",
     "printf(\"%d\\n\", f);\n"},
    {"struct-of-arrays 10^6 x10", NULL,
     "typedef struct { float *x, *y, *vx, *vy; } particles;\n"
     "int n = 1000000;\n"
     "particles p;\n"
     "p.x = (float *)malloc(n * sizeof(float)); p.y = (float *)malloc(n * sizeof(float));\n"
     "p.vx = (float *)malloc(n * sizeof(float)); p.vy = (float *)malloc(n * sizeof(float));\n"
     "for (int i = 0; i < n; i++) { p.x[i] = 0; p.y[i] = 0; p.vx[i] = (i % 10) * 0.1f; p.vy[i] = (i % 3) * 0.2f; }\n",
     "for (int t = 0; t < 10; t++)\n"
     "    for (int i = 0; i < n; i++) { p.x[i] += p.vx[i] * 0.01f; p.y[i] += p.vy[i] * 0.01f; p.vy[i] -= 0.0981f; }\n",
     "double ps = 0;\nfor (int i = 0; i < n; i++) ps += p.x[i] + p.y[i] + p.vy[i];\nprintf(\"%f\\n\", ps);\n"},
    {"list walk 10^6 x10", NULL,
     "typedef struct item { long val; struct item *next; } item;\n"
     "int n = 1000000;\n"
     "item *items = (item *)malloc(n * sizeof(item));\n"
     "for (int i = 0; i < n; i++) { items[i].val = i; items[i].next = &items[(int)(((long)i * 7921 + 1) % n)]; } /* full period */\n"
     "for (int i = 0; i < n; i++) if (items[i].next == &items[0]) items[i].next = 0; /* one cycle of n, cut */\n"
     "long total = 0;\n",
     "for (int t = 0; t < 10; t++)\n"
     "    for (item *q = &items[0]; q; q = q->next) total += q->val;\n",
     "printf(\"%ld\\n\", total);\n"},
};
enum { NB = sizeof benches / sizeof benches[0] };

/* best time of the loop cell in a fresh interpreter with tier mode; *first:
 * the first run (with its compile) */
static double icuda_time(const bench_t *b, int mode, int runs, double *first, native_stats_t *st) {
    double t[64];
    if (runs > 64) runs = 64;
    if (bench_icuda(b, mode, runs, t, st, NULL)) return NAN;
    *first = t[0];
    return bench_best(t, runs);
}

/* the same loop as a C program, built with flags: best of runs; rt: the
 * setup's sizes known at run time only */
static double gcc_time(const bench_t *b, const char *flags, int runs, bool rt) {
    double t[64];
    if (runs > 64) runs = 64;
    if (bench_gcc(b, flags, runs, rt, t, NULL)) return NAN;
    return bench_best(t, runs);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    const char *filter = argc > 2 ? argv[2] : NULL;
    if (runs < 1) runs = 1;
    bench_cache_begin(); /* an empty code cache, so the first run's compile is a real one */
    printf("best of %d runs, seconds; ratio = icuda compiled / gcc -O2; rt = icuda compiled / gcc -O2 with the\n"
           "setup's int sizes known at run time only (O2 rt), as session variables are to compiled code\n", runs);
    printf("%-26s %9s %9s %9s %9s %9s %9s %9s %9s %7s %7s\n", "loop", "interp", "compiled", "1st run", "compile", "gcc-O0",
           "gcc-O2", "O2+asan", "O2 rt", "ratio", "rt");
    double logsum = 0, logrt = 0;
    int nlog = 0;
    for (int i = 0; i < NB; i++) {
        const bench_t *b = &benches[i];
        if (filter && !strstr(b->name, filter)) continue;
        double first = 0, f2 = 0;
        native_stats_t st = {0}, st2;
        double ti = icuda_time(b, NATIVE_OFF, runs, &f2, &st2);
        double tc = icuda_time(b, NATIVE_AUTO, runs, &first, &st);
        double g0 = gcc_time(b, "-O0", runs, false), g2 = gcc_time(b, "-O2", runs, false);
        double ga = gcc_time(b, "-O2 -fsanitize=address", runs, false), grt = gcc_time(b, "-O2", runs, true);
        double ratio = tc / g2;
        if (st.entries && ratio > 0 && grt > 0) { logsum += log(ratio); logrt += log(tc / grt); nlog++; }
        printf("%-26s %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %6.2fx %6.2fx%s\n", b->name, ti, tc, first,
               st.compile_s, g0, g2, ga, grt, ratio, tc / grt, st.entries ? "" : " (interpreted)");
        fflush(stdout);
    }
    bench_cache_done();
    if (nlog) printf("geometric mean over the compiled loops: ratio %.2fx, rt %.2fx\n", exp(logsum / nlog), exp(logrt / nlog));
    return 0;
}
