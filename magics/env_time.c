/* %env (as IPython's) and %time / %%time: one run of a statement, timed
 * on the host's clocks and, for its GPU work, with CUDA events. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "measure.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
extern char **environ;

static int by_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int env_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    while (isspace((unsigned char)*args)) args++;
    size_t len = strlen(args);
    while (len && isspace((unsigned char)args[len - 1])) len--;
    char *a = xstrndup(args, len);
    int rc = 0;
    if (!*a) {
        int n = 0;
        while (environ[n]) n++;
        char **v = xmalloc((n ? n : 1) * sizeof *v);
        memcpy(v, environ, n * sizeof *v);
        qsort(v, n, sizeof *v, by_str);
        strbuf_t t = {0};
        for (int i = 0; i < n; i++) sb_printf(&t, "%s\n", v[i]);
        char *s = sb_take(&t);
        io_printf(mc->io, "stdout", "%s", s);
        free(s);
        free(v);
    } else {
        /* NAME=VALUE, NAME VALUE, or NAME */
        char *eq = strchr(a, '='), *sp = a + strcspn(a, " \t");
        char *value = NULL;
        if (eq && eq < sp) *eq = 0, value = eq + 1;
        else if (*sp) {
            *sp = 0;
            value = sp + 1;
            while (isspace((unsigned char)*value)) value++;
        }
        if (!*a || strchr(a, '=')) rc = magic_usage_error(&magic_env, err, "a variable name, please");
        else if (!value) {
            const char *v = getenv(a);
            if (v) io_printf(mc->io, "stdout", "%s\n", v);
            else rc = magic_usage_error(&magic_env, err, "Environment does not have key: %s", a);
        } else if (setenv(a, value, 1)) {
            rc = magic_usage_error(&magic_env, err, "cannot set %s", a);
        } else io_printf(mc->io, "stdout", "env: %s=%s\n", a, value);
    }
    free(a);
    return rc;
}

static double wall(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void cpu(double *user, double *sys) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u); /* the cell may run on a thread of its own */
    *user = (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec * 1e-6;
    *sys = (double)u.ru_stime.tv_sec + u.ru_stime.tv_usec * 1e-6;
}

/* Runs code once as a cell body and reports its times. */
static int time_code(magic_ctx_t *mc, const char *code, cell_error_t *err) {
    char why[600];
    /* only a worker that is up: a machine without a GPU times the host alone */
    gpu_client_t *g = cuda_session_client(mc->cuda, why, sizeof why);
    gpu_handle_t ev[2] = {0, 0};
    bool events = false;
    int r = 0;
    if (g) {
        /* earlier work is not this statement's */
        r = gpu_client_sync(g);
        if (!r) r = gpu_client_event_create(g, &ev[0], 0);
        if (!r) r = gpu_client_event_create(g, &ev[1], 0);
        if (!r) r = gpu_client_event_record(g, ev[0], 0);
        if (r) return cuda_session_error(mc->cuda, r, "preparing the events of %time", err);
        events = true;
    }
    unsigned long work0 = cuda_session_work_count(mc->cuda);
    double u0, s0, u1, s1, t0 = wall();
    cpu(&u0, &s0);
    int rc = mc->run(mc, code, err);
    bool gpu_work = cuda_session_work_count(mc->cuda) != work0;
    float ms = 0;
    if (events && !rc) {
        r = gpu_client_event_record(g, ev[1], 0);
        if (!r) r = gpu_client_event_sync(g, ev[1]);
        if (!r) r = gpu_client_take_async_error(g, NULL, NULL);
        if (!r) r = gpu_client_event_elapsed(g, &ms, ev[0], ev[1]);
        if (r) rc = cuda_session_error(mc->cuda, r, "while timing the statement", err);
    }
    double t1 = wall();
    cpu(&u1, &s1);
    if (events && gpu_client_state(g) == GPU_READY)
        for (int i = 0; i < 2; i++) gpu_client_event_destroy(g, ev[i]);
    if (rc) return rc;
    char a[32], b[32], c[32], w[32], gt[32];
    timeit_fmt_time(u1 - u0, a, sizeof a);
    timeit_fmt_time(s1 - s0, b, sizeof b);
    timeit_fmt_time(u1 - u0 + s1 - s0, c, sizeof c);
    timeit_fmt_time(t1 - t0, w, sizeof w);
    strbuf_t t = {0};
    sb_printf(&t, "CPU times: user %s, sys: %s, total: %s\nWall time: %s%s\n", a, b, c, w,
              gpu_work ? " (until the GPU finished)" : "");
    if (gpu_work && events) {
        timeit_fmt_time(ms * 1e-3, gt, sizeof gt);
        sb_printf(&t, "GPU time: %s (CUDA events on the default stream around the statement)\n", gt);
    } else if (g) sb_puts(&t, "GPU time: none (the statement did no GPU work)\n");
    char *s = sb_take(&t);
    io_printf(mc->io, "stdout", "%s", s);
    free(s);
    return 0;
}

static int time_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    while (isspace((unsigned char)*args)) args++;
    if (!*args) return magic_usage_error(&magic_time, err, "nothing to time");
    char *code = NULL;
    /* a line magic's statement is written without its ';' */
    if (asprintf(&code, "%s;\n", args) < 0) abort();
    int rc = time_code(mc, code, err);
    free(code);
    return rc;
}

static int time_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    while (isspace((unsigned char)*args)) args++;
    if (*args) return magic_usage_error(&magic_time, err, "%%%%time takes no arguments; the cell's body is timed");
    return time_code(mc, body, err);
}

const magic_t magic_env = {
    "env", "%env [NAME[=VALUE]]", "show or set environment variables (as IPython's %env)",
    "%env lists every variable; %env NAME shows one; %env NAME=VALUE (or %env NAME VALUE) sets it for this\n"
    "kernel and the programs it starts later (%%program, the toolkit's tools). The GPU worker already\n"
    "running keeps the environment it started with.",
    env_line, NULL};

const magic_t magic_time = {
    "time", "%time STATEMENT", "time one run: host CPU and wall clock, and GPU time",
    "Runs the statement (or with %%time the cell's body) once, as a cell runs it: what it declares stays.\n"
    "Shows the CPU times and wall clock of the host (waiting for the GPU's work to finish), and the GPU time\n"
    "between CUDA events recorded on the default stream before and after it, when it did GPU work. For\n"
    "a careful measurement use %timeit.",
    time_line, time_cell};
