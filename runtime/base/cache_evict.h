/* The disk caches' bound (the device modules' folder, the host tier's
 * host/ folder): after each save, the least recently used entries are
 * removed until the folder holds at most compile_cache_disk_limit() bytes
 * (COMPILE_CACHE_DISK_MAX, or ICUDA_CACHE_MAX_BYTES) and at most
 * COMPILE_CACHE_DISK_FILES entries. docs/reliability.md. */
#ifndef ICUDA_CACHE_EVICT_H
#define ICUDA_CACHE_EVICT_H

#include <stddef.h>
#include <stdint.h>

#define COMPILE_CACHE_DISK_MAX ((uint64_t)256 << 20)
#define COMPILE_CACHE_DISK_FILES 4096
uint64_t compile_cache_disk_limit(void);

/* Removes entries from dir, least recently used first, down to max_bytes
 * and max_entries; returns how many. An entry is the files whose names
 * agree up to their first '.' (a host loop's .so, its .c and the
 * compiler's log); its age is the time of its file ending in key (a load
 * touches that file), or of its newest file where none does. */
int cache_evict(const char *dir, const char *key, uint64_t max_bytes, size_t max_entries);

/* A cache of folders (whole programs, precompiled headers): keeps the keep
 * most recently changed folders of root, removing the rest with
 * how->remove; a folder whose name starts with '.' (a build under way, or
 * one that died) is never counted: how->temporary (may be NULL) is told of
 * it, with the time it last changed. */
typedef struct {
    void (*remove)(const char *path);
    void (*temporary)(void *ctx, const char *name, const char *path, long long mtime);
    void *ctx;
} cache_folders_t;
void cache_keep_recent_folders(const char *root, size_t keep, const cache_folders_t *how);

/* Where the disk caches live by default: $XDG_CACHE_HOME/icuda or
 * ~/.cache/icuda; NULL when neither is set. malloc'd. */
char *icuda_cache_dir(void);

#endif
