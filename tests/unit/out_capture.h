/* A cell's streams collected into one string (the io of unit tests that
 * run cells: test_native, test_sessions, test_cell_pool). */
#ifndef ICUDA_TESTS_OUT_CAPTURE_H
#define ICUDA_TESTS_OUT_CAPTURE_H

#include <stdlib.h>
#include <string.h>

typedef struct { char *s; size_t n; } out_t;
static void io_stream(void *ctx, const char *name, const char *text, size_t len) {
    (void)name;
    out_t *o = ctx;
    o->s = realloc(o->s, o->n + len + 1);
    memcpy(o->s + o->n, text, len);
    o->n += len;
    o->s[o->n] = 0;
}

#endif
