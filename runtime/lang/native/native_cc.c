/* Native tier, C -> machine code (native.h): the system's C compiler builds
 * the generated source into a shared object that is loaded with dlopen.
 * Code is cached by content: on disk under the user's cache directory
 * (host/<hash>.so next to the device cache, bounded as that one is:
 * cache_evict.h), so a re-run cell or a restarted kernel loads instead of
 * compiling; and in the session that loaded it, which closes it at its end
 * (the loader shares one object between sessions that load the same file).
 * The hash covers the source, the options and the compiler's name. */
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
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "native.h"
#include "runtime/base/cache_evict.h"
#include "runtime/base/interrupt.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

enum { CC_NICE = 10 }; /* the compiler's niceness above the session's */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *compiler(void) {
    const char *c = getenv("ICUDA_HOST_CC");
    return c && *c ? c : "cc";
}

static char *cache_dir(void) {
    static char *dir;
    static bool tried;
    if (tried) return dir;
    tried = true;
    char *base = icuda_cache_dir();
    if (!base) return NULL;
    size_t n = strlen(base) + 8;
    dir = xmalloc(n);
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

size_t native_max_loaded(void) {
    const char *env = getenv("ICUDA_HOST_MAX_LOADED");
    long v = env ? atol(env) : 0;
    return v > 0 ? (size_t)v : NATIVE_MAX_LOADED;
}

/* so's entry, kept in libs (NULL: not loadable, or libs is full) */
static native_fn_t load(native_libs_t *libs, uint64_t h, const char *so) {
    if (libs->n >= native_max_loaded()) return NULL;
    void *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!dl) return NULL;
    native_fn_t fn = (native_fn_t)(uintptr_t)dlsym(dl, "icuda_native");
    if (!fn) {
        dlclose(dl);
        return NULL;
    }
    ARRAY_GROW(libs->e, libs->n, libs->cap);
    libs->e[libs->n++] = (native_lib_t){h, fn, dl};
    return fn;
}

void native_libs_close(native_libs_t *libs) {
    for (size_t i = 0; i < libs->n; i++) dlclose(libs->e[i].handle);
    free(libs->e);
    *libs = (native_libs_t){0};
}

/* A compile under way: the compiler runs as a child process while the
 * interpreter goes on (native_tier.c polls it at back-edges). */
struct native_job {
    native_libs_t *libs; /* the session's, where the code goes */
    pid_t pid;
    uint64_t h;
    char *dir, c_path[4096], so_path[4096], tmp_path[4200];
    bool tmpdir;
    double t0;
};

/* Starts the compiler on c_path into tmp_path: its pid, or -1. Its
 * messages go to a log next to the source (a failure leaves the loop
 * interpreted). */
static pid_t spawn_cc(const char *c_path, const char *tmp_path, int opt) {
    char olev[8], log[4200];
    snprintf(olev, sizeof olev, "-O%d", opt);
    snprintf(log, sizeof log, "%s.log", c_path);
    char *argv[] = {(char *)compiler(), olev, "-pipe", "-fPIC", "-shared", "-std=gnu11", "-fwrapv", "-fno-strict-aliasing",
                    "-ffp-contract=off", "-fno-math-errno", "-w", "-o", (char *)tmp_path, (char *)c_path, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    /* its own process group: cancelling stops cc1 and as too */
    posix_spawnattr_t at;
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    /* Where the session may run on one processor only, the compiler would
     * share it with the interpreter: below the session's priority, the
     * loop it compiles for goes first and is never slower than
     * interpreted (the group is set before cc1 and as start, and they
     * inherit it). With two or more, it has a processor of its own, and
     * at a lower priority a busy machine would starve it (0.12 s of
     * compile took seconds at load 7 on two cores). */
    cpu_set_t cpus;
    if (rc == 0 && sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) < 2)
        setpriority(PRIO_PGRP, (id_t)pid, CC_NICE);
    return rc == 0 ? pid : -1;
}

/* the cached code of content hash h, from the session's loaded code or
 * disk; *how 1 or 2 */
static native_fn_t cached(native_libs_t *libs, uint64_t h, const char *dir, int *how) {
    for (size_t i = 0; i < libs->n; i++)
        if (libs->e[i].h == h) {
            *how = 1;
            return libs->e[i].fn;
        }
    if (!dir) return NULL;
    char so_path[4096];
    snprintf(so_path, sizeof so_path, "%s/%016llx.so", dir, (unsigned long long)h);
    native_fn_t fn = NULL;
    if (access(so_path, R_OK) == 0 && (fn = load(libs, h, so_path))) {
        *how = 2;
        utimensat(AT_FDCWD, so_path, NULL, 0); /* used now: the last to be evicted */
    }
    return fn;
}

