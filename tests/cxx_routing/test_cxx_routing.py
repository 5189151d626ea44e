"""Where the pieces of CUDA C++ code go (the splitter, runtime/cell/split.c and
runtime/cell/include_routes.c): host headers stay with the host and never reach
NVRTC, a header icuda does not have is an error naming it, constants and
namespaces reach the device side, C++ host items stay on the host, and a
launch written with spaces is a launch. Through jupyter_client, no GPU."""
import contextlib
import os
import random
import shutil
import tempfile

import support
from support import kernel, ok, result_of, run, shared_kernel, stdout_of


def host_takes(k, code):
    """Whether the host interpreter takes this C++ yet (the parser's C++ part
    lands beside this work); the device side is checked either way."""
    c, _ = run(k, code)
    return c["status"] == "ok"


def ran_natively(c, msgs=None, out=None, has=None):
    """A native cell's reply: it ran, printing out (or something that holds
    has) if given (a GPU), or it compiled and could not run (no GPU)."""
    if support.GPU:
        assert c["status"] == "ok", c
        if out is not None:
            assert stdout_of(msgs) == out, (c, stdout_of(msgs))
        if has is not None:
            assert has in stdout_of(msgs), (c, stdout_of(msgs))
    else:
        assert c["ename"] == "cudaErrorNoDevice" and "compiled, but cannot run" in c["evalue"], c


def test_host_headers_stay_with_the_host():
    with shared_kernel() as k:
        # NVRTC cannot open <iostream>, <vector>, cuda_profiler_api.h: the kernel compiles only if they stay out
        msgs = ok(k, "#include <iostream>\n#include <vector>\n#include <algorithm>\n#include <chrono>\n"
                     "#include <cuda_runtime.h>\n#include <cuda_profiler_api.h>\n#include <cuda.h>\n"
                     "#include \"device_launch_parameters.h\"\n"
                     "__global__ void hello(int *p) { p[threadIdx.x] = threadIdx.x; }\n"
                     "int after = 3;")
        assert "hello(int *p):" in stdout_of(msgs), stdout_of(msgs)
        assert result_of(ok(k, "after")) == "(int) 3"
        # and a later device cell does not meet them in the prelude
        msgs = ok(k, "__global__ void again(int *p) { p[0] = 1; }")
        assert "again(int *p):" in stdout_of(msgs)


def test_c_headers_reach_both_sides():
    with shared_kernel() as k:
        msgs = ok(k, "#include <cstdint>\n#include <cmath>\n#include <cstdio>\n#include <climits>\n#include <cfloat>\n"
                     "__global__ void k(uint32_t *p, float f) { p[0] = sqrtf(f) + M_PI + INT_MAX + FLT_MAX; }\n"
                     "uint32_t u = 7;\nprintf(\"%u %.3f %d\\n\", u, sqrt(2.0), INT_MAX);")
        assert "k(uint32_t *p, float f):" in stdout_of(msgs)
        assert "7 1.414 2147483647\n" in stdout_of(msgs)
        # the includes are kept for later device cells, as before; std:: math as nvcc's <cmath> has it
        msgs = ok(k, "__global__ void k2(int64_t *p, float *f) { p[0] = (int64_t)floorf(2.5f);\n"
                     "    f[0] = std::sqrt(f[1]) + std::max(f[2], 1.0f) + std::abs(-2.0f); }")
        assert "k2(int64_t *p, float *f):" in stdout_of(msgs)


def test_a_header_only_nvcc_takes_makes_the_cell_native():
    """A header neither the interpreter nor NVRTC takes sends the whole cell
    to nvcc (a native C++ cell), saying so in one line; a header nowhere is
    nvcc's error at the cell's line, and nothing of the cell runs (with a
    GPU its variables of numbers were declared for it before nvcc ran, and
    stay declared, unassigned)."""
    with shared_kernel() as k:
        ok(k, "int kept = 5;")
        for header in ("<boost/foo.hpp>", '"helper_cuda.h"'):
            c, msgs = run(k, f"#include {header}\n__global__ void never(int *p) {{ p[0] = 1; }}\nint lost = 1;", t=300)
            assert f"runs as native C++ (nvcc, in the GPU worker): it includes {header}" in stdout_of(msgs, "stderr")
            assert c["status"] == "error" and c["ename"] == "CompileError", c
            assert header.strip('<>"') in c["evalue"] and "line 1" in c["evalue"], c["evalue"]
            assert "never(int *p)" not in stdout_of(msgs)  # NVRTC compiled nothing
        assert result_of(ok(k, "kept")) == "(int) 5"
        c, msgs = run(k, "lost")
        if support.GPU:  # declared for the cell before nvcc ran, never assigned
            assert c["status"] == "ok" and result_of(msgs) == "(int) 0", c
        else:
            assert c["status"] == "error", c
        c, msgs = run(k, "#include <fstream>\nstd::ofstream never_opened;", t=300)
        assert "it includes <fstream>" in stdout_of(msgs, "stderr")
        ran_natively(c)
        # the next cell works, device code included
        msgs = ok(k, "__global__ void fine(int *p) { p[0] = 2; }\nint y = 2;\ny")
        assert "fine(int *p):" in stdout_of(msgs) and result_of(msgs) == "(int) 2"


