"""Device memory as CUDA defines it (real device addresses, unified
addressing, managed memory), on a real GPU: pointers stored in structs,
tables and device memory, written by kernels and device malloc; managed
memory and __managed__ variables shared by host and kernels; zero-copy
pinned memory; cudaMemcpyDefault; pointer attributes; and all of it after a
fault and restart (a kernel of its own: the fault restarts the GPU worker).
Without a GPU, the clear errors."""
import os
import re

from support import err, kernel, needs_gpu, ok, result_of, shared_kernel, stdout_of, timeout

HERE = os.path.dirname(os.path.abspath(__file__))


GUIDE_HOST = """Matrix A, B, C;
A.width = A.height = A.stride = 64; B = A; C = A;
A.elements = (float *)malloc(64 * 64 * sizeof(float));
B.elements = (float *)malloc(64 * 64 * sizeof(float));
C.elements = (float *)malloc(64 * 64 * sizeof(float));
for (int i = 0; i < 64 * 64; i++) { A.elements[i] = i % 7; B.elements[i] = i % 5 - 2; }
MatMul(A, B, C);
int bad = 0;
for (int r = 0; r < 64; r++)
    for (int c = 0; c < 64; c++) {
        float s = 0;
        for (int k = 0; k < 64; k++) s += A.elements[r * 64 + k] * B.elements[k * 64 + c];
        if (s != C.elements[r * 64 + c]) bad++;
    }
printf("mismatches: %d\\n", bad);"""


@needs_gpu
def test_programming_guide_matrix_struct_by_value():
    """The CUDA C Programming Guide's shared-memory matrix product, pasted as
    is: a struct holding a cudaMalloc pointer, passed by value."""
    with shared_kernel() as k:
        ok(k, open(os.path.join(HERE, "programs", "guide_matmul_device.cu")).read())
        assert "mismatches: 0" in stdout_of(ok(k, GUIDE_HOST))


EVEN_EASIER_DEVICE = """#include <math.h>
// Kernel function to add the elements of two arrays
__global__
void add(int n, float *x, float *y)
{
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride)
    y[i] = x[i] + y[i];
}"""

EVEN_EASIER_HOST = """int N = 1<<20;
float *x, *y;

// Allocate Unified Memory – accessible from CPU or GPU
cudaMallocManaged(&x, N*sizeof(float));
cudaMallocManaged(&y, N*sizeof(float));

// initialize x and y arrays on the host
for (int i = 0; i < N; i++) {
  x[i] = 1.0f;
  y[i] = 2.0f;
}

// Run kernel on 1M elements on the GPU
int blockSize = 256;
int numBlocks = (N + blockSize - 1) / blockSize;
add<<<numBlocks, blockSize>>>(N, x, y);

// Wait for GPU to finish before accessing on host
cudaDeviceSynchronize();

// Check for errors (all values should be 3.0f)
float maxError = 0.0f;
for (int i = 0; i < N; i++)
  maxError = fmax(maxError, fabs(y[i]-3.0f));
printf("Max error: %g\\n", maxError);"""


