/* %timeit and %%timeit, as IPython users know them but
 * timed on the GPU: the statement is compiled once (interp_prepare), run
 * once to warm up (it also loads the module), then in repeats of n runs;
 * each repeat is bracketed by CUDA events on the default stream when the
 * statement does GPU work, or read on the host's monotonic clock when it
 * does none. With --bytes/--flops: GB/s, GFLOP/s and the fraction of the
 * device's peaks (peaks.c); such measurements are remembered for %roofline. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "magic_args.h"
#include "measure.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/lang/interp.h"
#include "runtime/base/progress.h"
#include "runtime/cell/split.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
#define REPEAT_SECONDS 0.2 /* a repeat's length when -n is not given (IPython's) */
#define DEFAULT_REPEATS 7
/* --bytes/--flops: a positive number, evaluated before anything runs. */
static int eval_amount(magic_ctx_t *mc, const char *opt, const char *expr, double *out, cell_error_t *err) {
    *out = 0;
    if (!expr) return 0;
    strbuf_t b = {0};
    sb_printf(&b, "%s %s", opt, expr);
    char *text = sb_take(&b);
    interp_text_t t = {text, strlen(opt) + 1, "%timeit"};
    int rc = interp_eval_number(mc->interp, &t, out, err);
    if (rc) {
        char *v = NULL;
        if (asprintf(&v, "in %s %s: %s", opt, expr, err->evalue ? err->evalue : "") >= 0) {
            free(err->evalue);
            err->evalue = v;
        }
    } else if (!(*out > 0) || !isfinite(*out)) {
        rc = magic_usage_error(&magic_timeit, err, "%s must be a positive number of %s per run; %s is %g", opt,
                               opt[2] == 'b' ? "bytes" : "floating-point operations", expr, *out);
    }
    free(text);
    return rc;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- the timing, driven from between batches of runs ---- */

enum { PH_WARMUP, PH_DECIDE, PH_AUTO, PH_REPEAT, PH_DONE };

typedef struct timing {
    magic_ctx_t *mc;
    const timeit_opts_t *o;
    int phase;
    unsigned long work0;
    bool events;
    gpu_client_t *g;
    gpu_handle_t ev[2];
    bool have_ev[2];
    int dev;
    double t0;
    long n, r, done;
    double *times;       /* seconds per run, one per repeat */
    progress_t *pg;      /* "repeat k of r" once it has run for a while */
    cell_error_t err;  /* a GPU failure, kept whole for the cell */
} timing_t;

static long gpu_fail(timing_t *t, int code, const char *what) {
    cuda_session_error(t->mc->cuda, code, what, &t->err);
    return -1;
}

static long start_events(timing_t *t) {
    char why[600];
    t->g = cuda_session_client(t->mc->cuda, why, sizeof why);
    if (!t->g) {
        cell_error_set(&t->err, "cudaErrorNoDevice", NULL, "%s", why);
        return -1;
    }
    t->dev = gpu_client_get_device(t->g);
    /* the warm-up's work done, and its errors charged before timing */
    int r = gpu_client_sync(t->g);
    if (!r) r = gpu_client_take_async_error(t->g, NULL, NULL);
    if (r) return gpu_fail(t, r, "in the warm-up run of the timed statement");
    for (int i = 0; i < 2; i++) {
        if ((r = gpu_client_event_create(t->g, &t->ev[i], 0))) return gpu_fail(t, r, "creating an event for timing");
        t->have_ev[i] = true;
    }
    return 0;
}

static long begin(timing_t *t) {
    if (!t->events) {
        t->t0 = now();
        return 0;
    }
    int r = gpu_client_event_record(t->g, t->ev[0], 0);
    return r ? gpu_fail(t, r, "recording the start event") : 0;
}

static long finish(timing_t *t, double *secs) {
    if (!t->events) {
        *secs = now() - t->t0;
        return 0;
    }
    int r = gpu_client_event_record(t->g, t->ev[1], 0);
    if (!r) r = gpu_client_event_sync(t->g, t->ev[1]);
    if (!r) r = gpu_client_take_async_error(t->g, NULL, NULL);
    float ms = 0;
    if (!r) r = gpu_client_event_elapsed(t->g, &ms, t->ev[0], t->ev[1]);
    if (r) return gpu_fail(t, r, "while timing the statement");
    *secs = ms * 1e-3;
    return 0;
}

/* 1, 2, 5, 10, 20, 50, ... */
static long next_n(long n) {
    long d = n;
    while (d >= 10) d /= 10;
    return d == 2 ? n / 2 * 5 : n * 2;
}

static long batch(void *ctx, char *ename, char *msg, size_t ml) {
    timing_t *t = ctx;
    long rc = 0;
    double secs = 0;
    switch (t->phase) {
    case PH_WARMUP:
        t->work0 = cuda_session_work_count(t->mc->cuda);
        t->phase = PH_DECIDE;
        return 1;
    case PH_DECIDE:
        t->events = cuda_session_work_count(t->mc->cuda) != t->work0;
        if (t->events && (rc = start_events(t))) break;
        t->n = t->o->n ? t->o->n : 1;
        t->phase = t->o->n ? PH_REPEAT : PH_AUTO;
        rc = begin(t);
        break;
    case PH_AUTO:
        if ((rc = finish(t, &secs))) break;
        if (secs >= REPEAT_SECONDS || t->n >= TIMEIT_MAX_RUNS / 10) t->phase = PH_REPEAT;
        else t->n = next_n(t->n);
        rc = begin(t);
        break;
    case PH_REPEAT:
        if ((rc = finish(t, &secs))) break;
        t->times[t->done++] = secs / (double)t->n;
        progress_update(t->pg, "%%timeit: %ld of %ld repeats done (%ld run%s each)", t->done, t->r, t->n,
                        t->n == 1 ? "" : "s");
        if (t->done == t->r) {
            t->phase = PH_DONE;
            return 0;
        }
        rc = begin(t);
        break;
    default:
        return 0;
    }
    if (rc) {
        snprintf(ename, INTERP_ENAME_MAX, "%s", t->err.ename ? t->err.ename : "RuntimeError");
        snprintf(msg, ml, "%s", t->err.evalue ? t->err.evalue : "timing failed");
        return -1;
    }
    return t->n;
}

/* ---- what is shown ---- */

/* IPython's way: three significant digits in s, ms, µs or ns. */
static void fmt_time(double s, char *b, size_t n) {
    static const char *const units[] = {"s", "ms", "µs", "ns"};
    int order = 3;
    if (s > 0 && isfinite(s)) {
        order = -(int)floor(floor(log10(s)) / 3.0);
        if (order < 0) order = 0;
        if (order > 3) order = 3;
    }
    double v = s * pow(1000.0, order);
    if (order > 0 && v >= 999.5) v /= 1000, order--;
    snprintf(b, n, "%.3g %s", v, units[order]);
}

typedef struct stats {
    double mean, std, min, max;
} stats_t;

static stats_t stats_of(const double *x, long n) {
    stats_t s = {0, 0, x[0], x[0]};
    for (long i = 0; i < n; i++) {
        s.mean += x[i];
        if (x[i] < s.min) s.min = x[i];
        if (x[i] > s.max) s.max = x[i];
    }
    s.mean /= (double)n;
    for (long i = 0; i < n; i++) s.std += (x[i] - s.mean) * (x[i] - s.mean);
    s.std = sqrt(s.std / (double)n); /* over the repeats, as IPython (no Bessel correction) */
    return s;
}

static void report(magic_ctx_t *mc, const timing_t *t, const stats_t *s, double bytes, double flops,
                   const device_peaks_t *pk) {
    char a[32], b[32], c[32], d[32];
    strbuf_t o = {0};
    fmt_time(s->mean, a, sizeof a);
    fmt_time(s->std, b, sizeof b);
    sb_printf(&o, "%s ± %s per run (mean ± std. dev. of %ld run%s, %ld run%s each; %s)\n", a, b, t->r,
              t->r == 1 ? "" : "s", t->n, t->n == 1 ? "" : "s", t->events ? "CUDA events" : "host clock");
    fmt_time(s->min, c, sizeof c);
    fmt_time(s->max, d, sizeof d);
    sb_printf(&o, "min %s, max %s per run\n", c, d);
    char r1[48], r2[48];
    if (bytes > 0) {
        double bw = bytes / s->mean;
        sb_printf(&o, "memory: %.4g GB/s", bw / 1e9);
        if (!pk) sb_puts(&o, " (host clock: no GPU peak to compare with)\n");
        else if (pk->bw_measured > 0) {
            peaks_fmt_rate(pk->bw_measured, "B/s", r1, sizeof r1);
            peaks_fmt_rate(pk->bw_theory, "B/s", r2, sizeof r2);
            sb_printf(&o, " = %.1f%% of the measured peak %s (%.1f%% of the theoretical %s)\n",
                      100 * bw / pk->bw_measured, r1, 100 * bw / pk->bw_theory, r2);
        } else {
            peaks_fmt_rate(pk->bw_theory, "B/s", r2, sizeof r2);
            sb_printf(&o, " = %.1f%% of the theoretical peak %s (measured peak %s)\n", 100 * bw / pk->bw_theory, r2,
                      pk->bw_note);
        }
    }
    if (flops > 0) {
        double fl = flops / s->mean;
        sb_printf(&o, "compute: %.4g GFLOP/s", fl / 1e9);
        if (!pk) sb_puts(&o, " (host clock: no GPU peak to compare with)\n");
        else {
            peaks_fmt_rate(pk->fp32, "FLOP/s", r1, sizeof r1);
            peaks_fmt_rate(pk->fp64, "FLOP/s", r2, sizeof r2);
            sb_printf(&o, " = %.2f%% of the FP32 peak %s, %.2f%% of the FP64 peak %s%s\n", 100 * fl / pk->fp32, r1,
                      100 * fl / pk->fp64, r2,
                      pk->fma_known ? "" : " (estimated: this compute capability is not in icuda's table)");
        }
    }
    if (bytes > 0 && flops > 0) sb_printf(&o, "arithmetic intensity: %.3g FLOP/byte (%%roofline shows it)\n", flops / bytes);
    char *text = sb_take(&o);
    io_printf(mc->io, "stdout", "%s", text);
    free(text);
    /* as IPython warns: the spread says more than the mean then */
    if (t->r > 1 && s->max > 4 * s->min && s->max > 1e-6)
        io_printf(mc->io, "stderr", "note: the slowest repeat took %.1f times as long as the fastest; something "
                  "may have been cached, or the machine was busy\n", s->max / s->min);
}

/* When compiled host code ran, says so (docs/native-tier.md); without the
 * line, the statement was interpreted. */
static void host_tier_note(magic_ctx_t *mc, long entries, long compiled, double compile_s) {
    if (entries > 0)
        io_printf(mc->io, "stdout", "host code: native tier (compiled code entered %ld times; %ld loop%s or function%s "
                  "compiled or loaded, %.0f ms compiling)\n", entries, compiled, compiled == 1 ? "" : "s",
                  compiled == 1 ? "" : "s", compile_s * 1e3);
}

/* "NAME.field = value;" with a value C reads back exactly (inf and nan too). */
static void assign(strbuf_t *c, const char *name, const char *field, double v) {
    if (isfinite(v)) sb_printf(c, "%s.%s = %.17g;\n", name, field, v);
    else sb_printf(c, "%s.%s = %s;\n", name, field, isnan(v) ? "0.0 / 0.0" : v > 0 ? "1.0 / 0.0" : "-1.0 / 0.0");
}

/* -o NAME: a timeit_result session variable, made by host code so that it
 * is an ordinary variable in every way. */
static int store_result(magic_ctx_t *mc, const char *name, const timing_t *t, const stats_t *s, double bytes,
                        double flops, cell_error_t *err) {
    if (interp_is_type_name(mc->interp, name))
        return magic_usage_error(&magic_timeit, err, "-o %s: %s is a type; name a variable", name, name);
    strbuf_t c = {0};
    /* a second -o into the same name replaces the variable: its old times
     * buffer would be left on the heap with nothing pointing at it */
    json_t *old = interp_describe(mc->interp, name);
    const char *oty = old ? json_string_value(json_object_get(old, "type")) : NULL;
    if (oty && !strcmp(oty, "timeit_result")) sb_printf(&c, "free(%s.times);\n", name);
    json_decref(old);
    sb_printf(&c, "timeit_result %s;\n", name);
    assign(&c, name, "mean", s->mean);
    assign(&c, name, "std", s->std);
    assign(&c, name, "min", s->min);
    assign(&c, name, "max", s->max);
    sb_printf(&c, "%s.runs = %ld; %s.n = %ld; %s.r = %ld;\n", name, t->n * t->r, name, t->n, name, t->r);
    assign(&c, name, "bytes", bytes);
    assign(&c, name, "flops", flops);
    assign(&c, name, "bytes_per_s", bytes > 0 ? bytes / s->mean : 0);
    assign(&c, name, "flops_per_s", flops > 0 ? flops / s->mean : 0);
    sb_printf(&c, "%s.clock = \"%s\";\n", name, t->events ? "CUDA events" : "host clock");
    sb_printf(&c, "%s.times = (double *)malloc(%ld * sizeof(double)); %s.ntimes = %ld;\n", name, t->r, name, t->r);
    for (long i = 0; i < t->r; i++) {
        char f[40];
        snprintf(f, sizeof f, "times[%ld]", i);
        assign(&c, name, f, t->times[i]);
    }
    char *code = sb_take(&c);
    int rc = interp_run(mc->interp, code, mc->cell_name, mc->io, NULL, err);
    free(code);
    if (rc) {
        char *v = NULL;
        if (asprintf(&v, "cannot store the result in %s: %s", name, err->evalue ? err->evalue : "") >= 0) {
            free(err->evalue);
            err->evalue = v;
        }
    }
    return rc;
}

/* A launch's "<<<", also written "<< <" as code formatters write it. */
static const char *launch_open(const char *s) {
    for (const char *p = strstr(s, "<<"); p; p = strstr(p + 1, "<<")) {
        const char *q = p + 2;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '<') return p;
    }
    return NULL;
}

