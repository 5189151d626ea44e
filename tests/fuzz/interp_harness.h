/* The host interpreter as fuzz_interp and fuzz_gen drive it: one session
 * for FUZZ_INTERP_CELLS inputs (1024; state carries over as in a notebook),
 * an interval timer that raises the interrupt flag after
 * FUZZ_INTERP_BUDGET_MS (HARNESS_BUDGET_MS: 200, or the target's own) so
 * that a loop ends in KeyboardInterrupt, not a hang. Leaks are looked for when a session ends (interp_free, then
 * LeakSanitizer's check), not by libFuzzer after each input: a session's
 * state grows by design, so libFuzzer's own check (-detect_leaks=1) ran
 * every input twice and scanned the heap each time, and found nothing it
 * could blame (docs/reliability.md). ICUDA_HOST_TIER=off keeps the native
 * tier (a C compiler run per hot loop) out. */
#ifndef ICUDA_FUZZ_INTERP_HARNESS_H
#define ICUDA_FUZZ_INTERP_HARNESS_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

#include "runtime/base/interrupt.h"
#include "runtime/lang/interp.h"

#include "runtime/base/cell_io.h"
#ifndef HARNESS_BUDGET_MS
#define HARNESS_BUDGET_MS 200
#endif

atomic_int icuda_interrupt_flag; /* the engine defines it; these targets have no engine */
char *_Atomic icuda_interrupt_guard;

/* LeakSanitizer's check, where linked (the ASan builds) */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static void harness_on_alarm(int sig) { (void)sig; interrupt_raise(); }
static void harness_sink(void *ctx, const char *name, const char *text, size_t len) {}
static void harness_sink_display(void *ctx, json_t *data, json_t *md, bool res) {}

/* The native tier's disk cache: none (no folder to put it in), so a fuzzing
 * run writes no files. */

static long harness_env(const char *name, long dflt) {
    const char *v = getenv(name);
    long x = v ? atol(v) : 0;
    return x > 0 ? x : dflt;
}

static char harness_evalue[200]; /* the last error's message */

/* FUZZ_INTERP_STATS=1: where the time goes, printed every 2,000 cells
 * (libFuzzer's -max_total_time ends the process without atexit) */
static struct { unsigned long runs, interrupted, sessions; double secs, interrupted_secs, session_secs; } harness_st;
static double harness_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}
static void harness_report(void) {
    fprintf(stderr, "interp harness: %lu cells in %.1f s; %lu interrupted by the budget (%.1f s); %lu new sessions (%.1f s)\n",
            harness_st.runs, harness_st.secs, harness_st.interrupted, harness_st.interrupted_secs, harness_st.sessions,
            harness_st.session_secs);
}

/* Runs code (NUL-terminated) as the next cell; returns the error's name
 * (static, "" when none) so that callers can count SyntaxErrors. */
static const char *harness_run(const char *code) {
    static interp_t *in;
    static unsigned runs;
    static long cells, budget_us;
    static bool stats;
    static char ename[32];
    if (!in) {
        signal(SIGALRM, harness_on_alarm);
        /* cells may fill what they allocate in one builtin call, which no
         * budget stops: a 2 GiB arena keeps them under the 4 GB RSS limit
         * of `make fuzz`, which such cells once went past */
        setenv("ICUDA_ARENA_MB", "2048", 0);
        cells = harness_env("FUZZ_INTERP_CELLS", 1024);
        budget_us = harness_env("FUZZ_INTERP_BUDGET_MS", HARNESS_BUDGET_MS) * 1000;
        stats = getenv("FUZZ_INTERP_STATS") != NULL;
    }
    double t0 = harness_now();
    if (!in || ++runs % cells == 0) {
        if (in) {
            interp_free(in);
            /* what the session did not give back at its end is a leak */
            if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check()) {
                fprintf(stderr, "interp harness: the session of the last %ld cells leaked (above); this input only ended it\n",
                        cells);
                abort();
            }
        }
        unsetenv("XDG_CACHE_HOME");
        unsetenv("HOME");
        in = interp_new();
        harness_st.sessions++;
        harness_st.session_secs += harness_now() - t0;
    }
    cell_io_t io = {NULL, harness_sink, harness_sink_display};
    cell_error_t err = {0};
    json_t *v = NULL;
    interrupt_clear();
    struct itimerval t = {{0, 0}, {budget_us / 1000000, budget_us % 1000000}};
    setitimer(ITIMER_REAL, &t, NULL);
    interp_run(in, code, "In [1]", &io, &v, &err);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    snprintf(ename, sizeof ename, "%s", err.ename ? err.ename : "");
    double dt = harness_now() - t0;
    harness_st.runs++;
    harness_st.secs += dt;
    if (!strcmp(ename, "KeyboardInterrupt")) harness_st.interrupted++, harness_st.interrupted_secs += dt;
    if (stats && harness_st.runs % 2000 == 0) harness_report();
    snprintf(harness_evalue, sizeof harness_evalue, "%s", err.evalue ? err.evalue : "");
    json_decref(v);
    cell_error_clear(&err);
    return ename;
}

#endif
