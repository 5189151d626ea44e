/* Least-recently-used eviction of a disk cache folder (cache_evict.h). */
#include "cache_evict.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vec.h"
#include "xalloc.h"

uint64_t compile_cache_disk_limit(void) {
    const char *env = getenv("ICUDA_CACHE_MAX_BYTES");
    if (env && *env) {
        unsigned long long v = strtoull(env, NULL, 10);
        if (v > 0) return v;
    }
    return COMPILE_CACHE_DISK_MAX;
}

typedef struct { char name[96]; size_t stem; uint64_t size; struct timespec t; bool key; } cfile_t;
typedef struct { size_t first, n; const cfile_t *head; uint64_t size; struct timespec used; } centry_t;

static int by_stem(const void *a, const void *b) {
    const cfile_t *x = a, *y = b;
    size_t n = x->stem < y->stem ? x->stem : y->stem;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->stem > y->stem) - (x->stem < y->stem);
}

/* by stem, then by name: one order whatever the folder's */
static int by_name(const void *a, const void *b) {
    int c = by_stem(a, b);
    return c ? c : strcmp(((const cfile_t *)a)->name, ((const cfile_t *)b)->name);
}

static int ts_cmp(struct timespec a, struct timespec b) {
    if (a.tv_sec != b.tv_sec) return a.tv_sec < b.tv_sec ? -1 : 1;
    return (a.tv_nsec > b.tv_nsec) - (a.tv_nsec < b.tv_nsec);
}

static int older_first(const void *a, const void *b) {
    const centry_t *x = a, *y = b;
    int c = ts_cmp(x->used, y->used);
    return c ? c : by_stem(x->head, y->head);
}

/* every regular file of d whose name fits; *n of them */
static cfile_t *list_files(DIR *d, const char *key, size_t *n) {
    cfile_t *files = NULL;
    size_t cap = 0, klen = strlen(key);
    *n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || len >= sizeof files->name) continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        ARRAY_GROW(files, *n, cap);
        cfile_t *f = &files[(*n)++];
        memcpy(f->name, e->d_name, len + 1);
        f->stem = strcspn(e->d_name, ".");
        f->size = (uint64_t)st.st_size;
        f->t = st.st_mtim;
        f->key = len > klen && !strcmp(e->d_name + len - klen, key);
    }
    return files;
}

int cache_evict(const char *dir, const char *key, uint64_t max_bytes, size_t max_entries) {
    if (!dir) return 0;
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t nf;
    cfile_t *files = list_files(d, key, &nf);
    qsort(files, nf, sizeof *files, by_name);
    centry_t *ents = xmalloc((nf ? nf : 1) * sizeof *ents);
    size_t ne = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < nf; i++) {
        if (!ne || by_stem(&files[ents[ne - 1].first], &files[i]) != 0)
            ents[ne++] = (centry_t){i, 0, &files[i], 0, {0, 0}};
        centry_t *e = &ents[ne - 1];
        e->size += files[i].size;
        total += files[i].size;
        bool had_key = e->n++ && files[e->first].key; /* the key file, once seen, stays first */
        if (files[i].key && !had_key) {
            cfile_t t = files[i];
            files[i] = files[e->first];
            files[e->first] = t;
            e->used = t.t;
        } else if (!had_key && ts_cmp(files[i].t, e->used) > 0)
            e->used = files[i].t;
    }
    int removed = 0;
    if (total > max_bytes || ne > max_entries) {
        qsort(ents, ne, sizeof *ents, older_first);
        for (size_t i = 0; i < ne && (total > max_bytes || ne - (size_t)removed > max_entries); i++) {
            for (size_t j = 0; j < ents[i].n; j++) unlinkat(dirfd(d), files[ents[i].first + j].name, 0);
            total -= ents[i].size;
            removed++;
        }
    }
    closedir(d);
    free(files);
    free(ents);
    return removed;
}

char *icuda_cache_dir(void) {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char buf[4096];
    if (xdg && *xdg) snprintf(buf, sizeof buf, "%s/icuda", xdg);
    else if (home && *home) snprintf(buf, sizeof buf, "%s/.cache/icuda", home);
    else return NULL;
    return xstrdup(buf);
}

typedef struct {
    char *name;
    time_t used;
} folder_t;

static int by_mtime(const void *a, const void *b) {
    time_t x = ((const folder_t *)a)->used, y = ((const folder_t *)b)->used;
    return (x > y) - (x < y);
}

void cache_keep_recent_folders(const char *root, size_t keep, const cache_folders_t *how) {
    DIR *d = opendir(root);
    if (!d) return;
    VEC(folder_t) e = {0};
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *path = xasprintf("%s/%s", root, de->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (de->d_name[0] == '.') {
                if (how->temporary) how->temporary(how->ctx, de->d_name, path, st.st_mtime);
            } else {
                VEC_PUSH(e, ((folder_t){xstrdup(de->d_name), st.st_mtime}));
            }
        }
        free(path);
    }
    closedir(d);
    if (e.n > keep) {
        qsort(e.v, e.n, sizeof *e.v, by_mtime);
        for (size_t i = 0; i < e.n - keep; i++) {
            char *path = xasprintf("%s/%s", root, e.v[i].name);
            how->remove(path);
            free(path);
        }
    }
    for (size_t i = 0; i < e.n; i++) free(e.v[i].name);
    VEC_FREE(e);
}
