/* What %timeit, %roofline and the device peaks share (magics/timeit.c,
 * roofline.c, peaks.c, measure_state.c): each device's peaks, measured
 * once per session, and the %timeit measurements that had --bytes and
 * --flops, which %roofline draws. All of it lives in the session
 * (magic_ctx_t.measure). */
#ifndef ICUDA_MAGICS_MEASURE_H
#define ICUDA_MAGICS_MEASURE_H

#include <stdbool.h>

#include "magics.h"

struct gpu_client;

typedef struct device_peaks {
    int dev;
    char name[256];
    int major, minor, sms;
    double clock_hz;      /* the SMs' (boost) clock */
    double bw_theory;     /* bytes/s: 2 (DDR) x memory clock x bus width / 8 */
    double bw_measured;   /* bytes/s of a device-to-device copy; 0: not measured (bw_note says why) */
    char bw_note[200];
    double fp32, fp64;    /* FLOP/s: SMs x clock x FMA units per SM x 2 */
    bool fma_known;       /* the architecture is in the table; else an estimate */
} device_peaks_t;

typedef struct measurement {
    char *label;          /* the kernel launched, or the statement as written */
    double bytes, flops;  /* per run */
    double seconds;       /* mean per run */
    int dev;              /* the device, or -1: timed with the host clock */
} measurement_t;

typedef struct measure_state {
    device_peaks_t *peaks;
    int npeaks;
    measurement_t *m;
    int nm, capm;
} measure_state_t;

/* The session's state, made on first use. */
measure_state_t *measure_state(magic_ctx_t *mc);
void measure_add(magic_ctx_t *mc, const char *label, double bytes, double flops, double seconds, int dev);
/* Forgets every measurement; returns how many there were. */
int measure_clear(magic_ctx_t *mc);

/* The peaks of device dev: the table and the device's properties, and the
 * bandwidth of a device-to-device copy measured on first use in this
 * session. 0, or -1 with err filled (the GPU failed). */
int peaks_get(magic_ctx_t *mc, struct gpu_client *g, int dev, const device_peaks_t **out, cell_error_t *err);
/* FP32 and FP64 FMA results per clock per SM for a compute capability;
 * false (and an estimate) for one the table does not know. */
bool peaks_fma_per_sm(int major, int minor, int *fp32, int *fp64);
/* "3352 GB/s", "66.9 TFLOP/s": a rate with its unit. */
void peaks_fmt_rate(double per_s, const char *unit, char *buf, size_t n);

/* A time as IPython writes it: three significant digits in s, ms, µs or ns. */
void timeit_fmt_time(double s, char *b, size_t n);

#endif
