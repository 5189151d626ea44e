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
#include "runtime/lang/interp.h"
#include "runtime/lang/core/core.h"
#include "runtime/lang/native/native.h"

#include "runtime/base/cell_io.h"
typedef struct { const char *name, *setup, *loop, *check; } bench_t;

static const bench_t benches[] = {
    {"matmul 256^3 float",
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
    {"histogram 2^24 bytes",
     "int N = 1 << 24;\n"
     "unsigned char *d = (unsigned char *)malloc(N);\n"
     "for (int i = 0; i < N; i++) d[i] = (unsigned char)((unsigned)i * 2654435761u >> 24);\n"
     "int hist[256];\n"
     "for (int i = 0; i < 256; i++) hist[i] = 0;\n",
     "for (int i = 0; i < N; i++) hist[d[i]]++;\n",
     "printf(\"%d %d\\n\", hist[0], hist[255]);\n"},
    {"dot 10^7 doubles",
     "int n = 10000000;\n"
     "double *x = (double *)malloc(n * sizeof(double)), *y = (double *)malloc(n * sizeof(double));\n"
     "for (int i = 0; i < n; i++) { x[i] = i * 1e-7; y[i] = 1.0 - i * 1e-7; }\n"
     "double s = 0;\n",
     "for (int i = 0; i < n; i++) s += x[i] * y[i];\n",
     "printf(\"%.6f\\n\", s);\n"},
    {"stencil 1024^2 x5",
     "int n = 1024;\n"
     "double *u = (double *)malloc(n * n * sizeof(double)), *v = (double *)malloc(n * n * sizeof(double));\n"
     "for (int i = 0; i < n * n; i++) { u[i] = (i % 13) * 0.1; v[i] = 0; }\n",
     "for (int t = 0; t < 5; t++)\n"
     "    for (int i = 1; i < n - 1; i++)\n"
     "        for (int j = 1; j < n - 1; j++)\n"
     "            v[i * n + j] = 0.2 * (u[i * n + j] + u[(i - 1) * n + j] + u[(i + 1) * n + j] +\n"
     "                                  u[i * n + j - 1] + u[i * n + j + 1]);\n",
     "double vs = 0;\nfor (int i = 0; i < n * n; i++) vs += v[i];\nprintf(\"%.6f\\n\", vs);\n"},
    {"rand() fill 10^7",
     "int n = 10000000;\n"
     "int *r = (int *)malloc(n * sizeof(int));\n",
     "for (int i = 0; i < n; i++) r[i] = rand();\n",
     "long rs = 0;\nfor (int i = 0; i < n; i++) rs += r[i];\nprintf(\"%ld\\n\", rs);\n"},
    {"recursive fib(27)",
     "int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }\n"
     "int f = 0;\n",
     "f = fib(27);\n",
     "printf(\"%d\\n\", f);\n"},
    {"struct-of-arrays 10^6 x10",
     "typedef struct { float *x, *y, *vx, *vy; } particles;\n"
     "int n = 1000000;\n"
     "particles p;\n"
     "p.x = (float *)malloc(n * sizeof(float)); p.y = (float *)malloc(n * sizeof(float));\n"
     "p.vx = (float *)malloc(n * sizeof(float)); p.vy = (float *)malloc(n * sizeof(float));\n"
     "for (int i = 0; i < n; i++) { p.x[i] = 0; p.y[i] = 0; p.vx[i] = (i % 10) * 0.1f; p.vy[i] = (i % 3) * 0.2f; }\n",
     "for (int t = 0; t < 10; t++)\n"
     "    for (int i = 0; i < n; i++) { p.x[i] += p.vx[i] * 0.01f; p.y[i] += p.vy[i] * 0.01f; p.vy[i] -= 0.0981f; }\n",
     "double ps = 0;\nfor (int i = 0; i < n; i++) ps += p.x[i] + p.y[i] + p.vy[i];\nprintf(\"%f\\n\", ps);\n"},
    {"list walk 10^6 x10",
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

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void io_stream(void *ctx, const char *name, const char *text, size_t len) {
    if (ctx) fwrite(text, 1, len, stdout);
}

static int run(interp_t *in, const char *code, bool show) {
    cell_io_t io = {.ctx = show ? (void *)1 : NULL, .stream = io_stream};
    cell_error_t err = {0};
    json_t *v = NULL;
    int rc = interp_run(in, code, "In [bench]", &io, &v, &err);
    interp_flush_output(in);
    if (rc) fprintf(stderr, "cell failed: %s: %s\n", err.ename, err.evalue);
    if (v) json_decref(v);
    cell_error_clear(&err);
    return rc;
}

/* best time of the loop cell in a fresh interpreter with tier mode; *first:
 * the first run (with its compile) */
static double icuda_time(const bench_t *b, int mode, int runs, double *first, native_stats_t *st) {
    interp_t *in = interp_new();
    native_set_mode(in, mode);
    if (getenv("HOST_SUITE_OPT")) native_set_opt(in, atoi(getenv("HOST_SUITE_OPT"))); /* the C compiler's -O */
    /* the compile in the foreground: its latency alone, not beside the interpreter */
    if (getenv("HOST_SUITE_SYNC")) native_set_sync(in, true);
    double best = 1e30;
    if (run(in, b->setup, false)) return NAN;
    for (int r = 0; r < runs; r++) {
        native_stats_reset(in);
        double t0 = now();
        if (run(in, b->loop, false)) return NAN;
        double t = now() - t0;
        if (getenv("HOST_SUITE_VERBOSE")) {
            native_stats_t v = native_stats(in);
            fprintf(stderr, "  run %d: %.4f s, %ld entries, %ld compiles, %ld cached\n", r, t, v.entries, v.compiles,
                    v.mem_hits + v.disk_hits);
        }
        native_stats_t v = native_stats(in);
        if (r == 0) {
            *first = t;
            *st = v;
        } else { /* a compile that ends after the first run (in the background) counts too */
            st->entries += v.entries;
            st->compile_s += v.compile_s;
        }
        if (t < best) best = t;
    }
    run(in, b->check, false);
    interp_free(in);
    return best;
}

/* setup with each "int x = <expr>;" line's value hidden from the compiler
 * (opaque: as a session variable is to compiled code, known at run time
 * only); a new string */
static char *sizes_at_run_time(const char *setup) {
    size_t n = strlen(setup);
    char *out = malloc(2 * n + 256), *o = out;
    for (const char *l = setup; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l + 1) : strlen(l);
        const char *eq = strstr(l, " = ");
        if (!strncmp(l, "int ", 4) && l[4] != '*' && eq && eq < l + len && !memchr(l, ',', len) && len > 2 && l[len - 2] == ';') {
            o += sprintf(o, "%.*s = opaque_(%.*s);\n", (int)(eq - l), l, (int)(l + len - 2 - (eq + 3)), eq + 3);
        } else {
            memcpy(o, l, len);
            o += len;
        }
        l += len;
    }
    *o = 0;
    return out;
}

/* the same loop as a C program, built with flags: best of runs; rt: the
 * setup's sizes known at run time only */
static double gcc_time(const bench_t *b, const char *flags, int runs, bool rt) {
    char dir[] = "/tmp/icuda-hostsuite-XXXXXX";
    if (!mkdtemp(dir)) return NAN;
    char src[256], exe[256], cmd[1024];
    snprintf(src, sizeof src, "%s/b.c", dir);
    snprintf(exe, sizeof exe, "%s/b", dir);
    FILE *f = fopen(src, "w");
    /* function definitions of the setup go before main */
    char *setup = rt ? sizes_at_run_time(b->setup) : strdup(b->setup);
    const char *fn_end = strstr(setup, "}\n");
    bool has_fn = strstr(setup, "int fib(") != NULL;
    fprintf(f, "#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
               "static int opaque_(int x) { __asm__ volatile(\"\" : \"+r\"(x)); return x; }\n");
    if (has_fn) fprintf(f, "%.*s", (int)(fn_end + 2 - setup), setup);
    fprintf(f, "int main(void) {\n%s\nstruct timespec t0_, t1_; clock_gettime(CLOCK_MONOTONIC, &t0_);\n%s\n"
               "clock_gettime(CLOCK_MONOTONIC, &t1_);\nfprintf(stderr, \"%%.6f\\n\", "
               "(t1_.tv_sec - t0_.tv_sec) + (t1_.tv_nsec - t0_.tv_nsec) * 1e-9);\n%s\nreturn 0; }\n",
            has_fn ? fn_end + 2 : setup, b->loop, b->check);
    fclose(f);
    free(setup);
    snprintf(cmd, sizeof cmd, "gcc %s -o %s %s -lm", flags, exe, src);
    double best = NAN;
    if (system(cmd) == 0) {
        for (int r = 0; r < runs; r++) {
            snprintf(cmd, sizeof cmd, "%s 2>&1 >/dev/null", exe);
            FILE *p = popen(cmd, "r");
            double t;
            if (p && fscanf(p, "%lf", &t) == 1 && (isnan(best) || t < best)) best = t;
            if (p) pclose(p);
        }
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {}
    return best;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    const char *filter = argc > 2 ? argv[2] : NULL;
    if (runs < 1) runs = 1;
    /* an empty code cache, so the first run's compile is a real one */
    static char cache[] = "/tmp/icuda-hostcache-XXXXXX";
    const char *keep = getenv("HOST_SUITE_CACHE"); /* keeps the generated C there, to read */
    if (keep && *keep) setenv("XDG_CACHE_HOME", keep, 1);
    else if (mkdtemp(cache)) setenv("XDG_CACHE_HOME", cache, 1);
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
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
    if (!(keep && *keep) && system(cmd)) {}
    if (nlog) printf("geometric mean over the compiled loops: ratio %.2fx, rt %.2fx\n", exp(logsum / nlog), exp(logrt / nlog));
    return 0;
}
