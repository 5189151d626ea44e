/* All-reduce bus bandwidth as nccl-tests' all_reduce_perf measures it, as a
 * plain C program: the reference bench/nccl_allreduce.py compares icuda's
 * cells with. One process, every GPU (or the first NGPUS), a communicator
 * of them (ncclCommInitAll), float buffers of SIZE MiB out of place, sum;
 * WARMUP all-reduces, then ITER timed on the host between stream
 * synchronisations, as all_reduce_perf does; the best of REPS runs.
 *
 *   build/bench/nccl_allreduce_raw [SIZE_MIB=256] [ITER=20] [REPS=5] [NGPUS=all] [WARMUP=5]
 *
 * algbw = bytes / time per all-reduce; busbw = algbw * 2 (n - 1) / n.
 * NCCL is loaded with dlopen (libnccl.so.2), as icuda's worker does, so
 * only nccl.h is needed to build it. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CUCK(x)                                                                                                \
    do {                                                                                                       \
        cudaError_t e_ = (x);                                                                                  \
        if (e_ != cudaSuccess) {                                                                               \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                           \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)
#define NCK(x)                                                                                                 \
    do {                                                                                                       \
        ncclResult_t r_ = (x);                                                                                 \
        if (r_ != ncclSuccess) {                                                                               \
            fprintf(stderr, "%s: NCCL error %d\n", #x, (int)r_);                                               \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

static ncclResult_t (*init_all)(ncclComm_t *, int, const int *);
static ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
static ncclResult_t (*group_start)(void), (*group_end)(void), (*destroy)(ncclComm_t);

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256;
    int iters = argc > 2 ? atoi(argv[2]) : 20, reps = argc > 3 ? atoi(argv[3]) : 5;
    int want = argc > 4 ? atoi(argv[4]) : 0, warmup = argc > 5 ? atoi(argv[5]) : 5;
    void *lib = dlopen("libnccl.so.2", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "libnccl.so.2: %s\n", dlerror());
        return 2;
    }
    *(void **)&init_all = dlsym(lib, "ncclCommInitAll");
    *(void **)&all_reduce = dlsym(lib, "ncclAllReduce");
    *(void **)&group_start = dlsym(lib, "ncclGroupStart");
    *(void **)&group_end = dlsym(lib, "ncclGroupEnd");
    *(void **)&destroy = dlsym(lib, "ncclCommDestroy");
    if (!init_all || !all_reduce || !group_start || !group_end || !destroy) {
        fprintf(stderr, "libnccl.so.2 lacks a function this program needs\n");
        return 2;
    }
    int n = 0;
    CUCK(cudaGetDeviceCount(&n));
    if (want > 0 && want < n) n = want;
    if (n > 16) n = 16;
    size_t bytes = mib << 20, count = bytes / sizeof(float);
    ncclComm_t comms[16];
    float *send[16], *recv[16];
    cudaStream_t st[16];
    NCK(init_all(comms, n, NULL));
    for (int d = 0; d < n; d++) {
        CUCK(cudaSetDevice(d));
        CUCK(cudaMalloc((void **)&send[d], bytes));
        CUCK(cudaMalloc((void **)&recv[d], bytes));
        CUCK(cudaMemset(send[d], 0, bytes));
        CUCK(cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking));
    }
    double best = 1e300;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < warmup + iters; i++) {
            if (i == warmup) { /* all_reduce_perf: the warm-up finished, then the clock */
                for (int d = 0; d < n; d++) {
                    CUCK(cudaSetDevice(d));
                    CUCK(cudaStreamSynchronize(st[d]));
                }
            }
            static double t0;
            if (i == warmup) t0 = now_ms();
            NCK(group_start());
            for (int d = 0; d < n; d++) NCK(all_reduce(send[d], recv[d], count, ncclFloat, ncclSum, comms[d], st[d]));
            NCK(group_end());
            if (i == warmup + iters - 1) {
                for (int d = 0; d < n; d++) {
                    CUCK(cudaSetDevice(d));
                    CUCK(cudaStreamSynchronize(st[d]));
                }
                double ms = (now_ms() - t0) / iters;
                if (ms < best) best = ms;
            }
        }
    }
    double algbw = (double)bytes / (best * 1e6), busbw = algbw * 2.0 * (n - 1) / n;
    printf("raw all-reduce: %d GPUs, %zu MiB floats, %d iterations, best of %d: %.3f ms, algbw %.1f GB/s, busbw %.1f "
           "GB/s\n", n, mib, iters, reps, best, algbw, busbw);
    for (int d = 0; d < n; d++) destroy(comms[d]);
    return 0;
}
