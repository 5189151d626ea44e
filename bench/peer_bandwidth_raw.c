/* Peer copy bandwidth with the driver API alone: the reference that
 * bench/peer_bandwidth.py compares icuda's cells with. Between GPUs 0 and
 * 1, both ways, with peer access enabled both ways: a buffer of SIZE MiB on
 * each, cuMemcpyPeerAsync ITER times on a stream of the source GPU between
 * two events (after two copies to warm up), and the same with the
 * synchronous cuMemcpyPeer; the best of REPS runs.
 *
 *   build/bench/peer_bandwidth_raw [SIZE_MIB=256] [ITER=20] [REPS=5]
 *
 * Prints one line per direction and kind:
 *   raw async 0->1: 389.6 GB/s
 * The driver is loaded with dlopen (libcuda.so.1), so the program builds
 * where only the toolkit's headers are. */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* cuda.h's macros give each name its current entry point (cuMemAlloc_v2 ...) */
#define DRIVER(X)                                                                                              \
    X(cuInit) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain)               \
    X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuMemAlloc) X(cuMemsetD8) X(cuStreamCreate) X(cuEventCreate)       \
    X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime) X(cuDeviceCanAccessPeer)                      \
    X(cuCtxEnablePeerAccess) X(cuMemcpyPeerAsync) X(cuMemcpyPeer)
#define FIELD(f) static __typeof__(&f) p_##f;
DRIVER(FIELD)
#define STR_(x) #x
#define STR(x) STR_(x)
#define LOAD(f)                                                                                                \
    if (!(*(void **)&p_##f = dlsym(h, STR(f)))) {                                                              \
        fprintf(stderr, "libcuda.so.1 lacks %s\n", STR(f));                                                    \
        exit(2);                                                                                               \
    }

static void load_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) {
        fprintf(stderr, "no CUDA driver: %s\n", dlerror());
        exit(2);
    }
    DRIVER(LOAD)
}

#define CK(x)                                                                                                  \
    do {                                                                                                       \
        CUresult r_ = (x);                                                                                     \
        if (r_ != CUDA_SUCCESS) {                                                                              \
            const char *s_ = NULL;                                                                             \
            p_cuGetErrorString(r_, &s_);                                                                         \
            fprintf(stderr, "%s: %s\n", #x, s_ ? s_ : "?");                                                    \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256;
    int iters = argc > 2 ? atoi(argv[2]) : 20, reps = argc > 3 ? atoi(argv[3]) : 5;
    size_t bytes = mib << 20;
    load_driver();
    CK(p_cuInit(0));
    int n = 0;
    CK(p_cuDeviceGetCount(&n));
    if (n < 2) {
        fprintf(stderr, "needs two GPUs: this machine has %d\n", n);
        return 2;
    }
    CUdevice dev[2];
    CUcontext ctx[2];
    CUdeviceptr buf[2];
    CUstream st[2];
    CUevent e0[2], e1[2];
    for (int d = 0; d < 2; d++) {
        CK(p_cuDeviceGet(&dev[d], d));
        CK(p_cuDevicePrimaryCtxRetain(&ctx[d], dev[d]));
        CK(p_cuCtxSetCurrent(ctx[d]));
        CK(p_cuMemAlloc(&buf[d], bytes));
        CK(p_cuMemsetD8(buf[d], (unsigned char)(d + 1), bytes));
        CK(p_cuStreamCreate(&st[d], CU_STREAM_NON_BLOCKING));
        CK(p_cuEventCreate(&e0[d], CU_EVENT_DEFAULT));
        CK(p_cuEventCreate(&e1[d], CU_EVENT_DEFAULT));
    }
    int can01 = 0, can10 = 0;
    CK(p_cuDeviceCanAccessPeer(&can01, dev[0], dev[1]));
    CK(p_cuDeviceCanAccessPeer(&can10, dev[1], dev[0]));
    if (can01 && can10) {
        CK(p_cuCtxSetCurrent(ctx[0]));
        CK(p_cuCtxEnablePeerAccess(ctx[1], 0));
        CK(p_cuCtxSetCurrent(ctx[1]));
        CK(p_cuCtxEnablePeerAccess(ctx[0], 0));
    }
    printf("peer access: %s; %zu MiB x %d copies, best of %d\n", can01 && can10 ? "yes" : "no", mib, iters, reps);
    for (int s = 0; s < 2; s++) {
        int d = 1 - s;
        CK(p_cuCtxSetCurrent(ctx[s]));
        double best_async = 0, best_sync = 0;
        for (int r = 0; r < reps; r++) {
            for (int w = 0; w < 2; w++) CK(p_cuMemcpyPeerAsync(buf[d], ctx[d], buf[s], ctx[s], bytes, st[s]));
            CK(p_cuEventRecord(e0[s], st[s]));
            for (int i = 0; i < iters; i++) CK(p_cuMemcpyPeerAsync(buf[d], ctx[d], buf[s], ctx[s], bytes, st[s]));
            CK(p_cuEventRecord(e1[s], st[s]));
            CK(p_cuEventSynchronize(e1[s]));
            float ms = 0;
            CK(p_cuEventElapsedTime(&ms, e0[s], e1[s]));
            double gbs = (double)iters * (double)bytes / (ms * 1e6);
            if (gbs > best_async) best_async = gbs;
            /* the synchronous form, timed on the host as a cell's loop of them is */
            CK(p_cuCtxSynchronize());
            double t0 = now_ms();
            for (int i = 0; i < iters; i++) CK(p_cuMemcpyPeer(buf[d], ctx[d], buf[s], ctx[s], bytes));
            /* a device-to-device copy does not wait on the host: the time ends when both GPUs are done */
            CK(p_cuCtxSynchronize());
            CK(p_cuCtxSetCurrent(ctx[d]));
            CK(p_cuCtxSynchronize());
            CK(p_cuCtxSetCurrent(ctx[s]));
            double t = now_ms() - t0;
            gbs = (double)iters * (double)bytes / (t * 1e6);
            if (gbs > best_sync) best_sync = gbs;
        }
        printf("raw async %d->%d: %.1f GB/s\n", s, d, best_async);
        printf("raw sync %d->%d: %.1f GB/s\n", s, d, best_sync);
    }
    return 0;
}
