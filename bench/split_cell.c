/* The cell splitter on big cells (docs/performance.md "The cell splitter"):
 * a 10 MB cell of 625,000 statements with comments, and one item of 80,000
 * lines; CPU time of the process, best of several runs, so that other jobs
 * on the machine count little. tests/unit/test_split_limits.c checks what
 * they split into; the time is this figure's.
 * Usage: build/bench/split_cell [runs]   (make bench-split) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/cell/split.h"

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *repeat(const char *head, const char *unit, size_t n, const char *tail) {
    size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
    char *s = malloc(h + u * n + t + 1), *q = s;
    memcpy(q, head, h), q += h;
    for (size_t i = 0; i < n; i++) memcpy(q, unit, u), q += u;
    memcpy(q, tail, t + 1);
    return s;
}

static void bench(const char *what, const char *code, int runs) {
    double best = 1e30;
    size_t items = 0;
    for (int r = 0; r < runs; r++) {
        cell_split_t sp;
        double t0 = cpu_s();
        split_cell(code, &sp);
        double dt = cpu_s() - t0;
        items = sp.n;
        split_free(&sp);
        if (dt < best) best = dt;
    }
    printf("%-34s %9zu bytes %7zu items  %.3f s CPU (best of %d)\n", what, strlen(code), items, best, runs);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1) runs = 1;
    char *big = repeat("int x = 0;\n", "x += 1; /* c */\n", 625000, "x");
    bench("10 MB cell, 625,000 statements", big, runs);
    free(big);
    char *lines = repeat("void f(void) {\n", "  g();\n", 80000, "}\nint y;\n");
    bench("one item of 80,000 lines", lines, runs);
    free(lines);
    return 0;
}
