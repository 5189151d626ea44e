/* cuRAND, cuBLAS, cuFFT and NCCL from host cells: every function of
 * curand.h, cublas_v2.h, cufft.h and nccl.h, read from the headers at build time
 * (tools/gen_cuda_libs.py: build/gen/clib_table.c), forwarded to the GPU
 * worker like the runtime API's (cuda_forward.c translates and checks the
 * arguments), where the library is loaded with dlopen on first use
 * (worker_libs.c).
 *
 * Here: which functions are refused and why, the checks only a library's
 * rules allow (cuda_lib_checks.c: a buffer against the count a call
 * writes), the handles (generators, cuBLAS handles, cuFFT plans are the
 * worker's values: a restart loses them, and a handle this session did not
 * make never reaches the worker), and the library's own status in return:
 * a failing call used as a statement is an error of the cell named by the
 * status (CUBLAS_STATUS_INVALID_VALUE, ...). NVTX is cuda_nvtx.c's; NCCL's
 * communicators and groups are cuda_nccl.c's. */
#include "cuda_libs.h"

#include "runtime/base/vec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the table ---- */

int clib_find(const char *name) {
    static int *ix;
    return crt_lookup(clib_fns, clib_nfns, &ix, name);
}

long long clib_const(const char *name, long long dflt) {
    for (int i = 0; i < clib_nconsts; i++)
        if (!strcmp(clib_consts[i].name, name)) return clib_consts[i].value;
    return dflt;
}

/* ---- statuses ---- */

/* In our own words: what each status means for the caller. */
static const struct { const char *name, *text; } status_texts[] = {
    {"CURAND_STATUS_VERSION_MISMATCH", "the header and the cuRAND library are of different versions"},
    {"CURAND_STATUS_NOT_INITIALIZED", "the generator was not created, or is gone"},
    {"CURAND_STATUS_ALLOCATION_FAILED", "cuRAND could not allocate the memory it needs"},
    {"CURAND_STATUS_TYPE_ERROR", "the generator is of the wrong kind for this call"},
    {"CURAND_STATUS_OUT_OF_RANGE", "an argument is out of range"},
    {"CURAND_STATUS_LENGTH_NOT_MULTIPLE", "the count must be a multiple of the generator's dimension (normal "
                                          "distributions from pseudo-random generators need an even count)"},
    {"CURAND_STATUS_DOUBLE_PRECISION_REQUIRED", "the GPU does not support double precision"},
    {"CURAND_STATUS_LAUNCH_FAILURE", "a kernel of cuRAND failed to launch"},
    {"CURAND_STATUS_PREEXISTING_FAILURE", "an earlier error was not cleared"},
    {"CURAND_STATUS_INITIALIZATION_FAILED", "cuRAND could not start on the GPU"},
    {"CURAND_STATUS_ARCH_MISMATCH", "the GPU's architecture does not support this"},
    {"CURAND_STATUS_INTERNAL_ERROR", "cuRAND failed internally"},
    {"CUBLAS_STATUS_NOT_INITIALIZED", "the cuBLAS handle was not created (cublasCreate), or is gone"},
    {"CUBLAS_STATUS_ALLOC_FAILED", "cuBLAS could not allocate the memory it needs"},
    {"CUBLAS_STATUS_INVALID_VALUE", "an argument is invalid (a negative size, a leading dimension smaller than the "
                                    "rows, an increment of 0, ...)"},
    {"CUBLAS_STATUS_ARCH_MISMATCH", "the GPU does not support this operation"},
    {"CUBLAS_STATUS_MAPPING_ERROR", "cuBLAS could not reach GPU memory"},
    {"CUBLAS_STATUS_EXECUTION_FAILED", "a kernel of cuBLAS failed to run"},
    {"CUBLAS_STATUS_INTERNAL_ERROR", "cuBLAS failed internally"},
    {"CUBLAS_STATUS_NOT_SUPPORTED", "this combination of arguments is not supported"},
    {"CUBLAS_STATUS_LICENSE_ERROR", "the cuBLAS license check failed"},
    {"CUFFT_INVALID_PLAN", "the plan handle is not a live plan"},
    {"CUFFT_ALLOC_FAILED", "cuFFT could not allocate the memory it needs"},
    {"CUFFT_INVALID_TYPE", "the transform type is not valid"},
    {"CUFFT_INVALID_VALUE", "an argument is invalid (a NULL pointer, a buffer of the wrong size, ...)"},
    {"CUFFT_INTERNAL_ERROR", "cuFFT failed internally"},
    {"CUFFT_EXEC_FAILED", "the transform failed to run on the GPU"},
    {"CUFFT_SETUP_FAILED", "cuFFT could not start on the GPU"},
    {"CUFFT_INVALID_SIZE", "a transform size is not valid"},
    {"CUFFT_UNALIGNED_DATA", "the data are not aligned as cuFFT needs"},
    {"CUFFT_INVALID_DEVICE", "the plan was made on another device"},
    {"CUFFT_NO_WORKSPACE", "the plan has no work area"},
    {"CUFFT_NOT_IMPLEMENTED", "cuFFT does not implement this"},
    {"CUFFT_NOT_SUPPORTED", "this is not supported for these arguments"},
    {"CUFFT_MISSING_DEPENDENCY", "a library cuFFT needs is missing"},
    {"CUFFT_NVRTC_FAILURE", "cuFFT's run-time compilation failed"},
    {"CUFFT_NVJITLINK_FAILURE", "cuFFT's run-time linking failed"},
    {"CUFFT_NVSHMEM_FAILURE", "cuFFT's NVSHMEM use failed"},
    {"ncclUnhandledCudaError", "a CUDA call NCCL made failed"},
    {"ncclSystemError", "a system call failed, or the NCCL library could not be loaded"},
    {"ncclInternalError", "NCCL failed internally"},
    {"ncclInvalidArgument", "an argument is invalid (a NULL or too small buffer, a bad count, datatype, rank or "
                            "communicator)"},
    {"ncclInvalidUsage", "NCCL is used in a way it does not allow (or that would wait forever)"},
    {"ncclRemoteError", "another rank or process failed"},
    {"ncclInProgress", "the operation is still in progress"},
    {"ncclNumResults", "not a result NCCL returns"},
};

