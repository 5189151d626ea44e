/* Real device addresses in the interpreter, without a GPU: device, pinned and
 * managed buffers registered as the CUDA layer registers them, with fake
 * hooks standing in for the worker. Checks that the pointer word is the
 * address itself (arithmetic, comparison, %p, struct fields), that the host
 * may not dereference device memory, reads pinned memory directly, and that
 * managed memory is fetched on first touch after GPU work and flushed after
 * host use. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/lang/interp.h"
#include "runtime/hostmem/arena.h"

#include "runtime/base/cell_io.h"
#define DEV 0x600000001000ULL
#define MAN 0x600000200000ULL

static int fake_device[16];   /* what the "GPU" holds for DEV */
static float fake_managed[10]; /* ... and for MAN */
static int fetches, pushes;
static char out[4096];
static size_t outn;

static void io_stream(void *ctx, const char *name, const char *text, size_t len) {
    if (outn + len < sizeof out) {
        memcpy(out + outn, text, len);
        outn += len;
        out[outn] = 0;
    }
}
static void io_display(void *ctx, json_t *data, json_t *md, bool res) {}
static const cell_io_t io = {NULL, io_stream, io_display, NULL, NULL};

static int fetch(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t ml) {
    fetches++;
    if (addr != MAN || n > sizeof fake_managed) return snprintf(msg, ml, "bad fetch"), -1;
    memcpy(host, fake_managed, n);
    return 0;
}
static int push(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t ml) {
    pushes++;
    if (addr != MAN || n > sizeof fake_managed) return snprintf(msg, ml, "bad push"), -1;
    memcpy(fake_managed, host, n);
    return 0;
}
static int read_device(void *ctx, uint64_t addr, void *dst, uint64_t n) {
    if (addr < DEV || addr + n > DEV + sizeof fake_device) return -1;
    memcpy(dst, (char *)fake_device + (addr - DEV), n);
    return 0;
}

/* Runs a cell; returns its value's text/plain (or the error's evalue), static. */
static const char *run(interp_t *in, const char *code, int *ok) {
    static char result[1024];
    json_t *v = NULL;
    cell_error_t err = {0};
    outn = 0;
    out[0] = 0;
    int rc = interp_run(in, code, "In [1]", &io, &v, &err);
    *ok = rc == 0;
    if (rc == 0) {
        json_t *t = v ? json_object_get(v, "text/plain") : NULL;
        snprintf(result, sizeof result, "%s", t ? json_string_value(t) : "");
    } else {
        snprintf(result, sizeof result, "%s", err.evalue ? err.evalue : "");
    }
    json_decref(v);
    free(err.ename);
    free(err.evalue);
    json_decref(err.traceback);
    return result;
}

#define OK(code, want)                                                                 \
    do {                                                                               \
        int ok_;                                                                       \
        const char *r_ = run(in, code, &ok_);                                          \
        CHECK(ok_);                                                                    \
        if (want) CHECK_STR(r_, (const char *)(want));                                 \
        if (!ok_) fprintf(stderr, "  cell: %s\n  error: %s\n", code, r_);             \
    } while (0)
#define ERR(code, part)                                                                \
    do {                                                                               \
        int ok_;                                                                       \
        const char *r_ = run(in, code, &ok_);                                          \
        CHECK(!ok_ && strstr(r_, part));                                               \
        if (ok_ || !strstr(r_, part)) fprintf(stderr, "  cell: %s\n  got: %s\n", code, r_); \
    } while (0)

