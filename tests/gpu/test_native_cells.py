"""Native C++ cells on a real GPU (make test-gpu): C++ the interpreter does
not take compiled by nvcc and run in the GPU worker, cell by cell. Thrust
objects made in one cell and used in later ones, kernels launched from a
later cell (one copy of their device state), exceptions, a crash, exit()
and a hang each costing the worker and not the session, and %rerun."""
import re
import time

from support import kernel, needs_gpu, stdout_of, timeout

NVCC = 300  # seconds a cell may take: nvcc compiles Thrust in seconds to tens of seconds


def ok(k, code, t=NVCC):
    reply, msgs = k.execute(code, timeout=t)
    assert reply["content"]["status"] == "ok", (reply["content"], stdout_of(msgs, "stderr"))
    return msgs


def err(k, code, t=NVCC):
    reply, msgs = k.execute(code, timeout=t)
    c = reply["content"]
    assert c["status"] == "error", (c, stdout_of(msgs), stdout_of(msgs, "stderr"))
    return c["ename"], c["evalue"], msgs


THRUST_INCLUDES = """#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/sequence.h>
#include <cstdio>"""


@needs_gpu
@timeout(900)
def test_thrust_objects_live_from_cell_to_cell():
    with kernel() as k:
        msgs = ok(k, THRUST_INCLUDES + """
const int N = 1 << 20;
struct saxpy {
    float a;
    __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};
thrust::device_vector<float> x(N), y(N, 2.0f);
thrust::sequence(x.begin(), x.end());""")
        assert "runs as native C++" in stdout_of(msgs, "stderr")
        ok(k, "thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy{3.0f});")
        # a lambda that runs on the device, on an object two cells old
        ok(k, "thrust::transform(y.begin(), y.end(), y.begin(), [] __device__ (float v) { return v - 2.0f; });")
        msgs = ok(k, """double total = thrust::reduce(y.begin(), y.end(), 0.0);
double expect = 3.0 * (double)N * (N - 1) / 2;
printf("total %.0f expect %.0f\\n", total, expect);
if (total != expect) return 1;""")
        assert "total 1649265868800 expect 1649265868800" in stdout_of(msgs), stdout_of(msgs)
        ok(k, """thrust::sort(y.begin(), y.end(), thrust::greater<float>());
y.resize(10);
thrust::host_vector<float> h = y;
printf("%zu %.0f %.0f\\n", h.size(), (double)h[0], (double)h[9]);""")
        # the vector resized in the cell before is the one this cell sees
        msgs = ok(k, 'printf("size %zu first %.0f\\n", y.size(), (double)y[0]);')
        assert "size 10 first 3145725" in stdout_of(msgs), stdout_of(msgs)


@needs_gpu
@timeout(900)
def test_kernels_and_device_state_across_native_cells():
    with kernel() as k:
        ok(k, """%%cxx
#include <cstdio>
__constant__ float scale[1];
__device__ int calls;
__global__ void axpy(int n, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) atomicAdd(&calls, 1);
    if (i < n) y[i] += scale[0] * x[i];
}
float *dx, *dy;
int n = 1000;""")
        ok(k, """%%cxx
cudaMalloc(&dx, n * sizeof(float));
cudaMalloc(&dy, n * sizeof(float));
float one = 1.0f, two = 2.0f;
for (int i = 0; i < n; i++) { cudaMemcpy(dx + i, &one, 4, cudaMemcpyHostToDevice); cudaMemcpy(dy + i, &two, 4, cudaMemcpyHostToDevice); }
float s = 10.0f;
cudaMemcpyToSymbol(scale, &s, sizeof s);""")
        # a kernel of an earlier cell, launched here: its __constant__ is the one set above
        ok(k, """%%cxx
axpy<<<(n + 255) / 256, 256>>>(n, dx, dy);
axpy<<<(n + 255) / 256, 256>>>(n, dx, dy);
cudaDeviceSynchronize();""")
        msgs = ok(k, """%%cxx
float last = 0; int c = 0;
cudaMemcpy(&last, dy + n - 1, 4, cudaMemcpyDeviceToHost);
cudaMemcpyFromSymbol(&c, calls, sizeof c);
printf("last %.1f calls %d err %s\\n", last, c, cudaGetErrorString(cudaGetLastError()));""")
        assert "last 22.0 calls 2 err no error" in stdout_of(msgs), stdout_of(msgs)
        # a program's closing cudaDeviceReset waits for the device, as in
        # interpreted cells: the session's buffers and kernels stay
        ok(k, "%%cxx\ncudaDeviceReset();")
        msgs = ok(k, """%%cxx
axpy<<<(n + 255) / 256, 256>>>(n, dx, dy);
float again = 0;
cudaMemcpy(&again, dy + n - 1, 4, cudaMemcpyDeviceToHost);
printf("again %.1f %s\\n", again, cudaGetErrorString(cudaGetLastError()));""")
        assert "again 32.0 no error" in stdout_of(msgs), stdout_of(msgs)
        # return 0 among the statements ends the cell's code, as main's ends a
        # program: what follows a declaration below it does not run either
        msgs = ok(k, """%%cxx
printf("first\\n");
if (n > 0) return 0;
printf("never\\n");
struct Tag { int v; };
printf("never either\\n");""")
        assert stdout_of(msgs) == "first\n", stdout_of(msgs)


