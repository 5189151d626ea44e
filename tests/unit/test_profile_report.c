/* magics/profile_report.c from synthetic CUPTI records: the summary per
 * kernel and per copy kind (text and HTML), the notes about what a trace
 * lacks, and the timeline (one box per activity, one row per stream). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "magics/profile_report.h"

static int count(const char *s, const char *sub) {
    int n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
    return n;
}

/* The line of text that holds needle (malloc'd), or NULL. */
static char *line_with(const char *text, const char *needle) {
    const char *p = strstr(text, needle);
    if (!p) return NULL;
    const char *a = p, *b = p;
    while (a > text && a[-1] != '\n') a--;
    while (*b && *b != '\n') b++;
    return strndup(a, (size_t)(b - a));
}

#define US 1000ull
#define BASE 5000000000ull

static gpu_prof_activity_t kernel(const char *name, int grid, int block, uint64_t start_us, uint64_t dur_us,
                                  uint32_t stream, int dyn) {
    gpu_prof_activity_t a;
    memset(&a, 0, sizeof a);
    a.r.kind = PROF_KERNEL;
    a.r.start = BASE + start_us * US;
    a.r.end = a.r.start + dur_us * US;
    a.r.stream = stream;
    a.r.grid[0] = grid;
    a.r.grid[1] = a.r.grid[2] = 1;
    a.r.block[0] = block;
    a.r.block[1] = a.r.block[2] = 1;
    a.r.registers = 16;
    a.r.static_shared = 1024;
    a.r.dynamic_shared = dyn;
    a.name = name;
    return a;
}

static gpu_prof_activity_t copy(int kind, int dir, uint64_t bytes, uint64_t start_us, uint64_t dur_us) {
    gpu_prof_activity_t a;
    memset(&a, 0, sizeof a);
    a.r.kind = (uint8_t)kind;
    a.r.copy = (uint8_t)dir;
    a.r.bytes = bytes;
    a.r.start = BASE + start_us * US;
    a.r.end = a.r.start + dur_us * US;
    a.r.stream = 7;
    return a;
}

static void test_formatting(void) {
    char b[32];
    CHECK_STR(profile_fmt_time(850, b, sizeof b), "850 ns");
    CHECK_STR(profile_fmt_time(1234, b, sizeof b), "1.23 µs");
    CHECK_STR(profile_fmt_time(12345, b, sizeof b), "12.3 µs");
    CHECK_STR(profile_fmt_time(1234567, b, sizeof b), "1.235 ms");
    CHECK_STR(profile_fmt_time(2e9, b, sizeof b), "2.000 s");
    CHECK_STR(profile_copy_name(PROF_HTOD), "HtoD");
    CHECK_STR(profile_copy_name(PROF_DTOH), "DtoH");
    CHECK_STR(profile_copy_name(PROF_DTOD), "DtoD");
}

static void test_summary_and_timeline(void) {
    gpu_prof_activity_t acts[] = {
        copy(PROF_COPY, PROF_HTOD, 8u << 20, 0, 700),
        copy(PROF_COPY, PROF_HTOD, 8u << 20, 700, 700),
        copy(PROF_MEMSET, 0, 1u << 20, 1400, 10),
        kernel("vecadd", 4096, 256, 1500, 100, 7, 0),
        kernel("vecadd", 4096, 256, 1600, 200, 7, 0),
        kernel("scale<float>", 1, 8, 1650, 5, 13, 128),
        kernel("vecadd", 4096, 256, 1800, 300, 7, 0),
        copy(PROF_COPY, PROF_DTOH, 8u << 20, 2100, 650),
    };
    gpu_profile_result_t res;
    memset(&res, 0, sizeof res);
    res.acts = acts;
    res.n = sizeof acts / sizeof *acts;
    res.ndefault = 1;
    res.default_stream[0].device = 0;
    res.default_stream[0].stream = 7;

    char *t = profile_summary_text(&res);
    CHECK(strstr(t, "GPU activity: 4 kernel launches, 3 copies, 1 memset: 2.665 ms of GPU time over a span "
                    "of 2.750 ms") != NULL);
    char *l = line_with(t, "vecadd");
    CHECK(l && strstr(l, "     3 ") && strstr(l, "600.0 µs") && strstr(l, "200.0 µs") && strstr(l, "100.0 µs") &&
          strstr(l, "300.0 µs") && strstr(l, "(4096,1,1)") && strstr(l, "(256,1,1)") && strstr(l, " 16 ") &&
          strstr(l, "1024+0") && strstr(l, "22.5%"));
    free(l);
    l = line_with(t, "scale<float>");
    CHECK(l && strstr(l, "     1 ") && strstr(l, "5.00 µs") && strstr(l, "(1,1,1)") && strstr(l, "(8,1,1)") &&
          strstr(l, "1024+128"));
    free(l);
    /* the kernel with the most time comes first */
    CHECK(strstr(t, "vecadd") < strstr(t, "scale<float>"));
    l = line_with(t, "HtoD");
    CHECK(l && strstr(l, "     2 ") && strstr(l, "16777216 B (16.0 MiB)") && strstr(l, "1.400 ms") &&
          strstr(l, "11.98") && strstr(l, "52.5%"));
    free(l);
    l = line_with(t, "DtoH");
    CHECK(l && strstr(l, "     1 ") && strstr(l, "8388608 B (8.0 MiB)") && strstr(l, "12.91"));
    free(l);
    l = line_with(t, "  memset ");
    CHECK(l && strstr(l, "1048576 B (1.0 MiB)") && strstr(l, "10.0 µs"));
    free(l);
    CHECK(!strstr(t, "No GPU activity") && !strstr(t, "died") && !strstr(t, "dropped"));
    free(t);

    char *h = profile_summary_html(&res);
    CHECK(count(h, "<table>") == 2 && count(h, "<tr>") == 2 + 2 + 3);
    CHECK(strstr(h, "scale&lt;float&gt;") && !strstr(h, "scale<float>"));
    CHECK(strstr(h, "<td style=\"text-align:right\">3</td>") != NULL);
    CHECK(strstr(h, "1024 + 128 B") != NULL);
    free(h);

    char *svg = profile_timeline_svg(&res);
    CHECK(svg && !strncmp(svg, "<svg", 4) && strstr(svg, "</svg>"));
    CHECK(count(svg, "fill-opacity=\"0.85\"") == (int)res.n); /* one box per activity */
    CHECK(strstr(svg, ">default</text>") && strstr(svg, ">stream 13</text>"));
    CHECK(strstr(svg, "time since the first activity (ms)") != NULL);
    CHECK(strstr(svg, "<title>vecadd&lt;&lt;&lt;(4096,1,1), (256,1,1)&gt;&gt;&gt;: 300.0 µs, from 1.800 ms</title>"));
    CHECK(strstr(svg, "<title>HtoD of 8388608 B (8.0 MiB): 700.0 µs (11.98 GB/s), from 0 ns</title>"));
    CHECK(count(svg, "<text") > 4); /* labels inside the wide boxes, axis labels */
    /* the default stream is the top row: category labels go bottom up */
    CHECK(strstr(svg, ">stream 13</text>") < strstr(svg, ">default</text>"));
    free(svg);
}