/* What %roofline calls a measurement: the kernel launched, or the statement. */
static char *label_of(const char *stmt) {
    const char *l = launch_open(stmt);
    if (l) {
        const char *e = l;
        while (e > stmt && isspace((unsigned char)e[-1])) e--;
        const char *b = e;
        if (b > stmt && b[-1] == '>') { /* a template instance: scale<float> */
            int depth = 0;
            while (b > stmt) {
                char ch = *--b;
                if (ch == '>') depth++;
                else if (ch == '<' && --depth == 0) break;
            }
        }
        while (b > stmt && (isalnum((unsigned char)b[-1]) || b[-1] == '_' || b[-1] == ':')) b--;
        if (b < e) return xstrndup(b, (size_t)(e - b));
    }
    strbuf_t o = {0};
    bool space = false;
    for (const char *p = stmt; *p; p++) {
        if (isspace((unsigned char)*p)) space = o.len > 0;
        else {
            if (space) sb_putc(&o, ' ');
            space = false;
            sb_putc(&o, *p);
        }
    }
    char *s = sb_take(&o);
    size_t n = strlen(s);
    while (n && s[n - 1] == ';') s[--n] = 0;
    if (n > 48) strcpy(s + 45, "...");
    return s;
}

/* Both forms: setup (may be NULL) and the statement, as the user wrote
 * them; label names the measurement for %roofline. */
