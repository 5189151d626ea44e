// Tiled matrix multiply with shared memory and a 2-D grid of dim3 blocks,
// timed with CUDA events; a constexpr tile size is shared by the kernel and
// the host, and the host checks sampled entries against its own sum.
#include <cstdio>
#include <iostream>
#include <iomanip>

#define CUDA_CHECK(call)                                                   \
    do {                                                                   \
        cudaError_t e = (call);                                            \
        if (e != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error %s at %s:%d\n",                    \
                    cudaGetErrorString(e), __FILE__, __LINE__);            \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

constexpr int TILE = 16;

__global__ void matmul_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
        int ac = t * TILE + threadIdx.x;
        int br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < n && ac < n) ? A[row * n + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (br < n && col < n) ? B[br * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}

float host_entry(const float *A, const float *B, int n, int r, int c) {
    float s = 0.0f;
    for (int k = 0; k < n; k++) s += A[r * n + k] * B[k * n + c];
    return s;
}

int main() {
    const int n = 500;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *h_A = new float[n * n];
    float *h_B = new float[n * n];
    float *h_C = new float[n * n];
    for (int i = 0; i < n * n; i++) {
        h_A[i] = (float)(i % 7) * 0.25f;
        h_B[i] = (float)(i % 5) - 2.0f;
    }

    float *d_A, *d_B, *d_C;
    CUDA_CHECK(cudaMalloc(&d_A, bytes));
    CUDA_CHECK(cudaMalloc(&d_B, bytes));
    CUDA_CHECK(cudaMalloc(&d_C, bytes));
    CUDA_CHECK(cudaMemcpy(d_A, h_A, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_B, h_B, bytes, cudaMemcpyHostToDevice));

    dim3 block(TILE, TILE);
    dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start));
    matmul_tiled<<<grid, block>>>(d_A, d_B, d_C, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaMemcpy(h_C, d_C, bytes, cudaMemcpyDeviceToHost));

    double gflops = 2.0 * n * n * n / (ms * 1e6);
    std::cout << "grid " << grid.x << "x" << grid.y << ", " << std::fixed << std::setprecision(3)
              << ms << " ms, " << std::setprecision(1) << gflops << " GFLOP/s" << std::endl;

    int bad = 0;
    for (int r = 0; r < n; r += 37) {
        for (int c = 0; c < n; c += 41) {
            float want = host_entry(h_A, h_B, n, r, c);
            float diff = h_C[r * n + c] - want;
            if (diff < 0) diff = -diff;
            if (diff > 1e-3f * (1.0f + (want < 0 ? -want : want))) {
                if (bad < 5) printf("C[%d][%d] = %f, want %f\n", r, c, h_C[r * n + c], want);
                bad++;
            }
        }
    }

    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(d_A));
    CUDA_CHECK(cudaFree(d_B));
    CUDA_CHECK(cudaFree(d_C));
    delete[] h_A;
    delete[] h_B;
    delete[] h_C;
    if (bad) {
        std::cout << bad << " mismatches" << std::endl << "FAIL" << std::endl;
        return 1;
    }
    std::cout << "PASS" << std::endl;
    return 0;
}
