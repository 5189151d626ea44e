/* The floor for a device cell's compile: NVRTC alone on the vecadd kernel,
 * with the options icuda uses (arch, -std, include paths, ptxas report). */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    /* icuda's choice without a GPU: the newest architecture NVRTC supports */
    char arch[32];
    int n = 0, archs[256];
    nvrtcGetNumSupportedArchs(&n);
    nvrtcGetSupportedArchs(archs);
    snprintf(arch, sizeof arch, "-arch=sm_%d", n > 0 && n <= 256 ? archs[n - 1] : 90);
    if (argc > 1) snprintf(arch, sizeof arch, "-arch=%s", argv[1]);
    const char *src = "__global__ void vecadd(double *z, const double *x, const double *y, int n)\n"
                      "{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) z[i] = x[i] + y[i];\n}\n";
    const char *opts[] = {arch, "-std=c++17", "-I" ICUDA_CUDA_HOME "/include", "-I" ICUDA_CUDA_HOME "/include/cccl",
                          "-Xptxas=-v"};
    enum { RUNS = 7 };
    double t[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        nvrtcProgram p;
        nvrtcCreateProgram(&p, src, "cell.cu", 0, NULL, NULL);
        nvrtcAddNameExpression(p, "&vecadd");
        if (nvrtcCompileProgram(p, 5, opts) != NVRTC_SUCCESS) return 1;
        size_t n;
        nvrtcGetCUBINSize(p, &n);
        char *cubin = malloc(n);
        nvrtcGetCUBIN(p, cubin);
        free(cubin);
        nvrtcDestroyProgram(&p);
        t[r] = now() - t0;
    }
    qsort(t, RUNS, sizeof t[0], cmp);
    /* the first run pays NVRTC's one-time start-up, as a kernel's warm-up does */
    printf("median %8.2f ms   min %8.2f ms\n", t[RUNS / 2] * 1e3, t[0] * 1e3);
    return 0;
}