@needs_gpu
def test_unified_memory_vector_add():
    """NVIDIA's introduction to unified memory, the host part as main's body
    (printf for std::cout): managed memory written on the host, added on the
    GPU, checked on the host; then again, prefetched, and freed."""
    with shared_kernel() as k:
        ok(k, EVEN_EASIER_DEVICE)
        assert "Max error: 0\n" in stdout_of(ok(k, EVEN_EASIER_HOST))
        # a second launch sees the host's new values, and the host the GPU's
        msgs = ok(k, """for (int i = 0; i < N; i++) x[i] = 0.5f;
int device = -1; cudaGetDevice(&device);
cudaMemPrefetchAsync(x, N*sizeof(float), device, 0);
cudaMemPrefetchAsync(y, N*sizeof(float), device, 0);
add<<<numBlocks, blockSize>>>(N, x, y);
cudaDeviceSynchronize();
printf("%g %g\\n", y[0], y[N-1]);
cudaMemAdvise(y, N*sizeof(float), cudaMemAdviseSetReadMostly, device);""")
        assert "3.5 3.5" in stdout_of(msgs)
        # no synchronisation: icuda waits before the host reads, and says so
        msgs = ok(k, "add<<<numBlocks, blockSize>>>(N, x, y); float first = y[0]; printf(\"%g\\n\", first);")
        assert "4\n" in stdout_of(msgs)
        assert "cudaDeviceSynchronize" in stdout_of(msgs, "stderr")
        # every host check still holds
        e, v = err(k, "y[N] = 1;")
        assert e == "RuntimeError" and "out-of-bounds" in v, v
        who = "".join(m["content"]["data"]["text/plain"] for m in ok(k, "%who") if m["msg_type"] == "display_data")
        assert re.search(r"\bx\s+float \*.*managed", who), who
        ok(k, "cudaFree(x); cudaFree(y);")
        e, v = err(k, "float z = y[0];")
        assert "freed" in v, v


@needs_gpu
def test_pointer_tables_and_pointers_written_by_kernels():
    with shared_kernel() as k:
        ok(k, """__global__ void sum_rows(float **rows, int nrows, int n, float *out) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < nrows) { float s = 0; for (int i = 0; i < n; i++) s += rows[r][i]; out[r] = s; }
}
__global__ void point_at(float **slot, float *base, int k) { *slot = base + k; }
__global__ void read_through(float **slot, float *out) { *out = **slot; }""")
        msgs = ok(k, """int R = 4, n = 1000;
float *rows[4], **d_rows, *d_out, h[1000], out[4];
for (int r = 0; r < R; r++) {
    for (int i = 0; i < n; i++) h[i] = r + 1;
    cudaMalloc(&rows[r], n * sizeof(float));
    cudaMemcpy(rows[r], h, n * sizeof(float), cudaMemcpyHostToDevice);
}
cudaMalloc(&d_rows, R * sizeof(float *));
cudaMemcpy(d_rows, rows, sizeof rows, cudaMemcpyHostToDevice);
cudaMalloc(&d_out, R * sizeof(float));
sum_rows<<<1, 32>>>(d_rows, R, n, d_out);
cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
printf("%g %g %g %g\\n", out[0], out[1], out[2], out[3]);""")
        assert "1000 2000 3000 4000" in stdout_of(msgs)
        # a pointer a kernel wrote, followed by another kernel and read back by the host
        msgs = ok(k, """float **slot; cudaMalloc(&slot, sizeof(float *));
point_at<<<1, 1>>>(slot, rows[2], 7);
read_through<<<1, 1>>>(slot, d_out);
float *back; float v;
cudaMemcpy(&back, slot, sizeof back, cudaMemcpyDeviceToHost);
cudaMemcpy(&v, d_out, sizeof v, cudaMemcpyDeviceToHost);
printf("%d %g %p %p\\n", back == rows[2] + 7, v, (void *)back, (void *)rows[2]);""")
        out = stdout_of(msgs)
        assert out.startswith("1 3 0x6"), out
        # the host cannot read through it, and says why
        e, v = err(k, "float w = *back;")
        assert "device pointer dereferenced on the host" in v, v
        # a struct with a host pointer in it is refused before the launch
        ok(k, "typedef struct { int n; float *data; } Vec;\n__global__ void use_vec(Vec v) { v.data[0] = v.n; }")
        e, v = err(k, "Vec hv = {3, h}; use_vec<<<1, 1>>>(hv);")
        assert e == "TypeError" and "hv.data points to host memory" in v, v
        ok(k, "Vec dv = {3, d_out}; use_vec<<<1, 1>>>(dv); cudaMemcpy(out, d_out, 4, cudaMemcpyDeviceToHost); assert(out[0] == 3);")


