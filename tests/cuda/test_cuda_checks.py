"""The CUDA runtime layer without a GPU (CI): CUDA's error codes and texts,
a failing call used as a statement is an error of the cell, launches are
type-checked against the kernel's signature before any GPU work, sizes are
checked against host buffers, and a machine without a driver says so."""
import support
from support import err, ok, result_of, shared_kernel

KERNEL = "__global__ void vecadd(double *z, const double *x, const double *y, int n) {" \
         " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = x[i] + y[i]; }"


def test_error_names_and_strings_are_cudas():
    with shared_kernel() as k:
        out = support.stdout_of(ok(k, 'printf("%d %s|%s|%s\\n", cudaErrorIllegalAddress, '
                                      'cudaGetErrorName(cudaErrorIllegalAddress), '
                                      'cudaGetErrorString(cudaErrorMemoryAllocation), '
                                      'cudaGetErrorString(cudaSuccess));'))
        assert out == "700 cudaErrorIllegalAddress|out of memory|no error\n", out
        out = support.stdout_of(ok(k, 'cudaError_t e = cudaErrorInvalidConfiguration; '
                                      'printf("%d %s\\n", (int)e, cudaGetErrorString(e));'))
        assert out == "9 invalid configuration argument\n", out


def test_device_prop_layout_matches_the_c_struct():
    # CUDA 13's own struct (read from the headers; tests/unit/test_cuda_api.c
    # compares every struct with gcc's layout)
    with shared_kernel() as k:
        out = support.stdout_of(ok(k, 'printf("%zu %zu %zu\\n", sizeof(cudaDeviceProp), '
                                      'offsetof(cudaDeviceProp, multiProcessorCount), '
                                      'offsetof(cudaDeviceProp, sharedMemPerBlockOptin));'))
        assert out == "1008 384 672\n", out


def test_launch_type_checks_need_no_gpu():
    with shared_kernel() as k:
        ok(k, KERNEL)
        ok(k, "double h[4]; float *f = (float *)malloc(16); int n = 4;")
        e, v = err(k, "vecadd<<<1, 4>>>(h, h, h, n);")
        assert e == "TypeError" and "argument 1 (z) of vecadd" in v and "host memory" in v, v
        assert "__global__ void vecadd(double *z, const double *x, const double *y, int n)" in v, v
        e, v = err(k, "vecadd<<<1, 4>>>(0, 0, n);")
        assert e == "TypeError" and "takes 4 arguments" in v and "passes 3" in v, v
        e, v = err(k, "vecadd<<<1, 4>>>(0, 0, 0, f);")
        assert e == "TypeError" and "argument 4 (n)" in v and "float *" in v, v
        e, v = err(k, "nokernel<<<1, 1>>>(1);")
        assert e == "NameError" and "nokernel" in v, v


def test_template_kernel_signature_in_errors():
    with shared_kernel() as k:
        ok(k, "template <typename T> __global__ void scale(T *x, T a, int n) "
              "{ int i = threadIdx.x; if (i < n) x[i] *= a; }")
        ok(k, "float hf[4];")
        e, v = err(k, "scale<float><<<1, 4>>>(hf, 2.0f, 4);")
        assert e == "TypeError" and "scale<float>(float *x, float a, int n)" in v, v
        e, v = err(k, "scale<float><<<1, 4>>>(0, 2.0f);")
        assert e == "TypeError" and "takes 3 arguments" in v, v


def test_sizes_are_checked_against_host_buffers():
    with shared_kernel() as k:
        ok(k, "double a[500], b[1000];")
        e, v = err(k, "cudaMemcpy(a, b, 8000, cudaMemcpyHostToHost);")
        assert e == "cudaErrorInvalidValue" and "8000 bytes into a" in v and "4000 bytes" in v, v
        # kept results get the code; misuse is still an error of the cell
        e, v = err(k, "cudaError_t r = cudaMemcpy(a, b, 8000, cudaMemcpyHostToHost);")
        assert e == "cudaErrorInvalidValue", v
        msgs = ok(k, "cudaMemcpy(b, a, 4000, cudaMemcpyHostToHost); b[0]")


def test_direction_mistakes_are_named():
    with shared_kernel() as k:
        ok(k, "double h[4];")
        e, v = err(k, "cudaMemcpy(h, h, 32, cudaMemcpyHostToDevice);")
        assert e == "cudaErrorInvalidValue" and "destination" in v and "host memory" in v, v


def test_no_gpu_calls_fail_as_cuda_says():
    if support.GPU:
        return
    with shared_kernel() as k:
        e, v = err(k, "double *d; cudaMalloc(&d, 800);")
        assert e in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), (e, v)
        assert "no CUDA driver" in v or "no GPU" in v, v
        # kept: the code comes back, the cell goes on
        msgs = ok(k, "cudaError_t r = cudaMalloc(&d, 800); (int)r")
        assert result_of(msgs) in ("(int) 35", "(int) 100"), result_of(msgs)
        msgs = ok(k, "cudaGetLastError()")
        assert result_of(msgs) in ("(int) 35", "(int) 100"), result_of(msgs)
        msgs = ok(k, "cudaGetLastError()")
        assert result_of(msgs) == "(int) 0", result_of(msgs)
        # statements that fail are errors; the session goes on
        e, _ = err(k, "cudaDeviceSynchronize();")
        assert e.startswith("cudaError")
        # an error raised as the cell's error was seen: cudaGetLastError does not hand it out again
        msgs = ok(k, "cudaGetLastError()")
        assert result_of(msgs) == "(int) 0", result_of(msgs)
        ok(k, KERNEL)
        e, v = err(k, "vecadd<<<1, 1>>>(0, 0, 0, 1);")
        assert e in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice") and "vecadd" in v, v
        msgs = ok(k, "%devices")
        assert "No GPU" in support.stdout_of(msgs)
        ok(k, "int x = 1 + 1;")


def test_unknown_cuda_function():
    with shared_kernel() as k:
        e, v = err(k, "cudaFrobnicate(1);")
        assert e == "NameError" and "cudaFrobnicate" in v, v
