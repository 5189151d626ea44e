/* The buffer table behind every pointer (lang.h "pointers"). A pointer is
 * slot|generation|offset; the slot's record says where the bytes are, how many,
 * and whether they are still alive, so every access can be checked and every
 * failure explained (which buffer, how big, made where). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang.h"
#include "../hostmem/arena.h"

buf_t *g_bufs;
uint32_t g_nbufs, g_owner;
uint64_t g_buf_epoch = 1;
static uint32_t g_capbufs;
/* freed slots wait in a FIFO so that a freed buffer's record (and so the
 * "use after free" diagnosis) survives a while before the slot is reused */
static uint32_t *g_fifo;
static uint32_t g_fifo_cap, g_fifo_head, g_fifo_n;
#define FIFO_KEEP 4096

/* The engine normally creates the arena; standing alone (tests, benchmarks)
 * the interpreter makes one, smaller where the address space is limited
 * (valgrind). */
static void ensure_arena(void) {
    for (int sh = 36; arena_reserved() == 0 && sh >= 28; sh -= 2) arena_init((size_t)1 << sh);
}

uint32_t buf_new(char *base, uint64_t size, int place, const char *what, loc_t *where) {
    uint32_t s;
    if (g_fifo_n > FIFO_KEEP || (g_nbufs >= PTR_MAX_SLOTS && g_fifo_n)) {
        s = g_fifo[g_fifo_head];
        g_fifo_head = (g_fifo_head + 1) % g_fifo_cap;
        g_fifo_n--;
        g_bufs[s].gen = (uint8_t)((g_bufs[s].gen + 1) & PTR_GEN_MASK);
    } else {
        if (g_nbufs < SLOT_FIRST_BUF) g_nbufs = SLOT_FIRST_BUF;
        if (g_nbufs >= PTR_MAX_SLOTS) return 0;
        if (g_nbufs >= g_capbufs) {
            /* slots 0..2 (NULL, functions, FILEs) stay zero: never live */
            uint32_t oldcap = g_capbufs;
            g_capbufs = g_capbufs ? g_capbufs * 2 : 1024;
            g_bufs = realloc(g_bufs, g_capbufs * sizeof *g_bufs);
            memset(g_bufs + oldcap, 0, (g_capbufs - oldcap) * sizeof *g_bufs);
        }
        s = g_nbufs++;
    }
    buf_t *b = &g_bufs[s];
    b->base = base;
    b->size = size;
    b->state = BUF_LIVE;
    b->place = (uint8_t)place;
    b->ro = place == PLACE_STRLIT;
    b->owner = g_owner;
    b->what = what;
    b->cell = where && where->src ? where->src->name : NULL;
    b->line = where ? where->line : 0;
    b->fname = NULL;
    return s;
}

void buf_kill(uint32_t s, int state) {
    buf_t *b = &g_bufs[s];
    b->state = (uint8_t)state;
    g_buf_epoch++; /* cached accesses (idx_at) re-check */
    if (g_fifo_n == g_fifo_cap) {
        uint32_t nc = g_fifo_cap ? g_fifo_cap * 2 : 8192;
        uint32_t *nf = malloc(nc * sizeof *nf);
        for (uint32_t i = 0; i < g_fifo_n; i++) nf[i] = g_fifo[(g_fifo_head + i) % g_fifo_cap];
        free(g_fifo);
        g_fifo = nf;
        g_fifo_cap = nc;
        g_fifo_head = 0;
    }
    g_fifo[(g_fifo_head + g_fifo_n) % g_fifo_cap] = s;
    g_fifo_n++;
}

uint64_t mem_alloc(uint64_t size, int place, const char *what, loc_t *where) {
    ensure_arena();
    char *p = arena_alloc(size ? size : 1);
    if (!p) return 0;
    uint32_t s = buf_new(p, size, place, what, where);
    if (!s) { arena_free(p); return 0; }
    return ptr_make(s, 0);
}

static const char *place_name(int pl) {
    switch (pl) {
    case PLACE_HEAP: return "a heap buffer";
    case PLACE_GLOBAL: return "a session variable";
    case PLACE_STACK: return "a local variable";
    case PLACE_STRLIT: return "a string literal";
    case PLACE_DEVICE: return "device memory";
    case PLACE_PINNED: return "pinned host memory";
    }
    return "memory";
}