static uint64_t content_hash(const char *src, int opt) {
    char tag[64];
    snprintf(tag, sizeof tag, "-O%d|v1|", opt);
    return native_fnv(native_fnv(native_fnv(NATIVE_FNV_START, tag), compiler()), src);
}
uint64_t native_code_hash(const char *src, int opt) { return content_hash(src, opt); }
uint64_t native_job_hash(const native_job_t *j) { return j->h; }

native_job_t *native_compile_start(native_libs_t *libs, const char *src, int opt, native_fn_t *ready, int *how) {
    uint64_t h = content_hash(src, opt);
    char *dir = cache_dir();
    *ready = cached(libs, h, dir, how);
    if (*ready) return NULL;
    if (libs->n >= native_max_loaded()) { /* its code could not be loaded */
        libs->refused++;
        *how = 0;
        return NULL;
    }
    native_job_t *j = xcalloc(1, sizeof *j);
    j->libs = libs;
    j->h = h;
    j->t0 = now_s();
    if (dir) j->dir = xstrdup(dir);
    else {
        char tmpl[] = "/tmp/icuda-host-XXXXXX";
        if (!mkdtemp(tmpl)) { free(j); return NULL; }
        j->dir = xstrdup(tmpl);
        j->tmpdir = true; /* no cache directory: nothing stays */
    }
    snprintf(j->c_path, sizeof j->c_path, "%s/%016llx.c", j->dir, (unsigned long long)h);
    snprintf(j->so_path, sizeof j->so_path, "%s/%016llx.so", j->dir, (unsigned long long)h);
    /* built under another name and renamed: a reader never sees half a file */
    snprintf(j->tmp_path, sizeof j->tmp_path, "%s.%d.%p.tmp", j->so_path, (int)getpid(), (void *)j);
    FILE *f = fopen(j->c_path, "w");
    if (f) {
        fputs(src, f);
        fclose(f);
    }
    j->pid = f ? spawn_cc(j->c_path, j->tmp_path, opt) : -1;
    *how = 0;
    return j;
}

static void job_free(native_job_t *j) {
    unlink(j->tmp_path);
    if (j->tmpdir) {
        char lg[4300];
        snprintf(lg, sizeof lg, "%s.log", j->c_path);
        unlink(lg);
        unlink(j->c_path);
        unlink(j->so_path);
        rmdir(j->dir);
    }
    free(j->dir);
    free(j);
}

int native_compile_poll(native_job_t *j, bool wait, native_fn_t *fn, double *secs) {
    *fn = NULL;
    int st = 0;
    if (j->pid > 0) {
        for (;;) {
            pid_t r = waitpid(j->pid, &st, WNOHANG);
            if (r == j->pid) break;
            if (r < 0 && errno != EINTR) { st = -1; break; }
            if (!wait) return 0;
            /* an interrupt stops the compiler: the loop goes on interpreted
             * and the interpreter's next poll raises KeyboardInterrupt */
            if (interrupt_pending()) {
                native_compile_cancel(j);
                return -1;
            }
            usleep(500);
        }
    }
    bool ok = j->pid > 0 && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (ok && rename(j->tmp_path, j->so_path) == 0) {
        *fn = load(j->libs, j->h, j->so_path);
        if (!*fn && j->libs->n >= native_max_loaded()) j->libs->refused++; /* filled meanwhile */
        if (!j->tmpdir) cache_evict(j->dir, ".so", compile_cache_disk_limit(), COMPILE_CACHE_DISK_FILES);
    }
    *secs = now_s() - j->t0;
    job_free(j);
    return 1;
}

void native_compile_cancel(native_job_t *j) {
    if (j->pid > 0) {
        kill(-j->pid, SIGKILL);
        while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    job_free(j);
}

native_fn_t native_compile(native_libs_t *libs, const char *src, int opt, int *how, double *secs) {
    native_fn_t fn;
    *secs = 0;
    native_job_t *j = native_compile_start(libs, src, opt, &fn, how);
    if (fn || !j) return fn;
    int r = native_compile_poll(j, true, &fn, secs);
    if (r < 0) *how = -1;
    return fn;
}

native_fn_t native_lookup(native_libs_t *libs, const char *src, int opt, int *how) {
    return cached(libs, content_hash(src, opt), cache_dir(), how);
}
