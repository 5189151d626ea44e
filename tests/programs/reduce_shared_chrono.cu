// Sum of four million ints: each block reduces its part in shared memory
// (halving strides), thread 0 adds the block's sum to the total with
// atomicAdd. Buffers come from a template helper; std::chrono times the GPU
// part and std::accumulate gives the host's answer.
#include <cstdio>
#include <vector>
#include <numeric>
#include <chrono>

const int THREADS = 256;

template <typename T>
void alloc_bytes(T &ptr, size_t num_bytes) {
    cudaMalloc(&ptr, num_bytes);
}

__global__ void block_sum(const int *in, int *total, int n) {
    __shared__ int part[THREADS];
    int tid = threadIdx.x;
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x)
        sum += in[i];
    part[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) part[tid] += part[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(total, part[0]);
}

int main() {
    const int N = 1 << 22;
    std::vector<int> h(N);
    for (int i = 0; i < N; i++) h[i] = i % 7;
    long long want = std::accumulate(h.begin(), h.end(), 0LL);

    int *d_in, *d_total;
    alloc_bytes(d_in, N * sizeof(int));
    alloc_bytes(d_total, sizeof(int));

    auto t0 = std::chrono::high_resolution_clock::now();
    cudaMemcpy(d_in, h.data(), N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_total, 0, sizeof(int));
    block_sum<<<640, THREADS>>>(d_in, d_total, N);
    int got = 0;
    cudaMemcpy(&got, d_total, sizeof(int), cudaMemcpyDeviceToHost);
    auto t1 = std::chrono::high_resolution_clock::now();
    double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();

    printf("sum %d (host %lld), copy + reduce took %.3f ms\n", got, want, ms);
    cudaFree(d_in);
    cudaFree(d_total);
    if (got != want) {
        printf("FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
