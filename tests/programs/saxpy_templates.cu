// One templated kernel run in float and in double: a host function template
// drives each run, an overloaded helper names the type, a default argument
// picks the block size, std::string builds the labels and std::chrono times
// each run on the host.
#include <iostream>
#include <iomanip>
#include <string>
#include <vector>
#include <chrono>
#include <cmath>

template <typename T>
__global__ void saxpy(int n, T a, const T *x, T *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

const char *type_name(float) { return "float"; }
const char *type_name(double) { return "double"; }

template <typename T>
T max_abs_diff(const std::vector<T> &a, const std::vector<T> &b) {
    T worst = 0;
    for (size_t i = 0; i < a.size(); i++) worst = std::max(worst, (T)std::fabs(a[i] - b[i]));
    return worst;
}

template <typename T>
bool run_saxpy(int n, T a, T tolerance, int block = 256) {
    std::vector<T> x(n), y(n), want(n);
    for (int i = 0; i < n; i++) {
        x[i] = T(i % 100) / T(10);
        y[i] = T(1);
        want[i] = a * x[i] + y[i];
    }
    T *d_x, *d_y;
    cudaMalloc(&d_x, n * sizeof(T));
    cudaMalloc(&d_y, n * sizeof(T));
    auto t0 = std::chrono::steady_clock::now();
    cudaMemcpy(d_x, x.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemcpy(d_y, y.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    saxpy<T><<<(n + block - 1) / block, block>>>(n, a, d_x, d_y);
    cudaMemcpy(y.data(), d_y, n * sizeof(T), cudaMemcpyDeviceToHost);
    auto t1 = std::chrono::steady_clock::now();
    cudaFree(d_x);
    cudaFree(d_y);

    T err = max_abs_diff(y, want);
    std::string label = std::string("saxpy<") + type_name(a) + ">";
    double us = std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count();
    std::cout << std::left << std::setw(16) << label << " block " << block << ", max error " << err
              << ", " << us << " us" << std::endl;
    return err <= tolerance;
}

int main() {
    const int n = 1 << 20;
    bool ok = run_saxpy(n, 2.0f, 1e-5f);
    ok = run_saxpy(n, 2.0, 1e-12, 128) && ok;
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::cerr << "CUDA error: " << cudaGetErrorString(e) << std::endl;
        return 1;
    }
    std::cout << (ok ? "PASS" : "FAIL") << std::endl;
    return ok ? 0 : 1;
}
