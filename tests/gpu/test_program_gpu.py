"""%%program on a real GPU (make test-gpu): whole programs built with nvcc
for the GPU's architecture run beside the session's own worker — a vector
add with cudaMalloc/cudaMemcpy and a check, managed memory, a pasted program
that defines main(), an endless kernel stopped by an interrupt, and
--profile under ncu naming the kernel. The interrupt and the profiler have
a kernel of their own; the others share one."""
import functools
import time

import support
from support import kernel, needs_gpu, shared_kernel, timeout

VECADD = r"""%%program
#include <cstdio>
#include <vector>

#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

__global__ void vecadd_program(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 1 << 20;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; i++) { a[i] = i; b[i] = 2.0f * i; }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dc, n * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    vecadd_program<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += c[i] != 3.0f * i;
    // the code the GPU ran was compiled for it: PTX of its own architecture
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, vecadd_program));
    int dev;
    cudaDeviceProp p;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&p, dev));
    printf("ptx %s\n", attr.ptxVersion == p.major * 10 + p.minor ? "matches the GPU" : "does not match");
    printf("%s\n", bad ? "FAIL" : "PASS");
    cudaFree(da); cudaFree(db); cudaFree(dc);
    return bad ? 1 : 0;
}"""

MANAGED = r"""%%program
#include <cstdio>

__global__ void add_index(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += i;
}

int main() {
    const int n = 1 << 20;
    int *a = nullptr;
    cudaError_t e = cudaMallocManaged(&a, n * sizeof(int));
    if (e != cudaSuccess) { printf("cudaMallocManaged: %s\n", cudaGetErrorString(e)); return 1; }
    for (int i = 0; i < n; i++) a[i] = 1;
    add_index<<<(n + 255) / 256, 256>>>(a, n);
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("kernel: %s\n", cudaGetErrorString(e)); return 1; }
    long bad = 0;
    for (int i = 0; i < n; i++) bad += a[i] != 1 + i;
    cudaFree(a);
    printf("managed: %s (a[n-1] = %d)\n", bad ? "FAIL" : "PASS", 1 + (n - 1));
    return bad != 0;
}"""


# nvcc, then a program on the GPU
ok_streams = functools.partial(support.ok_streams, t=300)


@needs_gpu
@timeout(400)
def test_vector_add_program_beside_the_session():
    with shared_kernel() as k:
        # the session holds the GPU in its worker: the program shares it
        ok_streams(k, "__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x; }")
        ok_streams(k, "int *d; cudaMalloc(&d, 32 * sizeof(int)); fill<<<1, 32>>>(d);")
        out, err = ok_streams(k, VECADD)
        assert out == "ptx matches the GPU\nPASS\n", (out, err)
        assert err == "", err
        # and the session's own buffer is as it was
        out, _ = ok_streams(k, "int h[32]; cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\nprintf(\"%d\\n\", h[31]);")
        assert out == "31\n", out


@needs_gpu
@timeout(400)
def test_managed_memory_program():
    with shared_kernel() as k:
        out, _ = ok_streams(k, MANAGED)
        assert out == "managed: PASS (a[n-1] = 1048576)\n", out


@needs_gpu
@timeout(400)
def test_a_pasted_program_runs_on_the_gpu():
    with shared_kernel() as k:
        code = VECADD.replace("%%program\n", "")
        out, err = ok_streams(k, code)
        assert out == "ptx matches the GPU\nPASS\n", out
        assert err == "icuda: this cell defines main(): running it as a whole program (%%program)\n", err


@needs_gpu
@timeout(400)
def test_interrupt_a_program_in_an_endless_kernel():
    with kernel() as k:
        code = r"""%%program
#include <cstdio>
__global__ void spin(volatile int *flag) { while (*flag == 0) { } }
int main() {
    int *flag;
    cudaMalloc(&flag, sizeof(int));
    cudaMemset(flag, 0, sizeof(int));
    spin<<<1, 1>>>(flag);
    printf("spinning\n");
    fflush(stdout);
    cudaDeviceSynchronize();
    printf("never\n");
}"""
        msg_id = k.kc.execute(code)
        seen, deadline = "", time.time() + 300
        while "spinning" not in seen:
            assert time.time() < deadline, "the program never started"
            m = k.kc.get_iopub_msg(timeout=300)
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "stream":
                seen += m["content"]["text"]
        time.sleep(0.5)
        t0 = time.time()
        k.km.interrupt_kernel()
        reply = k.reply_to(msg_id, timeout=30)
        took = time.time() - t0
        print(f"interrupt of a program in an endless kernel: control back in {took:.2f} s")
        c = reply["content"]
        assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
        k.iopub_until_idle(msg_id)
        # the GPU is free for the session and for the next program
        ok_streams(k, "__global__ void one(int *p) { p[0] = 1; }")
        out, _ = ok_streams(k, "int *q; cudaMalloc(&q, 4); one<<<1, 1>>>(q); int hq = 0;\n"
                               "cudaMemcpy(&hq, q, 4, cudaMemcpyDeviceToHost);\nprintf(\"%d\\n\", hq);")
        assert out == "1\n", out
        out, _ = ok_streams(k, MANAGED)
        assert "managed: PASS" in out


@needs_gpu
@timeout(500)
def test_profile_under_ncu_names_the_kernel():
    with kernel() as k:
        code = VECADD.replace("%%program\n", "%%program --profile=ncu\n")
        out, err = ok_streams(k, code, t=450)
        both = out + err
        print(both[-3000:])
        assert "icuda: running the program under ncu" in err, err
        assert "PASS" in out
        assert "==PROF==" in both, both[-3000:]
        assert "vecadd_program" in both, both[-3000:]
        # --profile alone: nsys where installed, else ncu (the H100 has no nsys)
        out, err = ok_streams(k, "%%program --profile\n__global__ void tiny_kernel() {}\n"
                                 "int main() { tiny_kernel<<<1, 1>>>(); return cudaDeviceSynchronize() != cudaSuccess; }",
                              t=450)
        assert "icuda: running the program under" in err, err
        assert "tiny_kernel" in out + err, (out + err)[-3000:]