def test_headers_that_may_not_be_read_and_header_cells():
    with shared_kernel() as k:
        # inside the cell's own #if: NVRTC decides, as a compiler would
        msgs = ok(k, "#ifdef _WIN32\n#include <windows.h>\n#endif\n__global__ void w(int *p) { p[0] = 1; }")
        assert "w(int *p):" in stdout_of(msgs)
        ok(k, "%%header ops.cuh\n__device__ int twice(int a) { return 2 * a; }")
        msgs = ok(k, "#include \"ops.cuh\"\n__global__ void t(int *p) { p[0] = twice(3); }")
        assert "t(int *p):" in stdout_of(msgs)
        # a device library of the toolkit goes to NVRTC as it is
        msgs = ok(k, "#include <cuda_fp16.h>\n__global__ void h(__half *p) { p[0] = __float2half(1.0f); }")
        assert "h(__half *p):" in stdout_of(msgs)


def test_constexpr_constants_reach_device_code():
    with shared_kernel() as k:
        # the same cell: the device side sees it before the host runs the cell
        c, msgs = run(k, "constexpr int BINS = 64;\n"
                         "__global__ void hist(const int *x, int *h) { __shared__ int s[BINS]; s[threadIdx.x] = 0;\n"
                         "    __syncthreads(); atomicAdd(&s[x[threadIdx.x] % BINS], 1); h[0] = s[0]; }")
        assert "hist(const int *x, int *h):" in stdout_of(msgs), (c, stdout_of(msgs))
        assert "256 B shared" in stdout_of(msgs), stdout_of(msgs)
        assert c["status"] == "ok" or c["ename"] != "CompileError", c
        if c["status"] == "ok":  # the host took constexpr: later cells see BINS too
            msgs = ok(k, "__global__ void later(int *h) { __shared__ int t[2 * BINS]; t[threadIdx.x] = h[threadIdx.x];\n"
                         "    __syncthreads(); h[threadIdx.x] = t[(threadIdx.x + 1) % (2 * BINS)]; }")
            assert "512 B shared" in stdout_of(msgs), stdout_of(msgs)
            assert result_of(ok(k, "BINS")) == "(int) 64"
        # const as before, in a later cell, without a warning about the constants it does not use
        ok(k, "const int N = 1 << 20;\nconst float SCALE = 0.5f;")
        msgs = ok(k, "__global__ void big(float *x) { x[N - 1] = SCALE; }")
        assert "big(float *x):" in stdout_of(msgs)
        msgs = ok(k, "__global__ void other(float *x) { x[0] = 1; }")
        assert "declared but never referenced" not in stdout_of(msgs, "stderr"), stdout_of(msgs, "stderr")


def test_limits_reach_device_code_unasked():
    """As in a program nvcc builds, where cuda_runtime.h brings limits.h."""
    with shared_kernel() as k:
        msgs = ok(k, "#include <iostream>\n__global__ void lim(int *p, unsigned *q) { p[0] = INT_MIN; p[1] = INT_MAX;\n"
                     "    q[0] = UINT_MAX; }")
        assert "lim(int *p, unsigned int *q):" in stdout_of(msgs) or "lim(int *p, unsigned *q):" in stdout_of(msgs), \
            stdout_of(msgs)


def test_namespaces_reach_device_code():
    with shared_kernel() as k:
        msgs = ok(k, "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\nusing namespace std;\n"
                     "__global__ void tiles(float *x) {\n"
                     "    cg::thread_block block = cg::this_thread_block();\n"
                     "    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);\n"
                     "    block.sync();\n"
                     "    x[block.thread_rank()] = warp.thread_rank();\n"
                     "}\n"
                     "__global__ void whole(int *x) { cg::grid_group g = cg::this_grid(); x[g.thread_rank()] = 1; g.sync(); }")
        out = stdout_of(msgs)
        assert "tiles(float *x):" in out and "whole(int *x):" in out, out
        # a later cell finds the alias in the prelude
        msgs = ok(k, "__global__ void later(int *x) { x[0] = cg::this_thread_block().thread_rank(); }")
        assert "later(int *x):" in stdout_of(msgs)
        # a namespace alias whose header never came is this cell's error, not every later cell's
        with kernel() as k2:
            ok(k2, "namespace cg = cooperative_groups;")
            msgs = ok(k2, "__global__ void plain(int *x) { x[0] = 1; }")
            assert "plain(int *x):" in stdout_of(msgs)


