/* The splitter on hostile cells: a 10 MB cell and an 80,000-line item
 * split with the right items and line numbers, brackets nested past
 * SPLIT_MAX_DEPTH are flagged with their line, and garbage splits without a
 * fault. How long the big cells take is bench/split_cell.c's figure (the
 * quadratic splitter took 50 minutes on the 10 MB cell: the test's time
 * limit would end it, no assertion on time needed). */
#include <stdlib.h>

#include "check.h"
#include "runtime/cell/split.h"

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
    split_cell(big, &sp);
    CHECK(sp.n == 625002);
    CHECK(sp.items[sp.n - 1].first_line == 625002);
    CHECK(sp.items[sp.n - 2].first_line == 625001 && sp.items[sp.n - 2].last_line == 625001);
    CHECK(sp.too_deep_line == 0);
    split_free(&sp);
    free(big);

    /* one item of 80,000 lines, and 80,000 one-line items */
    char *lines = repeat("void f(void) {\n", "  g();\n", 80000, "}\nint y;\n");
    split_cell(lines, &sp);
    CHECK(sp.n == 2 && sp.items[0].first_line == 1 && sp.items[0].last_line == 80002 && sp.items[1].first_line == 80003);
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
