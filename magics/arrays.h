/* Arrays of the session as the magics take them (%plot, %hist, %save):
 * "xs", "ptr:n" or "r.times", on the host or the device, read as numbers
 * or as their bytes. */
#ifndef ICUDA_MAGICS_ARRAYS_H
#define ICUDA_MAGICS_ARRAYS_H

#include "magics.h"
#include "runtime/lang/interp.h"

/* arg is EXPR or EXPR:COUNT (COUNT an expression of the session; at most
 * what EXPR points at). label names the magic in errors ("%plot"). 0, or -1
 * with err filled. */
int magic_array(magic_ctx_t *mc, const char *label, const char *arg, interp_array_t *a, cell_error_t *err);
/* The first count elements' bytes (a device buffer copied from the GPU);
 * malloc'd, or NULL with err filled. */
void *magic_array_bytes(magic_ctx_t *mc, const interp_array_t *a, uint64_t count, cell_error_t *err);
/* ... as doubles (malloc'd, count of them), or NULL with err filled. */
double *magic_array_doubles(magic_ctx_t *mc, const interp_array_t *a, uint64_t count, cell_error_t *err);
/* Element i of raw bytes of a's type, as a double. */
double magic_elem_double(const interp_array_t *a, const void *bytes, uint64_t i);
/* "device 0x7f0000", "host", "pinned", "managed" for INTERP_PLACE_*. */
const char *magic_place_name(int place);
/* "1.5 KiB", "12 B" */
void magic_fmt_bytes(double bytes, char *buf, size_t n);

#endif
