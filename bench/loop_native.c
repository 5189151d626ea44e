/* The benchmark loops as a plain C program, for bench/host_loop.sh to build
 * with gcc -O0 and -O2 (the interpreter's reference points). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    long N = argc > 1 ? atol(argv[1]) : 10000000;
    double *x = malloc((size_t)N * sizeof *x), *y = malloc((size_t)N * sizeof *y);
    int *r = malloc((size_t)N * sizeof *r);
    for (long i = 0; i < N; i++) { x[i] = (double)i * 0.5; y[i] = 2.0; }
    double cd = 1e9, cf = 1e9, sum = 0;
    for (int k = 0; k < 3; k++) {
        double t0 = now(), s = 0;
        for (long i = 0; i < N; i++) s += x[i] * y[i];
        double t1 = now();
        srand(1);
        for (long i = 0; i < N; i++) r[i] = rand();
        double t2 = now();
        sum += s + r[N / 2];
        if (t1 - t0 < cd) cd = t1 - t0;
        if (t2 - t1 < cf) cf = t2 - t1;
    }
    printf("%.1f %.1f %g\n", N / cd / 1e6, N / cf / 1e6, sum);
    return 0;
}
