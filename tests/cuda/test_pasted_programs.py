"""What public CUDA programs (textbooks, course homework, the samples) do in
their host code, pasted into cells, without a GPU: helpers that allocate
device memory through a local, host classes and templates kept from NVRTC,
kernels named as values, the C and C++ library names such programs use.
What needs a launch is in tests/gpu/test_pasted_programs_gpu.py."""
from support import err, ok, run, shared_kernel, stdout_of

NO_GPU = ("cudaSuccess", "cudaErrorNoDevice", "cudaErrorInsufficientDriver")


def gpu_or_no_device(k, code):
    """Runs a cell that reaches the GPU: it succeeds (a GPU) or fails as a
    machine without one does, never otherwise; its stdout."""
    c, msgs = run(k, code)
    assert c["status"] == "ok" or c["ename"] in NO_GPU, c
    return stdout_of(msgs)


def test_a_helper_allocates_device_memory_through_its_local():
    with shared_kernel() as k:
        ok(k, """float *make(int n) { float *p; cudaMalloc((void**)&p, n * sizeof(float)); return p; }
void make_into(float **out, int n) {
    float *p = NULL;
    cudaError_t e = cudaMalloc((void **) &p, n * sizeof(float));
    printf("%s\\n", cudaGetErrorName(e));
    *out = p;
}""")
        gpu_or_no_device(k, "float *d = make(16);")
        out = gpu_or_no_device(k, "float *d2; make_into(&d2, 16);")
        assert out.strip() in NO_GPU, out


def test_host_classes_and_template_prototypes_stay_out_of_the_device_compile():
    with shared_kernel() as k:
        out = stdout_of(ok(k, """#include <stdio.h>
struct Timer {
    Timer() { printf("start\\n"); }
    ~Timer() { printf("stop\\n"); }
    double t;
};
template <typename T> void fill(T *p, int n);
__global__ void square(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] *= p[i]; }
template <typename T> void fill(T *p, int n) { for (int i = 0; i < n; i++) p[i] = T(i); }"""))
        assert "error" not in out.lower(), out
        out = stdout_of(ok(k, "{ Timer t; float b[4]; fill(b, 4); printf(\"%g\\n\", b[3]); }"))
        assert out.split() == ["start", "3", "stop"], out


def test_a_kernel_named_as_a_value_in_host_code():
    with shared_kernel() as k:
        ok(k, "__global__ void square(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] *= p[i]; }")
        out = stdout_of(ok(k, """void *f = (void *)square;
const void *g = reinterpret_cast<const void *>(square);
printf("%d %d\\n", f != NULL, f == g);"""))
        assert out == "1 1\n", out
        gpu_or_no_device(k, "cudaFuncAttributes attr; cudaFuncGetAttributes(&attr, square);")
        gpu_or_no_device(k, "int minGrid, block; cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, square, 0, 64);")
        gpu_or_no_device(k, "cudaFuncGetAttributes(&attr, f);")
        gpu_or_no_device(k, """float *d = NULL; int n = 0; void *args[] = {&d, &n};
cudaLaunchKernel((void *)square, dim3(1), dim3(1), args, 0, 0);""")
        e, v = err(k, "square(d, n);")
        assert e == "TypeError" and "is a kernel: launch it with square<<<" in v, v


def test_a_table_of_kernels_is_launched_through_its_elements():
    with shared_kernel() as k:
        ok(k, """__global__ void deriv_x(float *f, float *df) { df[threadIdx.x] = 2 * f[threadIdx.x]; }
__global__ void deriv_y(float *f, float *df) { df[threadIdx.x] = 3 * f[threadIdx.x]; }""")
        out = stdout_of(ok(k, """typedef void (*kfn)(float *, float *);
kfn table[2] = {deriv_x, deriv_y};
float *f = NULL, *df = NULL;
printf("%d %d\\n", table[0] == deriv_x, table[1] == deriv_x);"""))
        assert out == "1 0\n", out
        out = gpu_or_no_device(k, """float h[2] = {1, 1}, r[2] = {0, 0};
cudaMalloc(&f, sizeof h); cudaMalloc(&df, sizeof h);
cudaMemcpy(f, h, sizeof h, cudaMemcpyHostToDevice);
for (int i = 0; i < 2; i++) table[i]<<<1, 1>>>(f, df + i);
cudaMemcpy(r, df, sizeof r, cudaMemcpyDeviceToHost);
printf("%g %g\\n", r[0], r[1]);""")
        assert out in ("", "2 3\n"), out  # empty where there is no GPU
        e, v = err(k, "table[1]<<<1, 1>>>(f);")
        assert e == "TypeError" and "deriv_y takes 2 arguments" in v, v
        e, v = err(k, "kfn none = NULL; none<<<1, 1>>>(f, df);")
        assert e == "RuntimeError" and "NULL" in v, v


