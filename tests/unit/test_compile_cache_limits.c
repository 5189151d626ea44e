/* The disk cache of compiled modules is bounded: 1,000 distinct
 * modules written through a cache with a small limit leave at most that
 * many bytes on disk, the newest kept; a module loaded is used, so kept.
 * The host tier's folder is bounded the same way, an entry being a loop's
 * files together (cache_evict). */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "runtime/device/compile_cache.h"

static uint64_t folder_bytes(const char *dir, int *files) {
    DIR *d = opendir(dir);
    uint64_t total = 0;
    *files = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char p[600];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) total += (uint64_t)st.st_size, (*files)++;
    }
    if (d) closedir(d);
    return total;
}

static compiled_module_t *module(int i) {
    compiled_module_t *m = calloc(1, sizeof *m);
    snprintf(m->hex, sizeof m->hex, "%064x", i);
    m->ptx_len = 9000;
    m->ptx = malloc(m->ptx_len + 1);
    memset(m->ptx, 'p', m->ptx_len);
    m->ptx[m->ptx_len] = 0;
    m->cubin = strdup("");
    m->log = strdup("");
    m->kernels = calloc(1, sizeof *m->kernels);
    return m;
}

/* a file of n bytes whose time is t seconds after the epoch */
static void put_file(const char *dir, const char *name, size_t n, time_t t) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    for (size_t i = 0; f && i < n; i++) fputc('x', f);
    if (f) fclose(f);
    struct timespec ts[2] = {{t, 0}, {t, 0}};
    utimensat(AT_FDCWD, p, ts, 0);
}

static bool exists(const char *dir, const char *name) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* a loop's .so, .c and log go together, aged by the .so; an entry with no
 * .so (a failed compile) by its newest file */
static void test_entries_of_several_files(void) {
    char dir[] = "/tmp/icuda-cache-evict-XXXXXX";
    if (!mkdtemp(dir)) return;
    put_file(dir, "aaaa.so", 1000, 100); /* the oldest .so, its source newer */
    put_file(dir, "aaaa.c", 500, 900);
    put_file(dir, "aaaa.c.log", 10, 900);
    put_file(dir, "bbbb.so", 1000, 300);
    put_file(dir, "bbbb.c", 500, 300);
    put_file(dir, "cccc.c", 500, 200); /* no .so: aged by its newest file */
    put_file(dir, "cccc.c.log", 100, 250);
    put_file(dir, "dddd.so", 1000, 400);
    int files;
    CHECK(cache_evict(dir, ".so", 1000000, 100) == 0); /* within both limits: nothing */
    CHECK(folder_bytes(dir, &files) == 4610 && files == 8);
    CHECK(cache_evict(dir, ".so", 1000000, 3) == 1); /* four entries, three allowed: the oldest goes whole */
    CHECK(!exists(dir, "aaaa.so") && !exists(dir, "aaaa.c") && !exists(dir, "aaaa.c.log"));
    CHECK(exists(dir, "cccc.c") && exists(dir, "bbbb.so"));
    CHECK(cache_evict(dir, ".so", 1600, 100) == 2); /* 3100 bytes down to 1600: cccc, then bbbb */
    CHECK(!exists(dir, "cccc.c") && !exists(dir, "cccc.c.log") && !exists(dir, "bbbb.c"));
    CHECK(exists(dir, "dddd.so") && folder_bytes(dir, &files) == 1000 && files == 1);
    CHECK(cache_evict(dir, ".so", 1, 100) == 1);
    /* every file counts, the key file too, wherever it sorts (it sorts
     * last here: a miscount of the entry's size once kept the cache whole) */
    put_file(dir, "eeee.c", 10, 500);
    put_file(dir, "eeee.so", 3000, 500);
    put_file(dir, "ffff.c", 10, 600);
    put_file(dir, "ffff.so", 3000, 600);
    CHECK(cache_evict(dir, ".so", 6020, 100) == 0);
    CHECK(cache_evict(dir, ".so", 6019, 100) == 1 && !exists(dir, "eeee.so") && exists(dir, "ffff.so"));
    CHECK(cache_evict(dir, ".so", 1, 100) == 1);
    rmdir(dir);
}

static int removed, temporaries;
static void count_removed(const char *path) {
    removed++;
    rmdir(path);
}
static void count_temporary(void *ctx, const char *name, const char *path, long long mtime) {
    (void)path, (void)mtime;
    temporaries += !strcmp(name, (const char *)ctx);
}

/* A cache of folders keeps the most recently changed ones; a folder named
 * with a leading '.' is a build under way, never counted or removed here. */
static void test_folders_kept_by_use(void) {
    char root[] = "/tmp/icuda-folders-test-XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char path[512];
    const char *names[] = {"old", "newest", "older", "new", ".build-x"};
    const long ages[] = {300, 0, 400, 100, 1000};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", root, names[i]);
        CHECK(mkdir(path, 0700) == 0);
        struct timeval tv[2] = {{time(NULL) - ages[i], 0}, {time(NULL) - ages[i], 0}};
        utimes(path, tv);
    }
    cache_folders_t how = {.remove = count_removed, .temporary = count_temporary, .ctx = ".build-x"};
    cache_keep_recent_folders(root, 2, &how);
    CHECK(removed == 2 && temporaries == 1);
    const char *kept[] = {"newest", "new", ".build-x"}, *gone[] = {"old", "older"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", root, kept[i]);
        CHECK(access(path, F_OK) == 0);
        rmdir(path);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, gone[i]);
        CHECK(access(path, F_OK) != 0);
    }
    rmdir(root);
}

int main(void) {
    test_entries_of_several_files();
    test_folders_kept_by_use();
    char dir[] = "/tmp/icuda-cache-test-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("ICUDA_CACHE_MAX_BYTES", "200000", 1); /* about 20 modules */
    CHECK(compile_cache_disk_limit() == 200000);
    compile_cache_t *c = compile_cache_new(dir);
    for (int i = 0; i < 1000; i++) {
        compile_cache_put(c, module(i));
    }
    int files;
    uint64_t bytes = folder_bytes(dir, &files);
    printf("1000 modules written, %d files, %llu bytes left on disk\n", files, (unsigned long long)bytes);
    CHECK(bytes <= 200000);
    CHECK(files >= 10 && files <= 25);
    compile_cache_free(c);
    /* the newest are the ones kept, and they load */
    compile_cache_t *c2 = compile_cache_new(dir);
    char hex[80];
    snprintf(hex, sizeof hex, "%064x", 999);
    const compiled_module_t *m = compile_cache_get(c2, hex);
    CHECK(m && m->ptx_len == 9000);
    snprintf(hex, sizeof hex, "%064x", 3);
    CHECK(compile_cache_get(c2, hex) == NULL);
    /* an explicit eviction down to nothing */
    CHECK(compile_cache_evict(dir, 1) == files);
    CHECK(folder_bytes(dir, &files) == 0 && files == 0);
    compile_cache_free(c2);
    unsetenv("ICUDA_CACHE_MAX_BYTES");
    CHECK(compile_cache_disk_limit() == COMPILE_CACHE_DISK_MAX);
    rmdir(dir);
    return check_report();
}
