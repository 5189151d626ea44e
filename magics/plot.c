/* %plot and %hist: arrays of the session drawn as one
 * display_data with a Vega-Lite spec (interactive in JupyterLab and
 * Notebook: hover, zoom, export), an SVG drawn by chart.h (nbconvert,
 * GitHub, every other front end) and a one-line text/plain summary. Above
 * MAX_POINTS points a series is thinned for display, and the chart says so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrays.h"
#include "chart.h"
#include "magic_args.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/utf8.h"

#include "runtime/base/xalloc.h"
#define MAX_POINTS 10000
#define VEGALITE_MIME "application/vnd.vegalite.v5+json" /* JupyterLab 4 / Notebook 7 take v3, v4 and v5 */
#define VEGALITE_SCHEMA "https://vega.github.io/schema/vega-lite/v5.json"
/* One series of points, thinned to at most MAX_POINTS for display. */
typedef struct series {
    char label[96];
    double *x, *y;
    int n;           /* shown */
    uint64_t total;  /* in the data */
    uint64_t step;   /* every step-th point is shown (1: all) */
    uint64_t dropped; /* not finite, or <= 0 on a log axis */
} series_t;

static bool usable(double v, bool log) { return isfinite(v) && (!log || v > 0); }

static json_t *vl_axis(const char *field, const char *title, bool log, const char *type) {
    json_t *a = json_pack("{s:s, s:s}", "field", field, "type", type);
    if (title) json_object_set_new(a, "title", json_string(title));
    if (log) json_object_set_new(a, "scale", json_pack("{s:s}", "type", "log"));
    return a;
}

static json_t *vl_spec(const plot_opts_t *o, json_t *values) {
    json_t *s = json_pack("{s:s, s:i, s:i, s:{s:o}}", "$schema", VEGALITE_SCHEMA, "width", 560, "height", 340, "data",
                          "values", values);
    if (o->title) json_object_set_new(s, "title", json_string(o->title));
    /* dragging pans, the wheel zooms */
    json_object_set_new(s, "params", json_pack("[{s:s, s:{s:s}, s:s}]", "name", "zoom", "select", "type", "interval",
                                               "bind", "scales"));
    return s;
}

static void display(magic_ctx_t *mc, json_t *spec, char *svg, const char *plain) {
    json_t *data = json_pack("{s:s, s:s, s:o}", "text/plain", plain, "image/svg+xml", svg, VEGALITE_MIME, spec);
    if (mc->io && mc->io->display) mc->io->display(mc->io->ctx, data, NULL, false);
    json_decref(data);
    free(svg);
}

/* The label of series i: --labels' i-th, else the expression. */
static void series_label(const plot_opts_t *o, int i, const char *expr, char *buf, size_t n) {
    const char *l = o->labels;
    for (int k = 0; l && k < i; k++) {
        l = strchr(l, ',');
        if (l) l++;
    }
    if (l && *l) {
        size_t len = strcspn(l, ",");
        snprintf(buf, n, "%.*s", (int)len, l);
    } else snprintf(buf, n, "%s", expr);
}

static void free_series(series_t *s, int n) {
    for (int i = 0; i < n; i++) {
        free(s[i].x);
        free(s[i].y);
    }
}

