"""cuRAND, cuBLAS, cuFFT and NVTX on a GPU (make test-gpu), each checked
against a reference the cell computes itself: statistics of the random
numbers, a host generator against the device generator, BLAS results
against host loops and a hand-written tiled kernel, FFTs of known signals,
NVTX ranges in %profile; and the RNG lesson both ways (device states
allocated with sizeof(curandState) in host code, and the host API),
estimating pi. Each cell checks its own results, as a CUDA program would.
The profile of NVTX ranges and the handles after a worker restart have a
kernel of their own; the others share one."""
import functools

import support
from support import kernel, needs_gpu, shared_kernel, stdout_of

# library calls on a GPU: more time than most cells
ok = functools.partial(support.ok, t=180)
err = functools.partial(support.err, t=180)


def out(k, code, t=180):
    """Runs a cell that must succeed; its stdout."""
    return stdout_of(ok(k, code, t=t))


CHECKS = """#include <curand.h>
#include <cublas_v2.h>
#include <cufft.h>
#define CURAND_CHECK(x) do { curandStatus_t s_ = (x); if (s_ != CURAND_STATUS_SUCCESS) { \\
    printf("%s: %d\\n", #x, s_); assert(0); } } while (0)
#define CUBLAS_CHECK(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { \\
    printf("%s: %d\\n", #x, s_); assert(0); } } while (0)
#define CUFFT_CHECK(x) do { cufftResult s_ = (x); if (s_ != CUFFT_SUCCESS) { \\
    printf("%s: %d\\n", #x, s_); assert(0); } } while (0)"""

STATS = """void stats(const float *v, int n, double *mean, double *var) {
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++) { s += v[i]; s2 += (double)v[i] * v[i]; }
    *mean = s / n; *var = s2 / n - *mean * *mean;
}"""


@needs_gpu
def test_curand_host_api_distributions():
    with shared_kernel() as k:
        ok(k, CHECKS)
        ok(k, STATS)
        text = out(k, """const int N = 1 << 20;
float *d, *h = (float *)malloc(N * sizeof(float));
double *dd, *hd = (double *)malloc(N * sizeof(double));
unsigned int *dp, *hp = (unsigned int *)malloc(N * sizeof(unsigned int));
cudaMalloc(&d, N * sizeof(float)); cudaMalloc(&dd, N * sizeof(double)); cudaMalloc(&dp, N * sizeof(unsigned int));
curandGenerator_t gen;
CURAND_CHECK(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
CURAND_CHECK(curandSetGeneratorOffset(gen, 0));
CURAND_CHECK(curandSetGeneratorOrdering(gen, CURAND_ORDERING_PSEUDO_DEFAULT));
double m, v;
CURAND_CHECK(curandGenerateUniform(gen, d, N));
cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
stats(h, N, &m, &v);
float lo = 2, hi = -1; for (int i = 0; i < N; i++) { if (h[i] < lo) lo = h[i]; if (h[i] > hi) hi = h[i]; }
printf("uniform %d %d %d\\n", fabs(m - 0.5) < 0.002, fabs(v - 1.0 / 12) < 0.002, lo > 0 && hi <= 1);
CURAND_CHECK(curandGenerateNormal(gen, d, N, 2.0f, 3.0f));
cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
stats(h, N, &m, &v);
printf("normal %d %d\\n", fabs(m - 2) < 0.02, fabs(sqrt(v) - 3) < 0.02);
CURAND_CHECK(curandGenerateLogNormal(gen, d, N, 0.0f, 0.5f));
cudaMemcpy(h, d, N * sizeof(float), cudaMemcpyDeviceToHost);
stats(h, N, &m, &v);
printf("lognormal %d\\n", fabs(m - exp(0.125)) < 0.01);
CURAND_CHECK(curandGenerateUniformDouble(gen, dd, N));
cudaMemcpy(hd, dd, N * sizeof(double), cudaMemcpyDeviceToHost);
double s = 0; for (int i = 0; i < N; i++) s += hd[i];
printf("double %d\\n", fabs(s / N - 0.5) < 0.002);
CURAND_CHECK(curandGenerateNormalDouble(gen, dd, N, -1.0, 0.5));
cudaMemcpy(hd, dd, N * sizeof(double), cudaMemcpyDeviceToHost);
s = 0; for (int i = 0; i < N; i++) s += hd[i];
printf("normal double %d\\n", fabs(s / N + 1) < 0.01);
CURAND_CHECK(curandGeneratePoisson(gen, dp, N, 4.0));
cudaMemcpy(hp, dp, N * sizeof(unsigned int), cudaMemcpyDeviceToHost);
double ps = 0, ps2 = 0; for (int i = 0; i < N; i++) { ps += hp[i]; ps2 += (double)hp[i] * hp[i]; }
printf("poisson %d %d\\n", fabs(ps / N - 4) < 0.02, fabs(ps2 / N - 16 - 4) < 0.1);
CURAND_CHECK(curandGenerate(gen, dp, N));
CURAND_CHECK(curandDestroyGenerator(gen));""")
        assert text.splitlines() == ["uniform 1 1 1", "normal 1 1", "lognormal 1", "double 1", "normal double 1",
                                     "poisson 1 1"], text
        # the count of a normal distribution must be even: the library's own status, by name
        ok(k, "curandGenerator_t g2; CURAND_CHECK(curandCreateGenerator(&g2, CURAND_RNG_PSEUDO_XORWOW));")
        e, v = err(k, "curandGenerateNormal(g2, d, 1001, 0, 1);")
        assert e == "CURAND_STATUS_LENGTH_NOT_MULTIPLE" and "curandGenerateNormal" in v, v
        # a device generator writes device memory
        e, v = err(k, "curandGenerateUniform(g2, h, 16);")
        assert e == "CURAND_STATUS_OUT_OF_RANGE" and "device generator" in v, v
        # a buffer too small for the count is caught before the GPU
        e, v = err(k, "curandGenerateUniform(g2, d, N + 1);")
        assert e == "CURAND_STATUS_OUT_OF_RANGE" and "room for 1048576 elements" in v, v


