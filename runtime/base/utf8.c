/* A strict UTF-8 decoder (no overlongs, no surrogates, nothing above
 * U+10FFFF), the same rules jansson applies to strings (utf8.h). */
#include "utf8.h"

#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

/* Length of the valid sequence at s (at most n bytes), or 0 if invalid. */
static size_t valid_seq(const unsigned char *s, size_t n) {
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else
        return 0;
    if (n < len) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    return len;
}

char *utf8_sanitize(const char *str, size_t len, size_t *outlen) {
    const unsigned char *s = (const unsigned char *)str;
    char *out = xmalloc(len * 3 + 1); /* worst case: every byte → 3-byte U+FFFD */
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t k = valid_seq(s + i, len - i);
        if (k) {
            memcpy(out + o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    out[o] = 0;
    if (outlen) *outlen = o;
    return out;
}

size_t utf8_incomplete_tail(const char *str, size_t len) {
    const unsigned char *s = (const unsigned char *)str;
    for (size_t back = 1; back <= 3 && back <= len; back++) {
        unsigned char c = s[len - back];
        if ((c & 0xc0) == 0x80) continue; /* continuation byte: look further back */
        size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        return need > back ? back : 0;
    }
    return 0;
}

size_t utf8_char(const char *str, size_t n, uint32_t *cp) {
    const unsigned char *s = (const unsigned char *)str;
    size_t k = n ? valid_seq(s, n) : 0;
    if (!k) return 0;
    uint32_t c = k == 1 ? s[0] : s[0] & (0x7f >> k);
    for (size_t i = 1; i < k; i++) c = c << 6 | (s[i] & 0x3f);
    *cp = c;
    return k;
}
