/* %profile's trace on the client side: starts CUPTI's activity trace in the
 * GPU worker, stops it and reads the records back from the shared arena
 * (profile_wire.h; the worker side is worker_profile.c).
 *
 *   gpu_profile_t *p;
 *   if (gpu_profile_start(gc, 0, &p, msg, sizeof msg) == 0) {
 *       ... GPU work ...
 *       gpu_profile_result_t res;
 *       int r = gpu_profile_stop(gc, p, &res, msg, sizeof msg);
 *       ... res.acts[0 .. res.n) ...
 *       gpu_profile_result_free(&res);
 *   }
 *
 * If the worker dies while profiling (a sticky fault, a crash, an
 * interrupt), the records it had delivered are still in the arena: stop
 * returns them with worker_died set and sends nothing to the new worker. */
#ifndef ICUDA_GPU_PROFILE_H
#define ICUDA_GPU_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu_client.h"
#include "runtime/gpu/profile_wire.h"

#define GPU_PROFILE_DEFAULT_RECORDS 100000 /* records kept; more are counted as left out */

/* One kernel, copy or memset: the wire record and, for kernels, the name
 * CUPTI gave (the compiled, lowered name: "_Z6vecaddPdPKdS1_i"). */
typedef struct gpu_prof_activity {
    prof_record_t r;
    const char *name; /* kernels; NULL otherwise */
} gpu_prof_activity_t;

typedef struct gpu_profile_result {
    gpu_prof_activity_t *acts; /* sorted by start time */
    size_t n;
    uint64_t left_out;         /* records past the bound that were not kept */
    uint64_t dropped;          /* records CUPTI dropped */
    uint32_t ndefault;
    struct { uint32_t device, stream; } default_stream[PROF_MAX_DEVICES];
    bool worker_died;          /* the trace ends where the worker died */
    bool detached;             /* CUPTI let go of the worker (cuptiFinalize succeeded) */
    char *names;               /* storage of the names */
} gpu_profile_result_t;

typedef struct gpu_profile gpu_profile_t;

/* Starts tracing (max_records 0: GPU_PROFILE_DEFAULT_RECORDS). 0, or the
 * CUresult / GPU_ERR_* with msg saying why (CUPTI missing: CUDA_ERROR_NOT_FOUND;
 * CUPTI refusing, e.g. for privileges: CUDA_ERROR_NOT_SUPPORTED). */
int gpu_profile_start(gpu_client_t *c, unsigned max_records, gpu_profile_t **out, char *msg, size_t ml);

/* Stops tracing (it synchronises every device first) and collects the
 * records; p is freed. Returns 0 or the stop's error (a fault that its
 * synchronisation found, the worker's death); res holds what was recorded in
 * every case. */
int gpu_profile_stop(gpu_client_t *c, gpu_profile_t *p, gpu_profile_result_t *res, char *msg, size_t ml);

void gpu_profile_result_free(gpu_profile_result_t *res);

#endif