def test_cxx_host_items_stay_on_the_host():
    with shared_kernel() as k:
        # NVRTC refuses a host function template and a struct with host member functions
        c, msgs = run(k, "template <typename T> void fill_host(T *p, int n) { for (int i = 0; i < n; i++) p[i] = 1; }\n"
                         "__global__ void k1(int *p) { p[0] = 1; }")
        assert "k1(int *p):" in stdout_of(msgs), (c, stdout_of(msgs))
        assert c["status"] == "ok" or c["ename"] != "CompileError", c
        c, msgs = run(k, "struct Timer { int begun; void begin() { begun = 1; } };\n"
                         "__global__ void k2(int *p) { p[0] = 2; }")
        assert "k2(int *p):" in stdout_of(msgs), (c, stdout_of(msgs))
        assert c["status"] == "ok" or c["ename"] != "CompileError", c
        # a type declared with a variable: the type to both sides, the variable to the host
        msgs = ok(k, "union U { int i; float f; } u;\nu.f = 1.0f;\n"
                     "__global__ void k3(union U *p) { p->f = 2; }")
        assert "k3(union U *p):" in stdout_of(msgs)
        assert result_of(ok(k, "u.i")) == "(int) 1065353216"
        msgs = ok(k, "__global__ void k4(union U *p) { p->i = 1; }")  # the type is in the prelude, the variable is not
        assert "k4(union U *p):" in stdout_of(msgs)


def test_spaced_launches_are_launches():
    with shared_kernel() as k:
        ok(k, "__global__ void vec(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = i; }")
        ok(k, "float *d = 0;\nint n = 1000;")
        if support.GPU:
            ok(k, "cudaMalloc(&d, n * sizeof(float));")
        for launch in ("vec<< <(n + 255) / 256, 256>> >(d, n);", "vec <<< 4, 256 >>> (d, n);",
                       "vec<< <4, 256>>>(d, n);"):
            c, _ = run(k, launch)
            if support.GPU:
                assert c["status"] == "ok", (launch, c)
            else:
                assert c["status"] == "error" and c["ename"] in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), \
                    (launch, c)
                assert "vec" in c["evalue"], c


def test_launch_kernel_checks_its_arguments_without_a_gpu():
    with shared_kernel() as k:
        ok(k, "__global__ void add(const float *x, float *y, float a, int n) {\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += a * x[i]; }")
        ok(k, "int n = 100; float a = 2.0f; float *x = 0, *y = 0;\nfloat *h = (float *)malloc(400);")
        c, _ = run(k, "void *short_args[] = {&x, &y};\ncudaLaunchKernel(add, dim3(1), dim3(128), short_args, 0, 0);")
        assert c["ename"] == "cudaErrorInvalidValue" and "array of 4 pointers" in c["evalue"], c
        c, _ = run(k, "void *host_args[] = {&h, &y, &a, &n};\ncudaLaunchKernel(add, 1, 128, host_args);")
        assert c["ename"] == "cudaErrorInvalidValue" and "host_args[0]" in c["evalue"] and "host memory" in c["evalue"], c
        c, _ = run(k, "void *null_args[] = {&x, &y, 0, &n};\ncudaLaunchKernel(add, 1, 128, null_args);")
        assert c["ename"] == "cudaErrorInvalidValue" and "null_args[2]" in c["evalue"], c
        c, _ = run(k, "void *args[] = {&x, &y, &a, &n};\ncudaLaunchCooperativeKernel(nothing, 1, 128, args, 0, 0);")
        assert c["status"] == "error" and "nothing" in c["evalue"], c
        if not support.GPU:
            c, _ = run(k, "cudaLaunchCooperativeKernel(add, 1, 128, args, 0, 0);")
            assert c["ename"] in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice") and "add" in c["evalue"], c
            c, _ = run(k, "cudaLaunchCooperativeKernel((void *)add, 1, 128, args, 0, 0);")
            assert c["ename"] in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice") and "add" in c["evalue"], c
            c, _ = run(k, "cudaLaunchKernel(reinterpret_cast<const void *>(add), 1, 128, args, 0, 0);")
            assert c["ename"] in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice") and "add" in c["evalue"], c
            msgs = ok(k, "cudaError_t e = cudaLaunchKernel(add, 1, 128, args, 0, 0); (int)e")
            assert result_of(msgs) in ("(int) 35", "(int) 100"), result_of(msgs)
            msgs = ok(k, "int coop = -1;\ncudaError_t r = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0);\n"
                         "printf(\"%d %d %d\\n\", (int)r, coop, (int)cudaDevAttrMultiProcessorCount);")
            assert stdout_of(msgs) in ("35 -1 16\n", "100 -1 16\n"), stdout_of(msgs)


HOST_HEADERS = ["iostream", "algorithm", "vector", "chrono", "iomanip", "numeric", "memory", "string", "random",
                "utility", "functional", "ctype.h", "cctype", "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h",
                "cuda_profiler_api.h", "curand.h", "cublas_v2.h", "cufft.h", "nvtx3/nvToolsExt.h", "nvToolsExt.h",
                "device_launch_parameters.h"]
