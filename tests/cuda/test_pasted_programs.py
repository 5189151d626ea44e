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
