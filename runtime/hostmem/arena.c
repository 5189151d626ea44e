/* The shared host arena (arena.h): one memfd mapped MAP_SHARED, carved into
 * 64-byte aligned blocks.
 *
 * Layout of the bookkeeping (all of it in ordinary heap memory, never in the
 * mapping):
 *   - every block below `top` (live or free) is a record; records are chained
 *     in address order (phys_prev/phys_next), so freeing coalesces with its
 *     neighbours in O(1);
 *   - free records sit in 64 segregated bins by floor(log2(size)), with a
 *     bitmap of the non-empty bins: allocation is O(1) apart from a bounded
 *     scan of one bin;
 *   - live records are found by offset in an open-addressing hash table.
 * Above `top` the memfd has never been handed out (or was given back).
 *
 * Zero fill: free memory is kept zero (a freed block is cleared when it is
 * freed: memset for small blocks, fallocate(PUNCH_HOLE) of the whole pages of
 * large ones, which also hands those pages back to the OS), so an allocation
 * needs no clearing and a 1 GiB malloc/free loop does not grow the process.
 *
 * Note for the GPU side: a range registered with cuMemHostRegister must be
 * unregistered before it is freed here (its pages may be punched out). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/hostmem/arena.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ALIGN 64u
#define NBINS 64
#define PUNCH_MIN (256u * 1024u) /* blocks at least this large are punched */
#define BIN_SCAN 32              /* records looked at in the exact-size bin */
#define NIL UINT32_MAX

typedef struct block {
    uint64_t off, size; /* size: multiple of ALIGN */
    uint64_t req;       /* the size asked for (live records) */
    uint32_t phys_prev, phys_next; /* address order, NIL at the ends */
    uint32_t bin_prev, bin_next;   /* free records only */
    uint8_t free;
} block_t;

typedef struct slot {
    uint64_t key; /* offset; EMPTY when unused */
    uint32_t rec;
} slot_t;
#define EMPTY UINT64_MAX

static struct {
    pthread_mutex_t mu;
    int fd;
    unsigned char *base;
    size_t reserve;
    uint64_t top;      /* first byte never handed out */
    uint32_t last;     /* record ending at top, NIL if none */
    size_t in_use;
    size_t limit;      /* in_use may not pass it: most of this machine's memory */
    size_t page;
    block_t *recs;
    uint32_t nrecs, caprecs, free_recs; /* free_recs: chain through bin_next */
    uint32_t bins[NBINS];
    uint64_t binmask;
    slot_t *tab;
    size_t tabcap, tabused;
} A = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* ---- records ---- */

static uint32_t rec_new(void) {
    if (A.free_recs != NIL) {
        uint32_t r = A.free_recs;
        A.free_recs = A.recs[r].bin_next;
        return r;
    }
    if (A.nrecs == A.caprecs) {
        uint32_t cap = A.caprecs ? A.caprecs * 2 : 256;
        /* a record for a cell's block: no room is that allocation's failure, reported to the cell */
        block_t *n = realloc(A.recs, (size_t)cap * sizeof *n);
        if (!n) return NIL;
        A.recs = n;
        A.caprecs = cap;
    }
    return A.nrecs++;
}

static void rec_drop(uint32_t r) {
    A.recs[r].bin_next = A.free_recs;
    A.free_recs = r;
}

/* ---- bins ---- */

static int bin_of(uint64_t size) { return 63 - __builtin_clzll(size); }

static void bin_insert(uint32_t r) {
    int b = bin_of(A.recs[r].size);
    A.recs[r].bin_prev = NIL;
    A.recs[r].bin_next = A.bins[b];
    if (A.bins[b] != NIL) A.recs[A.bins[b]].bin_prev = r;
    A.bins[b] = r;
    A.binmask |= 1ull << b;
}

static void bin_remove(uint32_t r) {
    int b = bin_of(A.recs[r].size);
    block_t *k = &A.recs[r];
    if (k->bin_prev != NIL) A.recs[k->bin_prev].bin_next = k->bin_next;
    else A.bins[b] = k->bin_next;
    if (k->bin_next != NIL) A.recs[k->bin_next].bin_prev = k->bin_prev;
    if (A.bins[b] == NIL) A.binmask &= ~(1ull << b);
}

/* ---- live table: offset -> record ---- */