def test_a_template_kernel_launched_with_its_arguments_deduced():
    with shared_kernel() as k:
        ok(k, "template <typename T> __global__ void scale(T *p, T a, int n) "
              "{ int i = threadIdx.x; if (i < n) p[i] *= a; }")
        c, msgs = run(k, "float *d_float = NULL; int n = 0;\nscale<<<1, 32>>>(d_float, 2.0f, n);")
        assert c["status"] == "ok" or (c["ename"] in NO_GPU and "scale<float>" in c["evalue"]), c
        e, v = err(k, "scale<<<1, 32>>>(d_float, 2.0, n);")
        assert e == "TypeError" and "deduced as both float and double" in v, v


def test_a_template_kernel_given_its_leading_arguments_deduces_the_rest():
    with shared_kernel() as k:
        ok(k, "template <int B, int N, typename T> __global__ void tile(const T *in, T *out) "
              "{ out[threadIdx.x] = in[threadIdx.x] * (B / N); }")
        c, msgs = run(k, "double *d_in = NULL, *d_out = NULL;\ntile<64, 8><<<1, 32>>>(d_in, d_out);")
        assert c["status"] == "ok" or (c["ename"] in NO_GPU and "tile<64,8,double>" in c["evalue"].replace(" ", "")), c
        c, msgs = run(k, "tile<64, 8, double><<<1, 32>>>(d_in, d_out);")
        assert c["status"] == "ok" or (c["ename"] in NO_GPU and "tile<64,8,double>" in c["evalue"].replace(" ", "")), c
        e, v = err(k, "int *d_int = NULL;\ntile<64, 8><<<1, 32>>>(d_int, d_out);")
        assert e == "TypeError" and "deduced as both int and double" in v and "tile<64, 8, int>" in v, v


def test_sys_time_strings_and_iterator_headers_are_interpreted():
    with shared_kernel() as k:
        msgs = ok(k, """#include <stdio.h>
#include <sys/time.h>
#include <strings.h>
#include <iterator>
#include <vector>
__global__ void touch(float *p) { struct timeval t; t.tv_sec = 1; p[0] = t.tv_sec; }
double wall(void) { struct timeval tv; gettimeofday(&tv, NULL); return tv.tv_sec + tv.tv_usec * 1e-6; }
int a[3] = {1, 2, 3};
std::vector<int> v;
std::copy(std::begin(a), std::end(a), std::back_inserter(v));
printf("%d %d %zu\\n", wall() > 0, strcasecmp("GPU", "gpu"), v.size());""")
        assert stdout_of(msgs).splitlines()[-1] == "1 0 3", stdout_of(msgs)
        assert "native" not in stdout_of(msgs, "stderr"), stdout_of(msgs, "stderr")


def test_cub_block_level_compiles_whatever_cub_header_the_cell_includes():
    with shared_kernel() as k:
        for header in ("cub/cub.cuh", "cub/device/device_reduce.cuh", "cub/device/device_radix_sort.cuh",
                       "cub/util_allocator.cuh"):
            name = header.split("/")[-1].split(".")[0]
            msgs = ok(k, f"#include <{header}>\n"
                         f"__global__ void sum_{name}(int *p) {{ typedef cub::BlockReduce<int, 128> R; "
                         "__shared__ typename R::TempStorage t; p[0] = R(t).Sum(p[threadIdx.x]); }", t=300)
            assert f"sum_{name}(int *p)" in stdout_of(msgs), (header, stdout_of(msgs))


def test_the_profiler_api_of_cuda_profiler_api_h():
    """cudaProfilerStart and cudaProfilerStop, which programs that mark the
    part to profile call, are functions of the runtime like the others."""
    with shared_kernel() as k:
        ok(k, "#include <cuda_profiler_api.h>")
        out = gpu_or_no_device(k, 'cudaProfilerStart();\ncudaProfilerStop();\nprintf("marked\\n");')
        assert out in ("", "marked\n"), out