@needs_gpu
def test_device_malloc_across_kernels():
    with shared_kernel() as k:
        ok(k, """__device__ int *g_buf;
__global__ void make(int n) { g_buf = (int *)malloc(n * sizeof(int)); for (int i = 0; i < n; i++) g_buf[i] = i; }
__global__ void total(int n, int *out) { int s = 0; for (int i = 0; i < n; i++) s += g_buf[i]; *out = s; }
__global__ void drop() { free(g_buf); }
__global__ void through(int *p, int *out) { *out = p[3]; }""")
        msgs = ok(k, """int *d_out, s = 0, *heap = 0, t = 0;
cudaMalloc(&d_out, sizeof(int));
make<<<1, 1>>>(100); total<<<1, 1>>>(100, d_out);
cudaMemcpy(&s, d_out, sizeof s, cudaMemcpyDeviceToHost);
cudaMemcpyFromSymbol(&heap, g_buf, sizeof heap);
through<<<1, 1>>>(heap, d_out);
cudaMemcpy(&t, d_out, sizeof t, cudaMemcpyDeviceToHost);
drop<<<1, 1>>>();
printf("%d %d %d\\n", s, t, heap != 0);""")
        assert "4950 3 1" in stdout_of(msgs)
        e, v = err(k, "int u = heap[0];")
        assert "kernel's malloc" in v, v


@needs_gpu
def test_linked_list_in_managed_memory():
    with shared_kernel() as k:
        ok(k, """struct Node { struct Node *next; int value; };
__global__ void walk(struct Node *head, int *sum) {
    int s = 0; for (struct Node *p = head; p; p = p->next) { s += p->value; p->value *= 2; } *sum = s;
}""")
        msgs = ok(k, """struct Node *head = NULL;
for (int i = 1; i <= 100; i++) {
    struct Node *n; cudaMallocManaged(&n, sizeof(struct Node));
    n->value = i; n->next = head; head = n;
}
int *sum; cudaMallocManaged(&sum, sizeof(int));
walk<<<1, 1>>>(head, sum);
cudaDeviceSynchronize();
int host_sum = 0;
for (struct Node *p = head; p; p = p->next) host_sum += p->value;
printf("%d %d\\n", *sum, host_sum);""")
        assert "5050 10100" in stdout_of(msgs)


@needs_gpu
def test_managed_variables():
    with shared_kernel() as k:
        ok(k, """__managed__ int counter = 10;
__managed__ float scale;
__global__ void bump(int by) { atomicAdd(&counter, by); }
__global__ void times(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= scale; }""")
        msgs = ok(k, """bump<<<2, 32>>>(1);
cudaDeviceSynchronize();
printf("%d\\n", counter);
counter = 0;
bump<<<1, 8>>>(2);
cudaDeviceSynchronize();
printf("%d\\n", counter);""")
        assert stdout_of(msgs).split() == ["74", "16"]
        # a kernel of a later cell sees the same variable
        ok(k, "__global__ void read_counter(int *out) { *out = counter; }")
        msgs = ok(k, """int *o; cudaMalloc(&o, 4); read_counter<<<1, 1>>>(o); int got = 0;
cudaMemcpy(&got, o, 4, cudaMemcpyDeviceToHost); scale = 2.5f;
float *xs; cudaMallocManaged(&xs, 4 * sizeof(float)); for (int i = 0; i < 4; i++) xs[i] = i;
times<<<1, 4>>>(xs, 4); cudaDeviceSynchronize();
printf("%d %g\\n", got, xs[3]);""")
        assert "16 7.5" in stdout_of(msgs)
        # the value is kept at the end of a cell without a synchronisation
        ok(k, "bump<<<1, 1>>>(100);")
        assert result_of(ok(k, "counter")) == "(int) 116"