static int plot_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    plot_opts_t o;
    series_t ser[PLOT_MAX_SERIES];
    memset(ser, 0, sizeof ser);
    int nser = 0, rc = plot_parse_opts(&magic_plot, argv, argc, false, &o, err);
    double *xs = NULL;
    uint64_t nx = 0;
    interp_array_t ax;
    /* one array: plotted against its index, as matplotlib does */
    bool indexed = o.nargs == 1;
    if (!rc && !indexed) {
        rc = magic_array(mc, "%plot", o.args[0], &ax, err);
        if (!rc && !(xs = magic_array_doubles(mc, &ax, ax.count, err))) rc = -1;
        nx = rc ? 0 : ax.count;
    }
    for (int i = indexed ? 0 : 1; !rc && i < o.nargs; i++) {
        interp_array_t ay;
        if ((rc = magic_array(mc, "%plot", o.args[i], &ay, err))) break;
        uint64_t n = indexed ? ay.count : (ay.count < nx ? ay.count : nx);
        double *ys = magic_array_doubles(mc, &ay, n, err);
        if (!ys) { rc = -1; break; }
        series_t *s = &ser[nser++];
        series_label(&o, i - (indexed ? 0 : 1), o.args[i], s->label, sizeof s->label);
        for (int k = 0; k < nser - 1; k++) /* Vega-Lite merges series of one name */
            if (!strcmp(ser[k].label, s->label)) {
                size_t l = strlen(s->label);
                snprintf(s->label + l, sizeof s->label - l, " (%d)", nser);
                break;
            }
        s->total = n;
        uint64_t step = n > MAX_POINTS ? (n + MAX_POINTS - 1) / MAX_POINTS : 1;
        s->step = step;
        s->x = xmalloc((n / step + 2) * sizeof *s->x);
        s->y = xmalloc((n / step + 2) * sizeof *s->y);
        for (uint64_t k = 0; k < n; k += step) {
            double x = indexed ? (double)k : xs[k];
            if (!usable(x, o.xlog) || !usable(ys[k], o.ylog)) {
                s->dropped++;
                continue;
            }
            s->x[s->n] = x;
            s->y[s->n++] = ys[k];
        }
        free(ys);
    }
    if (rc) goto out;
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    uint64_t total = 0, dropped = 0;
    int shown = 0;
    bool thinned = false;
    json_t *values = json_array();
    for (int i = 0; i < nser; i++) {
        total += ser[i].total;
        shown += ser[i].n;
        dropped += ser[i].dropped;
        thinned |= ser[i].step > 1;
        for (int k = 0; k < ser[i].n; k++) {
            double x = ser[i].x[k], y = ser[i].y[k];
            x0 = fmin(x0, x), x1 = fmax(x1, x), y0 = fmin(y0, y), y1 = fmax(y1, y);
            json_array_append_new(values, json_pack("{s:f, s:f, s:s}", "x", x, "y", y, "series", ser[i].label));
        }
    }
    if (shown == 0) {
        json_decref(values);
        rc = magic_usage_error(&magic_plot, err, "nothing to draw: the arrays are empty%s",
                               o.xlog || o.ylog ? " or hold no positive values for a log axis" : "");
        goto out;
    }
    if (o.kind == PLOT_BAR && !o.ylog) y0 = fmin(y0, 0);
    if (x0 == x1) x0 -= o.xlog ? x0 / 2 : 1, x1 += o.xlog ? x1 : 1;
    if (y0 == y1) y0 -= o.ylog ? y0 / 2 : 1, y1 += o.ylog ? y1 : 1;
    char note[160] = "";
    if (thinned) snprintf(note, sizeof note, "%d of %llu points shown (down-sampled for display)", shown,
                          (unsigned long long)total);
    char title[400];
    snprintf(title, sizeof title, "%s%s%s", o.title ? o.title : "", o.title && thinned ? " — " : "", note);
    title[utf8_whole(title, strlen(title))] = 0;
    const char *xl = o.xlabel ? o.xlabel : indexed ? "index" : o.args[0];
    chart_t *c = chart_new(&(chart_opts_t){.title = title[0] ? title : NULL, .xlabel = xl, .ylabel = o.ylabel,
                                           .xlog = o.xlog, .ylog = o.ylog, .no_legend = nser == 1 && !o.labels});
    if (o.kind == PLOT_BAR && !o.xlog) {
        double pad = (x1 - x0) / (2.0 * (ser[0].n > 1 ? ser[0].n - 1 : 1));
        chart_range(c, x0 - pad, x1 + pad, y0, y1);
    } else chart_range(c, x0, x1, y0, y1);
    for (int i = 0; i < nser; i++) {
        series_t *s = &ser[i];
        if (o.kind == PLOT_SCATTER) chart_points(c, s->x, s->y, s->n, i, s->label);
        else if (o.kind == PLOT_BAR) {
            double w = s->n > 1 ? (s->x[s->n - 1] - s->x[0]) / (s->n - 1) * 0.8 / nser : 0.8;
            for (int k = 0; k < s->n; k++) {
                double left = s->x[k] - w * nser / 2 + w * i;
                char t[256], a[32], b[32];
                chart_fmt(s->x[k], a, sizeof a);
                chart_fmt(s->y[k], b, sizeof b);
                snprintf(t, sizeof t, "%.96s: (%s, %s)", s->label, a, b);
                chart_box(c, o.xlog ? s->x[k] * 0.9 : left, o.ylog ? y0 : 0, o.xlog ? s->x[k] * 1.1 : left + w, s->y[k], i, t);
            }
            chart_line(c, NULL, NULL, 0, i, s->label); /* the legend's entry */
        } else {
            chart_line(c, s->x, s->y, s->n, i, s->label);
            if (s->n <= 60) chart_points(c, s->x, s->y, s->n, i, NULL);
        }
    }
    char *svg = chart_finish(c);
    json_t *spec = vl_spec(&o, values);
    if (thinned) json_object_set_new(spec, "title", json_pack("{s:s, s:s}", "text", o.title ? o.title : "", "subtitle", note));
    const char *mark = o.kind == PLOT_SCATTER ? "point" : o.kind == PLOT_BAR ? "bar" : "line";
    json_object_set_new(spec, "mark", json_pack("{s:s, s:b}", "type", mark, "tooltip", 1));
    if (o.kind == PLOT_LINE && shown <= 60 * nser) json_object_set_new(json_object_get(spec, "mark"), "point", json_true());
    json_t *enc = json_object();
    json_object_set_new(enc, "x", vl_axis("x", xl, o.xlog, o.kind == PLOT_BAR ? "ordinal" : "quantitative"));
    json_object_set_new(enc, "y", vl_axis("y", o.ylabel, o.ylog, "quantitative"));
    json_object_set_new(enc, "color", json_pack("{s:s, s:s, s:n}", "field", "series", "type", "nominal", "title"));
    if (o.kind == PLOT_BAR && nser > 1) json_object_set_new(enc, "xOffset", json_pack("{s:s}", "field", "series"));
    json_object_set_new(spec, "encoding", enc);
    strbuf_t t = {0};
    sb_printf(&t, "%s plot of %d series, %llu points", o.kind == PLOT_BAR ? "bar" : o.kind == PLOT_SCATTER ? "scatter" : "line",
              nser, (unsigned long long)total);
    if (o.xlog || o.ylog) sb_printf(&t, " (%s)", o.xlog && o.ylog ? "log-log" : o.xlog ? "log x" : "log y");
    char a[32], b[32];
    chart_fmt(x0, a, sizeof a);
    chart_fmt(x1, b, sizeof b);
    sb_printf(&t, "; x from %s to %s", a, b);
    for (int i = 0; i < nser; i++) sb_printf(&t, "%s%s", i ? ", " : ": ", ser[i].label);
    if (thinned) sb_printf(&t, "; %s", note);
    if (dropped)
        sb_printf(&t, "; %llu left out (not finite%s)", (unsigned long long)dropped,
                  o.xlog || o.ylog ? ", or <= 0 on a log axis" : "");
    char *plain = sb_take(&t);
    display(mc, spec, svg, plain);
    free(plain);
