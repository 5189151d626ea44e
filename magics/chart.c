/* SVG charts (chart.h): data go into the plot area as they come, clipped to
 * it; the frame, ticks, labels and legend are written by chart_finish, when
 * everything about the picture is known. */
#include "chart.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"
#include "runtime/base/utf8.h"

#include "runtime/base/xalloc.h"
#define ML 72.0 /* margins: room for tick labels and axis titles */
#define MR 24.0
#define MT 40.0
#define MB 54.0
#define MAX_TICKS 40
#define MAX_LEGEND 16

struct chart {
    chart_opts_t o;
    double w, h, x0, x1, y0, y1; /* plot area in pixels */
    double xlo, xhi, ylo, yhi;   /* data range (log10 of it on log axes) */
    bool ranged;
    strbuf_t body;
    struct { int color; char kind; char label[96]; } legend[MAX_LEGEND];
    int nlegend;
    const char *const *cats;
    int ncats;
    char title[256], xlabel[160], ylabel[160];
};

const char *chart_color(int i) {
    static const char *pal[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    return pal[(i % 10 + 10) % 10];
}

void chart_escape(const char *s, char *buf, size_t n) {
    size_t o = 0;
    if (!n) return;
    for (; s && *s && o + 7 < n; s++) {
        const char *r = NULL;
        switch (*s) {
        case '&': r = "&amp;"; break;
        case '<': r = "&lt;"; break;
        case '>': r = "&gt;"; break;
        case '"': r = "&quot;"; break;
        }
        if (r) {
            size_t l = strlen(r);
            memcpy(buf + o, r, l);
            o += l;
        } else if ((unsigned char)*s >= 0x20 || *s == '\t') {
            buf[o++] = *s;
        }
    }
    buf[utf8_whole(buf, o)] = 0;
}

void chart_fmt(double v, char *buf, size_t n) {
    double a = fabs(v);
    static const char *si[] = {"", "k", "M", "G", "T", "P", "E"};
    if (v == 0) snprintf(buf, n, "0");
    else if (a >= 1e4 && a < 1e21) {
        int k = 0;
        while (a >= 1000 && k < 6) {
            a /= 1000;
            v /= 1000;
            k++;
        }
        snprintf(buf, n, "%.3g%s", v, si[k]);
    } else if (a < 1e-3 || a >= 1e21) snprintf(buf, n, "%.0e", v);
    else snprintf(buf, n, "%.4g", v);
}

int chart_ticks(double lo, double hi, bool log, double *out, int max) {
    int n = 0;
    if (!(hi > lo) || max <= 0) {
        if (max > 0 && isfinite(lo)) out[n++] = lo;
        return n;
    }
    if (log) {
        if (lo <= 0) return 0;
        int a = (int)floor(log10(lo) + 1e-9), b = (int)ceil(log10(hi) - 1e-9);
        int step = 1;
        while ((b - a) / step + 1 > 10) step++;
        bool minor = b - a <= 2; /* a short log axis: 2 and 5 in between too */
        for (int e = a; e <= b && n < max; e += step) {
            double d = pow(10, e);
            if (d >= lo * (1 - 1e-9) && d <= hi * (1 + 1e-9)) out[n++] = d;
            if (minor)
                for (int m = 2; m <= 5 && n < max; m += 3)
                    if (d * m >= lo && d * m <= hi) out[n++] = d * m;
        }
        if (n < 2 && max >= 2) { /* inside one decade: fall back to linear steps */
            return chart_ticks(lo, hi, false, out, max);
        }
        return n;
    }
    double span = hi - lo, raw = span / 6, mag = pow(10, floor(log10(raw))), step = mag;
    if (raw / mag > 5) step = 10 * mag;
    else if (raw / mag > 2) step = 5 * mag;
    else if (raw / mag > 1) step = 2 * mag;
    for (double t = ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && n < max; t += step)
        out[n++] = fabs(t) < step * 1e-9 ? 0 : t;
    return n;
}

chart_t *chart_new(const chart_opts_t *o) {
    chart_t *c = xcalloc(1, sizeof *c);
    if (o) c->o = *o;
    c->w = c->o.width > 0 ? c->o.width : 640;
    c->h = c->o.height > 0 ? c->o.height : 400;
    c->x0 = ML;
    c->x1 = c->w - MR;
    c->y0 = MT;
    c->y1 = c->h - MB;
    chart_escape(c->o.title, c->title, sizeof c->title);
    chart_escape(c->o.xlabel, c->xlabel, sizeof c->xlabel);
    chart_escape(c->o.ylabel, c->ylabel, sizeof c->ylabel);
    chart_range(c, 0, 1, 0, 1);
    c->ranged = false;
    return c;
}

/* A range worth drawing: positive on log axes, not empty. */
static void fix_range(double *lo, double *hi, bool log) {
    if (!isfinite(*lo) || !isfinite(*hi)) *lo = 0, *hi = 1;
    if (log) {
        if (*hi <= 0) *hi = 1;
        if (*lo <= 0) *lo = *hi / 1000;
        if (*hi <= *lo) *hi = *lo * 10, *lo /= 10;
    } else if (*hi <= *lo) {
        double d = *lo ? fabs(*lo) / 10 : 1;
        *lo -= d;
        *hi += d;
    }
}

/* Widens a range to whole decades or ticks, so the frame ends on a
 * labelled value. */
static void round_axis(double *lo, double *hi, bool log) {
    double t[MAX_TICKS];
    if (log) {
        *lo = pow(10, floor(log10(*lo) + 1e-9));
        *hi = pow(10, ceil(log10(*hi) - 1e-9));
    } else if (chart_ticks(*lo, *hi, false, t, MAX_TICKS) >= 2) {
        double step = t[1] - t[0];
        *lo = floor(*lo / step + 1e-9) * step;
        *hi = ceil(*hi / step - 1e-9) * step;
    }
}

void chart_range(chart_t *c, double xmin, double xmax, double ymin, double ymax) {
    fix_range(&xmin, &xmax, c->o.xlog);
    fix_range(&ymin, &ymax, c->o.ylog);
    round_axis(&xmin, &xmax, c->o.xlog);
    round_axis(&ymin, &ymax, c->o.ylog);
    c->xlo = c->o.xlog ? log10(xmin) : xmin;
    c->xhi = c->o.xlog ? log10(xmax) : xmax;
    c->ylo = c->o.ylog ? log10(ymin) : ymin;
    c->yhi = c->o.ylog ? log10(ymax) : ymax;
    if (c->xhi <= c->xlo) c->xhi = c->xlo + 1;
    if (c->yhi <= c->ylo) c->yhi = c->ylo + 1;
    c->ranged = true;
}

double chart_px(const chart_t *c, double x) {
    double v = c->o.xlog ? log10(x) : x;
    return c->x0 + (v - c->xlo) / (c->xhi - c->xlo) * (c->x1 - c->x0);
}

double chart_py(const chart_t *c, double y) {
    double v = c->o.ylog ? log10(y) : y;
    return c->y1 - (v - c->ylo) / (c->yhi - c->ylo) * (c->y1 - c->y0);
}

static bool shown(const chart_t *c, double x, double y) {
    return isfinite(x) && isfinite(y) && (!c->o.xlog || x > 0) && (!c->o.ylog || y > 0);
}

static void add_legend(chart_t *c, int color, char kind, const char *label) {
    if (!label || !*label || c->nlegend == MAX_LEGEND) return;
    c->legend[c->nlegend].color = color;
    c->legend[c->nlegend].kind = kind;
    snprintf(c->legend[c->nlegend].label, sizeof c->legend[0].label, "%s", label);
    c->nlegend++;
}

static void polyline(chart_t *c, const double *x, const double *y, int n, int color, const char *dash) {
    bool open = false;
    for (int i = 0; i < n; i++) {
        if (!shown(c, x[i], y[i])) { /* a gap: values a log axis cannot show */
            if (open) sb_puts(&c->body, "\"/>\n");
            open = false;
            continue;
        }
        if (!open)
            sb_printf(&c->body, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                      chart_color(color), dash);
        sb_printf(&c->body, "%s%.1f,%.1f", open ? " " : "", chart_px(c, x[i]), chart_py(c, y[i]));
        open = true;
    }
    if (open) sb_puts(&c->body, "\"/>\n");
}

void chart_line(chart_t *c, const double *x, const double *y, int n, int color, const char *label) {
    polyline(c, x, y, n, color, "");
    add_legend(c, color, 'l', label);
}

void chart_dashed(chart_t *c, const double *x, const double *y, int n, int color, const char *label) {
    polyline(c, x, y, n, color, " stroke-dasharray=\"6 4\"");
    add_legend(c, color, 'd', label);
}

void chart_points(chart_t *c, const double *x, const double *y, int n, int color, const char *label) {
    for (int i = 0; i < n; i++) {
        if (!shown(c, x[i], y[i])) continue;
        char a[32], b[32];
        chart_fmt(x[i], a, sizeof a);
        chart_fmt(y[i], b, sizeof b);
        sb_printf(&c->body, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>(%s, %s)</title></circle>\n",
                  chart_px(c, x[i]), chart_py(c, y[i]), chart_color(color), a, b);
    }
    add_legend(c, color, 'p', label);
}

void chart_box(chart_t *c, double x0, double y0, double x1, double y1, int color, const char *title) {
    if (!shown(c, x0, y0) || !shown(c, x1, y1)) return;
    double a = chart_px(c, x0), b = chart_px(c, x1), p = chart_py(c, y0), q = chart_py(c, y1);
    double left = a < b ? a : b, top = p < q ? p : q, w = fabs(b - a), h = fabs(q - p);
    if (w < 0.5) w = 0.5; /* a very short span still shows */
    char t[512];
    chart_escape(title, t, sizeof t);
    sb_printf(&c->body, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.85\">",
              left, top, w, h, chart_color(color));
    if (t[0]) sb_printf(&c->body, "<title>%s</title>", t);
    sb_puts(&c->body, "</rect>\n");
}

void chart_note(chart_t *c, double x, double y, const char *text, char anchor, int color) {
    if (!shown(c, x, y)) return;
    char t[512];
    chart_escape(text, t, sizeof t);
    const char *an = anchor == 'm' ? "middle" : anchor == 'e' ? "end" : "start";
    sb_printf(&c->body, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"%s\" fill=\"%s\">%s</text>\n",
              chart_px(c, x), chart_py(c, y), an, color < 0 ? "#222" : chart_color(color), t);
}

void chart_y_categories(chart_t *c, const char *const *names, int n) {
    c->cats = names;
    c->ncats = n;
}

static void axes(chart_t *c, strbuf_t *o) {
    double t[MAX_TICKS];
    char lab[64];
    double xlo = c->o.xlog ? pow(10, c->xlo) : c->xlo, xhi = c->o.xlog ? pow(10, c->xhi) : c->xhi;
    double ylo = c->o.ylog ? pow(10, c->ylo) : c->ylo, yhi = c->o.ylog ? pow(10, c->yhi) : c->yhi;
    int n = chart_ticks(xlo, xhi, c->o.xlog, t, MAX_TICKS);
    for (int i = 0; i < n; i++) {
        double x = chart_px(c, t[i]);
        chart_fmt(t[i], lab, sizeof lab);
        sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"#333\">%s</text>\n",
                  x, c->y0, x, c->y1, x, c->y1, x, c->y1 + 5, x, c->y1 + 18, lab);
    }
    if (c->cats) {
        for (int i = 0; i < c->ncats; i++) {
            double y = chart_py(c, i + 0.5);
            char e[160];
            chart_escape(c->cats[i], e, sizeof e);
            sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#333\">%s</text>\n",
                      c->x0 - 6, y + 4, e);
        }
    } else {
        n = chart_ticks(ylo, yhi, c->o.ylog, t, MAX_TICKS);
        for (int i = 0; i < n; i++) {
            double y = chart_py(c, t[i]);
            chart_fmt(t[i], lab, sizeof lab);
            sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
                      "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\" fill=\"#333\">%s</text>\n",
                      c->x0, y, c->x1, y, c->x0 - 5, y, c->x0, y, c->x0 - 8, y + 4, lab);
        }
    }
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n", c->x0,
              c->y0, c->x1 - c->x0, c->y1 - c->y0);
    if (c->xlabel[0])
        sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" fill=\"#222\">%s</text>\n",
                  (c->x0 + c->x1) / 2, c->h - 12, c->xlabel);
    if (c->ylabel[0])
        sb_printf(o, "<text transform=\"translate(16 %.1f) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\" "
                  "fill=\"#222\">%s</text>\n", (c->y0 + c->y1) / 2, c->ylabel);
    if (c->title[0])
        sb_printf(o, "<text x=\"%.1f\" y=\"24\" font-size=\"14\" font-weight=\"bold\" text-anchor=\"middle\" "
                  "fill=\"#222\">%s</text>\n", (c->x0 + c->x1) / 2, c->title);
}