BOTH_HEADERS = ["stdio.h", "cstdio", "stdlib.h", "cstdlib", "string.h", "cstring", "math.h", "cmath", "stdint.h",
                "cstdint", "inttypes.h", "cinttypes", "assert.h", "cassert", "limits.h", "climits", "float.h", "cfloat",
                "time.h", "ctime", "stddef.h", "cstddef", "stdbool.h"]
DEVICE_HEADERS = ["cooperative_groups.h", "cooperative_groups/reduce.h", "curand_kernel.h", "cuda/std/cstdint",
                  "cub/block/block_reduce.cuh", "mma.h", "cuda_fp16.h", "cuda_bf16.h", "cuda/atomic"]


def test_every_routed_header_compiles_where_it_goes():
    """The whole table of runtime/cell/include_routes.c against NVRTC 13: host
    headers (which NVRTC cannot open) beside a kernel, C headers on both
    sides, device libraries on the device."""
    with shared_kernel() as k:
        includes = "".join(f"#include <{h}>\n" for h in HOST_HEADERS + BOTH_HEADERS + DEVICE_HEADERS)
        msgs = ok(k, includes + "__global__ void all_headers(uint32_t *p, __half *h) {\n"
                                "    p[0] = (uint32_t)sqrtf(2.0f) + INT_MAX;\n"
                                "    h[0] = __float2half(1.0f);\n"
                                "    cooperative_groups::this_thread_block().sync();\n}\n"
                                "int32_t host_side = INT32_MAX;\nhost_side")
        assert "all_headers(uint32_t *p, __half *h):" in stdout_of(msgs), stdout_of(msgs)
        assert result_of(msgs) == "(int32_t) 2147483647", result_of(msgs)


def test_a_kernel_defined_after_main_is_launched_by_an_earlier_cells_function():
    """A program whose kernels and helpers are prototyped before main and
    defined after it, pasted as two cells: the first cell's function that
    launches a kernel links (the launch finds the kernel when it runs), and
    the second cell's statements, which call it, run after the kernel below
    them is known; the first cell's prototypes of the second's functions
    stand above the statements that call them; a void function's prototype
    is no variable."""
    with shared_kernel() as k:
        first = ("#include <map>\n"
                 "static __global__ void fill_k(float *p, float v);\n"
                 "void report(float *h, int n);\n"
                 "static float half_of(float v);\n"
                 "void fill(float *d, float v) { fill_k<<<1, 4>>>(d, v); cudaDeviceSynchronize(); }\n")
        c, msgs = run(k, first, t=300)
        assert "it includes <map>" in stdout_of(msgs, "stderr")
        ran_natively(c)
        second = ("float *d, h[4];\ncudaMalloc(&d, sizeof h);\nfill(d, 2.5f);\n"
                  "cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\nreport(h, 4);\nprintf(\"%g\\n\", half_of(3));\n"
                  "static float half_of(float v) { return v / 2; }\n"
                  "static __global__ void fill_k(float *p, float v) { p[threadIdx.x] = v * threadIdx.x; }\n"
                  "void report(float *h, int n) { for (int i = 0; i < n; i++) printf(\"%g \", h[i]); printf(\"\\n\"); }\n")
        c, msgs = run(k, second, t=300)
        ran_natively(c, msgs, "0 2.5 5 7.5 \n1.5\n")


def test_a_native_cell_declares_for_later_cells_even_without_a_gpu():
    """What a native cell declares stands once it compiled, so a program
    pasted as two cells compiles its second half here too, without a GPU; a
    kernel's prototype, a prototype whose parameters are of a named type and
    an aligned anonymous struct are declarations, not statements."""
    with shared_kernel() as k:
        c, msgs = run(k, "#include <map>\ntypedef float real_t;\n"
                         "typedef struct __align__(8) { unsigned lo, hi; } pair8_t;\n"
                         "static __global__ void scale_k(real_t *, int);\n"
                         "real_t twice(real_t a);\nint pad(pair8_t *, int);\n"
                         "std::map<int, int> counts;\nint total = 0;\n"
                         "void add_one(int key) { counts[key]++; total++; }\n"
                         "real_t twice(real_t a) { return 2 * a; }\n"
                         "int pad(pair8_t *p, int n) { return n + (int)sizeof *p; }\n", t=300)
        assert "it includes <map>" in stdout_of(msgs, "stderr")
        ran_natively(c)
        later = ("static __global__ void scale_k(real_t *p, int n) { if (n) p[0] *= 2; }\n"
                 "add_one(3);\nscale_k<<<1, 1>>>(nullptr, 0);\npair8_t q = {1, 2};\n"
                 "printf(\"%d %g %d %u\\n\", total, twice(1.5f), pad(&q, 1), q.hi);\n")
        c, msgs = run(k, later, t=300)
        assert "which a native C++ cell defined" in stdout_of(msgs, "stderr")
        ran_natively(c, msgs, has="1 3 9 2\n")
        # a name no cell declared is still nvcc's error at its line
        c, _ = run(k, "add_one(4);\nnever_declared_here(1);\n", t=300)
        assert c["ename"] == "CompileError" and "never_declared_here" in c["evalue"] and "line 2" in c["evalue"], c


