/* The native tier's loop shapes of CPU reference code (docs/native-tier.md
 * "Loops of every kind"): each program runs in a fresh interpreter with the
 * tier off and forced on and must print the same and fail the same (ename,
 * message, traceback); and the shape must get the code it is meant to get
 * (the clean copy ran, or a whole nest did). The errors are the point: an
 * out-of-bounds write through a data index, a count that overflows in a
 * chunk, a helper that overflows inside a compiled loop are each raised
 * where the interpreter raises them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "native_run.h"

/* same output both ways; want: "clean" (a loop's clean copy ran), "nest" (a
 * whole nest's), "" (compiled, nothing more asked); must: a text the
 * compiled run's output holds (an error's name), or NULL */
static void shape(const char *title, const char *cells, const char *want, const char *must) {
    long e0, e1;
    char *a = run_cells(cells, NATIVE_OFF, &e0), *b = run_cells(cells, NATIVE_ALWAYS, &e1);
    long clean = g_clean_runs - g_nest_runs, nests = g_nest_runs;
    CHECK_MSG(!strcmp(a, b), "%s: interpreted:\n%s\ncompiled:\n%s", title, a, b);
    /* "uncompiled": a shape the tier does not compile yet; both tiers agree */
    if (strcmp(want, "uncompiled")) CHECK_MSG(e1 > 0, "%s: nothing was compiled", title);
    else CHECK_MSG(e1 == 0, "%s: compiled now: expect it to", title);
    CHECK_MSG(g_failures == 0, "%s: the C compiler refused %ld generated units", title, g_failures);
    if (!strcmp(want, "clean")) CHECK_MSG(clean > 0, "%s: the clean copy never ran", title);
    if (!strcmp(want, "nest")) CHECK_MSG(nests > 0, "%s: the clean nest never ran", title);
    if (must) CHECK_MSG(strstr(b, must) != NULL, "%s: no '%s' in:\n%s", title, must, b);
    if (getenv("SHAPE_SHOW")) fprintf(stderr, "%s: clean %ld nests %ld\n%s", title, clean, nests, b);
    free(a);
    free(b);
}

/* shape() of the cells setup followed by more: the shared first cells of a group */
static void shape_after(const char *title, const char *setup, const char *more, const char *want, const char *must) {
    char cells[8192];
    int len = snprintf(cells, sizeof cells, "%s%s", setup, more);
    CHECK_MSG(len >= 0 && (size_t)len < sizeof cells, "%s: the cells are longer than %zu bytes", title, sizeof cells);
    shape(title, cells, want, must);
}

/* A written index the data decide (a histogram, a scatter): one compare
 * against the buffer's bounds, found at the loop's entry. */
static void test_data_indexes(void) {
    static const char *const bytes =
        "int n = 20000; unsigned char *d = (unsigned char *)malloc(n);\n"
        "for (int i = 0; i < n; i++) d[i] = (unsigned char)((unsigned)i * 2654435761u >> 24);\n\x01";
    shape_after("a histogram of bytes: the index proven by its type", bytes,
             "int *h = (int *)calloc(256, sizeof(int));\nfor (int i = 0; i < n; i++) h[d[i]]++;\n"
             "long s = 0; for (int i = 0; i < 256; i++) s += (long)h[i] * i;\nprintf(\"%ld %d\\n\", s, h[7]);", "clean", NULL);
    shape_after("a histogram too short for a byte: the out-of-bounds write at its line", bytes,
             "int *h = (int *)calloc(200, sizeof(int)); long t = 0;\nfor (int i = 0; i < n; i++) {\n"
             "    t += i;\n    h[d[i]] += 2;\n}\n\x01printf(\"%ld %d\\n\", t, h[3]);", "clean", "out-of-bounds write");
    shape_after("a pointer into the middle: negative data indexes, then one before the start", bytes,
             "int *h = (int *)calloc(256, sizeof(int)) + 8;\nfor (int i = 0; i < n; i++) h[d[i] - 8]--;\n"
             "printf(\"%d %d\\n\", h[-8], h[247]);\n\x01"
             "for (int i = 0; i < n; i++) h[d[i] - 9]--;\n", "clean",
          "out-of-bounds write");
    shape("a scatter-add through a random index",
          "int n = 30000; int *idx = (int *)malloc(n * sizeof(int)); float *x = (float *)malloc(n * sizeof(float));\n"
          "float *y = (float *)calloc(n, sizeof(float)); srand(3);\n"
          "for (int i = 0; i < n; i++) { idx[i] = rand() % n; x[i] = (i % 13) * 0.5f; }\n"
          "for (int i = 0; i < n; i++) y[idx[i]] += x[i];\n"
          "double s = 0; for (int i = 0; i < n; i++) s += y[i] * (i % 5);\nprintf(\"%.9g\\n\", s);", "clean", NULL);
    shape("a scatter whose index runs past the end late in the loop: the session's variables as interpreted",
          "int n = 30000; int *idx = (int *)malloc(n * sizeof(int)); double *y = (double *)calloc(n, sizeof(double));\n"
          "for (int i = 0; i < n; i++) idx[i] = (i * 7) % n;\nidx[n - 5] = n + 3;\nlong seen = 0;\n\x01"
          "for (int i = 0; i < n; i++) { seen++; y[idx[i]] = i; }\n\x01printf(\"%ld %g\\n\", seen, y[7]);", "clean",
          "out-of-bounds write");
    shape("a negative data index", "int n = 5000; int *idx = (int *)malloc(n * sizeof(int)); int *y = (int *)calloc(n, 4);\n"
          "for (int i = 0; i < n; i++) idx[i] = n - 1 - i;\nidx[4000] = -1;\nfor (int i = 0; i < n; i++) y[idx[i]] += i;\n",
          "clean", "out-of-bounds write");
    shape("a data index into a freed buffer",
          "int n = 5000; int *idx = (int *)calloc(n, sizeof(int)); int *y = (int *)malloc(n * 4); free(y);\n"
          "for (int i = 0; i < n; i++) y[idx[i]] = i;\n", "", "freed");
    shape("a data index of a buffer holding a session variable: the checked copy",
          "long s = 0; long *ps = &s; int idx[8] = {0, 0, 0, 0, 0, 0, 0, 0};\n"
          "for (int i = 0; i < 8; i++) { ps[idx[i]] += i; s += 1; }\nprintf(\"%ld\\n\", s);", "", NULL);
    shape("a data index read: a lookup table",
          "int n = 9000; unsigned char *c = (unsigned char *)malloc(n); float lut[256]; float *out = (float *)malloc(n * 4);\n"
          "for (int i = 0; i < 256; i++) lut[i] = i * 0.5f;\nfor (int i = 0; i < n; i++) c[i] = (unsigned char)(i * 31);\n"
          "float *L = lut;\nfor (int i = 0; i < n; i++) out[i] = L[c[i]] + L[(c[i] + 1) & 255];\n"
          "printf(\"%.9g %.9g\\n\", out[5], out[n - 1]);", "clean", NULL);
}

