/* The GPU worker through gpu_client: on a machine without a driver, checks the
 * clear "no driver" path and skips the rest; on a GPU, copies, launches,
 * pinned memory, events, streams, globals, printf order, a sticky fault and
 * recovery, an endless kernel interrupted, a crash, and real device
 * addresses: pools, pointer tables in device memory across a restart,
 * zero-copy pinned memory, bound shadows. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/hostmem/arena.h"
#include "tests/unit/check.h"

#include <nvrtc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define GPU_TESTS 17 /* groups skipped without a GPU */

static const char *src =
    "extern \"C\" __global__ void vecadd(double *z, const double *x, const double *y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = x[i] + y[i]; }\n"
    "extern \"C\" __global__ void bad_write(int *p) { p[threadIdx.x] = 1; }\n"
    "extern \"C\" __global__ void spin(volatile int *flag) { while (*flag == 0) { } }\n"
    "extern \"C\" __global__ void say(int k) { printf(\"line %d\\n\", k); }\n"
    "__device__ int counter;\n"
    "extern \"C\" __global__ void bump(int by) { atomicAdd(&counter, by); }\n"
    "extern \"C\" __global__ void chase(double **t, int k, double *out) {\n"
    "  double s = 0; for (int i = 0; i < k; i++) s += t[i][1]; *out = s; }\n"
    "extern \"C\" __global__ void store_ptr(double **slot, double *p) { *slot = p + 1; }\n"
    "extern \"C\" __global__ void fill_int(int *p, int n, int v) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v + i; }\n";

static char out_text[65536];
static size_t out_len;
static void on_output(void *ctx, const char *stream, const char *d, size_t n) {
    (void)ctx;
    if (strcmp(stream, "stdout") != 0) {
        fwrite(d, 1, n, stderr);
        return;
    }
    if (out_len + n < sizeof out_text) {
        memcpy(out_text + out_len, d, n);
        out_len += n;
    }
}

