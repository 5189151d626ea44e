/* UTF-8, strictly as jansson reads it (no overlongs, no surrogates, nothing
 * above U+10FFFF): repair for text nobody checked (a cell's stdout can be
 * any bytes; a JSON string must be valid UTF-8), whole characters when text
 * is cut, one character decoded. The one place icuda reads UTF-8. */
#ifndef ICUDA_UTF8_H
#define ICUDA_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* A malloc'd copy of s[0..len) with every invalid byte replaced by U+FFFD,
 * NUL-terminated; *outlen gets its length (it may hold NUL bytes). */
char *utf8_sanitize(const char *s, size_t len, size_t *outlen);

/* How many bytes at the end of s[0..len) begin a multi-byte character that
 * is not complete yet (0..3): output split across writes keeps them back. */
size_t utf8_incomplete_tail(const char *s, size_t len);

/* The length of s[0..n) cut so that it ends with a whole character. */
static inline size_t utf8_whole(const char *s, size_t n) { return n - utf8_incomplete_tail(s, n); }

/* The length (1..4) of the valid character at s[0..n), its code point in
 * *cp; 0 when the bytes there are no valid UTF-8. */
size_t utf8_char(const char *s, size_t n, uint32_t *cp);

#endif