/* A clean copy runs in chunks: the counter's value after the loop, break
 * and continue across chunk boundaries, return from inside one. */
static void test_chunks(void) {
    static const int lens[] = {1, 4095, 4096, 4097, 8192, 12289};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        char cells[2048], title[128];
        snprintf(cells, sizeof cells,
                 "int n = %d; int *a = (int *)malloc(n * sizeof(int)); long t = 0;\n{ int i;\n"
                 "for (i = 0; i < n; i++) a[i] = i * 3;\n"
                 "for (i = 0; i < n; i++) { if (a[i] %% 5 == 1) continue; t += a[i]; }\n"
                 "printf(\"%%d %%ld\\n\", i, t);\n"
                 "for (i = 1; i < n; i++) { if (a[i] > 3 * 4096) break; t -= a[i - 1]; }\n"
                 "printf(\"%%d %%ld\\n\", i, t); }\n"
                 "int first(int *p, int m, int x) { for (int j = 0; j < m; j++) if (p[j] >= x) return j; return -1; }\n"
                 "printf(\"%%d %%d\\n\", first(a, n, 3 * 4095), first(a, n, -1));",
                 lens[k]);
        snprintf(title, sizeof title, "chunks of a loop of %d", lens[k]);
        shape(title, cells, "clean", NULL);
    }
}

/* Accumulators (a count, a sum of bytes) run unchecked in a chunk that
 * cannot overflow them; the chunk that could runs checked and raises at
 * the iteration the interpreter does. */
static void test_accumulators(void) {
    static const char *const text =
        "long n = 50000; char *s = (char *)malloc(n); const char *txt = \"the quick brown fox jumps over the lazy dog \";\n"
        "for (long i = 0; i < n; i++) s[i] = txt[i % 44];\n\x01";
    shape_after("a count, a sum of bytes and a decrement", text,
             "int cnt = 0; unsigned char *u = (unsigned char *)s; int sum = 0; long neg = 0;\n"
             "for (long i = 0; i < n; i++) { if (s[i] == 'e') cnt++; sum += u[i]; neg -= s[i] == ' '; }\n"
             "printf(\"%d %d %ld\\n\", cnt, sum, neg);", "clean", NULL);
    shape_after("a count that overflows int in a chunk: the interpreter's error, the count as it was", text,
             "int cnt = 2147483647 - 2000;\nfor (long i = 0; i < n; i++)\n    if (s[i] == 'o') cnt++;\n"
             "\x01printf(\"%d\\n\", cnt);", "clean",
          "overflow");
    shape_after("a byte sum that overflows downwards", text,
             "int low = -2147483647 + 300000; unsigned char *u = (unsigned char *)s;\n"
             "for (long i = 0; i < n; i++)\n    low -= u[i];\n\x01printf(\"%d\\n\", low);", "clean", "overflow");
    shape("a sum of ints into a long, and into an int that overflows",
          "int n = 20000; int *a = (int *)malloc(n * sizeof(int));\n"
          "for (int i = 0; i < n; i++) a[i] = 2000000000 - i;\nlong big = 0;\n"
          "for (int i = 0; i < n; i++) big += a[i];\nprintf(\"%ld\\n\", big);\n\x01"
          "int small = 0;\nfor (int i = 0; i < n; i++) small += a[i];\n", "clean", "overflow");
    shape("subtracting a long of any value, and the most negative one where it overflows",
          "int n = 20000; long long *a = (long long *)malloc(n * sizeof(long long));\n"
          "for (int i = 0; i < n; i++) a[i] = i % 5 - 2;\nlong long s = 0;\n"
          "for (int i = 0; i < n; i++) s -= a[i];\nprintf(\"%lld\\n\", s);\n\x01"
          "for (int i = 0; i < n; i++)\n    s -= i < n - 1 ? -1 : (-9223372036854775807LL - 1);\n", "", "overflow");
    shape("a variable also assigned in the loop is no accumulator",
          "int n = 9000; int *a = (int *)malloc(n * sizeof(int)); for (int i = 0; i < n; i++) a[i] = i % 11;\n"
          "int run = 0, best = 0;\nfor (int i = 0; i < n; i++) { if (a[i] == 0) run = 0; else run++; if (run > best) best = run; }\n"
          "printf(\"%d %d\\n\", run, best);", "clean", NULL);
}

