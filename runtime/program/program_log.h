/* nvcc's output for a %%program build, told at the notebook's lines: a
 * diagnostic in the program ("cell.cu(12): error: ...", or the host
 * compiler's "cell.cu:12:5: error: ...") is shown at the cell's label and
 * line with the cell's own text and a caret, as device-cell errors are
 * (compile_errors.h); one in a %%header file at that header's line. */
#ifndef ICUDA_PROGRAM_LOG_H
#define ICUDA_PROGRAM_LOG_H

#include <jansson.h>

#include "runtime/device/device_session.h"

typedef struct {
    const char *unit;        /* the file name nvcc was given: "cell.cu" */
    const char *build_dir;   /* where it ran: taken out of paths (may be NULL) */
    const char *source;      /* the unit's text */
    const char *cell;        /* "In [3]" */
    int line_offset;         /* unit line n is cell line n + line_offset */
    const header_file_t *headers;
    int nheaders;
    /* Other files a diagnostic may name (a native cell's #line labels,
     * "In [2]"): the text under that label, or NULL; may be NULL. */
    const char *(*text_of)(void *ctx, const char *label);
    void *ctx;
} program_log_src_t;

/* Appends one string per output line to lines. Returns the number of
 * errors; *first_error (malloc'd, may stay NULL when nvcc said nothing
 * usable) is the first error as one line: "expected a ";" (In [3], line
 * 5)", or the first line that says error/fatal (a linker error). */
int program_log_format(const char *log, const program_log_src_t *src, json_t *lines, char **first_error);

#endif
