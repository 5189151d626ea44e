/* The cell splitter: cuts a cell into top-level items and says
 * where each goes — device translation unit, host interpreter, both, or the
 * magics. It only scans tokens (comments, strings, brackets); it does not
 * parse C. */
#ifndef ICUDA_SPLIT_H
#define ICUDA_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "include_routes.h"

typedef enum {
    ITEM_DEVICE,    /* __global__/__device__/__constant__, device templates, extern "C", device #includes, #pragma */
    ITEM_BOTH,      /* plain-data struct/union/enum/typedef/using T =, __host__ __device__ functions,
                     * #define/#undef, C headers, using namespace / namespace aliases */
    ITEM_HOST,      /* plain functions and function templates, structs with member functions,
                     * declarations, statements, host headers (<iostream>, cuda_runtime.h) */
    ITEM_MAGIC,     /* a line starting with % */
} item_kind_t;

/* One per top-level item: a cell of short statements has one every few
 * bytes, so an item is small (40 bytes; 280 with its key and name in it
 * made a 10 MB cell's items 535 MB). Offsets are 32-bit: split_cell takes
 * no text of 4 GiB or more (too_long). */
typedef struct cell_item {
    uint32_t start, end;    /* byte range in the cell */
    uint32_t device_end;    /* a type with declarators, "union U {...} u;": the device side
                             * takes [start, device_end) and a ';' (0: the whole item) */
    int first_line, last_line; /* 1-based cell lines */
    item_kind_t kind : 8;
    include_route_t include_route : 8;
    bool is_kernel : 1;     /* a __global__ function definition */
    bool is_template : 1;
    bool is_function : 1;   /* a function definition (has a body) */
    bool is_variable : 1;   /* a __device__/__constant__ variable */
    bool is_managed : 1;    /* ... declared __managed__ (host code sees it too) */
    bool is_include : 1;    /* #include: name is the header's name ("iostream") */
    bool in_conditional : 1; /* a # line between the cell's own #if and #endif */
    bool include_angle;     /* ... written <name> rather than "name" */
    /* in the split's text store, valid until split_free: */
    const char *key;        /* what a later definition replaces: "fn:name", "type:name", "macro:N", ... ("" = none) */
    const char *name;       /* the defined name, when there is one ("" = none) */
} cell_item_t;
_Static_assert(sizeof(cell_item_t) <= 40, "an item grew: a big cell's items grow with it");

typedef struct cell_split {
    cell_item_t *items;
    size_t n, cap;
    struct split_text *texts; /* the items' keys and names */
    int too_deep_line;      /* the first cell line where (), [] and {} nest deeper than
                             * SPLIT_MAX_DEPTH (0: none): the cell is refused */
    bool too_long;          /* 4 GiB or more: not split, refused */
    bool no_memory;         /* the items did not fit in memory: refused */
} cell_split_t;

/* Deeper bracket nesting is a SyntaxError before anything compiles or runs
 * (the interpreter's own bound is LANG_MAX_NEST, the same number). */
#define SPLIT_MAX_DEPTH 1000

/* Splits code into items. Never fails: unbalanced brackets leave the rest of
 * the cell as one last item (the compiler or interpreter reports it). */
void split_cell(const char *code, cell_split_t *out);
void split_free(cell_split_t *s);

/* The text of the cell with everything blanked to spaces (newlines kept) but
 * the items among [from, to) for which keep(item) is true, so lines and
 * columns stay the cell's own. */
char *split_view(const char *code, const cell_split_t *s, size_t from, size_t to, bool (*keep)(const cell_item_t *));

/* True when the cell, after blank lines and comments, starts with "%%". */
bool split_is_cell_magic(const char *code);

#endif