/* A switch in a loop (a parser's classes, a state machine): compiled with
 * the loop, fall-through, default, break out of the switch, continue of
 * the loop, a loop inside a case, and an error inside a case raised where
 * the interpreter raises it. */
static void test_switches(void) {
    static const char *const text =
        "long n = 60000; char *s = (char *)malloc(n); const char *txt = \"int x1 = 42; /* y */ z += 7;\\n\";\n"
        "for (long i = 0; i < n; i++) s[i] = txt[i % 30];\n\x01";
    shape_after("a switch over bytes: cases, fall-through, default, continue", text,
             "int digits = 0, letters = 0, spaces = 0, other = 0, lines = 0;\n"
             "for (long i = 0; i < n; i++) {\n    switch (s[i]) {\n"
             "    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':\n"
             "        digits++; break;\n    case ' ': spaces++; break;\n    case '\\n': lines++; /* fall through */\n"
             "    case ';': other += 2; break;\n    default:\n        if (s[i] >= 'a' && s[i] <= 'z') { letters++; continue; }\n"
             "        other++;\n    }\n    other++;\n}\nprintf(\"%d %d %d %d %d\\n\", digits, letters, spaces, other, lines);", "", NULL);
    shape("a state machine: a switch on a state variable, a loop inside a case",
          "int n = 50000; int *a = (int *)malloc(n * sizeof(int)); for (int i = 0; i < n; i++) a[i] = (i * 7) % 13;\n\x01"
          "int state = 0; long acc = 0;\nfor (int i = 0; i < n; i++) {\n    switch (state) {\n"
          "    case 0: if (a[i] > 6) state = 1; acc += a[i]; break;\n"
          "    case 1: for (int k = 0; k < 3; k++) acc += k * a[i]; state = 2; break;\n"
          "    case 2: state = a[i] & 1 ? 0 : 1; acc -= 1; break;\n    }\n}\nprintf(\"%d %ld\\n\", state, acc);",
          "", NULL);
    shape("a switch without a default, on a long, and one with only a default",
          "long n = 40000; long t = 0;\nfor (long i = 0; i < n; i++) {\n"
          "    switch (i % 5000000000L) { case 3: t += 3; break; case 4000000000L: t -= 1; break; }\n"
          "    switch (i & 3) { default: t++; }\n}\nprintf(\"%ld\\n\", t);", "", NULL);
    shape("an overflow inside a case: the interpreter's error at its line",
          "int n = 100000; int big = 2147483647 - 30000;\n\x01"
          "for (int i = 0; i < n; i++) {\n    switch (i % 3) {\n    case 0: break;\n    case 1:\n        big++;\n        break;\n"
          "    default: break;\n    }\n}\n", "", "overflow");
    shape("a switch in a function a loop calls",
          "static int cls(int c) { switch (c) { case 'a': case 'e': case 'i': case 'o': case 'u': return 1; case ' ': return 2; default: return 0; } }\n\x01"
          "const char *w = \"the quick brown fox jumps over the lazy dog\"; long v = 0, sp = 0;\n"
          "for (int r = 0; r < 3000; r++)\n    for (int i = 0; w[i]; i++) { int k = cls(w[i]); v += k == 1; sp += k == 2; }\n"
          "printf(\"%ld %ld\\n\", v, sp);", "", NULL);
}

/* Struct assignment in a loop (records moved by a sort, particles copied):
 * the source read-checked, the target write-checked, the bytes moved; an
 * out-of-bounds copy raised where the interpreter raises it. */
