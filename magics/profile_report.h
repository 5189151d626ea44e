/* What %profile shows (profile_report.c): a summary per kernel and per copy
 * kind, as nvprof's summary and `nsys stats` give it, in text and HTML, and
 * a timeline of the activity per stream as SVG. Pure formatting of a trace
 * (kernel names already as written), so it is tested without a GPU. */
#ifndef ICUDA_PROFILE_REPORT_H
#define ICUDA_PROFILE_REPORT_H

#include <stddef.h>

#include "runtime/gpu/client/gpu_profile.h"

#define PROFILE_TIMELINE_MAX_BOXES 20000 /* activities drawn; the rest are counted */

/* The summary as text/plain and as text/html (both malloc'd). */
char *profile_summary_text(const gpu_profile_result_t *res);
char *profile_summary_html(const gpu_profile_result_t *res);

/* The timeline as SVG (malloc'd), or NULL when nothing was timed. One row
 * per stream, one box per activity, hover titles, a time axis from the
 * first activity. */
char *profile_timeline_svg(const gpu_profile_result_t *res);

/* A duration in nanoseconds as "850 ns", "12.3 µs", "1.234 ms", "2.000 s". */
const char *profile_fmt_time(double ns, char *buf, size_t n);

/* "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "copy" (enum prof_copy) */
const char *profile_copy_name(int copy);

#endif
