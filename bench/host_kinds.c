/* Host loops of the kinds CPU reference code in CUDA notebooks is made of
 * (docs/performance.md "Host loops of every kind"): each runs as a cell in
 * a fresh interpreter with the native tier on, and as the same C built with
 * gcc -O2, in the same run; the figures are medians of several runs, the
 * compiled code's from its second run on (the first one compiles).
 * Usage: build/bench/host_kinds [runs] [name filter]   (make bench-kinds)
 * HOST_KINDS_INTERP=1 adds the interpreter's time (the tier off). */
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
     "float *x = (float *)malloc(N * sizeof(float)), *y = (float *)calloc(N, sizeof(float));\n"
     "srand(7);\n"
     "for (int i = 0; i < N; i++) { idx[i] = rand() % N; x[i] = (i % 100) * 0.01f; }\n",
     "for (int i = 0; i < N; i++) y[idx[i]] += x[i];\n",
     "double ys = 0;\nfor (int i = 0; i < N; i++) ys += y[i];\nprintf(\"%.3f\\n\", ys);\n"},
    {"prefix sum p[i] = p[i-1] + x[i]", NULL,
     "int N = 1 << 24;\n"
     "float *x = (float *)malloc(N * sizeof(float)), *p = (float *)malloc(N * sizeof(float));\n"
     "for (int i = 0; i < N; i++) x[i] = (i % 10) * 0.1f;\n",
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
     "float *img = (float *)malloc(W * H * sizeof(float)), *res = (float *)calloc(W * H, sizeof(float));\n"
     "for (int i = 0; i < W * H; i++) img[i] = (i % 17) * 0.5f;\n",
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
};
enum { NB = sizeof benches / sizeof benches[0] };

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    const char *filter = argc > 2 ? argv[2] : NULL;
    if (runs < 2) runs = 2;
    bool interp = getenv("HOST_KINDS_INTERP") != NULL;
    bench_cache_begin();
    printf("median of %d runs (compiled: of runs 2..%d), seconds; ratio = icuda compiled / gcc -O2\n", runs, runs);
    printf("%-34s %9s %9s %9s %9s %9s %7s %s\n", "loop", "interp", "compiled", "1st run", "compile", "gcc-O2", "ratio",
           "result");
    double logsum = 0;
    int nlog = 0;
    double *t = malloc(sizeof *t * (size_t)runs);
    for (int i = 0; i < NB; i++) {
        const bench_t *b = &benches[i];
        if (filter && !strstr(b->name, filter)) continue;
        native_stats_t st = {0}, st0;
        double ti = NAN;
        if (interp && bench_icuda(b, NATIVE_OFF, 1, t, &st0, NULL) == 0) ti = t[0];
        char *oc = NULL, *og = NULL;
        double tc = NAN, first = NAN, g2 = NAN;
        if (bench_icuda(b, NATIVE_AUTO, runs, t, &st, &oc) == 0) {
            first = t[0];
            tc = bench_median(t + 1, runs - 1);
        }
        if (bench_gcc(b, "-O2", runs, false, t, &og) == 0) g2 = bench_median(t, runs);
        double ratio = tc / g2;
        bool same = oc && og && !strcmp(oc, og);
        if (st.entries && ratio > 0) { logsum += log(ratio); nlog++; }
        printf("%-34s %9.4f %9.4f %9.4f %9.4f %9.4f %6.2fx %s%s\n", b->name, ti, tc, first, st.compile_s, g2, ratio,
               same ? "same" : "DIFFERS", st.entries ? "" : " (interpreted)");
        if (!same) printf("    icuda: %s    gcc:   %s", oc ? oc : "(none)\n", og ? og : "(none)\n");
        fflush(stdout);
        free(oc);
        free(og);
    }
    free(t);
    bench_cache_done();
    if (nlog) printf("geometric mean over the compiled loops: %.2fx gcc -O2\n", exp(logsum / nlog));
    return 0;
}
