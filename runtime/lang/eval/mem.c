/* The buffer table behind every pointer (mem.h "pointers"). A host pointer
 * is slot|generation|offset; a device, pinned or managed pointer is its real
 * address, found through the raw-address table below. Either way a record
 * says where the bytes are, how many, and whether they are still alive, so
 * every access can be checked and every failure explained (which buffer, how
 * big, made where). Managed buffers keep a host copy that is brought up to
 * date on the host's first touch after the GPU may have written it. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mem.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include "runtime/hostmem/arena.h"

#include "runtime/lang/interp.h"
buf_t *g_bufs;
uint32_t g_nbufs, g_owner;
uint64_t g_buf_epoch = 1;
fbox_t **g_fboxes; /* the function boxes: swapped with the tables (lang_use) */
int g_nfboxes;
static uint32_t g_capbufs;
/* freed slots wait in a FIFO so that a freed buffer's record (and so the
 * "use after free" diagnosis) survives a while before the slot is reused */
static uint32_t *g_fifo;
static uint32_t g_fifo_cap, g_fifo_head, g_fifo_n;
#define FIFO_KEEP 4096

/* Real-address buffers, sorted by address, ranges disjoint. A freed one
 * stays until its range or its slot is used again, so a stale device
 * pointer is reported as freed rather than unknown. */
typedef struct raw { uint64_t lo, hi; uint32_t slot; } raw_t;
static raw_t *g_raw;
static uint32_t g_nraw, g_capraw;

/* Managed memory: the GPU's writes are counted by an epoch (a launch may
 * write any managed buffer); a buffer whose msync differs is stale on the
 * host. Buffers the host used since the last flush wait in g_touched. */
static uint32_t g_managed_epoch = 1;
static uint32_t *g_touched;
static uint32_t g_ntouched, g_captouched;
static uint32_t g_nmanaged;

/* ---- sessions: whose tables the globals above hold (core.h lang_tables_t) ---- */
static interp_t *g_tables_of;

void mem_tables_init(lang_tables_t *t) {
    memset(t, 0, sizeof *t);
    t->buf_epoch = 1;
    t->managed_epoch = 1;
}

static void tables_save(lang_tables_t *t) {
    *t = (lang_tables_t){g_bufs, g_nbufs, g_capbufs, g_buf_epoch, g_fifo, g_fifo_cap, g_fifo_head, g_fifo_n,
                         g_raw, g_nraw, g_capraw, g_managed_epoch, g_touched, g_ntouched, g_captouched,
                         g_nmanaged, g_fboxes, g_nfboxes};
}

static void tables_load(const lang_tables_t *t) {
    g_bufs = t->bufs;
    g_nbufs = t->nbufs;
    g_capbufs = t->capbufs;
    g_buf_epoch = t->buf_epoch;
    g_fifo = t->fifo;
    g_fifo_cap = t->fifo_cap;
    g_fifo_head = t->fifo_head;
    g_fifo_n = t->fifo_n;
    g_raw = t->raw;
    g_nraw = t->nraw;
    g_capraw = t->capraw;
    g_managed_epoch = t->managed_epoch;
    g_touched = t->touched;
    g_ntouched = t->ntouched;
    g_captouched = t->captouched;
    g_nmanaged = t->nmanaged;
    g_fboxes = t->fboxes;
    g_nfboxes = t->nfboxes;
}

void lang_use(interp_t *in) {
    g_in = in;
    if (!in || g_tables_of == in) return;
    if (g_tables_of) tables_save(&g_tables_of->tables);
    tables_load(&in->tables);
    g_tables_of = in;
    g_owner = in->id;
}

