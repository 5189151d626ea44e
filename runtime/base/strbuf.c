#include "strbuf.h"

#include "xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(strbuf_t *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void sb_append(strbuf_t *b, const char *s, size_t n) {
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void sb_puts(strbuf_t *b, const char *s) { sb_append(b, s, strlen(s)); }
void sb_putc(strbuf_t *b, char c) { sb_append(b, &c, 1); }

void sb_printf(strbuf_t *b, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    reserve(b, 128);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->data + b->len, room, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n >= room) { /* did not fit: grow and format again */
        reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    }
    if (n > 0) b->len += (size_t)n;
    b->data[b->len] = 0;
    va_end(ap2);
}

char *sb_take(strbuf_t *b) {
    char *s = b->data ? b->data : xstrdup("");
    b->data = NULL;
    b->len = b->cap = 0;
    return s;
}