def test_main_body_takes_argv_as_either_signature_has_it():
    """main's body pasted as a native cell reads argv as a program with no
    arguments has it, whether main took char ** or const char **."""
    with shared_kernel() as k:
        run(k, "#include <map>\nint takes_const(int n, const char **a) { return n + (a[0] != nullptr); }\n"
               "int takes_plain(int n, char **a) { return n + (a[0] != nullptr); }\n", t=300)
        c, msgs = run(k, "std::map<int, int> seen;\n"
                         "printf(\"%d %d %d %s %s\\n\", takes_const(argc, argv), takes_plain(argc, argv),\n"
                         "       takes_const(argc, (const char **)argv), argv[0], argc > 1 ? argv[1] : \"none\");\n", t=300)
        ran_natively(c, msgs, has="2 2 2 cell none\n")


def test_main_locals_beside_using_namespace_std_are_no_ambiguity():
    """main's body pasted as a native cell after `using namespace std;`:
    its locals (int size, int count) and the session's variables it reads
    are found before std::size and std::count, as in main."""
    with shared_kernel() as k:
        ok(k, "int size = 5;")
        run(k, "#include <map>\n#include <vector>\n#include <algorithm>\nusing namespace std;\nmap<int, int> seen;\n", t=300)
        c, msgs = run(k, "std::vector<int> v(3, 1);\nint count = 2;\nseen[1] = 1;\nint total = size + count + (int)v.size();\n"
                         "printf(\"%d %d\\n\", total, (int)std::count(v.begin(), v.end(), 1));\n", t=300)
        assert "runs as native C++" in stdout_of(msgs, "stderr")
        ran_natively(c, msgs, has="10 3\n")


def test_a_program_that_launches_from_device_code_compiles():
    """A kernel that launches a kernel (dynamic parallelism) needs relocatable
    device code: a whole program with one is built so, not refused. Salted so
    that no compile cache answers it."""
    salt = random.getrandbits(48)
    code = ("#include <cstdio>\n"
            f"__global__ void child_{salt}(int *p) {{ p[threadIdx.x] = 1; }}\n"
            f"__global__ void parent_{salt}(int *p) {{ child_{salt}<<<1, 4>>>(p); }}\n"
            "int main() {\n  int *d = NULL;\n  cudaMalloc(&d, 4 * sizeof(int));\n"
            f"  parent_{salt}<<<1, 1>>>(d);\n  cudaDeviceSynchronize();\n  printf(\"launched\\n\");\n  return 0;\n}}\n")
    with shared_kernel() as k:
        c, msgs = run(k, code, t=300)
        assert c["status"] == "ok", c
        assert "launched" in stdout_of(msgs)


def test_a_cell_whose_kernel_launches_a_kernel_runs_natively():
    """A device module from NVRTC has no device runtime linked in: a cell
    whose kernel launches a kernel (dynamic parallelism) runs as native C++,
    which nvcc builds with -rdc=true, and the cell that launches that kernel
    from main's body follows it. A launch in a comment or a string is none."""
    salt = random.getrandbits(48)
    with shared_kernel() as k:
        c, msgs = run(k, f"__global__ void leaf_{salt}(int *p) {{ p[threadIdx.x] = 1; }}\n"
                         f"__global__ void root_{salt}(int *p) {{\n  if (threadIdx.x == 0)\n"
                         f"    leaf_{salt}<<<1, 4>>>(p);\n}}\n", t=300)
        err = stdout_of(msgs, "stderr")
        assert f"root_{salt} launches a kernel from device code (dynamic parallelism, line 2)" in err, err
        ran_natively(c)
        c, msgs = run(k, f"int *d = NULL;\ncudaMalloc(&d, 4 * sizeof(int));\nroot_{salt}<<<1, 1>>>(d);\n"
                         "cudaDeviceSynchronize();\n", t=300)
        assert f"it uses root_{salt}, which a native C++ cell defined" in stdout_of(msgs, "stderr")
        ran_natively(c)
        c, msgs = run(k, "__global__ void quiet_k(int *p) {\n  // not leaf<<<1, 1>>>(p) here\n"
                         "  printf(\"<<<\\n\");\n}\n", t=300)
        assert c["status"] == "ok", c
        assert "runs as native C++" not in stdout_of(msgs, "stderr")


