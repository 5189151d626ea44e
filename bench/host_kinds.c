/* Host loops of the kinds CPU reference code in CUDA notebooks is made of
 * (docs/performance.md "Host loops of every kind"): each runs as a cell in
 * a fresh interpreter with the native tier on, and as the same C built with
 * gcc -O2, in the same run; the figures are medians of several runs, the
 * compiled code's from its second run on (the first one compiles).
 * Usage: build/bench/host_kinds [runs] [name filter]   (make bench-kinds)
 * HOST_KINDS_INTERP=1 adds the interpreter's time (the tier off);
 * HOST_KINDS_WAIT=1 times the loops while their compile is in flight. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_harness.h"

static const bench_t benches[] = {
    {"histogram h[d[i]]++", NULL,
     "int N = 1 << 24;\n"
     "unsigned char *d = (unsigned char *)malloc(N);\n"
     "for (int i = 0; i < N; i++) d[i] = (unsigned char)((unsigned)i * 2654435761u >> 24);\n"
     "int *h = (int *)calloc(256, sizeof(int));\n",
     "for (int i = 0; i < N; i++) h[d[i]]++;\n",
     "long hs = 0;\nfor (int i = 0; i < 256; i++) hs += (long)h[i] * i;\nprintf(\"%ld\\n\", hs);\n"},
    {"scatter-add y[idx[i]] += x[i]", NULL,
     "int N = 1 << 22;\n"
     "int *idx = (int *)malloc(N * sizeof(int));\n"
     "float *x = (float *)malloc(N * sizeof(float)), *y = (float *)malloc(N * sizeof(float));\n"
     "srand(7);\n"
     "for (int i = 0; i < N; i++) { idx[i] = rand() % N; x[i] = (i % 100) * 0.01f; y[i] = 0; }\n",
     "for (int i = 0; i < N; i++) y[idx[i]] += x[i];\n",
     "double ys = 0;\nfor (int i = 0; i < N; i++) ys += y[i];\nprintf(\"%.3f\\n\", ys);\n"},
    {"prefix sum p[i] = p[i-1] + x[i]", NULL,
     "int N = 1 << 24;\n"
     "float *x = (float *)malloc(N * sizeof(float)), *p = (float *)malloc(N * sizeof(float));\n"
     "for (int i = 0; i < N; i++) { x[i] = (i % 10) * 0.1f; p[i] = 0; }\n",
     "p[0] = x[0];\nfor (int i = 1; i < N; i++) p[i] = p[i - 1] + x[i];\n",
     "printf(\"%.3f %.3f\\n\", p[N / 2], p[N - 1]);\n"},
    {"conv 3x3, local filter", 
     "void conv3(const float *in, float *out, int w, int h) {\n"
     "    float k[3][3] = {{0.0625f, 0.125f, 0.0625f}, {0.125f, 0.25f, 0.125f}, {0.0625f, 0.125f, 0.0625f}};\n"
     "    for (int y = 1; y < h - 1; y++)\n"
     "        for (int x = 1; x < w - 1; x++) {\n"
     "            float s = 0;\n"
     "            for (int dy = 0; dy < 3; dy++)\n"
     "                for (int dx = 0; dx < 3; dx++)\n"
     "                    s += k[dy][dx] * in[(y + dy - 1) * w + x + dx - 1];\n"
     "            out[y * w + x] = s;\n"
     "        }\n"
     "}\n",
     "int W = 2048, H = 2048;\n"
     "float *img = (float *)malloc(W * H * sizeof(float)), *res = (float *)malloc(W * H * sizeof(float));\n"
     "for (int i = 0; i < W * H; i++) { img[i] = (i % 17) * 0.5f; res[i] = 0; }\n",
     "conv3(img, res, W, H);\n",
     "double rs = 0;\nfor (int i = 0; i < W * H; i++) rs += res[i];\nprintf(\"%.3f\\n\", rs);\n"},
    {"helper call, double sum",
     "static inline float lerp(float a, float b, float t) { return a + t * (b - a); }\n",
     "int N = 1 << 22;\n"
     "float *x = (float *)malloc(N * sizeof(float)), *y = (float *)malloc(N * sizeof(float));\n"
     "for (int i = 0; i < N; i++) { x[i] = (i % 7) * 0.5f; y[i] = (i % 11) * 0.25f; }\n"
     "double acc = 0;\n",
     "acc = 0;\nfor (int i = 0; i < N; i++) acc += lerp(x[i], y[i], 0.25f);\n",
     "printf(\"%.3f\\n\", acc);\n"},
    {"count a char in 64 MB", NULL,
     "long n = 1L << 26;\n"
     "char *s = (char *)malloc(n);\n"
     "const char *txt = \"the quick brown fox jumps over the lazy dog \";\n"
     "for (long i = 0; i < n; i++) s[i] = txt[i % 44];\n"
     "int cnt = 0;\n",
     "cnt = 0;\nfor (long i = 0; i < n; i++) if (s[i] == 'e') cnt++;\n",
     "printf(\"%d\\n\", cnt);\n"},
    /* ---- the broader suite: loops of CPU reference code ---- */
    {"histogram into a session array", NULL,
     "int N = 1 << 24;\n"
     "unsigned char *d = (unsigned char *)malloc(N);\n"
     "for (int i = 0; i < N; i++) d[i] = (unsigned char)((unsigned)i * 2246822519u >> 24);\n"
     "int hist[256];\n",
     "for (int i = 0; i < 256; i++) hist[i] = 0;\nfor (int i = 0; i < N; i++) hist[d[i]]++;\n",
     "long hs = 0;\nfor (int i = 0; i < 256; i++) hs += (long)hist[i] * (i + 1);\nprintf(\"%ld\\n\", hs);\n"},
    {"prefix sum of ints into longs", NULL,
     "int N = 1 << 24;\n"
     "int *x = (int *)malloc(N * sizeof(int));\nlong *p = (long *)malloc(N * sizeof(long));\n"
     "for (int i = 0; i < N; i++) { x[i] = (i % 1000) - 400; p[i] = 0; }\n",
     "p[0] = x[0];\nfor (int i = 1; i < N; i++) p[i] = p[i - 1] + x[i];\n",
     "printf(\"%ld %ld\\n\", p[N / 3], p[N - 1]);\n"},
    {"conv 3x3 in a cell, session filter", NULL,
     "int W = 2048, H = 2048;\n"
     "float *img = (float *)malloc(W * H * sizeof(float)), *res = (float *)malloc(W * H * sizeof(float));\n"
     "for (int i = 0; i < W * H; i++) { img[i] = (i % 23) * 0.25f; res[i] = 0; }\n"
     "float kf[9] = {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f, 0.125f, 0.0625f, 0.125f, 0.0625f};\n",
     "for (int y = 1; y < H - 1; y++)\n"
     "    for (int x = 1; x < W - 1; x++) {\n"
     "        float s = 0;\n"
     "        for (int dy = -1; dy <= 1; dy++)\n"
     "            for (int dx = -1; dx <= 1; dx++)\n"
     "                s += kf[(dy + 1) * 3 + dx + 1] * img[(y + dy) * W + x + dx];\n"
     "        res[y * W + x] = s;\n"
     "    }\n",
     "double rs = 0;\nfor (int i = 0; i < W * H; i++) rs += res[i];\nprintf(\"%.3f\\n\", rs);\n"},
    {"helper reading through a pointer",
     "static inline float at(const float *a, int w, int x, int y) { return a[y * w + x]; }\n",
     "int W = 1024, H = 1024;\n"
     "float *img = (float *)malloc(W * H * sizeof(float));\n"
     "for (int i = 0; i < W * H; i++) img[i] = (i % 19) * 0.5f;\n"
     "double tot = 0;\n",
     "tot = 0;\nfor (int y = 0; y < H - 1; y++)\n    for (int x = 0; x < W - 1; x++)\n"
     "        tot += at(img, W, x + 1, y) - at(img, W, x, y + 1);\n",
     "printf(\"%.3f\\n\", tot);\n"},
    {"insertion sort of 20000 ints", NULL,
     "int N = 20000;\nint *a = (int *)malloc(N * sizeof(int)), *src = (int *)malloc(N * sizeof(int));\n"
     "srand(11);\nfor (int i = 0; i < N; i++) { src[i] = rand() % 100000; a[i] = 0; }\n",
     "for (int i = 0; i < N; i++) a[i] = src[i];\n"
     "for (int i = 1; i < N; i++) {\n    int v = a[i], j = i - 1;\n"
     "    while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }\n    a[j + 1] = v;\n}\n",
     "printf(\"%d %d %d\\n\", a[0], a[N / 2], a[N - 1]);\n"},
    {"quicksort of 2^20 ints (recursive)",
     "void qs(int *a, int lo, int hi) {\n"
     "    while (lo < hi) {\n"
     "        int p = a[(lo + hi) / 2], i = lo, j = hi;\n"
     "        while (i <= j) {\n"
     "            while (a[i] < p) i++;\n"
     "            while (a[j] > p) j--;\n"
     "            if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }\n"
     "        }\n"
     "        if (j - lo < hi - i) { qs(a, lo, j); lo = i; } else { qs(a, i, hi); hi = j; }\n"
     "    }\n"
     "}\n",
     "int N = 1 << 20;\nint *a = (int *)malloc(N * sizeof(int)), *src = (int *)malloc(N * sizeof(int));\n"
     "srand(5);\nfor (int i = 0; i < N; i++) { src[i] = rand(); a[i] = 0; }\n",
     "for (int i = 0; i < N; i++) a[i] = src[i];\nqs(a, 0, N - 1);\n",
     "printf(\"%d %d %d\\n\", a[0], a[N / 2], a[N - 1]);\n"},
    {"matrix transpose 2048^2", NULL,
     "int n = 2048;\nfloat *m = (float *)malloc(n * n * sizeof(float)), *t = (float *)malloc(n * n * sizeof(float));\n"
     "for (int i = 0; i < n * n; i++) { m[i] = (i % 29) * 1.5f; t[i] = 0; }\n",
     "for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)\n        t[j * n + i] = m[i * n + j];\n",
     "printf(\"%.1f %.1f\\n\", t[5], t[n * n - 7]);\n"},
    {"sparse matrix-vector, CSR", NULL,
     "int rows = 1 << 18, per = 12;\nint nnz = rows * per;\n"
     "int *rp = (int *)malloc((rows + 1) * sizeof(int)), *col = (int *)malloc(nnz * sizeof(int));\n"
     "double *val = (double *)malloc(nnz * sizeof(double)), *x = (double *)malloc(rows * sizeof(double));\n"
     "double *y = (double *)malloc(rows * sizeof(double));\n"
     "srand(9);\nfor (int i = 0; i <= rows; i++) rp[i] = i * per;\n"
     "for (int k = 0; k < nnz; k++) { col[k] = rand() % rows; val[k] = (k % 7) * 0.5; }\n"
     "for (int i = 0; i < rows; i++) { x[i] = (i % 11) * 0.1; y[i] = 0; }\n",
     "for (int i = 0; i < rows; i++) {\n    double s = 0;\n"
     "    for (int k = rp[i]; k < rp[i + 1]; k++) s += val[k] * x[col[k]];\n    y[i] = s;\n}\n",
     "double ys = 0;\nfor (int i = 0; i < rows; i++) ys += y[i];\nprintf(\"%.3f\\n\", ys);\n"},
    {"atoi over a buffer of numbers", NULL,
     "int n = 1 << 24;\nchar *buf = (char *)malloc(n + 1);\n"
     "for (int i = 0; i < n; i++) buf[i] = (i % 7 == 6) ? ' ' : (char)('0' + (i * 7) % 10);\nbuf[n] = 0;\n"
     "long total = 0;\n",
     "total = 0;\n{ int v = 0;\n  for (int i = 0; i < n; i++) {\n    char c = buf[i];\n"
     "    if (c >= '0' && c <= '9') v = v * 10 + (c - '0');\n    else { total += v; v = 0; }\n  }\n  total += v; }\n",
     "printf(\"%ld\\n\", total);\n"},
    {"atoi through a moving pointer", NULL,
     "int n = 1 << 23;\nchar *buf = (char *)malloc(n + 1);\n"
     "for (int i = 0; i < n; i++) buf[i] = (i % 7 == 6) ? ',' : (char)('0' + (i * 3) % 10);\nbuf[n] = 0;\n"
     "long total = 0;\n",
     "total = 0;\nfor (char *p = buf; *p; ) {\n    int v = 0;\n"
     "    while (*p >= '0' && *p <= '9') { v = v * 10 + (*p - '0'); p++; }\n    total += v;\n    if (*p) p++;\n}\n",
     "printf(\"%ld\\n\", total);\n"},
    {"2-D heat stencil, clamped edges", NULL,
     "int n = 1024;\ndouble *u = (double *)malloc(n * n * sizeof(double)), *v = (double *)malloc(n * n * sizeof(double));\n"
     "for (int i = 0; i < n * n; i++) { u[i] = (i % 37) * 0.01; v[i] = 0; }\n",
     "for (int it = 0; it < 4; it++) {\n"
     "    for (int i = 0; i < n; i++)\n"
     "        for (int j = 0; j < n; j++) {\n"
     "            int im = i > 0 ? i - 1 : 0, ip = i < n - 1 ? i + 1 : n - 1;\n"
     "            int jm = j > 0 ? j - 1 : 0, jp = j < n - 1 ? j + 1 : n - 1;\n"
     "            v[i * n + j] = 0.25 * (u[im * n + j] + u[ip * n + j] + u[i * n + jm] + u[i * n + jp]);\n"
     "        }\n"
     "    double *t = u; u = v; v = t;\n"
     "}\n",
     "double us = 0;\nfor (int i = 0; i < n * n; i++) us += u[i];\nprintf(\"%.6f\\n\", us);\n"},
    {"reduction over an array of structs",
     "typedef struct { float x, y, z, m; } body_t;\n",
     "int N = 1 << 22;\nbody_t *b = (body_t *)malloc(N * sizeof(body_t));\n"
     "for (int i = 0; i < N; i++) { b[i].x = (i % 13) * 0.5f; b[i].y = (i % 7) * 0.25f; b[i].z = 1; b[i].m = (i % 3) + 1; }\n"
     "double cx = 0, cy = 0, mt = 0;\n",
     "cx = 0; cy = 0; mt = 0;\nfor (int i = 0; i < N; i++) { cx += b[i].x * b[i].m; cy += b[i].y * b[i].m; mt += b[i].m; }\n",
     "printf(\"%.3f %.3f %.1f\\n\", cx, cy, mt);\n"},
    {"matrix multiply 384^3 double, ikj", NULL,
     "int n = 384;\ndouble *A = (double *)malloc(n * n * sizeof(double)), *B = (double *)malloc(n * n * sizeof(double));\n"
     "double *C = (double *)malloc(n * n * sizeof(double));\n"
     "for (int i = 0; i < n * n; i++) { A[i] = (i % 9) * 0.5; B[i] = (i % 4) * 0.25; C[i] = 0; }\n",
     "for (int i = 0; i < n * n; i++) C[i] = 0;\n"
     "for (int i = 0; i < n; i++)\n    for (int k = 0; k < n; k++) {\n        double a = A[i * n + k];\n"
     "        for (int j = 0; j < n; j++) C[i * n + j] += a * B[k * n + j];\n    }\n",
     "double s = 0;\nfor (int i = 0; i < n * n; i++) s += C[i];\nprintf(\"%.3f\\n\", s);\n"},
    {"saxpy 2^24", NULL,
     "int N = 1 << 24;\nfloat *x = (float *)malloc(N * sizeof(float)), *y = (float *)malloc(N * sizeof(float));\n"
     "for (int i = 0; i < N; i++) { x[i] = (i % 5) * 0.5f; y[i] = 1; }\nfloat a = 0.5f;\n",
     "for (int i = 0; i < N; i++) y[i] = a * x[i] + y[i];\n",
     "printf(\"%.3f %.3f\\n\", y[3], y[N - 2]);\n"},
    {"arg-max over doubles", NULL,
     "int N = 1 << 24;\ndouble *v = (double *)malloc(N * sizeof(double));\n"
     "for (int i = 0; i < N; i++) v[i] = (int)(((unsigned)i * 7919u) % 100003u) * 0.001;\nint best = 0;\n",
     "best = 0;\nfor (int i = 1; i < N; i++) if (v[i] > v[best]) best = i;\n",
     "printf(\"%d\\n\", best);\n"},
    {"sieve of Eratosthenes 2^24", NULL,
     "int N = 1 << 24;\nchar *comp = (char *)malloc(N + 1);\nfor (int i = 0; i <= N; i++) comp[i] = 1;\n",
     "for (int i = 0; i <= N; i++) comp[i] = 0;\n"
     "for (int i = 2; (long)i * i <= N; i++)\n    if (!comp[i]) for (int j = i * i; j <= N; j += i) comp[j] = 1;\n",
     "int np = 0;\nfor (int i = 2; i <= N; i++) np += !comp[i];\nprintf(\"%d\\n\", np);\n"},
    {"RGB to gray, bytes", NULL,
     "int N = 1 << 22;\nunsigned char *rgb = (unsigned char *)malloc(3 * N), *gray = (unsigned char *)malloc(N);\n"
     "for (int i = 0; i < 3 * N; i++) rgb[i] = (unsigned char)(i * 37);\nfor (int i = 0; i < N; i++) gray[i] = 0;\n",
     "for (int i = 0; i < N; i++)\n"
     "    gray[i] = (unsigned char)((77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2]) >> 8);\n",
     "long gs = 0;\nfor (int i = 0; i < N; i++) gs += gray[i];\nprintf(\"%ld\\n\", gs);\n"},
    {"Mandelbrot 512^2, 64 iterations", NULL,
     "int W = 512, H = 512;\nint *out = (int *)malloc(W * H * sizeof(int));\nfor (int i = 0; i < W * H; i++) out[i] = 0;\n",
     "for (int py = 0; py < H; py++)\n    for (int px = 0; px < W; px++) {\n"
     "        double cr = -2.0 + px * (3.0 / W), ci = -1.5 + py * (3.0 / H), zr = 0, zi = 0;\n"
     "        int k = 0;\n        while (k < 64 && zr * zr + zi * zi < 4.0) {\n"
     "            double t = zr * zr - zi * zi + cr;\n            zi = 2 * zr * zi + ci;\n            zr = t;\n            k++;\n        }\n"
     "        out[py * W + px] = k;\n    }\n",
     "long ms = 0;\nfor (int i = 0; i < W * H; i++) ms += out[i];\nprintf(\"%ld\\n\", ms);\n"},
    {"n-body forces, 1024 bodies", NULL,
     "int N = 1024;\nfloat *px = (float *)malloc(N * sizeof(float)), *py = (float *)malloc(N * sizeof(float));\n"
     "float *fx = (float *)malloc(N * sizeof(float)), *fy = (float *)malloc(N * sizeof(float));\n"
     "for (int i = 0; i < N; i++) { px[i] = (i % 32) * 1.0f; py[i] = (i / 32) * 1.0f; fx[i] = fy[i] = 0; }\n",
     "for (int i = 0; i < N; i++) {\n    float ax = 0, ay = 0;\n    for (int j = 0; j < N; j++) {\n"
     "        float dx = px[j] - px[i], dy = py[j] - py[i];\n        float r2 = dx * dx + dy * dy + 0.01f;\n"
     "        float inv = 1.0f / (r2 * sqrtf(r2));\n        ax += dx * inv;\n        ay += dy * inv;\n    }\n"
     "    fx[i] = ax;\n    fy[i] = ay;\n}\n",
     "printf(\"%.4f %.4f\\n\", fx[5], fy[N - 3]);\n"},
    {"box blur by running sums, rows", NULL,
     "int W = 2048, H = 1024, R = 4;\nfloat *src = (float *)malloc(W * H * sizeof(float)), *dst = (float *)malloc(W * H * sizeof(float));\n"
     "for (int i = 0; i < W * H; i++) { src[i] = (i % 31) * 0.5f; dst[i] = 0; }\n",
     "for (int y = 0; y < H; y++) {\n    float s = 0;\n    for (int x = 0; x < 2 * R + 1; x++) s += src[y * W + x];\n"
     "    for (int x = R; x < W - R - 1; x++) {\n        dst[y * W + x] = s / (2 * R + 1);\n"
     "        s += src[y * W + x + R + 1] - src[y * W + x - R];\n    }\n}\n",
     "double bs = 0;\nfor (int i = 0; i < W * H; i++) bs += dst[i];\nprintf(\"%.2f\\n\", bs);\n"},
    {"longest common subsequence, DP table", NULL,
     "int n = 2000;\nchar *sa = (char *)malloc(n), *sb = (char *)malloc(n);\n"
     "for (int i = 0; i < n; i++) { sa[i] = (char)('a' + (i * 7) % 5); sb[i] = (char)('a' + (i * 3) % 5); }\n"
     "int *dp = (int *)malloc((n + 1) * (n + 1) * sizeof(int));\nfor (int i = 0; i < (n + 1) * (n + 1); i++) dp[i] = 0;\n",
     "for (int i = 0; i <= n; i++) { dp[i * (n + 1)] = 0; dp[i] = 0; }\n"
     "for (int i = 1; i <= n; i++)\n    for (int j = 1; j <= n; j++) {\n"
     "        int up = dp[(i - 1) * (n + 1) + j], left = dp[i * (n + 1) + j - 1];\n"
     "        dp[i * (n + 1) + j] = sa[i - 1] == sb[j - 1] ? dp[(i - 1) * (n + 1) + j - 1] + 1 : (up > left ? up : left);\n"
     "    }\n",
     "printf(\"%d\\n\", dp[n * (n + 1) + n]);\n"},
    {"selection of the k smallest: bubble pass", NULL,
     "int N = 4000;\nint *a = (int *)malloc(N * sizeof(int)), *src = (int *)malloc(N * sizeof(int));\n"
     "srand(17);\nfor (int i = 0; i < N; i++) { src[i] = rand() % 1000000; a[i] = 0; }\n",
     "for (int i = 0; i < N; i++) a[i] = src[i];\n"
     "for (int i = 0; i < N - 1; i++)\n    for (int j = 0; j < N - 1 - i; j++)\n"
     "        if (a[j] > a[j + 1]) { int t = a[j]; a[j] = a[j + 1]; a[j + 1] = t; }\n",
     "printf(\"%d %d %d\\n\", a[0], a[N / 2], a[N - 1]);\n"},
    {"walk a linked list", "struct lnode { long v; struct lnode *next; };\n",
     "int N = 1 << 23;\nstruct lnode *nodes = (struct lnode *)malloc(N * sizeof(struct lnode));\n"
     "for (int i = 0; i < N; i++) { nodes[i].v = (i * 7) % 1000; nodes[i].next = i + 1 < N ? &nodes[i + 1] : NULL; }\n"
     "long ls = 0;\n",
     "ls = 0;\n{ struct lnode *q = nodes;\n  while (q) { ls += q->v; q = q->next; } }\n",
     "printf(\"%ld\\n\", ls);\n"},
    {"Collatz steps, do-while", NULL,
     "int N = 1 << 17;\nlong steps = 0;\n",
     "steps = 0;\nfor (long s = 1; s < N; s++) {\n    long x = s;\n"
     "    do { x = (x & 1) ? 3 * x + 1 : x / 2; steps++; } while (x > 1);\n}\n",
     "printf(\"%ld\\n\", steps);\n"},
    {"vector lengths with sqrt", NULL,
     "int N = 1 << 22;\nfloat *vx = (float *)malloc(N * sizeof(float)), *vy = (float *)malloc(N * sizeof(float));\n"
     "float *len = (float *)malloc(N * sizeof(float));\n"
     "for (int i = 0; i < N; i++) { vx[i] = (i % 17) * 0.5f; vy[i] = (i % 5) * 1.5f; len[i] = 0; }\n",
     "for (int i = 0; i < N; i++) len[i] = sqrtf(vx[i] * vx[i] + vy[i] * vy[i]);\n",
     "double ls = 0;\nfor (int i = 0; i < N; i++) ls += len[i];\nprintf(\"%.2f\\n\", ls);\n"},
    {"copy records (struct assignment), reversed",
     "struct rec { int key; float w; char tag[12]; };\n",
     "int N = 1 << 21;\n"
     "struct rec *r = (struct rec *)malloc(N * sizeof(struct rec)), *out = (struct rec *)malloc(N * sizeof(struct rec));\n"
     "for (int i = 0; i < N; i++) { r[i].key = i % 1009; r[i].w = i * 0.5f; r[i].tag[0] = (char)('a' + i % 26); out[i].key = 0; }\n",
     "for (int i = 0; i < N; i++) out[i] = r[N - 1 - i];\n",
     "long ks = 0;\nfor (int i = 0; i < N; i++) ks += out[i].key + out[i].tag[0];\nprintf(\"%ld\\n\", ks);\n"},
    {"word lengths by pointer differences", NULL,
     "long n = 1L << 24;\nchar *s = (char *)malloc(n + 1);\n"
     "const char *w = \"alpha be gamma delta  x \";\n"
     "for (long i = 0; i < n; i++) s[i] = w[i % 24];\ns[n] = 0;\n"
     "long words = 0, total = 0, longest = 0;\n",
     "words = total = longest = 0;\nchar *p = s;\n"
     "while (*p) {\n"
     "    while (*p == ' ') p++;\n"
     "    char *start = p;\n"
     "    while (*p && *p != ' ') p++;\n"
     "    long len = p - start;\n"
     "    if (len) { words++; total += len; if (len > longest) longest = len; }\n"
     "}\n",
     "printf(\"%ld %ld %ld\\n\", words, total, longest);\n"},
    {"classify bytes with a switch", NULL,
     "long n = 1L << 24;\nchar *s = (char *)malloc(n);\n"
     "const char *txt = \"int x1 = 42; /* y */ z += 7;\\n\";\n"
     "for (long i = 0; i < n; i++) s[i] = txt[i % 30];\n"
     "int digits = 0, spaces = 0, punct = 0, lines = 0, other = 0;\n",
     "digits = spaces = punct = lines = other = 0;\n"
     "for (long i = 0; i < n; i++) {\n"
     "    switch (s[i]) {\n"
     "    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9': digits++; break;\n"
     "    case ' ': spaces++; break;\n"
     "    case '\\n': lines++; break;\n"
     "    case ';': case '=': case '+': case '*': case '/': punct++; break;\n"
     "    default: other++;\n"
     "    }\n"
     "}\n",
     "printf(\"%d %d %d %d %d\\n\", digits, spaces, punct, lines, other);\n"},
};
enum { NB = sizeof benches / sizeof benches[0] };

