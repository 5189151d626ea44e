#include "compile_cache.h"

#include "runtime/base/make_dirs.h"
#include "runtime/base/xalloc.h"
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* In memory, at most compile_cache_mem_limit() modules: past it the least
 * recently used one that its disk file can bring back is freed (the kernel
 * table keeps keys, not pointers, and a get reloads it). A pointer from
 * get/put stays valid until that many other modules have been used. */
#define FILE_MAGIC "icuda-module-1\n"

struct compile_cache {
    char *dir;
    compiled_module_t **mods;
    uint64_t *used; /* per module: the tick of its last get or put */
    uint64_t tick;
    size_t n, cap;
    size_t evicted;
};

compile_cache_t *compile_cache_new(const char *dir) {
    compile_cache_t *c = xcalloc(1, sizeof *c);
    if (dir && make_dirs(dir) == 0) c->dir = xstrdup(dir);
    return c;
}

void compile_cache_free(compile_cache_t *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n; i++) module_free(c->mods[i]);
    free(c->mods);
    free(c->used);
    free(c->dir);
    free(c);
}

/* On disk: the magic line, then length-prefixed blobs: ptx, cubin, log, the
 * kernel count, and per kernel name, lowered name and seven ints. */
static void put_blob(FILE *f, const void *p, uint64_t n) {
    fwrite(&n, sizeof n, 1, f);
    if (n) fwrite(p, 1, n, f);
}

static char *get_blob(FILE *f, size_t *len) {
    uint64_t n;
    if (fread(&n, sizeof n, 1, f) != 1 || n > (1ull << 31)) return NULL;
    char *p = malloc(n + 1); /* up to 2 GiB read from the cache: no room is a miss, compiled again */
    if (!p) return NULL;
    if (n && fread(p, 1, n, f) != n) {
        free(p);
        return NULL;
    }
    p[n] = 0;
    if (len) *len = n;
    return p;
}

static void path_for(const compile_cache_t *c, const char *hex, char *buf, size_t cap) {
    snprintf(buf, cap, "%s/%s.mod", c->dir, hex);
}

