/* What the host-code benches share (bench/host_suite.c, bench/host_kinds.c):
 * a loop run as a cell in a fresh interpreter with the native tier off or on,
 * and the same C built as a program with gcc and timed in its own process. */
#ifndef ICUDA_BENCH_HOST_HARNESS_H
#define ICUDA_BENCH_HOST_HARNESS_H

#include "runtime/lang/native/native.h"

/* decls: top-level definitions (functions, types) a program puts before
 * main (may be NULL); setup: statements run first (main's locals); loop:
 * the cell timed; check: consumes the results (printed, compared). */
typedef struct bench {
    const char *name, *decls, *setup, *loop, *check;
} bench_t;

double bench_now(void);
/* the loop cell run `runs` times in a fresh interpreter with tier mode:
 * each run's seconds into t[]; *st the stats of the first run (with its
 * compile), entries of every run added; the check cell's output after the
 * first run into out (malloc'd; out may be NULL). -1 when a cell fails. */
int bench_icuda(const bench_t *b, int mode, int runs, double *t, native_stats_t *st, char **out);
/* the same as a C program built with flags (rt: the setup's `int x = ...;`
 * sizes hidden from the compiler), run `runs` times: seconds into t[], the
 * check's output of the last run into out. -1 when it does not build. */
int bench_gcc(const bench_t *b, const char *flags, int runs, bool rt, double *t, char **out);
/* the same, a run at a time (interleaved with a program's runs, so that
 * a ratio pairs runs made under the same load) */
typedef struct bench_session bench_session_t;
bench_session_t *bench_session_new(const bench_t *b, int mode); /* NULL: a setup cell failed */
int bench_session_run(bench_session_t *s, double *t, native_stats_t *st); /* the loop cell once; st: its stats */
char *bench_session_check(bench_session_t *s); /* the check cell's output (malloc'd) */
void bench_session_free(bench_session_t *s);
typedef struct bench_prog bench_prog_t;
bench_prog_t *bench_prog_build(const bench_t *b, const char *flags, bool rt); /* NULL: it does not build */
int bench_prog_run(bench_prog_t *p, double *t, char **out);                    /* out may be NULL */
void bench_prog_free(bench_prog_t *p);
double bench_median(const double *t, int n);
double bench_best(const double *t, int n);
/* an empty code cache for this process (removed by bench_cache_done) */
void bench_cache_begin(void);
void bench_cache_done(void);

#endif
