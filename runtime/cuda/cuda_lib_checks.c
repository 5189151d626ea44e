/* The extents the host libraries' calls give, checked against the buffers
 * before anything is sent (so a too-small buffer is a message naming the
 * variable, not memory the GPU overwrites): cuRAND's output arrays, cuBLAS's
 * vectors (1 + (n-1)*|inc| elements) and matrices (ld*cols elements, ld at
 * least the rows), and cuFFT's buffers against the plan's sizes. The
 * parameters are found by the names the headers give them (n, incx, lda,
 * transa, ...), so each rule covers a whole family and its S/D/C/Z, _64
 * and batched variants. */
#include "cuda_libs.h"

#include <stdio.h>
#include <string.h>

static int pidx(const crt_fn_t *f, const char *name) {
    for (int i = 0; i < f->nparams; i++)
        if (!strcmp(f->params[i].name, name)) return i;
    return -1;
}

static long long ival(cs_call_t *c, int i) { return i < 0 ? 0 : (long long)call_ival(&c->a[i]); }

/* Whether argument i's buffer is known (device or host memory of this
 * session), so its extent can be checked. */
static bool known(cs_call_t *c, int i) {
    const interp_arg_t *a = &c->a[i];
    return a->is_pointer && a->bits && a->place != INTERP_PLACE_NONE && a->place != INTERP_PLACE_UNKNOWN;
}

static int need(cs_call_t *c, const crt_fn_t *f, int i, unsigned long long elems, unsigned es, const char *why) {
    if (i < 0 || !known(c, i) || !es) return 0;
    const interp_arg_t *a = &c->a[i];
    if (elems <= a->avail / es) return 0;
    return call_misuse(c, "argument %d (%s) has room for %llu element%s of %u bytes, and %s needs %llu (%s); the "
                       "function is %s", i + 1, call_arg_name(a), (unsigned long long)(a->avail / es),
                       a->avail / es == 1 ? "" : "s", es, c->name, elems, why, f->proto);
}

/* ---- cuRAND ---- */

static int check_curand(cs_call_t *c, const crt_fn_t *f, cs_libs_t *L) {
    if (strncmp(c->name, "curandGenerate", 14) || f->nparams < 3 || strcmp(f->params[1].name, "outputPtr")) return 0;
    long long n = ival(c, 2);
    clib_handle_t *h = clib_handle(L, CLIB_CURAND, c->a[0].bits);
    const interp_arg_t *o = &c->a[1];
    if (h && known(c, 1)) {
        bool dev = o->place == INTERP_PLACE_DEVICE || o->place == INTERP_PLACE_MANAGED;
        if (h->host_gen && o->place == INTERP_PLACE_DEVICE)
            return call_misuse(c, "argument 2 (%s) is device memory, and %s is a host generator "
                               "(curandCreateGeneratorHost), which writes host memory", call_arg_name(o),
                               call_arg_name(&c->a[0]));
        if (!h->host_gen && !dev && o->place != INTERP_PLACE_PINNED)
            return call_misuse(c, "argument 2 (%s) is host memory, and %s is a device generator "
                               "(curandCreateGenerator), which writes device memory: cudaMalloc the output, or use "
                               "curandCreateGeneratorHost", call_arg_name(o), call_arg_name(&c->a[0]));
    }
    char why[64];
    snprintf(why, sizeof why, "%s = %lld", f->params[2].name, n);
    return n < 0 ? 0 : need(c, f, 1, (unsigned long long)n, f->params[1].pointee_size, why);
}

/* ---- cuBLAS ---- */

static unsigned long long vec_len(long long n, long long inc) {
    if (n <= 0) return 0;
    return 1 + (unsigned long long)(n - 1) * (unsigned long long)(inc < 0 ? -inc : inc);
}

/* An element's bytes for cudaDataType t (cublasGemmEx's Atype ...). */
static unsigned dtype_size(long long t) {
    static const struct { const char *name; unsigned size; } ts[] = {
        {"CUDA_R_16F", 2}, {"CUDA_C_16F", 4}, {"CUDA_R_16BF", 2}, {"CUDA_C_16BF", 4}, {"CUDA_R_32F", 4},
        {"CUDA_C_32F", 8}, {"CUDA_R_64F", 8}, {"CUDA_C_64F", 16}, {"CUDA_R_8I", 1}, {"CUDA_C_8I", 2},
        {"CUDA_R_8U", 1}, {"CUDA_C_8U", 2}, {"CUDA_R_32I", 4}, {"CUDA_C_32I", 8},
    };
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++)
        if (clib_const(ts[i].name, -1) == t) return ts[i].size;
    return 0;
}

