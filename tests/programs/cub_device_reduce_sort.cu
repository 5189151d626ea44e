#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            return 1;                                                          \
        }                                                                      \
    } while (0)

__global__ void fill(int *keys, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keys[i] = (int)((i * 2654435761u) % 1000u);  // the sum stays within an int
}

int main() {
    const int n = 1 << 18;
    int *d_in, *d_out, *d_sum;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sum, sizeof(int)));
    fill<<<(n + 255) / 256, 256>>>(d_in, n);
    void *tmp = nullptr;
    size_t tmp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d_in, d_sum, n));
    CHECK(cudaMalloc(&tmp, tmp_bytes));
    CHECK(cub::DeviceReduce::Sum(tmp, tmp_bytes, d_in, d_sum, n));
    CHECK(cudaFree(tmp));
    tmp = nullptr;
    tmp_bytes = 0;
    CHECK(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, d_in, d_out, n));
    CHECK(cudaMalloc(&tmp, tmp_bytes));
    CHECK(cub::DeviceRadixSort::SortKeys(tmp, tmp_bytes, d_in, d_out, n));
    std::vector<int> in(n), out(n);
    int sum = 0;
    CHECK(cudaMemcpy(in.data(), d_in, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost));
    long long expect = 0;
    for (int v : in) expect += v;
    std::sort(in.begin(), in.end());
    bool ok = (long long)sum == expect && in == out;
    printf("sum %d expect %lld, sorted %s\n", sum, expect, in == out ? "yes" : "no");
    cudaFree(tmp);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_sum);
    printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
}
