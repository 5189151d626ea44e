"""The CUDA runtime layer on a real GPU (make test-gpu): the vector-add
tutorial cell by cell, device printf, events, streams, symbols, faults that
cost no session, interrupts of endless kernels, OOM, bad launch
configurations, template kernels. Faults, traps and interrupts of GPU work
restart the GPU worker: those tests have a kernel of their own, as has the
test of fresh sessions; the others share one."""
import time

from support import err, kernel, needs_gpu, ok, shared_kernel, stdout_of, timeout

VECADD = """__global__ void vecadd(double *z, const double *x, const double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}"""

ALLOC = """int N = 1 << 20;
double *hx = (double *)malloc(N * sizeof(double)), *hy = (double *)malloc(N * sizeof(double));
double *hz = (double *)malloc(N * sizeof(double));
for (int i = 0; i < N; i++) { hx[i] = i; hy[i] = 2.0 * i; }
double *x, *y, *z;
cudaMalloc(&x, N * sizeof(double)); cudaMalloc(&y, N * sizeof(double)); cudaMalloc(&z, N * sizeof(double));
cudaMemcpy(x, hx, N * sizeof(double), cudaMemcpyHostToDevice);
cudaMemcpy(y, hy, N * sizeof(double), cudaMemcpyHostToDevice);"""

LAUNCH = """vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);
cudaMemcpy(hz, z, N * sizeof(double), cudaMemcpyDeviceToHost);
for (int i = 0; i < N; i++) assert(hz[i] == 3.0 * i);
printf("ok %f\\n", hz[N - 1]);"""


@needs_gpu
def test_vector_add_cell_by_cell_and_rerun():
    with shared_kernel() as k:
        ok(k, VECADD)
        ok(k, ALLOC)
        assert "ok 3145725" in stdout_of(ok(k, LAUNCH))
        ok(k, VECADD)           # re-run each cell
        assert "ok 3145725" in stdout_of(ok(k, LAUNCH))
        ok(k, ALLOC)
        assert "ok 3145725" in stdout_of(ok(k, LAUNCH))
        # a copy too big for its buffer never reaches the GPU
        e, v = err(k, "cudaMemcpy(x, hx, 2 * N * sizeof(double), cudaMemcpyHostToDevice);")
        assert e == "cudaErrorInvalidValue" and "into x" in v, v
        e, v = err(k, "float *f; cudaMalloc(&f, 16); vecadd<<<1, 1>>>(f, x, y, 1);")
        assert e == "TypeError" and "float *" in v and "double *z" in v, v


@needs_gpu
def test_device_printf_in_order():
    with shared_kernel() as k:
        ok(k, '#include <cstdio>\n__global__ void hello(int n) { if (threadIdx.x == 0) printf("hello %d from the GPU\\n", n); }')
        msgs = ok(k, 'printf("before\\n"); hello<<<1, 32>>>(7); cudaDeviceSynchronize(); printf("after\\n");')
        out = stdout_of(msgs)
        assert out.index("before") < out.index("hello 7 from the GPU") < out.index("after"), out
        # no explicit sync: the end of the cell synchronises
        msgs = ok(k, 'hello<<<1, 32>>>(8);')
        assert "hello 8 from the GPU" in stdout_of(msgs)


@needs_gpu
def test_events_streams_and_properties():
    with shared_kernel() as k:
        ok(k, VECADD)
        ok(k, ALLOC)
        msgs = ok(k, """cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
cudaStream_t s; cudaStreamCreate(&s);
cudaEventRecord(a, s);
vecadd<<<(N + 255) / 256, 256, 0, s>>>(z, x, y, N);
cudaMemcpyAsync(hz, z, N * sizeof(double), cudaMemcpyDeviceToHost, s);
cudaEventRecord(b, s);
cudaEventSynchronize(b);
float ms = 0; cudaEventElapsedTime(&ms, a, b);
assert(ms > 0);
assert(cudaEventQuery(b) == cudaSuccess);
cudaStreamSynchronize(s);
assert(hz[10] == 30.0);
cudaStreamDestroy(s); cudaEventDestroy(a); cudaEventDestroy(b);
cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
int n; cudaGetDeviceCount(&n);
size_t fr, tot; cudaMemGetInfo(&fr, &tot);
int minGrid, block; cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, vecadd, 0, 0);
printf("%s cc %d.%d sms %d warp %d n %d tot %zu block %d\\n", p.name, p.major, p.minor, p.multiProcessorCount,
       p.warpSize, n, tot, block);
assert(p.warpSize == 32 && p.major >= 7 && n >= 1 && tot > fr && block > 0);""")
        assert "warp 32" in stdout_of(msgs)
        msgs = ok(k, "%devices")
        assert any(m["msg_type"] == "display_data" for m in msgs)
        ok(k, "%device 0")


@needs_gpu
def test_symbols():
    with shared_kernel() as k:
        ok(k, "__constant__ float coef[4];\n__device__ int counter;\n"
              "__global__ void use(float *out) { out[threadIdx.x] = coef[threadIdx.x]; atomicAdd(&counter, 1); }")
        msgs = ok(k, """float h[4] = {1, 2, 3, 4}, back[4];
cudaMemcpyToSymbol(coef, h, sizeof h);
int zero = 0; cudaMemcpyToSymbol(counter, &zero, sizeof(int));
float *d; cudaMalloc(&d, sizeof h);
use<<<1, 4>>>(d);
cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
int c; cudaMemcpyFromSymbol(&c, counter, sizeof(int));
printf("%g %g %d\\n", back[0], back[3], c);""")
        assert "1 4 4" in stdout_of(msgs)
        e, v = err(k, "float big[8]; cudaMemcpyToSymbol(coef, big, sizeof big);")
        assert e == "cudaErrorInvalidValue" and "coef" in v, v
        e, v = err(k, "cudaMemcpyToSymbol(nosuch, h, 4);")
        assert e == "cudaErrorInvalidSymbol", v


