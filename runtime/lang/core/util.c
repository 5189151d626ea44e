/* Small containers for the interpreter: a bump pool (compiled code, types and
 * names live as long as the session), a string-keyed hash map and the
 * session's interned strings; and g_in, the session running now. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "core.h"
#include "runtime/base/xalloc.h"

interp_t *g_in;

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(a, n) ASAN_POISON_MEMORY_REGION(a, n)
#define UNPOISON(a, n) ASAN_UNPOISON_MEMORY_REGION(a, n)
#else
#define POISON(a, n) ((void)(a), (void)(n))
#define UNPOISON(a, n) ((void)(a), (void)(n))
#endif

/* LeakSanitizer reads malloc's blocks for pointers, not mappings: a mapped
 * chunk's blocks point at malloc'd tables (a session's maps), which would
 * read as leaked. (gcc says ASan with __SANITIZE_ADDRESS__, clang with
 * __has_feature.) */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LSAN_ROOTS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(LSAN_ROOTS)
#include <sanitizer/lsan_interface.h>
#define ROOT(a, n) __lsan_register_root_region(a, n)
#define UNROOT(a, n) __lsan_unregister_root_region(a, n)
#else
#define ROOT(a, n) ((void)(a), (void)(n))
#define UNROOT(a, n) ((void)(a), (void)(n))
#endif

/* Chunks: a pool's first ones are small (malloc's); one that keeps growing
 * gets larger ones, each mapped on its own, so that a big cell's tokens and
 * syntax tree go back to the system when they are freed or rolled back
 * (malloc's heap kept 0.7 GB of a 10 MB cell's). An allocation larger than
 * a chunk gets a chunk of its own, which pool_regrow can grow in place. */
#define CHUNK_MIN ((size_t)60000)
#define CHUNK_MAX ((size_t)4 << 20)
#define MAP_MIN ((size_t)256 << 10) /* chunks at least this large are mapped */

size_t g_pool_bytes; /* in all pools' chunks, for the cell's budget */

static size_t chunk_bytes(const pool_chunk_t *c) { return sizeof *c + c->cap; }

/* A chunk with room for cap bytes, zeroed; raises MemoryError (or, outside
 * a cell, ends the process) when there is none. */
static pool_chunk_t *chunk_new(size_t cap) {
    if (cap > SIZE_MAX / 2) lang_out_of_memory(cap, "compiling this cell");
    size_t total = sizeof(pool_chunk_t) + cap;
    lang_budget_check(total);
    pool_chunk_t *c;
    if (total >= MAP_MIN) {
        total = (total + 4095) & ~(size_t)4095;
        void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) lang_out_of_memory(total, "compiling this cell");
        c = m;
        c->mapped = total;
        c->cap = total - sizeof *c;
        ROOT(c, total);
    } else {
        c = calloc(1, total);
        if (!c) lang_out_of_memory(total, "compiling this cell");
        c->cap = cap;
    }
    g_pool_bytes += chunk_bytes(c);
    return c;
}

static void chunk_free(pool_chunk_t *c) {
    UNPOISON(c->data, c->cap);
    g_pool_bytes -= chunk_bytes(c);
    if (c->mapped) {
        UNROOT(c, c->mapped);
        munmap(c, c->mapped);
    }
    else free(c);
}

void *pool_alloc(pool_t *p, size_t n) {
    n = (n + 15) & ~(size_t)15;
    pool_chunk_t *c = p->head;
    if (!c || c->own || c->cap - c->used < n) { /* a block's own chunk takes nothing else (pool_regrow) */
        pool_chunk_t *last = c;
        while (last && last->own) last = last->next;
        size_t cap = last ? last->cap * 2 : CHUNK_MIN; /* a pool that keeps growing: larger chunks */
        if (cap > CHUNK_MAX) cap = CHUNK_MAX;
        bool own = n > cap / 2;
        c = chunk_new(own ? n : cap);
        c->own = own;
        c->next = p->head;
        p->head = c;
    }
    void *r = c->data + c->used;
    UNPOISON(r, n);
    c->used += n;
    return r;
}

/* the chunk that holds only block x, and the link to it; NULL if none */
static pool_chunk_t **own_chunk(pool_t *p, const void *x) {
    for (pool_chunk_t **pp = &p->head; *pp; pp = &(*pp)->next)
        if ((*pp)->own && (*pp)->data == x) return pp;
    return NULL;
}

void *pool_regrow(pool_t *p, void *old, size_t oldn, size_t n) {
    n = (n + 15) & ~(size_t)15;
    pool_chunk_t **pp = old ? own_chunk(p, old) : NULL;
    if (pp && (*pp)->mapped && n > (*pp)->cap) {
        pool_chunk_t *c = *pp;
        size_t total = (sizeof *c + n + 4095) & ~(size_t)4095;
        lang_budget_check(total - c->mapped);
        UNPOISON(c->data, c->cap);
        size_t was = c->mapped;
        void *m = mremap(c, c->mapped, total, MREMAP_MAYMOVE); /* the new pages are zero */
        if (m == MAP_FAILED) lang_out_of_memory(total, "compiling this cell");
        UNROOT(c, was);
        ROOT(m, total);
        c = m;
        g_pool_bytes += total - c->mapped;
        c->mapped = total;
        c->cap = total - sizeof *c;
        c->used = n;
        *pp = c;
        return c->data;
    }
    if (pp && n <= (*pp)->cap) {
        UNPOISON((*pp)->data, n);
        (*pp)->used = n;
        return old;
    }
    void *r = pool_alloc(p, n);
    if (oldn) memcpy(r, old, oldn);
    return r;
}