out:
    free(xs);
    free_series(ser, nser);
    magic_free_args(argv, argc);
    return rc;
}

static int hist_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    plot_opts_t o;
    interp_array_t a;
    double *v = NULL;
    int rc = plot_parse_opts(&magic_hist, argv, argc, true, &o, err);
    if (!rc) rc = magic_array(mc, "%hist", o.args[0], &a, err);
    if (!rc && !(v = magic_array_doubles(mc, &a, a.count, err))) rc = -1;
    if (rc) goto out;
    double lo = INFINITY, hi = -INFINITY;
    uint64_t used = 0;
    for (uint64_t i = 0; i < a.count; i++)
        if (usable(v[i], o.xlog)) lo = fmin(lo, v[i]), hi = fmax(hi, v[i]), used++;
    if (!used) {
        rc = magic_usage_error(&magic_hist, err, "nothing to count: %s holds no finite values", o.args[0]);
        goto out;
    }
    if (hi == lo) lo -= 0.5, hi += 0.5;
    int nb = (int)o.bins;
    double *edge = xmalloc((nb + 1) * sizeof *edge), *cnt = xcalloc(nb, sizeof *cnt);
    for (int i = 0; i <= nb; i++)
        edge[i] = o.xlog ? pow(10, log10(lo) + (log10(hi) - log10(lo)) * i / nb) : lo + (hi - lo) * i / nb;
    for (uint64_t i = 0; i < a.count; i++) {
        if (!usable(v[i], o.xlog)) continue;
        double f = o.xlog ? (log10(v[i]) - log10(lo)) / (log10(hi) - log10(lo)) : (v[i] - lo) / (hi - lo);
        int k = (int)(f * nb);
        cnt[k < 0 ? 0 : k >= nb ? nb - 1 : k]++; /* the last edge belongs to the last bin, as numpy counts */
    }
    double cmax = 0;
    for (int i = 0; i < nb; i++) cmax = fmax(cmax, cnt[i]);
    char title[300];
    snprintf(title, sizeof title, "%s", o.title ? o.title : "");
    title[utf8_whole(title, strlen(title))] = 0;
    chart_t *c = chart_new(&(chart_opts_t){.title = title[0] ? title : NULL, .xlabel = o.xlabel ? o.xlabel : o.args[0],
                                           .ylabel = o.ylabel ? o.ylabel : "count", .xlog = o.xlog, .ylog = o.ylog,
                                           .no_legend = true});
    chart_range(c, edge[0], edge[nb], o.ylog ? 0.5 : 0, cmax > 0 ? cmax * 1.05 : 1);
    json_t *values = json_array();
    for (int i = 0; i < nb; i++) {
        char t[160], x0[32], x1[32];
        chart_fmt(edge[i], x0, sizeof x0);
        chart_fmt(edge[i + 1], x1, sizeof x1);
        snprintf(t, sizeof t, "[%s, %s): %.0f", x0, x1, cnt[i]);
        if (cnt[i] > 0) chart_box(c, edge[i], o.ylog ? 0.5 : 0, edge[i + 1], cnt[i], 0, t);
        json_array_append_new(values, json_pack("{s:f, s:f, s:f}", "start", edge[i], "end", edge[i + 1], "count", cnt[i]));
    }
    char *svg = chart_finish(c);
    json_t *spec = vl_spec(&o, values);
    json_object_set_new(spec, "mark", json_pack("{s:s, s:b}", "type", "bar", "tooltip", 1));
    json_t *enc = json_object();
    json_object_set_new(enc, "x", vl_axis("start", o.xlabel ? o.xlabel : o.args[0], o.xlog, "quantitative"));
    json_object_set_new(enc, "x2", json_pack("{s:s}", "field", "end"));
    json_object_set_new(enc, "y", vl_axis("count", o.ylabel ? o.ylabel : "count", o.ylog, "quantitative"));
    json_object_set_new(spec, "encoding", enc);
    char plain[400], a0[32], a1[32];
    chart_fmt(lo, a0, sizeof a0);
    chart_fmt(hi, a1, sizeof a1);
    snprintf(plain, sizeof plain, "histogram of %s: %llu values in %d bins from %s to %s, at most %.0f in a bin",
             o.args[0], (unsigned long long)used, nb, a0, a1, cmax);
    display(mc, spec, svg, plain);
    free(edge);
    free(cnt);
