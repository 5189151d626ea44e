// nvcc: --extended-lambda
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/functional.h>
#include <cstdio>

// y = a * x + y, as Thrust's examples write it
struct saxpy_functor {
    const float a;
    explicit saxpy_functor(float a_) : a(a_) {}
    __host__ __device__ float operator()(const float &x, const float &y) const { return a * x + y; }
};

void saxpy(float a, thrust::device_vector<float> &x, thrust::device_vector<float> &y) {
    thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor(a));
}

__global__ void negate_odd(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i % 2) v[i] = -v[i];
}

int main() {
    const int n = 1 << 16;
    thrust::device_vector<float> x(n), y(n, 1.0f);
    thrust::sequence(x.begin(), x.end());
    saxpy(2.0f, x, y);
    thrust::transform(y.begin(), y.end(), y.begin(), [] __device__ (float v) { return v - 1.0f; });
    negate_odd<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(y.data()), n);
    cudaDeviceSynchronize();
    double sum = thrust::reduce(y.begin(), y.end(), 0.0, thrust::plus<double>());
    // y[i] = 2i for even i, -2i for odd i: pairs sum to -2 each
    double expect = -2.0 * (n / 2);
    thrust::sort(y.begin(), y.end());
    thrust::host_vector<float> h = y;
    bool sorted = true;
    for (int i = 1; i < n; i++) sorted = sorted && h[i - 1] <= h[i];
    printf("sum %.0f expect %.0f, first %.0f last %.0f\n", sum, expect, (double)h[0], (double)h[n - 1]);
    if (sum != expect || !sorted || h[0] != -2.0f * (n - 1) || h[n - 1] != 2.0f * (n - 2)) {
        printf("FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
