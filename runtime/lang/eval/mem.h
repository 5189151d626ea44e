/* The evaluator's memory model (eval/mem.c): pointer words, the buffer
 * table behind them, and the checked access every load and store of a cell
 * goes through, so that nothing a cell does can touch memory it does not
 * own. */
#ifndef ICUDA_LANG_EVAL_MEM_H
#define ICUDA_LANG_EVAL_MEM_H

#include "runtime/lang/core/core.h"

/* ---------- pointers: 64-bit words ----------
 * Two kinds, told apart by value (docs/device-memory.md):
 *   - a word below 2^47 is a real address (what CUDA calls a device pointer:
 *     cudaMalloc, cudaMallocManaged and pinned memory, device-side malloc,
 *     an integer cast to a pointer). It means the same to the GPU, inside a
 *     struct or a table copied to the device, and after a worker restart;
 *     the buffer behind it is found through the raw-address table (mem.c);
 *   - every other word is [slot:22][gen:6][offset:36, two's complement]: a
 *     host buffer of the interpreter's own, checked by slot and generation.
 * Slots below 32 would fall under 2^47, so they are never used. */
#define PTR_OFF_BITS 36
#define PTR_GEN_BITS 6
#define PTR_SLOT_SHIFT (PTR_OFF_BITS + PTR_GEN_BITS)
#define PTR_OFF_MASK ((1ULL << PTR_OFF_BITS) - 1)
#define PTR_GEN_MASK ((1U << PTR_GEN_BITS) - 1)
#define PTR_MAX_SLOTS (1U << 22)
#define PTR_RAW_LIMIT (1ULL << 47)
#define SLOT_FUNC 32          /* function pointers: offset = function id */
#define SLOT_FILE 33          /* FILE *: offset 1 stdout, 2 stderr */
#define SLOT_FIRST_BUF 34

enum { PLACE_NONE, PLACE_HEAP, PLACE_GLOBAL, PLACE_STACK, PLACE_STRLIT, PLACE_DEVICE, PLACE_PINNED, PLACE_MANAGED,
       PLACE_LIB /* a C++ library object's storage (std::vector's elements): its owner frees it */ };
enum { BUF_FREE_SLOT, BUF_LIVE, BUF_FREED, BUF_DEAD_FRAME };

typedef struct buf {
    char *base;             /* host bytes (managed: the host copy; device: NULL) */
    uint64_t size;
    uint8_t gen, state, place, ro;
    uint8_t mtouched;       /* managed: the host copy was used since the last flush */
    uint8_t alloc;          /* heap buffers: ALLOC_MALLOC, ALLOC_NEW or ALLOC_NEW_ARRAY */
    uint32_t owner;         /* interp id, to free at interp_free */
    uint32_t msync;         /* managed: the device epoch the host copy is current for */
    uint64_t addr;          /* real-address buffers: their address (the pointer word) */
    const char *what;       /* "x" (variable), or NULL for malloc */
    const char *cell; int line; /* where it was made */
    const char *fname;      /* function whose frame held it */
} buf_t;

extern buf_t *g_bufs;
extern uint32_t g_nbufs;

static inline bool ptr_is_raw(uint64_t p) { return p < PTR_RAW_LIMIT; }
static inline uint64_t ptr_make(uint32_t slot, int64_t off) {
    return ((uint64_t)slot << PTR_SLOT_SHIFT) | ((uint64_t)g_bufs[slot].gen << PTR_OFF_BITS) |
           ((uint64_t)off & PTR_OFF_MASK);
}
static inline uint32_t ptr_slot(uint64_t p) { return (uint32_t)(p >> PTR_SLOT_SHIFT); }
static inline int64_t ptr_off(uint64_t p) {
    return (int64_t)(p << (64 - PTR_OFF_BITS)) >> (64 - PTR_OFF_BITS);
}
static inline uint64_t ptr_add(uint64_t p, int64_t d) {
    if (ptr_is_raw(p)) return p + (uint64_t)d; /* a real address: plain arithmetic */
    return (p & ~PTR_OFF_MASK) | ((uint64_t)(ptr_off(p) + d) & PTR_OFF_MASK);
}
/* A live host buffer's word (real-address words answer false: see ptr_buf). */
static inline bool ptr_valid(uint64_t p) {
    uint32_t s = ptr_slot(p);
    return s >= SLOT_FIRST_BUF && s < g_nbufs && g_bufs[s].state == BUF_LIVE &&
           g_bufs[s].gen == ((p >> PTR_OFF_BITS) & PTR_GEN_MASK);
}
/* The buffer record behind any pointer word and the offset into it, live or
 * not (check state and, for slot words, the generation); NULL when the word
 * names none. */
buf_t *ptr_buf(uint64_t p, int64_t *off);
/* The same, only for a live buffer (and the right generation). */
buf_t *ptr_live_buf(uint64_t p, int64_t *off);

/* Raises a RuntimeError describing why [p, p+n) cannot be read/written. */
_Noreturn void mem_fail(uint64_t p, uint64_t n, int wr, node_t *at);
/* mem_at's slow path: real-address words (pinned and managed memory are
 * readable from the host; managed memory is brought up to date first), and
 * the errors of everything else. */
