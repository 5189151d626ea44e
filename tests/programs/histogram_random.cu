// A histogram of random bytes: each block counts into its own shared-memory
// bins, then adds them to the global bins with atomicAdd. The input comes
// from std::mt19937; the host counts the same input to check every bin.
#include <iostream>
#include <vector>
#include <random>
#include <algorithm>
#include <numeric>

constexpr int BINS = 64;

__global__ void histogram(const int *data, int n, unsigned int *bins) {
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main() {
    const int N = 2000000;
    std::vector<int> data(N);
    std::mt19937 gen(2024);
    std::uniform_int_distribution<int> pick(0, BINS - 1);
    for (auto &x : data) x = pick(gen);

    std::vector<unsigned int> want(BINS);
    std::fill(want.begin(), want.end(), 0u);
    for (int x : data) want[x]++;

    int *d_data;
    unsigned int *d_bins;
    cudaMalloc(&d_data, N * sizeof(int));
    cudaMalloc(&d_bins, BINS * sizeof(unsigned int));
    cudaMemcpy(d_data, data.data(), N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, BINS * sizeof(unsigned int));
    histogram<<<120, 256>>>(d_data, N, d_bins);

    std::vector<unsigned int> got(BINS);
    cudaMemcpy(got.data(), d_bins, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaFree(d_data);
    cudaFree(d_bins);

    unsigned long total = std::accumulate(got.begin(), got.end(), 0UL);
    auto most = std::max_element(got.begin(), got.end());
    std::cout << "total " << total << ", fullest bin " << (most - got.begin()) << " with " << *most << std::endl;
    int bad = 0;
    for (int b = 0; b < BINS; b++)
        if (got[b] != want[b]) bad++;
    if (bad || total != (unsigned long)N) {
        std::cout << bad << " bins differ" << std::endl << "FAIL" << std::endl;
        return 1;
    }
    std::cout << "PASS" << std::endl;
    return 0;
}
