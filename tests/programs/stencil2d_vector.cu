// Jacobi relaxation on a 2-D grid: each sweep averages the four neighbours,
// read through a shared-memory tile with a one-cell halo. Host data lives in
// std::vector (copied with .data()), the device buffers swap with std::swap
// between sweeps, and the host repeats the sweeps to check the result.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cmath>

#define RADIUS 1
constexpr int BX = 32;
constexpr int BY = 8;

__global__ void jacobi_step(const float *in, float *out, int nx, int ny) {
    __shared__ float tile[BY + 2 * RADIUS][BX + 2 * RADIUS];
    int gx = blockIdx.x * BX + threadIdx.x;
    int gy = blockIdx.y * BY + threadIdx.y;
    int lx = threadIdx.x + RADIUS;
    int ly = threadIdx.y + RADIUS;
    bool inside = gx < nx && gy < ny;
    if (inside) {
        tile[ly][lx] = in[gy * nx + gx];
        if (threadIdx.x < RADIUS) {
            tile[ly][lx - RADIUS] = gx >= RADIUS ? in[gy * nx + gx - RADIUS] : 0.0f;
            tile[ly][lx + BX] = gx + BX < nx ? in[gy * nx + gx + BX] : 0.0f;
        }
        if (threadIdx.y < RADIUS) {
            tile[ly - RADIUS][lx] = gy >= RADIUS ? in[(gy - RADIUS) * nx + gx] : 0.0f;
            tile[ly + BY][lx] = gy + BY < ny ? in[(gy + BY) * nx + gx] : 0.0f;
        }
    }
    __syncthreads();
    if (!inside) return;
    if (gx == 0 || gy == 0 || gx == nx - 1 || gy == ny - 1) {
        out[gy * nx + gx] = tile[ly][lx];   // the boundary stays fixed
        return;
    }
    out[gy * nx + gx] = 0.25f * (tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx]);
}

void jacobi_host(const std::vector<float> &in, std::vector<float> &out, int nx, int ny) {
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            int i = y * nx + x;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) out[i] = in[i];
            else out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
        }
}

int main() {
    const int nx = 64, ny = 48, sweeps = 200;
    const size_t bytes = nx * ny * sizeof(float);
    std::vector<float> grid(nx * ny, 0.0f);
    for (int x = 0; x < nx; x++) grid[x] = 100.0f;           // a hot top edge
    for (int y = 0; y < ny; y++) grid[y * nx] = 50.0f;       // a warm left edge

    float *d_in, *d_out;
    cudaMalloc(&d_in, bytes);
    cudaMalloc(&d_out, bytes);
    cudaMemcpy(d_in, grid.data(), bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, grid.data(), bytes, cudaMemcpyHostToDevice);

    dim3 block(BX, BY);
    dim3 blocks((nx + BX - 1) / BX, (ny + BY - 1) / BY);
    for (int s = 0; s < sweeps; s++) {
        jacobi_step<<<blocks, block>>>(d_in, d_out, nx, ny);
        std::swap(d_in, d_out);
    }
    std::vector<float> gpu(nx * ny);
    cudaMemcpy(gpu.data(), d_in, bytes, cudaMemcpyDeviceToHost);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        printf("CUDA error: %s\n", cudaGetErrorString(err));
        return 1;
    }

    std::vector<float> a = grid, b(nx * ny);
    for (int s = 0; s < sweeps; s++) {
        jacobi_host(a, b, nx, ny);
        std::swap(a, b);
    }

    float worst = 0.0f;
    for (size_t i = 0; i < a.size(); i++) worst = std::max(worst, std::fabs(a[i] - gpu[i]));
    printf("centre %.4f, largest difference from the host %g\n", gpu[(ny / 2) * nx + nx / 2], worst);

    cudaFree(d_in);
    cudaFree(d_out);
    if (worst > 1e-3f) {
        printf("FAIL\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