void mem_tables_free(interp_t *in) {
    for (uint32_t s = SLOT_FIRST_BUF; s < g_nbufs; s++) {
        buf_t *b = &g_bufs[s];
        if (b->state != BUF_LIVE) continue;
        if (b->place == PLACE_HEAP || b->place == PLACE_GLOBAL || b->place == PLACE_LIB) arena_free(b->base);
        b->base = NULL;
    }
    free(g_bufs);
    free(g_fifo);
    free(g_raw);
    free(g_touched);
    free(g_fboxes); /* the boxes themselves are in the session's pool */
    uint64_t epoch = g_buf_epoch + 1; /* never back to a value a stale cache holds */
    lang_tables_t t;
    mem_tables_init(&t);
    t.buf_epoch = epoch;
    tables_load(&t);
    in->tables = t;
}

void mem_tables_forget(interp_t *in) {
    if (g_tables_of == in) g_tables_of = NULL;
    if (g_in == in) g_in = NULL;
}

/* The generation a session's fresh slots start at: sessions differ, so that
 * a pointer word of one is not a live word of another's table (until slots
 * have been reused: 6 bits of generation). The first session starts at 0. */
static uint8_t gen_seed(void) { return (uint8_t)(((g_owner ? g_owner - 1 : 0) * 37u) & PTR_GEN_MASK); }

static uint32_t raw_index(uint64_t a) { /* first entry with hi > a */
    uint32_t lo = 0, hi = g_nraw;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (g_raw[mid].hi <= a) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void raw_remove_at(uint32_t i) {
    memmove(&g_raw[i], &g_raw[i + 1], (g_nraw - i - 1) * sizeof *g_raw);
    g_nraw--;
}

static void raw_forget_slot(uint32_t s) {
    uint64_t a = g_bufs[s].addr;
    uint32_t i = raw_index(a);
    if (i < g_nraw && g_raw[i].slot == s) raw_remove_at(i);
}

/* The slot of the real-address buffer holding a (one past its end counts, as
 * for any pointer), live or freed; 0 if none. */
static uint32_t raw_find(uint64_t a) {
    uint32_t i = raw_index(a);
    if (i < g_nraw && g_raw[i].lo <= a) return g_raw[i].slot;
    if (i > 0 && g_raw[i - 1].hi == a) return g_raw[i - 1].slot;
    return 0;
}

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
        if (g_bufs[s].addr) raw_forget_slot(s);
    } else {
        if (g_nbufs < SLOT_FIRST_BUF) g_nbufs = SLOT_FIRST_BUF;
        if (g_nbufs >= PTR_MAX_SLOTS) return 0;
        if (g_nbufs >= g_capbufs) {
            /* the slots below SLOT_FIRST_BUF stay zero: never live */
            uint32_t oldcap = g_capbufs;
            g_capbufs = g_capbufs ? g_capbufs * 2 : 1024;
            g_bufs = xreallocarray(g_bufs, g_capbufs, sizeof *g_bufs);
            memset(g_bufs + oldcap, 0, (g_capbufs - oldcap) * sizeof *g_bufs);
            for (uint32_t i = oldcap; i < g_capbufs; i++) g_bufs[i].gen = gen_seed();
        }
        s = g_nbufs++;
    }
    buf_t *b = &g_bufs[s];
    b->base = base;
    b->size = size;
    b->state = BUF_LIVE;
    b->place = (uint8_t)place;
    b->ro = place == PLACE_STRLIT;
    b->alloc = ALLOC_MALLOC;
    b->owner = g_owner;
    b->what = what;
    b->cell = where && where->src ? where->src->name : NULL;
    b->line = where ? where->line : 0;
    b->fname = NULL;
    b->addr = 0;
    b->mtouched = 0;
    b->msync = 0;
    return s;
}

