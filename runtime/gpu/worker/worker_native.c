/* Native C++ cells in the worker (CH_NATIVE_RUN): a cell compiled by nvcc
 * into a shared object runs by being loaded. Its code (declarations with
 * their initialisers and statements wrapped in functions, in the cell's
 * order) is the object's dynamic initialisation, which runs when dlopen has
 * returned (worker_dlinit.c), after nvcc's own constructor has registered
 * the object's kernels with the CUDA runtime. Objects are loaded RTLD_LOCAL and never unloaded: what a
 * cell defines lives as long as the worker, and a later cell reaches it
 * only through the registry below, never through the dynamic linker, so a
 * cell run again (a fresh copy of its object) makes fresh globals that the
 * cells after it use.
 *
 * The functions named icuda_native_* are called by the generated code of
 * the cells (runtime/native/native_unit.c writes their declarations); the
 * worker exports them (the Makefile links it with
 * --export-dynamic-symbol=icuda_native_*), and cudaFree, below. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "worker_native.h"

#include "worker_cudart.h"
#include "worker_dlinit.h"

#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/vec.h"
#include "runtime/gpu/channel.h"
#include "runtime/gpu/cuda_driver.h"

typedef struct {
    char *name;          /* "d", "ns::x" */
    void *addr;
    char *type;          /* the C++ type, as the cell's compiler spells it */
    int is_const;
    int kernel;          /* a __global__ function: addr is its host stub */
    unsigned run;        /* the run that registered it */
} entry_t;

static VEC(entry_t) registry;
static unsigned run_id;       /* the current CH_NATIVE_RUN, counted from 1 */
static int cell_failed;       /* an exception or a non-zero return ended the cell's code */
static int cell_returned;     /* return 0 among its statements ended the cell's code, as main's ends a program */
static char report[CH_MAX_RECORD / 2];
static size_t report_len;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
    if (report_len >= sizeof report - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(report + report_len, sizeof report - report_len, fmt, ap);
    va_end(ap);
    if (n > 0) report_len += (size_t)n;
    if (report_len >= sizeof report) report_len = sizeof report - 1;
}

/* Tabs and newlines would break the report's lines. */
static void say_field(const char *s) {
    for (; s && *s && report_len < sizeof report - 2; s++) report[report_len++] = (*s == '\t' || *s == '\n') ? ' ' : *s;
    report[report_len] = 0;
}

int icuda_native_register(const char *name, void *addr, const char *type, int is_const, int kernel) {
    entry_t e = {xstrdup(name), addr, xstrdup(type ? type : ""), is_const, kernel, run_id};
    VEC_PUSH(registry, e);
    say("V\t");
    say_field(name);
    say("\t");
    say_field(type);
    say("\t%d\t%d\n", is_const, kernel);
    return 0;
}

void *icuda_native_lookup(const char *name) {
    for (size_t i = registry.n; i-- > 0;)
        if (!strcmp(registry.v[i].name, name)) return registry.v[i].addr;
    return NULL;
}

int icuda_native_failed(void) { return cell_failed || cell_returned; }

void icuda_native_fail(const char *kind, const char *what) {
    if (cell_failed) return;
    cell_failed = 1;
    say("E\t");
    say_field(kind);
    say("\t");
    say_field(what);
    say("\n");
}

void icuda_native_returned(int code) {
    if (cell_failed || cell_returned) return;
    if (code == 0) {
        cell_returned = 1;
        return;
    }
    cell_failed = 1;
    say("R\t%d\n", code);
}

static uint64_t session_base, session_size;
static uint64_t host_base, host_size;

void worker_native_host_range(uint64_t base, uint64_t size) {
    host_base = base;
    host_size = size;
}

/* whether p lies in [base, base + size), a range not yet set holding nothing */
static bool within(const void *p, uint64_t base, uint64_t size) {
    uint64_t a = (uint64_t)(uintptr_t)p;
    return a && size && a >= base && a - base < size;
}

int worker_native_host_free(void *p) {
    if (!within(p, host_base, host_size)) return 0;
    say("H\t%llx\n", (unsigned long long)(uintptr_t)p);
    return 1;
}

void worker_native_session_range(uint64_t base, uint64_t size) {
    session_base = base;
    session_size = size;
}

/* A buffer the session allocated (an interpreted cell's cudaMalloc) is a
 * mapping of the session's device range, which libcudart did not make and
 * would refuse to free. A native cell's cudaFree of one waits for the
 * device, as cudaFree does, and is noted in the report: the kernel process
 * frees the buffer, as an interpreted cudaFree, once the cell has run. Any
 * other pointer goes to libcudart. */
cudaError_t CUDARTAPI cudaFree(void *p) {
    if (!within(p, session_base, session_size)) return worker_cudart_free(p);
    cudaError_t r = worker_cudart_synchronize();
    say("F\t%llx\n", (unsigned long long)(uintptr_t)p);
    return r;
}

int worker_native_run(const char *args, size_t len, uint32_t nbinds, uint64_t v[4], const char **payload,
                      size_t *plen) {
    const char *path = args, *end = args + len;
    const char *nul = memchr(path, 0, len);
    if (!len || !nul) return CUDA_ERROR_INVALID_VALUE;
    /* the session's variables the cell binds, newest of their names */
    const char *p = nul + 1;
    for (uint32_t i = 0; i < nbinds; i++) {
        const char *z = memchr(p, 0, (size_t)(end - p));
        if (!z || z + 1 + 8 > end) return CUDA_ERROR_INVALID_VALUE;
        uint64_t value;
        memcpy(&value, z + 1, 8);
        entry_t e = {xstrdup(p), (void *)(uintptr_t)value, xstrdup(""), 0, 0, run_id + 1};
        VEC_PUSH(registry, e);
        p = z + 1 + 8;
    }
    report_len = 0;
    report[0] = 0;
    cell_failed = 0;
    cell_returned = 0;
    run_id++;
    size_t before = registry.n;
    /* the cell's code runs after dlopen, outside the dynamic linker's lock
     * (worker_dlinit.c); an object already loaded is not initialised again */
    void *loaded = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    int deferred = loaded ? 0 : dlinit_defer(path);
    void *h = loaded ? loaded : dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h && deferred == 1) dlinit_run(h);
    fflush(stdout);
    fflush(stderr);
    if (!h) {
        const char *why = dlerror();
        say("L\t");
        say_field(why ? why : "dlopen failed");
        say("\n");
        v[0] = CH_NATIVE_LOAD_FAILED;
    } else {
        v[0] = cell_failed ? CH_NATIVE_FAILED : CH_NATIVE_OK;
    }
    v[1] = registry.n - before;
    v[2] = run_id;
    *payload = report;
    *plen = report_len;
    return 0;
}
