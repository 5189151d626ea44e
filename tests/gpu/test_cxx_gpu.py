"""Launches as CUDA C++ code writes them, on a real GPU (make test-gpu):
cooperative groups' grid-wide sync launched by cudaLaunchCooperativeKernel,
cudaLaunchKernel with a void **args array, cudaDeviceGetAttribute, and
launches written with spaces (k<< <g, b>> >)."""
from support import err, needs_gpu, ok, result_of, shared_kernel, stdout_of

GRID_SUM = """#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void grid_sum(const int *x, int *partial, int *out, int n) {
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int s[256];
    int sum = 0;
    for (long i = grid.thread_rank(); i < n; i += grid.size()) sum += x[i];
    s[block.thread_rank()] = sum;
    block.sync();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        block.sync();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
    grid.sync();  /* every block's partial sum is written */
    if (grid.thread_rank() == 0) {
        int t = 0;
        for (int b = 0; b < gridDim.x; b++) t += partial[b];
        *out = t;
    }
}"""

GRID_SUM_HOST = """int n = 1 << 20;
int *hx = (int *)malloc(n * sizeof(int));
long expect = 0;
for (int i = 0; i < n; i++) { hx[i] = i % 7; expect += hx[i]; }
int *x, *partial, *out;
cudaMalloc(&x, n * sizeof(int));
cudaMemcpy(x, hx, n * sizeof(int), cudaMemcpyHostToDevice);
int coop = 0, sms = 0, per_sm = 0;
cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0);
cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 256, 0);
int blocks = sms * per_sm;
cudaMalloc(&partial, blocks * sizeof(int));
cudaMalloc(&out, sizeof(int));
void *args[] = {&x, &partial, &out, &n};
cudaLaunchCooperativeKernel(grid_sum, blocks, 256, args, 0, 0);
int got = -1;
cudaMemcpy(&got, out, sizeof(int), cudaMemcpyDeviceToHost);
printf("coop %d blocks %d sum %d expect %ld\\n", coop, blocks, got, expect);
assert(coop == 1 && blocks >= sms && got == expect);"""


@needs_gpu
def test_cooperative_grid_sync_sum():
    with shared_kernel() as k:
        assert "grid_sum(const int *x, int *partial, int *out, int n):" in stdout_of(ok(k, GRID_SUM))
        out = stdout_of(ok(k, GRID_SUM_HOST))
        assert "sum 3145722 expect 3145722" in out, out
        # run again on the same buffers, and with a stream
        out = stdout_of(ok(k, "cudaMemset(out, 0, sizeof(int));\ncudaStream_t s; cudaStreamCreate(&s);\n"
                              "cudaLaunchCooperativeKernel(grid_sum, blocks, 256, args, 0, s);\n"
                              "cudaStreamSynchronize(s);\ncudaMemcpy(&got, out, sizeof(int), cudaMemcpyDeviceToHost);\n"
                              "printf(\"again %d\\n\", got);"))
        assert "again 3145722" in out, out
        # more blocks than can be resident at once: CUDA's refusal, with the numbers
        msgs = ok(k, "cudaError_t e = cudaLaunchCooperativeKernel(grid_sum, blocks + 1, 256, args, 0, 0); (int)e")
        assert result_of(msgs) == "(int) 720", result_of(msgs)
        e, v = err(k, "cudaLaunchCooperativeKernel(grid_sum, blocks * 2, 256, args, 0, 0);")
        assert e == "cudaErrorCooperativeLaunchTooLarge" and "resident" in v, v
        # the session goes on
        out = stdout_of(ok(k, "cudaLaunchCooperativeKernel(grid_sum, sms, 256, args);\n"
                              "cudaMemcpy(&got, out, sizeof(int), cudaMemcpyDeviceToHost);\nprintf(\"sms %d\\n\", got);"))
        assert "sms 3145722" in out, out


@needs_gpu
def test_launch_kernel_with_an_args_array():
    with shared_kernel() as k:
        ok(k, "__global__ void axpy(const float *x, float *y, float a, int n) {\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (i < n) y[i] += a * x[i];\n}\n"
              "__global__ void fill3(double *p, dim3 d) { p[0] = d.x; p[1] = d.y; p[2] = d.z; }")
        out = stdout_of(ok(k, """int n = 1000;
float a = 2.5f;
float *hx = (float *)malloc(n * sizeof(float)), *hy = (float *)malloc(n * sizeof(float));
for (int i = 0; i < n; i++) { hx[i] = i; hy[i] = 1; }
float *x, *y;
cudaMalloc(&x, n * sizeof(float)); cudaMalloc(&y, n * sizeof(float));
cudaMemcpy(x, hx, n * sizeof(float), cudaMemcpyHostToDevice);
cudaMemcpy(y, hy, n * sizeof(float), cudaMemcpyHostToDevice);
void *args[] = {&x, &y, &a, &n};
cudaError_t e = cudaLaunchKernel(axpy, dim3((n + 255) / 256), dim3(256), args, 0, 0);
cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
for (int i = 0; i < n; i++) assert(hy[i] == 1 + 2.5f * i);
printf("launched %d y[999] %g\\n", (int)e, hy[999]);"""))
        assert "launched 0 y[999] 2498.5" in out, out
        out = stdout_of(ok(k, """cudaStream_t s; cudaStreamCreate(&s);
cudaLaunchKernel(axpy, (n + 127) / 128, 128, args, 0, s);
cudaStreamSynchronize(s);
cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost);
printf("twice y[2] %g\\n", hy[2]);
double *d; cudaMalloc(&d, 3 * sizeof(double));
dim3 shape(4, 5, 6);
void *dargs[] = {&d, &shape};
cudaLaunchKernel(fill3, 1, 1, dargs);
double hd[3]; cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost);
printf("dim3 %g %g %g\\n", hd[0], hd[1], hd[2]);"""))
        assert "twice y[2] 11" in out and "dim3 4 5 6" in out, out
        e, v = err(k, "int *hostp = (int *)malloc(4000); void *bad[] = {&hostp, &y, &a, &n};\n"
                      "cudaLaunchKernel(axpy, 4, 256, bad);")
        assert e == "cudaErrorInvalidValue" and "bad[0]" in v and "host memory" in v, v


@needs_gpu
def test_spaced_launch_runs():
    with shared_kernel() as k:
        ok(k, "__global__ void iota(int *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = i; }")
        out = stdout_of(ok(k, """int n = 5000, *d, *h = (int *)malloc(5000 * sizeof(int));
cudaMalloc(&d, n * sizeof(int));
iota<< <(n + 255) / 256, 256>> >(d, n);
cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
for (int i = 0; i < n; i++) assert(h[i] == i);
cudaMemset(d, 0, n * sizeof(int));
iota <<< (n + 255) / 256, 256 >>> (d, n);
cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
printf("last %d\\n", h[n - 1]);"""))
        assert "last 4999" in out, out


@needs_gpu
def test_device_attributes():
    with shared_kernel() as k:
        out = stdout_of(ok(k, """int sms = 0, warp = 0, major = 0, coop = 0; cudaDeviceProp p;
cudaGetDeviceProperties(&p, 0);
cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0);
assert(sms == p.multiProcessorCount && warp == 32 && major == p.major && coop == p.cooperativeLaunch);
printf("attrs ok %d\\n", sms);"""))
        assert "attrs ok" in out, out
        e, _ = err(k, "int v; cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 99);")
        assert e == "cudaErrorInvalidDevice", e