static size_t hash_off(uint64_t k) { return (size_t)((k / ALIGN) * 0x9E3779B97F4A7C15ull); }

static int tab_grow(void) {
    size_t cap = A.tabcap ? A.tabcap * 2 : 1024;
    slot_t *n = malloc(cap * sizeof *n); /* grows with a cell's blocks: no room fails that allocation */
    if (!n) return -1;
    for (size_t i = 0; i < cap; i++) n[i].key = EMPTY;
    for (size_t i = 0; i < A.tabcap; i++) {
        if (A.tab[i].key == EMPTY) continue;
        size_t j = hash_off(A.tab[i].key) & (cap - 1);
        while (n[j].key != EMPTY) j = (j + 1) & (cap - 1);
        n[j] = A.tab[i];
    }
    free(A.tab);
    A.tab = n;
    A.tabcap = cap;
    return 0;
}

static int tab_put(uint64_t key, uint32_t rec) {
    if ((A.tabused + 1) * 2 > A.tabcap && tab_grow() < 0) return -1;
    size_t j = hash_off(key) & (A.tabcap - 1);
    while (A.tab[j].key != EMPTY) j = (j + 1) & (A.tabcap - 1);
    A.tab[j].key = key;
    A.tab[j].rec = rec;
    A.tabused++;
    return 0;
}

static size_t tab_find(uint64_t key) { /* slot index or SIZE_MAX */
    if (!A.tabcap) return SIZE_MAX;
    size_t j = hash_off(key) & (A.tabcap - 1);
    while (A.tab[j].key != EMPTY) {
        if (A.tab[j].key == key) return j;
        j = (j + 1) & (A.tabcap - 1);
    }
    return SIZE_MAX;
}

static void tab_del(size_t i) { /* backward-shift deletion */
    size_t mask = A.tabcap - 1, j = i;
    A.tab[i].key = EMPTY;
    for (;;) {
        j = (j + 1) & mask;
        if (A.tab[j].key == EMPTY) break;
        size_t h = hash_off(A.tab[j].key) & mask;
        /* move j into the hole i unless its home h lies cyclically in (i, j] */
        bool home_between = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (!home_between) {
            A.tab[i] = A.tab[j];
            A.tab[j].key = EMPTY;
            i = j;
        }
    }
    A.tabused--;
}

/* ---- zeroing / giving pages back ---- */

static void clear_range(uint64_t off, uint64_t size) {
    if (size >= PUNCH_MIN) {
        uint64_t lo = (off + A.page - 1) & ~(uint64_t)(A.page - 1);
        uint64_t hi = (off + size) & ~(uint64_t)(A.page - 1);
        if (hi > lo &&
            fallocate(A.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)lo,
                      (off_t)(hi - lo)) == 0) {
            memset(A.base + off, 0, lo - off);
            memset(A.base + hi, 0, off + size - hi);
            return;
        }
    }
    memset(A.base + off, 0, size);
}

/* ---- API ---- */

void *arena_map_at(int fd, size_t size, uintptr_t addr) {
    void *p = mmap((void *)addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED_NOREPLACE, fd, 0);
    if (p != MAP_FAILED && (uintptr_t)p != addr) { /* a kernel that ignores the flag */
        munmap(p, size);
        p = MAP_FAILED;
    }
    return p;
}

size_t host_memory_size(void) {
    long pages = sysconf(_SC_PHYS_PAGES), pg = sysconf(_SC_PAGESIZE);
    size_t m = pages > 0 && pg > 0 ? (size_t)pages * (size_t)pg : 0;
    static const char *const limits[] = {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(limits[i], "r");
        unsigned long long v;
        if (!f) continue;
        if (fscanf(f, "%llu", &v) == 1 && v > 0 && (m == 0 || v < m)) m = (size_t)v; /* "max" reads as nothing */
        fclose(f);
    }
    return m;
}

