// nvcc: -lcurand
// Estimating pi twice: with cuRAND's device API (one curandState per
// thread, allocated with sizeof(curandState) on the host) and with its host
// API (curandGenerateUniform into device memory, counted by a kernel).
#include <cstdio>
#include <cmath>
#include <curand.h>
#include <curand_kernel.h>

#define CURAND_CALL(x) do { if ((x) != CURAND_STATUS_SUCCESS) { \
    printf("cuRAND error at %s:%d\n", __FILE__, __LINE__); return 1; } } while (0)

__global__ void setup_states(curandState *states, unsigned long long seed) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curand_init(seed, id, 0, &states[id]);
}

__global__ void throw_darts(curandState *states, unsigned int *inside, int per_thread) {
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState local = states[id];
    unsigned int count = 0;
    for (int i = 0; i < per_thread; i++) {
        float x = curand_uniform(&local);
        float y = curand_uniform(&local);
        if (x * x + y * y <= 1.0f) count++;
    }
    states[id] = local;
    atomicAdd(inside, count);
}

__global__ void count_points(const float *xy, int n, unsigned int *inside) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xy[2 * i], y = xy[2 * i + 1];
        if (x * x + y * y <= 1.0f) atomicAdd(inside, 1u);
    }
}

int main() {
    const int threads = 256, blocks = 128, per_thread = 512;
    const int total = threads * blocks;
    curandState *states;
    unsigned int *d_inside, h_inside = 0;
    cudaMalloc(&states, total * sizeof(curandState));
    cudaMalloc(&d_inside, sizeof(unsigned int));
    cudaMemset(d_inside, 0, sizeof(unsigned int));
    setup_states<<<blocks, threads>>>(states, 1234ULL);
    throw_darts<<<blocks, threads>>>(states, d_inside, per_thread);
    cudaMemcpy(&h_inside, d_inside, sizeof(unsigned int), cudaMemcpyDeviceToHost);
    double pi_device = 4.0 * h_inside / ((double)total * per_thread);
    printf("device API: pi ~ %f (%zu-byte states)\n", pi_device, sizeof(curandState));

    const int n = 1 << 22;
    float *xy;
    cudaMalloc(&xy, 2 * n * sizeof(float));
    curandGenerator_t gen;
    CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, 4321ULL));
    CURAND_CALL(curandGenerateUniform(gen, xy, 2 * n));
    cudaMemset(d_inside, 0, sizeof(unsigned int));
    count_points<<<(n + 255) / 256, 256>>>(xy, n, d_inside);
    cudaMemcpy(&h_inside, d_inside, sizeof(unsigned int), cudaMemcpyDeviceToHost);
    double pi_host_api = 4.0 * h_inside / n;
    printf("host API: pi ~ %f\n", pi_host_api);
    CURAND_CALL(curandDestroyGenerator(gen));
    cudaFree(xy);
    cudaFree(states);
    cudaFree(d_inside);

    bool ok = fabs(pi_device - M_PI) < 0.01 && fabs(pi_host_api - M_PI) < 0.01 && sizeof(curandState) == 48;
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