static void save(const compile_cache_t *c, const compiled_module_t *m) {
    if (!c->dir) return;
    char path[4200], tmp[4300];
    path_for(c, m->hex, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    fputs(FILE_MAGIC, f);
    put_blob(f, m->ptx, m->ptx_len);
    put_blob(f, m->cubin, m->cubin_len);
    put_blob(f, m->log, m->log ? strlen(m->log) : 0);
    int32_t nk = m->nkernels;
    fwrite(&nk, sizeof nk, 1, f);
    for (int i = 0; i < m->nkernels; i++) {
        const compiled_kernel_t *k = &m->kernels[i];
        put_blob(f, k->name, strlen(k->name));
        put_blob(f, k->lowered, strlen(k->lowered));
        int32_t v[7] = {k->registers, k->shared_bytes, k->stack_bytes, k->spill_stores,
                        k->spill_loads, k->const_bytes, k->have_resources};
        fwrite(v, sizeof v, 1, f);
    }
    bool ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    if (ok) rename(tmp, path); /* atomic: a reader sees the whole file or none */
    else unlink(tmp);
    compile_cache_evict(c->dir, compile_cache_disk_limit());
}

static compiled_module_t *load(const compile_cache_t *c, const char *hex) {
    if (!c->dir) return NULL;
    char path[4200];
    path_for(c, hex, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char magic[sizeof FILE_MAGIC];
    compiled_module_t *m = xcalloc(1, sizeof *m);
    snprintf(m->hex, sizeof m->hex, "%s", hex);
    bool ok = fread(magic, 1, strlen(FILE_MAGIC), f) == strlen(FILE_MAGIC) &&
              memcmp(magic, FILE_MAGIC, strlen(FILE_MAGIC)) == 0;
    if (ok) ok = (m->ptx = get_blob(f, &m->ptx_len)) != NULL;
    if (ok) ok = (m->cubin = get_blob(f, &m->cubin_len)) != NULL;
    if (ok) ok = (m->log = get_blob(f, NULL)) != NULL;
    int32_t nk = 0;
    if (ok) ok = fread(&nk, sizeof nk, 1, f) == 1 && nk >= 0 && nk < 100000;
    if (ok) {
        m->kernels = xcalloc(nk ? nk : 1, sizeof *m->kernels);
    }
    for (int i = 0; ok && i < nk; i++) {
        compiled_kernel_t *k = &m->kernels[i];
        int32_t v[7];
        ok = (k->name = get_blob(f, NULL)) && (k->lowered = get_blob(f, NULL)) && fread(v, sizeof v, 1, f) == 1;
        m->nkernels = i + 1;
        if (ok) {
            k->registers = v[0], k->shared_bytes = v[1], k->stack_bytes = v[2];
            k->spill_stores = v[3], k->spill_loads = v[4], k->const_bytes = v[5], k->have_resources = v[6];
        }
    }
    fclose(f);
    if (ok) utimensat(AT_FDCWD, path, NULL, 0); /* used now: the last to be evicted */
    if (!ok) { /* a torn or foreign file: forget it, it will be rebuilt */
        module_free(m);
        unlink(path);
        return NULL;
    }
    return m;
}

size_t compile_cache_mem_limit(void) {
    const char *env = getenv("ICUDA_CACHE_MAX_MODULES"); /* for tests */
    if (env && *env) {
        unsigned long v = strtoul(env, NULL, 10);
        if (v > 0) return v;
    }
    return COMPILE_CACHE_MEM_MODULES;
}

static bool on_disk(const compile_cache_t *c, const char *hex) {
    char path[4200];
    if (!c->dir) return false;
    path_for(c, hex, path, sizeof path);
    return access(path, R_OK) == 0;
}

/* Frees the least recently used module that its file can bring back; past
 * the hard limit (the disk cache evicted them, or there is none), the least
 * recently used one anyway: its kernel then asks for its cell to be re-run. */
static void evict_one(compile_cache_t *c, bool hard) {
    size_t victim = c->n;
    for (size_t i = 0; i < c->n; i++)
        if ((victim == c->n || c->used[i] < c->used[victim]) && (hard || on_disk(c, c->mods[i]->hex))) victim = i;
    if (victim == c->n) return;
    module_free(c->mods[victim]);
    c->n--;
    c->mods[victim] = c->mods[c->n];
    c->used[victim] = c->used[c->n];
    c->evicted++;
}

static compiled_module_t *remember(compile_cache_t *c, compiled_module_t *m) {
    size_t limit = compile_cache_mem_limit();
    if (c->n >= limit) evict_one(c, c->n >= COMPILE_CACHE_HARD_FACTOR * limit);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 32;
        c->mods = xrealloc(c->mods, c->cap * sizeof *c->mods);
        c->used = xrealloc(c->used, c->cap * sizeof *c->used);
    }
    c->used[c->n] = ++c->tick;
    c->mods[c->n++] = m;
    return m;
}

size_t compile_cache_resident(const compile_cache_t *c) { return c->n; }
size_t compile_cache_evicted(const compile_cache_t *c) { return c->evicted; }

const compiled_module_t *compile_cache_get(compile_cache_t *c, const char *hex) {
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->mods[i]->hex, hex) == 0) {
            c->used[i] = ++c->tick;
            return c->mods[i];
        }
    compiled_module_t *m = load(c, hex);
    return m ? remember(c, m) : NULL;
}

const compiled_module_t *compile_cache_put(compile_cache_t *c, compiled_module_t *m) {
    save(c, m);
    return remember(c, m);
}

const char *compile_cache_dir(const compile_cache_t *c) { return c ? c->dir : NULL; }

int compile_cache_evict(const char *dir, uint64_t max_bytes) {
    return cache_evict(dir, ".mod", max_bytes, COMPILE_CACHE_DISK_FILES);
}
