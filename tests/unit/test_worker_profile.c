/* runtime/gpu/worker/worker_profile.c called directly, as the worker's serve()
 * does, with no worker and no context: every way a profile cannot start is
 * an answer with a reason, never a crash. With CUPTI present but no driver
 * (CI), CUPTI's refusal is that reason; with a driver, a profile of nothing
 * starts and stops clean. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/gpu/profile_wire.h"
#include "runtime/gpu/worker/worker_profile.h"
#include "tests/unit/check.h"

#include <stdlib.h>

static _Alignas(64) unsigned char mem[1 << 20];

static int serve(int op, void *blob, size_t size, uint64_t v[4], char *msg, size_t ml) {
    ch_cmd_t c;
    memset(&c, 0, sizeof c);
    c.op = (uint16_t)op;
    CUcontext ctxs[2] = {NULL, NULL};
    memset(v, 0, 4 * sizeof *v);
    return worker_profile_serve(&c, NULL, ctxs, 2, 0, blob, size, v, msg, ml);
}

int main(void) {
    uint64_t v[4];
    char msg[1024];
    prof_blob_t *b = (prof_blob_t *)mem;

    /* a stop with no profile */
    CHECK(serve(CH_PROFILE_STOP, NULL, 0, v, msg, sizeof msg) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(strstr(msg, "no profile is running") != NULL);

    /* no CUPTI where ICUDA_CUPTI points: the reason names the place */
    setenv("ICUDA_CUPTI", "/nonexistent/libcupti.so.13", 1);
    int r = serve(CH_PROFILE_START, mem, sizeof mem, v, msg, sizeof msg);
    CHECK(r == CUDA_ERROR_NOT_FOUND);
    CHECK(strstr(msg, "libcupti.so.13") && strstr(msg, "ICUDA_CUPTI=/nonexistent/libcupti.so.13"));
    unsetenv("ICUDA_CUPTI");

    /* a record buffer that is not one */
    r = serve(CH_PROFILE_START, NULL, 0, v, msg, sizeof msg);
    if (r == CUDA_ERROR_NOT_FOUND) { /* no CUPTI in the toolkit or on the path either */
        fprintf(stderr, "no CUPTI here: %s\n", msg);
        CHECK_SKIP(3, "no CUPTI library");
        return check_report();
    }
    CHECK(r == CUDA_ERROR_INVALID_VALUE && strstr(msg, "not a valid arena range"));
    b->magic = PROF_MAGIC;
    b->cap = 1u << 30; /* more slots than the range holds */
    b->names_cap = 4096;
    CHECK(serve(CH_PROFILE_START, mem, sizeof mem, v, msg, sizeof msg) == CUDA_ERROR_INVALID_VALUE);

    /* a real start: CUPTI refuses without a driver, or a profile of nothing */
    b->cap = 100;
    r = serve(CH_PROFILE_START, mem, sizeof mem, v, msg, sizeof msg);
    fprintf(stderr, "start without a context: %d %s\n", r, msg);
    if (r) {
        CHECK(r == CUDA_ERROR_NOT_SUPPORTED && strstr(msg, "CUPTI cannot trace GPU activity") &&
              strstr(msg, "CUPTI error"));
        CHECK(serve(CH_PROFILE_STOP, NULL, 0, v, msg, sizeof msg) == CUDA_ERROR_INVALID_HANDLE);
    } else {
        CHECK(serve(CH_PROFILE_START, mem, sizeof mem, v, msg, sizeof msg) == CUDA_ERROR_NOT_PERMITTED &&
              strstr(msg, "nested"));
        CHECK(serve(CH_PROFILE_STOP, NULL, 0, v, msg, sizeof msg) == CUDA_SUCCESS && v[0] == 0 && v[3] == 1);
    }
    return check_report();
}
