/* The toolkit's host libraries (cuRAND, cuBLAS, cuFFT) and NCCL as read
 * from their headers at build time (tools/gen_cuda_libs.py writes build/gen/clib_*.c):
 * every function with its parameters classified like the runtime API's
 * (cuda_rt_table.h), the library each belongs to, and the true layouts of
 * the types host code allocates for device libraries (curandState, __half,
 * cuComplex, ...). */
#ifndef ICUDA_CUDA_LIB_TABLE_H
#define ICUDA_CUDA_LIB_TABLE_H

#include "cuda_rt_table.h"

/* NCCL has no functions in the table where nccl.h was not found at build time. */
enum { CLIB_NONE, CLIB_CURAND, CLIB_CUBLAS, CLIB_CUFFT, CLIB_NCCL, CLIB_N };

typedef struct {
    const char *name;    /* "cuBLAS" */
    const char *header;  /* "cublas_v2.h" */
    const char *status;  /* "cublasStatus_t" */
    int id;
} clib_lib_t;

typedef struct {
    int lib;             /* CLIB_* */
    const char *name;    /* "CUBLAS_STATUS_NOT_INITIALIZED" */
    int value;
} clib_status_t;

#ifdef __cplusplus
extern "C" {
#endif
extern const crt_fn_t clib_fns[];
extern const unsigned char clib_fn_lib[]; /* CLIB_* of each function */
extern const int clib_nfns;
extern const crt_ptrfields_t clib_ptrfields[];
extern const crt_struct_t clib_structs[];
extern const int clib_nstructs;
extern const crt_field_t clib_fields[];
extern const int clib_nfields;
extern const crt_const_t clib_consts[];
extern const int clib_nconsts;
extern const clib_status_t clib_statuses[];
extern const int clib_nstatuses;
extern const clib_lib_t clib_libs[];
extern const int clib_nlibs;
extern const char clib_decl_text[];
extern const char clib_macro_text[];
/* g++'s layouts of the device-library types (build/gen/clib_ref.cc) */
extern const crt_struct_t clib_ref_structs[];
extern const int clib_ref_nstructs;
#ifdef __cplusplus
}
#endif

#endif
