/* %memcheck's worker switch: a statement's GPU work runs in a worker
 * started under compute-sanitizer, then the session goes back to a normal
 * worker, device buffers kept across both switches.
 *
 * Each switch reads every live device buffer back into the shared arena and
 * makes that copy the buffer's shadow, so the restart (gpu_client_restart)
 * refills all of them in the new worker; afterwards every buffer gets back
 * the shadow it had (what the session knew of its contents), and the copies
 * go. If the sanitized worker dies (a fault the sanitizer could not contain,
 * an interrupt), buffers the statement was writing get their contents from
 * before the statement. Device addresses are the same in every worker, so
 * pointers stored inside buffers stay valid. */
#ifndef ICUDA_CUDA_MEMCHECK_H
#define ICUDA_CUDA_MEMCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/cuda/cuda_session.h"

/* compute-sanitizer's path (malloc'd) or NULL; where gets the places looked
 * in. Found as runtime/program/cuda_tools.h finds the toolkit's tools. */
char *cuda_sanitizer_find(char *where, size_t where_cap);

typedef struct cuda_memcheck cuda_memcheck_t;

/* A kernel the statement launched. */
typedef struct cuda_memcheck_kernel {
    char name[256];     /* as launched: "vecadd", "scale<float>" */
    char hex[65];       /* its module */
    char lowered[512];
} cuda_memcheck_kernel_t;

typedef struct cuda_memcheck_result {
    char tool[16];
    int launches;
    cuda_memcheck_kernel_t *kernels;
    int nkernels;
    char *log;          /* the sanitizer's report (malloc'd, "" when it wrote none) */
    bool worker_died;   /* the sanitized worker ended before the statement did */
    int gpu_error;      /* a CUresult the statement's GPU work ended with, or 0 */
    char note[1024];    /* what happened to the worker and the buffers, or "" */
    double switch_ms;   /* time spent starting and stopping workers */
} cuda_memcheck_result_t;

/* Switches to a worker under compute-sanitizer --tool tool (memcheck,
 * racecheck, initcheck, synccheck). 0, or -1 with ename (a cudaError name
 * when there is no GPU) and msg; then nothing changed. */
int cuda_memcheck_begin(cuda_session_t *cs, const char *tool, cuda_memcheck_t **out, char *ename, char *msg,
                        size_t ml);
/* After the statement: synchronises, goes back to a normal worker, frees m. */
void cuda_memcheck_end(cuda_memcheck_t *m, cuda_memcheck_result_t *res);
void cuda_memcheck_result_free(cuda_memcheck_result_t *res);

#endif
