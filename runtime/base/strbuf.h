/* A growable string: the one way text is built up in the runtime. */
#ifndef ICUDA_STRBUF_H
#define ICUDA_STRBUF_H

#include <stddef.h>

typedef struct {
    char *data;
    size_t len, cap;
} strbuf_t;

void sb_append(strbuf_t *b, const char *s, size_t n);
void sb_puts(strbuf_t *b, const char *s);
void sb_putc(strbuf_t *b, char c);
void sb_printf(strbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text (never NULL, "" when empty); b is reset. Caller frees. */
char *sb_take(strbuf_t *b);

#endif