@needs_gpu
@timeout(900)
def test_a_later_cell_leaves_out_an_earlier_kernels_default_arguments():
    with kernel() as k:
        ok(k, """%%cxx
#include <cstdio>
#define STEP 3
__global__ void fill(int *out, int n, int *count = NULL, int step = STEP * 2) {
    int i = threadIdx.x;
    if (i < n) out[i] = i * step;
    if (count && i == 0) *count = n;
}
int *d_out, *d_count;
cudaMalloc(&d_out, 32 * sizeof(int));
cudaMalloc(&d_count, sizeof(int));""")
        msgs = ok(k, """%%cxx
fill<<<1, 32>>>(d_out, 32);
int h[32], c = 0;
cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
fill<<<1, 32>>>(d_out, 4, d_count);
cudaMemcpy(&c, d_count, sizeof c, cudaMemcpyDeviceToHost);
printf("%d %d %d %s\\n", h[1], h[31], c, cudaGetErrorString(cudaGetLastError()));""")
        assert "6 186 4 no error" in stdout_of(msgs), stdout_of(msgs)


@needs_gpu
@timeout(600)
def test_later_cells_device_code_uses_an_earlier_cells_device_variables():
    """A template kernel that adds into a __device__ and a __managed__
    variable of its cell, instantiated by a later cell; a later cell's own
    kernel and its kernel of the same name as a parameter: one copy of each
    variable, which cudaMemcpyFromSymbol and the host read."""
    with kernel() as k:
        ok(k, """%%cxx
#include <cstdio>
__device__ float total;
__managed__ int calls;
__global__ void reset() { total = 0; calls = 0; }
template <unsigned B>
__global__ void add_all(const float *in, int n) {
    int i = blockIdx.x * B + threadIdx.x;
    if (i < n) atomicAdd(&total, in[i]);
    if (i == 0) atomicAdd(&calls, 1);
}
float *d_in;
cudaMalloc(&d_in, 1000 * sizeof(float));
float ones[1000];
for (int i = 0; i < 1000; i++) ones[i] = 1;
cudaMemcpy(d_in, ones, sizeof ones, cudaMemcpyHostToDevice);""")
        msgs = ok(k, """%%cxx
__global__ void twice() { total *= 2; calls += 1; }
__global__ void set(float total) { (void)total; }
reset<<<1, 1>>>();
add_all<256><<<4, 256>>>(d_in, 1000);
twice<<<1, 1>>>();
set<<<1, 1>>>(5.0f);
float t = 0;
cudaMemcpyFromSymbol(&t, total, sizeof t);
cudaDeviceSynchronize();
printf("%g %d %s\\n", t, calls, cudaGetErrorString(cudaGetLastError()));""")
        assert "2000 2 no error" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))