static void test_struct_copies(void) {
    static const char *const recs =
        "struct rec { int key; float w; char tag[6]; };\n"
        "int n = 3000; struct rec *r = (struct rec *)malloc(n * sizeof(struct rec));\n"
        "for (int i = 0; i < n; i++) { r[i].key = (i * 7919) % 1009; r[i].w = i * 0.5f; r[i].tag[0] = (char)('a' + i % 26); }\n\x01";
    shape_after("an insertion sort of records by key", recs,
             "for (int i = 1; i < n; i++) {\n    struct rec v = r[i];\n    int j = i - 1;\n"
             "    while (j >= 0 && r[j].key > v.key) { r[j + 1] = r[j]; j--; }\n    r[j + 1] = v;\n}\n"
             "long s = 0; for (int i = 0; i < n; i++) s += (long)r[i].key * (i + 1) + r[i].tag[0];\n"
             "printf(\"%ld %d %d %.1f\\n\", s, r[0].key, r[n - 1].key, r[n / 2].w);", "", NULL);
    shape_after("records copied reversed, then one past the end: the write's error", recs,
             "struct rec *out = (struct rec *)malloc(n * sizeof(struct rec));\n"
             "for (int i = 0; i < n; i++) out[i] = r[n - 1 - i];\n"
             "printf(\"%d %c\\n\", out[0].key, out[5].tag[0]);\n\x01"
             "for (int i = 0; i < n; i++) out[i + 1] = r[i];\n", "", "out-of-bounds");
    shape("records shifted down one (overlapping copies), and a member struct copied",
          "struct in2 { short a, b; }; struct rec2 { int k; struct in2 in; double d; };\n"
          "int n = 20000; struct rec2 *v = (struct rec2 *)malloc(n * sizeof(struct rec2));\n"
          "for (int i = 0; i < n; i++) { v[i].k = i; v[i].in.a = (short)(i % 300); v[i].in.b = 7; v[i].d = i * 0.25; }\n\x01"
          "for (int i = 0; i < n - 1; i++) v[i] = v[i + 1];\n"
          "for (int i = 1; i < n; i++) v[i].in = v[i - 1].in;\n"
          "printf(\"%d %d %d %.2f\\n\", v[0].k, v[n - 1].in.a, v[5].in.b, v[n - 2].d);", "", NULL);
    shape("a copy from a freed buffer: the interpreter's error",
          "struct q { int a, b; }; int n = 30000; struct q *src = (struct q *)malloc(n * sizeof(struct q));\n"
          "struct q *dst = (struct q *)malloc(n * sizeof(struct q)); for (int i = 0; i < n; i++) { src[i].a = i; src[i].b = -i; }\n\x01"
          "for (int i = 0; i < n; i++) dst[i] = src[i];\nprintf(\"%d\\n\", dst[n - 1].b);\nfree(src);\n\x01"
          "for (int i = 0; i < n; i++) dst[i] = src[i];\n", "", "freed");
    shape("a session struct copied into an array and back",
          "struct q { int a, b; }; struct q cur = {1, 2}; int n = 30000; struct q *hist = (struct q *)malloc(n * sizeof(struct q));\n\x01"
          "for (int i = 0; i < n; i++) { hist[i] = cur; cur.a += cur.b % 5; cur.b = cur.a % 11; if (i % 1000 == 999) cur = hist[i / 2]; }\n"
          "printf(\"%d %d %d %d\\n\", cur.a, cur.b, hist[n - 1].a, hist[n / 3].b);", "", NULL);
    shape("a struct of a session variable copied in a loop",
          "struct p3 { double x, y, z; }; struct p3 best = {0, 0, 0};\n"
          "int m = 20000; struct p3 *pts = (struct p3 *)malloc(m * sizeof(struct p3));\n"
          "for (int i = 0; i < m; i++) { pts[i].x = i % 97; pts[i].y = i % 13; pts[i].z = 1; }\n\x01"
          "for (int i = 0; i < m; i++) if (pts[i].x + pts[i].y > best.x + best.y) best = pts[i];\n"
          "printf(\"%.0f %.0f\\n\", best.x, best.y);", "", NULL);
}

/* Pointer differences (a token's length, an index found by a moving
 * pointer): offsets within one buffer; two buffers subtracted raise the
 * interpreter's error at its line. */
static void test_pointer_differences(void) {
    static const char *const text =
        "long n = 40000; char *s = (char *)malloc(n + 1); const char *w = \"alpha be gamma delta  x \";\n"
        "for (long i = 0; i < n; i++) s[i] = w[i % 24];\ns[n] = 0;\n\x01";
    shape_after("words measured by pointer differences", text,
             "long words = 0, total = 0, longest = 0; char *p = s;\n"
             "while (*p) {\n    while (*p == ' ') p++;\n    char *start = p;\n    while (*p && *p != ' ') p++;\n"
             "    long len = p - start;\n    if (len) { words++; total += len; if (len > longest) longest = len; }\n}\n"
             "printf(\"%ld %ld %ld %ld\\n\", words, total, longest, (long)(p - s));", "", NULL);
    shape_after("a difference of two buffers after many of one: the interpreter's error", text,
             "long acc = 0;\n"
             "for (long i = 0; i < n; i++) acc += (s + i) - s;\nprintf(\"%ld\\n\", acc);\n\x01"
             "char *other = (char *)malloc(16);\nfor (long i = 0; i < n; i++)\n    acc += i < n - 5 ? (s + i) - s : other - s;\n", "", "different buffers");
}

