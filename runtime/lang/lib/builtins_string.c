/* string.h: every byte a function reads or writes is checked against the
 * buffers its pointers point into before anything is copied; a copy whose
 * source and destination overlap (undefined but for memmove) is an error
 * in AddressSanitizer's words. */
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include <stdlib.h>
#include "lib.h"

#define ARG(i) (c->list[i])

/* [d, d + dn) written while [s, s + sn) is read: undefined when they
 * overlap (an empty range overlaps nothing), as AddressSanitizer checks. */
static void check_overlap(node_t *c, const char *fn, const char *d, size_t dn, const char *s, size_t sn) {
    if (!(d < s + sn && s < d + dn)) return;
    rt_error(c, "%s-param-overlap: memory ranges [%p,%p) and [%p, %p) overlap", fn, (void *)d, (void *)(d + dn),
             (void *)s, (void *)(s + sn));
}

static val_t s_memcpy(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t k = a[2].u;
    const char *s = mem_at(a[1].u, k, 0, ARG(1));
    char *d = mem_at(a[0].u, k, 1, ARG(0));
    if (d != s) check_overlap(c, "memcpy", d, k, s, k); /* a copy onto itself is let be, as ASan does */
    if (k) memmove(d, s, k);
    return a[0];
}
static val_t s_memmove(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t k = a[2].u;
    const char *s = mem_at(a[1].u, k, 0, ARG(1));
    char *d = mem_at(a[0].u, k, 1, ARG(0));
    if (k) memmove(d, s, k);
    return a[0];
}
static val_t s_memset(node_t *c, val_t *a, int n, frame_t *f) {
    char *d = mem_at(a[0].u, a[2].u, 1, ARG(0));
    if (a[2].u) memset(d, (int)a[1].i, a[2].u);
    return a[0];
}
static val_t s_memcmp(node_t *c, val_t *a, int n, frame_t *f) {
    const char *x = mem_at(a[0].u, a[2].u, 0, ARG(0)), *y = mem_at(a[1].u, a[2].u, 0, ARG(1));
    int r = a[2].u ? memcmp(x, y, a[2].u) : 0;
    return (val_t){.i = r};
}
static val_t s_strlen(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    str_at(a[0].u, ARG(0), &len);
    return (val_t){.u = len};
}
static val_t s_strcpy(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    const char *s = str_at(a[1].u, ARG(1), &len);
    char *d = mem_at(a[0].u, len + 1, 1, ARG(0));
    check_overlap(c, "strcpy", d, len + 1, s, len + 1);
    memmove(d, s, len + 1);
    return a[0];
}
/* reads at most k bytes of a string: stops at NUL inside the buffer */
static size_t bounded_len(uint64_t p, uint64_t k, node_t *at) {
    char *b = mem_at(p, 0, 0, at);
    int64_t off;
    uint64_t avail = ptr_buf(p, &off)->size - (uint64_t)off;
    uint64_t m = k < avail ? k : avail;
    char *z = memchr(b, 0, m);
    if (z) return (size_t)(z - b);
    if (m < k) mem_at(p, m + 1, 0, at); /* raises: reads past the end */
    return (size_t)m;
}
static val_t s_strncpy(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t k = a[2].u;
    size_t len = bounded_len(a[1].u, k, ARG(1));
    const char *s = mem_at(a[1].u, len, 0, ARG(1));
    char *d = mem_at(a[0].u, k, 1, ARG(0));
    size_t from = len < k ? len + 1 : k; /* the source's bytes read, its NUL included */
    check_overlap(c, "strncpy", d, from, s, from);
    memmove(d, s, len);
    if (k > len) memset(d + len, 0, k - len);
    return a[0];
}
static val_t s_strcmp(node_t *c, val_t *a, int n, frame_t *f) {
    int r = strcmp(str_at(a[0].u, ARG(0), NULL), str_at(a[1].u, ARG(1), NULL));
    return (val_t){.i = r};
}
/* strncmp and strncasecmp: at most k bytes of each string, each read only
 * as far as its NUL or k; fold: compare letters without case */