static int timeit(magic_ctx_t *mc, const timeit_opts_t *o, const interp_text_t *setup, const interp_text_t *stmt,
                  const char *label, cell_error_t *err) {
    double bytes = 0, flops = 0;
    if (eval_amount(mc, "--bytes", o->bytes, &bytes, err) || eval_amount(mc, "--flops", o->flops, &flops, err))
        return -1;
    interp_prepared_t *prep = interp_prepare(mc->interp, setup, stmt, err);
    if (!prep) return -1;
    timing_t t;
    memset(&t, 0, sizeof t);
    t.mc = mc;
    t.o = o;
    t.r = o->r ? o->r : DEFAULT_REPEATS;
    t.times = xcalloc((size_t)t.r, sizeof *t.times);
    long entries, compiled;
    double compile_s;
    interp_host_tier_take(mc->interp, &entries, &compiled, &compile_s);
    t.pg = progress_start(mc->io, false, "%%timeit: timing");
    int rc = interp_run_prepared(mc->interp, prep, mc->io, batch, &t, err);
    progress_done(t.pg, "%%timeit: %ld of %ld repeats in %.1f s", t.done, t.r, progress_elapsed(t.pg));
    interp_host_tier_take(mc->interp, &entries, &compiled, &compile_s);
    interp_prepared_free(prep);
    for (int i = 0; i < 2; i++)
        if (t.have_ev[i]) gpu_client_event_destroy(t.g, t.ev[i]);
    if (rc && t.err.ename) { /* the GPU's own error, whole */
        cell_error_clear(err);
        *err = t.err;
        memset(&t.err, 0, sizeof t.err);
    }
    cell_error_clear(&t.err);
    if (!rc && t.phase != PH_DONE) {
        cell_error_set(err, "RuntimeError", NULL, "the timed statement left the timing loop (exit() or return) "
                         "before it was timed");
        rc = -1;
    }
    if (rc) {
        free(t.times);
        return -1;
    }
    stats_t s = stats_of(t.times, t.r);
    const device_peaks_t *pk = NULL;
    if (t.events && (bytes > 0 || flops > 0) && peaks_get(mc, t.g, t.dev, &pk, err)) rc = -1;
    if (!rc && !o->quiet) report(mc, &t, &s, bytes, flops, pk);
    if (!rc && !o->quiet) host_tier_note(mc, entries, compiled, compile_s);
    if (!rc && o->out) rc = store_result(mc, o->out, &t, &s, bytes, flops, err);
    if (!rc && bytes > 0 && flops > 0) measure_add(mc, label, bytes, flops, s.mean, t.events ? t.dev : -1);
    free(t.times);
    return rc;
}