@needs_gpu
def test_zero_copy_default_copies_and_attributes():
    with shared_kernel() as k:
        ok(k, "__global__ void fill(int *p, int n, int v) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v + i; }")
        msgs = ok(k, """int n = 1000, *h, *hd;
cudaHostAlloc(&h, n * sizeof(int), cudaHostAllocMapped);
cudaHostGetDevicePointer(&hd, h, 0);
fill<<<4, 256>>>(hd, n, 5);
cudaDeviceSynchronize();
printf("%d %d %d\\n", h[0], h[999], hd == h);
int *hp; cudaMallocHost(&hp, n * sizeof(int));
fill<<<4, 256>>>(hp, n, 1);
cudaDeviceSynchronize();
printf("%d\\n", hp[10]);""")
        assert stdout_of(msgs).split() == ["5", "1004", "1", "11"]
        msgs = ok(k, """int a[4] = {1, 2, 3, 4}, b[4] = {0}, c[4] = {0};
int *d1, *d2; cudaMalloc(&d1, sizeof a); cudaMalloc(&d2, sizeof a);
cudaMemcpy(b, a, sizeof a, cudaMemcpyDefault);
cudaMemcpy(d1, b, sizeof a, cudaMemcpyDefault);
cudaMemcpy(d2, d1, sizeof a, cudaMemcpyDefault);
cudaMemcpy(c, d2, sizeof a, cudaMemcpyDefault);
int *m; cudaMallocManaged(&m, sizeof a);
cudaMemcpy(m, d2, sizeof a, cudaMemcpyDefault);
printf("%d %d %d %d\\n", b[3], c[0], c[3], m[2]);
cudaPointerAttributes at[4];
cudaPointerGetAttributes(&at[0], a); cudaPointerGetAttributes(&at[1], hp);
cudaPointerGetAttributes(&at[2], d1); cudaPointerGetAttributes(&at[3], m);
printf("%d %d %d %d %d\\n", at[0].type, at[1].type, at[2].type, at[3].type, at[2].devicePointer == d1);""")
        out = stdout_of(msgs).split("\n")
        assert out[0] == "4 1 4 3", out
        assert out[1] == "0 1 2 3 1", out
        e, v = err(k, "cudaMemcpy(a, d1, sizeof a, cudaMemcpyHostToDevice);")
        assert "swapped" in v, v


@needs_gpu
@timeout(180)
def test_pointers_survive_a_fault_and_restart():
    with kernel() as k:
        ok(k, """__global__ void chase(float **t, int k, float *out) { float s = 0; for (int i = 0; i < k; i++) s += t[i][1]; *out = s; }
__global__ void oob(int *p) { p[1 << 30] = 1; }""")
        msgs = ok(k, """float h[4] = {1, 2, 3, 4}, *a, *b, **tab, *out, got = 0;
cudaMalloc(&a, sizeof h); cudaMalloc(&b, sizeof h); cudaMalloc(&tab, 2 * sizeof(float *)); cudaMalloc(&out, 4);
cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
float *t[2] = {a, b};
cudaMemcpy(tab, t, sizeof t, cudaMemcpyHostToDevice);
float *managed; cudaMallocManaged(&managed, 16); managed[2] = 9;
printf("%p\\n", (void *)a);""")
        before = stdout_of(msgs).strip()
        e, v = err(k, "int *p; cudaMalloc(&p, 4); oob<<<1, 1>>>(p); cudaDeviceSynchronize();")
        assert e == "cudaErrorIllegalAddress" and "restarted" in v, v
        msgs = ok(k, """chase<<<1, 1>>>(tab, 2, out);
cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost);
printf("%p %g %g\\n", (void *)a, got, managed[2]);""")
        assert stdout_of(msgs).split() == [before, "4", "9"]


def test_device_memory_without_a_gpu_is_a_clear_error():
    import support
    if support.GPU:
        return
    with shared_kernel() as k:
        for call in ("float *m; cudaMallocManaged(&m, 64);", "int *h; cudaMallocHost(&h, 64);"):
            e, v = err(k, call)
            assert e in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), (e, v)
            assert "no GPU work can run here" in v or "no GPU" in v, v
        # real addresses are values like any other
        assert result_of(ok(k, "float *q = (float *)0x600000000100; q")) == "(float *) 0x600000000100 (no buffer of this session)"
        e, v = err(k, "float r = q[0];")
        assert "not in any buffer" in v, v