static void test_what_a_trace_lacks(void) {
    gpu_profile_result_t res;
    memset(&res, 0, sizeof res);
    char *t = profile_summary_text(&res);
    CHECK(strstr(t, "0 kernel launches, 0 copies, 0 memsets") && strstr(t, "No GPU activity was recorded"));
    CHECK(!strstr(t, "Kernels") && !strstr(t, "Copies and memsets"));
    free(t);
    CHECK(profile_timeline_svg(&res) == NULL);
    char *h = profile_summary_html(&res);
    CHECK(strstr(h, "No GPU activity was recorded") && !strstr(h, "<table>"));
    free(h);

    gpu_prof_activity_t acts[] = {kernel("k", 1, 32, 0, 3, 7, 0), kernel("k", 1, 32, 5, 3, 7, 0)};
    acts[1].r.start = acts[1].r.end = 0; /* CUPTI could not time it */
    res.acts = acts;
    res.n = 2;
    res.left_out = 12;
    res.dropped = 3;
    res.worker_died = true;
    t = profile_summary_text(&res);
    CHECK(strstr(t, "2 kernel launches") != NULL);
    CHECK(strstr(t, "Only the first 2 activities were kept; 12 more were not recorded.") != NULL);
    CHECK(strstr(t, "CUPTI dropped 3 records") != NULL);
    CHECK(strstr(t, "The GPU worker died while profiling") != NULL);
    CHECK(strstr(t, "1 activity could not be timed") != NULL);
    char *l = line_with(t, "1024+0  k");
    CHECK(l && strstr(l, "     2 ") && strstr(l, "3.00 µs"));
    free(l);
    free(t);
    char *svg = profile_timeline_svg(&res); /* the untimed one is not drawn */
    CHECK(svg && count(svg, "fill-opacity=\"0.85\"") == 1);
    CHECK(strstr(svg, "time since the first activity (µs)") != NULL);
    CHECK(strstr(svg, ">stream 7</text>") != NULL); /* no default stream known: its id */
    free(svg);
}

static void test_many_activities(void) {
    size_t n = PROFILE_TIMELINE_MAX_BOXES + 5;
    gpu_prof_activity_t *acts = calloc(n, sizeof *acts);
    for (size_t i = 0; i < n; i++) acts[i] = kernel(i % 2 ? "even" : "odd", 2, 64, i * 2, 1, (uint32_t)(20 + i % 3), 0);
    gpu_profile_result_t res;
    memset(&res, 0, sizeof res);
    res.acts = acts;
    res.n = n;
    char *svg = profile_timeline_svg(&res);
    CHECK(svg && count(svg, "fill-opacity=\"0.85\"") == PROFILE_TIMELINE_MAX_BOXES);
    CHECK(strstr(svg, "5 more activities are not drawn") != NULL);
    CHECK(strstr(svg, ">stream 20</text>") && strstr(svg, ">stream 21</text>") && strstr(svg, ">stream 22</text>"));
    free(svg);
    char *t = profile_summary_text(&res);
    char *l = line_with(t, "even");
    CHECK(l && strstr(l, "10002") != NULL);
    free(l);
    free(t);
    free(acts);
}

int main(void) {
    test_formatting();
    test_summary_and_timeline();
    test_what_a_trace_lacks();
    test_many_activities();
    return check_report();
}