@needs_gpu
def test_out_of_bounds_kernel_then_the_notebook_goes_on():
    with kernel() as k:
        ok(k, VECADD)
        ok(k, ALLOC)
        ok(k, "__global__ void oob(double *p) { p[threadIdx.x + (1L << 40)] = 1; }")
        e, v = err(k, "oob<<<1, 32>>>(z);\ncudaDeviceSynchronize();")
        assert e == "cudaErrorIllegalAddress", (e, v)
        assert "oob" in v and "restarted" in v, v
        # z was handed to a kernel: lost, and named by its variable
        assert "1 lost" in v and " z (" in v, v
        # x and y were copied from the host: restored; the next cells work
        assert "ok 3145725" in stdout_of(ok(k, LAUNCH))
        ok(k, "assert(hx[5] == 5.0);")


@needs_gpu
def test_device_assert_and_trap():
    with kernel() as k:
        ok(k, "#include <cassert>\n__global__ void bad(int v) { assert(v == 0); }\n"
              "__global__ void trap() { __trap(); }")
        e, v = err(k, "bad<<<1, 1>>>(1);")
        assert e == "cudaErrorAssert", (e, v)
        ok(k, "bad<<<1, 1>>>(0);")
        e, v = err(k, "trap<<<1, 1>>>();")
        assert e in ("cudaErrorLaunchFailure", "cudaErrorIllegalInstruction"), (e, v)
        ok(k, "bad<<<1, 1>>>(0);")


@needs_gpu
@timeout(180)
def test_interrupt_an_endless_kernel():
    with kernel() as k:
        ok(k, "__global__ void forever(int *p) { while (p[0] == 0) { } }")
        ok(k, "int *d; cudaMalloc(&d, 4); cudaMemset(d, 0, 4);")
        msg_id = k.kc.execute("forever<<<1, 1>>>(d);")
        k.started(msg_id)
        time.sleep(1.0)  # the kernel is launched and spinning
        t0 = time.time()
        k.km.interrupt_kernel()
        reply = k.reply_to(msg_id, timeout=30)
        took = time.time() - t0
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
        print(f"interrupt of an endless kernel: control back in {took:.2f} s")
        k.iopub_until_idle(msg_id)
        msgs = ok(k, "int h = 5; cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost); h")


@needs_gpu
def test_oom_bad_config_shared_memory():
    with shared_kernel() as k:
        e, v = err(k, "char *big; cudaMalloc(&big, (size_t)1 << 50);")
        assert e == "cudaErrorMemoryAllocation" and "free" in v, v
        ok(k, "cudaError_t r = cudaMalloc(&big, (size_t)1 << 50); assert(r == cudaErrorMemoryAllocation);")
        ok(k, "__global__ void k1(int *p) { extern __shared__ int s[]; s[threadIdx.x] = 1; p[0] = s[0]; }")
        ok(k, "int *d; cudaMalloc(&d, 4);")
        e, v = err(k, "k1<<<1, 2048>>>(d);")
        assert e == "cudaErrorInvalidConfiguration" and "1024" in v, v
        e, v = err(k, "k1<<<dim3(1, 100000, 1), 32>>>(d);")
        assert e == "cudaErrorInvalidConfiguration", v
        e, v = err(k, "k1<<<1, 32, 1 << 20>>>(d);")
        assert e == "cudaErrorInvalidValue" and "shared memory" in v, v
        ok(k, "k1<<<1, 32, 128>>>(d);")


@needs_gpu
def test_template_kernel_launch():
    with shared_kernel() as k:
        ok(k, "template <typename T> __global__ void scale(T *x, T a, int n) "
              "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }")
        msgs = ok(k, """float hf[8]; for (int i = 0; i < 8; i++) hf[i] = i;
float *df; cudaMalloc(&df, sizeof hf); cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice);
scale<float><<<1, 8>>>(df, 2.0, 8);
cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
double hd[4] = {1, 2, 3, 4}; double *dd; cudaMalloc(&dd, sizeof hd);
cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice);
scale<double><<<1, 4>>>(dd, 0.5, 4);
cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost);
printf("%g %g\\n", hf[7], hd[3]);""")
        assert "14 2" in stdout_of(msgs)


@needs_gpu
@timeout(240)
def test_first_call_fills_host_memory_in_every_session():
    """The worker writes host out-parameters at the kernel's own addresses:
    a fresh process's libraries once sat where the kernel's arena was (one
    start in ten), and cudaGetDeviceProperties, as a session's first call,
    then 'succeeded' with an all-zero struct (written into the worker's own
    memory). Many fresh sessions, each asking first thing."""
    for i in range(16):
        with kernel() as k:
            msgs = ok(k, 'cudaDeviceProp p; cudaError_t rc = cudaGetDeviceProperties(&p, 0);\n'
                         'printf("%d %d %d\\n", rc, p.multiProcessorCount > 0, p.name[0] != 0);')
            assert stdout_of(msgs).strip() == "0 1 1", (i, stdout_of(msgs))
