/* %profile's summary and timeline (profile_report.h). */
#include "magics/profile_report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics/chart.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
/* ---- grouping ---- */

typedef struct {
    const char *name;
    int32_t grid[3], block[3];
    uint32_t regs;
    int32_t sshared, dshared;
    uint64_t calls, total, min, max;
} kgroup_t;

typedef struct {
    int kind; /* PROF_MEMSET, or PROF_COPY with copy */
    int copy;
    uint64_t calls, bytes, total, min, max;
} cgroup_t;

typedef struct {
    kgroup_t *k;
    size_t nk;
    cgroup_t c[8];
    size_t nc;
    uint64_t gpu_total;   /* ns of all timed activity */
    uint64_t t0, t1;      /* first start, last end */
    size_t kernels, copies, memsets, untimed;
} summary_t;

static bool timed(const prof_record_t *r) { return r->end > r->start || r->start != 0; }
static uint64_t dur(const prof_record_t *r) { return r->end > r->start ? r->end - r->start : 0; }

static bool same_kernel(const kgroup_t *g, const gpu_prof_activity_t *a) {
    return !strcmp(g->name, a->name ? a->name : "?") && !memcmp(g->grid, a->r.grid, sizeof g->grid) &&
           !memcmp(g->block, a->r.block, sizeof g->block) && g->regs == a->r.registers &&
           g->sshared == a->r.static_shared && g->dshared == a->r.dynamic_shared;
}

static void add(uint64_t *calls, uint64_t *total, uint64_t *mn, uint64_t *mx, uint64_t d) {
    if (!*calls || d < *mn) *mn = d;
    if (!*calls || d > *mx) *mx = d;
    (*calls)++;
    *total += d;
}

static int by_total_k(const void *a, const void *b) {
    const kgroup_t *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int by_total_c(const void *a, const void *b) {
    const cgroup_t *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    return (x->kind * 16 + x->copy) - (y->kind * 16 + y->copy);
}

static void summarise(const gpu_profile_result_t *res, summary_t *s) {
    memset(s, 0, sizeof *s);
    s->k = xcalloc(res->n ? res->n : 1, sizeof *s->k);
    bool any = false;
    for (size_t i = 0; i < res->n; i++) {
        const gpu_prof_activity_t *a = &res->acts[i];
        const prof_record_t *r = &a->r;
        uint64_t d = dur(r);
        if (!timed(r)) s->untimed++;
        else {
            s->gpu_total += d;
            if (!any || r->start < s->t0) s->t0 = r->start;
            if (!any || r->end > s->t1) s->t1 = r->end;
            any = true;
        }
        if (r->kind == PROF_KERNEL) {
            s->kernels++;
            size_t j = 0;
            while (j < s->nk && !same_kernel(&s->k[j], a)) j++;
            kgroup_t *g = &s->k[j];
            if (j == s->nk) {
                s->nk++;
                g->name = a->name ? a->name : "?";
                memcpy(g->grid, r->grid, sizeof g->grid);
                memcpy(g->block, r->block, sizeof g->block);
                g->regs = r->registers;
                g->sshared = r->static_shared;
                g->dshared = r->dynamic_shared;
            }
            add(&g->calls, &g->total, &g->min, &g->max, d);
        } else {
            if (r->kind == PROF_MEMSET) s->memsets++;
            else s->copies++;
            int copy = r->kind == PROF_MEMSET ? 0 : r->copy;
            size_t j = 0;
            while (j < s->nc && !(s->c[j].kind == r->kind && s->c[j].copy == copy)) j++;
            if (j == s->nc) {
                if (s->nc == sizeof s->c / sizeof *s->c) continue;
                s->nc++;
                s->c[j].kind = r->kind;
                s->c[j].copy = copy;
            }
            s->c[j].bytes += r->bytes;
            add(&s->c[j].calls, &s->c[j].total, &s->c[j].min, &s->c[j].max, d);
        }
    }
    qsort(s->k, s->nk, sizeof *s->k, by_total_k);
    qsort(s->c, s->nc, sizeof *s->c, by_total_c);
}

/* ---- formatting ---- */

const char *profile_fmt_time(double ns, char *buf, size_t n) {
    if (ns < 1e3) snprintf(buf, n, "%.0f ns", ns);
    else if (ns < 1e4) snprintf(buf, n, "%.2f µs", ns / 1e3);
    else if (ns < 1e6) snprintf(buf, n, "%.1f µs", ns / 1e3);
    else if (ns < 1e9) snprintf(buf, n, "%.3f ms", ns / 1e6);
    else snprintf(buf, n, "%.3f s", ns / 1e9);
    return buf;
}

const char *profile_copy_name(int copy) {
    switch (copy) {
    case PROF_HTOD: return "HtoD";
    case PROF_DTOH: return "DtoH";
    case PROF_DTOD: return "DtoD";
    case PROF_HTOH: return "HtoH";
    case PROF_PTOP: return "PtoP";
    default: return "copy";
    }
}

static const char *cname(const cgroup_t *c) { return c->kind == PROF_MEMSET ? "memset" : profile_copy_name(c->copy); }

static const char *dims(const int32_t d[3], char *buf, size_t n) {
    snprintf(buf, n, "(%d,%d,%d)", d[0], d[1], d[2]);
    return buf;
}

static const char *bytes_h(uint64_t b, char *buf, size_t n) {
    if (b < 1024) snprintf(buf, n, "%llu B", (unsigned long long)b);
    else if (b < (1ull << 20)) snprintf(buf, n, "%llu B (%.1f KiB)", (unsigned long long)b, b / 1024.0);
    else if (b < (1ull << 30)) snprintf(buf, n, "%llu B (%.1f MiB)", (unsigned long long)b, b / 1048576.0);
    else snprintf(buf, n, "%llu B (%.2f GiB)", (unsigned long long)b, b / 1073741824.0);
    return buf;
}

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * (double)part / (double)whole : 0; }
static double gbps(uint64_t bytes, uint64_t ns) { return ns ? (double)bytes / (double)ns : 0; } /* B/ns = GB/s */