const char *clib_status_name(int lib, int value) {
    for (int i = 0; i < clib_nstatuses; i++)
        if (clib_statuses[i].lib == lib && clib_statuses[i].value == value) return clib_statuses[i].name;
    return NULL;
}

const char *clib_status_text(const char *name) {
    for (size_t i = 0; name && i < sizeof status_texts / sizeof status_texts[0]; i++)
        if (!strcmp(status_texts[i].name, name)) return status_texts[i].text;
    return "an error of the library";
}

/* The library's status for what icuda found before the call: a misuse, a
 * refusal, no GPU, a library that could not be loaded. */
static int status_for(int lib, int cuda_code, bool hard) {
    static const char *const misuse[] = {"", "CURAND_STATUS_OUT_OF_RANGE", "CUBLAS_STATUS_INVALID_VALUE",
                                         "CUFFT_INVALID_VALUE", "ncclInvalidArgument"};
    static const char *const refused[] = {"", "CURAND_STATUS_TYPE_ERROR", "CUBLAS_STATUS_NOT_SUPPORTED",
                                          "CUFFT_NOT_SUPPORTED", "ncclInvalidUsage"};
    static const char *const setup[] = {"", "CURAND_STATUS_INITIALIZATION_FAILED", "CUBLAS_STATUS_NOT_INITIALIZED",
                                        "CUFFT_SETUP_FAILED", "ncclSystemError"};
    const char *n = cuda_code == CUDA_ERR_NOT_SUPPORTED ? refused[lib]
                    : cuda_code == CUDA_ERR_INVALID_VALUE && hard ? misuse[lib]
                                                                 : setup[lib];
    return (int)clib_const(n, 1);
}

/* ---- the session's handles ---- */

cs_libs_t *clib_state(cuda_session_t *cs) {
    if (!cs->libs) {
        cs->libs = xcalloc(1, sizeof *cs->libs);
    }
    return cs->libs;
}

void cs_libs_free(cuda_session_t *cs) {
    if (!cs->libs) return;
    free(cs->libs->h);
    cs_nvtx_free(cs->libs);
    cs_nccl_free(cs->libs);
    free(cs->libs);
    cs->libs = NULL;
}

