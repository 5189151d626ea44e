/* A device's peaks, for %timeit's "% of peak" and %roofline's roofs
 * (measure.h): the theoretical memory bandwidth from the memory clock and
 * bus width, the bandwidth a device-to-device copy really reaches (measured
 * once per session and device), and the FP32/FP64 peaks from the SM count,
 * the clock and the FMA units per SM of the architecture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"

#include "runtime/base/xalloc.h"
/* FMA results per clock per SM (one FMA is two flops), from the throughput
 * table of native arithmetic instructions ("Arithmetic Instructions") in
 * NVIDIA's CUDA C++ Programming Guide: the rows for 32-bit and 64-bit
 * floating-point add, multiply and multiply-add, without tensor cores.
 * E.g. an H100 SXM (9.0): 132 SMs x 1.98 GHz x 128 x 2 = 66.9 TFLOP/s FP32
 * and 33.5 TFLOP/s FP64, the figures of NVIDIA's data sheet. */
static const struct {
    int major, minor, fp32, fp64;
} fma_table[] = {
    {5, 0, 128, 4}, {5, 2, 128, 4}, {5, 3, 128, 4},              /* Maxwell */
    {6, 0, 64, 32}, {6, 1, 128, 4}, {6, 2, 128, 4},              /* Pascal */
    {7, 0, 64, 32}, {7, 2, 64, 32}, {7, 5, 64, 2},               /* Volta, Turing */
    {8, 0, 64, 32}, {8, 6, 128, 2}, {8, 7, 128, 2}, {8, 9, 128, 2}, /* Ampere, Ada */
    {9, 0, 128, 64},                                             /* Hopper */
    {10, 0, 128, 64}, {12, 0, 128, 2},                           /* Blackwell */
};

bool peaks_fma_per_sm(int major, int minor, int *fp32, int *fp64) {
    for (size_t i = 0; i < sizeof fma_table / sizeof fma_table[0]; i++)
        if (fma_table[i].major == major && fma_table[i].minor == minor) {
            *fp32 = fma_table[i].fp32;
            *fp64 = fma_table[i].fp64;
            return true;
        }
    /* not in the table: what recent consumer parts have */
    *fp32 = 128;
    *fp64 = 2;
    return false;
}

void peaks_fmt_rate(double v, const char *unit, char *buf, size_t n) {
    /* unit is "B/s" or "FLOP/s"; GB/s and GFLOP/s below 10^13, T above */
    if (v >= 1e13) snprintf(buf, n, "%.1f T%s", v / 1e12, unit);
    else if (v >= 1e9) snprintf(buf, n, "%.0f G%s", v / 1e9, unit);
    else if (v >= 1e6) snprintf(buf, n, "%.1f M%s", v / 1e6, unit);
    else snprintf(buf, n, "%.3g %s", v, unit);
}

#define COPY_MAX ((size_t)256 << 20)
#define COPY_REPS 5
#define COPY_RUNS 8

/* Bytes per second that copies from one device buffer into another move
 * (each copied byte is read once and written once: 2 bytes of traffic), the
 * best of a few repeats. Returns a client code; *bw 0 with a note when the
 * device had too little free memory. */
