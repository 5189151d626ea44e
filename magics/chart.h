/* Charts as SVG text, drawn by icuda itself so that every front end (and
 * nbconvert, GitHub) shows them: a plot area with linear or logarithmic
 * axes, ticks that read well, lines, points, bars, labels and a legend.
 * The magics that draw (%roofline, %profile's timeline, %plot) build on
 * this; nothing here knows about CUDA or the session.
 *
 *   chart_t *c = chart_new(&(chart_opts_t){.title = "roofline", .xlog = true, .ylog = true,
 *                                           .xlabel = "flop/byte", .ylabel = "GFLOP/s"});
 *   chart_range(c, 0.01, 100, 1, 100000);
 *   chart_line(c, xs, ys, n, 0, "peak");
 *   chart_points(c, px, py, m, 1, "kernels");
 *   char *svg = chart_finish(c);   // malloc'd; c is gone
 *
 * Colours come from one palette (chart_color(i)); the background is white so
 * a picture reads the same in light and dark themes. */
#ifndef ICUDA_CHART_H
#define ICUDA_CHART_H

#include <stdbool.h>
#include <stddef.h>

typedef struct chart chart_t;

typedef struct chart_opts {
    double width, height;   /* pixels; 0: 640 x 400 */
    const char *title;      /* may be NULL */
    const char *xlabel, *ylabel;
    bool xlog, ylog;        /* logarithmic axes (values <= 0 are left out) */
    bool no_legend;
} chart_opts_t;

chart_t *chart_new(const chart_opts_t *o);
/* The data range shown; ticks are chosen from it (and may widen it a little
 * to round values). Call before drawing data. */
void chart_range(chart_t *c, double xmin, double xmax, double ymin, double ymax);
/* Data to pixel coordinates (after chart_range). */
double chart_px(const chart_t *c, double x);
double chart_py(const chart_t *c, double y);

/* Series; color indexes chart_color; label (may be NULL) goes in the legend. */
void chart_line(chart_t *c, const double *x, const double *y, int n, int color, const char *label);
void chart_dashed(chart_t *c, const double *x, const double *y, int n, int color, const char *label);
void chart_points(chart_t *c, const double *x, const double *y, int n, int color, const char *label);
/* A box from (x0, y0) to (x1, y1) in data coordinates, with a hover title. */
void chart_box(chart_t *c, double x0, double y0, double x1, double y1, int color, const char *title);
/* Text at a data point: anchor 's' start, 'm' middle, 'e' end. */
void chart_note(chart_t *c, double x, double y, const char *text, char anchor, int color);
/* Names the y axis's categories instead of numbers (a timeline's rows): tick
 * i at y = i + 0.5 reads names[i]. */
void chart_y_categories(chart_t *c, const char *const *names, int n);

/* Closes the picture: axes, ticks, legend. Returns the SVG text (malloc'd)
 * and frees c. */
char *chart_finish(chart_t *c);

/* "#1f77b4" ... ten distinct colours, repeating. */
const char *chart_color(int i);

/* Tick values for [lo, hi]: 1-2-5 steps on a linear axis, powers of ten on
 * a log axis. Returns how many were written (at most max). */
int chart_ticks(double lo, double hi, bool log, double *out, int max);
/* A short label for a tick value: "0.5", "20", "1k", "2.5M", "1e-05". */
void chart_fmt(double v, char *buf, size_t n);
/* Appends s to an SVG/XML text with &, <, >, " escaped (into buf of n bytes). */
void chart_escape(const char *s, char *buf, size_t n);

#endif
