"""GPU benchmarks through the kernel, beside bench/gpu_raw.c's raw
driver-API figures: launches from a host-cell loop, cudaMemcpy pinned and
pageable, vector add over 2x10^8 doubles, worker restart after a fault.
Prints figures; asserts nothing about time.
    python bench/kernel_gpu.py [--kernel build/icuda]"""
import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402


def run(k, code, t=600):
    reply, msgs = k.execute(code, timeout=t)
    c = reply["content"]
    out = support.stdout_of(msgs)
    if c["status"] != "ok":
        return None, f"{c['ename']}: {c['evalue']}"
    return out, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    a = ap.parse_args()
    with support.kernel(a.kernel, check=False) as k:
        steps = [
            ("kernels", "__global__ void empty(int *p) { }\n"
             "__global__ void vecadd(double *z, const double *x, const double *y, long n) {"
             " long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) z[i] = x[i] + y[i]; }"),
            ("setup", "int *d; cudaMalloc(&d, 4); cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);"
             " float ms;"),
            ("launch loop", """for (int i = 0; i < 1000; i++) empty<<<1, 1>>>(d);
cudaDeviceSynchronize();
long t0 = clock();
cudaEventRecord(a, 0);
for (int i = 0; i < 10000; i++) empty<<<1, 1>>>(d);
cudaEventRecord(b, 0); cudaEventSynchronize(b);
long t1 = clock();
cudaEventElapsedTime(&ms, a, b);
printf("launch from a host loop: %.2f us per launch (events), %.2f us (host CPU clock)\\n", ms * 1000 / 10000, (t1 - t0) / 10000.0);"""),
            ("copies", """size_t nb = (size_t)256 << 20;
char *pin; cudaMallocHost(&pin, nb); char *pag = (char *)malloc(nb); memset(pag, 1, nb); memset(pin, 1, nb);
char *dv; cudaMalloc(&dv, nb);
const char *names[4] = {"pinned H2D", "pinned D2H", "pageable H2D", "pageable D2H"};
for (int w = 0; w < 4; w++) {
    char *h = w < 2 ? pin : pag;
    for (int r = 0; r < 2; r++) { if (w % 2 == 0) cudaMemcpy(dv, h, nb, cudaMemcpyHostToDevice); else cudaMemcpy(h, dv, nb, cudaMemcpyDeviceToHost); }
    cudaEventRecord(a, 0);
    for (int r = 0; r < 5; r++) { if (w % 2 == 0) cudaMemcpy(dv, h, nb, cudaMemcpyHostToDevice); else cudaMemcpy(h, dv, nb, cudaMemcpyDeviceToHost); }
    cudaEventRecord(b, 0); cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b);
    printf("cudaMemcpy %s, 256 MiB: %.1f GB/s\\n", names[w], 5.0 * nb / (ms * 1e-3) / 1e9);
}
cudaFree(dv); cudaFreeHost(pin); free(pag);"""),
            ("vecadd", """long n = 200000000;
double *x, *y, *z;
cudaMalloc(&x, n * 8); cudaMalloc(&y, n * 8); cudaMalloc(&z, n * 8);
cudaMemset(x, 0, n * 8); cudaMemset(y, 0, n * 8);
vecadd<<<(n + 255) / 256, 256>>>(z, x, y, n);
cudaEventRecord(a, 0);
for (int r = 0; r < 10; r++) vecadd<<<(n + 255) / 256, 256>>>(z, x, y, n);
cudaEventRecord(b, 0); cudaEventSynchronize(b); cudaEventElapsedTime(&ms, a, b);
printf("vector add, 2e8 doubles: %.3f ms, %.0f GB/s\\n", ms / 10, 10 * 24.0 * n / (ms * 1e-3) / 1e9);
cudaFree(x); cudaFree(y); cudaFree(z);"""),
            ("fault", "__global__ void oob(double *p) { p[threadIdx.x + (1L << 40)] = 1; }\n"
             "double *dd; cudaMalloc(&dd, 8);"),
        ]
        for name, code in steps:
            out, e = run(k, code)
            if e:
                print(f"{name}: {e}")
            elif out:
                print(out, end="")
        for i in range(3):
            t0 = time.time()
            reply, msgs = k.execute("oob<<<1, 32>>>(dd);", timeout=120)
            wall = time.time() - t0
            ev = reply["content"].get("evalue", "")
            m = re.search(r"restarted in (\d+) ms", ev)
            print(f"fault + worker restart: {m.group(1) if m else '?'} ms restart, cell round trip {wall * 1000:.0f} ms"
                  f" ({reply['content'].get('ename')})")
        out, e = run(k, "empty<<<1, 1>>>(d); printf(\"after the faults: ok\\n\");")
        print(out or e, end="" if out else "\n")


if __name__ == "__main__":
    main()
