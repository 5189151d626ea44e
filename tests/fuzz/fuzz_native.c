/* libFuzzer target: the native tier against the interpreter (their
 * parity). Each input is a program of program_gen.h, run in two fresh
 * sessions: the native tier off, then forced on (every loop compiled with
 * the system's C compiler, synchronously). Their output, value, error name,
 * message and traceback must be the same, byte for byte; a difference
 * aborts with both. A program the interpreted run could not finish within
 * FUZZ_INTERP_BUDGET_MS (200) is skipped, as is one whose compiled run was
 * interrupted: where an interrupt lands is timing, not semantics. Every
 * unit generated must compile (native_stats' failures: none). After
 * each program, LeakSanitizer's check: both sessions are freed by then.
 * FUZZ_NATIVE_PRINT=1 prints each program and the counts at exit. */
#include <stdint.h>
#include <stdio.h>

#include "interp_harness.h"
#include "program_gen.h"
#include "runtime/lang/native/native.h"

#include "runtime/base/cell_io.h"
/* what a cell showed: the text of each stream in order, a mark where the
 * stream changes (not where a chunk ends: when output is flushed is
 * timing, and a compile takes time) */
typedef struct {
    strbuf_t out;
    char last[8];
} cap_t;
static void cap_stream(void *ctx, const char *name, const char *text, size_t len) {
    cap_t *c = ctx;
    if (strncmp(c->last, name, sizeof c->last - 1)) {
        sb_printf(&c->out, "<%s>", name);
        snprintf(c->last, sizeof c->last, "%s", name);
    }
    sb_printf(&c->out, "%.*s", (int)len, text);
}
static void cap_display(void *ctx, json_t *data, json_t *md, bool res) {
    cap_t *c = ctx;
    char *s = json_dumps(data, JSON_SORT_KEYS);
    sb_printf(&c->out, "<display %d>%s", res, s ? s : "?");
    c->last[0] = 0;
    free(s);
}

/* the whole visible result of code in a fresh session; *interrupted when
 * the budget stopped it */
static unsigned long programs, compared, skipped, with_compiled, with_nest;
static long refused; /* of the last forced run: units the C compiler did not build (a generator bug) */
static char *run_tier(const char *code, int mode, long budget_ms, bool *interrupted) {
    cap_t cap = {0};
    strbuf_t *out = &cap.out;
    interp_t *in = interp_new();
    native_set_mode(in, mode);
    native_set_sync(in, true);
    cell_io_t io = {&cap, cap_stream, cap_display, NULL};
    cell_error_t err = {0};
    json_t *v = NULL;
    interrupt_clear();
    struct itimerval t = {{0, 0}, {budget_ms / 1000, budget_ms % 1000 * 1000}};
    setitimer(ITIMER_REAL, &t, NULL);
    int rc = interp_run(in, code, "In [1]", &io, &v, &err);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    interp_flush_output(in);
    *interrupted = err.ename && !strcmp(err.ename, "KeyboardInterrupt");
    sb_printf(out, "\n<rc %d>", rc);
    if (v) {
        char *s = json_dumps(v, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        sb_printf(out, "<value>%s", s ? s : "?");
        free(s);
        json_decref(v);
    }
    if (err.ename) {
        char *tb = err.traceback ? json_dumps(err.traceback, 0) : NULL;
        sb_printf(out, "<error>%s: %s\n%s", err.ename, err.evalue ? err.evalue : "", tb ? tb : "");
        free(tb);
    }
    cell_error_clear(&err);
    if (mode == NATIVE_ALWAYS && native_stats(in).entries > 0) with_compiled++;
    if (mode == NATIVE_ALWAYS && native_stats(in).clean_runs[1] > 0) with_nest++;
    if (mode == NATIVE_ALWAYS) refused = native_stats(in).failures;
    interp_free(in);
    interrupt_clear();
    return sb_take(out);
}

static bool print;
static void report(void) {
    if (print && programs)
        fprintf(stderr, "fuzz_native: %lu programs, %lu compared between the tiers (%lu ran compiled code, "
                "%lu a whole nest clean), %lu skipped (interrupted)\n", programs, compared, with_compiled, with_nest, skipped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    if (!programs) {
        signal(SIGALRM, harness_on_alarm);
        print = getenv("FUZZ_NATIVE_PRINT") != NULL;
        atexit(report);
    }
    programs++;
    char *code = generate(data, n);
    if (print) fprintf(stderr, "----\n%s", code);
    bool intr = false;
    char *a = run_tier(code, NATIVE_OFF, harness_env("FUZZ_INTERP_BUDGET_MS", 200), &intr);
    if (intr) {
        skipped++;
        free(a);
        free(code);
        return 0;
    }
    /* the compiles count against this budget: generous */
    char *b = run_tier(code, NATIVE_ALWAYS, 20000, &intr);
    if (intr) skipped++;
    else {
        compared++;
        if (strcmp(a, b)) {
            fprintf(stderr, "fuzz_native: the tiers differ on this program:\n%s\n==== interpreted:\n%s\n==== compiled:\n%s\n",
                    code, a, b);
            abort();
        }
        /* what the generator writes must compile: a unit that does not
         * (as a loop inside a function once did) leaves its code interpreted,
         * right but slow, and no comparison would notice */
        if (refused) {
            fprintf(stderr, "fuzz_native: the C compiler refused %ld generated units of this program:\n%s\n", refused, code);
            abort();
        }
    }
    free(a);
    free(b);
    free(code);
    /* both sessions are gone: whatever they did not give back leaked */
    if (__lsan_do_recoverable_leak_check && __lsan_do_recoverable_leak_check()) {
        fprintf(stderr, "fuzz_native: this program's sessions leaked (above)\n");
        abort();
    }
    return 0;
}