/* Helper functions a hot loop calls are compiled with it, static in its
 * unit (gcc inlines them): values, and an error inside one raised with
 * the interpreter's traceback (the call run again interpreted). */
static void test_helpers(void) {
    shape("a static inline helper accumulating in a double",
          "static inline float lerp(float a, float b, float t) { return a + t * (b - a); }\n\x01"
          "int n = 30000; float *x = (float *)malloc(n * 4), *y = (float *)malloc(n * 4);\n"
          "for (int i = 0; i < n; i++) { x[i] = (i % 7) * 0.5f; y[i] = (i % 11) * 0.25f; }\ndouble acc = 0;\n"
          "for (int i = 0; i < n; i++) acc += lerp(x[i], y[i], 0.25f);\nprintf(\"%.17g\\n\", acc);", "clean", NULL);
    shape("helpers calling helpers, one overflowing deep inside the loop: its traceback",
          "static inline int sq(int v) { return v * v; }\nint norm2(int a, int b) { return sq(a) + sq(b); }\n\x01"
          "int n = 40000; int *x = (int *)malloc(n * 4); for (int i = 0; i < n; i++) x[i] = 2 * i;\nlong t = 0;\n\x01"
          "for (int i = 0; i < n; i++)\n    t += norm2(x[i], 3);\n\x01printf(\"%ld\\n\", t);", "clean", "overflow");
    shape("a recursive helper called from a loop",
          "int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }\n\x01"
          "long t = 0;\nfor (int i = 1; i < 3000; i++) t += gcd(i * 7, 3003);\nprintf(\"%ld\\n\", t);", "uncompiled", NULL);
    shape("a helper reading through a pointer parameter",
          "static inline float at(const float *a, int w, int x, int y) { return a[y * w + x]; }\n"
          "typedef struct { float x, y; } pt;\nstatic inline float px(const pt *p) { return p->x * 2 + p->y; }\n\x01"
          "int W = 300, H = 200; float *img = (float *)malloc(W * H * 4); pt *ps = (pt *)malloc(H * sizeof(pt));\n"
          "for (int i = 0; i < W * H; i++) img[i] = (i % 19) * 0.5f;\nfor (int i = 0; i < H; i++) { ps[i].x = i; ps[i].y = 1; }\n"
          "double tot = 0;\nfor (int y = 0; y < H - 1; y++) for (int x = 0; x < W - 1; x++)\n"
          "    tot += at(img, W, x + 1, y) - at(img, W, x, y + 1) + px(&ps[y]);\nprintf(\"%.17g\\n\", tot);", "", NULL);
    shape("a helper reading past the end of its buffer: the interpreter's error and traceback",
          "static inline float at(const float *a, int w, int x, int y) { return a[y * w + x]; }\n\x01"
          "int W = 300, H = 200; float *img = (float *)malloc(W * H * 4); for (int i = 0; i < W * H; i++) img[i] = i;\n"
          "double tot = 0;\n\x01" "for (int y = 0; y < H; y++) for (int x = 0; x < W; x++)\n"
          "    tot += at(img, W, x, y + 1);\n\x01printf(\"%.17g\\n\", tot);", "", "out-of-bounds read");
    shape("a helper reading a freed buffer", "int rd(const int *p, int i) { return p[i]; }\n\x01"
          "int *q = (int *)malloc(64 * 4); for (int i = 0; i < 64; i++) q[i] = i; long t = 0;\n"
          "for (int r = 0; r < 2000; r++) t += rd(q, r % 64);\nfree(q);\nfor (int r = 0; r < 2000; r++) t += rd(q, r % 64);\n",
          "", "freed");
    shape("a helper reading a session variable the loop keeps in a register, through a pointer",
          "long get(const long *p) { return *p; }\n\x01"
          "long s = 0; long *ps = &s; long t = 0;\nfor (int i = 0; i < 3000; i++) { s += i; t += get(ps); }\n"
          "printf(\"%ld %ld\\n\", s, t);", "", NULL);
    shape("a helper reading a session variable the loop writes, by name",
          "long s = 0;\nlong get2(int k) { return s * k; }\n\x01"
          "long t = 0;\nfor (int i = 0; i < 3000; i++) { s += i; t += get2(2); }\nprintf(\"%ld %ld\\n\", s, t);", "", NULL);
    shape("a helper dividing by zero inside a loop",
          "static inline int ratio(int a, int b) { return a / b; }\n\x01"
          "int n = 5000; int *d = (int *)malloc(n * 4); for (int i = 0; i < n; i++) d[i] = 1 + i % 9;\nd[4321] = 0; long t = 0;\n"
          "for (int i = 0; i < n; i++)\n    t += ratio(1000, d[i]);\n\x01printf(\"%ld\\n\", t);", "clean", "zero");
}

/* A loop cell that ends before its compile does (it kept nothing, so its
 * nodes go): the compile goes on, and the same cell run again takes it
 * over, or its code from the cache; the loop is compiled once. */
