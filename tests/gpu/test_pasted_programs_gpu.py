"""What public CUDA programs do in their host code, on a real GPU (make
test-gpu): a helper that allocates device memory through a local, a timer
class whose constructor and destructor make and destroy events, kernels
named as values (attributes, occupancy, cudaLaunchKernel), a table of
kernels launched through its elements, a template kernel launched with its
arguments deduced, and CUB's block level after a device-wide CUB header.
Their compile-time sides are in tests/cuda/test_pasted_programs.py."""
from support import needs_gpu, ok, shared_kernel, stdout_of


@needs_gpu
def test_a_helper_allocates_through_its_local_and_a_kernel_fills_it():
    with shared_kernel() as k:
        ok(k, """float *make(int n) { float *p; cudaMalloc((void**)&p, n * sizeof(float)); return p; }
void make_into(float **out, int n) { float *p = NULL; cudaMalloc((void **)&p, n * sizeof(float)); *out = p; }
__global__ void iota_k(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }""")
        out = stdout_of(ok(k, """int n = 1000;
float *d = make(n), *e;
make_into(&e, n);
iota_k<<<(n + 255) / 256, 256>>>(d, n);
cudaMemcpy(e, d, n * sizeof(float), cudaMemcpyDeviceToDevice);
float h[1000];
cudaMemcpy(h, e, sizeof h, cudaMemcpyDeviceToHost);
printf("%g %g %d\\n", h[0], h[999], d != e);
cudaFree(d); cudaFree(e);"""))
        assert out.strip() == "0 999 1", out


@needs_gpu
def test_a_timer_class_makes_its_events_in_its_constructor():
    with shared_kernel() as k:
        ok(k, """struct GpuTimer {
    cudaEvent_t start, stop;
    GpuTimer() { cudaEventCreate(&start); cudaEventCreate(&stop); }
    ~GpuTimer() { cudaEventDestroy(start); cudaEventDestroy(stop); }
    void Start() { cudaEventRecord(start, 0); }
    void Stop() { cudaEventRecord(stop, 0); }
    float Elapsed() { float ms; cudaEventSynchronize(stop); cudaEventElapsedTime(&ms, start, stop); return ms; }
};
template <typename T> void fill(T *p, int n);
__global__ void spin(int *p) { p[threadIdx.x] = threadIdx.x; }
template <typename T> void fill(T *p, int n) { for (int i = 0; i < n; i++) p[i] = T(i); }""")
        out = stdout_of(ok(k, """int *d; cudaMalloc(&d, 32 * sizeof(int));
{ GpuTimer t; t.Start(); spin<<<1, 32>>>(d); t.Stop(); printf("%d\\n", t.Elapsed() >= 0); }
int h[4]; fill(h, 4); printf("%d\\n", h[3]);"""))
        assert out.split() == ["1", "3"], out


@needs_gpu
def test_kernels_as_values_in_attributes_occupancy_and_cuda_launch_kernel():
    with shared_kernel() as k:
        ok(k, "__global__ void square(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
              "if (i < n) p[i] *= p[i]; }")
        out = stdout_of(ok(k, """cudaFuncAttributes attr;
cudaError_t e1 = cudaFuncGetAttributes(&attr, square);
int minGrid = 0, block = 0, n = 1000;
cudaError_t e2 = cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, square, 0, n);
float h[1000];
for (int i = 0; i < n; i++) h[i] = i;
float *d; cudaMalloc(&d, sizeof h);
cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
void *args[] = {&d, &n};
cudaError_t e3 = cudaLaunchKernel((void *)square, dim3((n + 255) / 256), dim3(256), args, 0, 0);
void *f = (void *)square;
cudaError_t e4 = cudaLaunchKernel(f, dim3((n + block - 1) / block), dim3(block), args, 0, 0);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%d %d %d %d %d %d %d %g\\n", e1, e2, e3, e4, attr.maxThreadsPerBlock > 0, attr.numRegs > 0,
       block > 0 && minGrid > 0, h[3]);"""))
        assert out.strip() == "0 0 0 0 1 1 1 81", out


