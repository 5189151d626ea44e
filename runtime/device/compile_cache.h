/* Compiled modules by cache key: in memory for the session, and on disk
 * (one file per key under the cache directory) so that re-opening a
 * notebook costs no compile. */
#ifndef ICUDA_COMPILE_CACHE_H
#define ICUDA_COMPILE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/base/cache_evict.h"
#include "nvrtc_compile.h"

typedef struct compile_cache compile_cache_t;

/* dir NULL: no disk cache. */
compile_cache_t *compile_cache_new(const char *dir);
void compile_cache_free(compile_cache_t *c);

/* The module for key hex (owned by the cache), from memory or disk; NULL if
 * neither has it. */
const compiled_module_t *compile_cache_get(compile_cache_t *c, const char *hex);
/* Takes ownership of m (m->hex must be set); returns it. */
const compiled_module_t *compile_cache_put(compile_cache_t *c, compiled_module_t *m);

/* The memory table is bounded too: at most compile_cache_mem_limit()
 * modules (COMPILE_CACHE_MEM_MODULES, or ICUDA_CACHE_MAX_MODULES); past it
 * the least recently used one that is also on disk is freed (a later get
 * loads it again). Modules that no file holds (no disk cache, or the disk
 * bound removed them) are freed, least recently used first, only past
 * COMPILE_CACHE_HARD_FACTOR times the limit: a kernel whose module is gone
 * asks for its cell to be re-run. */
#define COMPILE_CACHE_MEM_MODULES 256
#define COMPILE_CACHE_HARD_FACTOR 4
size_t compile_cache_mem_limit(void);
/* Modules in memory now, and freed so far by the bound. */
size_t compile_cache_resident(const compile_cache_t *c);
size_t compile_cache_evicted(const compile_cache_t *c);

/* The disk cache's folder, or NULL where there is none. */
const char *compile_cache_dir(const compile_cache_t *c);

/* Removes modules from dir, least recently used first, down to max_bytes
 * (cache_evict.h); how many. */
int compile_cache_evict(const char *dir, uint64_t max_bytes);

#endif
