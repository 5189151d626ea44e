/* The host-code benches' harness (host_harness.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "host_harness.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "runtime/base/cell_io.h"
#include "runtime/base/strbuf.h"
#include "runtime/lang/interp.h"

double bench_now(void) {
    struct timespec ts;
    /* HOST_SUITE_CPU=1: the thread's CPU time, for comparing the cells' runs
     * with each other on a loaded machine (not with the programs: wall time) */
    static int cpu = -1;
    if (cpu < 0) cpu = getenv("HOST_SUITE_CPU") != NULL;
    clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void io_stream(void *ctx, const char *name, const char *text, size_t len) {
    if (ctx) sb_append((strbuf_t *)ctx, text, len);
}

static int run(interp_t *in, const char *code, strbuf_t *out) {
    cell_io_t io = {.ctx = out, .stream = io_stream};
    cell_error_t err = {0};
    json_t *v = NULL;
    int rc = interp_run(in, code, "In [bench]", &io, &v, &err);
    interp_flush_output(in);
    if (rc) fprintf(stderr, "cell failed: %s: %s\n", err.ename, err.evalue);
    if (v) json_decref(v);
    cell_error_clear(&err);
    return rc;
}

struct bench_session {
    interp_t *in;
    const bench_t *b;
    int runs;
};

bench_session_t *bench_session_new(const bench_t *b, int mode) {
    bench_session_t *s = calloc(1, sizeof *s);
    s->in = interp_new();
    s->b = b;
    native_set_mode(s->in, mode);
    if (getenv("HOST_SUITE_OPT")) native_set_opt(s->in, atoi(getenv("HOST_SUITE_OPT"))); /* the C compiler's -O */
    /* the compile in the foreground: its latency alone, not beside the interpreter */
    if (getenv("HOST_SUITE_SYNC")) native_set_sync(s->in, true);
    if ((b->decls && run(s->in, b->decls, NULL)) || run(s->in, b->setup, NULL)) {
        bench_session_free(s);
        return NULL;
    }
    return s;
}

int bench_session_run(bench_session_t *s, double *t, native_stats_t *st) {
    native_stats_reset(s->in);
    double t0 = bench_now();
    int rc = run(s->in, s->b->loop, NULL);
    *t = bench_now() - t0;
    *st = native_stats(s->in);
    if (getenv("HOST_SUITE_VERBOSE"))
        fprintf(stderr, "  run %d: %.4f s, %ld entries, %ld compiles, %ld cached, %ld clean loops, %ld clean nests\n",
                s->runs, *t, st->entries, st->compiles, st->mem_hits + st->disk_hits, st->clean_runs[0], st->clean_runs[1]);
    s->runs++;
    return rc ? -1 : 0;
}

char *bench_session_check(bench_session_t *s) {
    strbuf_t o = {0};
    run(s->in, s->b->check, &o);
    return o.data ? o.data : strdup("");
}

void bench_session_free(bench_session_t *s) {
    if (!s) return;
    interp_free(s->in);
    free(s);
}