@needs_gpu
@timeout(600)
def test_a_device_lambda_main_keeps_in_a_variable():
    """auto f = [=] __device__ (...) {...}; among main's statements, given to
    a template kernel in its cell and in a later one: it copies what it
    captures when it is made, as a lambda does; a generic __host__ __device__
    lambda runs on both sides."""
    with kernel() as k:
        ok(k, """%%cxx
#include <cstdio>
template <class F> __global__ void apply(F f, float *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = f(d[i]);
}""")
        msgs = ok(k, """%%cxx
int n = 64; float a = 3, b = 1;
float *d; cudaMalloc(&d, n * sizeof(float));
float h[64]; for (int i = 0; i < n; i++) h[i] = i;
cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
auto affine = [=] __device__ (float x) { return a * x + b; };
a = 100;
apply<<<1, 64>>>(affine, d, n);
auto twice = [] __host__ __device__ (auto x) { return x + x; };
apply<<<1, 64>>>(twice, d, n);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%g %g %d %s\\n", h[0], h[5], twice(21), cudaGetErrorString(cudaGetLastError()));""")
        assert "2 32 42 no error" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))
        msgs = ok(k, """%%cxx
apply<<<1, 64>>>(affine, d, n);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
printf("%g %s\\n", h[5], cudaGetErrorString(cudaGetLastError()));""")
        assert "97 no error" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))


@needs_gpu
@timeout(900)
def test_classes_exceptions_and_streams():
    with kernel() as k:
        ok(k, """#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>
struct Shape { virtual ~Shape() {} virtual double area() const = 0; };
struct Square : Shape { double s; explicit Square(double s) : s(s) {} double area() const override { return s * s; } };
std::vector<std::unique_ptr<Shape>> shapes;
shapes.push_back(std::make_unique<Square>(3.0));""")
        msgs = ok(k, 'shapes.push_back(std::make_unique<Square>(4.0));\n'
                     'double sum = 0; for (auto &s : shapes) sum += s->area();\n'
                     'std::cout << "areas " << sum << std::endl;')
        assert "areas 25" in stdout_of(msgs), stdout_of(msgs)
        ename, evalue, msgs = err(k, 'std::cout << "before" << std::endl;\n'
                                     'throw std::runtime_error("bad shape");\n')
        assert ename == "std::runtime_error" and "bad shape" in evalue, (ename, evalue)
        assert "before" in stdout_of(msgs)
        msgs = ok(k, 'std::cout << shapes.size() << " shapes still" << std::endl;')
        assert "2 shapes still" in stdout_of(msgs)


@needs_gpu
@timeout(900)
def test_crash_exit_and_hang_cost_the_worker_not_the_session():
    with kernel() as k:
        ok(k, "float *keep; cudaMalloc(&keep, 4 * sizeof(float)); float h[4] = {1, 2, 3, 4};\n"
              "cudaMemcpy(keep, h, sizeof h, cudaMemcpyHostToDevice); int host_value = 42;")
        ok(k, "%%cxx\n#include <vector>\nstd::vector<int> *made = new std::vector<int>{7, 8, 9};")
        ename, evalue, _ = err(k, "%%cxx\nint *p = nullptr;\n*p = 1;")
        assert ename == "NativeCrash" and "In [3]" in evalue and "%rerun In [2]" in evalue, (ename, evalue)
        # the interpreted session is intact, the device buffer restored
        msgs = ok(k, "float back[4]; cudaMemcpy(back, keep, sizeof back, cudaMemcpyDeviceToHost);\n"
                     "printf(\"%d %.0f %.0f\\n\", host_value, back[0], back[3]);")
        assert "42 1 4" in stdout_of(msgs), stdout_of(msgs)
        # what the lost cell made must be made again first
        ename, evalue, _ = err(k, "%%cxx\nprintf(\"%zu\\n\", made->size());")
        assert ename == "NameError" and "%rerun In [2]" in evalue, (ename, evalue)
        ok(k, "%rerun In [2]")
        msgs = ok(k, "%%cxx\nprintf(\"%zu %d\\n\", made->size(), (*made)[2]);")
        assert "3 9" in stdout_of(msgs), stdout_of(msgs)
        ename, evalue, _ = err(k, "%%cxx\n#include <cstdlib>\nexit(3);")
        assert ename == "SystemExit" and "exit(3)" in evalue, (ename, evalue)
        ok(k, "printf(\"%d\\n\", host_value);")
        # exit(0) ends the cell as it ends a program: with success, its output kept
        msgs = ok(k, "%%cxx\n#include <cstdlib>\nprintf(\"done\\n\");\nexit(EXIT_SUCCESS);")
        assert "done" in stdout_of(msgs) and "exit(0) in In [" in stdout_of(msgs, "stderr"), msgs
        ok(k, "printf(\"%d\\n\", host_value);")
        # a cell that never ends: the interrupt stops the worker, the session goes on
        msg_id = k.kc.execute("%%cxx\nvolatile long spin = 0;\nwhile (true) spin++;")
        time.sleep(20)  # nvcc first, then the loop
        k.km.interrupt_kernel()
        reply = k.reply_to(msg_id, "shell", 120)
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
        msgs = ok(k, "printf(\"%d alive\\n\", host_value);")
        assert "42 alive" in stdout_of(msgs)