static const char *plural(size_t n, const char *one, const char *many) { return n == 1 ? one : many; }

static void headline(const summary_t *s, strbuf_t *b) {
    char t1[32], t2[32];
    sb_printf(b, "%zu kernel %s, %zu %s, %zu %s", s->kernels, plural(s->kernels, "launch", "launches"), s->copies,
              plural(s->copies, "copy", "copies"), s->memsets, plural(s->memsets, "memset", "memsets"));
    if (s->t1 > s->t0)
        sb_printf(b, ": %s of GPU time over a span of %s", profile_fmt_time((double)s->gpu_total, t1, sizeof t1),
                  profile_fmt_time((double)(s->t1 - s->t0), t2, sizeof t2));
}

/* Sentences about what the trace lacks (each ends with a newline). */
static void notes(const gpu_profile_result_t *res, const summary_t *s, strbuf_t *b) {
    if (res->n == 0 && !res->worker_died)
        sb_puts(b, "No GPU activity was recorded: the code launched no kernel and made no copy or memset.\n");
    if (res->worker_died)
        sb_puts(b, "The GPU worker died while profiling: the trace ends where it died.\n");
    if (res->left_out)
        sb_printf(b, "Only the first %zu activities were kept; %llu more were not recorded.\n", res->n,
                  (unsigned long long)res->left_out);
    if (res->dropped)
        sb_printf(b, "CUPTI dropped %llu records (its buffers were full).\n", (unsigned long long)res->dropped);
    if (s->untimed)
        sb_printf(b, "%zu %s could not be timed by CUPTI and count with zero time.\n", s->untimed,
                  plural(s->untimed, "activity", "activities"));
}