uint32_t buf_new_raw(uint64_t addr, char *host, uint64_t size, int place, const char *what, loc_t *where) {
    if (!addr || addr >= PTR_RAW_LIMIT || size > PTR_RAW_LIMIT - addr) return 0;
    uint32_t s = buf_new(host, size, place, what, where);
    if (!s) return 0;
    ARRAY_GROW(g_raw, g_nraw, g_capraw);
    uint64_t hi = addr + (size ? size : 1);
    uint32_t i = raw_index(addr);
    while (i < g_nraw && g_raw[i].lo < hi) raw_remove_at(i); /* older, dead records of this range */
    memmove(&g_raw[i + 1], &g_raw[i], (g_nraw - i) * sizeof *g_raw);
    g_raw[i] = (raw_t){addr, hi, s};
    g_nraw++;
    g_bufs[s].addr = addr;
    if (place == PLACE_MANAGED) {
        g_bufs[s].msync = g_managed_epoch;
        g_nmanaged++;
    }
    return s;
}

buf_t *ptr_buf(uint64_t p, int64_t *off) {
    uint32_t s;
    if (ptr_is_raw(p)) {
        if (!(s = raw_find(p))) return NULL;
        *off = (int64_t)(p - g_bufs[s].addr);
        return &g_bufs[s];
    }
    s = ptr_slot(p);
    if (s < SLOT_FIRST_BUF || s >= g_nbufs || g_bufs[s].addr) return NULL;
    *off = ptr_off(p);
    return &g_bufs[s];
}

buf_t *ptr_live_buf(uint64_t p, int64_t *off) {
    buf_t *b = ptr_buf(p, off);
    if (!b || b->state != BUF_LIVE) return NULL;
    if (!ptr_is_raw(p) && b->gen != ((p >> PTR_OFF_BITS) & PTR_GEN_MASK)) return NULL;
    return b;
}

