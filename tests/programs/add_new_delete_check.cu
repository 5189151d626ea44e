// Vector add with host arrays from new[], device arrays from cudaMalloc, and
// every CUDA call checked by a macro; a failed check returns 1 from main.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,  \
                    #call, cudaGetErrorString(err_));                      \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

__global__ void vec_add(const double *a, const double *b, double *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int N = 100000;
    size_t bytes = N * sizeof(double);

    double *h_a = new double[N];
    double *h_b = new double[N];
    double *h_c = new double[N];
    for (int i = 0; i < N; i++) {
        h_a[i] = i;
        h_b[i] = 2.0 * i;
    }

    double *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));

    int block = 128;
    int grid = (N + block - 1) / block;
    vec_add<<<grid, block>>>(d_a, d_b, d_c, N);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));

    for (int i = 0; i < N; i++) {
        if (h_c[i] != 3.0 * i) {
            printf("mismatch at %d: got %f, want %f\n", i, h_c[i], 3.0 * i);
            printf("FAIL\n");
            return 1;
        }
    }
    printf("c[%d] = %.1f\n", N - 1, h_c[N - 1]);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    delete[] h_a;
    delete[] h_b;
    delete[] h_c;
    printf("PASS\n");
    return 0;
}