@needs_gpu
def test_a_table_of_kernels_launches_each():
    with shared_kernel() as k:
        ok(k, """__global__ void deriv_x(float *f, float *df) { df[threadIdx.x] = 2 * f[threadIdx.x]; }
__global__ void deriv_y(float *f, float *df) { df[threadIdx.x] = 3 * f[threadIdx.x]; }""")
        out = stdout_of(ok(k, """typedef void (*kfn)(float *, float *);
kfn table[2] = {deriv_x, deriv_y};
float h[32], r[2][32];
for (int i = 0; i < 32; i++) h[i] = i;
float *f, *df;
cudaMalloc(&f, sizeof h); cudaMalloc(&df, sizeof h);
cudaMemcpy(f, h, sizeof h, cudaMemcpyHostToDevice);
for (int i = 0; i < 2; i++) {
    table[i]<<<1, 32>>>(f, df);
    cudaMemcpy(r[i], df, sizeof h, cudaMemcpyDeviceToHost);
}
printf("%g %g\\n", r[0][5], r[1][5]);"""))
        assert out.strip() == "10 15", out


@needs_gpu
def test_a_template_kernel_launched_with_deduced_arguments():
    with shared_kernel() as k:
        ok(k, "template <typename T> __global__ void scale(T *p, T a, int n) "
              "{ int i = threadIdx.x; if (i < n) p[i] *= a; }")
        out = stdout_of(ok(k, """int n = 8;
float hf[8]; double hd[8];
for (int i = 0; i < n; i++) { hf[i] = i; hd[i] = i; }
float *d_float; double *d_double;
cudaMalloc(&d_float, sizeof hf); cudaMalloc(&d_double, sizeof hd);
cudaMemcpy(d_float, hf, sizeof hf, cudaMemcpyHostToDevice);
cudaMemcpy(d_double, hd, sizeof hd, cudaMemcpyHostToDevice);
scale<<<1, 32>>>(d_float, 2.0f, n);
scale<<<1, 32>>>(d_double, 0.5, n);
cudaMemcpy(hf, d_float, sizeof hf, cudaMemcpyDeviceToHost);
cudaMemcpy(hd, d_double, sizeof hd, cudaMemcpyDeviceToHost);
printf("%g %g\\n", hf[7], hd[7]);"""))
        assert out.strip() == "14 3.5", out


@needs_gpu
def test_a_template_kernel_given_its_leading_arguments():
    """sort<512, 8><<<...>>>(in, out) of template <int B, int N, typename T>:
    T comes from the arguments, as nvcc deduces it."""
    with shared_kernel() as k:
        ok(k, "template <int B, int N, typename T> __global__ void tile(const T *in, T *out) "
              "{ out[threadIdx.x] = in[threadIdx.x] * (B / N); }")
        out = stdout_of(ok(k, """double h[32];
for (int i = 0; i < 32; i++) h[i] = i;
double *d_in, *d_out;
cudaMalloc(&d_in, sizeof h); cudaMalloc(&d_out, sizeof h);
cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
tile<64, 8><<<1, 32>>>(d_in, d_out);
cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
printf("%g\\n", h[3]);"""))
        assert out.strip() == "24", out


@needs_gpu
def test_cub_block_reduce_after_a_device_wide_cub_header():
    with shared_kernel() as k:
        ok(k, """#include <cub/device/device_reduce.cuh>
__global__ void block_sum(int *p) {
    typedef cub::BlockReduce<int, 128> R;
    __shared__ typename R::TempStorage t;
    int s = R(t).Sum(p[threadIdx.x]);
    if (threadIdx.x == 0) p[128] = s;
}""", t=300)
        out = stdout_of(ok(k, """int h[129];
for (int i = 0; i < 128; i++) h[i] = i;
int *d; cudaMalloc(&d, sizeof h);
cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
block_sum<<<1, 128>>>(d);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%d\\n", h[128]);"""))
        assert out.strip() == "8128", out
