/* %profile's trace in the GPU worker through gpu_client (runtime/gpu/
 * gpu_profile.c, worker_profile.c): on a machine without a driver, checks
 * that starting a profile fails cleanly and skips the rest; on a GPU, that a
 * trace of 3 launches, 2 copies and a memset holds exactly those with their
 * configurations, bytes and times, that CUPTI lets go at the stop and can
 * attach again, that a fault while profiling keeps what was recorded and the
 * worker recovers, and that a missing CUPTI is a clear error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/gpu/client/gpu_profile.h"
#include "runtime/hostmem/arena.h"
#include "tests/unit/check.h"

#include <nvrtc.h>
#include <stdlib.h>
#include <unistd.h>

#define GPU_TESTS 6 /* groups skipped without a GPU */

static const char *src =
    "extern \"C\" __global__ void vecadd(double *z, const double *x, const double *y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = x[i] + y[i]; }\n"
    "__global__ void twice(float *x) { extern __shared__ float s[]; s[threadIdx.x] = x[threadIdx.x];\n"
    "  __syncthreads(); x[threadIdx.x] = 2 * s[threadIdx.x]; }\n"
    "extern \"C\" __global__ void bad_write(int *p) { p[threadIdx.x] = 1; }\n";

static void *compile(int major, int minor, size_t *n) {
    nvrtcProgram p;
    if (nvrtcCreateProgram(&p, src, "t.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return NULL;
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char *opts[] = {arch};
    if (nvrtcCompileProgram(p, 1, opts) != NVRTC_SUCCESS) {
        nvrtcDestroyProgram(&p);
        return NULL;
    }
    nvrtcGetCUBINSize(p, n);
    void *img = malloc(*n);
    nvrtcGetCUBIN(p, img);
    nvrtcDestroyProgram(&p);
    return img;
}

static gpu_client_t *client(void) {
    gpu_client_config_t cfg = {0};
    if (!getenv("ICUDA_WORKER") && access("build/icuda-worker", X_OK) == 0) cfg.worker_path = "build/icuda-worker";
    return gpu_client_new(&cfg);
}

static size_t count(const gpu_profile_result_t *res, int kind, int copy) {
    size_t n = 0;
    for (size_t i = 0; i < res->n; i++)
        if (res->acts[i].r.kind == kind && (!copy || res->acts[i].r.copy == copy)) n++;
    return n;
}

int main(void) {
    CHECK(arena_init((size_t)8 << 30) == 0);
    gpu_client_t *c = client();
    CHECK(c != NULL);
    char msg[1024];
    gpu_profile_t *p = NULL;
    if (gpu_client_wait_ready(c) != 0) {
        int r = gpu_profile_start(c, 0, &p, msg, sizeof msg);
        CHECK(r != 0 && p == NULL && msg[0]); /* the worker's own "no driver" */
        gpu_client_free(c);
        CHECK_SKIP(GPU_TESTS, "no GPU");
        return check_report();
    }
    gpu_props_t P;
    CHECK(gpu_client_device_props(c, 0, &P) == 0);
    size_t img_n = 0;
    void *img = compile(P.major, P.minor, &img_n);
    gpu_handle_t mod = 0, fvec = 0, ftwice = 0, fbad = 0;
    CHECK(img && gpu_client_module_load(c, img, img_n, &mod, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "vecadd", &fvec, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "_Z5twicePf", &ftwice, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "bad_write", &fbad, NULL) == 0);

    int n = 1 << 20;
    size_t bytes = (size_t)n * sizeof(double);
    double *hx = arena_alloc(bytes), *hz = arena_alloc(bytes);
    CUdeviceptr dx, dz;
    CHECK(gpu_client_malloc(c, &dx, bytes) == 0 && gpu_client_malloc(c, &dz, bytes) == 0);
    void *args[4] = {&dz, &dx, &dx, &n};
    uint16_t sz[4] = {8, 8, 8, 4};
    uint8_t isp[4] = {1, 2, 2, 0};
    unsigned grid[3] = {(unsigned)(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};

    /* 1 three launches, two copies, a memset: exactly those */
    CHECK(gpu_profile_start(c, 0, &p, msg, sizeof msg) == 0 && p);
    if (!p) fprintf(stderr, "profile start: %s\n", msg);
    CHECK(gpu_client_memcpy_htod(c, dx, hx, bytes, 0, false) == 0);
    for (int k = 0; k < 3; k++) CHECK(gpu_client_launch(c, fvec, grid, block, 0, 0, 4, args, sz, isp) == 0);
    CHECK(gpu_client_memset(c, dz, 0, 4096, 0, false) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dz, bytes, 0, false) == 0);
    gpu_profile_result_t res;
    CHECK(gpu_profile_stop(c, p, &res, msg, sizeof msg) == 0);
    CHECK(res.n == 6 && !res.worker_died && res.detached && !res.left_out && !res.dropped);
    CHECK(count(&res, PROF_KERNEL, 0) == 3 && count(&res, PROF_COPY, PROF_HTOD) == 1 &&
          count(&res, PROF_COPY, PROF_DTOH) == 1 && count(&res, PROF_MEMSET, 0) == 1);
    CHECK(res.ndefault >= 1);
    for (size_t i = 0; i < res.n; i++) {
        const prof_record_t *r = &res.acts[i].r;
        CHECK(r->end > r->start && r->device == 0);
        CHECK(i == 0 || r->start >= res.acts[i - 1].r.start); /* in time order */
        CHECK(res.ndefault >= 1 && r->stream == res.default_stream[0].stream);
        if (r->kind == PROF_KERNEL) {
            CHECK(res.acts[i].name && !strcmp(res.acts[i].name, "vecadd"));
            CHECK(r->grid[0] == (int)grid[0] && r->grid[1] == 1 && r->block[0] == 256 && r->block[2] == 1);
            CHECK(r->registers > 0 && r->static_shared == 0 && r->dynamic_shared == 0);
        } else if (r->kind == PROF_COPY) {
            CHECK(r->bytes == bytes);
        } else {
            CHECK(r->bytes == 4096 && r->value == 0);
        }
    }
    fprintf(stderr, "trace of 6: first at %llu ns, CUPTI default stream %u\n",
            (unsigned long long)res.acts[0].r.start, res.default_stream[0].stream);
    gpu_profile_result_free(&res);

    /* 2 detached between profiles: work after a stop is not recorded, and a
     * second profile attaches again and sees its own work alone (a C++
     * kernel by its lowered name, dynamic shared memory, another stream) */
    CHECK(gpu_client_launch(c, fvec, grid, block, 0, 0, 4, args, sz, isp) == 0);
    CHECK(gpu_client_sync(c) == 0);
    gpu_handle_t s = 0;
    CHECK(gpu_client_stream_create(c, &s, 1) == 0);
    CHECK(gpu_profile_start(c, 0, &p, msg, sizeof msg) == 0 && p);
    unsigned g1[3] = {1, 1, 1}, b32[3] = {32, 1, 1};
    void *targs[1] = {&dz};
    uint16_t tsz[1] = {8};
    uint8_t tisp[1] = {1};
    CHECK(gpu_client_launch(c, ftwice, g1, b32, 128, s, 1, targs, tsz, tisp) == 0);
    CHECK(gpu_profile_stop(c, p, &res, msg, sizeof msg) == 0);
    CHECK(res.n == 1 && res.acts[0].r.kind == PROF_KERNEL && res.detached);
    if (res.n == 1) {
        CHECK(!strcmp(res.acts[0].name, "_Z5twicePf"));
        CHECK(res.acts[0].r.dynamic_shared == 128 && res.acts[0].r.block[0] == 32);
        CHECK(res.acts[0].r.stream != res.default_stream[0].stream);
    }
    gpu_profile_result_free(&res);

    /* 3 nothing at all */
    CHECK(gpu_profile_start(c, 0, &p, msg, sizeof msg) == 0 && p);
    CHECK(gpu_profile_stop(c, p, &res, msg, sizeof msg) == 0 && res.n == 0 && res.detached);
    gpu_profile_result_free(&res);

    /* 4 the bound: records past it are counted, not kept */
    CHECK(gpu_profile_start(c, 2, &p, msg, sizeof msg) == 0 && p);
    for (int k = 0; k < 5; k++) gpu_client_launch(c, fvec, grid, block, 0, 0, 4, args, sz, isp);
    CHECK(gpu_profile_stop(c, p, &res, msg, sizeof msg) == 0 && res.n == 2 && res.left_out == 3);
    gpu_profile_result_free(&res);

    /* 5 a fault while profiling: what came before it is kept, the worker is
     * replaced, the next profile works */
    CHECK(gpu_profile_start(c, 0, &p, msg, sizeof msg) == 0 && p);
    CHECK(gpu_client_memcpy_htod(c, dx, hx, bytes, 0, false) == 0);
    CUdeviceptr wild = 16; /* no memory there: passed as it is */
    void *bargs[1] = {&wild};
    uint8_t bisp[1] = {0};
    CHECK(gpu_client_launch(c, fbad, g1, b32, 0, 0, 1, bargs, tsz, bisp) == 0);
    int r = gpu_profile_stop(c, p, &res, msg, sizeof msg);
    fprintf(stderr, "fault while profiling: %s (%d), %zu records kept\n", gpu_client_error_name(r), r, res.n);
    CHECK(r == CUDA_ERROR_ILLEGAL_ADDRESS && res.worker_died);
    CHECK(count(&res, PROF_COPY, PROF_HTOD) == 1);
    gpu_profile_result_free(&res);
    CHECK(gpu_client_restart(c, NULL) == 0);
    CHECK(gpu_profile_start(c, 0, &p, msg, sizeof msg) == 0 && p);
    CHECK(gpu_client_launch(c, fvec, grid, block, 0, 0, 4, args, sz, isp) == 0);
    CHECK(gpu_profile_stop(c, p, &res, msg, sizeof msg) == 0 && res.n == 1);
    gpu_profile_result_free(&res);
    gpu_client_free(c);

    /* 6 no CUPTI: a clear reason, and the worker goes on */
    setenv("ICUDA_CUPTI", "/nonexistent/libcupti.so.13", 1);
    c = client();
    CHECK(gpu_client_wait_ready(c) == 0);
    r = gpu_profile_start(c, 0, &p, msg, sizeof msg);
    fprintf(stderr, "without CUPTI: %s\n", msg);
    CHECK(r == CUDA_ERROR_NOT_FOUND && !p && strstr(msg, "libcupti") && strstr(msg, "/nonexistent"));
    CHECK(gpu_client_sync(c) == 0);
    gpu_client_free(c);
    unsetenv("ICUDA_CUPTI");
    free(img);
    return check_report();
}
