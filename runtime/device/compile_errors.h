/* NVRTC's log turned into what a notebook shows: each diagnostic with the
 * cell's own line number, the offending line and a caret. */
#ifndef ICUDA_COMPILE_ERRORS_H
#define ICUDA_COMPILE_ERRORS_H

#include <jansson.h>

/* Appends one string per output line to lines (a JSON array). Returns the
 * number of errors; *first_error (malloc'd, may stay NULL) is the first
 * error as one line, "identifier "q" is undefined (In [3], line 5)". */
int compile_log_format(const char *log, json_t *lines, char **first_error);

#endif
