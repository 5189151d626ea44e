/* %profile in the GPU worker: CUPTI's activity trace, attached only between
 * CH_PROFILE_START and CH_PROFILE_STOP (worker_profile.c). */
#ifndef ICUDA_WORKER_PROFILE_H
#define ICUDA_WORKER_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/gpu/channel.h"
#include "runtime/gpu/cuda_driver.h"

/* Serves CH_PROFILE_START / CH_PROFILE_STOP. blob is the arena range the
 * command names (NULL if it lies outside the arena); ctxs[0..nctx) the
 * worker's contexts (NULL where none), cur the current device. Returns the
 * CUresult to answer with, v[] and msg (the reason of a failure) filled. */
int worker_profile_serve(const ch_cmd_t *c, const cuda_driver_t *D, CUcontext *ctxs, int nctx, int cur,
                         void *blob, size_t blob_size, uint64_t v[4], char *msg, size_t ml);

/* The worker is about to exit after a sticky fault: hands CUPTI's pending
 * records to the blob first (bounded by an alarm, so it cannot hang). */
void worker_profile_abort(void);

#endif
