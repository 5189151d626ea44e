/* Compiled modules by cache key: in memory for the session, and on disk
 * (one file per key under the cache directory) so that re-opening a
 * notebook costs no compile. */
#ifndef ICUDA_COMPILE_CACHE_H
#define ICUDA_COMPILE_CACHE_H

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

/* The disk cache's folder, or NULL where there is none. */
const char *compile_cache_dir(const compile_cache_t *c);

/* The default directory: $XDG_CACHE_HOME/icuda or ~/.cache/icuda. malloc'd. */
char *compile_cache_default_dir(void);

#endif
