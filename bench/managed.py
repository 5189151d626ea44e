"""Managed memory against cudaMalloc and explicit copies (docs/device-memory.md), through the kernel: NVIDIA's introduction pattern —
1M floats initialised on the host, an add kernel with a grid-stride loop, a
synchronisation, a max-error check on the host — as one cell, written both
ways. Times whole cells from the client (median of runs) and, inside the
cell, the GPU part alone with events. Prints figures; asserts nothing.
    python bench/managed.py [--kernel build/icuda] [--runs 7] [--n 1048576]"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402

KERNEL = """__global__ void add(int n, float *x, float *y) {
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride) y[i] = x[i] + y[i];
}"""

MANAGED = """{
float *x, *y;
cudaMallocManaged(&x, N * sizeof(float)); cudaMallocManaged(&y, N * sizeof(float));
for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }
cudaEventRecord(e0, 0);
add<<<(N + 255) / 256, 256>>>(N, x, y);
cudaDeviceSynchronize();
float maxError = 0.0f;
for (int i = 0; i < N; i++) maxError = fmax(maxError, fabs(y[i] - 3.0f));
cudaEventRecord(e1, 0); cudaEventSynchronize(e1); cudaEventElapsedTime(&ms, e0, e1);
printf("%g %.3f\\n", maxError, ms);
cudaFree(x); cudaFree(y);
}"""

EXPLICIT = """{
float *x = (float *)malloc(N * sizeof(float)), *y = (float *)malloc(N * sizeof(float)), *dx, *dy;
cudaMalloc(&dx, N * sizeof(float)); cudaMalloc(&dy, N * sizeof(float));
for (int i = 0; i < N; i++) { x[i] = 1.0f; y[i] = 2.0f; }
cudaEventRecord(e0, 0);
cudaMemcpy(dx, x, N * sizeof(float), cudaMemcpyHostToDevice);
cudaMemcpy(dy, y, N * sizeof(float), cudaMemcpyHostToDevice);
add<<<(N + 255) / 256, 256>>>(N, dx, dy);
cudaMemcpy(y, dy, N * sizeof(float), cudaMemcpyDeviceToHost);
float maxError = 0.0f;
for (int i = 0; i < N; i++) maxError = fmax(maxError, fabs(y[i] - 3.0f));
cudaEventRecord(e1, 0); cudaEventSynchronize(e1); cudaEventElapsedTime(&ms, e0, e1);
printf("%g %.3f\\n", maxError, ms);
cudaFree(dx); cudaFree(dy); free(x); free(y);
}"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--n", type=int, default=1 << 20)
    a = ap.parse_args()
    with support.kernel(a.kernel, check=False) as k:
        for code in (KERNEL, f"int N = {a.n}; cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1); float ms;"):
            reply, _ = k.execute(code, timeout=120)
            assert reply["content"]["status"] == "ok", reply["content"]
        res = {}
        for name, code in (("cudaMalloc + explicit copies", EXPLICIT), ("cudaMallocManaged", MANAGED)):
            walls, inner = [], []
            for r in range(a.runs + 1):
                t0 = time.time()
                reply, msgs = k.execute(code, timeout=300)
                wall = time.time() - t0
                c = reply["content"]
                if c["status"] != "ok":
                    print(f"{name}: {c['ename']}: {c['evalue']}")
                    return
                err, ms = support.stdout_of(msgs).split()
                if r:  # the first run loads the module
                    walls.append(wall * 1e3)
                    inner.append(float(ms))
            res[name] = statistics.median(walls)
            print(f"{name}: cell {statistics.median(walls):.1f} ms (min {min(walls):.1f}), copies+kernel+check "
                  f"{statistics.median(inner):.2f} ms by events, max error {err}")
        print(f"managed / explicit, whole cell: {res['cudaMallocManaged'] / res['cudaMalloc + explicit copies']:.2f}x"
              f" (N = {a.n}, {a.runs} runs)")


if __name__ == "__main__":
    main()
