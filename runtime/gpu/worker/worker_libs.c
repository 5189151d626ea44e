/* The host libraries in the GPU worker (CH_CUDART calls whose function
 * number carries a library id in its top byte): cuRAND, cuBLAS, cuFFT and
 * NCCL, each loaded with dlopen on its first call, by the soname found in
 * the toolkit's lib64 at build time (build/gen/clib_stubs.c; NCCL's is
 * libnccl.so.2, found by the dynamic linker, then in the toolkit's lib64),
 * and called through the generated typed callers. They run in the
 * runtime's context, which is the worker's primary context (worker_cudart.c
 * attaches it). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "worker_cudart.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gpu/cuda_driver.h"

#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

extern const crt_stub_t clib_stubs[];
extern const int clib_nstubs;
extern const char *const clib_sonames[];
extern const char *const clib_names[];

#define NLIBS 5
#define LIB_NCCL 4 /* CLIB_NCCL of runtime/toolkit/cuda_lib_table.h */
static void *libs[NLIBS];
static char lib_err[NLIBS][512];
static void **fns; /* by stub index, resolved on first use */

static int load(unsigned lib, char *msg, size_t ml) {
    if (libs[lib]) return 0;
    if (!lib_err[lib][0]) {
        char path[600];
        snprintf(path, sizeof path, "%s/lib64/%s", ICUDA_CUDA_HOME, clib_sonames[lib]);
        libs[lib] = dlopen(clib_sonames[lib], RTLD_NOW | RTLD_LOCAL);
        const char *why = libs[lib] ? NULL : dlerror();
        if (!libs[lib]) libs[lib] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!libs[lib] && lib == LIB_NCCL)
            snprintf(lib_err[lib], sizeof lib_err[lib], "the NCCL library (%s) could not be loaded in the GPU worker: "
                     "%s; install NCCL (Debian and Ubuntu: libnccl2; pip: nvidia-nccl-cu13, its lib folder on "
                     "LD_LIBRARY_PATH when the kernel starts)", clib_sonames[lib], why ? why : "not found");
        else if (!libs[lib])
            snprintf(lib_err[lib], sizeof lib_err[lib], "the %s library (%s) could not be loaded in the GPU worker: %s; "
                     "is it installed with the CUDA toolkit (%s/lib64)?", clib_names[lib], clib_sonames[lib],
                     why ? why : "not found", ICUDA_CUDA_HOME);
    }
    if (libs[lib]) return 0;
    snprintf(msg, ml, "%s", lib_err[lib]);
    return CUDA_ERROR_NOT_FOUND;
}

int worker_lib_resolve(unsigned lib, unsigned ix, const crt_stub_t **st, void **fn, char *msg, size_t ml) {
    if (lib == 0 || lib >= NLIBS || ix >= (unsigned)clib_nstubs || !clib_sonames[lib][0]) {
        snprintf(msg, ml, "no library function number %u:%u in this worker", lib, ix);
        return CUDA_ERROR_INVALID_VALUE;
    }
    *st = &clib_stubs[ix];
    if (!fns && !(fns = calloc((size_t)clib_nstubs, sizeof *fns))) return CUDA_ERROR_OUT_OF_MEMORY;
    int r = load(lib, msg, ml);
    if (r) return r;
    if (!fns[ix] && !(fns[ix] = dlsym(libs[lib], (*st)->name))) {
        snprintf(msg, ml, "%s is not in this machine's %s library %s (older than the headers icuda was built with?)",
                 (*st)->name, clib_names[lib], clib_sonames[lib]);
        return CUDA_ERROR_NOT_FOUND;
    }
    *fn = fns[ix];
    return 0;
}

void worker_lib_explain(unsigned lib, long long status, char *msg, size_t ml) {
    if (!status || lib != LIB_NCCL || !libs[lib] || msg[0]) return;
    /* NCCL keeps a sentence about its last failure (what NCCL_DEBUG=WARN would print) */
    const char *(*last)(void *);
    *(void **)&last = dlsym(libs[lib], "ncclGetLastError");
    const char *s = last ? last(NULL) : NULL;
    if (s && *s) snprintf(msg, ml, "%s", s);
}
