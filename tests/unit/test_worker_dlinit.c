/* runtime/gpu/worker/worker_dlinit.c with objects built here by the C
 * compiler: initialisers deferred from dlopen run afterwards, in their
 * order, once; an initialiser that waits for a thread which asks the
 * dynamic linker for a symbol finishes (inside dlopen it would wait for
 * the linker's lock forever: the check gives that thread 10 s). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/gpu/worker/worker_dlinit.h"
#include "tests/unit/check.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *SOURCE =
    "#define _GNU_SOURCE\n"
    "#include <dlfcn.h>\n#include <pthread.h>\n#include <time.h>\n"
    "char order[16]; int n; int thread_done;\n"
    "static void *asks_linker(void *a) { (void)a; thread_done = dlsym(RTLD_DEFAULT, \"printf\") != 0; return 0; }\n"
    "__attribute__((constructor(200))) static void second(void) { order[n++] = 'b'; }\n"
    "__attribute__((constructor(101))) static void first(void) { order[n++] = 'a'; }\n"
    "__attribute__((constructor(300))) static void waits(void) {\n"
    "    pthread_t t;\n    struct timespec ts;\n"
    "    if (pthread_create(&t, 0, asks_linker, 0)) return;\n"
    "    clock_gettime(CLOCK_REALTIME, &ts);\n    ts.tv_sec += 10;\n"
    "    if (pthread_timedjoin_np(t, 0, &ts)) order[n++] = 'X'; else order[n++] = 'c';\n"
    "}\n";

/* Builds the object at so; 0 when the C compiler made it. */
static int build(const char *dir, const char *so) {
    char src[512], cmd[2048];
    snprintf(src, sizeof src, "%s/obj.c", dir);
    FILE *f = fopen(src, "w");
    if (!f) return -1;
    fputs(SOURCE, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -pthread -o %s %s 2>&1", so, src);
    return system(cmd);
}

int main(void) {
    char dir[] = "/tmp/icuda-dlinit-XXXXXX", so[600], copy[600], cmd[1300];
    if (!mkdtemp(dir)) return 1;
    snprintf(so, sizeof so, "%s/a.so", dir);
    snprintf(copy, sizeof copy, "%s/b.so", dir);
    if (build(dir, so)) {
        CHECK_SKIP(6, "no C compiler to build a shared object with");
    } else {
        CHECK(dlinit_defer(so) == 1);
        CHECK(dlinit_defer(so) == 1); /* renamed already: loaded as it is */
        snprintf(cmd, sizeof cmd, "cp %s %s", so, copy);
        CHECK(system(cmd) == 0);
        void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
        CHECK(h != NULL);
        if (h) {
            int *n = dlsym(h, "n");
            const char *order = dlsym(h, "order");
            CHECK(n && *n == 0); /* nothing ran inside dlopen */
            dlinit_run(h);
            CHECK(order && n && *n == 3 && !memcmp(order, "abc", 3));
        }
        /* a copy of a deferred object is deferred too, and runs afresh */
        void *h2 = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
        if (h2) {
            dlinit_run(h2);
            const char *order = dlsym(h2, "order");
            CHECK(order && !memcmp(order, "abc", 3));
        } else {
            CHECK(!"the copy loads");
        }
    }
    /* what is not an object is refused, and nothing is written to it */
    snprintf(cmd, sizeof cmd, "%s/text", dir);
    FILE *f = fopen(cmd, "w");
    if (f) {
        fputs("not an ELF object at all, but longer than an ELF header is: 0123456789abcdef", f);
        fclose(f);
    }
    CHECK(dlinit_defer(cmd) == -1);
    CHECK(dlinit_defer("/nonexistent/icuda.so") == -1);
    dlinit_run(NULL);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    return check_report();
}