@needs_gpu
@timeout(600)
def test_threads_of_a_cell_call_cuda_libraries():
    """An OpenMP loop whose threads each create a cuBLAS handle and a stream
    and wait for their work: the cell's code runs outside the dynamic
    linker's lock, which those libraries take on a thread's first call."""
    with kernel() as k:
        msgs = ok(k, "#include <omp.h>\n#include <cublas_v2.h>\n"
                     "const int T = 4, N = 1 << 16;\ndouble sums[T];\n"
                     "double *x;\ncudaMallocManaged(&x, N * sizeof(double));\n"
                     "for (int i = 0; i < N; i++) x[i] = 1.0;\n"
                     "omp_set_num_threads(T);\n"
                     "#pragma omp parallel for schedule(dynamic)\n"
                     "for (int t = 0; t < T; t++) {\n"
                     "    cudaStream_t s; cublasHandle_t h;\n"
                     "    cudaStreamCreate(&s); cublasCreate(&h); cublasSetStream(h, s);\n"
                     "    cublasDdot(h, N, x, 1, x, 1, &sums[t]);\n"
                     "    cudaStreamSynchronize(s); cublasDestroy(h); cudaStreamDestroy(s);\n"
                     "}\n"
                     "printf(\"%.0f %.0f\\n\", sums[0], sums[T - 1]);", NVCC)
        assert "65536 65536" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))


@needs_gpu
@timeout(600)
def test_a_cell_run_again_makes_its_objects_afresh():
    with kernel() as k:
        cell = "%%cxx\n#include <cstdio>\nint counter = 0;\ncounter += 5;\nprintf(\"counter %d\\n\", counter);"
        assert "counter 5" in stdout_of(ok(k, cell))
        assert "counter 5" in stdout_of(ok(k, cell))  # compiled once (cached), run twice: a fresh counter
        msgs = ok(k, "%%cxx\ncounter++;\nprintf(\"now %d\\n\", counter);")
        assert "now 6" in stdout_of(msgs), stdout_of(msgs)


@needs_gpu
@timeout(900)
def test_native_cells_see_the_rest_of_the_session():
    """The interpreter's variables by name (numbers, arrays and structs at
    their own storage, both ways; pointers as the address they hold), its
    functions, and device cells' kernels and types."""
    with kernel() as k:
        ok(k, "int m = 1000;\nfloat *h = (float *)malloc(m * sizeof(float));\nfor (int i = 0; i < m; i++) h[i] = i;\n"
              "struct P { int a; float b; };\nstruct P pt = {3, 4.5f};\ndouble scale[3] = {1, 2, 3};\n"
              "float *d; cudaMalloc(&d, m * sizeof(float));\ncudaMemcpy(d, h, m * sizeof(float), cudaMemcpyHostToDevice);\n"
              "float sum_host(const float *a, int n) { float s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }")
        ok(k, "__global__ void twice(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 2; }")
        msgs = ok(k, "%%cxx\n#include <thrust/device_ptr.h>\n#include <thrust/reduce.h>\n"
                     "double s = 0; for (int i = 0; i < m; i++) s += h[i];\n"
                     "float ds = thrust::reduce(thrust::device_ptr<float>(d), thrust::device_ptr<float>(d) + m);\n"
                     "pt.a += 1; scale[2] = 9; h[0] = 42;\n"
                     "printf(\"%.0f %.0f %.1f\\n\", s, ds, pt.b);")
        assert "499500 499500 4.5" in stdout_of(msgs), stdout_of(msgs)
        msgs = ok(k, 'printf("%d %.0f %.0f\\n", pt.a, scale[2], h[0]);')
        assert "4 9 42" in stdout_of(msgs), stdout_of(msgs)
        msgs = ok(k, "%%cxx\ntwice<<<(m + 255) / 256, 256>>>(d, m);\ncudaDeviceSynchronize();\n"
                     "float back = 0; cudaMemcpy(&back, d + 10, 4, cudaMemcpyDeviceToHost);\n"
                     "printf(\"%.0f %.0f\\n\", back, sum_host(h, 10));")
        assert "20 87" in stdout_of(msgs), stdout_of(msgs)
        # what the native cell changed in device memory, the interpreter reads
        msgs = ok(k, "float back2 = 0; cudaMemcpy(&back2, d + 10, 4, cudaMemcpyDeviceToHost);\nprintf(\"%.0f\\n\", back2);")
        assert "20" in stdout_of(msgs)