static int copy_bandwidth(gpu_client_t *g, double *bw, char *note, size_t nl) {
    size_t fr = 0, tot = 0;
    *bw = 0;
    int r = gpu_client_mem_info(g, &fr, &tot);
    if (r) return r;
    size_t n = COPY_MAX;
    while (n > ((size_t)16 << 20) && 4 * n > fr) n /= 2;
    if (4 * n > fr) {
        snprintf(note, nl, "not measured: too little free device memory");
        return 0;
    }
    CUdeviceptr a = 0, b = 0;
    gpu_handle_t e0 = 0, e1 = 0;
    bool h0 = false, h1 = false;
    if ((r = gpu_client_malloc(g, &a, n)) || (r = gpu_client_malloc(g, &b, n))) goto out;
    if ((r = gpu_client_event_create(g, &e0, 0))) goto out;
    h0 = true;
    if ((r = gpu_client_event_create(g, &e1, 0))) goto out;
    h1 = true;
    if ((r = gpu_client_memset(g, a, 1, n, 0, true))) goto out;
    for (int i = 0; i < 2 && !r; i++) r = gpu_client_memcpy_dtod(g, b, a, n, 0, true); /* warm-up */
    double best = 0;
    for (int k = 0; k < COPY_REPS && !r; k++) {
        if ((r = gpu_client_event_record(g, e0, 0))) break;
        for (int i = 0; i < COPY_RUNS && !r; i++) r = gpu_client_memcpy_dtod(g, b, a, n, 0, true);
        if (r || (r = gpu_client_event_record(g, e1, 0)) || (r = gpu_client_event_sync(g, e1))) break;
        float ms = 0;
        if ((r = gpu_client_event_elapsed(g, &ms, e0, e1))) break;
        double v = ms > 0 ? 2.0 * (double)n * COPY_RUNS / (ms * 1e-3) : 0;
        if (v > best) best = v;
    }
    if (!r) r = gpu_client_take_async_error(g, NULL, NULL);
    if (!r) {
        *bw = best;
        snprintf(note, nl, "measured: cudaMemcpy device to device, %zu MiB", n >> 20);
    }
out:
    if (h0) gpu_client_event_destroy(g, e0);
    if (h1) gpu_client_event_destroy(g, e1);
    if (a) gpu_client_free_mem(g, a);
    if (b) gpu_client_free_mem(g, b);
    return r;
}

int peaks_get(magic_ctx_t *mc, gpu_client_t *g, int dev, const device_peaks_t **out, cell_error_t *err) {
    measure_state_t *s = measure_state(mc);
    for (int i = 0; i < s->npeaks; i++)
        if (s->peaks[i].dev == dev) {
            *out = &s->peaks[i];
            return 0;
        }
    gpu_props_t p;
    int r = gpu_client_device_props(g, dev, &p);
    if (r) return cuda_session_error(mc->cuda, r, "reading the device's properties", err);
    device_peaks_t d;
    memset(&d, 0, sizeof d);
    d.dev = dev;
    snprintf(d.name, sizeof d.name, "%s", p.name);
    d.major = p.major;
    d.minor = p.minor;
    d.sms = p.multiprocessor_count;
    d.clock_hz = p.clock_rate_khz * 1e3;
    d.bw_theory = 2.0 * p.memory_clock_rate_khz * 1e3 * (p.memory_bus_width / 8.0);
    int f32, f64;
    d.fma_known = peaks_fma_per_sm(p.major, p.minor, &f32, &f64);
    d.fp32 = 2.0 * f32 * d.sms * d.clock_hz;
    d.fp64 = 2.0 * f64 * d.sms * d.clock_hz;
    /* earlier work's asynchronous errors are its own, not the measurement's */
    r = gpu_client_sync(g);
    if (!r) r = gpu_client_take_async_error(g, NULL, NULL);
    if (r) return cuda_session_error(mc->cuda, r, "reported before measuring the device's bandwidth", err);
    int cur = gpu_client_get_device(g);
    if (cur != dev && (r = gpu_client_set_device(g, dev)))
        return cuda_session_error(mc->cuda, r, "selecting the device to measure", err);
    r = copy_bandwidth(g, &d.bw_measured, d.bw_note, sizeof d.bw_note);
    if (cur != dev) gpu_client_set_device(g, cur);
    if (r) {
        if (gpu_client_state(g) != GPU_READY)
            return cuda_session_error(mc->cuda, r, "measuring the device's memory bandwidth", err);
        d.bw_measured = 0;
        snprintf(d.bw_note, sizeof d.bw_note, "not measured: the copy failed (%s)", gpu_client_error_name(r));
    }
    s->peaks = xrealloc(s->peaks, sizeof *s->peaks * (size_t)(s->npeaks + 1));
    s->peaks[s->npeaks] = d;
    *out = &s->peaks[s->npeaks++];
    return 0;
}
