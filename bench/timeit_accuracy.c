/* The reference for %timeit's accuracy (target: within 2% of a raw C
 * event measurement): the raw driver API (libcuda.so.1 through dlopen, as
 * the worker loads it) times one kernel the way %timeit does: one warm-up
 * launch, n chosen 1, 2, 5, 10, ... until a repeat of n launches takes 0.2 s,
 * then 7 repeats of n launches, each bracketed by events on the default
 * stream; the mean over the repeats of the time per launch.
 *
 * The kernel is a chain of dependent FMAs whose length sets its duration;
 * the lengths are calibrated here for about 10 us, 100 us and 1.5 ms, and
 * printed, one line per kernel, for bench/timeit_accuracy.py to time the
 * same launches in icuda:
 *     RESULT <target_us> <iters> <grid> <block> <n> <mean_s> <std_s> <min_s>
 * Usage: timeit_accuracy [target_us ...]   (default 10 100 1500) */
#include "runtime/gpu/cuda_driver.h"

#include <math.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

/* The same source icuda compiles in bench/timeit_accuracy.py (there without
 * extern "C": the name does not change the code). */
static const char *src =
    "extern \"C\" __global__ void busy(float *out, int iters) {\n"
    "    float a = threadIdx.x * 1e-3f;\n"
    "    for (int i = 0; i < iters; i++) a = fmaf(a, 1.0001f, 1e-7f);\n"
    "    if (a == 12345.0f) out[0] = a;\n"
    "}\n";

#define CK(x)                                                                  \
    do {                                                                       \
        CUresult r_ = (x);                                                     \
        if (r_) {                                                              \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, r_);  \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static const cuda_driver_t *D;
static CUfunction fn;
static CUevent e0, e1;
static CUdeviceptr out;
static unsigned grid, block = 256;

static void launch(int iters) {
    void *args[] = {&out, &iters};
    CK(D->cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, 0, args, NULL));
}

/* Seconds for n launches, bracketed by events on the default stream. */
static double repeat(int iters, long n) {
    CK(D->cuEventRecord(e0, 0));
    for (long i = 0; i < n; i++) launch(iters);
    CK(D->cuEventRecord(e1, 0));
    CK(D->cuEventSynchronize(e1));
    float ms;
    CK(D->cuEventElapsedTime(&ms, e0, e1));
    return ms * 1e-3;
}

static long next_n(long n) {
    long d = n;
    while (d >= 10) d /= 10;
    return d == 2 ? n / 2 * 5 : n * 2;
}

int main(int argc, char **argv) {
    const char *why;
    D = cuda_driver_load(&why);
    if (!D) {
        printf("timeit_accuracy: %s\n", why);
        return 0;
    }
    CK(D->cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(D->cuDeviceGet(&dev, 0));
    CK(D->cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(D->cuCtxSetCurrent(ctx));
    int major, minor, sms;
    char name[256];
    D->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    D->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    D->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    D->cuDeviceGetName(name, sizeof name, dev);
    grid = (unsigned)sms * 4;

    /* icuda's default options (runtime/device/device_cell.c engine_options) */
    nvrtcProgram p;
    char arch[64];
    snprintf(arch, sizeof arch, "-arch=sm_%d%d", major, minor);
    const char *opts[] = {arch, "-std=c++17"};
    if (nvrtcCreateProgram(&p, src, "busy.cu", 0, NULL, NULL) || nvrtcCompileProgram(p, 2, opts)) {
        fprintf(stderr, "nvrtc failed\n");
        return 1;
    }
    size_t n;
    nvrtcGetCUBINSize(p, &n);
    void *img = malloc(n);
    nvrtcGetCUBIN(p, img);
    nvrtcDestroyProgram(&p);
    CUmodule mod;
    CK(D->cuModuleLoadData(&mod, img));
    free(img);
    CK(D->cuModuleGetFunction(&fn, mod, "busy"));
    CK(D->cuMemAlloc(&out, 4));
    CK(D->cuEventCreate(&e0, 0));
    CK(D->cuEventCreate(&e1, 0));
    printf("device: %s (sm_%d%d, %d SMs); busy<<<%u, %u>>>(out, iters)\n", name, major, minor, sms, grid, block);

    /* calibration: time per iteration of the chain at this launch shape */
    int cal = 100000;
    launch(cal);
    CK(D->cuCtxSynchronize());
    double per_iter = repeat(cal, 20) / 20 / cal;

    double targets[16] = {10, 100, 1500};
    int nt = 3;
    if (argc > 1) {
        nt = 0;
        for (int i = 1; i < argc && nt < 16; i++) targets[nt++] = atof(argv[i]);
    }
    for (int t = 0; t < nt; t++) {
        int iters = (int)fmax(1, round(targets[t] * 1e-6 / per_iter));
        launch(iters); /* warm-up */
        CK(D->cuCtxSynchronize());
        long runs = 1;
        while (repeat(iters, runs) < 0.2) runs = next_n(runs);
        double x[7], mean = 0, sd = 0, mn = 1e30;
        for (int r = 0; r < 7; r++) {
            x[r] = repeat(iters, runs) / (double)runs;
            mean += x[r] / 7;
            if (x[r] < mn) mn = x[r];
        }
        for (int r = 0; r < 7; r++) sd += (x[r] - mean) * (x[r] - mean) / 7;
        sd = sqrt(sd);
        printf("raw events: ~%g us kernel (iters %d): %.3f us +- %.3f us per launch (7 repeats of %ld), min %.3f us\n",
               targets[t], iters, mean * 1e6, sd * 1e6, runs, mn * 1e6);
        printf("RESULT %g %d %u %u %ld %.9e %.9e %.9e\n", targets[t], iters, grid, block, runs, mean, sd, mn);
    }
    return 0;
}
