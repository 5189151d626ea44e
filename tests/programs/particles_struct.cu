// Particles in free fall with a floor: the device state is a struct of
// device pointers passed by value to the kernel; the host reference is a
// struct with a constructor and member functions over std::vector.
#include <iostream>
#include <vector>
#include <cmath>

struct DeviceParticles {
    float *y;
    float *v;
    int n;
};

struct HostParticles {
    std::vector<float> y, v;
    HostParticles(int n) : y(n), v(n) {
        for (int i = 0; i < n; i++) {
            y[i] = 1.0f + 0.01f * (i % 100);
            v[i] = 0.0f;
        }
    }
    void step(float dt, float g) {
        for (size_t i = 0; i < y.size(); i++) {
            v[i] -= g * dt;
            y[i] += v[i] * dt;
            if (y[i] < 0.0f) {
                y[i] = -y[i];
                v[i] = -0.9f * v[i];
            }
        }
    }
    int size() const { return (int)y.size(); }
};

__global__ void fall(DeviceParticles p, float dt, float g, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n) return;
    float y = p.y[i], v = p.v[i];
    for (int s = 0; s < steps; s++) {
        v = __fsub_rn(v, __fmul_rn(g, dt));
        y = __fadd_rn(y, __fmul_rn(v, dt));
        if (y < 0.0f) {
            y = -y;
            v = __fmul_rn(-0.9f, v);
        }
    }
    p.y[i] = y;
    p.v[i] = v;
}

int main() {
    const int n = 4096, steps = 300;
    const float dt = 0.005f, g = 9.81f;
    HostParticles host(n);

    DeviceParticles dev;
    dev.n = n;
    cudaMalloc(&dev.y, n * sizeof(float));
    cudaMalloc(&dev.v, n * sizeof(float));
    cudaMemcpy(dev.y, host.y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dev.v, host.v.data(), n * sizeof(float), cudaMemcpyHostToDevice);

    fall<<<(n + 127) / 128, 128>>>(dev, dt, g, steps);
    std::vector<float> y(n);
    cudaMemcpy(y.data(), dev.y, n * sizeof(float), cudaMemcpyDeviceToHost);

    for (int s = 0; s < steps; s++) host.step(dt, g);

    float worst = 0.0f;
    for (int i = 0; i < host.size(); i++) worst = std::fmax(worst, std::fabs(y[i] - host.y[i]));
    std::cout << "height of particle 42: " << y[42] << ", largest difference " << worst << std::endl;

    cudaFree(dev.y);
    cudaFree(dev.v);
    if (worst > 1e-4f) {
        std::cout << "FAIL" << std::endl;
        return 1;
    }
    std::cout << "PASS" << std::endl;
    return 0;
}