char *profile_summary_text(const gpu_profile_result_t *res) {
    summary_t s;
    summarise(res, &s);
    strbuf_t b = {0};
    sb_puts(&b, "GPU activity: ");
    headline(&s, &b);
    sb_puts(&b, "\n");
    char a[32], c[32], d[32], e[32], g[40], h[40];
    if (s.nk) {
        sb_printf(&b, "\nKernels\n%7s %11s %6s %11s %11s %11s %14s %12s %5s %12s  %s\n", "Time(%)", "Total", "Calls",
                  "Mean", "Min", "Max", "Grid", "Block", "Regs", "Shared B", "Name");
        for (size_t i = 0; i < s.nk; i++) {
            const kgroup_t *k = &s.k[i];
            char sh[32];
            snprintf(sh, sizeof sh, "%d+%d", k->sshared, k->dshared);
            sb_printf(&b, "%6.1f%% %11s %6llu %11s %11s %11s %14s %12s %5u %12s  %s\n", pct(k->total, s.gpu_total),
                      profile_fmt_time((double)k->total, a, sizeof a), (unsigned long long)k->calls,
                      profile_fmt_time((double)k->total / (double)k->calls, c, sizeof c),
                      profile_fmt_time((double)k->min, d, sizeof d), profile_fmt_time((double)k->max, e, sizeof e),
                      dims(k->grid, g, sizeof g), dims(k->block, h, sizeof h), k->regs, sh, k->name);
        }
    }
    if (s.nc) {
        sb_printf(&b, "\nCopies and memsets\n%7s %11s %6s %11s %11s %11s %10s  %-6s %s\n", "Time(%)", "Total", "Calls",
                  "Mean", "Min", "Max", "GB/s", "Kind", "Bytes");
        for (size_t i = 0; i < s.nc; i++) {
            const cgroup_t *k = &s.c[i];
            char by[64];
            sb_printf(&b, "%6.1f%% %11s %6llu %11s %11s %11s %10.2f  %-6s %s\n", pct(k->total, s.gpu_total),
                      profile_fmt_time((double)k->total, a, sizeof a), (unsigned long long)k->calls,
                      profile_fmt_time((double)k->total / (double)k->calls, c, sizeof c),
                      profile_fmt_time((double)k->min, d, sizeof d), profile_fmt_time((double)k->max, e, sizeof e),
                      gbps(k->bytes, k->total), cname(k), bytes_h(k->bytes, by, sizeof by));
        }
    }
    strbuf_t n = {0};
    notes(res, &s, &n);
    if (n.len) sb_printf(&b, "\n%s", n.data);
    free(n.data);
    free(s.k);
    return sb_take(&b);
}

static void html_cell(strbuf_t *b, const char *text, bool num) {
    char esc[2048];
    chart_escape(text, esc, sizeof esc);
    sb_printf(b, "<td style=\"text-align:%s\">%s</td>", num ? "right" : "left", esc);
}

char *profile_summary_html(const gpu_profile_result_t *res) {
    summary_t s;
    summarise(res, &s);
    strbuf_t b = {0}, hl = {0};
    headline(&s, &hl);
    char esc[512];
    chart_escape(hl.data ? hl.data : "", esc, sizeof esc);
    free(hl.data);
    sb_printf(&b, "<div class=\"icuda-profile\"><p><b>GPU activity</b>: %s</p>\n", esc);
    char a[64], c[64], d[64], e[64], t[64];
    if (s.nk) {
        sb_puts(&b, "<table><caption style=\"text-align:left\">Kernels</caption><thead><tr><th>Name</th>"
                    "<th>Grid</th><th>Block</th><th>Registers</th><th>Shared (static + dynamic)</th><th>Calls</th>"
                    "<th>Total</th><th>Mean</th><th>Min</th><th>Max</th><th>% of GPU time</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < s.nk; i++) {
            const kgroup_t *k = &s.k[i];
            sb_puts(&b, "<tr>");
            html_cell(&b, k->name, false);
            html_cell(&b, dims(k->grid, a, sizeof a), true);
            html_cell(&b, dims(k->block, a, sizeof a), true);
            snprintf(a, sizeof a, "%u", k->regs);
            html_cell(&b, a, true);
            snprintf(a, sizeof a, "%d + %d B", k->sshared, k->dshared);
            html_cell(&b, a, true);
            snprintf(a, sizeof a, "%llu", (unsigned long long)k->calls);
            html_cell(&b, a, true);
            html_cell(&b, profile_fmt_time((double)k->total, c, sizeof c), true);
            html_cell(&b, profile_fmt_time((double)k->total / (double)k->calls, c, sizeof c), true);
            html_cell(&b, profile_fmt_time((double)k->min, d, sizeof d), true);
            html_cell(&b, profile_fmt_time((double)k->max, e, sizeof e), true);
            snprintf(t, sizeof t, "%.1f%%", pct(k->total, s.gpu_total));
            html_cell(&b, t, true);
            sb_puts(&b, "</tr>\n");
        }
        sb_puts(&b, "</tbody></table>\n");
    }
    if (s.nc) {
        sb_puts(&b, "<table><caption style=\"text-align:left\">Copies and memsets</caption><thead><tr><th>Kind</th>"
                    "<th>Calls</th><th>Bytes</th><th>Total</th><th>Mean</th><th>Min</th><th>Max</th><th>GB/s</th>"
                    "<th>% of GPU time</th></tr></thead><tbody>\n");
        for (size_t i = 0; i < s.nc; i++) {
            const cgroup_t *k = &s.c[i];
            sb_puts(&b, "<tr>");
            html_cell(&b, cname(k), false);
            snprintf(a, sizeof a, "%llu", (unsigned long long)k->calls);
            html_cell(&b, a, true);
            html_cell(&b, bytes_h(k->bytes, a, sizeof a), true);
            html_cell(&b, profile_fmt_time((double)k->total, c, sizeof c), true);
            html_cell(&b, profile_fmt_time((double)k->total / (double)k->calls, c, sizeof c), true);
            html_cell(&b, profile_fmt_time((double)k->min, d, sizeof d), true);
            html_cell(&b, profile_fmt_time((double)k->max, e, sizeof e), true);
            snprintf(t, sizeof t, "%.2f", gbps(k->bytes, k->total));
            html_cell(&b, t, true);
            snprintf(t, sizeof t, "%.1f%%", pct(k->total, s.gpu_total));
            html_cell(&b, t, true);
            sb_puts(&b, "</tr>\n");
        }
        sb_puts(&b, "</tbody></table>\n");
    }
    strbuf_t n = {0};
    notes(res, &s, &n);
    if (n.len) {
        char *ne = xmalloc(n.len * 6 + 1);
        chart_escape(n.data, ne, n.len * 6 + 1);
        sb_printf(&b, "<p>%s</p>\n", ne);
        free(ne);
    }
    free(n.data);
    sb_puts(&b, "</div>\n");
    free(s.k);
    return sb_take(&b);
}