int main(void) {
    interp_t *in = interp_new();
    interp_hooks_t h = {NULL, NULL, NULL, fetch, read_device};
    interp_set_hooks(in, &h);
    for (int i = 0; i < 16; i++) fake_device[i] = 100 + i;

    /* device memory: the word is the address */
    CHECK(interp_buffer_new(in, INTERP_PLACE_DEVICE, DEV, NULL, sizeof fake_device, "cudaMalloc") == DEV);
    OK("int *d = (int *)0x600000001000ULL;", NULL);
    OK("printf(\"%p\\n\", d);", "");
    CHECK_STR(out, "0x600000001000\n");
    OK("(long)((char *)(d + 4) - (char *)d)", "(long) 16");
    OK("d + 4 > d", "(int) 1");
    OK("(unsigned long)(d + 3)", "(unsigned long) 105553116270604");
    ERR("int x = d[0];", "device pointer dereferenced on the host");
    ERR("d[1] = 3;", "device pointer dereferenced on the host");
    OK("d", "(int *) device, 16 elements: [100, 101, 102, …, 113, 114, 115]");
    OK("int *dend = d + 16; dend == d + 16", "(int) 1");
    /* a struct holding it shows the address, as the GPU sees it */
    OK("typedef struct { int width, height; int *elements; } Matrix; Matrix A = {4, 4, d}; A",
       "(Matrix) {width = 4, height = 4, elements = device 0x600000001000}");
    ERR("free(d);", "came from cudaMalloc; use cudaFree");

    /* managed memory: host reads and writes its copy, every check still on */
    float *host_copy = calloc(10, sizeof(float));
    CHECK(interp_buffer_new(in, INTERP_PLACE_MANAGED, MAN, host_copy, 10 * sizeof(float), "cudaMallocManaged") == MAN);
    OK("float *m = (float *)0x600000200000ULL; for (int i = 0; i < 10; i++) m[i] = i * 0.5f;", NULL);
    CHECK(fetches == 0); /* fresh: the host copy is current */
    CHECK(host_copy[9] == 4.5f);
    ERR("m[10] = 1;", "out-of-bounds write");
    ERR("float z = m[-1];", "out-of-bounds read");
    /* a launch: the host's changes go to the GPU first, then the GPU may write */
    char msg[256];
    CHECK(interp_managed_flush(in, push, NULL, msg, sizeof msg) == 0 && pushes == 1 && fake_managed[3] == 1.5f);
    interp_managed_device_wrote(in, 0);
    fake_managed[3] = 42.0f; /* the "kernel" wrote */
    OK("m[3]", "(float) 42");
    CHECK(fetches == 1);
    OK("m[4] + m[3]", "(float) 44"); /* current now: no second fetch */
    CHECK(fetches == 1);
    /* nothing touched since the last flush: nothing is pushed */
    CHECK(interp_managed_flush(in, push, NULL, msg, sizeof msg) == 0 && pushes == 1);
    /* a cached access path (a loop) still sees the next launch's results */
    interp_managed_device_wrote(in, 0);
    fake_managed[0] = 7.0f;
    OK("float s = 0; for (int i = 0; i < 10; i++) s += m[i]; s", "(float) 70");
    CHECK(fetches == 2);
    /* reading is not writing: nothing goes back */
    CHECK(interp_managed_flush(in, push, NULL, msg, sizeof msg) == 0 && pushes == 1);
    /* a write through a place that read before is seen, cached or not */
    interp_managed_device_wrote(in, 0);
    OK("float t = 0; for (int k = 0; k < 2; k++) for (int i = 0; i < 10; i++) { t += m[i]; if (k) m[i] = -1; }", NULL);
    CHECK(interp_managed_flush(in, push, NULL, msg, sizeof msg) == 0 && pushes == 2 && fake_managed[9] == -1.0f);
    /* a struct in managed memory holding a device pointer: stored as the address */
    OK("typedef struct Node { struct Node *next; int v; } Node;", NULL);
    OK("Node *n0 = (Node *)m; n0->next = (Node *)(m + 4); n0->v = 5; n0->next->v = 6; n0->next->next = 0;", NULL);
    OK("int total = 0; for (Node *p = n0; p; p = p->next) total += p->v; total", "(int) 11");
    OK("(unsigned long)n0->next == 0x600000200010UL", "(int) 1");
    OK("m", NULL);
    /* freed: every use says so */
    CHECK(interp_buffer_free(in, MAN, INTERP_PLACE_MANAGED) == 0);
    ERR("float y = m[0];", "managed memory that was freed");
    CHECK(interp_buffer_free(in, MAN, INTERP_PLACE_MANAGED) == -1);

    /* pinned memory: the host address is the device address */
    char *pin = arena_alloc(4096);
    uint64_t pa = (uint64_t)(uintptr_t)pin;
    CHECK(pa < (1ULL << 47));
    CHECK(interp_buffer_new(in, INTERP_PLACE_PINNED, pa, pin, 64, "cudaMallocHost") == pa);
    char cell[200];
    snprintf(cell, sizeof cell, "char *pp = (char *)%#llxULL; pp[63] = 9; pp[63]", (unsigned long long)pa);
    OK(cell, "(char) '\\t'");
    CHECK(pin[63] == 9);
    ERR("pp[64] = 1;", "out-of-bounds write");

    /* an address nobody allocated */
    ERR("int *u = (int *)0x7000000; int v = *u;", "not in any buffer icuda knows");
    ERR("int *z = 0; int w = z[2];", "NULL");

    interp_free(in);
    free(host_copy);
    return check_report();
}
