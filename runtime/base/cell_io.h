/* What a cell shows and how it fails, for every layer that runs part of a
 * cell: output goes out through cell_io_t callbacks (which the protocol layer
 * turns into iopub messages), an error through cell_error_t (the reply's
 * ename, evalue and traceback). Nothing here knows ZeroMQ or the engine. */
#ifndef ICUDA_CELL_IO_H
#define ICUDA_CELL_IO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Where a cell's output goes. Called on the thread that runs engine_execute. */
typedef struct cell_io {
    void *ctx;
    /* name is "stdout" or "stderr"; text need not be NUL-terminated. */
    void (*stream)(void *ctx, const char *name, const char *text, size_t len);
    /* data: a MIME bundle ({"text/plain": ..., "text/html": ...}); metadata may
     * be NULL. is_result: an execute_result (the cell's value) rather than
     * display_data. References are borrowed. */
    void (*display)(void *ctx, json_t *data, json_t *metadata, bool is_result);
    /* Help for the pager (the execute_reply's "page" payload): a MIME
     * bundle, borrowed. NULL: io_page prints its text/plain instead. */
    void (*page)(void *ctx, json_t *data);
    /* A display that later ones replace (progress lines): shown under
     * display_id (update false), then replaced by each update (true).
     * References are borrowed. NULL: such displays are not shown. */
    void (*display_as)(void *ctx, const char *display_id, bool update, json_t *data, json_t *metadata);
} cell_io_t;

/* An error reply's fields. Filled by the engine on failure; freed with
 * cell_error_clear. traceback is a JSON array of strings. */
typedef struct cell_error {
    char *ename;
    char *evalue;
    json_t *traceback;
} cell_error_t;

void cell_error_set(cell_error_t *err, const char *ename, json_t *traceback,
                      const char *evalue_fmt, ...) __attribute__((format(printf, 4, 5)));
void cell_error_clear(cell_error_t *err);

/* A cell's stream output (host printf, GPU printf, magics) stops after
 * IO_CELL_OUTPUT_MAX bytes, with one notice on stderr; the cell goes on.
 * ICUDA_MAX_CELL_OUTPUT (bytes) overrides it. runtime/base/cell_io.c. */
#define IO_CELL_OUTPUT_MAX ((size_t)16 << 20)
typedef struct io_cap {
    const cell_io_t *inner;
    cell_io_t io;
    size_t sent, limit;
    bool cut;
} io_cap_t;
/* The capped io for one cell, valid while c lives. */
const cell_io_t *io_cap(io_cap_t *c, const cell_io_t *inner);

void io_printf(const cell_io_t *io, const char *stream, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* text/plain (and optional text/html) as display_data. */
void io_display_text(const cell_io_t *io, const char *plain, const char *html);
/* Help text for the pager (runtime/base/pager.c); html NULL: made from plain. */
void io_page(const cell_io_t *io, const char *plain, const char *html);

#endif