def test_a_cell_that_builds_a_graph_by_hand_runs_natively():
    """Kernel nodes and host nodes need a kernel's host stub and a C function
    pointer, which interpreted code has not: a cell that adds them runs as
    native C++, with the kernel of a device cell and the callback of an
    interpreted one; the words alone (a comment, a string) route nothing."""
    with shared_kernel() as k:
        ok(k, "__global__ void axpy(float a, float *x, float *y, int n) {\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] += a * x[i];\n}\n"
              "int host_calls = 0;\n"
              "void CUDART_CB after_axpy(void *data) { host_calls++; *(int *)data += 1; }\n")
        c, msgs = run(k, "// cudaGraphAddKernelNode(...) is not called here\n"
                         "printf(\"%s\\n\", \"cudaGraphAddHostNode(\");\n")
        assert c["status"] == "ok" and "native" not in stdout_of(msgs, "stderr"), (c, msgs)
        cell = ("int n = 256, flag = 0;\nfloat a = 2.0f, *x, *y, h[256];\n"
                "cudaMalloc(&x, n * sizeof(float));\ncudaMalloc(&y, n * sizeof(float));\n"
                "for (int i = 0; i < n; i++) h[i] = i;\n"
                "cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);\ncudaMemset(y, 0, sizeof h);\n"
                "cudaGraph_t g;\ncudaGraphCreate(&g, 0);\n"
                "cudaGraphNode_t kn, hn;\ncudaKernelNodeParams kp = {0};\n"
                "void *args[] = {&a, &x, &y, &n};\n"
                "kp.func = (void *)axpy;\nkp.gridDim = dim3(2);\nkp.blockDim = dim3(128);\nkp.kernelParams = args;\n"
                "cudaError_t e = cudaGraphAddKernelNode(&kn, g, NULL, 0, &kp);\n"
                "cudaHostNodeParams hp = {0};\nhp.fn = after_axpy;\nhp.userData = &flag;\n"
                "if (e == cudaSuccess) e = cudaGraphAddHostNode(&hn, g, &kn, 1, &hp);\n"
                "cudaGraphExec_t ge;\nif (e == cudaSuccess) e = cudaGraphInstantiate(&ge, g, 0);\n"
                "for (int r = 0; r < 3 && e == cudaSuccess; r++) e = cudaGraphLaunch(ge, 0);\n"
                "cudaDeviceSynchronize();\ncudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost);\n"
                "printf(\"%s %g %g %d %d\\n\", cudaGetErrorName(e), h[1], h[255], flag, host_calls);\n")
        c, msgs = run(k, cell, t=300)
        assert "it calls cudaGraphAddKernelNode (kernel nodes built by hand, line 17)" in stdout_of(msgs, "stderr"), msgs
        ran_natively(c, msgs, has="cudaSuccess 6 1530 3 3\n")


def test_main_body_lambdas_capture_and_try_blocks_catch():
    """main's body as a native cell: a lambda a local holds captures main's
    locals ([&], [=], by name), which are the unit's globals; a try block
    and its handlers are one statement."""
    with shared_kernel() as k:
        cell = ("#include <stdexcept>\n#include <vector>\nint n = 3;\nstd::vector<int> v = {4, 5, 6};\n"
                "auto at = [&](int i) { return v[i] * n; };\nauto add = [=, &v](int a) { return a + n + (int)v.size(); };\n"
                "int first = at(0);\n"
                "try { if (first > 10) throw std::runtime_error(\"big\"); }\n"
                "catch (const std::exception &e) { printf(\"caught %s\\n\", e.what()); }\n"
                "catch (...) { printf(\"other\\n\"); }\n"
                "printf(\"%d %d %d\\n\", first, at(2), add(1));\n")
        c, msgs = run(k, cell, t=300)
        ran_natively(c, msgs, "caught big\n12 18 7\n")


def test_a_standard_name_the_interpreter_lacks_makes_the_cell_native():
    """A header the interpreter takes (<memory>) may declare more than it
    has: a std:: name it does not know sends the cell to nvcc before anything
    of it ran; a std:: name that does not exist is nvcc's error at its line."""
    with shared_kernel() as k:
        c, msgs = run(k, "#include <memory>\nint n = 3;\nauto p = std::unique_ptr<int[]>(new int[n]);\n"
                         "for (int i = 0; i < n; i++) p[i] = i * i;\nprintf(\"%d %d\\n\", p[2], n);\n", t=300)
        assert "it uses std::unique_ptr, which host cells do not have" in stdout_of(msgs, "stderr"), msgs
        ran_natively(c, msgs, "4 3\n")
        c, _ = run(k, "int m = 2;\nstd::no_such_thing_here(m);\n", t=300)
        assert c["ename"] == "CompileError" and "no_such_thing_here" in c["evalue"] and "line 2" in c["evalue"], c


