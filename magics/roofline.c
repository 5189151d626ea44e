/* %roofline: the kernels %timeit measured with both
 * --bytes and --flops, as points on the current device's roofline: the
 * measured bandwidth's slope up to the FP32 (or FP64) compute roof, log-log,
 * arithmetic intensity (FLOP/byte) against GFLOP/s. A picture (SVG, drawn
 * with chart.h) and a table saying, for each kernel, whether it is memory-
 * or compute-bound and how close it is to its roof. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "measure.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/base/strbuf.h"

static void html_escape(strbuf_t *b, const char *s) {
    char e[512];
    chart_escape(s, e, sizeof e);
    sb_puts(b, e);
}

static char *draw(const measure_state_t *s, const device_peaks_t *pk, bool fp64, double bw, int *plotted) {
    double peak = (fp64 ? pk->fp64 : pk->fp32) / 1e9, gbs = bw / 1e9, ridge = peak / gbs;
    double xmin = ridge, xmax = ridge, ymin = peak, ymax = peak;
    *plotted = 0;
    for (int i = 0; i < s->nm; i++) {
        const measurement_t *m = &s->m[i];
        if (m->dev != pk->dev) continue;
        double x = m->flops / m->bytes, y = m->flops / m->seconds / 1e9;
        if (x < xmin) xmin = x;
        if (x > xmax) xmax = x;
        if (y < ymin) ymin = y;
        if (y > ymax) ymax = y;
        (*plotted)++;
    }
    char title[400];
    snprintf(title, sizeof title, "Roofline: %s (%s)", pk->name, fp64 ? "FP64" : "FP32");
    chart_t *c = chart_new(&(chart_opts_t){.width = 720, .height = 460, .title = title, .xlog = true, .ylog = true,
                                           .xlabel = "arithmetic intensity (FLOP/byte)", .ylabel = "GFLOP/s"});
    chart_range(c, xmin / 4, xmax * 4, ymin / 4, ymax * 2);
    /* the roofs run past the frame and are clipped to it */
    double lo = xmin / 1e3, hi = xmax * 1e3;
    char lab[200], r1[48], r2[48];
    peaks_fmt_rate(bw, "B/s", r1, sizeof r1);
    peaks_fmt_rate(fp64 ? pk->fp64 : pk->fp32, "FLOP/s", r2, sizeof r2);
    snprintf(lab, sizeof lab, "roof: %s %s, %s %s", r1, pk->bw_measured > 0 ? "measured" : "theoretical", r2,
             fp64 ? "FP64" : "FP32");
    double rx[3] = {lo, ridge, hi}, ry[3] = {lo * gbs, peak, peak};
    chart_line(c, rx, ry, 3, 0, lab);
    if (pk->bw_measured > 0) {
        double tg = pk->bw_theory / 1e9;
        double tx[2] = {lo, peak / tg}, ty[2] = {lo * tg, peak};
        peaks_fmt_rate(pk->bw_theory, "B/s", r1, sizeof r1);
        snprintf(lab, sizeof lab, "theoretical bandwidth %s", r1);
        chart_dashed(c, tx, ty, 2, 7, lab);
    }
    int k = 0;
    for (int i = 0; i < s->nm; i++) {
        const measurement_t *m = &s->m[i];
        if (m->dev != pk->dev) continue;
        double x = m->flops / m->bytes, y = m->flops / m->seconds / 1e9;
        chart_points(c, &x, &y, 1, 1 + k % 9, m->label);
        chart_note(c, x * 1.12, y, m->label, 's', 1 + k % 9);
        k++;
    }
    return chart_finish(c);
}

static void table(const measure_state_t *s, const device_peaks_t *pk, bool fp64, double bw, strbuf_t *t,
                  strbuf_t *h) {
    double peak = pk ? (fp64 ? pk->fp64 : pk->fp32) : 0, ridge = pk ? peak / bw : 0;
    sb_printf(t, "%-3s %-28s %10s %11s %10s %11s  %s\n", "#", "kernel", "FLOP/byte", "GFLOP/s", "GB/s", "time/run",
              pk ? "bound, % of its roof" : "");
    sb_puts(h, "<table><thead><tr><th>#</th><th>kernel</th><th>FLOP/byte</th><th>GFLOP/s</th><th>GB/s</th>"
               "<th>time/run</th><th>bound</th><th>% of its roof</th></tr></thead><tbody>");
    for (int i = 0; i < s->nm; i++) {
        const measurement_t *m = &s->m[i];
        double x = m->flops / m->bytes, gf = m->flops / m->seconds / 1e9, gb = m->bytes / m->seconds / 1e9;
        char where[96] = "", frac[32] = "";
        if (m->dev < 0) snprintf(where, sizeof where, "host clock: not on a GPU roofline");
        else if (!pk) snprintf(where, sizeof where, "device %d", m->dev);
        else if (m->dev != pk->dev) snprintf(where, sizeof where, "device %d: see %%device %d", m->dev, m->dev);
        else {
            double roof = fmin(peak, bw * x);
            snprintf(where, sizeof where, "%s", x < ridge ? "memory" : "compute");
            snprintf(frac, sizeof frac, "%.1f%%", 100 * m->flops / m->seconds / roof);
        }
        sb_printf(t, "%-3d %-28.28s %10.3g %11.4g %10.4g %9.3g µs  %s%s%s\n", i + 1, m->label, x, gf, gb,
                  m->seconds * 1e6, where, frac[0] ? ", " : "", frac);
        sb_printf(h, "<tr><td>%d</td><td><code>", i + 1);
        html_escape(h, m->label);
        sb_printf(h, "</code></td><td>%.3g</td><td>%.4g</td><td>%.4g</td><td>%.3g µs</td><td>%s</td><td>%s</td></tr>",
                  x, gf, gb, m->seconds * 1e6, where, frac);
    }
    sb_puts(h, "</tbody></table>");
}