static void test_compile_outlives_its_cell(void) {
    char dir[] = "/tmp/icuda-slowcc2-XXXXXX", path[64];
    if (!mkdtemp(dir)) return;
    snprintf(path, sizeof path, "%s/cc", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "#!/bin/sh\nsleep 0.3\nexec cc \"$@\"\n");
    fclose(f);
    chmod(path, 0755);
    setenv("ICUDA_HOST_CC", path, 1);
    interp_t *in = interp_new();
    native_set_mode(in, NATIVE_AUTO);
    out_t o = {0};
    cell_io_t io = {&o, io_stream, NULL, NULL, NULL};
    cell_error_t err = {0};
    json_t *v = NULL;
    interp_run(in, "long t = 0; int n = 400;", "In [1]", &io, &v, &err);
    char loop[200]; /* a constant of this run only: nothing cached, its first compile */
    snprintf(loop, sizeof loop, "for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) t += (i ^ j) %% %u;",
             3 + ((unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL)) % 100000);
    int runs = 0;
    long entries = 0;
    while (runs < 400 && !entries) { /* each run ~10 ms interpreted: the compile ends meanwhile */
        native_stats_t before = native_stats(in);
        interp_run(in, loop, "In [2]", &io, &v, &err);
        entries = native_stats(in).entries - before.entries;
        runs++;
    }
    native_stats_t st = native_stats(in);
    CHECK_MSG(entries > 0, "a compile outliving its cell: the cell run %d times never ran compiled code", runs);
    CHECK_MSG(runs > 1, "a compile outliving its cell: compiled code ran in the cell's first run");
    CHECK_MSG(st.compiles <= 1,
              "a compile outliving its cell: compiled %ld times", st.compiles);
    interp_run(in, "printf(\"%ld\\n\", t);", "In [3]", &io, &v, &err);
    interp_free(in);
    free(o.s);
    unsetenv("ICUDA_HOST_CC");
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {}
}

/* Lets (a local declared in the body with its value) and conditionals in
 * indexes: a stencil's clamped neighbours are proven like i - 1. */
static void test_lets(void) {
    static const char *const grid =
        "int n = 64; double *u = (double *)malloc(n * n * sizeof(double)), *v = (double *)malloc(n * n * sizeof(double));\n"
        "for (int i = 0; i < n * n; i++) { u[i] = (i % 37) * 0.01; v[i] = 0; }\n\x01";
    shape_after("a stencil with clamped edges: its lets proven", grid,
             "for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++) {\n"
             "        int im = i > 0 ? i - 1 : 0, ip = i < n - 1 ? i + 1 : n - 1;\n"
             "        int jm = j > 0 ? j - 1 : 0, jp = j < n - 1 ? j + 1 : n - 1;\n"
             "        v[i * n + j] = 0.25 * (u[im * n + j] + u[ip * n + j] + u[i * n + jm] + u[i * n + jp]);\n    }\n"
             "double s = 0; for (int i = 0; i < n * n; i++) s += v[i] * (i % 7);\nprintf(\"%.17g\\n\", s);", "nest", NULL);
    shape_after("a let one row past the end: the read past the end, at its line", grid,
             "for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++) {\n"
             "        int ip = i + 1;\n        v[i * n + j] = u[ip * n + j];\n    }\n", "", "out-of-bounds read");
}

/* Arithmetic whose operands' types bound it (bytes, chars) has no
 * overflow test; where they do not, it keeps it. */
static void test_static_arithmetic(void) {
    shape("RGB to gray in bytes",
          "int n = 30000; unsigned char *rgb = (unsigned char *)malloc(3 * n), *gray = (unsigned char *)malloc(n);\n"
          "for (int i = 0; i < 3 * n; i++) rgb[i] = (unsigned char)(i * 37);\n"
          "for (int i = 0; i < n; i++) gray[i] = (unsigned char)((77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2]) >> 8);\n"
          "long g = 0; for (int i = 0; i < n; i++) g += gray[i] * (i % 3);\nprintf(\"%ld\\n\", g);", "clean", NULL);
    shape("a char times a large constant still overflows",
          "int n = 3000; char *c = (char *)malloc(n); for (int i = 0; i < n; i++) c[i] = (char)(i % 100);\nlong t = 0;\n"
          "for (int i = 0; i < n; i++) t += c[i] * 30000000;\n", "clean", "overflow");
}

/* A loop whose bound is read from memory (CSR's rows): versioned where
 * the body writes no memory, its entry test kept cheap across rows. */