@needs_gpu
def test_curand_host_generator_equals_device_generator():
    with shared_kernel() as k:
        ok(k, CHECKS)
        text = out(k, """const int N = 4096;
float *d, *fromdev = (float *)malloc(N * sizeof(float)), *fromhost = (float *)malloc(N * sizeof(float));
cudaMalloc(&d, N * sizeof(float));
curandGenerator_t g, hg;
CURAND_CHECK(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_XORWOW));
CURAND_CHECK(curandCreateGeneratorHost(&hg, CURAND_RNG_PSEUDO_XORWOW));
CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(g, 42ULL));
CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(hg, 42ULL));
CURAND_CHECK(curandGenerateUniform(g, d, N));
CURAND_CHECK(curandGenerateUniform(hg, fromhost, N));
cudaMemcpy(fromdev, d, N * sizeof(float), cudaMemcpyDeviceToHost);
int same = 0; for (int i = 0; i < N; i++) same += fromdev[i] == fromhost[i];
printf("%d of %d\\n", same, N);
curandDestroyGenerator(g); curandDestroyGenerator(hg);""")
        assert text.strip() == "4096 of 4096", text
        # a host generator writes host memory
        e, v = err(k, "curandGenerator_t h2; curandCreateGeneratorHost(&h2, CURAND_RNG_PSEUDO_DEFAULT);\n"
                      "curandGenerateUniform(h2, d, 16);")
        assert e == "CURAND_STATUS_OUT_OF_RANGE" and "host generator" in v, v