void buf_kill(uint32_t s, int state) {
    buf_t *b = &g_bufs[s];
    if (b->place == PLACE_MANAGED && b->state == BUF_LIVE) g_nmanaged--;
    b->state = (uint8_t)state;
    g_buf_epoch++; /* cached accesses (idx_at) re-check */
    if (g_fifo_n == g_fifo_cap) {
        uint32_t nc = g_fifo_cap ? g_fifo_cap * 2 : 8192;
        uint32_t *nf = xmalloc(nc * sizeof *nf);
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

char *mem_block_alloc(uint64_t size) {
    ensure_arena();
    return size > SIZE_MAX - 64 ? NULL : arena_alloc(size ? (size_t)size : 1);
}

void mem_block_free(char *p) {
    if (p) arena_free(p);
}

_Noreturn void mem_limit_error(node_t *at, uint64_t size, const char *fmt, ...) {
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    lang_raise("MemoryError", at ? &at->loc : NULL,
               "%s need %" PRIu64 " bytes, past the host-memory limit (%zu MiB of %zu MiB in use)",
               what, size, arena_in_use() >> 20, arena_limit() >> 20);
}

static const char *place_name(int pl) {
    switch (pl) {
    case PLACE_HEAP: return "a heap buffer";
    case PLACE_GLOBAL: return "a session variable";
    case PLACE_STACK: return "a local variable";
    case PLACE_STRLIT: return "a string literal";
    case PLACE_DEVICE: return "device memory";
    case PLACE_PINNED: return "pinned host memory";
    case PLACE_LIB: return "the storage of";
    }
    return "memory";
}

static const char *const release_name[] = {"free", "delete", "delete[]"};
static const char *const alloc_name[] = {"malloc", "new", "new[]"};

int mem_free_heap(uint64_t p, node_t *at) { return mem_release(p, ALLOC_MALLOC, at); }

int mem_release(uint64_t p, int how, node_t *at) {
    if (p == 0) return 0; /* free(NULL) and delete nullptr are fine */
    char nm[128];
    loc_text(at ? &at->loc : NULL, nm, sizeof nm);
    int64_t roff;
    buf_t *rb = ptr_is_raw(p) ? ptr_buf(p, &roff) : NULL;
    if (rb && rb->state == BUF_LIVE) {
        if (rb->place == PLACE_PINNED)
            rt_error(at, "%s of pinned memory: %s came from cudaMallocHost; use cudaFreeHost", release_name[how], nm);
        if (rb->place == PLACE_MANAGED)
            rt_error(at, "%s of managed memory: %s came from cudaMallocManaged; use cudaFree", release_name[how], nm);
        rt_error(at, "%s of device memory: %s came from cudaMalloc; use cudaFree", release_name[how], nm);
    }
    if (rb) rt_error(at, "%s of a pointer that is no longer valid: %s points into memory that was freed", release_name[how], nm);
    uint32_t s = ptr_slot(p);
    if (ptr_is_raw(p) || s < SLOT_FIRST_BUF || s >= g_nbufs)
        rt_error(at, "%s of an invalid pointer: %s does not point to memory from %s", release_name[how], nm,
                 alloc_name[how]);
    buf_t *b = &g_bufs[s];
    if (b->gen != ((p >> PTR_OFF_BITS) & PTR_GEN_MASK))
        rt_error(at, "double %s: %s points to a buffer that was already freed", release_name[how], nm);
    if (b->state != BUF_LIVE) {
        if (b->place == PLACE_HEAP)
            rt_error(at, "double %s: %s was already freed (allocated at %s line %d)", release_name[how], nm,
                     b->cell ? b->cell : "?", b->line);
        rt_error(at, "%s of a pointer that is no longer valid: %s", release_name[how], nm);
    }
    if (b->place != PLACE_HEAP) {
        if (b->place == PLACE_PINNED)
            rt_error(at, "%s of pinned memory: %s came from cudaMallocHost; use cudaFreeHost", release_name[how], nm);
        if (b->place == PLACE_DEVICE)
            rt_error(at, "%s of device memory: %s came from cudaMalloc; use cudaFree", release_name[how], nm);
        rt_error(at, "%s of a pointer not from %s: %s points to %s%s%s%s", release_name[how], alloc_name[how], nm,
                 place_name(b->place), b->what ? " '" : "", b->what ? b->what : "",
                 b->what ? "'" : "");
    }
    if (b->alloc != how)
        rt_error(at, "%s of memory from %s: %s was allocated with %s at %s line %d; release it with %s", release_name[how],
                 alloc_name[b->alloc], nm, alloc_name[b->alloc], b->cell ? b->cell : "?", b->line,
                 release_name[b->alloc]);
    if (ptr_off(p) != 0)
        rt_error(at, "%s of a pointer into the middle of a buffer: %s is %" PRId64
                 " bytes past the start of a buffer allocated at %s line %d",
                 release_name[how], nm, ptr_off(p), b->cell ? b->cell : "?", b->line);
    arena_free(b->base);
    b->base = NULL;
    buf_kill(s, BUF_FREED);
    return 0;
}

static const char *ename_of(node_t *at, char *buf, size_t n);
_Noreturn void oob_fail(buf_t *b, int64_t off, uint64_t n, int wr, node_t *at);
static int64_t floordiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* idx_at's slow path: the full check of p[i] (element size at->esz), then the
 * cache c is set to the range of indexes valid for this pointer word. */
char *idx_fill(node_t *at, struct icache *c, uint64_t p, int64_t i, int wr) {
    int64_t esz = at->esz, d, lim = INT64_C(1) << (PTR_OFF_BITS - 1);
    bool raw = ptr_is_raw(p);
    if (__builtin_mul_overflow(i, esz, &d) || (!raw && (d >= lim || d < -lim || ptr_off(p) + d >= lim ||
                                                        ptr_off(p) + d < -lim))) {
        /* farther than any buffer can reach: the offset would not fit the pointer word */
        char nb[128];
        if (!p) mem_fail(p, (uint64_t)esz, wr, at);
        mem_at(p, 0, wr, at); /* a dead pointer says so first */
        rt_error(at, "out-of-bounds %s: index %" PRId64 " of %s is %s the buffer it points to",
                 wr ? "write" : "read", i, ename_of(at, nb, sizeof nb), i < 0 ? "far before" : "far past the end of");
    }
    if (raw && (p + (uint64_t)d < p) != (d < 0)) /* wrapped around the address space */
        mem_fail(p, (uint64_t)esz, wr, at);
    int64_t off0;
    buf_t *b = ptr_buf(p, &off0);
    if (raw && b && b->state == BUF_LIVE && (off0 + d < 0 || off0 + d + esz > (int64_t)b->size))
        oob_fail(b, off0 + d, (uint64_t)esz, wr, at); /* before the address lands in another buffer */
    char *a = mem_at(ptr_add(p, d), (uint64_t)esz, wr, at);
    if (b && !b->ro && esz > 0) {
        int64_t lo = -floordiv(off0, esz), hi = floordiv((int64_t)b->size - esz - off0, esz);
        c->p = p;
        c->epoch = g_buf_epoch;
        c->addr = (uintptr_t)b->base + (uint64_t)off0;
        c->lo = lo;
        c->span = (uint64_t)(hi - lo + 1);
        /* a managed buffer's read is remembered as a read: the first write
         * through this place must mark it for the trip back to the GPU */
        c->wr = b->place == PLACE_MANAGED ? wr : 1;
    }
    return a;
}

/* What idx_fill would cache for p, without raising and without touching
 * anything: the elements of esz bytes p can reach, at addr + i * esz for lo
 * <= i < lo + span. Plain host buffers only (not managed or real-address
 * ones), writable when wr. false: none. */
bool idx_range(uint64_t p, int64_t esz, int wr, uintptr_t *addr, int64_t *lo, uint64_t *span) {
    uint32_t s = ptr_slot(p);
    if (ptr_is_raw(p) || s >= g_nbufs || esz <= 0) return false;
    buf_t *b = &g_bufs[s];
    if (b->state != BUF_LIVE || b->gen != ((p >> PTR_OFF_BITS) & PTR_GEN_MASK) || b->addr || (wr && b->ro) ||
        b->place == PLACE_MANAGED || b->size < (uint64_t)esz)
        return false;
    int64_t off0 = ptr_off(p), l = -floordiv(off0, esz), h = floordiv((int64_t)b->size - esz - off0, esz);
    if (h < l) return false;
    *addr = (uintptr_t)b->base + (uint64_t)off0;
    *lo = l;
    *span = (uint64_t)(h - l + 1);
    return true;
}

/* An integer cast to a pointer: below 2^47 it is an address like any other
 * (a device pointer a kernel wrote, say); above, a host pointer's word keeps
 * its meaning if it was one, and anything else is reported when used. */
uint64_t ptr_from_int(uint64_t v) { return v; }

/* ---- managed memory (interp.h) ---- */

int mem_managed_fetch(buf_t *b, char *msg, size_t ml) {
    if (b->msync == g_managed_epoch) return 0;
    interp_t *in = g_in;
    if (!in || !in->hooks || !in->hooks->managed_fetch) {
        snprintf(msg, ml, "no GPU layer is attached");
        return -1;
    }
    if (in->hooks->managed_fetch(in->hooks->ctx, b->addr, b->base, b->size, msg, ml) < 0) return -1;
    b->msync = g_managed_epoch;
    return 0;
}

static void mark_written(buf_t *b);

int mem_managed_write(buf_t *b, char *msg, size_t ml) {
    if (mem_managed_fetch(b, msg, ml) < 0) return -1;
    mark_written(b);
    return 0;
}

static void managed_touch(buf_t *b, int wr, node_t *at) {
    char msg[512] = "";
    if (mem_managed_fetch(b, msg, sizeof msg) < 0) /* the GPU may have written it since the host looked */
        rt_error(at, "managed memory cannot be brought to the host: %s", msg);
    if (wr) mark_written(b);
}

static void mark_written(buf_t *b) {
    if (!b->mtouched) {
        ARRAY_GROW(g_touched, g_ntouched, g_captouched);
        g_touched[g_ntouched++] = (uint32_t)(b - g_bufs);
        b->mtouched = 1;
    }
}

bool interp_managed_any(interp_t *in) {
    lang_use(in);
    return g_nmanaged > 0;
}

int interp_managed_flush(interp_t *in, interp_managed_copy_fn push, void *ctx, char *msg, size_t ml) {
    lang_use(in);
    int rc = 0;
    for (uint32_t i = 0; i < g_ntouched; i++) {
        buf_t *b = &g_bufs[g_touched[i]];
        if (b->place != PLACE_MANAGED || !b->mtouched) continue;
        b->mtouched = 0;
        if (b->state == BUF_LIVE && rc == 0) rc = push(ctx, b->addr, b->base, b->size, msg, ml);
    }
    g_ntouched = 0;
    g_buf_epoch++; /* the next host write marks the buffer again */
    return rc;
}

void interp_managed_device_wrote(interp_t *in, uint64_t addr) {
    lang_use(in);
    if (!g_nmanaged) return;
    if (addr) {
        int64_t off;
        buf_t *b = ptr_live_buf(addr, &off);
        if (b && b->place == PLACE_MANAGED) b->msync = 0;
    } else if (++g_managed_epoch == 0) {
        g_managed_epoch = 1; /* 0 means "stale" */
    }
    g_buf_epoch++;
}

void interp_managed_synced(interp_t *in, uint64_t addr) {
    lang_use(in);
    int64_t off;
    buf_t *b = ptr_live_buf(addr, &off);
    if (b && b->place == PLACE_MANAGED) b->msync = g_managed_epoch;
}

char *mem_slow(uint64_t p, uint64_t n, int wr, node_t *at) {
    int64_t off;
    buf_t *b = ptr_is_raw(p) ? ptr_buf(p, &off) : NULL;
    if (b && b->state == BUF_LIVE && off >= 0 && (uint64_t)off <= b->size && n <= b->size - (uint64_t)off &&
        (b->place == PLACE_PINNED || b->place == PLACE_MANAGED) && b->base) {
        if (b->place == PLACE_MANAGED) managed_touch(b, wr, at);
        return b->base + off;
    }
    mem_fail(p, n, wr, at);
}

static const char *ename_of(node_t *at, char *buf, size_t n) {
    node_t *b = at;
    if (at && at->is_place && (at->place == PL_INDEX || at->place == PL_DEREF) && at->a) b = at->a;
    if (!b) return "the pointer";
    loc_text(&b->loc, buf, n);
    return buf;
}

_Noreturn void mem_fail(uint64_t p, uint64_t n, int wr, node_t *at) {
    char nb[128];
    const char *nm = ename_of(at, nb, sizeof nb);
    const char *rw = wr ? "write" : "read";
    uint32_t s = ptr_slot(p);
    if (p == 0) rt_error(at, "NULL pointer %s: %s is NULL", rw, nm);
    int64_t off;
    buf_t *b = ptr_buf(p, &off);
    if (ptr_is_raw(p) && !b) {
        if (p < 65536)
            rt_error(at, "invalid pointer %s: %s is address 0x%" PRIx64 ", which was made from an integer or is NULL "
                     "plus an offset, not a pointer into an allocation", rw, nm, p);
        uint32_t i = raw_index(p); /* just outside a buffer: an overrun of it */
        if (i < g_nraw && g_raw[i].lo > p && g_raw[i].lo - p <= 4096 && g_bufs[g_raw[i].slot].state == BUF_LIVE)
            oob_fail(&g_bufs[g_raw[i].slot], -(int64_t)(g_raw[i].lo - p), n, wr, at);
        if (i > 0 && p - g_raw[i - 1].hi < 4096 && g_bufs[g_raw[i - 1].slot].state == BUF_LIVE)
            oob_fail(&g_bufs[g_raw[i - 1].slot], (int64_t)(p - g_raw[i - 1].lo), n, wr, at);
        rt_error(at, "invalid pointer %s: %s is address 0x%" PRIx64 ", which is not in any buffer icuda knows "
                 "(made from an integer, or memory of the GPU's own such as a kernel's malloc)", rw, nm, p);
    }
    if (!b) {
        if (s == SLOT_FUNC) rt_error(at, "%s of a function pointer as data: %s", rw, nm);
        if (s == SLOT_FILE) rt_error(at, "%s through a FILE pointer: %s", rw, nm);
        rt_error(at, "invalid pointer %s: %s was made from an integer (0x%" PRIx64
                 "), not from an allocation", rw, nm, p);
    }
    if ((!ptr_is_raw(p) && b->gen != ((p >> PTR_OFF_BITS) & PTR_GEN_MASK)) || b->state == BUF_FREED) {
        if ((ptr_is_raw(p) || b->gen == ((p >> PTR_OFF_BITS) & PTR_GEN_MASK)) && b->place == PLACE_LIB)
            rt_error(at, "use after free: %s points into storage of a %s that was given back (the object grew, "
                     "was cleared or destroyed since; made at %s line %d)", nm, b->what ? b->what : "library object",
                     b->cell ? b->cell : "?", b->line);
        if ((ptr_is_raw(p) || b->gen == ((p >> PTR_OFF_BITS) & PTR_GEN_MASK)) && b->place != PLACE_STACK)
            rt_error(at, "use after free: %s points into %s that was freed (allocated at %s line %d)", nm,
                     b->place == PLACE_DEVICE ? "device memory" : b->place == PLACE_MANAGED ? "managed memory"
                     : b->place == PLACE_PINNED ? "pinned memory" : "a buffer", b->cell ? b->cell : "?", b->line);
        rt_error(at, "use after free: %s points into memory that was freed", nm);
    }
    if (b->state == BUF_DEAD_FRAME)
        rt_error(at, "dangling pointer: %s points to local variable '%s' of %s, which has returned",
                 nm, b->what ? b->what : "?", b->fname ? b->fname : "a function");
    if (b->place == PLACE_DEVICE)
        rt_error(at, "device pointer dereferenced on the host: %s points to GPU memory; "
                 "copy it to a host buffer with cudaMemcpy first (or allocate it with cudaMallocManaged)", nm);
    if (wr && b->ro) rt_error(at, "write to a string literal: %s points to a string literal, which is read-only", nm);
    oob_fail(b, off, n, wr, at);
}

/* The out-of-bounds message: access of n bytes at offset off of buffer b. */
_Noreturn void oob_fail(buf_t *b, int64_t off, uint64_t n, int wr, node_t *at) {
    char nb[128], tb[96], pl[160];
    const char *nm = ename_of(at, nb, sizeof nb);
    const char *rw = wr ? "write" : "read";
    type_t *et = at && at->ty ? at->ty : NULL;
    if (at && !at->is_place && et && et->kind == T_PTR) et = et->base;
    int64_t esz = et && et->size ? (int64_t)et->size : 1;
    if (et && et->kind == T_VOID) esz = 1;
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

const char *str_at(uint64_t p, node_t *at, size_t *len) {
    char *base = mem_at(p, 0, 0, at);
    int64_t off;
    buf_t *b = ptr_buf(p, &off);
    uint64_t avail = b->size - (uint64_t)off;
    char *z = memchr(base, 0, avail);
    if (!z) {
        char nb[100];
        rt_error(at, "out-of-bounds read: string %s is not NUL-terminated within its buffer (%" PRIu64 " bytes from the pointer to the end)",
                 loc_text(&at->loc, nb, sizeof nb), avail);
    }
    if (len) *len = (size_t)(z - base);
    return base;
}
