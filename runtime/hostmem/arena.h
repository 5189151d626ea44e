/* Host memory that user code allocates lives here: one memfd, mapped shared,
 * so the GPU worker process can map the same pages and copy to and from them
 * directly. Allocation metadata is kept outside the mapping, so nothing a
 * cell writes into its buffers can corrupt the allocator. */
#ifndef ICUDA_ARENA_H
#define ICUDA_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Creates the arena once per process: reserve is the virtual size of the
 * mapping (pages cost nothing until touched); where that does not map
 * (an address-space limit), a quarter as much, down to ARENA_MIN_RESERVE.
 * Returns 0 or -1 (errno). */
int arena_init(size_t reserve);
#define ARENA_MIN_RESERVE ((size_t)256 << 20)
/* where arena_init maps it when that range is free (48 TiB; arena.c says why) */
#define ARENA_ADDR 0x300000000000ULL
/* Maps the first size bytes of fd shared at exactly addr, or MAP_FAILED
 * when anything is there already (the kernel process and the GPU worker
 * both place the arena this way). */
void *arena_map_at(int fd, size_t size, uintptr_t addr);
/* 64-byte aligned, zero-filled. NULL when the arena is full, when the live
 * allocations would pass three quarters of the machine's (or the cgroup's)
 * memory, or n == 0. */
void *arena_alloc(size_t n);
/* p must be a pointer arena_alloc returned; returns -1 if it is not one. */
int arena_free(void *p);
/* Size of the live allocation that starts at p, or 0. */
size_t arena_alloc_size(const void *p);

bool arena_contains(const void *p, size_t n);
uint64_t arena_offset(const void *p);  /* byte offset of p in the memfd */
int arena_fd(void);                    /* for the worker to map (inherit or SCM_RIGHTS) */
size_t arena_reserved(void);

/* What this process may use: the machine's memory, or its cgroup's limit
 * when lower (a container's); 0 when unknown. */
size_t host_memory_size(void);
size_t arena_in_use(void);             /* bytes in live allocations */
size_t arena_limit(void);              /* what arena_in_use may reach */
size_t arena_available(void);          /* bytes arena_alloc may still give before the limit */

#endif