RNG_DEVICE = """#include <curand_kernel.h>
__global__ void setup(curandState *states, unsigned long long seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, i, 0, &states[i]);
}
__global__ void darts(curandState *states, unsigned int *hits, int per_thread) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    curandState s = states[i];
    unsigned int n = 0;
    for (int k = 0; k < per_thread; k++) {
        float x = curand_uniform(&s), y = curand_uniform(&s);
        if (x * x + y * y <= 1.0f) n++;
    }
    states[i] = s;
    atomicAdd(hits, n);
}
__global__ void count_inside(const float *xy, int n, unsigned int *hits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float x = xy[2 * i], y = xy[2 * i + 1]; if (x * x + y * y <= 1.0f) atomicAdd(hits, 1u); }
}"""


@needs_gpu
def test_rng_lesson_estimates_pi_with_device_states_and_with_the_host_api():
    with shared_kernel() as k:
        ok(k, CHECKS)
        ok(k, RNG_DEVICE)
        text = out(k, """const int threads = 256, blocks = 64, per = 1000;
curandState *states;
cudaMalloc(&states, threads * blocks * sizeof(curandState));
unsigned int *hits, h = 0;
cudaMalloc(&hits, sizeof(unsigned int));
cudaMemset(hits, 0, sizeof(unsigned int));
setup<<<blocks, threads>>>(states, 2024ULL);
darts<<<blocks, threads>>>(states, hits, per);
cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost);
double pi = 4.0 * h / ((double)threads * blocks * per);
printf("%zu %d\\n", sizeof(curandState), fabs(pi - 3.14159265) < 0.01);""")
        assert text.strip() == "48 1", text
        text = out(k, """const int M = 1 << 22;
float *xy; unsigned int *in2, got = 0;
cudaMalloc(&xy, 2 * M * sizeof(float)); cudaMalloc(&in2, sizeof(unsigned int)); cudaMemset(in2, 0, 4);
curandGenerator_t g;
CURAND_CHECK(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10));
CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(g, 7ULL));
CURAND_CHECK(curandGenerateUniform(g, xy, 2 * M));
count_inside<<<(M + 255) / 256, 256>>>(xy, M, in2);
cudaMemcpy(&got, in2, 4, cudaMemcpyDeviceToHost);
printf("%d\\n", fabs(4.0 * got / M - 3.14159265) < 0.005);
curandDestroyGenerator(g);""")
        assert text.strip() == "1", text


TILED = """#define TILE 16
__global__ void sgemm_tiled(int M, int N, int K, const float *A, const float *B, float *C) {
    /* column-major like cuBLAS: A is M x K, B is K x N, C is M x N */
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0;
    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ak < K ? A[row + ak * M] : 0;
        Bs[threadIdx.y][threadIdx.x] = bk < K && col < N ? B[bk + col * K] : 0;
        __syncthreads();
        for (int i = 0; i < TILE; i++) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row + col * M] = acc;
}"""


