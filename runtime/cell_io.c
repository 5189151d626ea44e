/* A cell's output and its error reply, for every room below the engine: the
 * device compiler, the CUDA layer and the magics write through these, so
 * none of them calls up into the engine (runtime/engine.c only dispatches). */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void engine_error_set(engine_error_t *err, const char *ename, json_t *traceback, const char *evalue_fmt, ...) {
    engine_error_clear(err);
    va_list ap;
    va_start(ap, evalue_fmt);
    if (vasprintf(&err->evalue, evalue_fmt, ap) < 0) err->evalue = NULL;
    va_end(ap);
    err->ename = strdup(ename);
    if (!traceback) {
        traceback = json_array();
        json_array_append_new(traceback, json_sprintf("\x1b[1;31m%s\x1b[0m: %s", ename, err->evalue ? err->evalue : ""));
    }
    err->traceback = traceback;
}

void engine_error_clear(engine_error_t *err) {
    free(err->ename);
    free(err->evalue);
    json_decref(err->traceback);
    memset(err, 0, sizeof *err);
}

void io_printf(const engine_io_t *io, const char *stream, const char *fmt, ...) {
    if (!io || !io->stream) return;
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n > 0) io->stream(io->ctx, stream, s, (size_t)n);
    free(s);
}

void io_display_text(const engine_io_t *io, const char *plain, const char *html) {
    if (!io || !io->display) return;
    json_t *data = json_pack("{s:s}", "text/plain", plain);
    if (html) json_object_set_new(data, "text/html", json_string(html));
    io->display(io->ctx, data, NULL, false);
    json_decref(data);
}

