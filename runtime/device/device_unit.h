/* A cell's device translation unit, assembled from the session prelude and
 * the cell (runtime/device/device_unit.c), before and after NVRTC compiles it. */
#ifndef ICUDA_DEVICE_UNIT_H
#define ICUDA_DEVICE_UNIT_H

#include "device_lines.h"
#include "runtime/device/device_session.h"

/* The current cell's items are compiled under this name, not "In [7]", so
 * that running a cell again (with a new execution count) finds its module in
 * the cache; diagnostics get the real label back (device_unit_relabel). */
#define DEVICE_THIS_CELL "this cell"

/* A unit as NVRTC gets it. NVRTC makes no precompiled header for a source
 * with a #line directive in it, so the unit is assembled with #line markers
 * and then compiled without them: map says where each stretch came from
 * (unit lines [tu_first, tu_first + n) are lines cell_first... of label), and
 * device_unit_relabel turns "cell.cu(N)" in diagnostics back into the cell and its line. */
typedef struct {
    char *text;
    line_span_t *map;
    int nmap, cap;
} device_unit_t;

/* Prelude in order with the cell's definitions in place of the ones they
 * replace, then the cell's new items; cell labels the cell's lines. */
void device_unit_build(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell, device_unit_t *u);
void device_unit_free(device_unit_t *u);

/* Takes log; returns it with "cell.cu(N)" turned into "In [3](5)" (the
 * current cell, DEVICE_THIS_CELL in the map, under cell). */
char *device_unit_relabel(char *log, const char *cell, const device_unit_t *u);

/* "vecadd(double *z, const double *x, int n)" of a kernel item (malloc'd). */
char *device_kernel_signature(const char *code, const cell_item_t *it);

/* After a compile: the cell's device items join the prelude (log, the
 * relabelled compile log, leaves out a # line NVRTC warned about). */
void device_remember_items(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell, const char *log);

/* Would the cell change the prelude in a way NVRTC might refuse (a new or
 * changed # line, or a type naming a namespace's)? */
bool device_prelude_changes(device_session_t *ds, const char *code, const cell_split_t *sp);

#endif