int bench_icuda(const bench_t *b, int mode, int runs, double *t, native_stats_t *st, char **out) {
    if (out) *out = NULL;
    bench_session_t *s = bench_session_new(b, mode);
    if (!s) return -1;
    int rc = 0;
    for (int r = 0; r < runs && !rc; r++) {
        native_stats_t v;
        rc = bench_session_run(s, &t[r], &v);
        if (r == 0) {
            *st = v;
            /* the results after one run, as the program's (a loop may accumulate) */
            char *o = bench_session_check(s);
            if (out) *out = o;
            else free(o);
        } else { /* a compile that ends after the first run (in the background) counts too */
            st->entries += v.entries;
            st->compile_s += v.compile_s;
        }
    }
    if (out && !*out) *out = strdup("");
    bench_session_free(s);
    return rc;
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

struct bench_prog {
    char dir[64], exe[128];
};

bench_prog_t *bench_prog_build(const bench_t *b, const char *flags, bool rt) {
    bench_prog_t *p = calloc(1, sizeof *p);
    snprintf(p->dir, sizeof p->dir, "/tmp/icuda-hostbench-XXXXXX");
    if (!mkdtemp(p->dir)) {
        free(p);
        return NULL;
    }
    char src[256], cmd[1024];
    snprintf(src, sizeof src, "%s/b.c", p->dir);
    snprintf(p->exe, sizeof p->exe, "%s/b", p->dir);
    FILE *f = fopen(src, "w");
    char *setup = rt ? sizes_at_run_time(b->setup) : strdup(b->setup);
    fprintf(f, "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
               "static int opaque_(int x) { __asm__ volatile(\"\" : \"+r\"(x)); return x; }\n%s\n",
            b->decls ? b->decls : "");
    fprintf(f, "int main(void) {\n%s\nstruct timespec t0_, t1_; clock_gettime(CLOCK_MONOTONIC, &t0_);\n%s\n"
               "clock_gettime(CLOCK_MONOTONIC, &t1_);\nfprintf(stderr, \"%%.6f\\n\", "
               "(t1_.tv_sec - t0_.tv_sec) + (t1_.tv_nsec - t0_.tv_nsec) * 1e-9);\n%s\nreturn 0; }\n",
            setup, b->loop, b->check);
    fclose(f);
    free(setup);
    /* -fno-builtin-malloc: gcc folds malloc and a zeroing loop into calloc,
     * whose fresh pages then fault inside the timed loop (0.27 s against
     * 0.02 s for a prefix sum over 128 MB); the session's buffers are
     * touched by its setup, so the program's must be too */
    snprintf(cmd, sizeof cmd, "gcc %s -fno-builtin-malloc -o %s %s -lm", flags, p->exe, src);
    if (system(cmd) != 0) {
        bench_prog_free(p);
        return NULL;
    }
    return p;
}

int bench_prog_run(bench_prog_t *p, double *t, char **out) {
    char tf[300], cmd[600];
    snprintf(tf, sizeof tf, "%s/t", p->dir);
    snprintf(cmd, sizeof cmd, "%s 2>%s", p->exe, tf);
    FILE *pp = popen(cmd, "r");
    strbuf_t o = {0};
    char buf[4096];
    size_t k;
    while (pp && (k = fread(buf, 1, sizeof buf, pp)) > 0) sb_append(&o, buf, k);
    if (pp) pclose(pp);
    FILE *tt = fopen(tf, "r");
    int rc = tt && fscanf(tt, "%lf", t) == 1 ? 0 : -1;
    if (tt) fclose(tt);
    if (out) *out = o.data ? o.data : strdup("");
    else free(o.data);
    return rc;
}

void bench_prog_free(bench_prog_t *p) {
    if (!p) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", p->dir);
    if (system(cmd)) {}
    free(p);
}

int bench_gcc(const bench_t *b, const char *flags, int runs, bool rt, double *t, char **out) {
    if (out) *out = NULL;
    bench_prog_t *p = bench_prog_build(b, flags, rt);
    if (!p) return -1;
    int rc = 0;
    for (int r = 0; r < runs && !rc; r++) {
        if (out) free(*out);
        rc = bench_prog_run(p, &t[r], out);
    }
    bench_prog_free(p);
    return rc;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
double bench_median(const double *t, int n) {
    if (n <= 0) return NAN;
    double *c = malloc(sizeof *c * (size_t)n);
    memcpy(c, t, sizeof *c * (size_t)n);
    qsort(c, (size_t)n, sizeof *c, cmpd);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}
double bench_best(const double *t, int n) {
    double b = NAN;
    for (int i = 0; i < n; i++)
        if (isnan(b) || t[i] < b) b = t[i];
    return b;
}

static char cache[] = "/tmp/icuda-hostcache-XXXXXX";
static bool made;
void bench_cache_begin(void) {
    const char *keep = getenv("HOST_SUITE_CACHE"); /* keeps the generated C there, to read */
    if (keep && *keep) setenv("XDG_CACHE_HOME", keep, 1);
    else if (mkdtemp(cache)) {
        setenv("XDG_CACHE_HOME", cache, 1);
        made = true;
    }
}
void bench_cache_done(void) {
    if (!made) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
    if (system(cmd)) {}
}
