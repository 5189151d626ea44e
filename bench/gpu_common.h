/* Shared by bench/gpu_raw.c and bench/gpu_worker.c: the kernels, NVRTC, a clock. */
#ifndef ICUDA_BENCH_GPU_COMMON_H
#define ICUDA_BENCH_GPU_COMMON_H
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *bench_src =
    "extern \"C\" __global__ void empty(void) { }\n"
    "extern \"C\" __global__ void vecadd(double *z, const double *x, const double *y, long n) {\n"
    "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) z[i] = x[i] + y[i]; }\n";

#define LAUNCHES 100000
#define COPY_BYTES ((size_t)256 << 20)
#define VEC_N 200000000L
#define REPS 5

static double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *bench_compile(int major, int minor, size_t *n, double *ms) {
    double t0 = bench_now();
    nvrtcProgram p;
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char *opts[] = {arch};
    if (nvrtcCreateProgram(&p, bench_src, "b.cu", 0, NULL, NULL) ||
        nvrtcCompileProgram(p, 1, opts)) {
        fprintf(stderr, "nvrtc failed\n");
        exit(1);
    }
    nvrtcGetCUBINSize(p, n);
    void *img = malloc(*n);
    nvrtcGetCUBIN(p, img);
    nvrtcDestroyProgram(&p);
    if (ms) *ms = (bench_now() - t0) * 1e3;
    return img;
}
#endif
