/* libFuzzer target: the host parser and interpreter (make fuzz). Each input
 * is a cell; an interval timer raises the interrupt flag so that a loop the
 * fuzzer writes ends in KeyboardInterrupt, not a hang. The session is fresh
 * every 64 inputs, so state carries over between cells as in a notebook. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "runtime/interrupt.h"
#include "runtime/lang/interp.h"

atomic_int icuda_interrupt_flag; /* the engine defines it; this target has no engine */

static void on_alarm(int sig) { (void)sig; interrupt_raise(); }
static void sink(void *ctx, const char *name, const char *text, size_t len) {}
static void sink_display(void *ctx, json_t *data, json_t *md, bool res) {}

/* The native tier's disk cache (runtime/compile_cache.c, not linked here):
 * none, so a fuzzing run writes no files. */
char *compile_cache_default_dir(void);
char *compile_cache_default_dir(void) { return NULL; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    static interp_t *in;
    static unsigned runs;
    if (!in) signal(SIGALRM, on_alarm);
    if (!in || ++runs % 64 == 0) {
        if (in) interp_free(in);
        in = interp_new();
    }
    char *code = malloc(n + 1);
    memcpy(code, data, n);
    code[n] = 0;
    engine_io_t io = {NULL, sink, sink_display};
    engine_error_t err = {0};
    json_t *v = NULL;
    interrupt_clear();
    struct itimerval t = {{0, 0}, {0, 200000}};
    setitimer(ITIMER_REAL, &t, NULL);
    interp_run(in, code, "In [1]", &io, &v, &err);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    json_decref(v);
    free(err.ename);
    free(err.evalue);
    json_decref(err.traceback);
    free(code);
    return 0;
}
