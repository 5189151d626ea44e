// a*x + y over a million floats in managed memory with a grid-stride loop;
// the host checks every element and prints the largest error.
#include <iostream>
#include <cmath>
#include <algorithm>

__global__ void axpy_stride(int n, float a, const float *x, float *y) {
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    int step = blockDim.x * gridDim.x;
    for (int i = first; i < n; i += step)
        y[i] = a * x[i] + y[i];
}

int main(void) {
    const int N = 1 << 20;
    const float a = 2.0f;
    float *x, *y;
    cudaMallocManaged(&x, N * sizeof(float));
    cudaMallocManaged(&y, N * sizeof(float));

    for (int i = 0; i < N; i++) {
        x[i] = 1.0f;
        y[i] = 0.5f;
    }

    int threads = 256;
    int blocks = (N + threads - 1) / threads;
    axpy_stride<<<blocks, threads>>>(N, a, x, y);
    cudaDeviceSynchronize();

    float maxError = 0.0f;
    for (int i = 0; i < N; i++)
        maxError = std::max(maxError, std::abs(y[i] - 2.5f));
    std::cout << "Max error: " << maxError << std::endl;

    cudaFree(x);
    cudaFree(y);
    if (maxError > 0.0f) {
        std::cout << "FAIL" << std::endl;
        return 1;
    }
    std::cout << "PASS" << std::endl;
    return 0;
}