static void legend(chart_t *c, strbuf_t *o) {
    if (c->o.no_legend || !c->nlegend) return;
    size_t longest = 0;
    for (int i = 0; i < c->nlegend; i++)
        if (strlen(c->legend[i].label) > longest) longest = strlen(c->legend[i].label);
    double w = 34 + 6.6 * (double)longest, h = 8 + 16.0 * c->nlegend, x = c->x1 - w - 8, y = c->y0 + 8;
    sb_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" fill-opacity=\"0.9\" "
              "stroke=\"#bbb\"/>\n", x, y, w, h);
    for (int i = 0; i < c->nlegend; i++) {
        double ly = y + 14 + 16.0 * i;
        const char *col = chart_color(c->legend[i].color);
        if (c->legend[i].kind == 'p')
            sb_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>", x + 15, ly - 4, col);
        else
            sb_printf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>",
                      x + 6, ly - 4, x + 24, ly - 4, col, c->legend[i].kind == 'd' ? " stroke-dasharray=\"6 4\"" : "");
        char e[200];
        chart_escape(c->legend[i].label, e, sizeof e);
        sb_printf(o, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"#222\">%s</text>\n", x + 30, ly, e);
    }
}

char *chart_finish(chart_t *c) {
    /* ids are document-wide when a front end inlines several pictures */
    static unsigned serial;
    unsigned id = ++serial ^ (unsigned)(uintptr_t)c;
    strbuf_t o = {0};
    sb_printf(&o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
              "font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
              "<clipPath id=\"icuda-plot-%x\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>"
              "</clipPath>\n",
              c->w, c->h, c->w, c->h, id, c->x0, c->y0, c->x1 - c->x0, c->y1 - c->y0);
    strbuf_t ax = {0};
    axes(c, &ax);
    char *axt = sb_take(&ax);
    /* grid lines and labels under the data, the frame over it */
    sb_puts(&o, axt);
    free(axt);
    sb_printf(&o, "<g clip-path=\"url(#icuda-plot-%x)\">\n", id);
    char *body = sb_take(&c->body);
    sb_puts(&o, body);
    free(body);
    sb_puts(&o, "</g>\n");
    legend(c, &o);
    sb_puts(&o, "</svg>\n");
    free(c);
    return sb_take(&o);
}