/* ---- the timeline ---- */

typedef struct {
    uint32_t device, stream;
    bool is_default;
    uint64_t first;
} row_t;

static int by_row(const void *a, const void *b) {
    const row_t *x = a, *y = b;
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->is_default != y->is_default) return x->is_default ? -1 : 1;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static int copy_color(const prof_record_t *r) {
    if (r->kind == PROF_MEMSET) return 7;
    switch (r->copy) {
    case PROF_HTOD: return 1;
    case PROF_DTOH: return 3;
    case PROF_DTOD: return 4;
    default: return 5;
    }
}

char *profile_timeline_svg(const gpu_profile_result_t *res) {
    static const int kernel_colors[] = {0, 2, 9, 6, 8};
    uint64_t t0 = 0, t1 = 0;
    bool any = false, multi_dev = false;
    row_t *rows = xcalloc(res->n, sizeof *rows);
    const char **knames = xcalloc(res->n, sizeof *knames);
    size_t nrows = 0, nk = 0;
    for (size_t i = 0; i < res->n; i++) {
        const prof_record_t *r = &res->acts[i].r;
        if (!timed(r)) continue;
        if (!any || r->start < t0) t0 = r->start;
        if (!any || r->end > t1) t1 = r->end;
        if (any && r->device != rows[0].device) multi_dev = true;
        any = true;
        size_t j = 0;
        while (j < nrows && !(rows[j].device == r->device && rows[j].stream == r->stream)) j++;
        if (j == nrows) {
            rows[nrows].device = r->device;
            rows[nrows].stream = r->stream;
            rows[nrows].first = r->start;
            for (uint32_t d = 0; d < res->ndefault && d < PROF_MAX_DEVICES; d++)
                if (res->default_stream[d].device == r->device && res->default_stream[d].stream == r->stream)
                    rows[nrows].is_default = true;
            nrows++;
        }
    }
    if (!any) {
        free(rows);
        free(knames);
        return NULL;
    }
    qsort(rows, nrows, sizeof *rows, by_row);
    double span = (double)(t1 - t0);
    bool ms = span >= 1e6;
    double unit = ms ? 1e6 : 1e3;
    /* the y axis widens to its tick step: the rows hang from its top */
    double tk[64];
    int nt = chart_ticks(0, (double)nrows, false, tk, 64);
    double step = nt >= 2 ? tk[1] - tk[0] : 1;
    size_t top = (size_t)lround(ceil((double)nrows / step - 1e-9) * step);
    if (top < nrows) top = nrows;
    char **labels = xcalloc(top, sizeof *labels);
    for (size_t i = 0; i < top; i++) {
        size_t r = top - 1 - i;
        char l[96] = "";
        if (r < nrows) { /* short: the chart's left margin holds about ten characters */
            if (multi_dev && rows[r].is_default) snprintf(l, sizeof l, "%u/default", rows[r].device);
            else if (multi_dev) snprintf(l, sizeof l, "%u/str %u", rows[r].device, rows[r].stream);
            else if (rows[r].is_default) snprintf(l, sizeof l, "default");
            else snprintf(l, sizeof l, "stream %u", rows[r].stream);
        }
        labels[i] = xstrdup(l);
    }
    double height = 94 + 30.0 * (double)top;
    if (height < 170) height = 170;
    chart_t *c = chart_new(&(chart_opts_t){.width = 900, .height = height, .title = "GPU timeline",
                                           .xlabel = ms ? "time since the first activity (ms)"
                                                        : "time since the first activity (µs)",
                                           .no_legend = true});
    chart_range(c, 0, span / unit, 0, (double)top);
    chart_y_categories(c, (const char *const *)labels, (int)top);
    double px_per_row = chart_py(c, 0) - chart_py(c, 1), px_per_unit = chart_px(c, 1) - chart_px(c, 0);
    size_t drawn = 0, skipped = 0;
    for (size_t i = 0; i < res->n; i++) {
        const gpu_prof_activity_t *a = &res->acts[i];
        const prof_record_t *r = &a->r;
        if (!timed(r)) continue;
        if (drawn == PROFILE_TIMELINE_MAX_BOXES) {
            skipped++;
            continue;
        }
        size_t row = 0;
        while (row < nrows && !(rows[row].device == r->device && rows[row].stream == r->stream)) row++;
        double y = (double)(top - 1 - row);
        double x0 = (double)(r->start - t0) / unit, x1 = (double)(r->end - t0) / unit;
        char title[600], tb[32], sb[32], by[64], g[40], bl[40];
        int color;
        const char *label;
        profile_fmt_time((double)dur(r), tb, sizeof tb);
        profile_fmt_time((double)(r->start - t0), sb, sizeof sb);
        if (r->kind == PROF_KERNEL) {
            const char *nm = a->name ? a->name : "?";
            size_t k = 0;
            while (k < nk && strcmp(knames[k], nm)) k++;
            if (k == nk) knames[nk++] = nm;
            color = kernel_colors[k % (sizeof kernel_colors / sizeof *kernel_colors)];
            label = nm;
            snprintf(title, sizeof title, "%s<<<%s, %s>>>: %s, from %s", nm, dims(r->grid, g, sizeof g),
                     dims(r->block, bl, sizeof bl), tb, sb);
        } else {
            color = copy_color(r);
            label = r->kind == PROF_MEMSET ? "memset" : profile_copy_name(r->copy);
            snprintf(title, sizeof title, "%s of %s: %s (%.2f GB/s), from %s", label, bytes_h(r->bytes, by, sizeof by),
                     tb, gbps(r->bytes, dur(r)), sb);
        }
        /* a pixel of gap between back-to-back boxes of one colour */
        double gap = chart_px(c, x1) - chart_px(c, x0) > 3 ? 1 / px_per_unit : 0;
        chart_box(c, x0, y + 0.15, x1 - gap, y + 0.85, color, title);
        /* a name inside the box where it fits */
        double w = chart_px(c, x1) - chart_px(c, x0);
        if (w > 6.6 * (double)strlen(label) + 8)
            chart_note(c, (x0 + x1) / 2, y + 0.5 - 4 / px_per_row, label, 'm', -1);
        drawn++;
    }
    if (skipped) {
        char note[128];
        snprintf(note, sizeof note, "%zu more activities are not drawn", skipped);
        chart_note(c, span / unit, (double)top - 0.01 - 12 / px_per_row, note, 'e', -1);
    }
    char *svg = chart_finish(c);
    for (size_t i = 0; i < top; i++) free(labels[i]);
    free(labels);
    free(rows);
    free(knames);
    return svg;
}