static val_t bounded_cmp(node_t *c, val_t *a, bool fold) {
    uint64_t k = a[2].u;
    size_t l1 = bounded_len(a[0].u, k, ARG(0)), l2 = bounded_len(a[1].u, k, ARG(1));
    const char *x = mem_at(a[0].u, l1, 0, ARG(0)), *y = mem_at(a[1].u, l2, 0, ARG(1));
    size_t m = l1 < l2 ? l1 : l2;
    int r = fold ? strncasecmp(x, y, m) : memcmp(x, y, m);
    if (!r && m < k && l1 != l2) r = l1 < l2 ? -1 : 1;
    return (val_t){.i = r};
}
static val_t s_strncmp(node_t *c, val_t *a, int n, frame_t *f) { return bounded_cmp(c, a, false); }
static val_t s_strcasecmp(node_t *c, val_t *a, int n, frame_t *f) {
    int r = strcasecmp(str_at(a[0].u, ARG(0), NULL), str_at(a[1].u, ARG(1), NULL));
    return (val_t){.i = r};
}
static val_t s_strncasecmp(node_t *c, val_t *a, int n, frame_t *f) { return bounded_cmp(c, a, true); }
static val_t s_bzero(node_t *c, val_t *a, int n, frame_t *f) {
    char *d = mem_at(a[0].u, a[1].u, 1, ARG(0));
    if (a[1].u) memset(d, 0, a[1].u);
    return (val_t){.u = 0};
}
static val_t s_strcat(node_t *c, val_t *a, int n, frame_t *f) {
    size_t ld, ls;
    const char *d0 = str_at(a[0].u, ARG(0), &ld);
    const char *s = str_at(a[1].u, ARG(1), &ls);
    char *d = mem_at(ptr_add(a[0].u, (int64_t)ld), ls + 1, 1, ARG(0));
    if (ls) check_overlap(c, "strcat", d0, ld + ls + 1, s, ls + 1); /* the whole result against the source */
    memmove(d, s, ls + 1);
    return a[0];
}
static val_t s_strncat(node_t *c, val_t *a, int n, frame_t *f) {
    size_t ld;
    const char *d0 = str_at(a[0].u, ARG(0), &ld);
    size_t ls = bounded_len(a[1].u, a[2].u, ARG(1));
    const char *s = mem_at(a[1].u, ls, 0, ARG(1));
    char *d = mem_at(ptr_add(a[0].u, (int64_t)ld), ls + 1, 1, ARG(0));
    if (ls) { /* the bytes read: up to the limit, or the NUL before it */
        size_t rd = ls < a[2].u ? ls + 1 : (size_t)a[2].u;
        check_overlap(c, "strncat", d0, ld + rd + 1, s, rd);
    }
    memmove(d, s, ls);
    d[ls] = 0;
    return a[0];
}
static val_t s_strchr(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    const char *s = str_at(a[0].u, ARG(0), &len);
    const char *r = memchr(s, (int)(char)a[1].i, len + 1);
    return (val_t){.u = r ? ptr_add(a[0].u, r - s) : 0};
}
static val_t s_strrchr(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    const char *s = str_at(a[0].u, ARG(0), &len);
    const char *r = strrchr(s, (int)(char)a[1].i);
    return (val_t){.u = r ? ptr_add(a[0].u, r - s) : 0};
}
static val_t s_strstr(node_t *c, val_t *a, int n, frame_t *f) {
    const char *s = str_at(a[0].u, ARG(0), NULL), *t = str_at(a[1].u, ARG(1), NULL);
    const char *r = strstr(s, t);
    return (val_t){.u = r ? ptr_add(a[0].u, r - s) : 0};
}
static val_t s_strdup(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    const char *s = str_at(a[0].u, ARG(0), &len);
    uint64_t p = mem_alloc(len + 1, PLACE_HEAP, NULL, &c->loc);
    if (!p) return (val_t){.u = 0};
    memcpy(g_bufs[ptr_slot(p)].base, s, len + 1);
    return (val_t){.u = p};
}

void builtins_string_register(interp_t *in) {
    builtin_add(in, "memcpy", s_memcpy, 0);
    builtin_add(in, "memmove", s_memmove, 0);
    builtin_add(in, "memset", s_memset, 0);
    builtin_add(in, "memcmp", s_memcmp, 0);
    builtin_add(in, "strlen", s_strlen, 0);
    builtin_add(in, "strcpy", s_strcpy, 0);
    builtin_add(in, "strncpy", s_strncpy, 0);
    builtin_add(in, "strcmp", s_strcmp, 0);
    builtin_add(in, "strncmp", s_strncmp, 0);
    builtin_add(in, "strcat", s_strcat, 0);
    builtin_add(in, "strncat", s_strncat, 0);
    builtin_add(in, "strchr", s_strchr, 0);
    builtin_add(in, "strrchr", s_strrchr, 0);
    builtin_add(in, "strstr", s_strstr, 0);
    builtin_add(in, "strdup", s_strdup, 0);
    builtin_add(in, "strcasecmp", s_strcasecmp, 0); /* <strings.h> */
    builtin_add(in, "strncasecmp", s_strncasecmp, 0);
    builtin_add(in, "bzero", s_bzero, 0);
}