static unsigned elem_size(cs_call_t *c, const crt_fn_t *f, int i, const char *typeparam) {
    if (f->params[i].pointee_size) return f->params[i].pointee_size;
    int t = pidx(f, typeparam);
    return t < 0 ? 0 : dtype_size(ival(c, t));
}

/* Matrix M (rows x cols, leading dimension ld): ld >= rows, and room for
 * ld*cols elements (per batch, with a stride). */
static int check_matrix(cs_call_t *c, const crt_fn_t *f, const char *m, const char *ldn, const char *tname,
                        long long rows, long long cols) {
    int i = pidx(f, m), l = pidx(f, ldn);
    if (i < 0 || l < 0) return 0;
    long long ld = ival(c, l);
    if (rows > 0 && ld < rows)
        return call_misuse(c, "%s (argument %d) is %lld, less than the %lld rows of %s: the leading dimension of a "
                           "column-major matrix is at least its rows; the function is %s", ldn, l + 1, ld, rows, m,
                           f->proto);
    if (rows <= 0 || cols <= 0) return 0;
    char sname[32], cname[32], why[96];
    snprintf(sname, sizeof sname, "stride%s", m);
    snprintf(cname, sizeof cname, "%s", "batchCount");
    long long stride = pidx(f, sname) >= 0 ? ival(c, pidx(f, sname)) : 0, batch = pidx(f, cname) >= 0 && stride
                                                                                       ? ival(c, pidx(f, cname)) : 1;
    unsigned long long n = (unsigned long long)ld * (unsigned long long)(cols - 1) + (unsigned long long)rows;
    if (batch > 1) n += (unsigned long long)stride * (unsigned long long)(batch - 1);
    snprintf(why, sizeof why, "%s is %lld x %lld with %s = %lld%s", m, rows, cols, ldn, ld,
             batch > 1 ? ", times the batch" : "");
    return need(c, f, i, n, elem_size(c, f, i, tname), why);
}

static int check_vector(cs_call_t *c, const crt_fn_t *f, const char *v, const char *inc, long long n) {
    int i = pidx(f, v), k = pidx(f, inc);
    if (i < 0 || k < 0 || f->params[i].kind != CRT_PTR) return 0;
    char why[96];
    snprintf(why, sizeof why, "%lld elements %s %lld apart", n, inc, ival(c, k));
    return need(c, f, i, vec_len(n, ival(c, k)), f->params[i].pointee_size, why);
}

static int check_cublas(cs_call_t *c, const crt_fn_t *f) {
    long long N = clib_const("CUBLAS_OP_N", 0);
    int m = pidx(f, "m"), n = pidx(f, "n"), k = pidx(f, "k"), ta = pidx(f, "transa"), tb = pidx(f, "transb"),
        t = pidx(f, "trans");
    bool batched_ptrs = strstr(c->name, "Batched") && !strstr(c->name, "Strided");
    int r = 0;
    if (m >= 0 && n >= 0 && k >= 0 && ta >= 0 && tb >= 0 && pidx(f, "C") >= 0) { /* gemm */
        long long M = ival(c, m), Nn = ival(c, n), K = ival(c, k);
        bool na = ival(c, ta) == N, nb = ival(c, tb) == N;
        if (batched_ptrs) { /* arrays of pointers: the leading dimensions only */
            r = check_matrix(c, f, "A", "lda", "", na ? M : K, 0);
            if (!r) r = check_matrix(c, f, "B", "ldb", "", nb ? K : Nn, 0);
            if (!r) r = check_matrix(c, f, "C", "ldc", "", M, 0);
            return r;
        }
        if (!r) r = check_matrix(c, f, "A", "lda", "Atype", na ? M : K, na ? K : M);
        if (!r) r = check_matrix(c, f, "B", "ldb", "Btype", nb ? K : Nn, nb ? Nn : K);
        if (!r) r = check_matrix(c, f, "C", "ldc", "Ctype", M, Nn);
        return r;
    }
    if (m >= 0 && n >= 0 && pidx(f, "A") >= 0 && pidx(f, "incx") >= 0 && pidx(f, "kl") < 0 && !batched_ptrs) {
        long long M = ival(c, m), Nn = ival(c, n);
        bool notrans = t < 0 || ival(c, t) == N; /* gemv, or ger (no trans) */
        r = check_matrix(c, f, "A", "lda", "", M, Nn);
        if (!r) r = check_vector(c, f, "x", "incx", t < 0 ? M : notrans ? Nn : M);
        if (!r) r = check_vector(c, f, "y", "incy", t < 0 ? Nn : notrans ? M : Nn);
        return r;
    }
    if (n >= 0 && m < 0 && pidx(f, "A") < 0 && pidx(f, "AP") < 0 && pidx(f, "incx") >= 0) { /* level 1 */
        long long Nn = ival(c, n);
        r = check_vector(c, f, "x", "incx", Nn);
        if (!r) r = check_vector(c, f, "y", "incy", Nn);
    }
    return r;
}