def test_a_libcuxx_name_the_interpreter_lacks_makes_the_cell_native():
    """libcu++'s headers are device headers a device cell takes; host code
    of the same cell that names cuda:: (a __host__ __device__ function, a
    variable) sends it to nvcc, as does a later cell that names it."""
    with shared_kernel() as k:
        c, msgs = run(k, "#include <cuda/std/atomic>\n"
                         "__host__ __device__ void bump(cuda::std::atomic<int> &a, int by) {\n"
                         "    a.fetch_add(by, cuda::std::memory_order_relaxed);\n}\n"
                         "cuda::std::atomic<int> total{0};\nbump(total, 5);\nprintf(\"%d\\n\", total.load());\n",
                      t=300)
        assert "host cells do not interpret libcu++ (cuda::) (line 2)" in stdout_of(msgs, "stderr"), msgs
        ran_natively(c, msgs, "5\n")
    with shared_kernel() as k:
        ok(k, "#include <cuda/std/atomic>")
        c, msgs = run(k, "int start = 2;\nauto limit = cuda::std::numeric_limits<int>::max();\n"
                         "printf(\"%d\\n\", limit > start);\n", t=300)
        assert "host cells do not interpret libcu++ (cuda::) (line 2)" in stdout_of(msgs, "stderr"), msgs
        ran_natively(c, msgs, "1\n")


def test_a_device_librarys_host_side_makes_the_cell_native():
    """CUB's headers are device headers a device cell takes; its host side
    (the caching allocator) the interpreter lacks, so a cell that includes
    one and names what the interpreter does not know runs natively."""
    with shared_kernel() as k:
        c, msgs = run(k, "#include <cub/util_allocator.cuh>\nusing namespace cub;\n"
                         "CachingDeviceAllocator pool(true);\nint blocks = 4;\n"
                         "printf(\"%d\\n\", blocks);\n", t=300)
        assert ("it uses CachingDeviceAllocator, which host cells do not know and <cub/util_allocator.cuh>, "
                "which it includes, may declare") in stdout_of(msgs, "stderr"), msgs
        ran_natively(c, msgs, "4\n")


def test_lambdas_in_main_capture_mains_locals():
    """main's body as a native cell: its locals are the unit's globals,
    which a lambda inside a statement could not capture; the statement's
    function shadows those its lambdas name with local references, so they
    capture as in main: by name for std::thread, by value for a __device__
    lambda that reads a pointer main allocated."""
    with shared_kernel() as k:
        c, msgs = run(k, "#include <thread>\n#include <mutex>\n#include <vector>\n"
                         "template <typename F> __global__ void each(int n, F f) {\n"
                         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) f(i);\n}\n"
                         "std::mutex guard;\nint done = 0;\nstd::vector<std::thread> workers(3);\n"
                         "for (int i = 0; i < 3; i++)\n"
                         "    workers[i] = std::thread([&guard, &done, i] {\n"
                         "        std::lock_guard<std::mutex> lock(guard);\n        done += i + 1; });\n"
                         "for (auto &w : workers) w.join();\n"
                         "int *squares = nullptr;\ncudaMallocManaged(&squares, 8 * sizeof(int));\n"
                         "each<<<1, 8>>>(8, [=] __device__ (int i) { squares[i] = i * i + done; });\n"
                         "cudaDeviceSynchronize();\n"
                         "printf(\"%d %d\\n\", done, squares[3]);\n", t=300)
        ran_natively(c, msgs, "6 15\n")


def test_a_variable_of_mains_initialised_through_a_device_lambda():
    """main's `result sq = launch_with([] __device__ ...)` is a global of the
    unit, whose initialiser is at namespace scope, where nvcc lets no
    extended lambda instantiate a kernel: the initialiser runs from a
    function of its own."""
    with shared_kernel() as k:
        c, _ = run(k, "#include <map>\n"
                      "template <typename F> __global__ void apply_k(F f, int *out) { *out = f(7); }\n"
                      "struct result { int v; };\n"
                      "template <typename F> result launch_with(F f) {\n    int *o = nullptr;\n"
                      "    cudaMallocManaged(&o, sizeof(int));\n    apply_k<<<1, 1>>>(f, o);\n"
                      "    cudaDeviceSynchronize();\n    result r{*o};\n    cudaFree(o);\n    return r;\n}\n", t=300)
        assert c["status"] == "ok" or "compiled, but cannot run" in c.get("evalue", ""), c
        c, msgs = run(k, "result sq = launch_with([] __device__ (int x) { return x * x; });\n"
                         "printf(\"%d\\n\", sq.v);\n", t=300)
        ran_natively(c, msgs, "49\n")


def test_a_native_cells_conditional_declarations_keep_their_conditions():
    """Declarations of a native cell under #if/#else come to later cells
    under the same conditions: each branch's typedef or function is kept,
    neither replaces the other, and the branch the macros choose stands."""
    with shared_kernel() as k:
        c, msgs = run(k, "#include <sstream>\n#ifndef USE_WIDE\ntypedef float real_t;\n#define KIND \"narrow\"\n"
                         "#else\ntypedef double real_t;\n#define KIND \"wide\"\n#endif\n"
                         "#if 0\nint pick(void) { return 1; }\n#elif 1\nint pick(void) { return 2; }\n#endif\n"
                         "__global__ void touch(real_t *p) { p[0] = 1; }\n", t=300)
        ran_natively(c)
        c, msgs = run(k, "printf(\"%zu %s %d\\n\", sizeof(real_t), KIND, pick());\n", t=300)
        ran_natively(c, msgs, "4 narrow 2\n")


