/* %profile STATEMENT and %%profile: the GPU work of some code
 * traced with CUPTI in the worker (runtime/cuda/cuda_profile.h), shown as a
 * summary per kernel and per copy kind and as a timeline per stream
 * (profile_report.c). The code runs as a cell body would, its output
 * included. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "magics/profile_report.h"
#include "runtime/cuda/cuda_nvtx.h"
#include "runtime/cuda/cuda_profile.h"

typedef struct {
    bool metrics, timeline;
} opts_t;

/* Leading --options; *rest is what follows them. 0, or -1 with a usage error. */
static int parse_opts(const magic_t *m, const char *args, opts_t *o, const char **rest, cell_error_t *err) {
    o->metrics = false;
    o->timeline = true;
    const char *p = args;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (p[0] != '-' || p[1] != '-') break;
        const char *e = p;
        while (*e && !isspace((unsigned char)*e)) e++;
        size_t n = (size_t)(e - p);
        if (n == 2) { /* "--": the statement follows */
            p = e;
            while (isspace((unsigned char)*p)) p++;
            break;
        }
        if (n == 9 && !strncmp(p, "--metrics", n)) o->metrics = true;
        else if (n == 13 && !strncmp(p, "--no-timeline", n)) o->timeline = false;
        else return magic_usage_error(m, err, "unknown option %.*s", (int)n, p);
        p = e;
    }
    *rest = p;
    return 0;
}

static bool blank(const char *s) {
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return false;
    return true;
}

static void show(magic_ctx_t *mc, const gpu_profile_result_t *res, const opts_t *o) {
    char *text = profile_summary_text(res), *html = profile_summary_html(res);
    io_display_text(mc->io, text, html);
    free(text);
    free(html);
    char *svg = o->timeline ? profile_timeline_svg(res) : NULL;
    if (svg && mc->io && mc->io->display) {
        char alt[160];
        snprintf(alt, sizeof alt, "<GPU timeline of %zu activities (an SVG picture)>", res->n);
        json_t *data = json_pack("{s:s,s:s}", "text/plain", alt, "image/svg+xml", svg);
        mc->io->display(mc->io->ctx, data, NULL, false);
        json_decref(data);
    }
    free(svg);
}

/* The NVTX ranges the code closed (runtime/cuda/cuda_nvtx.h): a table. */
static void show_nvtx(magic_ctx_t *mc, int from) {
    char *text = cuda_nvtx_report(mc->cuda, from, false), *html = cuda_nvtx_report(mc->cuda, from, true);
    if (text && html) io_display_text(mc->io, text, html);
    free(text);
    free(html);
}

static int profile_code(magic_ctx_t *mc, const opts_t *o, const char *code, cell_error_t *err) {
    cuda_profile_t *p = NULL;
    char ename[64], msg[2048];
    if (cuda_profile_begin(mc->cuda, &p, ename, sizeof ename, msg, sizeof msg)) {
        cell_error_set(err, ename, NULL, "%%profile: %s", msg);
        return -1;
    }
    if (o->metrics)
        io_printf(mc->io, "stderr",
                  "%%profile --metrics: per-kernel hardware metrics (achieved occupancy, DRAM and SM throughput) "
                  "are not available in this version. They need CUPTI's range profiler, which replays every "
                  "kernel several times, and icuda does not drive it yet: it could not be verified on a GPU. "
                  "The activity trace is taken as usual; for the metrics, run the code as a program under ncu "
                  "--metrics sm__warps_active.avg.pct_of_peak_sustained_active,"
                  "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
                  "sm__throughput.avg.pct_of_peak_sustained_elapsed.\n");
    cell_error_t run_err = {0};
    int nvtx_from = cuda_nvtx_count(mc->cuda);
    int rc = mc->run(mc, code, &run_err);
    show_nvtx(mc, nvtx_from);
    gpu_profile_result_t res;
    char ename2[64], msg2[2048];
    int rc2 = cuda_profile_end(mc->cuda, p, &res, ename2, sizeof ename2, msg2, sizeof msg2);
    if (res.n || (!rc && !rc2)) show(mc, &res, o);
    else if (res.worker_died)
        io_printf(mc->io, "stderr", "%%profile: the GPU worker stopped before it had delivered any record.\n");
    gpu_profile_result_free(&res);
    if (rc) {
        if (rc2) io_printf(mc->io, "stderr", "%%profile: %s\n", msg2);
        cell_error_clear(err);
        *err = run_err;
        return -1;
    }
    cell_error_clear(&run_err);
    if (rc2) {
        cell_error_set(err, ename2, NULL, "%s", msg2);
        return -1;
    }
    return 0;
}

static int profile_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    opts_t o;
    const char *code;
    if (parse_opts(&magic_profile, args, &o, &code, err)) return -1;
    if (blank(code))
        return magic_usage_error(&magic_profile, err, "nothing to profile: give a statement, e.g. "
                                                      "%%profile vecadd<<<grid, block>>>(z, x, y, n);");
    return profile_code(mc, &o, code, err);
}

static int profile_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    opts_t o;
    const char *rest;
    if (parse_opts(&magic_profile, args, &o, &rest, err)) return -1;
    if (!blank(rest))
        return magic_usage_error(&magic_profile, err, "%%%%profile takes only options on its first line (the code "
                                                      "to profile is the cell's body): %s", rest);
    if (blank(body))
        return magic_usage_error(&magic_profile, err, "nothing to profile: the cell's body is empty");
    return profile_code(mc, &o, body, err);
}

const magic_t magic_profile = {
    "profile", "%profile [--no-timeline] [--metrics] STATEMENT   or   %%profile [--no-timeline] [--metrics]",
    "trace the GPU work of a statement or cell with CUPTI: kernel and copy summary, timeline",
    "Runs the statement (or the cell's body) as usual, with CUPTI's activity trace attached to the GPU worker, "
    "and shows what the GPU did:\n"
    "  - per kernel (as written, e.g. scale<float>): grid, block, registers, shared memory, calls, total, mean, "
    "min and max time, % of GPU time;\n"
    "  - per copy kind (HtoD, DtoH, DtoD, memset): calls, bytes, time, GB/s;\n"
    "  - a timeline of every kernel and copy per stream (SVG; hover a bar for details).\n"
    "Earlier GPU work finishes before the trace starts; the trace ends with a device synchronisation. CUPTI is "
    "attached only during %profile, so other cells run at full speed.\n"
    "--no-timeline  the summary alone\n"
    "--metrics      per-kernel hardware metrics (not available in this version; says why)",
    profile_line, profile_cell};