/* ---- cuFFT ---- */

void clib_plan_made(cs_call_t *c, clib_handle_t *h) {
    const char *n = c->name;
    int rank = 0;
    long long dims[3] = {0, 0, 0}, type = -1, batch = 1;
    if (!strcmp(n, "cufftPlan1d") || !strcmp(n, "cufftMakePlan1d")) {
        rank = 1, dims[0] = ival(c, 1), type = ival(c, 2), batch = ival(c, 3);
    } else if (!strcmp(n, "cufftPlan2d") || !strcmp(n, "cufftMakePlan2d")) {
        rank = 2, dims[0] = ival(c, 1), dims[1] = ival(c, 2), type = ival(c, 3);
    } else if (!strcmp(n, "cufftPlan3d") || !strcmp(n, "cufftMakePlan3d")) {
        rank = 3, dims[0] = ival(c, 1), dims[1] = ival(c, 2), dims[2] = ival(c, 3), type = ival(c, 4);
    } else if ((!strcmp(n, "cufftPlanMany") || !strcmp(n, "cufftMakePlanMany")) && c->n >= 11 && !c->a[3].bits &&
               !c->a[6].bits && c->a[2].host) {
        /* the default layout only (no inembed/onembed): contiguous transforms */
        rank = (int)ival(c, 1);
        if (rank < 1 || rank > 3 || c->a[2].avail < (uint64_t)rank * 4) return;
        for (int i = 0; i < rank; i++) dims[i] = ((const int *)c->a[2].host)[i];
        type = ival(c, 9), batch = ival(c, 10);
    }
    if (rank) {
        h->rank = rank, h->type = (int)type, h->batch = batch;
        memcpy(h->n, dims, sizeof dims);
    }
}

static int check_cufft(cs_call_t *c, const crt_fn_t *f, cs_libs_t *L) {
    if (strncmp(c->name, "cufftExec", 9) || f->nparams < 3) return 0;
    clib_handle_t *h = clib_handle(L, CLIB_CUFFT, c->a[0].bits);
    if (!h || !h->rank || h->batch < 1) return 0;
    unsigned long long all = (unsigned long long)h->batch, half = all;
    for (int i = 0; i < h->rank; i++) {
        if (h->n[i] < 1) return 0;
        all *= (unsigned long long)h->n[i];
        half *= (unsigned long long)(i == h->rank - 1 ? h->n[i] / 2 + 1 : h->n[i]);
    }
    const char *kind = c->name + 9; /* C2C, R2C, ... */
    bool real_in = kind[0] == 'R' || kind[0] == 'D', real_out = kind[2] == 'R' || kind[2] == 'D';
    char why[96];
    snprintf(why, sizeof why, "the plan is %lld", h->n[0]);
    for (int i = 1; i < h->rank; i++) snprintf(why + strlen(why), sizeof why - strlen(why), " x %lld", h->n[i]);
    snprintf(why + strlen(why), sizeof why - strlen(why), ", batch %lld", h->batch);
    int r = need(c, f, 1, real_in ? all : (real_out ? half : all), f->params[1].pointee_size, why);
    if (!r) r = need(c, f, 2, real_out ? all : (real_in ? half : all), f->params[2].pointee_size, why);
    return r;
}

int clib_check(cs_call_t *c, const crt_fn_t *f, int lib, cs_libs_t *L) {
    switch (lib) {
    case CLIB_CURAND: return check_curand(c, f, L);
    case CLIB_CUBLAS: return check_cublas(c, f);
    case CLIB_CUFFT: return check_cufft(c, f, L);
    }
    return 0;
}
