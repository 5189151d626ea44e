/* NVTX ranges and marks from host cells (cuda_nvtx.c): NVTX 3 is
 * header-only, so icuda implements nvtxRangePushA/Pop, nvtxRangeStartA/End
 * and nvtxMarkA itself, recording them with host timestamps in the
 * session; %profile shows the ranges closed while it ran. */
#ifndef ICUDA_CUDA_NVTX_H
#define ICUDA_CUDA_NVTX_H

#include <stdbool.h>

#include "runtime/cuda/cuda_session.h"

/* How many ranges and marks the session has recorded (a starting point for
 * the report of what follows). */
int cuda_nvtx_count(cuda_session_t *cs);
/* The ranges recorded since from, grouped by name (calls, total, mean),
 * as text or an HTML table; NULL when there are none. Free with free(). */
char *cuda_nvtx_report(cuda_session_t *cs, int from, bool html);

#endif