@needs_gpu
@timeout(900)
def test_a_native_cell_frees_an_interpreted_cells_buffer():
    """cudaFree in a native cell of a buffer an interpreted cell allocated
    succeeds and frees it (the interpreter then knows it as freed); freed
    twice, the cell says so; a native cell's own buffers free as the CUDA
    runtime's, Thrust's among them. free() likewise for host memory."""
    with kernel() as k:
        ok(k, "float *d; cudaMalloc(&d, 1 << 20);\nfloat *keep; cudaMalloc(&keep, 64);")
        msgs = ok(k, "%%cxx\n#include <thrust/device_vector.h>\nthrust::device_vector<int> tv(1000, 1);\n"
                     "float *mine; cudaMalloc(&mine, 256);\n"
                     "printf(\"%d %d\\n\", (int)cudaFree(d), (int)cudaFree(mine));")
        assert "0 0" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))
        e, v, _ = err(k, "cudaMemset(d, 0, 16);")
        assert "freed" in v, (e, v)
        ok(k, "cudaMemset(keep, 0, 64);")  # the others stay
        msgs = ok(k, "%%cxx\n#include <vector>\nprintf(\"%d\\n\", (int)cudaFree(keep));\ncudaFree(keep);")
        assert "0" in stdout_of(msgs) and "not the start of a device buffer of the session" in stdout_of(msgs, "stderr"), \
            (stdout_of(msgs), stdout_of(msgs, "stderr"))
        e, v, _ = err(k, "cudaMemset(keep, 0, 64);")
        assert "freed" in v, (e, v)
        # and host memory from an interpreted cell's malloc, freed by a native cell's free()
        ok(k, "float *h = (float *)malloc(1024);\nchar *also = (char *)malloc(16);\nh[0] = 3;")
        msgs = ok(k, "%%cxx\n#include <vector>\nstd::vector<int> mine(100, 1);\nprintf(\"%g\\n\", h[0]);\nfree(h);\n"
                     "char *own = (char *)malloc(32);\nfree(own);")
        assert "3" in stdout_of(msgs) and not stdout_of(msgs, "stderr"), (stdout_of(msgs), stdout_of(msgs, "stderr"))
        e, v, _ = err(k, "h[1] = 2;")
        assert "freed" in v, (e, v)
        ok(k, "also[0] = 1;\nfree(also);")