char *mem_slow(uint64_t p, uint64_t n, int wr, node_t *at);
/* The host address of n bytes at p, checked; at names the access for errors.
 * Slot words of real-address buffers never pass here (their slots are never
 * below 32), so the fast path is host buffers only. */
static inline char *mem_at(uint64_t p, uint64_t n, int wr, node_t *at) {
    uint32_t s = ptr_slot(p);
    if (LIKELY(s < g_nbufs)) {
        buf_t *b = &g_bufs[s];
        uint64_t off = (uint64_t)ptr_off(p);
        if (LIKELY(b->state == BUF_LIVE && b->gen == ((p >> PTR_OFF_BITS) & PTR_GEN_MASK) &&
                   off <= b->size && n <= b->size - off && !(wr && b->ro) && !b->addr))
            return b->base + off;
    }
    return mem_slow(p, n, wr, at);
}
/* Brings a managed buffer's host copy up to date (a copy from the GPU when
 * it may have written it). 0, or -1 with msg. */
int mem_managed_fetch(buf_t *b, char *msg, size_t ml);
/* ... and marks it written by the host (it goes back before the GPU runs). */
int mem_managed_write(buf_t *b, char *msg, size_t ml);
/* Bumped whenever a buffer dies (buf_kill): every access cache below is then stale. */
extern uint64_t g_buf_epoch;
char *idx_fill(node_t *at, struct icache *c, uint64_t p, int64_t i, int wr);
bool idx_range(uint64_t p, int64_t esz, int wr, uintptr_t *addr, int64_t *lo, uint64_t *span);
uint32_t buf_new(char *base, uint64_t size, int place, const char *what, loc_t *where);
/* A buffer named by its real address (device, pinned, managed memory): the
 * pointer word is addr itself. host: its host bytes, or NULL. 0 when full. */
uint32_t buf_new_raw(uint64_t addr, char *host, uint64_t size, int place, const char *what, loc_t *where);
void buf_kill(uint32_t slot, int state);
uint64_t mem_alloc(uint64_t size, int place, const char *what, loc_t *where); /* arena/malloc */
/* Raw blocks of the host arena for memory no buffer record owns yet (a
 * frame's locals, a VLA): zero-filled, counted against the same limit as
 * malloc's; NULL past it. mem_block_free gives a large block's pages back. */
char *mem_block_alloc(uint64_t size);
void mem_block_free(char *p);
/* Raises MemoryError at at: what needed size bytes, and how much of the
 * host-memory limit is in use. */
_Noreturn void mem_limit_error(node_t *at, uint64_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int mem_free_heap(uint64_t p, node_t *at);   /* free(); raises on misuse */
/* free (ALLOC_MALLOC), delete (ALLOC_NEW) or delete[] (ALLOC_NEW_ARRAY) of p:
 * what made the buffer must match what releases it, as C++ requires. */
enum { ALLOC_MALLOC, ALLOC_NEW, ALLOC_NEW_ARRAY };
int mem_release(uint64_t p, int how, node_t *at);
extern uint32_t g_owner;   /* interp id that new buffers belong to */
/* Makes in the current session (g_in) and its tables the globals' (mem.c);
 * NULL only clears g_in. Every public interp_* entry that touches state
 * calls it; those that run code put the previous session back after. */
void lang_use(interp_t *in);
/* A new session's empty tables. */
void mem_tables_init(lang_tables_t *t);
/* Frees the current session's tables (interp_free, %reset): every buffer,
 * the index and the function boxes; in must be current. */
void mem_tables_free(interp_t *in);
/* in is gone: the globals are nobody's (interp_free). */
void mem_tables_forget(interp_t *in);
uint64_t ptr_from_int(uint64_t v);

/* The host address of element i of pointer p for the PL_INDEX node at, checked.
 * The node remembers the last pointer word it checked (buffer base + offset ->
 * the range of valid indexes), so an access through a pointer that has not
 * changed is one compare of the word, one of the epoch and one of the index;
 * any free, realloc or function return in between moves g_buf_epoch and sends
 * the next access through the full check (idx_fill -> mem_at). Read-only and
 * device buffers are never cached. */
static inline char *idx_at(node_t *at, uint64_t p, int64_t i, int wr) {
    struct icache *c = at->ic; /* pl_index made it */
    if (LIKELY(p == c->p && c->epoch == g_buf_epoch && (uint64_t)i - (uint64_t)c->lo < c->span && wr <= c->wr))
        return (char *)(c->addr + (uint64_t)i * (uint64_t)at->esz);
    return idx_fill(at, c, p, i, wr);
}

/* every function box ever made (a function pointer's offset is its index) */
extern fbox_t **g_fboxes; extern int g_nfboxes;
/* A checked NUL-terminated string at p: its bytes, and its length in *len
 * (may be NULL); raises when it does not end inside its buffer. */
const char *str_at(uint64_t p, node_t *at, size_t *len);

#endif
