/* The splitter on hostile cells: a 10 MB cell splits in linear
 * time with the right line numbers, brackets nested past SPLIT_MAX_DEPTH are
 * flagged with their line, and garbage splits without a fault. */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "runtime/cell/split.h"

/* under AddressSanitizer every access is checked: a few times slower */
#ifdef __SANITIZE_ADDRESS__
#define SPLIT_10MB_SECONDS 4.0
#else
#define SPLIT_10MB_SECONDS 1.0
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: other jobs on the machine do not count */
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static char *repeat(const char *head, const char *unit, size_t n, const char *tail) {
    size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
    char *s = malloc(h + u * n + t + 1), *q = s;
    memcpy(q, head, h), q += h;
    for (size_t i = 0; i < n; i++) memcpy(q, unit, u), q += u;
    memcpy(q, tail, t + 1);
    return s;
}

int main(void) {
    cell_split_t sp;
    /* 10 MB, 1,000,000 lines: was quadratic (line_of from the start per item) */
    char *big = repeat("int x = 0;\n", "x += 1; /* c */\n", 625000, "x");
    double t0 = now();
    split_cell(big, &sp);
    double dt = now() - t0;
    printf("split %zu bytes into %zu items in %.3f s\n", strlen(big), sp.n, dt);
    CHECK(sp.n == 625002);
    CHECK(dt < SPLIT_10MB_SECONDS);
    CHECK(sp.items[sp.n - 1].first_line == 625002);
    CHECK(sp.items[sp.n - 2].first_line == 625001 && sp.items[sp.n - 2].last_line == 625001);
    CHECK(sp.too_deep_line == 0);
    split_free(&sp);
    free(big);

    /* one item of 80,000 lines, and 80,000 one-line items */
    char *lines = repeat("void f(void) {\n", "  g();\n", 80000, "}\nint y;\n");
    t0 = now();
    split_cell(lines, &sp);
    CHECK(now() - t0 < SPLIT_10MB_SECONDS / 10);
    CHECK(sp.n == 2 && sp.items[1].first_line == 80003);
    split_free(&sp);
    free(lines);

    /* nesting: at the bound is fine, one deeper is flagged with its line */
    char *ok = repeat("int a =\n", "(", SPLIT_MAX_DEPTH, "1");
    split_cell(ok, &sp);
    CHECK(sp.too_deep_line == 0);
    split_free(&sp);
    free(ok);
    char *deep = repeat("int a;\n\nint b = ", "(", 100000, "1;");
    split_cell(deep, &sp);
    CHECK(sp.too_deep_line == 3);
    split_free(&sp);
    free(deep);
    char *braces = repeat("", "{\n", 30000, "");
    split_cell(braces, &sp);
    CHECK(sp.too_deep_line == SPLIT_MAX_DEPTH + 1);
    split_free(&sp);
    free(braces);

    /* garbage: every byte value, unterminated comments and strings */
    char junk[4096];
    for (int i = 0; i < (int)sizeof junk - 1; i++) junk[i] = (char)(1 + (i * 7919) % 255);
    junk[sizeof junk - 1] = 0;
    split_cell(junk, &sp);
    CHECK(sp.n >= 1);
    split_free(&sp);
    split_cell("/* never closed\n int x;", &sp);
    split_free(&sp);
    split_cell("\"never closed\n'x", &sp);
    split_free(&sp);
    CHECK(1);
    return check_report();
}