clib_handle_t *clib_handle(cs_libs_t *L, int lib, uint64_t value) {
    for (int i = 0; i < L->nh; i++)
        if (L->h[i].lib == lib && L->h[i].value == value) return &L->h[i];
    return NULL;
}

static clib_handle_t *add_handle(cs_libs_t *L, int lib, uint64_t value, unsigned restarts) {
    clib_handle_t *h = clib_handle(L, lib, value);
    if (!h) {
        ARRAY_GROW(L->h, L->nh, L->caph);
        h = &L->h[L->nh++];
    }
    memset(h, 0, sizeof *h);
    h->lib = lib;
    h->value = value;
    h->restarts = restarts;
    return h;
}

static void drop_handle(cs_libs_t *L, clib_handle_t *h) { *h = L->h[--L->nh]; }

static const char *handle_words(int lib) {
    return lib == CLIB_CURAND ? "generator" : lib == CLIB_CUBLAS ? "cuBLAS handle" : "cuFFT plan";
}

/* The handle argument a call starts with: one this session made, on the
 * worker that is running now. */
static int check_handle(cs_call_t *c, const crt_fn_t *f, int lib, cs_libs_t *L) {
    if (!f->nparams || c->n < 1) return 0;
    const char *t = f->params[0].type;
    if (strcmp(t, "curandGenerator_t") && strcmp(t, "cublasHandle_t") && strcmp(t, "cufftHandle")) return 0;
    uint64_t v = c->a[0].bits;
    clib_handle_t *h = clib_handle(L, lib, v);
    if (!h) {
        c->lib_status = (int)clib_const(lib == CLIB_CURAND ? "CURAND_STATUS_NOT_INITIALIZED"
                                        : lib == CLIB_CUBLAS ? "CUBLAS_STATUS_NOT_INITIALIZED" : "CUFFT_INVALID_PLAN", 1);
        c->hard = true;
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s is not a %s this session made (create it first%s)",
                         call_arg_name(&c->a[0]), handle_words(lib),
                         lib == CLIB_CURAND ? " with curandCreateGenerator" : lib == CLIB_CUBLAS ? " with cublasCreate"
                                                                                 : " with cufftPlan1d or cufftCreate");
    }
    if (h->restarts != c->cs->restarts) {
        c->lib_status = (int)clib_const(lib == CLIB_CURAND ? "CURAND_STATUS_NOT_INITIALIZED"
                                        : lib == CLIB_CUBLAS ? "CUBLAS_STATUS_NOT_INITIALIZED" : "CUFFT_INVALID_PLAN", 1);
        c->hard = true;
        return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s was made by a GPU worker that has since restarted, and the %s "
                         "went with it: create it again", call_arg_name(&c->a[0]), handle_words(lib));
    }
    return 0;
}

static bool is_destroy(const char *n) {
    return !strcmp(n, "curandDestroyGenerator") || !strcmp(n, "cublasDestroy_v2") || !strcmp(n, "cufftDestroy");
}

/* What a successful call made: a generator, a handle, a plan (with the
 * sizes the exec checks use). */
static void after(cs_call_t *c, int lib, cs_libs_t *L) {
    const char *n = c->name;
    if (is_destroy(n)) {
        clib_handle_t *h = clib_handle(L, lib, c->a[0].bits);
        if (h) drop_handle(L, h);
        return;
    }
    bool made = !strncmp(n, "curandCreateGenerator", 21) || !strcmp(n, "cublasCreate_v2") ||
                !strncmp(n, "cufftPlan", 9) || !strcmp(n, "cufftCreate");
    if (made && c->a[0].host && c->a[0].avail >= 4) {
        uint64_t v = 0;
        memcpy(&v, c->a[0].host, lib == CLIB_CUFFT ? 4 : 8);
        clib_handle_t *h = add_handle(L, lib, v, c->cs->restarts);
        h->host_gen = !strcmp(n, "curandCreateGeneratorHost");
        if (lib == CLIB_CUFFT) clib_plan_made(c, h);
        c->cs->runtime_objects = true;
    } else if (!strncmp(n, "cufftMakePlan", 13)) {
        clib_handle_t *h = clib_handle(L, lib, c->a[0].bits);
        if (h) clib_plan_made(c, h);
    }
}

/* ---- refusals ---- */

