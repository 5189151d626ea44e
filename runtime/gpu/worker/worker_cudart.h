/* The worker's side of forwarded CUDA runtime calls (CH_CUDART): libcudart
 * loaded with dlopen on first use, sharing the primary context the worker
 * made current, and one typed caller per function of cuda_runtime_api.h
 * (build/gen/crt_stubs.c, generated from the headers), so arguments that
 * arrive as bytes are passed with the toolkit's own calling convention. */
#ifndef ICUDA_WORKER_CUDART_H
#define ICUDA_WORKER_CUDART_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;
    long long (*call)(void *fn, void *const *args); /* NULL: not callable this way */
    unsigned char nparams;
    const unsigned short *sizes;
} crt_stub_t;

extern const crt_stub_t crt_stubs[];
extern const int crt_nstubs;

/* A host library's function (worker_libs.c): its typed caller and address,
 * the library loaded on first use; a CUresult and msg when it cannot be. */
int worker_lib_resolve(unsigned lib, unsigned ix, const crt_stub_t **st, void **fn, char *msg, size_t ml);
/* After library lib's call failed with status: the library's own words for
 * it into msg (left as it is when the library keeps none). */
void worker_lib_explain(unsigned lib, long long status, char *msg, size_t ml);

struct ch_cmd;
struct cuda_driver;
/* Serves CH_CUDART or CH_FUNC on device dev (whose context is current):
 * fills v and payload (*plen bytes: an explanation on failure, CH_FN_GET_ATTRS'
 * values), returns the reply's result. */
int worker_cudart_serve(const struct ch_cmd *c, size_t len, const struct cuda_driver *D, int dev, uint64_t v[4],
                        void *payload, size_t *plen, size_t cap);

/* libcudart's cudaDeviceSynchronize and cudaFree (the library the cells'
 * objects load too), for the worker's own versions of those names that
 * native cells bind; a cudaError_t. */
int worker_cudart_synchronize(void);
int worker_cudart_free(void *p);

#endif
