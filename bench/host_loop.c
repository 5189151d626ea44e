/* Host interpreter loop speed (target: >= 100 M iterations/s): the dot
 * product loop and a rand() fill loop run through interp_run, next to the
 * same loops compiled into this program (with the Makefile's flags).
 * bench/host_loop.sh builds it and adds gcc -O0 / -O2 builds of the loops. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runtime/lang/interp.h"

#include "runtime/base/cell_io.h"
/* the kernel process defines this in runtime/engine/engine.c; the benchmark links
 * only runtime/lang and runtime/hostmem */
atomic_int icuda_interrupt_flag;
char *_Atomic icuda_interrupt_guard;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run(interp_t *in, const char *code) {
    cell_error_t err = {0};
    json_t *v = NULL;
    if (interp_run(in, code, "In [bench]", NULL, &v, &err) != 0) {
        fprintf(stderr, "cell failed: %s: %s\n", err.ename, err.evalue);
        exit(1);
    }
    if (v) json_decref(v);
}

static double timed(interp_t *in, const char *code) {
    double t0 = now();
    run(in, code);
    return now() - t0;
}

int main(int argc, char **argv) {
    long N = argc > 1 ? atol(argv[1]) : 10000000;
    char setup[512];
    snprintf(setup, sizeof setup,
             "long N = %ld; double *x = (double *)malloc(N * sizeof(double));\n"
             "double *y = (double *)malloc(N * sizeof(double)); int *r = (int *)malloc(N * sizeof(int));\n"
             "for (long i = 0; i < N; i++) { x[i] = i * 0.5; y[i] = 2.0; }\n"
             "double s = 0;", N);
    interp_t *in = interp_new();
    run(in, setup);
    const char *dot = "s = 0; for (long i = 0; i < N; i++) s += x[i] * y[i];";
    const char *fill = "srand(1); for (long i = 0; i < N; i++) r[i] = rand();";
    double best_dot = 1e9, best_fill = 1e9;
    for (int k = 0; k < 3; k++) {
        double a = timed(in, dot), b = timed(in, fill);
        if (a < best_dot) best_dot = a;
        if (b < best_fill) best_fill = b;
    }
    /* the same loops compiled into this program */
    double *x = malloc((size_t)N * sizeof *x), *y = malloc((size_t)N * sizeof *y);
    int *r = malloc((size_t)N * sizeof *r);
    for (long i = 0; i < N; i++) { x[i] = (double)i * 0.5; y[i] = 2.0; }
    double cd = 1e9, cf = 1e9;
    volatile double sink = 0;
    for (int k = 0; k < 3; k++) {
        double t0 = now(), s = 0;
        for (long i = 0; i < N; i++) s += x[i] * y[i];
        sink += s;
        double t1 = now();
        srand(1);
        for (long i = 0; i < N; i++) r[i] = rand();
        double t2 = now();
        if (t1 - t0 < cd) cd = t1 - t0;
        if (t2 - t1 < cf) cf = t2 - t1;
    }
    printf("%-34s %12s %12s\n", "loop (N = 10^7 unless given)", "interp M/s", "native M/s");
    printf("%-34s %12.1f %12.1f\n", "s += x[i] * y[i]", N / best_dot / 1e6, N / cd / 1e6);
    printf("%-34s %12.1f %12.1f\n", "r[i] = rand()", N / best_fill / 1e6, N / cf / 1e6);
    free(x); free(y); free(r);
    interp_free(in);
    return 0;
}