static void test_bounds_from_memory(void) {
    static const char *const csr =
        "int rows = 500, per = 7; int nnz = rows * per;\n"
        "int *rp = (int *)malloc((rows + 1) * 4), *col = (int *)malloc(nnz * 4);\n"
        "double *val = (double *)malloc(nnz * 8), *x = (double *)malloc(rows * 8), *y = (double *)malloc(rows * 8);\n"
        "for (int i = 0; i <= rows; i++) rp[i] = i * per;\nsrand(2);\n"
        "for (int k = 0; k < nnz; k++) { col[k] = rand() % rows; val[k] = (k % 7) * 0.5; }\n"
        "for (int i = 0; i < rows; i++) { x[i] = (i % 11) * 0.1; y[i] = 0; }\n\x01";
    shape_after("a sparse matrix-vector product: row bounds from memory", csr,
             "for (int i = 0; i < rows; i++) {\n    double s = 0;\n"
             "    for (int k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];\n    y[i] = s;\n}\n"
             "double t = 0; for (int i = 0; i < rows; i++) t += y[i] * (i % 3);\nprintf(\"%.17g\\n\", t);", "clean", NULL);
    shape_after("a row bound past the end of the values: the read past the end", csr,
             "rp[rows] = nnz + 3;\nfor (int i = 0; i < rows; i++) {\n    double s = 0;\n"
             "    for (int k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];\n    y[i] = s;\n}\n", "clean", "out-of-bounds read");
    shape_after("a column index past the end of x", csr,
             "col[nnz - 2] = rows;\nfor (int i = 0; i < rows; i++) {\n    double s = 0;\n"
             "    for (int k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];\n    y[i] = s;\n}\n", "clean", "out-of-bounds read");
    shape("a bound from memory the body writes: not taken as invariant",
          "int *lim = (int *)malloc(2 * 4); lim[0] = 50; int *a = (int *)malloc(100 * 4); long t = 0;\n"
          "for (int i = 0; i < lim[0]; i++) { a[i] = i; if (i == 10) lim[0] = 20; t += i; }\nprintf(\"%ld\\n\", t);", "", NULL);
}

/* A counted loop the tier waits on (not hot yet, or its compile in
 * flight) runs as the interpreter's own counted loop, which asks the tier
 * where it polls the interrupt: as fast as the interpreter alone, and it
 * still switches to compiled code mid-loop, its own or an outer loop's. */
static void test_counted_loops_while_waiting(void) {
    g_sync = false;
    /* constants of this run only: no cached code, which would run at once */
    unsigned salt = 7 + ((unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL)) % 100000;
    static const char *const forms[] = {
        "long t = 0; int n = 6000000;\x01" "for (int i = 0; i < n; i++) t += i %% %u;\x01" "printf(\"%%ld\\n\", t);",
        "long t = 0; int n = 3000;\x01" "for (int i = 0; i < n; i++) {\n    for (int j = 0; j < n; j++) t += (i ^ j) %% %u;\n"
        "    t -= i;\n}\nprintf(\"%%ld\\n\", t);",
        "long t = 0; int n = 3000;\x01" "for (int i = 0; i < n; i++) {\n    for (int j = 0; j < n; j++) { if (j == 2990) break; t += j %% %u; }\n"
        "    if (i == 2500) break;\n}\nprintf(\"%%ld\\n\", t);",
    };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        char cells[512];
        snprintf(cells, sizeof cells, forms[k], salt);
        long e0, e1;
        char *a = run_cells(cells, NATIVE_OFF, &e0), *b = run_cells(cells, NATIVE_AUTO, &e1);
        CHECK_MSG(!strcmp(a, b), "counted loop %zu while waiting: interpreted:\n%s\ntiered:\n%s", k, a, b);
        CHECK_MSG(g_ticks > 0, "counted loop %zu: the interpreter's counted loop never asked the tier", k);
        CHECK_MSG(e1 > 0, "counted loop %zu: never switched to compiled code", k);
        free(a);
        free(b);
    }
    g_sync = true;
}

/* Loops that are not counted (while, do-while, a for of another form) run
 * the same way: the interpreter's own loop, which asks the tier where it
 * polls; the tier compiles the loop when it is hot (here in the
 * foreground) and enters the code at the loop's head from that poll. What
 * the loop does after the switch is compiled: break and continue, an
 * error (its message, line and traceback, the session's variables as the
 * interpreter leaves them), a return from the function the loop is in. */
