// A dot product: each block multiplies and reduces its slice in shared
// memory and adds it to the result with atomicAdd; CUDA events time the
// kernel. Host helpers sit in a namespace, and `using namespace std;` lets
// the output go without std:: as many course programs write it.
#include <iostream>
#include <iomanip>
#include <cmath>

using namespace std;

constexpr int THREADS = 256;

__global__ void dot(const float *a, const float *b, float *result, int n) {
    __shared__ float cache[THREADS];
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += a[i] * b[i];
    cache[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(result, cache[0]);
}

namespace host {
double dot(const float *a, const float *b, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) s += (double)a[i] * b[i];
    return s;
}
double relative_error(double got, double want) { return fabs(got - want) / fabs(want); }
}

int main() {
    const int N = 1 << 22;
    const int blocks = 256;
    float *a = new float[N];
    float *b = new float[N];
    for (int i = 0; i < N; i++) {
        a[i] = 1.0f + 0.5f * sinf(i * 0.001f);
        b[i] = 0.5f + 0.25f * cosf(i * 0.003f);
    }

    float *d_a, *d_b, *d_result;
    cudaMalloc(&d_a, N * sizeof(float));
    cudaMalloc(&d_b, N * sizeof(float));
    cudaMalloc(&d_result, sizeof(float));
    cudaMemcpy(d_a, a, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, N * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(d_result, 0, sizeof(float));

    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, 0);
    dot<<<blocks, THREADS>>>(d_a, d_b, d_result, N);
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms;
    cudaEventElapsedTime(&ms, start, stop);

    float got;
    cudaMemcpy(&got, d_result, sizeof(float), cudaMemcpyDeviceToHost);
    double want = host::dot(a, b, N);
    double rel = host::relative_error(got, want);
    cout << fixed << setprecision(4) << "dot = " << got << " (host " << want << ")" << endl;
    cout << scientific << setprecision(2) << "relative error " << rel << ", kernel " << ms << " ms" << endl;

    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_result);
    delete[] a;
    delete[] b;
    if (rel > 1e-4) {
        cout << "FAIL" << endl;
        return 1;
    }
    cout << "PASS" << endl;
    return 0;
}