int mem_free_heap(uint64_t p, node_t *at) {
    if (p == 0) return 0; /* free(NULL) is fine */
    char nm[128];
    loc_text(at ? &at->loc : NULL, nm, sizeof nm);
    uint32_t s = ptr_slot(p);
    if (s < SLOT_FIRST_BUF || s >= g_nbufs)
        rt_error(at, "free of an invalid pointer: %s does not point to memory from malloc", nm);
    buf_t *b = &g_bufs[s];
    if (b->gen != ((p >> PTR_OFF_BITS) & PTR_GEN_MASK))
        rt_error(at, "double free: %s points to a buffer that was already freed", nm);
    if (b->state != BUF_LIVE) {
        if (b->place == PLACE_HEAP)
            rt_error(at, "double free: %s was already freed (allocated at %s line %d)", nm,
                     b->cell ? b->cell : "?", b->line);
        rt_error(at, "free of a pointer that is no longer valid: %s", nm);
    }
    if (b->place != PLACE_HEAP) {
        if (b->place == PLACE_PINNED)
            rt_error(at, "free of pinned memory: %s came from cudaMallocHost; use cudaFreeHost", nm);
        if (b->place == PLACE_DEVICE)
            rt_error(at, "free of device memory: %s came from cudaMalloc; use cudaFree", nm);
        rt_error(at, "free of a pointer not from malloc: %s points to %s%s%s%s", nm,
                 place_name(b->place), b->what ? " '" : "", b->what ? b->what : "",
                 b->what ? "'" : "");
    }
    if (ptr_off(p) != 0)
        rt_error(at, "free of a pointer into the middle of a buffer: %s is %" PRId64
                 " bytes past the start of a buffer allocated at %s line %d",
                 nm, ptr_off(p), b->cell ? b->cell : "?", b->line);
    arena_free(b->base);
    b->base = NULL;
    buf_kill(s, BUF_FREED);
    return 0;
}

void mem_free_owner(uint32_t owner) {
    for (uint32_t s = SLOT_FIRST_BUF; s < g_nbufs; s++) {
        buf_t *b = &g_bufs[s];
        if (b->owner != owner || b->state != BUF_LIVE) continue;
        if (b->place == PLACE_HEAP || b->place == PLACE_GLOBAL) arena_free(b->base);
        b->base = NULL;
        buf_kill(s, BUF_FREED);
    }
    int all_dead = 1;
    for (uint32_t s = SLOT_FIRST_BUF; s < g_nbufs; s++)
        if (g_bufs[s].state == BUF_LIVE) { all_dead = 0; break; }
    if (all_dead) { /* last interpreter gone: give the tables back */
        free(g_bufs);
        free(g_fifo);
        g_bufs = NULL;
        g_fifo = NULL;
        g_nbufs = g_capbufs = 0;
        g_fifo_cap = g_fifo_head = g_fifo_n = 0;
    }
}

static const char *ename_of(node_t *at, char *buf, size_t n);
static int64_t floordiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* idx_at's slow path: the full check of p[i] (element size at->esz), then the
 * cache c is set to the range of indexes valid for this pointer word. */
char *idx_fill(node_t *at, struct icache *c, uint64_t p, int64_t i, int wr) {
    int64_t esz = at->esz, d, lim = INT64_C(1) << (PTR_OFF_BITS - 1);
    if (__builtin_mul_overflow(i, esz, &d) || d >= lim || d < -lim || ptr_off(p) + d >= lim ||
        ptr_off(p) + d < -lim) {
        /* farther than any buffer can reach: the offset would not fit the pointer word */
        char nb[128];
        if (!p) mem_fail(p, (uint64_t)esz, wr, at);
        mem_at(p, 0, wr, at); /* a dead pointer says so first */
        rt_error(at, "out-of-bounds %s: index %" PRId64 " of %s is %s the buffer it points to",
                 wr ? "write" : "read", i, ename_of(at, nb, sizeof nb), i < 0 ? "far before" : "far past the end of");
    }
    char *a = mem_at(ptr_add(p, d), (uint64_t)esz, wr, at);
    buf_t *b = &g_bufs[ptr_slot(p)];
    if (!b->ro && esz > 0) {
        int64_t off0 = ptr_off(p), lo = -floordiv(off0, esz),
                hi = floordiv((int64_t)b->size - esz - off0, esz);
        c->p = p;
        c->epoch = g_buf_epoch;
        c->addr = (uintptr_t)b->base + (uint64_t)off0;
        c->lo = lo;
        c->span = (uint64_t)(hi - lo + 1);
    }
    return a;
}

/* An integer cast to a pointer keeps its meaning only when it was a pointer
 * to a live buffer; any other integer becomes an invalid (slot 0) pointer. */
uint64_t ptr_from_int(uint64_t v) {
    if (v == 0 || ptr_valid(v)) return v;
    uint32_t s = ptr_slot(v);
    if (s == SLOT_FUNC || s == SLOT_FILE) return v;
    if (s >= SLOT_FIRST_BUF && s < g_nbufs) return v; /* stale: reported as freed */
    /* slot 0, generation 1: "made from an integer" (NULL is generation 0) */
    return (1ULL << PTR_OFF_BITS) | (v & PTR_OFF_MASK);
}