@needs_gpu
@timeout(900)
def test_a_native_cell_uses_interpreted_cells_events_streams_and_arrays_of_pointers():
    """Streams and events an interpreted cell made are the worker's own in a
    native cell; an array of pointers reaches it as the addresses they name,
    and a string literal, in an array or not, as a copy the worker sees."""
    with kernel() as k:
        ok(k, 'const char *names[] = {"alpha", "beta"};\nconst char *greeting = "hi";\nfloat vals[2] = {1.5f, 2.5f};\n'
              'float *fp[2] = {vals, vals + 1};\n'
              "cudaEvent_t start, stop;\ncudaEventCreate(&start);\ncudaEventCreate(&stop);\n"
              "cudaStream_t st;\ncudaStreamCreate(&st);\nfloat *d;\ncudaMalloc(&d, 1 << 20);")
        msgs = ok(k, "%%cxx\n#include <string>\nstd::string s = std::string(names[1]) + \"!\";\n"
                     "printf(\"%s %g %s\\n\", s.c_str(), *fp[1], greeting);")
        assert "beta! 2.5 hi" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))
        msgs = ok(k, "%%cxx\n#include <string>\ncudaEventRecord(start, st);\ncudaMemsetAsync(d, 0, 1 << 20, st);\n"
                     "cudaEventRecord(stop, st);\ncudaEventSynchronize(stop);\n"
                     "float ms = -1;\ncudaError_t e = cudaEventElapsedTime(&ms, start, stop);\n"
                     "printf(\"%d %d\\n\", (int)e, ms >= 0);")
        assert "0 1" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))
        msgs = ok(k, 'float ms2 = -1;\nint got2 = (int)cudaEventElapsedTime(&ms2, start, stop);\nprintf("%d %d\\n", got2, ms2 >= 0);')
        assert "0 1" in stdout_of(msgs), stdout_of(msgs)
        # declared by an interpreted cell, made by a native one: later native cells see the one made
        ok(k, "cudaEvent_t t0, t1;")
        ok(k, "%%cxx\n#include <vector>\ncudaEventCreate(&t0);\ncudaEventCreate(&t1);\ncudaEventRecord(t0);")
        msgs = ok(k, "%%cxx\n#include <vector>\ncudaEventRecord(t1);\ncudaEventSynchronize(t1);\n"
                     "float gap = -1;\nint got = (int)cudaEventElapsedTime(&gap, t0, t1);\nprintf(\"%d %d\\n\", got, gap >= 0);")
        assert "0 1" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))


@needs_gpu
@timeout(900)
def test_a_native_cells_numbers_are_the_sessions():
    """A native cell's variables of numbers (and pointers to them) are the
    interpreter's: interpreted cells, %who and later native cells see the
    same storage."""
    with kernel() as k:
        ok(k, "%%cxx\n#include <vector>\n#include <numeric>\nstd::vector<int> v(100);\n"
              "std::iota(v.begin(), v.end(), 1);\nint total = std::accumulate(v.begin(), v.end(), 0);\n"
              "float *dbuf;\ncudaMalloc(&dbuf, 100 * sizeof(float));\nsize_t count = v.size();")
        msgs = ok(k, 'printf("%d %zu\\n", total, count);\ntotal += 1;')
        assert "5050 100" in stdout_of(msgs), stdout_of(msgs)
        msgs = ok(k, "%who")
        assert "total" in stdout_of(msgs) + str([m["content"].get("data") for m in msgs]), msgs
        # the interpreter launches on the native cell's device buffer
        ok(k, "__global__ void fill(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = i; }\n"
              "fill<<<1, 100>>>(dbuf, 100);\nfloat back[100];\n"
              "cudaMemcpy(back, dbuf, sizeof back, cudaMemcpyDeviceToHost);")
        msgs = ok(k, "%%cxx\nfloat h = 0; cudaMemcpy(&h, dbuf + 7, 4, cudaMemcpyDeviceToHost);\n"
                     "printf(\"%d %.0f %zu\\n\", total, h, v.size());")
        assert "5051 7 100" in stdout_of(msgs), stdout_of(msgs)


@needs_gpu
@timeout(600)
def test_globals_named_as_the_c_librarys_functions():
    """A native cell's global named as a function of the C library that no
    header of the cell declares (err, error) is the cell's own: stores to it
    go to it, not into the library's code."""
    with kernel() as k:
        msgs = ok(k, "%%cxx\n#include <string>\ncudaError_t err = cudaSuccess;\nstd::string error = \"then\";\n"
                     "err = cudaGetLastError();\nerror += \" and now\";\n"
                     "printf(\"%d %s\\n\", (int)err, error.c_str());")
        assert "0 then and now" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))


