/* Where each line of a compiled device unit came from, kept per module:
 * tools that name a unit line (compute-sanitizer's "cell.cu:12" from
 * -lineinfo, nvdisasm's line annotations) turn it back into the cell, its
 * line and the line's text. */
#ifndef ICUDA_DEVICE_LINES_H
#define ICUDA_DEVICE_LINES_H

#include <stdbool.h>
#include <stddef.h>

/* Unit lines [tu_first, tu_first + n) are lines cell_first ... of label. */
typedef struct line_span {
    int tu_first, n, cell_first;
    char label[48];
} line_span_t;

typedef struct device_lines device_lines_t;

void device_lines_free(device_lines_t *d);

/* Keeps (a copy of) the unit text and its map for module hex, spans
 * labelled this_label standing for cell. Replaces what hex had. */
void device_lines_put(device_lines_t **d, const char *hex, const char *text, const line_span_t *map, int n,
                      const char *this_label, const char *cell);

/* A unit about to be compiled whose module key is not known yet (a
 * template instance built from the prelude): device_lines_claim gives it
 * to hex when the compiled source is this text. */
void device_lines_pending(device_lines_t **d, const char *text, const line_span_t *map, int n);
void device_lines_claim(device_lines_t **d, const char *hex, const char *source);

/* Unit line -> the cell's label and line, and the line's text (into text,
 * cap bytes, without its newline). false when hex or the line is unknown. */
bool device_lines_lookup(const device_lines_t *d, const char *hex, int unit_line, char *cell, size_t cell_cap,
                         int *cell_line, char *text, size_t text_cap);

#endif
