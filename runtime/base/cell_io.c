/* A cell's output and its error reply, for every room below the engine: the
 * device compiler, the CUDA layer and the magics write through these, so
 * none of them calls up into the engine (runtime/engine/engine.c only dispatches). */
#include "runtime/base/cell_io.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/xalloc.h"

void cell_error_set(cell_error_t *err, const char *ename, json_t *traceback, const char *evalue_fmt, ...) {
    cell_error_clear(err);
    va_list ap;
    va_start(ap, evalue_fmt);
    if (vasprintf(&err->evalue, evalue_fmt, ap) < 0) err->evalue = NULL;
    va_end(ap);
    err->ename = xstrdup(ename);
    if (!traceback) {
        traceback = json_array();
        json_array_append_new(traceback, json_sprintf("\x1b[1;31m%s\x1b[0m: %s", ename, err->evalue ? err->evalue : ""));
    }
    err->traceback = traceback;
}

void cell_error_clear(cell_error_t *err) {
    free(err->ename);
    free(err->evalue);
    json_decref(err->traceback);
    memset(err, 0, sizeof *err);
}

void io_printf(const cell_io_t *io, const char *stream, const char *fmt, ...) {
    if (!io || !io->stream) return;
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n > 0) io->stream(io->ctx, stream, s, (size_t)n);
    free(s);
}

void io_display_text(const cell_io_t *io, const char *plain, const char *html) {
    if (!io || !io->display) return;
    json_t *data = json_pack("{s:s}", "text/plain", plain);
    if (html) json_object_set_new(data, "text/html", json_string(html));
    io->display(io->ctx, data, NULL, false);
    json_decref(data);
}


/* ---- a cell's output, capped (docs/reliability.md) ---- */

static void capped_stream(void *ctx, const char *name, const char *text, size_t len) {
    io_cap_t *c = ctx;
    if (c->cut) return;
    if (c->sent + len > c->limit) {
        size_t keep = c->limit - c->sent;
        while (keep > 0 && (text[keep - 1] & 0xC0) == 0x80) keep--; /* not inside a UTF-8 character */
        if (keep > 0 && (unsigned char)text[keep - 1] >= 0xC0) keep--;
        if (keep) c->inner->stream(c->inner->ctx, name, text, keep);
        c->cut = true;
        char note[200];
        int n = snprintf(note, sizeof note,
                         "\n[output truncated: this cell printed more than %zu MiB; the rest is dropped "
                         "(the cell goes on running; interrupt it to stop it)]\n", c->limit >> 20);
        c->inner->stream(c->inner->ctx, "stderr", note, (size_t)n);
        return;
    }
    c->sent += len;
    c->inner->stream(c->inner->ctx, name, text, len);
}

static void capped_display(void *ctx, json_t *data, json_t *metadata, bool is_result) {
    io_cap_t *c = ctx;
    if (c->inner->display) c->inner->display(c->inner->ctx, data, metadata, is_result);
}

static void capped_display_as(void *ctx, const char *display_id, bool update, json_t *data, json_t *metadata) {
    io_cap_t *c = ctx;
    c->inner->display_as(c->inner->ctx, display_id, update, data, metadata);
}

static void capped_page(void *ctx, json_t *data) {
    io_cap_t *c = ctx;
    c->inner->page(c->inner->ctx, data);
}

const cell_io_t *io_cap(io_cap_t *c, const cell_io_t *inner) {
    memset(c, 0, sizeof *c);
    c->inner = inner;
    c->limit = IO_CELL_OUTPUT_MAX;
    const char *env = getenv("ICUDA_MAX_CELL_OUTPUT"); /* bytes; for tests and big logs */
    if (env && *env) {
        unsigned long long v = strtoull(env, NULL, 10);
        if (v > 0) c->limit = (size_t)v;
    }
    if (!inner || !inner->stream) return inner;
    c->io.ctx = c;
    c->io.stream = capped_stream;
    c->io.display = capped_display;
    c->io.page = inner->page ? capped_page : NULL; /* help is not output: the pager is never capped */
    c->io.display_as = inner->display_as ? capped_display_as : NULL;
    return &c->io;
}
