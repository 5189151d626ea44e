/* UTF-8 repair for text the kernel did not write itself (a cell's stdout can
 * be any bytes), since a JSON string must be valid UTF-8. */
#ifndef ICUDA_UTF8_H
#define ICUDA_UTF8_H

#include <stddef.h>

/* A malloc'd copy of s[0..len) with every invalid byte replaced by U+FFFD,
 * NUL-terminated; *outlen gets its length (it may hold NUL bytes). */
char *utf8_sanitize(const char *s, size_t len, size_t *outlen);

/* How many bytes at the end of s[0..len) begin a multi-byte character that
 * is not complete yet (0..3): output split across writes keeps them back. */
size_t utf8_incomplete_tail(const char *s, size_t len);

#endif
