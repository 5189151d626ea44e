/* magics/chart.c: ticks, labels, escaping, and a picture that is one
 * well-formed SVG whatever the data (log axes with zeros, empty ranges). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "magics/chart.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/utf8.h"

static int count(const char *s, const char *sub) {
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
    return n;
}

int main(void) {
    double t[40];
    int n = chart_ticks(0, 10, false, t, 40);
    CHECK(n == 6 && t[0] == 0 && t[1] == 2 && t[5] == 10);
    n = chart_ticks(0.01, 1000, true, t, 40);
    CHECK(n == 6 && fabs(t[0] - 0.01) < 1e-12 && fabs(t[5] - 1000) < 1e-9);
    n = chart_ticks(1, 100, true, t, 40); /* two decades: 2 and 5 between */
    CHECK(n == 7 && t[1] == 2 && t[2] == 5);
    n = chart_ticks(1e-30, 1e30, true, t, 40); /* sixty decades: a tick every few */
    CHECK(n >= 2 && n <= 11);
    CHECK(chart_ticks(5, 5, false, t, 40) == 1);
    CHECK(chart_ticks(-1, 10, true, t, 40) == 0);

    char b[64];
    chart_fmt(0, b, sizeof b);
    CHECK_STR(b, "0");
    chart_fmt(20, b, sizeof b);
    CHECK_STR(b, "20");
    chart_fmt(2500000, b, sizeof b);
    CHECK_STR(b, "2.5M");
    chart_fmt(1e-5, b, sizeof b);
    CHECK_STR(b, "1e-05");
    chart_fmt(0.25, b, sizeof b);
    CHECK_STR(b, "0.25");
    /* a title cut to the buffer keeps whole UTF-8 characters (a cut one made
     * the plot's JSON invalid and the plot vanished) */
    char e[9] = "";
    chart_escape("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", e, sizeof e); /* room for two bytes (9 - 7): one é */
    CHECK_STR(e, "\xc3\xa9");
    char ez[9] = "";
    chart_escape("a\xc3\xa9\xc3\xa9", ez, sizeof ez); /* two bytes: "a" and half an é, which goes */
    CHECK_STR(ez, "a");
    CHECK(utf8_whole("ab\xe2\x82", 4) == 2 && utf8_whole("ab\xe2\x82\xac", 5) == 5 && utf8_whole("abc", 3) == 3);
    chart_escape("a<b & \"c\">", b, sizeof b);
    CHECK_STR(b, "a&lt;b &amp; &quot;c&quot;&gt;");
    chart_escape("truncated at the buffer's end, never past it", b, 12);
    CHECK(strlen(b) < 12);

    chart_t *c = chart_new(&(chart_opts_t){.title = "roofline <H100>", .xlabel = "flop/byte", .ylabel = "GFLOP/s",
                                            .xlog = true, .ylog = true});
    chart_range(c, 0.01, 100, 1, 70000);
    double x[] = {0.01, 20, 100}, y[] = {33.5, 67000, 67000};
    chart_line(c, x, y, 3, 0, "FP32 peak");
    double px[] = {0.0417, 0, 0.25}, py[] = {130, 5, 0}; /* zeros cannot sit on log axes: left out */
    chart_points(c, px, py, 3, 1, "kernels & co");
    chart_note(c, 0.0417, 130, "vecadd", 's', -1);
    char *svg = chart_finish(c);
    CHECK(!strncmp(svg, "<svg ", 5) && strstr(svg, "</svg>\n"));
    CHECK(strstr(svg, "roofline &lt;H100&gt;") != NULL);
    CHECK(strstr(svg, "kernels &amp; co") != NULL);
    CHECK(count(svg, "<circle") == 1 + 1); /* one data point, one legend mark */
    CHECK(count(svg, "<polyline") == 1);
    CHECK(count(svg, "<svg") == 1 && count(svg, "</svg>") == 1);
    CHECK(strstr(svg, ">100<") && strstr(svg, ">10k<")); /* decade labels on both axes */
    if (getenv("CHART_OUT")) {
        FILE *f = fopen(getenv("CHART_OUT"), "w");
        if (f) fputs(svg, f), fclose(f);
    }
    free(svg);

    /* a timeline: boxes on category rows, linear time; degenerate ranges */
    c = chart_new(&(chart_opts_t){.xlabel = "ms", .no_legend = true});
    const char *rows[] = {"stream 0", "stream 1"};
    chart_y_categories(c, rows, 2);
    chart_range(c, 0, 0, 0, 2);
    chart_box(c, 0, 0.1, 0, 0.9, 2, "kernel <a>");
    svg = chart_finish(c);
    CHECK(strstr(svg, "stream 1") && strstr(svg, "kernel &lt;a&gt;") && count(svg, "<rect") >= 3);
    free(svg);
    return check_report();
}