/* The magic's line as the user wrote it (give or take spaces): prefix, then args. */
static char *line_text(const char *prefix, const char *args, const char *more) {
    strbuf_t b = {0};
    sb_printf(&b, "%s%s%s", prefix, args, more ? more : "");
    return sb_take(&b);
}

static bool blank(const char *s) {
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return false;
    return true;
}

static int timeit_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    timeit_opts_t o;
    if (timeit_parse_opts(&magic_timeit, args, &o, err)) return -1;
    int rc;
    if (blank(o.rest)) rc = magic_usage_error(&magic_timeit, err, "nothing to time: write a statement after the options");
    else {
        char *line = line_text("%timeit ", args, NULL);
        interp_text_t stmt = {line, strlen("%timeit ") + (size_t)(o.rest - args), "%timeit"};
        char *label = label_of(o.rest);
        rc = timeit(mc, &o, NULL, &stmt, label, err);
        free(label);
        free(line);
    }
    timeit_opts_free(&o);
    return rc;
}

static int timeit_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    timeit_opts_t o;
    if (timeit_parse_opts(&magic_timeit, args, &o, err)) return -1;
    int rc = 0;
    cell_split_t sp;
    split_cell(body, &sp);
    for (size_t i = 0; i < sp.n && !rc; i++) {
        const cell_item_t *it = &sp.items[i];
        /* (a host function's definition gets the interpreter's own error) */
        if (it->kind != ITEM_HOST)
            rc = magic_usage_error(&magic_timeit, err, "%%%%timeit times host statements; line %d holds %s: put it "
                                   "in a cell of its own", it->first_line + 1,
                                   it->kind == ITEM_MAGIC    ? "a magic"
                                   : it->kind == ITEM_DEVICE ? "device code"
                                                             : "a type or macro definition");
    }
    split_free(&sp);
    if (!rc && blank(body)) rc = magic_usage_error(&magic_timeit, err, "nothing to time: the cell's body is empty");
    if (!rc) {
        /* the setup is on the cell's first line, the body from its second */
        char *head = line_text("%%timeit ", args, "\n");
        size_t hl = strlen(head);
        char *cell = line_text(head, body, NULL);
        interp_text_t setup = {head, strlen("%%timeit ") + (size_t)(o.rest - args), mc->cell_name};
        interp_text_t stmt = {cell, hl, mc->cell_name};
        char *label = label_of(body);
        rc = timeit(mc, &o, blank(o.rest) ? NULL : &setup, &stmt, label, err);
        free(label);
        free(cell);
        free(head);
    }
    timeit_opts_free(&o);
    return rc;
}