static void test_other_loops_entered_from_a_poll(void) {
    /* a constant of this run only: no cached code, which would run the
     * loop compiled from its start */
    unsigned salt = 7 + ((unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL)) % 100000;
    static const struct {
        const char *title, *cells, *must;
    } forms[] = {
        {"a while loop with continue and break",
         "long t = 0, i = 0;\x01" "while (1) {\n    i++;\n    if (i %% 7 == 3) continue;\n    if (i > 400000) break;\n"
         "    t += i %% %u;\n}\nprintf(\"%%ld %%ld\\n\", t, i);", NULL},
        {"a do-while loop with continue (to its test)",
         "long t = 0, i = 0;\x01" "do {\n    i++;\n    if (i %% 5 == 0) continue;\n    t += i %% %u;\n} while (i < 400000);\n"
         "printf(\"%%ld %%ld\\n\", t, i);", NULL},
        {"a for loop that is not counted (a step of 3)",
         "long t = 0; long i;\x01" "for (i = 1; i < 1200000; i += 3) t += i %% %u;\nprintf(\"%%ld %%ld\\n\", t, i);", NULL},
        {"a signed overflow in a while loop after the switch: its line, the variables as interpreted",
         "int x = 2147483647 - 300000; long k = 0, t = 0;\x01"
         "while (k < 1000000) {\n    t += k %% %u;\n    x++;\n    k++;\n}\x01" "printf(\"%%d %%ld %%ld\\n\", x, k, t);",
         "overflow"},
        {"an out-of-bounds write in a while loop after the switch",
         "int n = 250000; int *a = (int *)malloc(n * sizeof(int)); long j = 0;\x01"
         "while (j < n + 1000) {\n    a[j] = (int)(j %% %u);\n    j++;\n}\x01" "printf(\"%%ld %%d\\n\", j, a[n - 1]);",
         "out-of-bounds write"},
        {"a division by zero in a do-while loop after the switch",
         "long k = 0, t = 0;\x01" "do {\n    t += 1000000 / (250000 - k) + k %% %u;\n    k++;\n} while (k < 400000);\x01"
         "printf(\"%%ld %%ld\\n\", k, t);", "zero"},
        {"a while loop left by return inside a function",
         "int n = 500000; int *a = (int *)malloc(n * sizeof(int));\nfor (int i = 0; i < n; i++) a[i] = i %% 1000;\n"
         "a[350000] = -1;\x01" "long find(const int *p, long m, int v) {\n    long i = 0;\n"
         "    while (i < m) {\n        if (p[i] == v && i != %u) return i;\n        i++;\n    }\n    return -1;\n}\x01"
         "printf(\"%%ld %%ld\\n\", find(a, n, a[350000]), find(a, n, -2));", NULL},
        {"a do-while loop left by return inside a function, and its error's traceback",
         "long walk(long m, long z) {\n    long i = 0, t = 0;\n    do {\n        t += i %% (i < z ? 7 : 0);\n"
         "        if (i == 300000 + %u) return t;\n        i++;\n    } while (i < m);\n    return -t;\n}\x01"
         "printf(\"%%ld\\n\", walk(3000000, 1L << 40));\x01" "printf(\"%%ld\\n\", walk(3000000, 200000));", "zero"},
        {"an inner while entered in its outer loop's code: insertion sort",
         "int n = 3000; int *a = (int *)malloc(n * sizeof(int)); srand(3);\nfor (int i = 0; i < n; i++) a[i] = rand() %% 100000;\x01"
         "for (int i = 1; i < n; i++) {\n    int v = a[i], j = i - 1;\n    while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }\n"
         "    a[j + 1] = v + (i == -%u);\n}\nlong bad = 0; for (int i = 1; i < n; i++) bad += a[i - 1] > a[i];\n"
         "printf(\"%%ld %%d %%d\\n\", bad, a[0], a[n - 1]);", NULL},
        {"a nest whose outer loop got lean code, entered at the outer loop's next poll",
         "int n = 600; int *a = (int *)malloc(n * sizeof(int)); long t = 0;\x01"
         "for (int i = 0; i < n; i++) {\n    for (int j = 0; j < n; j++) t += j %% %u;\n    a[i + 400] = 1;\n}\x01"
         "printf(\"%%ld\\n\", t);", "out-of-bounds write"},
        {"nested while loops, an out-of-bounds read after the switch",
         "int n = 700; int *a = (int *)malloc(n * n * sizeof(int));\nfor (int i = 0; i < n * n; i++) a[i] = i %% 1000;\n"
         "long s = 0; int r = 0;\x01" "while (r <= n) {\n    int c = 0;\n    while (c < n) {\n        s += a[r * n + c] %% %u;\n"
         "        c++;\n    }\n    r++;\n}\x01" "printf(\"%%ld %%d\\n\", s, r);", "out-of-bounds read"},
    };
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        char cells[1024];
        snprintf(cells, sizeof cells, forms[k].cells, salt);
        long e0, e1;
        char *a = run_cells(cells, NATIVE_OFF, &e0), *b = run_cells(cells, NATIVE_AUTO, &e1);
        CHECK_MSG(!strcmp(a, b), "%s: interpreted:\n%s\ntiered:\n%s", forms[k].title, a, b);
        CHECK_MSG(g_ticks > 0, "%s: the interpreter's loop never asked the tier", forms[k].title);
        CHECK_MSG(e1 > 0, "%s: never switched to compiled code", forms[k].title);
        CHECK_MSG(g_failures == 0, "%s: the C compiler refused %ld generated units", forms[k].title, g_failures);
        if (forms[k].must) CHECK_MSG(strstr(b, forms[k].must) != NULL, "%s: no '%s' in:\n%s", forms[k].title, forms[k].must, b);
        if (getenv("SHAPE_SHOW")) fprintf(stderr, "%s: %ld entries, %ld ticks\n%s", forms[k].title, e1, g_ticks, b);
        free(a);
        free(b);
    }
}

int main(void) {
    test_counted_loops_while_waiting();
    test_other_loops_entered_from_a_poll();
    test_bounds_from_memory();
    test_lets();
    test_static_arithmetic();
    test_compile_outlives_its_cell();
    test_data_indexes();
    test_chunks();
    test_accumulators();
    test_switches();
    test_struct_copies();
    test_pointer_differences();
    test_helpers();
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    return check_failed ? 1 : 0;
}
