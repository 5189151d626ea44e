/* The same figures as bench/gpu_raw.c, through gpu_client and icuda-worker,
 * plus the worker's start and restart times. Run by bench/gpu.sh. */
#include "bench/gpu_common.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/hostmem/arena.h"

#include <string.h>

#define CK(x)                                                                  \
    do {                                                                       \
        int r_ = (x);                                                          \
        if (r_) {                                                              \
            fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #x,       \
                    gpu_client_error_name(r_));                                \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

int main(void) {
    arena_init((size_t)64 << 30);
    double t0 = bench_now();
    gpu_client_config_t cfg = {0};
    gpu_client_t *c = gpu_client_new(&cfg);
    double tnew = bench_now() - t0;
    int r = gpu_client_wait_ready(c);
    if (r) {
        gpu_fault_t f;
        gpu_client_fault(c, &f);
        printf("worker: %s\n", f.message);
        return 0;
    }
    printf("worker: start (spawn %.1f ms, ready)  %8.1f ms\n", tnew * 1e3,
           (bench_now() - t0) * 1e3);
    gpu_props_t P;
    CK(gpu_client_device_props(c, 0, &P));
    printf("worker: device %s, sm_%d%d\n", P.name, P.major, P.minor);
    size_t n;
    double cms;
    void *img = bench_compile(P.major, P.minor, &n, &cms);
    t0 = bench_now();
    gpu_handle_t mod, fempty, fvec;
    CK(gpu_client_module_load(c, img, n, &mod, NULL));
    CK(gpu_client_get_function(c, mod, "empty", &fempty, NULL));
    CK(gpu_client_get_function(c, mod, "vecadd", &fvec, NULL));
    printf("worker: nvrtc compile %.1f ms + load %.1f ms\n", cms, (bench_now() - t0) * 1e3);

    unsigned one[3] = {1, 1, 1};
    for (int i = 0; i < 1000; i++) gpu_client_launch(c, fempty, one, one, 0, 0, 0, NULL, NULL, NULL);
    CK(gpu_client_sync(c));
    t0 = bench_now();
    for (int i = 0; i < LAUNCHES; i++)
        gpu_client_launch(c, fempty, one, one, 0, 0, 0, NULL, NULL, NULL);
    double tl = bench_now() - t0;
    CK(gpu_client_sync(c));
    double ts = bench_now() - t0;
    printf("worker: launch (host loop)       %8.2f us/launch (%.2f incl. sync)\n",
           tl / LAUNCHES * 1e6, ts / LAUNCHES * 1e6);

    void *h = arena_alloc(COPY_BYTES);
    memset(h, 1, COPY_BYTES);
    CUdeviceptr d;
    CK(gpu_client_malloc(c, &d, COPY_BYTES));
    for (int pinned = 0; pinned < 2; pinned++) {
        if (pinned) CK(gpu_client_host_register(c, h, COPY_BYTES, 0, NULL));
        double best_h2d = 1e9, best_d2h = 1e9;
        for (int k = 0; k < REPS; k++) {
            t0 = bench_now();
            CK(gpu_client_memcpy_htod(c, d, h, COPY_BYTES, 0, false));
            double t1 = bench_now();
            CK(gpu_client_memcpy_dtoh(c, h, d, COPY_BYTES, 0, false));
            double t2 = bench_now();
            if (t1 - t0 < best_h2d) best_h2d = t1 - t0;
            if (t2 - t1 < best_d2h) best_d2h = t2 - t1;
        }
        printf("worker: %-8s H2D %6.1f GB/s   D2H %6.1f GB/s  (256 MiB, best of %d)\n",
               pinned ? "pinned" : "pageable", COPY_BYTES / best_h2d / 1e9,
               COPY_BYTES / best_d2h / 1e9, REPS);
    }
    CK(gpu_client_host_unregister(c, h));
    CK(gpu_client_free_mem(c, d));

    long N = VEC_N;
    CUdeviceptr x, y, z;
    CK(gpu_client_malloc(c, &x, N * 8));
    CK(gpu_client_malloc(c, &y, N * 8));
    CK(gpu_client_malloc(c, &z, N * 8));
    CK(gpu_client_memset(c, x, 0, N * 8, 0, false));
    CK(gpu_client_memset(c, y, 0, N * 8, 0, false));
    gpu_handle_t e0, e1;
    CK(gpu_client_event_create(c, &e0, 0));
    CK(gpu_client_event_create(c, &e1, 0));
    void *args[4] = {&z, &x, &y, &N};
    uint16_t sz[4] = {8, 8, 8, 8};
    uint8_t isp[4] = {1, 2, 2, 0};
    unsigned grid[3] = {(unsigned)((N + 255) / 256), 1, 1}, block[3] = {256, 1, 1};
    float best = 1e9;
    for (int k = 0; k < REPS + 1; k++) {
        CK(gpu_client_event_record(c, e0, 0));
        CK(gpu_client_launch(c, fvec, grid, block, 0, 0, 4, args, sz, isp));
        CK(gpu_client_event_record(c, e1, 0));
        CK(gpu_client_event_sync(c, e1));
        float ms;
        CK(gpu_client_event_elapsed(c, &ms, e0, e1));
        if (k && ms < best) best = ms;
    }
    printf("worker: vecadd 2e8 doubles       %8.1f GB/s  (%.3f ms)\n", 3.0 * 8 * N / best / 1e6,
           best);

    /* restart: kill, respawn, reload the module, restore 3 x 1.6 GB (memset shadows) */
    double tot = 0, worst = 0;
    for (int k = 0; k < 3; k++) {
        gpu_restart_report_t rep;
        CK(gpu_client_restart(c, &rep));
        tot += rep.ms;
        if (rep.ms > worst) worst = rep.ms;
        free(rep.lost_ptrs);
    }
    printf("worker: restart (3 buffers, 1 module) %6.1f ms mean, %.1f ms worst\n", tot / 3, worst);
    CK(gpu_client_free_mem(c, x));
    CK(gpu_client_free_mem(c, y));
    CK(gpu_client_free_mem(c, z));
    double tr = 0;
    for (int k = 0; k < 3; k++) {
        gpu_restart_report_t rep;
        CK(gpu_client_restart(c, &rep));
        tr += rep.ms;
        free(rep.lost_ptrs);
    }
    printf("worker: restart (1 module, no buffers)  %6.1f ms mean\n", tr / 3);
    gpu_client_free(c);
    free(img);
    return 0;
}