int arena_init(size_t reserve) {
    pthread_mutex_lock(&A.mu);
    if (A.base) {
        pthread_mutex_unlock(&A.mu);
        return 0;
    }
    int rc = -1;
    long pg = sysconf(_SC_PAGESIZE);
    A.page = pg > 0 ? (size_t)pg : 4096;
    /* ICUDA_ARENA_MB caps the reserve: valgrind scans the whole mapping at
     * exit, which at tens of GiB takes longer than any test waits. */
    const char *cap = getenv("ICUDA_ARENA_MB");
    if (cap && atol(cap) > 0 && (size_t)atol(cap) << 20 < reserve) reserve = (size_t)atol(cap) << 20;
    if (reserve == 0) {
        errno = EINVAL;
        goto out;
    }
    reserve = (reserve + A.page - 1) & ~(A.page - 1);
    int fd = memfd_create("icuda-arena", MFD_CLOEXEC);
    if (fd < 0) goto out;
    if (ftruncate(fd, (off_t)reserve) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        goto out;
    }
    /* At a fixed address first: the GPU worker maps the arena at this
     * process's address, and a fresh process's libraries, placed anywhere
     * in the terabyte below the stack, collided with a 64 GiB range put
     * there too (one worker start in ten). Nothing is placed here by
     * default: executables and their heap sit above it, ASan's shadow
     * below, and ASan's heap at 80 or 96 TiB (newer and older versions)
     * as the device range (GPU_VA_BASE) is, above it. */
    void *p = arena_map_at(fd, reserve, ARENA_ADDR);
    if (p == MAP_FAILED) p = mmap(NULL, reserve, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    /* Under an address-space limit (prlimit --as, ulimit -v) 64 GiB does
     * not map: a quarter as much, down to ARENA_MIN_RESERVE, rather than no
     * arena (no host buffers, no GPU worker) at all. */
    while (p == MAP_FAILED && errno == ENOMEM && reserve / 4 >= ARENA_MIN_RESERVE) {
        reserve = (reserve / 4 + A.page - 1) & ~(A.page - 1);
        p = arena_map_at(fd, reserve, ARENA_ADDR);
        if (p == MAP_FAILED) p = mmap(NULL, reserve, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    }
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        errno = e;
        goto out;
    }
    if (ftruncate(fd, (off_t)reserve) < 0) { /* the memfd as long as the mapping, for the worker */
        int e = errno;
        munmap(p, reserve);
        close(fd);
        errno = e;
        goto out;
    }
    A.fd = fd;
    A.base = p;
    A.reserve = reserve;
    /* Pages are taken as cells touch them (the memfd is not reserved), so a
     * cell that allocates more than the machine has would be killed, with
     * its session, by the kernel's OOM killer; past three quarters of the
     * memory, allocations fail as malloc does (NULL) instead. */
    size_t mem = host_memory_size();
    A.limit = mem ? mem / 4 * 3 : reserve;
    if (A.limit > reserve) A.limit = reserve;
    A.top = 0;
    A.last = NIL;
    A.free_recs = NIL;
    for (int i = 0; i < NBINS; i++) A.bins[i] = NIL;
    rc = 0;
out:
    pthread_mutex_unlock(&A.mu);
    return rc;
}

static uint32_t find_free(uint64_t n) {
    int b = bin_of(n);
    /* the bin holding n itself: blocks there may be smaller, scan a few */
    int k = 0;
    for (uint32_t r = A.bins[b]; r != NIL && k < BIN_SCAN; r = A.recs[r].bin_next, k++)
        if (A.recs[r].size >= n) return r;
    /* any block of a higher bin fits */
    uint64_t m = b + 1 < NBINS ? A.binmask & (~0ull << (b + 1)) : 0;
    if (!m) return NIL;
    return A.bins[__builtin_ctzll(m)];
}

void *arena_alloc(size_t n) {
    if (n == 0 || n > SIZE_MAX - ALIGN) return NULL;
    uint64_t sz = ((uint64_t)n + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);
    void *res = NULL;
    pthread_mutex_lock(&A.mu);
    if (!A.base || sz > A.limit - A.in_use) goto out;
    uint32_t r = find_free(sz);
    if (r != NIL) {
        bin_remove(r);
        if (A.recs[r].size - sz >= ALIGN) { /* split: the tail stays free */
            uint32_t t = rec_new();
            if (t == NIL) {
                bin_insert(r);
                goto out;
            }
            block_t *k = &A.recs[r];
            A.recs[t] = (block_t){.off = k->off + sz, .size = k->size - sz, .free = 1,
                                  .phys_prev = r, .phys_next = k->phys_next};
            if (k->phys_next != NIL) A.recs[k->phys_next].phys_prev = t;
            else A.last = t;
            k->phys_next = t;
            k->size = sz;
            bin_insert(t);
        }
    } else {
        if (sz > A.reserve - A.top) goto out;
        r = rec_new();
        if (r == NIL) goto out;
        A.recs[r] = (block_t){.off = A.top, .size = sz, .phys_prev = A.last, .phys_next = NIL};
        if (A.last != NIL) A.recs[A.last].phys_next = r;
        A.last = r;
        A.top += sz;
    }
    if (tab_put(A.recs[r].off, r) < 0) { /* out of heap: give the block back */
        A.recs[r].free = 1;
        bin_insert(r);
        goto out;
    }
    A.recs[r].free = 0;
    A.recs[r].req = n;
    A.in_use += A.recs[r].size;
    res = A.base + A.recs[r].off;
out:
    pthread_mutex_unlock(&A.mu);
    return res;
}

int arena_free(void *p) {
    if (!p) return -1;
    int rc = -1;
    pthread_mutex_lock(&A.mu);
    if (!A.base || (unsigned char *)p < A.base || (unsigned char *)p >= A.base + A.reserve)
        goto out;
    uint64_t off = (uint64_t)((unsigned char *)p - A.base);
    size_t slot = tab_find(off);
    if (slot == SIZE_MAX) goto out;
    uint32_t r = A.tab[slot].rec;
    tab_del(slot);
    block_t *k = &A.recs[r];
    A.in_use -= k->size;
    clear_range(k->off, k->size);
    k->free = 1;
    /* coalesce with the previous and the next block */
    uint32_t pr = k->phys_prev;
    if (pr != NIL && A.recs[pr].free) {
        bin_remove(pr);
        A.recs[pr].size += k->size;
        A.recs[pr].phys_next = k->phys_next;
        if (k->phys_next != NIL) A.recs[k->phys_next].phys_prev = pr;
        else A.last = pr;
        rec_drop(r);
        r = pr;
        k = &A.recs[r];
    }
    uint32_t nx = k->phys_next;
    if (nx != NIL && A.recs[nx].free) {
        bin_remove(nx);
        k->size += A.recs[nx].size;
        k->phys_next = A.recs[nx].phys_next;
        if (k->phys_next != NIL) A.recs[k->phys_next].phys_prev = r;
        else A.last = r;
        rec_drop(nx);
    }
    if (k->phys_next == NIL) { /* the block ends at top: give it back to top */
        A.top = k->off;
        A.last = k->phys_prev;
        if (A.last != NIL) A.recs[A.last].phys_next = NIL;
        rec_drop(r);
    } else {
        bin_insert(r);
    }
    rc = 0;
out:
    pthread_mutex_unlock(&A.mu);
    return rc;
}

size_t arena_alloc_size(const void *p) {
    size_t n = 0;
    pthread_mutex_lock(&A.mu);
    if (A.base && (const unsigned char *)p >= A.base &&
        (const unsigned char *)p < A.base + A.reserve) {
        size_t slot = tab_find((uint64_t)((const unsigned char *)p - A.base));
        if (slot != SIZE_MAX) n = A.recs[A.tab[slot].rec].req;
    }
    pthread_mutex_unlock(&A.mu);
    return n;
}

bool arena_contains(const void *p, size_t n) {
    const unsigned char *c = p;
    if (!A.base || c < A.base || c > A.base + A.reserve) return false;
    return n <= (size_t)(A.base + A.reserve - c);
}

uint64_t arena_offset(const void *p) { return (uint64_t)((const unsigned char *)p - A.base); }

int arena_fd(void) { return A.fd; }

size_t arena_reserved(void) { return A.reserve; }

size_t arena_in_use(void) {
    pthread_mutex_lock(&A.mu);
    size_t n = A.in_use;
    pthread_mutex_unlock(&A.mu);
    return n;
}

size_t arena_limit(void) {
    pthread_mutex_lock(&A.mu);
    size_t n = A.limit;
    pthread_mutex_unlock(&A.mu);
    return n;
}

size_t arena_available(void) {
    pthread_mutex_lock(&A.mu);
    size_t n = A.base && A.limit > A.in_use ? A.limit - A.in_use : 0;
    pthread_mutex_unlock(&A.mu);
    return n;
}