# A header in the shape of the CUDA samples' helpers (written here): checking
# macros, inline functions, and a timer behind an abstract class.
SAMPLES_HELPER = r"""#ifndef TEST_SAMPLES_HELPER_H
#define TEST_SAMPLES_HELPER_H
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
template <typename T> void check_call(T result, const char *what, const char *file, int line) {
    if (result) { fprintf(stderr, "CUDA error %d at %s:%d: %s\n", (int)result, file, line, what); exit(EXIT_FAILURE); }
}
#define checkCudaErrors(val) check_call((val), #val, __FILE__, __LINE__)
inline int findCudaDevice(int argc, const char **argv) { checkCudaErrors(cudaSetDevice(0)); return 0; }
class StopWatchInterface {
  public:
    virtual ~StopWatchInterface() {}
    virtual void start() = 0;
    virtual void stop() = 0;
    virtual int laps() = 0;
};
class StopWatchCounting : public StopWatchInterface {
    int n = 0;
  public:
    void start() override {}
    void stop() override { n++; }
    int laps() override { return n; }
};
inline bool sdkCreateTimer(StopWatchInterface **t) { *t = new StopWatchCounting(); return true; }
#endif
"""


@needs_gpu
@timeout(900)
def test_a_program_split_after_its_helper_headers():
    """A program pasted as two cells whose first includes headers the
    interpreter has no interpreter for: the second (main's body) uses their
    names only, and runs natively too, saying why."""
    import os
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix="icuda-helpers-")
    try:
        with open(os.path.join(d, "samples_helper.h"), "w") as f:
            f.write(SAMPLES_HELPER)
        with kernel() as k:
            ok(k, "%include_path " + d)
            ok(k, '#include <map>\n#include "samples_helper.h"\n'
                  "__global__ void vectorAdd(const float *a, const float *b, float *c, int n) {\n"
                  "    int i = blockDim.x * blockIdx.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}")
            msgs = ok(k, "int argc = 1; const char *argv[] = {\"prog\"};\nint dev = findCudaDevice(argc, argv);\n"
                         "const int n = 5000; size_t size = n * sizeof(float);\n"
                         "float *h_a = (float *)malloc(size), *h_c = (float *)malloc(size);\n"
                         "for (int i = 0; i < n; i++) h_a[i] = i;\n"
                         "float *d_a, *d_c;\ncheckCudaErrors(cudaMalloc((void **)&d_a, size));\n"
                         "checkCudaErrors(cudaMalloc((void **)&d_c, size));\n"
                         "checkCudaErrors(cudaMemcpy(d_a, h_a, size, cudaMemcpyHostToDevice));\n"
                         "StopWatchInterface *timer = NULL;\nsdkCreateTimer(&timer);\ntimer->start();\n"
                         "vectorAdd<<<(n + 255) / 256, 256>>>(d_a, d_a, d_c, n);\n"
                         "checkCudaErrors(cudaGetLastError());\ntimer->stop();\n"
                         "checkCudaErrors(cudaMemcpy(h_c, d_c, size, cudaMemcpyDeviceToHost));\n"
                         "int bad = 0;\nfor (int i = 0; i < n; i++) bad += h_c[i] != 2.0f * i;\n"
                         "std::map<int, int> laps;\nlaps[dev] = timer->laps();\n"
                         "printf(\"bad=%d laps=%d\\n\", bad, laps[0]);")
            assert "bad=0 laps=1" in stdout_of(msgs), (stdout_of(msgs), stdout_of(msgs, "stderr"))
            # why it ran natively: a name of the helper headers, or the kernel the native cell defined
            assert re.search(r"it uses \w+, which (host cells do not know|a native C\+\+ cell defined)",
                             stdout_of(msgs, "stderr")), stdout_of(msgs, "stderr")
            # the program's numbers are the session's: an interpreted cell reads them
            msgs = ok(k, 'printf("%d %d\\n", bad, n);')
            assert "0 5000" in stdout_of(msgs), stdout_of(msgs)
            # a name no header declares is still an error (nvcc's, at the cell's line)
            ename, evalue, _ = err(k, "int q = no_such_name_anywhere;")
            assert ename == "CompileError" and "no_such_name_anywhere" in evalue, (ename, evalue)
            # an interpreted cell after it is fine
            msgs = ok(k, 'printf("%d\\n", n + 1);')
            assert "5001" in stdout_of(msgs)
    finally:
        shutil.rmtree(d, ignore_errors=True)
