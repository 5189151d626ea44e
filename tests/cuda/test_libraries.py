"""cuRAND, cuBLAS, cuFFT and NVTX in host code, without a GPU (CI): the
device-library types with their true sizes (tests/unit/test_cuda_libs.c
compares every layout with gcc's and g++'s), the libraries' names and
constants, the checks that fire before anything is sent, and the clear
"no GPU" error of a call that would need the worker."""
import support
from support import err, ok, shared_kernel


def test_device_library_types_have_their_sizes():
    with shared_kernel() as k:
        out = support.stdout_of(ok(k, """#include <curand_kernel.h>
#include <cuda_fp16.h>
#include <cuComplex.h>
printf("%zu %zu %zu %zu\\n", sizeof(curandState), sizeof(curandStateXORWOW_t), sizeof(curandStatePhilox4_32_10_t),
       sizeof(curandStateMRG32k3a));
printf("%zu %zu %zu\\n", sizeof(curandStateSobol32_t), sizeof(curandStateMtgp32_t), _Alignof(curandState));
printf("%zu %zu %zu %zu %zu\\n", sizeof(__half), sizeof(__half2), _Alignof(__half2), sizeof(__nv_bfloat16),
       sizeof(__nv_bfloat162));
cuComplex z = make_cuComplex(3, 4); cuDoubleComplex w = make_cuDoubleComplex(1, -2);
cuFloatComplex p = cuCmulf(z, z);
printf("%zu %zu %g %g %g %g %g\\n", sizeof(cuComplex), sizeof(cuDoubleComplex), cuCrealf(z), cuCimag(w),
       cuCabsf(z), cuCrealf(p), cuCimagf(p));"""))
        assert out.splitlines() == ["48 48 64 48", "140 4112 8", "2 4 4 2 4", "8 16 3 -2 5 -7 24"], out


def test_states_are_allocated_with_sizeof_without_a_gpu():
    if support.GPU:
        return
    with shared_kernel() as k:
        e, v = err(k, "#include <curand_kernel.h>\ncurandState *states;\n"
                      "cudaMalloc(&states, 256 * sizeof(curandState));")
        assert e.startswith("cuda") and "undeclared" not in v, v
        # host code never runs the device functions of curand_kernel.h
        e, v = err(k, "curandState s; curand_init(1, 0, 0, &s);")
        assert e == "TypeError" and "curand_init is a device function of curand_kernel.h" in v, (e, v)


def test_library_names_and_constants():
    with shared_kernel() as k:
        out = support.stdout_of(ok(k, """#include <curand.h>
#include <cublas_v2.h>
#include <cufft.h>
#include <nvtx3/nvToolsExt.h>
curandGenerator_t gen = 0; cublasHandle_t h = 0; cufftHandle plan = 0; cufftComplex c; cufftDoubleReal d;
curandRngType_t t = CURAND_RNG_PSEUDO_XORWOW; cublasOperation_t op = CUBLAS_OP_T; cufftType ft = CUFFT_R2C;
printf("%d %d %d %d %d\\n", t, op, ft, CUFFT_FORWARD, CUFFT_INVERSE);
printf("%d %d %d %d\\n", CURAND_STATUS_SUCCESS, CUBLAS_STATUS_INVALID_VALUE, CUFFT_INVALID_PLAN,
       CUBLAS_POINTER_MODE_DEVICE);
printf("%zu %zu %d\\n", sizeof c, sizeof d, CUDA_R_32F);"""))
        assert out.splitlines() == ["101 1 42 -1 1", "0 7 1 1", "8 8 0"], out


def test_calls_without_a_gpu_are_clear_errors():
    if support.GPU:
        return
    with shared_kernel() as k:
        e, v = err(k, "curandGenerator_t g; curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);")
        assert e == "CURAND_STATUS_INITIALIZATION_FAILED" and "curandCreateGenerator" in v, (e, v)
        e, v = err(k, "cublasHandle_t h; cublasCreate(&h);")
        assert e == "CUBLAS_STATUS_NOT_INITIALIZED" and "cublasCreate_v2" in v, (e, v)
        e, v = err(k, "cufftHandle p; cufftPlan1d(&p, 64, CUFFT_C2C, 1);")
        assert e == "CUFFT_SETUP_FAILED", (e, v)
        # the status is the call's value when it is kept
        out = support.stdout_of(ok(k, "cublasHandle_t h2; cublasStatus_t s = cublasCreate(&h2); printf(\"%d\\n\", s);"))
        assert out.strip() == "1", out
        # a handle this session did not make never reaches the worker
        e, v = err(k, "cublasSetStream((cublasHandle_t)0x1234, 0);")
        assert e == "CUBLAS_STATUS_NOT_INITIALIZED" and "not a cuBLAS handle this session made" in v, v
        e, v = err(k, "float *x = 0; curandGenerateUniform((curandGenerator_t)0, x, 10);")
        assert e == "CURAND_STATUS_NOT_INITIALIZED", (e, v)


