/* Running cells in fresh interpreters with the native tier off and on, for
 * the native tier's unit tests (test_native, test_native_loops): the
 * output and errors of both, how often compiled code ran. */
#ifndef ICUDA_TESTS_NATIVE_RUN_H
#define ICUDA_TESTS_NATIVE_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "out_capture.h"

#define CHECK_MSG(cond, ...)                        \
    do {                                            \
        if (cond) check_passed++;                   \
        else {                                      \
            check_failed++;                         \
            fprintf(stderr, "FAIL: " __VA_ARGS__);  \
            fputc('\n', stderr);                    \
        }                                           \
    } while (0)
#include "runtime/base/cell_io.h"
#include "runtime/lang/interp.h"
#include "runtime/lang/native/native.h"

/* runs the cells (separated by "\n%%\n") in a fresh interpreter; returns
 * what it printed and how each cell ended, as one string; *entries: how
 * many times compiled code was entered (a call that gave up included) */
static long g_clean_runs, g_nest_runs, g_lean_misses; /* of the last run_cells: clean copies of loops, of whole
                                                     * nests; lean code that fell back (NT_LEAN) */
static long g_failures; /* of the last run_cells: generated code the C compiler refused (a generator bug) */
static long g_ticks; /* of the last run_cells: loops' polls the tier took (native_loop_tick) */
static bool g_sync = true; /* hot loops compiled in the foreground */
static char *run_cells(const char *cells, int mode, long *entries) {
    interp_t *in = interp_new();
    native_set_mode(in, mode);
    native_set_sync(in, g_sync);
    out_t o = {0};
    cell_io_t io = {&o, io_stream, NULL, NULL, NULL};
    char *all = strdup(cells), *save = NULL;
    for (char *c = strtok_r(all, "\x01", &save); c; c = strtok_r(NULL, "\x01", &save)) {
        cell_error_t err = {0};
        json_t *v = NULL;
        int rc = interp_run(in, c, "In [1]", &io, &v, &err);
        interp_flush_output(in);
        char line[64];
        snprintf(line, sizeof line, "<rc %d>\n", rc);
        io_stream(&o, "stdout", line, strlen(line));
        if (rc) {
            io_stream(&o, "stdout", err.ename, strlen(err.ename));
            io_stream(&o, "stdout", ": ", 2);
            io_stream(&o, "stdout", err.evalue, strlen(err.evalue));
            char *tb = err.traceback ? json_dumps(err.traceback, 0) : strdup("");
            io_stream(&o, "stdout", tb, strlen(tb));
            free(tb);
        }
        if (v) json_decref(v);
        cell_error_clear(&err);
    }
    *entries = native_stats(in).entries + native_stats(in).gave_up;
    g_clean_runs = native_stats(in).clean_runs[0] + native_stats(in).clean_runs[1];
    g_nest_runs = native_stats(in).clean_runs[1];
    g_lean_misses = native_stats(in).lean_misses;
    g_failures = native_stats(in).failures;
    g_ticks = native_stats(in).ticks;
    free(all);
    interp_free(in);
    return o.s ? o.s : strdup("");
}

/* same output in both tiers, and compiled code ran (when compiled is set) */
__attribute__((unused)) static void same(const char *title, const char *cells, bool compiled) {
    long e0, e1;
    char *a = run_cells(cells, NATIVE_OFF, &e0), *b = run_cells(cells, NATIVE_ALWAYS, &e1);
    CHECK_MSG(!strcmp(a, b), "%s: interpreted:\n%s\ncompiled:\n%s", title, a, b);
    CHECK_MSG(e0 == 0, "%s: the tier ran while off", title);
    if (compiled) CHECK_MSG(e1 > 0, "%s: nothing was compiled", title);
    CHECK_MSG(g_failures == 0, "%s: the C compiler refused %ld generated units", title, g_failures);
    free(a);
    free(b);
}

#endif