const magic_t magic_timeit = {
    "timeit", "%timeit [-n N] [-r R] [-o NAME] [-q] [--bytes EXPR] [--flops EXPR] STATEMENT",
    "time a statement: GPU work with CUDA events, host code with the host clock",
    "Runs STATEMENT once to warm up (this also loads its kernels), then R repeats (default 7) of N runs; without\n"
    "-n, N grows 1, 2, 5, 10, 20, ... until one repeat takes 0.2 s, as IPython's %timeit does. When the statement\n"
    "launches kernels or copies or sets device memory, each repeat is bracketed by CUDA events on the default\n"
    "stream, so the launch overhead the GPU hides is not counted; otherwise the host's monotonic clock is read.\n"
    "Shows the mean and standard deviation per run over the repeats, the minimum and maximum, and the clock used.\n"
    "\n"
    "  -n N            runs per repeat            -r R   repeats\n"
    "  -o NAME         store a timeit_result in NAME (NAME.mean, .std, .min, .max in seconds; .runs, .n, .r;\n"
    "                  .bytes_per_s, .flops_per_s; .clock; .times, .ntimes: each repeat's time per run)\n"
    "  -q              show nothing (with -o)\n"
    "  --bytes EXPR    bytes a run moves, a C expression of the session (3 * N * sizeof(double)): GB/s and the\n"
    "                  fraction of the device's peak bandwidth (measured once, beside the theoretical one)\n"
    "  --flops EXPR    floating-point operations per run: GFLOP/s and the fraction of the FP32/FP64 peaks\n"
    "Quote or parenthesize an expression with spaces. With both, the measurement is kept for %roofline.\n"
    "\n"
    "%%timeit [options] [SETUP] times the cell's body; SETUP (the rest of the first line) runs once before,\n"
    "and its variables are visible to the body. Nothing the statement or setup declares stays in the session.\n"
    "See docs/timeit.md.",
    timeit_line, timeit_cell};

/* For %time (env_time.c): the same way of writing a time. */
void timeit_fmt_time(double s, char *b, size_t n) { fmt_time(s, b, n); }