def test_refused_functions_say_why():
    with shared_kernel() as k:
        e, v = err(k, "cublasSetLoggerCallback(0);")
        assert e == "CUBLAS_STATUS_NOT_SUPPORTED" and "callback" in v, (e, v)
        e, v = err(k, "cublasSgemm(0, CUBLAS_OP_N);")
        assert "takes 14 arguments" in v, (e, v)


def test_nvtx_ranges_without_a_gpu():
    with shared_kernel() as k:
        out = support.stdout_of(ok(k, """#include <nvtx3/nvToolsExt.h>
int a = nvtxRangePushA("outer"); int b = nvtxRangePushA("inner"); nvtxMarkA("here");
int c = nvtxRangePop(); int d = nvtxRangePop(); int e = nvtxRangePop();
nvtxRangeId_t id = nvtxRangeStartA("io"); nvtxRangeEnd(id);
printf("%d %d %d %d %d %d\\n", a, b, c, d, e, id > 0);"""))
        assert out.strip() == "0 1 1 0 -1 1", out
        e, v = err(k, "nvtxRangePushW(0);")
        assert "nvtxRangePushA" in v, (e, v)


def test_extents_are_checked_before_anything_is_sent():
    with shared_kernel() as k:
        ok(k, "float *small = (float *)malloc(10 * sizeof(float)); float a = 1, b = 0;")
        e, v = err(k, "curandGenerateUniform((curandGenerator_t)0, small, 100);")
        assert e == "CURAND_STATUS_OUT_OF_RANGE" and "small" in v and "room for 10 elements" in v and \
            "num = 100" in v, v
        # a misuse is an error even when the status is kept (as for the runtime API)
        e, v = err(k, "curandStatus_t s = curandGenerateNormal((curandGenerator_t)0, small, 12, 0, 1);")
        assert e == "CURAND_STATUS_OUT_OF_RANGE" and "needs 12 (n = 12)" in v, v
        e, v = err(k, "cublasSgemm((cublasHandle_t)0, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &a, small, 2, small, 4, &b, "
                      "small, 4);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "lda (argument 9) is 2, less than the 4 rows of A" in v, v
        e, v = err(k, "cublasSgemm((cublasHandle_t)0, CUBLAS_OP_T, CUBLAS_OP_N, 4, 4, 4, &a, small, 4, small, 4, &b, "
                      "small, 4);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "A is 4 x 4 with lda = 4" in v and "needs 16" in v, v
        e, v = err(k, "cublasSaxpy((cublasHandle_t)0, 6, &a, small, 2, small, 1);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "needs 11" in v and "incx" in v, v
        e, v = err(k, "cublasSgemv((cublasHandle_t)0, CUBLAS_OP_N, 4, 3, &a, small, 4, small, 1, &b, small, 1);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "A is 4 x 3" in v, v
        # x has n = 3 elements without a transpose, m = 4 with one
        ok(k, "float *x3 = (float *)malloc(3 * sizeof(float)), *big = (float *)malloc(64 * sizeof(float));")
        e, v = err(k, "cublasSgemv((cublasHandle_t)0, CUBLAS_OP_T, 4, 3, &a, big, 4, x3, 1, &b, big, 1);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "x3" in v and "needs 4" in v, v
        e, v = err(k, "cufftExecC2C(0, 0, 0, CUFFT_FORWARD);")
        assert e == "CUFFT_INVALID_PLAN", (e, v)
        # within their extents, the calls go on to the handle, which no GPU made
        e, v = err(k, "cublasSaxpy((cublasHandle_t)0, 5, &a, small, 2, small, 1);")
        assert e == "CUBLAS_STATUS_NOT_INITIALIZED", (e, v)