def test_a_native_cell_uses_one_copy_of_a_device_cells_managed_variable():
    """A native cell compiles a copy of the device cells' kernels and
    variables: its host code reads the __managed__ variable those kernels
    write, not the interpreter's copy."""
    with shared_kernel() as k:
        ok(k, "__managed__ unsigned int hits = 0;\n__global__ void hit(int n) { if (threadIdx.x < n) atomicAdd(&hits, 1u); }\n")
        c, msgs = run(k, "#include <map>\nhit<<<1, 32>>>(7);\ncudaDeviceSynchronize();\nprintf(\"%u\\n\", hits);\n", t=300)
        assert "it includes <map>" in stdout_of(msgs, "stderr"), msgs
        ran_natively(c, msgs, "7\n")


def test_a_conditional_include_keeps_the_code_it_guards():
    """A native cell's #includes go first in its unit: an #if that holds an
    #include and a template of that header's types moves whole, so the
    template is still left out where the #if is false, here and in a later
    cell that takes the cell's things."""
    salt = random.getrandbits(48)
    with shared_kernel() as k:
        c, msgs = run(k, "#include <cuda_runtime.h>\n#include <map>\n#include <cstdio>\n"
                         "#if CUDART_VERSION < 5000\n#include <cuda.h>\n"
                         f"template <class T> inline void attr_{salt}(T *a, CUdevice_attribute x, int d) {{ }}\n"
                         f"#endif\nint version_{salt} = CUDART_VERSION;\n", t=300)
        assert "runs as native C++" in stdout_of(msgs, "stderr")
        ran_natively(c)
        c, msgs = run(k, f"std::map<int, int> seen_{salt};\nseen_{salt}[1] = version_{salt};\n"
                         f"printf(\"%d\\n\", seen_{salt}[1] > 5000);\n", t=300)
        ran_natively(c)


def test_a_device_lambda_kept_in_a_variable_compiles_as_its_class():
    """auto f = [=] __device__ (...) {...}; among main's statements is a
    class nvcc takes at namespace scope: given to a template kernel in its
    cell and in a later one, reading an earlier cell's __device__ variable."""
    with kernel() as k:
        c, msgs = run(k, "%%cxx\n#include <cstdio>\n__device__ float offset;\n"
                         "template <class F> __global__ void apply(F f, float *d, int n) {\n"
                         "    int i = threadIdx.x; if (i < n) d[i] = f(d[i]) + offset;\n}\n", t=300)
        ran_natively(c)
        c, msgs = run(k, "%%cxx\nint n = 4; float a = 3, b = 1;\nfloat *d; cudaMalloc(&d, n * sizeof(float));\n"
                         "auto affine = [=] __device__ (float x) { return a * x + b + offset; };\n"
                         "auto twice = [] __host__ __device__ (auto x) { return x + x; };\n"
                         "apply<<<1, 4>>>(affine, d, n);\napply<<<1, 4>>>(twice, d, n);\n"
                         "printf(\"%d\\n\", twice(21));\n", t=300)
        ran_natively(c, msgs, "42\n")
        c, msgs = run(k, "%%cxx\napply<<<1, 4>>>(affine, d, n);\nprintf(\"%g\\n\", a);\n", t=300)
        ran_natively(c, msgs, "3\n")


@contextlib.contextmanager
def _removed(folder):
    try:
        yield
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_device_cell_nvrtc_refuses_after_a_native_cells_header_runs_natively():
    """A header a native cell included (the samples' helper_cuda.h) brings
    uint32_t to nvcc's device code, not to NVRTC's: a later kernel NVRTC
    refuses is compiled by nvcc instead, saying why; a genuine error is
    still reported at the cell's line."""
    folder = tempfile.mkdtemp(prefix="icuda-helpers-")
    with open(os.path.join(folder, "my_helpers.h"), "w") as f:
        f.write("#pragma once\n#include <stdint.h>\n#include <map>\ninline int helper_count() { return 3; }\n")
    with kernel() as k, _removed(folder):
        ok(k, f"%include_path {folder}")
        c, msgs = run(k, '#include "my_helpers.h"\nint h = helper_count();', t=300)
        ran_natively(c)
        c, msgs = run(k, "__global__ void bump(uint32_t *p) { p[threadIdx.x] += 1; }", t=300)
        ran_natively(c)
        assert "NVRTC refused its device code" in stdout_of(msgs, "stderr"), stdout_of(msgs, "stderr")
        c, msgs = run(k, "__global__ void typo(int *p) { p[0] = undefined_name; }", t=300)
        assert c["ename"] == "CompileError" and 'identifier "undefined_name" is undefined' in c["evalue"], c
        assert "line 1" in c["evalue"], c