/* HOST_KINDS_WAIT=1: each loop in a session with the tier off and in one
 * with the tier on whose compile never ends (ICUDA_HOST_CC a compiler that
 * only sleeps), their runs alternating, in the cell's thread CPU time:
 * what a loop costs while its compile is in flight, against the
 * interpreter alone, each the least of its runs (the least disturbed) */
static void wait_table(int runs, const char *filter) {
    printf("%d runs of each, alternating; thread CPU time, seconds: least (median)\n", runs);
    printf("%-34s %17s %17s %7s\n", "loop", "interp", "compile in flight", "ratio");
    double *ti = malloc(sizeof *ti * (size_t)runs), *tw = malloc(sizeof *tw * (size_t)runs);
    for (int i = 0; i < NB; i++) {
        const bench_t *b = &benches[i];
        if (filter && !strstr(b->name, filter)) continue;
        bench_session_t *off = bench_session_new(b, NATIVE_OFF), *on = bench_session_new(b, NATIVE_AUTO);
        native_stats_t v;
        long entries = 0;
        int n = 0;
        for (int r = 0; off && on && r < runs; r++, n++) {
            if (bench_session_run(off, &ti[n], &v) || bench_session_run(on, &tw[n], &v)) break;
            entries += v.entries;
        }
        if (n) {
            double li = ti[0], lw = tw[0];
            for (int r = 1; r < n; r++) { li = ti[r] < li ? ti[r] : li; lw = tw[r] < lw ? tw[r] : lw; }
            printf("%-34.34s %8.4f (%6.4f) %8.4f (%6.4f) %6.2fx%s\n", b->name, li, bench_median(ti, n), lw,
                   bench_median(tw, n), lw / li, entries ? " (compiled code ran: the compiler does not sleep)" : "");
        }
        fflush(stdout);
        bench_session_free(off);
        bench_session_free(on);
    }
    free(ti);
    free(tw);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    const char *filter = argc > 2 ? argv[2] : NULL;
    if (runs < 2) runs = 2;
    if (getenv("HOST_KINDS_WAIT")) {
        bench_cache_begin();
        wait_table(runs, filter);
        bench_cache_done();
        return 0;
    }
    bool interp = getenv("HOST_KINDS_INTERP") != NULL;
    bench_cache_begin();
    printf("%d runs; icuda's run r and the program's run r alternate, ratio = the median of their ratios, runs 2..%d\n"
           "(the first compiles); times are medians of the same runs, seconds\n", runs, runs);
    printf("%-34s %9s %9s %9s %9s %9s %7s %s\n", "loop", "interp", "compiled", "1st run", "compile", "gcc-O2", "ratio",
           "result");
    double logsum = 0, comp[NB], slow[NB]; /* first compiles; 1st run / interp */
    int nlog = 0, ncomp = 0, nslow = 0;
    double *tc = malloc(sizeof *tc * (size_t)runs), *tg = malloc(sizeof *tg * (size_t)runs),
           *rr = malloc(sizeof *rr * (size_t)runs);
    for (int i = 0; i < NB; i++) {
        const bench_t *b = &benches[i];
        if (filter && !strstr(b->name, filter)) continue;
        double ti = NAN, t0;
        native_stats_t st = {0}, v;
        if (interp && bench_icuda(b, NATIVE_OFF, 1, &t0, &v, NULL) == 0) ti = t0;
        bench_session_t *ses = bench_session_new(b, NATIVE_AUTO);
        bench_prog_t *prog = bench_prog_build(b, "-O2", false);
        char *oc = NULL, *og = NULL;
        int n = 0;
        double compile = 0;
        long entries = 0;
        for (int r = 0; ses && prog && r < runs; r++) {
            if (bench_session_run(ses, &tc[n], &v) || bench_prog_run(prog, &tg[n], r == 0 ? &og : NULL)) break;
            if (r == 0) {
                st = v;
                oc = bench_session_check(ses); /* the results after one run, as the program's */
            }
            compile += v.compile_s;
            entries += v.entries;
            rr[n] = tc[n] / tg[n];
            n++;
        }
        double first = n ? tc[0] : NAN;
        double mc = n > 1 ? bench_median(tc + 1, n - 1) : NAN, mg = n > 1 ? bench_median(tg + 1, n - 1) : NAN;
        double ratio = n > 1 ? bench_median(rr + 1, n - 1) : NAN;
        bool same = oc && og && !strcmp(oc, og);
        if (entries && ratio > 0) { logsum += log(ratio); nlog++; }
        if (compile > 0) comp[ncomp++] = compile;
        if (entries && ti > 0 && first > 0) slow[nslow++] = first / ti;
        printf("%-34.34s %9.4f %9.4f %9.4f %9.4f %9.4f %6.2fx %s%s\n", b->name, ti, mc, first, compile, mg, ratio,
               same ? "same" : "DIFFERS", entries ? "" : " (interpreted)");
        if (!same) printf("    icuda: %s    gcc:   %s", oc ? oc : "(none)\n", og ? og : "(none)\n");
        fflush(stdout);
        (void)st;
        free(oc);
        free(og);
        bench_session_free(ses);
        bench_prog_free(prog);
    }
    free(tc);
    free(tg);
    free(rr);
    bench_cache_done();
    if (nlog) printf("geometric mean over the compiled loops: %.2fx gcc -O2\n", exp(logsum / nlog));
    if (ncomp) printf("first compile (in the background, from an empty cache): median %.3f s over %d loops\n",
                      bench_median(comp, ncomp), ncomp);
    if (nslow) { /* the first run, with the compile in flight, against the interpreter alone */
        int over = 0;
        double worst = 0;
        for (int i = 0; i < nslow; i++) {
            over += slow[i] > 1;
            if (slow[i] > worst) worst = slow[i];
        }
        printf("1st run / interp: median %.2f, worst %.2f; %d of %d loops slower than the interpreter alone\n",
               bench_median(slow, nslow), worst, over, nslow);
    }
    return 0;
}
