// nvcc: -lcublas
// SGEMM with cuBLAS, checked against a hand-written shared-memory tiled
// kernel: both compute C = alpha * A * B + beta * C in column-major order,
// on sizes that are not multiples of the tile.
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cublas_v2.h>

#define TILE 16
#define CUBLAS_CALL(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { \
    printf("cuBLAS error %d at %s:%d\n", (int)s, __FILE__, __LINE__); return 1; } } while (0)

__global__ void sgemm_tiled(int M, int N, int K, float alpha, const float *A, const float *B, float beta, float *C) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; t++) {
        int ak = t * TILE + threadIdx.x, bk = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row + ak * M] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk + col * K] : 0.0f;
        __syncthreads();
        for (int i = 0; i < TILE; i++) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row + col * M] = alpha * acc + beta * C[row + col * M];
}

int main() {
    const int M = 300, N = 200, K = 150;
    float *hA = (float *)malloc(M * K * sizeof(float));
    float *hB = (float *)malloc(K * N * sizeof(float));
    float *hC1 = (float *)malloc(M * N * sizeof(float));
    float *hC2 = (float *)malloc(M * N * sizeof(float));
    for (int i = 0; i < M * K; i++) hA[i] = (float)((i * 7) % 17) / 8.0f - 1.0f;
    for (int i = 0; i < K * N; i++) hB[i] = (float)((i * 5) % 13) / 4.0f - 1.5f;
    for (int i = 0; i < M * N; i++) hC1[i] = hC2[i] = 1.0f;
    float *dA, *dB, *dC1, *dC2;
    cudaMalloc(&dA, M * K * sizeof(float));
    cudaMalloc(&dB, K * N * sizeof(float));
    cudaMalloc(&dC1, M * N * sizeof(float));
    cudaMalloc(&dC2, M * N * sizeof(float));
    cudaMemcpy(dA, hA, M * K * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, hB, K * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC1, hC1, M * N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dC2, hC2, M * N * sizeof(float), cudaMemcpyHostToDevice);

    cublasHandle_t handle;
    CUBLAS_CALL(cublasCreate(&handle));
    float alpha = 0.5f, beta = 2.0f;
    CUBLAS_CALL(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, dA, M, dB, K, &beta, dC1, M));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    sgemm_tiled<<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC2);
    cudaMemcpy(hC1, dC1, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(hC2, dC2, M * N * sizeof(float), cudaMemcpyDeviceToHost);
    CUBLAS_CALL(cublasDestroy(handle));

    double worst = 0.0;
    for (int i = 0; i < M * N; i++) {
        double d = fabs((double)hC1[i] - (double)hC2[i]);
        if (d > worst) worst = d;
    }
    printf("largest difference between cuBLAS and the tiled kernel: %g\n", worst);
    cudaFree(dA); cudaFree(dB); cudaFree(dC1); cudaFree(dC2);
    free(hA); free(hB); free(hC1); free(hC2);
    bool ok = worst < 1e-3;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