void pool_release(pool_t *p, void *x) {
    pool_chunk_t **pp = x ? own_chunk(p, x) : NULL;
    if (!pp) return;
    pool_chunk_t *c = *pp;
    *pp = c->next;
    chunk_free(c);
}

void pool_discard(pool_t *p, void *x, size_t n) {
    pool_chunk_t **pp = x ? own_chunk(p, x) : NULL;
    if (!pp || !(*pp)->mapped) return;
    uintptr_t lo = ((uintptr_t)x + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)x + n) & ~(uintptr_t)4095;
    if (hi <= lo) return;
    madvise((void *)lo, hi - lo, MADV_DONTNEED); /* reads as zero from now on */
    POISON((void *)lo, hi - lo);                 /* under ASan, a read is reported */
}

void pool_rollback(pool_t *p, pool_mark_t m) {
    while (p->head && p->head != m.head) {
        pool_chunk_t *c = p->head;
        p->head = c->next;
        chunk_free(c);
    }
    pool_chunk_t *c = p->head;
    if (!c || c->used <= m.used) return;
#if defined(__SANITIZE_ADDRESS__)
    /* under ASan the space is never handed out again, so that a pointer
     * left into it is reported when used, not read as another cell's */
    POISON(c->data + m.used, c->cap - m.used);
    c->used = c->cap;
#else
    memset(c->data + m.used, 0, c->used - m.used); /* pool_alloc hands out zeroed memory */
    c->used = m.used;
#endif
}

bool pool_since(pool_t *p, pool_mark_t m, const void *x) {
    const char *a = x;
    for (pool_chunk_t *c = p->head; c; c = c->next) {
        size_t from = c == m.head ? m.used : 0;
        if (a >= c->data + from && a < c->data + c->used) return true;
        if (c == m.head) break;
    }
    return false;
}

char *pool_strndup(pool_t *p, const char *s, size_t n) {
    char *r = pool_alloc(p, n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

void pool_free(pool_t *p) {
    for (pool_chunk_t *c = p->head, *nx; c; c = nx) {
        nx = c->next;
        chunk_free(c);
    }
    p->head = NULL;
}

void pool_splice(pool_t *into, pool_t *from) {
    pool_chunk_t *tail = from->head;
    if (!tail) return;
    while (tail->next) tail = tail->next;
    tail->next = into->head;
    into->head = from->head;
    from->head = NULL;
}

static unsigned hstr(const char *s, size_t n) {
    unsigned h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* keys are the n bytes at k (no NUL needed): a name is looked up as its
 * token spells it, whatever its length */
static int hfind(hmap_t *m, const char *k, size_t n) {
    unsigned i = hstr(k, n) & (unsigned)(m->cap - 1);
    while (m->keys[i]) {
        if (m->keys[i] != (const char *)1 && strncmp(m->keys[i], k, n) == 0 && m->keys[i][n] == 0) return (int)i;
        i = (i + 1) & (unsigned)(m->cap - 1);
    }
    return -1;
}

void *hmap_getn(hmap_t *m, const char *k, size_t n) {
    if (!m->cap) return NULL;
    int i = hfind(m, k, n);
    return i < 0 ? NULL : m->vals[i];
}

void *hmap_get(hmap_t *m, const char *k) { return hmap_getn(m, k, strlen(k)); }

void hmap_put(hmap_t *m, const char *k, void *v) {
    m->puts++;
    if (m->cap) {
        int i = hfind(m, k, strlen(k));
        if (i >= 0) { m->vals[i] = v; return; }
    }
    if ((m->n + 1) * 2 > m->cap) {
        hmap_t nm = {.cap = m->cap ? m->cap * 2 : 64, .puts = m->puts};
        nm.keys = calloc((size_t)nm.cap, sizeof *nm.keys);
        nm.vals = calloc((size_t)nm.cap, sizeof *nm.vals);
        if (!nm.keys || !nm.vals) {
            free(nm.keys);
            free(nm.vals);
            lang_out_of_memory((size_t)nm.cap * 2 * sizeof *nm.keys, "a table of names");
        }
        for (int i = 0; i < m->cap; i++)
            if (m->keys[i] && m->keys[i] != (const char *)1) hmap_put(&nm, m->keys[i], m->vals[i]);
        free(m->keys);
        free(m->vals);
        *m = nm;
    }
    unsigned i = hstr(k, strlen(k)) & (unsigned)(m->cap - 1);
    while (m->keys[i] && m->keys[i] != (const char *)1) i = (i + 1) & (unsigned)(m->cap - 1);
    m->keys[i] = k; /* keys are owned by the caller (pool) */
    m->vals[i] = v;
    m->n++;
}

void hmap_deln(hmap_t *m, const char *k, size_t n) {
    if (!m->cap) return;
    int i = hfind(m, k, n);
    if (i >= 0) { m->keys[i] = (const char *)1; m->vals[i] = NULL; }
}

void hmap_del(hmap_t *m, const char *k) { hmap_deln(m, k, strlen(k)); }

void hmap_free(hmap_t *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

const char *lang_intern(interp_t *in, const char *s) {
    const char *k = hmap_get(&in->interned, s);
    if (k) return k;
    k = pool_strndup(&in->keep, s, strlen(s));
    hmap_put(&in->interned, k, (void *)k);
    return k;
}

char *lang_name(interp_t *in, char *buf, size_t cap, const char *s, size_t n) {
    char *r = n < cap ? buf : pool_alloc(&in->pool, n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

char *lang_name_fmt(interp_t *in, char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    if (need < 0 || (size_t)need < cap) return buf;
    char *r = pool_alloc(&in->pool, (size_t)need + 1);
    va_start(ap, fmt);
    vsnprintf(r, (size_t)need + 1, fmt, ap);
    va_end(ap);
    return r;
}
