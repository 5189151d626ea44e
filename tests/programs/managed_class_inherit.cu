#include <cstdio>
#include <cstring>
#include <new>

// A base class whose objects live in managed memory, as the "unified memory
// in C++" posts write it: the host builds objects, kernels read them.
class Managed {
public:
    void *operator new(size_t len) {
        void *ptr = nullptr;
        cudaMallocManaged(&ptr, len);
        cudaDeviceSynchronize();
        return ptr;
    }
    void operator delete(void *ptr) {
        cudaDeviceSynchronize();
        cudaFree(ptr);
    }
};

class Particle : public Managed {
public:
    float x, y, vx, vy;
    Particle(float x_, float y_, float vx_, float vy_) : x(x_), y(y_), vx(vx_), vy(vy_) {}
};

struct Integrator {
    virtual ~Integrator() {}
    virtual const char *name() const = 0;
    virtual int steps() const = 0;
};
struct Euler : Integrator {
    const char *name() const override { return "euler"; }
    int steps() const override { return 10; }
};

__global__ void advance(Particle *p, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].x += p[i].vx * dt;
        p[i].y += p[i].vy * dt;
    }
}

int main() {
    const int n = 256;
    Particle *ps;
    cudaMallocManaged(&ps, n * sizeof(Particle));
    for (int i = 0; i < n; i++) ::new (&ps[i]) Particle((float)i, 0.0f, 1.0f, 2.0f);
    Particle *single = new Particle(1, 2, 3, 4);
    Integrator *integ = new Euler();
    for (int s = 0; s < integ->steps(); s++) advance<<<1, 256>>>(ps, n, 0.5f);
    advance<<<1, 1>>>(single, 1, 1.0f);
    cudaDeviceSynchronize();
    bool ok = true;
    for (int i = 0; i < n; i++) ok = ok && ps[i].x == i + 5.0f && ps[i].y == 10.0f;
    ok = ok && single->x == 4.0f && single->y == 6.0f && !strcmp(integ->name(), "euler");
    printf("%s: ps[3] = (%.1f, %.1f), single = (%.1f, %.1f)\n", integ->name(), ps[3].x, ps[3].y, single->x, single->y);
    delete single;
    delete integ;
    cudaFree(ps);
    printf(ok ? "PASS\n" : "FAIL\n");
    return ok ? 0 : 1;
}
