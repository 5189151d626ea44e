/* What an nvcc build tells the notebook, for %%program and native C++
 * cells alike (program_report.c). */
#ifndef ICUDA_PROGRAM_REPORT_H
#define ICUDA_PROGRAM_REPORT_H

#include "program_build.h"
#include "program_log.h"
#include "runtime/base/cell_io.h"

/* nvcc was not found (where: the places looked in); who needs it
 * ("%%program"). -1 with err set. */
int program_error_no_nvcc(const char *who, const char *where, cell_error_t *err);
/* A failed build: its diagnostics at the cell's lines, as a CompileError
 * ("3 errors in <what> In [4] (nvcc)"). -1 with err set. */
int program_error_compile(const program_binary_t *b, const program_log_src_t *src, const char *what, cell_error_t *err);
/* The warnings of a build that succeeded, on io's stderr. */
void program_show_warnings(const cell_io_t *io, const program_binary_t *b, const program_log_src_t *src);
/* The libraries the build added (link_includes), one line on io's stderr,
 * "icuda: linking -lcublas (the program includes cublas_v2.h)"; who: "the
 * program", "the cell". Nothing when it added none. For a build that
 * compiled (PROGRAM_BUILT): a cached one is silent. */
void program_show_linked(const cell_io_t *io, const program_binary_t *b, const char *who);

#endif