@needs_gpu
def test_cublas_level1_level2_and_sgemm_against_a_tiled_kernel():
    with shared_kernel() as k:
        ok(k, CHECKS)
        ok(k, TILED)
        text = out(k, """const int n = 1000;
float *x = (float *)malloc(n * sizeof(float)), *y = (float *)malloc(n * sizeof(float));
for (int i = 0; i < n; i++) { x[i] = i * 0.5f; y[i] = 1.0f; }
float *dx, *dy; cudaMalloc(&dx, n * sizeof(float)); cudaMalloc(&dy, n * sizeof(float));
cublasHandle_t h; CUBLAS_CHECK(cublasCreate(&h));
cudaStream_t st; cudaStreamCreate(&st); CUBLAS_CHECK(cublasSetStream(h, st));
cudaStream_t back = 0; CUBLAS_CHECK(cublasGetStream(h, &back));
CUBLAS_CHECK(cublasSetVector(n, sizeof(float), x, 1, dx, 1));
CUBLAS_CHECK(cublasSetVector(n, sizeof(float), y, 1, dy, 1));
float a = 2.0f;
CUBLAS_CHECK(cublasSaxpy(h, n, &a, dx, 1, dy, 1));
CUBLAS_CHECK(cublasGetVector(n, sizeof(float), dy, 1, y, 1));
int bad = 0; for (int i = 0; i < n; i++) bad += y[i] != 2.0f * (i * 0.5f) + 1.0f;
float dot = 0; CUBLAS_CHECK(cublasSdot(h, n, dx, 1, dx, 1, &dot));
double want = 0; for (int i = 0; i < n; i++) want += (i * 0.5) * (i * 0.5);
int imax = 0; CUBLAS_CHECK(cublasIsamax(h, n, dx, 1, &imax));
float nrm = 0; CUBLAS_CHECK(cublasSnrm2(h, n, dx, 1, &nrm));
printf("%d %d %d %d %d\\n", bad, fabs(dot - want) / want < 1e-5, imax, back == st, fabs(nrm - sqrt(want)) / sqrt(want) < 1e-5);
/* the result of a dot into device memory, with the device pointer mode */
float *dres; cudaMalloc(&dres, sizeof(float)); float hres = 0;
CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
CUBLAS_CHECK(cublasSdot(h, n, dx, 1, dx, 1, dres));
CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
cudaMemcpy(&hres, dres, sizeof(float), cudaMemcpyDeviceToHost);
printf("%d\\n", fabs(hres - want) / want < 1e-5);""")
        assert text.splitlines() == ["0 1 1000 1 1", "1"], text
        # SGEMV: y = A x for a 3 x 2 column-major A
        text = out(k, """float A[6] = {1, 2, 3, 4, 5, 6}, xv[2] = {1, 1}, yv[3] = {0, 0, 0}, one = 1, zero = 0;
float *dA, *dxv, *dyv; cudaMalloc(&dA, sizeof A); cudaMalloc(&dxv, sizeof xv); cudaMalloc(&dyv, sizeof yv);
cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice); cudaMemcpy(dxv, xv, sizeof xv, cudaMemcpyHostToDevice);
CUBLAS_CHECK(cublasSgemv(h, CUBLAS_OP_N, 3, 2, &one, dA, 3, dxv, 1, &zero, dyv, 1));
cudaMemcpy(yv, dyv, sizeof yv, cudaMemcpyDeviceToHost);
printf("%g %g %g\\n", yv[0], yv[1], yv[2]);""")
        assert text.strip() == "5 7 9", text
        # SGEMM against the hand-written tiled kernel, on sizes that are not multiples of the tile
        text = out(k, """const int M = 200, N = 150, K = 99;
float *hA = (float *)malloc(M * K * 4), *hB = (float *)malloc(K * N * 4), *c1 = (float *)malloc(M * N * 4),
      *c2 = (float *)malloc(M * N * 4);
for (int i = 0; i < M * K; i++) hA[i] = (i % 13) * 0.25f - 1;
for (int i = 0; i < K * N; i++) hB[i] = (i % 7) * 0.5f - 1.5f;
float *gA, *gB, *gC1, *gC2;
cudaMalloc(&gA, M * K * 4); cudaMalloc(&gB, K * N * 4); cudaMalloc(&gC1, M * N * 4); cudaMalloc(&gC2, M * N * 4);
cudaMemcpy(gA, hA, M * K * 4, cudaMemcpyHostToDevice); cudaMemcpy(gB, hB, K * N * 4, cudaMemcpyHostToDevice);
float al = 1, be = 0;
CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &al, gA, M, gB, K, &be, gC1, M));
dim3 tb(TILE, TILE), tg((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
sgemm_tiled<<<tg, tb>>>(M, N, K, gA, gB, gC2);
cudaMemcpy(c1, gC1, M * N * 4, cudaMemcpyDeviceToHost); cudaMemcpy(c2, gC2, M * N * 4, cudaMemcpyDeviceToHost);
double worst = 0; for (int i = 0; i < M * N; i++) { double d = fabs(c1[i] - c2[i]); if (d > worst) worst = d; }
printf("%d\\n", worst < 1e-3);""")
        assert text.strip() == "1", text
        # an lda smaller than the rows never reaches cuBLAS
        e, v = err(k, "cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &al, gA, M - 1, gB, K, &be, gC1, M);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "lda" in v and "rows of A" in v, v
        # and a matrix larger than its buffer neither
        e, v = err(k, "cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K + 1, &al, gA, M, gB, K + 1, &be, gC1, M);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "gA" in v, v
        ok(k, "CUBLAS_CHECK(cublasDestroy(h));")
        e, v = err(k, "cublasSaxpy(h, n, &a, dx, 1, dy, 1);")
        assert e == "CUBLAS_STATUS_NOT_INITIALIZED", (e, v)


@needs_gpu
def test_cublas_dgemm_gemmex_and_strided_batched():
    with shared_kernel() as k:
        ok(k, CHECKS)
        text = out(k, """const int M = 64, N = 48, K = 32, B = 3;
double *hA = (double *)malloc(M * K * 8), *hB = (double *)malloc(K * N * 8), *hC = (double *)malloc(M * N * 8);
for (int i = 0; i < M * K; i++) hA[i] = sin(i);
for (int i = 0; i < K * N; i++) hB[i] = cos(i);
double *dA, *dB, *dC; cudaMalloc(&dA, M * K * 8); cudaMalloc(&dB, K * N * 8); cudaMalloc(&dC, M * N * 8);
cudaMemcpy(dA, hA, M * K * 8, cudaMemcpyHostToDevice); cudaMemcpy(dB, hB, K * N * 8, cudaMemcpyHostToDevice);
cublasHandle_t h; CUBLAS_CHECK(cublasCreate(&h));
double one = 1, zero = 0;
CUBLAS_CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, dA, M, dB, K, &zero, dC, M));
cudaMemcpy(hC, dC, M * N * 8, cudaMemcpyDeviceToHost);
double worst = 0;
for (int j = 0; j < N; j++) for (int i = 0; i < M; i++) {
    double s = 0; for (int p = 0; p < K; p++) s += hA[i + p * M] * hB[p + j * K];
    if (fabs(s - hC[i + j * M]) > worst) worst = fabs(s - hC[i + j * M]);
}
printf("dgemm %d\\n", worst < 1e-12);
/* cublasGemmEx in single precision: C = A^T B with A stored K x M */
float *fA = (float *)malloc(K * M * 4), *fB = (float *)malloc(K * N * 4), *fC = (float *)malloc(M * N * 4);
for (int i = 0; i < K * M; i++) fA[i] = (i % 5) - 2;
for (int i = 0; i < K * N; i++) fB[i] = (i % 3) - 1;
float *gA, *gB, *gC; cudaMalloc(&gA, K * M * 4); cudaMalloc(&gB, K * N * 4); cudaMalloc(&gC, M * N * 4);
cudaMemcpy(gA, fA, K * M * 4, cudaMemcpyHostToDevice); cudaMemcpy(gB, fB, K * N * 4, cudaMemcpyHostToDevice);
float f1 = 1, f0 = 0;
CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &f1, gA, CUDA_R_32F, K, gB, CUDA_R_32F, K, &f0,
                          gC, CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
cudaMemcpy(fC, gC, M * N * 4, cudaMemcpyDeviceToHost);
int bad = 0;
for (int j = 0; j < N; j++) for (int i = 0; i < M; i++) {
    float s = 0; for (int p = 0; p < K; p++) s += fA[p + i * K] * fB[p + j * K];
    bad += s != fC[i + j * M];
}
printf("gemmex %d\\n", bad);
/* B independent products of 8 x 8 matrices, one stride apart */
const int S = 8;
float *bA = (float *)malloc(B * S * S * 4), *bC = (float *)malloc(B * S * S * 4);
for (int i = 0; i < B * S * S; i++) bA[i] = (i % 11) - 5;
float *qA, *qC; cudaMalloc(&qA, B * S * S * 4); cudaMalloc(&qC, B * S * S * 4);
cudaMemcpy(qA, bA, B * S * S * 4, cudaMemcpyHostToDevice);
CUBLAS_CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, S, S, S, &f1, qA, S, S * S, qA, S, S * S, &f0,
                                       qC, S, S * S, B));
cudaMemcpy(bC, qC, B * S * S * 4, cudaMemcpyDeviceToHost);
bad = 0;
for (int b = 0; b < B; b++) for (int j = 0; j < S; j++) for (int i = 0; i < S; i++) {
    float s = 0; for (int p = 0; p < S; p++) s += bA[b * S * S + i + p * S] * bA[b * S * S + p + j * S];
    bad += s != bC[b * S * S + i + j * S];
}
printf("strided %d\\n", bad);""")
        assert text.splitlines() == ["dgemm 1", "gemmex 0", "strided 0"], text
        # a batch past the end of its buffer is caught before cuBLAS
        e, v = err(k, "cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, S, S, S, &f1, qA, S, S * S, qA, S, "
                      "S * S, &f0, qC, S, S * S, B + 1);")
        assert e == "CUBLAS_STATUS_INVALID_VALUE" and "batch" in v, v


@needs_gpu
def test_cufft_round_trip_cosine_peak_and_2d():
    with shared_kernel() as k:
        ok(k, CHECKS)
        text = out(k, """const int N = 256;
cufftComplex *h = (cufftComplex *)malloc(N * sizeof(cufftComplex)), *back = (cufftComplex *)malloc(N * sizeof(cufftComplex));
for (int i = 0; i < N; i++) { h[i].x = sin(0.1 * i); h[i].y = cos(0.3 * i); }
cufftComplex *d; cudaMalloc(&d, N * sizeof(cufftComplex));
cudaMemcpy(d, h, N * sizeof(cufftComplex), cudaMemcpyHostToDevice);
cufftHandle p; CUFFT_CHECK(cufftPlan1d(&p, N, CUFFT_C2C, 1));
cudaStream_t st; cudaStreamCreate(&st); CUFFT_CHECK(cufftSetStream(p, st));
CUFFT_CHECK(cufftExecC2C(p, d, d, CUFFT_FORWARD));
CUFFT_CHECK(cufftExecC2C(p, d, d, CUFFT_INVERSE));
cudaStreamSynchronize(st);
cudaMemcpy(back, d, N * sizeof(cufftComplex), cudaMemcpyDeviceToHost);
double worst = 0;
for (int i = 0; i < N; i++) {
    double e1 = fabs(back[i].x / N - h[i].x), e2 = fabs(back[i].y / N - h[i].y);
    if (e1 > worst) worst = e1; if (e2 > worst) worst = e2;
}
printf("roundtrip %d\\n", worst < 1e-5);
/* R2C of cos(2 pi 5 i / N): the peak is bin 5, of height N / 2 */
cufftReal *r = (cufftReal *)malloc(N * sizeof(cufftReal));
for (int i = 0; i < N; i++) r[i] = cos(2 * 3.14159265358979 * 5 * i / N);
cufftReal *dr; cufftComplex *dc; cudaMalloc(&dr, N * sizeof(cufftReal)); cudaMalloc(&dc, (N / 2 + 1) * sizeof(cufftComplex));
cudaMemcpy(dr, r, N * sizeof(cufftReal), cudaMemcpyHostToDevice);
cufftHandle pr; CUFFT_CHECK(cufftPlan1d(&pr, N, CUFFT_R2C, 1));
CUFFT_CHECK(cufftExecR2C(pr, dr, dc));
cufftComplex *spec = (cufftComplex *)malloc((N / 2 + 1) * sizeof(cufftComplex));
cudaMemcpy(spec, dc, (N / 2 + 1) * sizeof(cufftComplex), cudaMemcpyDeviceToHost);
int peak = 0; for (int i = 0; i <= N / 2; i++) if (cuCabsf(spec[i]) > cuCabsf(spec[peak])) peak = i;
printf("peak %d %d\\n", peak, fabs(cuCabsf(spec[peak]) - N / 2) < 1e-2);
/* 2-D C2C of a delta at the origin: every bin is 1 */
const int NX = 16, NY = 32;
cufftComplex *g = (cufftComplex *)calloc(NX * NY, sizeof(cufftComplex)); g[0].x = 1;
cufftComplex *dg; cudaMalloc(&dg, NX * NY * sizeof(cufftComplex));
cudaMemcpy(dg, g, NX * NY * sizeof(cufftComplex), cudaMemcpyHostToDevice);
cufftHandle p2; CUFFT_CHECK(cufftPlan2d(&p2, NX, NY, CUFFT_C2C));
CUFFT_CHECK(cufftExecC2C(p2, dg, dg, CUFFT_FORWARD));
cudaMemcpy(g, dg, NX * NY * sizeof(cufftComplex), cudaMemcpyDeviceToHost);
int bad = 0; for (int i = 0; i < NX * NY; i++) bad += fabs(g[i].x - 1) > 1e-6 || fabs(g[i].y) > 1e-6;
printf("2d %d\\n", bad);
cufftDestroy(p); cufftDestroy(pr);""")
        assert text.splitlines() == ["roundtrip 1", "peak 5 1", "2d 0"], text
        # an exec buffer smaller than the plan is caught before cuFFT
        e, v = err(k, "cufftComplex *small; cudaMalloc(&small, 100 * sizeof(cufftComplex));\n"
                      "cufftExecC2C(p2, small, small, CUFFT_FORWARD);")
        assert e == "CUFFT_INVALID_VALUE" and "the plan is 16 x 32" in v, v
        ok(k, "cufftDestroy(p2);")
        e, v = err(k, "cufftExecC2C(p2, dg, dg, CUFFT_FORWARD);")
        assert e == "CUFFT_INVALID_PLAN", (e, v)


@needs_gpu
def test_nvtx_ranges_in_profile():
    with kernel() as k:
        ok(k, "__global__ void busy(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
              "if (i < n) x[i] = x[i] * 2 + 1; }")
        ok(k, "#include <nvtx3/nvToolsExt.h>\nfloat *x; cudaMalloc(&x, 1 << 20);")
        reply, msgs = k.execute("""%%profile
nvtxRangePushA("setup");
cudaMemset(x, 0, 1 << 20);
nvtxRangePop();
for (int r = 0; r < 3; r++) {
    nvtxRangePushA("compute");
    busy<<<1024, 256>>>(x, 1 << 18);
    cudaDeviceSynchronize();
    nvtxRangePop();
}""", timeout=180)
        assert reply["content"]["status"] == "ok", reply["content"]
        texts = [m["content"]["data"].get("text/plain", "") for m in msgs if m["msg_type"] == "display_data"]
        nvtx = [t for t in texts if "NVTX ranges" in t]
        assert nvtx, texts
        lines = {l.split()[0]: l.split() for l in nvtx[0].splitlines()[2:]}
        assert lines["setup"][1] == "1" and lines["compute"][1] == "3", nvtx[0]


@needs_gpu
def test_library_handles_after_a_worker_restart():
    with kernel() as k:
        ok(k, CHECKS)
        ok(k, "__global__ void oob(double *p) { p[threadIdx.x + (1L << 40)] = 1; }")
        ok(k, "cublasHandle_t h; CUBLAS_CHECK(cublasCreate(&h)); curandGenerator_t g; "
              "CURAND_CHECK(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT)); double *z; cudaMalloc(&z, 64);")
        e, v = err(k, "oob<<<1, 32>>>(z);\ncudaDeviceSynchronize();")
        assert e == "cudaErrorIllegalAddress" and "cuBLAS handles" in v, (e, v)
        e, v = err(k, "cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);")
        assert e == "CUBLAS_STATUS_NOT_INITIALIZED" and "restarted" in v, v
        e, v = err(k, "curandSetPseudoRandomGeneratorSeed(g, 1ULL);")
        assert e == "CURAND_STATUS_NOT_INITIALIZED" and "restarted" in v, v
        # made again, they work
        ok(k, "CUBLAS_CHECK(cublasCreate(&h)); CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));")