static const char *refusal(const crt_fn_t *f) {
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i].kind == CRT_FNPTR || f->params[i].pointee == CRT_PT_FN)
            return "it takes a host function (a callback) the library would call in the GPU worker, which cannot run "
                   "a cell's interpreted code";
    if (f->ret != CRT_RET_ERROR)
        return "it returns no status (a string or a number), which icuda's forwarding cannot carry; the status name "
               "of a failing call is in its error";
    return NULL;
}

void clib_coverage(int lib, int *total, int *forwarded, int *callbacks, int *no_status) {
    *total = *forwarded = *callbacks = *no_status = 0;
    for (int i = 0; i < clib_nfns; i++) {
        if (clib_fn_lib[i] != lib) continue;
        (*total)++;
        const char *why = refusal(&clib_fns[i]);
        if (!why) (*forwarded)++;
        else if (strstr(why, "callback")) (*callbacks)++;
        else (*no_status)++;
    }
}

/* curand_init, curand_uniform, ...: curand_kernel.h's device functions */
static bool device_rng(const char *name) { return !strncmp(name, "curand_", 7) || !strncmp(name, "__curand", 8); }

bool cs_lib_knows(const char *name) { return !strncmp(name, "nvtx", 4) || device_rng(name) || clib_find(name) >= 0; }

int cs_lib_call(cuda_session_t *cs, const char *name, const interp_arg_t *args, int nargs, int discarded, int64_t *ret,
                char *ename, char *msg, size_t msglen) {
    if (!strncmp(name, "nvtx", 4)) return cs_nvtx_call(cs, name, args, nargs, ret, ename, msg, msglen);
    if (device_rng(name)) {
        snprintf(ename, INTERP_ENAME_MAX, "TypeError");
        snprintf(msg, msglen, "%s is a device function of curand_kernel.h: it runs in a __global__ kernel, not in host "
                 "code. Host code allocates the states (cudaMalloc(&states, n * sizeof(curandState))) and a kernel "
                 "calls curand_init on each; for random numbers from host code, use the cuRAND host API "
                 "(curandCreateGenerator, curandGenerateUniform)", name);
        return -1;
    }
    int ix = clib_find(name);
    const crt_fn_t *f = &clib_fns[ix];
    int lib = clib_fn_lib[ix];
    cs_libs_t *L = clib_state(cs);
    cs_call_t c = {cs, name, args, nargs, msg, msglen, false, 0};
    msg[0] = 0;
    const char *why = refusal(f);
    int code;
    if (why) {
        c.hard = true;
        code = call_fail(&c, CUDA_ERR_NOT_SUPPORTED, "icuda does not support %s: %s", name, why);
    } else if (nargs != f->nparams) {
        code = call_misuse(&c, "takes %d argument%s, not %d: %s", f->nparams, f->nparams == 1 ? "" : "s", nargs, f->proto);
    } else if (lib == CLIB_NCCL) {
        code = cs_nccl_call(&c, f, ix, L);
    } else if (!(code = clib_check(&c, f, lib, L)) && !(code = check_handle(&c, f, lib, L))) {
        code = cs_forward_fn(&c, f, clib_ptrfields, (unsigned)lib << 24 | (unsigned)ix, lib);
        if (!code) after(&c, lib, L);
    }
    if (code == -2) {
        snprintf(ename, INTERP_ENAME_MAX, "KeyboardInterrupt");
        return -1;
    }
    int status = !code ? 0 : c.lib_status ? c.lib_status : status_for(lib, code, c.hard);
    if (status && (c.hard || discarded)) {
        const char *sn = clib_status_name(lib, status);
        snprintf(ename, INTERP_ENAME_MAX, "%s", sn ? sn : "RuntimeError");
        char detail[600];
        snprintf(detail, sizeof detail, "%s", msg);
        /* "name: detail" from the forwarder; the status's meaning first */
        const char *d = !strncmp(detail, name, strlen(name)) && detail[strlen(name)] == ':' ? detail + strlen(name) + 2
                                                                                             : detail;
        snprintf(msg, msglen, "%s returned %s (%s)%s%s", name, sn ? sn : "an error", clib_status_text(sn),
                 *d ? ": " : "", d);
        return -1;
    }
    *ret = status;
    return 0;
}
