/* The disk cache of compiled modules is bounded (issue 13): 1,000 distinct
 * modules written through a cache with a small limit leave at most that
 * many bytes on disk, the newest kept; a module loaded is used, so kept. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "runtime/compile_cache.h"

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

int main(void) {
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