static int roofline_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    bool fp64 = false, clear = false;
    int rc = 0;
    for (int i = 0; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--fp64")) fp64 = true;
        else if (!strcmp(argv[i], "--clear")) clear = true;
        else rc = magic_usage_error(&magic_roofline, err, "unknown argument %s", argv[i]);
    }
    magic_free_args(argv, argc);
    if (rc) return rc;
    if (clear) {
        int n = measure_clear(mc);
        io_printf(mc->io, "stdout", "forgot %d measurement%s\n", n, n == 1 ? "" : "s");
        return 0;
    }
    const measure_state_t *s = measure_state(mc);
    if (s->nm == 0) {
        io_printf(mc->io, "stdout",
                  "No measurements yet: %%roofline draws what %%timeit measured with both --bytes and --flops, e.g.\n"
                  "    %%timeit --bytes 3*N*sizeof(double) --flops N vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N)\n"
                  "then run %%roofline again.\n");
        return 0;
    }
    char why[600];
    gpu_client_t *g = cuda_session_client(mc->cuda, why, sizeof why);
    strbuf_t t = {0}, h = {0};
    const device_peaks_t *pk = NULL;
    if (g && peaks_get(mc, g, gpu_client_get_device(g), &pk, err)) return -1;
    double bw = pk ? (pk->bw_measured > 0 ? pk->bw_measured : pk->bw_theory) : 0;
    if (!pk) {
        sb_printf(&t, "No roofline without a GPU (%s); the measurements:\n", why);
        sb_puts(&h, "<p>No roofline without a GPU; the measurements:</p>");
    } else {
        int plotted = 0;
        char *svg = draw(s, pk, fp64, bw, &plotted);
        char alt[340];
        snprintf(alt, sizeof alt, "[roofline of %s with %d kernel%s]", pk->name, plotted, plotted == 1 ? "" : "s");
        json_t *data = json_pack("{s:s,s:s}", "image/svg+xml", svg, "text/plain", alt);
        if (mc->io && mc->io->display) mc->io->display(mc->io->ctx, data, NULL, false);
        json_decref(data);
        free(svg);
        char r1[48], r2[48], r3[48];
        peaks_fmt_rate(bw, "B/s", r1, sizeof r1);
        peaks_fmt_rate(pk->bw_theory, "B/s", r2, sizeof r2);
        peaks_fmt_rate(fp64 ? pk->fp64 : pk->fp32, "FLOP/s", r3, sizeof r3);
        sb_printf(&t, "%s, device %d: bandwidth %s (%s; theoretical %s), %s peak %s%s; ridge at %.3g FLOP/byte\n",
                  pk->name, pk->dev, r1, pk->bw_measured > 0 ? pk->bw_note : "theoretical: not measured", r2,
                  fp64 ? "FP64" : "FP32", r3, pk->fma_known ? "" : " (estimated)",
                  (fp64 ? pk->fp64 : pk->fp32) / bw);
        sb_printf(&h, "<p>%s, device %d: bandwidth %s (theoretical %s), %s peak %s; ridge at %.3g FLOP/byte</p>",
                  pk->name, pk->dev, r1, r2, fp64 ? "FP64" : "FP32", r3, (fp64 ? pk->fp64 : pk->fp32) / bw);
    }
    table(s, pk, fp64, bw, &t, &h);
    char *plain = sb_take(&t), *html = sb_take(&h);
    io_display_text(mc->io, plain, html);
    free(plain);
    free(html);
    return 0;
}

const magic_t magic_roofline = {
    "roofline", "%roofline [--fp64] [--clear]",
    "the kernels %timeit measured (--bytes and --flops) on the device's roofline",
    "Every %timeit run with both --bytes and --flops is remembered; %roofline draws them on the current device's\n"
    "roofline: arithmetic intensity (FLOP/byte) against GFLOP/s, log-log, under the measured peak bandwidth\n"
    "(a device-to-device copy; the theoretical one dashed) and the FP32 compute peak (--fp64: FP64), with a table\n"
    "saying whether each kernel is memory- or compute-bound and what fraction of its roof it reaches.\n"
    "--clear forgets the measurements. See docs/timeit.md.",
    roofline_line, NULL};