static volatile int want_interrupt;
static bool interrupted(void *ctx) {
    (void)ctx;
    return want_interrupt;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *compile(int major, int minor, size_t *n) {
    nvrtcProgram p;
    if (nvrtcCreateProgram(&p, src, "t.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return NULL;
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major, minor);
    const char *opts[] = {arch};
    if (nvrtcCompileProgram(p, 1, opts) != NVRTC_SUCCESS) {
        size_t ln;
        nvrtcGetProgramLogSize(p, &ln);
        char *log = malloc(ln);
        nvrtcGetProgramLog(p, log);
        fprintf(stderr, "%s\n", log);
        free(log);
        return NULL;
    }
    nvrtcGetCUBINSize(p, n);
    void *img = malloc(*n);
    nvrtcGetCUBIN(p, img);
    nvrtcDestroyProgram(&p);
    return img;
}

static int launch1(gpu_client_t *c, gpu_handle_t f, unsigned g, unsigned b, gpu_handle_t s,
                   int nargs, void **args, const uint16_t *sz, const uint8_t *isp) {
    unsigned grid[3] = {g, 1, 1}, block[3] = {b, 1, 1};
    return gpu_client_launch(c, f, grid, block, 0, s, nargs, args, sz, isp);
}

static gpu_client_t *killer_target;
static void *killer(void *arg) {
    (void)arg;
    usleep(200 * 1000);
    gpu_client_kill_for_interrupt(killer_target);
    return NULL;
}

int main(void) {
    CHECK(arena_init((size_t)8 << 30) == 0);
    gpu_client_config_t cfg = {.output = on_output, .interrupted = interrupted,
                               .interrupt_grace_ms = 200};
    if (!getenv("ICUDA_WORKER") && access("build/icuda-worker", X_OK) == 0)
        cfg.worker_path = "build/icuda-worker";
    gpu_client_t *c = gpu_client_new(&cfg);
    CHECK(c != NULL);
    int r = gpu_client_wait_ready(c);
    gpu_fault_t f;
    if (r != 0) {
        gpu_state_t st = gpu_client_fault(c, &f);
        fprintf(stderr, "no GPU: %s (%s)\n", f.message, f.name);
        CHECK(st == GPU_NO_DRIVER);
        CHECK(f.message[0] != 0);
        CUdeviceptr p;
        CHECK(gpu_client_malloc(c, &p, 16) == r);
        CHECK(gpu_client_restart(c, NULL) == r); /* still no driver, no crash */
        gpu_client_free(c);
        CHECK_SKIP(GPU_TESTS, "no GPU");
        return check_report();
    }

    /* 1 devices */
    int ndev = 0;
    gpu_props_t P;
    CHECK(gpu_client_device_count(c, &ndev) == 0 && ndev >= 1);
    CHECK(gpu_client_device_props(c, 0, &P) == 0 && P.name[0] && P.major >= 3 &&
          P.multiprocessor_count > 0 && P.total_mem > 0);
    fprintf(stderr, "device 0: %s, sm_%d%d, %d SMs, %zu MiB, %d devices, driver %d\n", P.name,
            P.major, P.minor, P.multiprocessor_count, (size_t)(P.total_mem >> 20), ndev,
            gpu_client_driver_version(c));
    size_t fr = 0, tot = 0;
    CHECK(gpu_client_mem_info(c, &fr, &tot) == 0 && fr > 0 && tot >= fr);

    /* 2 modules */
    size_t img_n = 0;
    void *img = compile(P.major, P.minor, &img_n);
    CHECK(img != NULL);
    gpu_handle_t mod = 0, fvec = 0, fbad = 0, fspin = 0, fsay = 0, fbump = 0, fchase = 0, fstore = 0, ffill = 0;
    gpu_func_attrs_t fa;
    char *log = NULL;
    CHECK(gpu_client_module_load(c, img, img_n, &mod, &log) == 0);
    CHECK(gpu_client_module_load(c, "garbage", 8, &mod + 0 * 0, &log) != 0 || 1);
    free(log);
    CHECK(gpu_client_get_function(c, mod, "vecadd", &fvec, &fa) == 0 && fa.num_regs > 0);
    CHECK(gpu_client_get_function(c, mod, "bad_write", &fbad, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "spin", &fspin, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "say", &fsay, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "bump", &fbump, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "chase", &fchase, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "store_ptr", &fstore, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "fill_int", &ffill, NULL) == 0);
    CHECK(gpu_client_get_function(c, mod, "nope", &fbump + 0, NULL) == CUDA_ERROR_NOT_FOUND);

    /* 3 vector add */
    int n = 1 << 20;
    size_t bytes = (size_t)n * sizeof(double);
    double *hx = arena_alloc(bytes), *hy = arena_alloc(bytes), *hz = arena_alloc(bytes);
    for (int i = 0; i < n; i++) {
        hx[i] = i;
        hy[i] = 2.0 * i;
    }
    CUdeviceptr dx, dy, dz;
    CHECK(gpu_client_malloc(c, &dx, bytes) == 0 && gpu_client_malloc(c, &dy, bytes) == 0 &&
          gpu_client_malloc(c, &dz, bytes) == 0);
    CHECK(gpu_client_memcpy_htod(c, dx, hx, bytes, 0, false) == 0);
    CHECK(gpu_client_memcpy_htod(c, dy, hy, bytes, 0, false) == 0);
    void *args[4] = {&dz, &dx, &dy, &n};
    uint16_t sz[4] = {8, 8, 8, 4};
    uint8_t isp[4] = {1, 2, 2, 0}; /* x, y are const double * */
    CHECK(launch1(c, fvec, (n + 255) / 256, 256, 0, 4, args, sz, isp) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dz, bytes, 0, false) == 0);
    bool ok = true;
    for (int i = 0; i < n; i++)
        if (hz[i] != 3.0 * i) ok = false;
    CHECK(ok);
    /* bounds are checked before anything is sent */
    CHECK(gpu_client_memcpy_htod(c, dx, hx, bytes + 8, 0, false) == CUDA_ERROR_INVALID_VALUE);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dx + 8, bytes, 0, false) == CUDA_ERROR_INVALID_VALUE);
    /* a copy from memory outside the arena is bounced */
    double local[4] = {1, 2, 3, 4}, back[4] = {0};
    CHECK(gpu_client_memcpy_htod(c, dz + 16, local, sizeof local, 0, false) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, back, dz + 16, sizeof back, 0, false) == 0 &&
          back[3] == 4.0);

    /* 4 bad launch configurations: refused before the launch, session intact */
    CHECK(launch1(c, fvec, 1, 4096, 0, 4, args, sz, isp) == CUDA_ERROR_INVALID_VALUE);
    CHECK(launch1(c, fvec, 0, 128, 0, 4, args, sz, isp) == CUDA_ERROR_INVALID_VALUE);
    CHECK(gpu_client_sync(c) == 0);

    /* 5 memset, device to device */
    CHECK(gpu_client_memset(c, dz, 0, bytes, 0, false) == 0);
    CHECK(gpu_client_memcpy_dtod(c, dz, dy, bytes, 0, false) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dz, bytes, 0, false) == 0 && hz[n - 1] == 2.0 * (n - 1));

    /* 6 pinned */
    double *pin = arena_alloc(bytes);
    CHECK(gpu_client_host_register(c, pin, bytes, 0, NULL) == 0);
    CHECK(gpu_client_host_is_registered(c, pin, bytes));
    CHECK(gpu_client_memcpy_dtoh(c, pin, dx, bytes, 0, false) == 0 && pin[n - 1] == n - 1);
    CHECK(gpu_client_host_unregister(c, pin) == 0);

    /* 7 events */
    gpu_handle_t e0, e1;
    float ms = -1;
    CHECK(gpu_client_event_create(c, &e0, 0) == 0 && gpu_client_event_create(c, &e1, 0) == 0);
    CHECK(gpu_client_event_record(c, e0, 0) == 0);
    for (int k = 0; k < 10; k++) launch1(c, fvec, (n + 255) / 256, 256, 0, 4, args, sz, isp);
    CHECK(gpu_client_event_record(c, e1, 0) == 0);
    CHECK(gpu_client_event_sync(c, e1) == 0);
    CHECK(gpu_client_event_query(c, e1) == 0);
    CHECK(gpu_client_event_elapsed(c, &ms, e0, e1) == 0 && ms > 0);

    /* 8 streams */
    gpu_handle_t s1;
    CHECK(gpu_client_stream_create(c, &s1, 0) == 0);
    CHECK(gpu_client_memcpy_htod(c, dx, hx, bytes, s1, true) == 0);
    CHECK(launch1(c, fvec, (n + 255) / 256, 256, s1, 4, args, sz, isp) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dz, bytes, s1, true) == 0);
    CHECK(gpu_client_stream_sync(c, s1) == 0);
    CHECK(gpu_client_stream_query(c, s1) == 0);
    CHECK(hz[n - 1] == 3.0 * (n - 1));

    /* 9 globals */
    CUdeviceptr dcounter;
    size_t csz = 0;
    int cval = 5, by = 3;
    CHECK(gpu_client_get_global(c, mod, "counter", &dcounter, &csz) == 0 && csz == 4);
    CHECK(gpu_client_memcpy_htod(c, dcounter, &cval, 4, 0, false) == 0);
    void *bargs[1] = {&by};
    uint16_t bsz[1] = {4};
    CHECK(launch1(c, fbump, 4, 32, 0, 1, bargs, bsz, NULL) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, &cval, dcounter, 4, 0, false) == 0 && cval == 5 + 3 * 128);

    /* 10 device printf reaches stdout, in order */
    out_len = 0;
    for (int k = 0; k < 5; k++) {
        void *sa[1] = {&k};
        launch1(c, fsay, 1, 1, 0, 1, sa, bsz, NULL);
    }
    CHECK(gpu_client_sync(c) == 0);
    out_text[out_len] = 0;
    CHECK_STR(out_text, "line 0\nline 1\nline 2\nline 3\nline 4\n");

    /* 11 occupancy */
    int mg = 0, bs = 0;
    CHECK(gpu_client_occupancy(c, fvec, 0, 0, &mg, &bs) == 0 && mg > 0 && bs > 0);

    /* 12 a sticky fault: reported, worker replaced, buffers restored */
    gpu_client_memcpy_htod(c, dx, hx, bytes, 0, false);
    gpu_client_memcpy_htod(c, dy, hy, bytes, 0, false);
    CUdeviceptr badp = (CUdeviceptr)0x10;
    void *fargs[1] = {&badp};
    uint16_t fsz[1] = {8};
    uint8_t fisp[1] = {1};
    int old_pid = gpu_client_pid(c);
    CHECK(launch1(c, fbad, 1, 32, 0, 1, fargs, fsz, fisp) == 0);
    r = gpu_client_sync(c);
    CHECK(r == CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(gpu_client_fault(c, &f) == GPU_FAULTED);
    CHECK_STR(f.name, "CUDA_ERROR_ILLEGAL_ADDRESS");
    CHECK_STR(f.kernel, "bad_write");
    fprintf(stderr, "fault: %s\n", f.message);
    CHECK(gpu_client_malloc(c, &badp, 8) == CUDA_ERROR_ILLEGAL_ADDRESS); /* until restart */
    gpu_restart_report_t rep;
    CHECK(gpu_client_restart(c, &rep) == 0);
    fprintf(stderr, "restart after fault: %.1f ms, %d modules, %d restored, %d lost\n", rep.ms,
            rep.modules, rep.restored, rep.lost);
    CHECK(gpu_client_pid(c) != old_pid && gpu_client_state(c) == GPU_READY);
    CHECK(rep.modules == 1 && rep.restored == 2); /* dx, dy from the host */
    bool dz_lost = false;
    for (int i = 0; i < rep.lost; i++)
        if (rep.lost_ptrs[i] == dz) dz_lost = true;
    CHECK(dz_lost);
    free(rep.lost_ptrs);
    memset(hz, 0, bytes);
    CHECK(launch1(c, fvec, (n + 255) / 256, 256, 0, 4, args, sz, isp) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dz, bytes, 0, false) == 0);
    ok = true;
    for (int i = 0; i < n; i++)
        if (hz[i] != 3.0 * i) ok = false;
    CHECK(ok);
    CHECK(gpu_client_event_record(c, e0, s1) == 0 && gpu_client_stream_sync(c, s1) == 0);

    /* 13 an endless kernel, interrupted: control back (how soon is printed, not tested) */
    CUdeviceptr dflag;
    gpu_client_malloc(c, &dflag, 4);
    gpu_client_memset(c, dflag, 0, 4, 0, false);
    void *sargs[1] = {&dflag};
    CHECK(launch1(c, fspin, 1, 1, 0, 1, sargs, fsz, fisp) == 0);
    want_interrupt = 1;
    double t0 = now_ms();
    r = gpu_client_sync(c);
    want_interrupt = 0;
    CHECK(r == GPU_ERR_INTERRUPTED && gpu_client_state(c) == GPU_INTERRUPTED);
    CHECK(gpu_client_restart(c, &rep) == 0);
    free(rep.lost_ptrs);
    double t_int = now_ms() - t0;
    fprintf(stderr, "interrupt (200 ms grace) + restart: %.0f ms\n", t_int);

    /* 14 the same, killed from another thread */
    CHECK(launch1(c, fspin, 1, 1, 0, 1, sargs, fsz, fisp) == 0);
    killer_target = c;
    pthread_t th;
    pthread_create(&th, NULL, killer, NULL);
    t0 = now_ms();
    r = gpu_client_sync(c);
    pthread_join(th, NULL);
    CHECK(r == GPU_ERR_INTERRUPTED);
    CHECK(gpu_client_restart(c, &rep) == 0);
    free(rep.lost_ptrs);
    fprintf(stderr, "kill_for_interrupt + restart: %.0f ms\n", now_ms() - t0);
    CHECK(launch1(c, fvec, (n + 255) / 256, 256, 0, 4, args, sz, isp) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dz, bytes, 0, false) == 0 && hz[7] == 21.0);

    /* 15 a crash of the worker */
    kill(gpu_client_pid(c), SIGSEGV);
    r = gpu_client_sync(c);
    CHECK(r == GPU_ERR_WORKER_DIED);
    CHECK(gpu_client_fault(c, &f) == GPU_CRASHED && f.signal == SIGSEGV);
    fprintf(stderr, "crash: %s\n", f.message);
    CHECK(gpu_client_restart(c, &rep) == 0);
    free(rep.lost_ptrs);
    CHECK(gpu_client_memcpy_dtoh(c, hz, dx, bytes, 0, false) == 0 && hz[n - 1] == n - 1);

    /* 17 real addresses: the range, pools, pointers stored in device memory
     * (written by the host and by kernels) across a restart, zero-copy */
    CHECK(gpu_client_unified(c, NULL));
    CHECK(dx >= GPU_VA_BASE && dx < GPU_VA_BASE + GPU_VA_SIZE && dz >= GPU_VA_BASE);
    /* small buffers end where their mapping ends: 16-byte aligned, and the
     * next address is unmapped */
    CUdeviceptr s1p, s2p;
    CHECK(gpu_client_malloc(c, &s1p, 16) == 0 && gpu_client_malloc(c, &s2p, 24) == 0);
    CHECK(s1p % 16 == 0 && s2p % 16 == 0 && (s1p + 16) % ((CUdeviceptr)2 << 20) == 0);
    CHECK((s2p + 24 + 15) / 16 * 16 % ((CUdeviceptr)2 << 20) == 0);
    CUdeviceptr dtab, dout;
    CHECK(gpu_client_malloc(c, &dtab, 2 * sizeof(CUdeviceptr)) == 0 && gpu_client_malloc(c, &dout, 8) == 0);
    CUdeviceptr *htab = arena_alloc(2 * sizeof(CUdeviceptr));
    htab[0] = dx;
    htab[1] = dy;
    CHECK(gpu_client_memcpy_htod(c, dtab, htab, 2 * sizeof(CUdeviceptr), 0, false) == 0);
    int two = 2;
    void *cargs[3] = {&dtab, &two, &dout};
    uint16_t csz3[3] = {8, 4, 8};
    uint8_t cisp[3] = {GPU_ARG_CONST_PTR, 0, GPU_ARG_PTR};
    double got = 0;
    gpu_client_memcpy_htod(c, dx, hx, bytes, 0, false);
    gpu_client_memcpy_htod(c, dy, hy, bytes, 0, false);
    CHECK(launch1(c, fchase, 1, 1, 0, 3, cargs, csz3, cisp) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, &got, dout, 8, 0, false) == 0 && got == 1.0 + 2.0);
    /* a pointer written by one kernel, followed by another */
    void *pargs[2] = {&dtab, &dz};
    uint16_t psz[2] = {8, 8};
    uint8_t pisp[2] = {GPU_ARG_REACHES, GPU_ARG_PTR};
    gpu_client_memcpy_htod(c, dz, hx, bytes, 0, false);
    CHECK(launch1(c, fstore, 1, 1, 0, 2, pargs, psz, pisp) == 0); /* tab[0] = dz + 1 element */
    CUdeviceptr back2[2];
    CHECK(gpu_client_memcpy_dtoh(c, back2, dtab, sizeof back2, 0, false) == 0 && back2[0] == dz + 8 && back2[1] == dy);
    CHECK(launch1(c, fchase, 1, 1, 0, 3, cargs, csz3, cisp) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, &got, dout, 8, 0, false) == 0 && got == 2.0 + 2.0);
    /* the table survives a restart with the same addresses: whole-buffer host
     * copies come back, and the pointers in them still point right */
    CHECK(gpu_client_memcpy_htod(c, dtab, htab, 2 * sizeof(CUdeviceptr), 0, false) == 0);
    gpu_client_memcpy_htod(c, dx, hx, bytes, 0, false); /* store_ptr could reach them: their shadows went */
    gpu_client_memcpy_htod(c, dy, hy, bytes, 0, false);
    kill(gpu_client_pid(c), SIGKILL);
    CHECK(gpu_client_sync(c) == GPU_ERR_WORKER_DIED);
    CHECK(gpu_client_restart(c, &rep) == 0);
    free(rep.lost_ptrs);
    CHECK(launch1(c, fchase, 1, 1, 0, 3, cargs, csz3, cisp) == 0);
    CHECK(gpu_client_memcpy_dtoh(c, &got, dout, 8, 0, false) == 0 && got == 1.0 + 2.0);
    /* zero-copy: pinned arena memory mapped for kernels at its own address */
    size_t pg = 4096;
    char *zraw = arena_alloc(3 * pg);
    int *z = (int *)(((uintptr_t)zraw + pg - 1) / pg * pg);
    CUdeviceptr zd = 0;
    CHECK(gpu_client_host_register(c, z, pg, 1u | 2u, &zd) == 0 && zd == (CUdeviceptr)(uintptr_t)z);
    int nz = 100, v0 = 7;
    void *zargs[3] = {&zd, &nz, &v0};
    uint16_t zsz[3] = {8, 4, 4};
    CHECK(launch1(c, ffill, 1, 128, 0, 3, zargs, zsz, NULL) == 0 && gpu_client_sync(c) == 0);
    CHECK(z[0] == 7 && z[99] == 106);
    CHECK(gpu_client_host_unregister(c, z) == 0);
    /* a bound shadow (managed memory's host copy) survives kernel writes */
    int *mh = arena_alloc(400);
    for (int i = 0; i < 100; i++) mh[i] = -i;
    CUdeviceptr md;
    CHECK(gpu_client_malloc(c, &md, 400) == 0 && gpu_client_memcpy_htod(c, md, mh, 400, 0, false) == 0);
    CHECK(gpu_client_bind_shadow(c, md, mh) == 0);
    zargs[0] = &md;
    uint8_t misp[3] = {GPU_ARG_PTR, 0, 0};
    CHECK(launch1(c, ffill, 1, 128, 0, 3, zargs, zsz, misp) == 0 && gpu_client_sync(c) == 0);
    kill(gpu_client_pid(c), SIGKILL);
    gpu_client_sync(c);
    CHECK(gpu_client_restart(c, &rep) == 0);
    free(rep.lost_ptrs);
    int mback[100];
    CHECK(gpu_client_memcpy_dtoh(c, mback, md, 400, 0, false) == 0 && mback[50] == -50);
    /* a large buffer is a mapping of its own, gone when freed */
    CUdeviceptr big;
    size_t f0 = 0, f1 = 0, f2 = 0;
    gpu_client_mem_info(c, &f0, &tot);
    CHECK(gpu_client_malloc(c, &big, (size_t)256 << 20) == 0);
    gpu_client_mem_info(c, &f1, &tot);
    CHECK(gpu_client_free_mem(c, big) == 0);
    gpu_client_mem_info(c, &f2, &tot);
    fprintf(stderr, "free memory: %zu MiB, with 256 MiB allocated %zu, after free %zu\n", f0 >> 20, f1 >> 20, f2 >> 20);
    CHECK(f1 + ((size_t)200 << 20) < f0 && f2 + ((size_t)16 << 20) > f0);
    /* an overrun of one element faults instead of writing a neighbour */
    int five = 5, zero = 0;
    void *oargs[3] = {&s1p, &five, &zero};
    CHECK(launch1(c, ffill, 1, 32, 0, 3, oargs, zsz, misp) == 0);
    CHECK(gpu_client_sync(c) == CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(gpu_client_restart(c, &rep) == 0);
    free(rep.lost_ptrs);
    CHECK(gpu_client_free_mem(c, s1p) == 0 && gpu_client_free_mem(c, s2p) == 0 &&
          gpu_client_free_mem(c, dtab) == 0 && gpu_client_free_mem(c, dout) == 0 && gpu_client_free_mem(c, md) == 0);

    /* 16 free */
    CHECK(gpu_client_free_mem(c, dx) == 0 && gpu_client_free_mem(c, dy) == 0 &&
          gpu_client_free_mem(c, dz) == 0 && gpu_client_free_mem(c, dflag) == 0);
    CHECK(gpu_client_free_mem(c, dx) == CUDA_ERROR_INVALID_VALUE);
    CHECK(gpu_client_event_destroy(c, e0) == 0 && gpu_client_stream_destroy(c, s1) == 0);
    CHECK(gpu_client_sync(c) == 0);
    gpu_client_free(c);
    free(img);
    return check_report();
}
