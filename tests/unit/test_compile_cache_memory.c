/* The in-memory table of compiled modules is bounded: past the
 * limit the least recently used module that the disk holds is freed and
 * comes back on the next get; modules no file holds are freed only past the
 * hard limit; a module just used survives other puts (ASan checks the
 * pointers). */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "runtime/device/compile_cache.h"

static compiled_module_t *module(int i) {
    compiled_module_t *m = calloc(1, sizeof *m);
    snprintf(m->hex, sizeof m->hex, "%064x", i);
    m->ptx_len = 9000;
    m->ptx = malloc(m->ptx_len + 1);
    memset(m->ptx, 'a' + i % 26, m->ptx_len);
    m->ptx[m->ptx_len] = 0;
    m->cubin = strdup("");
    m->log = strdup("");
    m->kernels = calloc(1, sizeof *m->kernels);
    return m;
}

static const char *hex_of(int i) {
    static char hex[80];
    snprintf(hex, sizeof hex, "%064x", i);
    return hex;
}

int main(void) {
    char dir[] = "/tmp/icuda-cache-mem-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("ICUDA_CACHE_MAX_MODULES", "8", 1);
    CHECK(compile_cache_mem_limit() == 8);
    compile_cache_t *c = compile_cache_new(dir);
    const compiled_module_t *first = compile_cache_put(c, module(0));
    for (int i = 1; i < 100; i++) {
        compile_cache_put(c, module(i));
        CHECK(compile_cache_get(c, hex_of(0)) == first); /* used each time: never the victim */
        CHECK(compile_cache_resident(c) <= 8);
    }
    CHECK(first->ptx[0] == 'a' && first->ptx_len == 9000);
    CHECK(compile_cache_evicted(c) == 92);
    /* an evicted module comes back from its file */
    const compiled_module_t *m = compile_cache_get(c, hex_of(5));
    CHECK(m && m->ptx_len == 9000 && m->ptx[0] == 'a' + 5);
    CHECK(compile_cache_resident(c) <= 8);
    compile_cache_free(c);

    /* no disk cache: nothing can come back, so modules stay up to the hard limit */
    c = compile_cache_new(NULL);
    for (int i = 0; i < 100; i++) compile_cache_put(c, module(i));
    CHECK(compile_cache_resident(c) == 8 * COMPILE_CACHE_HARD_FACTOR);
    CHECK(compile_cache_get(c, hex_of(99)) != NULL);
    CHECK(compile_cache_get(c, hex_of(0)) == NULL); /* gone: its cell must run again */
    compile_cache_free(c);

    unsetenv("ICUDA_CACHE_MAX_MODULES");
    CHECK(compile_cache_mem_limit() == COMPILE_CACHE_MEM_MODULES);
    compile_cache_evict(dir, 1);
    rmdir(dir);
    return check_report();
}