out:
    free(v);
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_plot = {
    "plot", "%plot [--loglog|--logx|--logy] [--title T] [--xlabel X] [--ylabel Y] [--labels a,b,...] "
            "[--kind line|scatter|bar] XS YS [YS2 ...]",
    "plot arrays of the session (interactive Vega-Lite, static SVG)",
    "Each array is a host array, a pointer with a count (ptr:n), a device buffer (copied to the host for\n"
    "display) or a timeit_result's times (r.times). One array alone is plotted against its index. Series\n"
    "longer than 10000 points are down-sampled for display, and the chart says so. Values that are not\n"
    "finite, and values <= 0 on a log axis, are left out.\n"
    "The output holds a Vega-Lite chart (JupyterLab and Notebook draw it: hover, zoom, export), an SVG\n"
    "picture for nbconvert and GitHub, and a one-line text summary.\n"
    "  %plot --loglog --labels gpu,cpu --xlabel n --ylabel seconds sizes t_gpu t_cpu",
    plot_line, NULL};

const magic_t magic_hist = {
    "hist", "%hist [--bins N] [--logx] [--logy] [--title T] [--xlabel X] [--ylabel Y] ARRAY",
    "histogram of an array of the session",
    "ARRAY is as for %plot (host array, ptr:n, device buffer). --bins N equal bins (10 unless told; on a\n"
    "log x axis, equal in log) from the smallest to the largest finite value; the last bin holds its right\n"
    "edge, as numpy.histogram counts.",
    hist_line, NULL};
