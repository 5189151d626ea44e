/* Native tier, C -> machine code (native.h): the system's C compiler builds
 * the generated source into a shared object that is loaded with dlopen.
 * Code is cached by content: in memory for the process, and on disk under
 * the user's cache directory (host/<hash>.so next to the device cache), so a
 * re-run cell or a restarted kernel loads instead of compiling. The hash
 * covers the source, the options and the compiler's name. The cache maps
 * content to code, like the device compile cache: it is not session state. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "native.h"
#include "../compile_cache.h"
#include "../interrupt.h"

extern char **environ;

typedef struct centry { uint64_t h; native_fn_t fn; } centry_t;
static centry_t *g_cache;
static size_t g_ncache, g_capcache;

static uint64_t fnv(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static native_fn_t native_code(const char *src, int opt, int *how, double *secs, bool build);

static const char *compiler(void) {
    const char *c = getenv("ICUDA_HOST_CC");
    return c && *c ? c : "cc";
}

static char *cache_dir(void) {
    static char *dir;
    static bool tried;
    if (tried) return dir;
    tried = true;
    char *base = compile_cache_default_dir();
    if (!base) return NULL;
    size_t n = strlen(base) + 8;
    dir = malloc(n);
    snprintf(dir, n, "%s/host", base);
    free(base);
    for (char *p = dir + 1; *p; p++) { /* each parent first; any may exist */
        if (*p != '/') continue;
        *p = 0;
        mkdir(dir, 0700);
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        free(dir);
        dir = NULL;
    }
    return dir;
}

static native_fn_t load(const char *so) {
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) return NULL;
    return (native_fn_t)(uintptr_t)dlsym(h, "icuda_native");
}

static void remember(uint64_t h, native_fn_t fn) {
    if (g_ncache == g_capcache) {
        g_capcache = g_capcache ? 2 * g_capcache : 64;
        g_cache = realloc(g_cache, g_capcache * sizeof *g_cache);
        if (!g_cache) abort();
    }
    g_cache[g_ncache++] = (centry_t){h, fn};
}

/* Runs the compiler on c_path into so_path: 0 on success. Its messages go
 * to a log next to the source (a failure leaves the loop interpreted). */
static int run_cc(const char *c_path, const char *so_path, int opt) {
    char olev[8], log[4200];
    snprintf(olev, sizeof olev, "-O%d", opt);
    snprintf(log, sizeof log, "%s.log", c_path);
    char *argv[] = {(char *)compiler(), olev, "-pipe", "-fPIC", "-shared", "-std=gnu11", "-fwrapv", "-fno-strict-aliasing",
                    "-ffp-contract=off", "-fno-math-errno", "-w", "-o", (char *)so_path, (char *)c_path, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    /* an interrupt stops the compiler: the loop goes on interpreted and
     * the interpreter's next poll raises KeyboardInterrupt */
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) return -1;
        if (interrupt_pending()) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            return -2;
        }
        usleep(500);
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

native_fn_t native_compile(const char *src, int opt, int *how, double *secs) {
    return native_code(src, opt, how, secs, true);
}
native_fn_t native_lookup(const char *src, int opt, int *how) {
    double secs;
    return native_code(src, opt, how, &secs, false);
}

static native_fn_t native_code(const char *src, int opt, int *how, double *secs, bool build) {
    char tag[64];
    snprintf(tag, sizeof tag, "-O%d|v1|", opt);
    uint64_t h = fnv(fnv(fnv(1469598103934665603ULL, tag), compiler()), src);
    *secs = 0;
    for (size_t i = 0; i < g_ncache; i++)
        if (g_cache[i].h == h) {
            *how = 1;
            return g_cache[i].fn;
        }
    char *dir = cache_dir();
    char tmpdir[] = "/tmp/icuda-host-XXXXXX";
    if (!dir && !(dir = mkdtemp(tmpdir))) return NULL;
    char c_path[4096], so_path[4096], tmp_path[4200];
    snprintf(c_path, sizeof c_path, "%s/%016llx.c", dir, (unsigned long long)h);
    snprintf(so_path, sizeof so_path, "%s/%016llx.so", dir, (unsigned long long)h);
    native_fn_t fn = NULL;
    if (access(so_path, R_OK) == 0 && (fn = load(so_path))) {
        *how = 2;
        remember(h, fn);
        return fn;
    }
    if (!build) {
        if (dir == tmpdir) rmdir(tmpdir);
        return NULL;
    }
    double t0 = now_s();
    FILE *f = fopen(c_path, "w");
    if (!f) return NULL;
    fputs(src, f);
    fclose(f);
    /* built under another name and renamed: a reader never sees half a file */
    snprintf(tmp_path, sizeof tmp_path, "%s.%d.tmp", so_path, (int)getpid());
    int rc = run_cc(c_path, tmp_path, opt);
    if (rc == 0 && rename(tmp_path, so_path) == 0) fn = load(so_path);
    unlink(tmp_path);
    *secs = now_s() - t0;
    if (dir == tmpdir) { /* no cache directory: nothing stays */
        char lg[4300];
        snprintf(lg, sizeof lg, "%s.log", c_path);
        unlink(lg);
        unlink(c_path);
        unlink(so_path);
        rmdir(tmpdir);
    }
    if (!fn) {
        *how = rc == -2 ? -1 : 0;
        return NULL;
    }
    *how = 0;
    remember(h, fn);
    return fn;
}