static const char *ename_of(node_t *at, char *buf, size_t n) {
    node_t *b = at;
    if (at && at->is_place && (at->place == PL_INDEX || at->place == PL_DEREF) && at->a) b = at->a;
    if (!b) return "the pointer";
    loc_text(&b->loc, buf, n);
    return buf;
}

_Noreturn void mem_fail(uint64_t p, uint64_t n, int wr, node_t *at) {
    char nb[128], tb[96], pl[160];
    const char *nm = ename_of(at, nb, sizeof nb);
    const char *rw = wr ? "write" : "read";
    uint32_t s = ptr_slot(p);
    if (p == 0) rt_error(at, "NULL pointer %s: %s is NULL", rw, nm);
    if (s < SLOT_FIRST_BUF || s >= g_nbufs) {
        if (s == SLOT_FUNC) rt_error(at, "%s of a function pointer as data: %s", rw, nm);
        if (s == SLOT_FILE) rt_error(at, "%s through a FILE pointer: %s", rw, nm);
        if (s == 0 && ((p >> PTR_OFF_BITS) & PTR_GEN_MASK) == 0)
            rt_error(at, "NULL pointer %s: %s is NULL (plus an offset of %" PRId64 " bytes)", rw, nm, ptr_off(p));
        rt_error(at, "invalid pointer %s: %s was made from an integer (0x%" PRIx64
                 "), not from an allocation", rw, nm, p);
    }
    buf_t *b = &g_bufs[s];
    if (b->gen != ((p >> PTR_OFF_BITS) & PTR_GEN_MASK) || b->state == BUF_FREED) {
        if (b->gen == ((p >> PTR_OFF_BITS) & PTR_GEN_MASK) && b->place == PLACE_HEAP)
            rt_error(at, "use after free: %s points into a buffer that was freed (allocated at %s line %d)",
                     nm, b->cell ? b->cell : "?", b->line);
        rt_error(at, "use after free: %s points into memory that was freed", nm);
    }
    if (b->state == BUF_DEAD_FRAME)
        rt_error(at, "dangling pointer: %s points to local variable '%s' of %s, which has returned",
                 nm, b->what ? b->what : "?", b->fname ? b->fname : "a function");
    if (b->place == PLACE_DEVICE)
        rt_error(at, "device pointer dereferenced on the host: %s points to GPU memory; "
                 "copy it to a host buffer with cudaMemcpy first", nm);
    if (wr && b->ro) rt_error(at, "write to a string literal: %s points to a string literal, which is read-only", nm);
    /* out of bounds */
    type_t *et = at && at->ty ? at->ty : NULL;
    if (at && !at->is_place && et && et->kind == T_PTR) et = et->base;
    int64_t esz = et && et->size ? (int64_t)et->size : 1;
    if (et && et->kind == T_VOID) esz = 1;
    int64_t off = ptr_off(p);
    if (b->what) snprintf(pl, sizeof pl, "%s", b->what);
    else snprintf(pl, sizeof pl, "%s", nm);
    char where[160];
    if (b->cell) snprintf(where, sizeof where, ", allocated at %s line %d", b->cell, b->line);
    else where[0] = 0;
    char desc[200];
    if (et && esz > 1 && b->size % (uint64_t)esz == 0)
        snprintf(desc, sizeof desc, "%" PRIu64 " %s%s", b->size / (uint64_t)esz,
                 ty_plural(et, tb, sizeof tb), where);
    else
        snprintf(desc, sizeof desc, "%" PRIu64 " byte%s%s", b->size, b->size == 1 ? "" : "s", where);
    char acc[200];
    bool whole = at && at->is_place && at->place == PL_INDEX;
    if (whole && off % esz == 0)
        snprintf(acc, sizeof acc, "%s[%" PRId64 "]", nm, off / esz);
    else if (at && !at->is_place)
        snprintf(acc, sizeof acc, "%" PRIu64 " byte%s at byte %" PRId64 " of %s", n, n == 1 ? "" : "s", off, nm);
    else
        snprintf(acc, sizeof acc, "%s (byte %" PRId64 ")", at ? loc_text(&at->loc, tb, sizeof tb) : nm, off);
    if (off < 0)
        rt_error(at, "out-of-bounds %s: %s is before the start of %s (%s)", rw, acc, pl, desc);
    rt_error(at, "out-of-bounds %s: %s is past the end of %s (%s)", rw, acc, pl, desc);
}
