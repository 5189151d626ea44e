/* The raw driver API (libcuda.so.1 through dlopen, as the worker loads it):
 * the reference figures for bench/gpu_worker.c. Run by bench/gpu.sh. */
#include "bench/gpu_common.h"
#include "runtime/gpu/cuda_driver.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CK(x)                                                                  \
    do {                                                                       \
        CUresult r_ = (x);                                                     \
        if (r_) {                                                              \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, r_);  \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

int main(void) {
    const char *why;
    const cuda_driver_t *D = cuda_driver_load(&why);
    if (!D) {
        printf("raw: %s\n", why);
        return 0;
    }
    double t0 = bench_now();
    CK(D->cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(D->cuDeviceGet(&dev, 0));
    CK(D->cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(D->cuCtxSetCurrent(ctx));
    CUdeviceptr scratch;
    CK(D->cuMemAlloc(&scratch, 1));
    printf("raw: context creation            %8.1f ms\n", (bench_now() - t0) * 1e3);
    int major, minor;
    D->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    D->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    size_t n;
    double cms;
    void *img = bench_compile(major, minor, &n, &cms);
    t0 = bench_now();
    CUmodule mod;
    CUfunction fempty, fvec;
    CK(D->cuModuleLoadData(&mod, img));
    CK(D->cuModuleGetFunction(&fempty, mod, "empty"));
    CK(D->cuModuleGetFunction(&fvec, mod, "vecadd"));
    printf("raw: nvrtc compile %.1f ms + load %.1f ms\n", cms, (bench_now() - t0) * 1e3);

    /* launch overhead */
    for (int i = 0; i < 1000; i++) D->cuLaunchKernel(fempty, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
    CK(D->cuCtxSynchronize());
    t0 = bench_now();
    for (int i = 0; i < LAUNCHES; i++)
        D->cuLaunchKernel(fempty, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL);
    double tl = bench_now() - t0;
    CK(D->cuCtxSynchronize());
    double ts = bench_now() - t0;
    printf("raw: launch (host loop)          %8.2f us/launch (%.2f incl. sync)\n",
           tl / LAUNCHES * 1e6, ts / LAUNCHES * 1e6);

    /* copies: pageable = an unregistered shared mapping, pinned = registered */
    int fd = memfd_create("bench", 0);
    if (ftruncate(fd, COPY_BYTES) != 0) return 1;
    void *h = mmap(NULL, COPY_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    memset(h, 1, COPY_BYTES);
    CUdeviceptr d;
    CK(D->cuMemAlloc(&d, COPY_BYTES));
    for (int pinned = 0; pinned < 2; pinned++) {
        if (pinned) CK(D->cuMemHostRegister(h, COPY_BYTES, 0));
        double best_h2d = 1e9, best_d2h = 1e9;
        for (int k = 0; k < REPS; k++) {
            t0 = bench_now();
            CK(D->cuMemcpyHtoD(d, h, COPY_BYTES));
            double t1 = bench_now();
            CK(D->cuMemcpyDtoH(h, d, COPY_BYTES));
            double t2 = bench_now();
            if (t1 - t0 < best_h2d) best_h2d = t1 - t0;
            if (t2 - t1 < best_d2h) best_d2h = t2 - t1;
        }
        printf("raw: %-8s H2D %6.1f GB/s   D2H %6.1f GB/s  (256 MiB, best of %d)\n",
               pinned ? "pinned" : "pageable", COPY_BYTES / best_h2d / 1e9,
               COPY_BYTES / best_d2h / 1e9, REPS);
    }
    CK(D->cuMemHostUnregister(h));
    CK(D->cuMemFree(d));

    /* vector add */
    long N = VEC_N;
    CUdeviceptr x, y, z;
    CK(D->cuMemAlloc(&x, N * 8));
    CK(D->cuMemAlloc(&y, N * 8));
    CK(D->cuMemAlloc(&z, N * 8));
    CK(D->cuMemsetD8(x, 0, N * 8));
    CK(D->cuMemsetD8(y, 0, N * 8));
    CUevent e0, e1;
    CK(D->cuEventCreate(&e0, 0));
    CK(D->cuEventCreate(&e1, 0));
    void *args[4] = {&z, &x, &y, &N};
    unsigned grid = (unsigned)((N + 255) / 256);
    float best = 1e9;
    for (int k = 0; k < REPS + 1; k++) {
        CK(D->cuEventRecord(e0, 0));
        CK(D->cuLaunchKernel(fvec, grid, 1, 1, 256, 1, 1, 0, 0, args, NULL));
        CK(D->cuEventRecord(e1, 0));
        CK(D->cuEventSynchronize(e1));
        float ms;
        CK(D->cuEventElapsedTime(&ms, e0, e1));
        if (k && ms < best) best = ms;
    }
    printf("raw: vecadd 2e8 doubles          %8.1f GB/s  (%.3f ms)\n", 3.0 * 8 * N / best / 1e6,
           best);
    return 0;
}
