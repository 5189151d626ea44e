/* An out-of-bounds write in each kind of loop CPU reference code is made
 * of (the kinds of bench/host_kinds.c: histograms, scatters, prefix sums,
 * convolutions, helpers, byte scans, sorting, transposes, sparse products,
 * parsing, stencils, struct reductions, ...): the output buffer one
 * element short, or an index one past the end. With the native tier
 * forced on, each program must print what the interpreter prints and fail
 * with the same error, message and traceback: the out-of-bounds write at
 * its line, the session's variables as they were. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_run.h"

typedef struct {
    const char *kind, *cells;
} kind_t;

/* Cells are separated by \x01; the last cell's loop writes past the end. */
static const kind_t kinds[] = {
    {"histogram h[d[i]]++ into 255 bins",
     "int n = 20000; unsigned char *d = (unsigned char *)malloc(n);\n"
     "for (int i = 0; i < n; i++) d[i] = (unsigned char)((unsigned)i * 2654435761u >> 24);\n"
     "int *h = (int *)calloc(255, sizeof(int)); long seen = 0;\n\x01"
     "for (int i = 0; i < n; i++) { seen++; h[d[i]]++; }\n\x01printf(\"%ld %d\\n\", seen, h[3]);"},
    {"scatter-add through an index one past the end",
     "int n = 20000; int *idx = (int *)malloc(n * sizeof(int)); float *x = (float *)malloc(n * 4), *y = (float *)calloc(n, 4);\n"
     "for (int i = 0; i < n; i++) { idx[i] = (i * 7919) % n; x[i] = i % 5; }\nidx[n - 100] = n;\n\x01"
     "for (int i = 0; i < n; i++) y[idx[i]] += x[i];\n\x01printf(\"%g\\n\", y[7]);"},
    {"prefix sum into a buffer one short",
     "int n = 20000; float *x = (float *)malloc(n * 4), *p = (float *)malloc((n - 1) * 4);\n"
     "for (int i = 0; i < n; i++) x[i] = (i % 10) * 0.1f;\np[0] = x[0];\n\x01"
     "for (int i = 1; i < n; i++) p[i] = p[i - 1] + x[i];\n\x01printf(\"%g\\n\", p[5]);"},
    {"3x3 convolution, the output one row short",
     "int W = 200, H = 120; float *img = (float *)malloc(W * H * 4), *res = (float *)malloc(W * (H - 1) * 4);\n"
     "float kf[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};\nfor (int i = 0; i < W * H; i++) img[i] = i % 17;\n\x01"
     "for (int y = 1; y < H - 1; y++)\n    for (int x = 1; x < W - 1; x++) {\n        float s = 0;\n"
     "        for (int dy = -1; dy <= 1; dy++)\n            for (int dx = -1; dx <= 1; dx++)\n"
     "                s += kf[(dy + 1) * 3 + dx + 1] * img[(y + dy) * W + x + dx];\n"
     "        res[(y + 1) * W + x] = s;\n    }\n"},
    {"a helper's result stored one past the end",
     "static inline float lerp(float a, float b, float t) { return a + t * (b - a); }\n\x01"
     "int n = 20000; float *x = (float *)malloc(n * 4), *o = (float *)malloc((n - 1) * 4);\n"
     "for (int i = 0; i < n; i++) x[i] = i % 7;\n\x01"
     "for (int i = 0; i < n; i++) o[i] = lerp(x[i], 1.0f, 0.25f);\n"},
    {"positions of a character into a buffer too short",
     "long n = 50000; char *s = (char *)malloc(n); const char *txt = \"the quick brown fox jumps over the lazy dog \";\n"
     "for (long i = 0; i < n; i++) s[i] = txt[i % 44];\nint *pos = (int *)malloc(3000 * sizeof(int)); int cnt = 0;\n\x01"
     "for (long i = 0; i < n; i++) if (s[i] == 'e') pos[cnt++] = (int)i;\n\x01printf(\"%d\\n\", cnt);"},
    {"insertion sort whose shift runs one past the end",
     "int n = 3000; int *a = (int *)malloc(n * sizeof(int)); srand(11);\n"
     "for (int i = 0; i < n; i++) a[i] = rand() % 100000;\n\x01"
     "for (int i = 1; i <= n; i++) {\n    int v = i < n ? a[i] : -1, j = i - 1;\n"
     "    while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }\n    a[j + 1] = v;\n}\n"},
    {"bubble pass one past the end",
     "int n = 800; int *a = (int *)malloc(n * sizeof(int)); srand(17);\nfor (int i = 0; i < n; i++) a[i] = rand() % 1000;\n\x01"
     "for (int i = 0; i < n - 1; i++)\n    for (int j = 0; j < n - i; j++)\n"
     "        if (j + 1 < n && a[j] > a[j + 1]) { int t = a[j]; a[j] = a[j + 1]; a[j + 1] = t; }\n"
     "        else a[j + 1] = a[j];\n"},
    {"transpose into a matrix one row short",
     "int n = 150; float *m = (float *)malloc(n * n * 4), *t = (float *)malloc(n * (n - 1) * 4);\n"
     "for (int i = 0; i < n * n; i++) m[i] = i % 29;\n\x01"
     "for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)\n        t[j * n + i] = m[i * n + j];\n"},
    {"sparse matrix-vector product into a vector one short",
     "int rows = 600, per = 5; int nnz = rows * per;\n"
     "int *rp = (int *)malloc((rows + 1) * 4), *col = (int *)malloc(nnz * 4);\n"
     "double *val = (double *)malloc(nnz * 8), *x = (double *)malloc(rows * 8), *y = (double *)malloc((rows - 1) * 8);\n"
     "for (int i = 0; i <= rows; i++) rp[i] = i * per;\nsrand(2);\n"
     "for (int k = 0; k < nnz; k++) { col[k] = rand() % rows; val[k] = k % 7; }\nfor (int i = 0; i < rows; i++) x[i] = i % 11;\n\x01"
     "for (int i = 0; i < rows; i++) {\n    double s = 0;\n"
     "    for (int k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];\n    y[i] = s;\n}\n"},
    {"parsing numbers into an array too short",
     "int n = 30000; char *buf = (char *)malloc(n + 1);\n"
     "for (int i = 0; i < n; i++) buf[i] = (i % 7 == 6) ? ' ' : (char)('0' + (i * 7) % 10);\nbuf[n] = 0;\n"
     "int *vals = (int *)malloc(4000 * sizeof(int)); int nv = 0;\n\x01"
     "{ int v = 0;\n  for (int i = 0; i < n; i++) {\n    char c = buf[i];\n"
     "    if (c >= '0' && c <= '9') v = v * 10 + (c - '0');\n    else { vals[nv++] = v; v = 0; }\n  } }\n"
     "\x01printf(\"%d\\n\", nv);"},
    {"parsing through a moving pointer into an array too short",
     "int n = 30000; char *buf = (char *)malloc(n + 1);\n"
     "for (int i = 0; i < n; i++) buf[i] = (i % 7 == 6) ? ',' : (char)('0' + (i * 3) % 10);\nbuf[n] = 0;\n"
     "int *vals = (int *)malloc(4000 * sizeof(int)); int nv = 0;\n\x01"
     "for (char *p = buf; *p; ) {\n    int v = 0;\n"
     "    while (*p >= '0' && *p <= '9') { v = v * 10 + (*p - '0'); p++; }\n    vals[nv++] = v;\n    if (*p) p++;\n}\n"
     "\x01printf(\"%d\\n\", nv);"},
    {"2-D stencil with clamped edges, a clamp one past the last row",
     "int n = 100; double *u = (double *)malloc(n * n * 8), *v = (double *)malloc(n * n * 8);\n"
     "for (int i = 0; i < n * n; i++) { u[i] = (i % 37) * 0.01; v[i] = 0; }\n\x01"
     "for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++) {\n"
     "        int im = i > 0 ? i - 1 : 0, ip = i < n - 1 ? i + 1 : n;\n"
     "        v[ip * n + j] = 0.5 * (u[im * n + j] + u[i * n + j]);\n    }\n"},
    {"array of structs: a field written one past the end",
     "typedef struct { float x, y, z, m; } body_t;\n\x01"
     "int n = 20000; body_t *b = (body_t *)malloc((n - 1) * sizeof(body_t)); double mt = 0;\n"
     "for (int i = 0; i < n - 1; i++) { b[i].x = i % 13; b[i].m = i % 3 + 1; }\n\x01"
     "for (int i = 0; i < n; i++) { mt += b[i > 0 ? i - 1 : 0].m; b[i].m = 1; }\n\x01printf(\"%.1f\\n\", mt);"},
    {"matrix multiply, C one row short",
     "int n = 64; double *A = (double *)malloc(n * n * 8), *B = (double *)malloc(n * n * 8), *C = (double *)calloc(n * (n - 1), 8);\n"
     "for (int i = 0; i < n * n; i++) { A[i] = i % 9; B[i] = i % 4; }\n\x01"
     "for (int i = 0; i < n; i++)\n    for (int k = 0; k < n; k++) {\n        double a = A[i * n + k];\n"
     "        for (int j = 0; j < n; j++) C[i * n + j] += a * B[k * n + j];\n    }\n"},
    {"saxpy into a vector one short",
     "int n = 20000; float *x = (float *)malloc(n * 4), *y = (float *)malloc((n - 1) * 4);\n"
     "for (int i = 0; i < n; i++) x[i] = i % 5;\nfor (int i = 0; i < n - 1; i++) y[i] = 1;\nfloat a = 0.5f;\n\x01"
     "for (int i = 0; i < n; i++) y[i] = a * x[i] + (i < n - 1 ? y[i] : 0);\n"},
    {"sieve marking one past the end",
     "int n = 20000; char *comp = (char *)calloc(n, 1);\n\x01"
     "for (int i = 2; (long)i * i <= n; i++)\n    if (!comp[i]) for (int j = i * i; j <= n; j += i) comp[j] = 1;\n"},
    {"RGB to gray into a buffer one short",
     "int n = 20000; unsigned char *rgb = (unsigned char *)malloc(3 * n), *gray = (unsigned char *)malloc(n - 1);\n"
     "for (int i = 0; i < 3 * n; i++) rgb[i] = (unsigned char)(i * 37);\n\x01"
     "for (int i = 0; i < n; i++)\n"
     "    gray[i] = (unsigned char)((77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2]) >> 8);\n"},
    {"Mandelbrot into an image one row short",
     "int W = 64, H = 48; int *out = (int *)malloc(W * (H - 1) * sizeof(int));\n\x01"
     "for (int py = 0; py < H; py++)\n    for (int px = 0; px < W; px++) {\n"
     "        double cr = -2.0 + px * (3.0 / W), ci = -1.5 + py * (3.0 / H), zr = 0, zi = 0;\n        int k = 0;\n"
     "        while (k < 32 && zr * zr + zi * zi < 4.0) { double t = zr * zr - zi * zi + cr; zi = 2 * zr * zi + ci; zr = t; k++; }\n"
     "        out[py * W + px] = k;\n    }\n"},
    {"box blur by running sums, the last row past the end",
     "int W = 300, H = 80, R = 4; float *src = (float *)malloc(W * H * 4), *dst = (float *)malloc(W * (H - 1) * 4);\n"
     "for (int i = 0; i < W * H; i++) src[i] = (i % 31) * 0.5f;\n\x01"
     "for (int y = 0; y < H; y++) {\n    float s = 0;\n    for (int x = 0; x < 2 * R + 1; x++) s += src[y * W + x];\n"
     "    for (int x = R; x < W - R - 1; x++) {\n        dst[y * W + x] = s / (2 * R + 1);\n"
     "        s += src[y * W + x + R + 1] - src[y * W + x - R];\n    }\n}\n"},
    {"a dynamic-programming table one cell short",
     "int n = 120; char *sa = (char *)malloc(n), *sb = (char *)malloc(n);\n"
     "for (int i = 0; i < n; i++) { sa[i] = (char)('a' + (i * 7) % 5); sb[i] = (char)('a' + (i * 3) % 5); }\n"
     "int *dp = (int *)calloc((n + 1) * (n + 1) - 1, sizeof(int));\n\x01"
     "for (int i = 1; i <= n; i++)\n    for (int j = 1; j <= n; j++) {\n"
     "        int up = dp[(i - 1) * (n + 1) + j], left = dp[i * (n + 1) + j - 1];\n"
     "        dp[i * (n + 1) + j] = sa[i - 1] == sb[j - 1] ? dp[(i - 1) * (n + 1) + j - 1] + 1 : (up > left ? up : left);\n"
     "    }\n"},
};

int main(void) {
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        long e0, e1;
        char *a = run_cells(kinds[k].cells, NATIVE_OFF, &e0), *b = run_cells(kinds[k].cells, NATIVE_ALWAYS, &e1);
        CHECK_MSG(!strcmp(a, b), "%s: interpreted:\n%s\ncompiled:\n%s", kinds[k].kind, a, b);
        CHECK_MSG(e1 > 0, "%s: nothing was compiled", kinds[k].kind);
        CHECK_MSG(g_failures == 0, "%s: the C compiler refused %ld generated units", kinds[k].kind, g_failures);
        CHECK_MSG(strstr(b, "out-of-bounds write") != NULL, "%s: no out-of-bounds write in:\n%s", kinds[k].kind, b);
        if (getenv("SHAPE_SHOW")) fprintf(stderr, "%s: clean %ld nests %ld\n%s", kinds[k].kind, g_clean_runs - g_nest_runs, g_nest_runs, b);
        free(a);
        free(b);
    }
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    return check_failed ? 1 : 0;
}
