/* Progress of long work in a cell, as Jupyter front ends show it: one
 * display_data with a display_id (transient), then update_display_data to
 * the same id, instead of silence. Nothing is shown for work that ends
 * before the delay (ICUDA_PROGRESS_MS, default 500 ms), so fast cells stay
 * as they were. The line goes out through the io's display_as (cell_io.h),
 * under a display id unique in the process.
 *
 * Two ways to use it:
 * - progress_start(io, ..., true) around one blocking call that writes no
 *   output of its own (an NVRTC compile, an nvcc build): a thread shows the
 *   line once the delay has passed; progress_done waits for that thread
 *   before anything else is sent, so the cell's output never interleaves.
 * - progress_start(io, ..., false), then progress_update at safe points of
 *   the caller's own thread (between a %timeit's repeats). */
#ifndef ICUDA_PROGRESS_H
#define ICUDA_PROGRESS_H

#include <stdbool.h>

#include "cell_io.h"

typedef struct progress progress_t;

progress_t *progress_start(const cell_io_t *io, bool timer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Shows (once the delay has passed since the start) or updates the line. */
void progress_update(progress_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last word (fmt NULL: the line is cleared) when a line was shown; frees p. */
void progress_done(progress_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Seconds since progress_start. */
double progress_elapsed(const progress_t *p);

#endif
