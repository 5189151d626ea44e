"""Native C++ cells against nvcc on the same code (on a machine with a GPU):

  compile   a Thrust cell compiled as a native cell, and the same code as a
            program by nvcc itself (same options), from a cold cache
  second    a second, different Thrust cell of the same notebook
  overhead  an unchanged native cell run again (cached): the round trip
            against an empty interpreted cell's, the difference is icuda's
            own cost of a native cell (the object copied, loaded, reported)
  launch    an empty kernel launched 20,000 times from a native cell and
            from an nvcc-built program, microseconds a launch

    python bench/native_cells.py [--kernel build/icuda] [--runs 20]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402

INCLUDES = """#include <thrust/device_vector.h>
#include <thrust/transform.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/sequence.h>
#include <cstdio>
"""
BODY = """thrust::device_vector<float> v(1 << 20);
thrust::sequence(v.begin(), v.end());
thrust::transform(v.begin(), v.end(), v.begin(), [] __device__ (float x) { return 2.0f * x; });
float s = thrust::reduce(v.begin(), v.end());
thrust::sort(v.begin(), v.end());
printf("%g\\n", s);
"""
SECOND = """thrust::device_vector<int> w(1000);
thrust::sequence(w.begin(), w.end());
int t = thrust::reduce(w.begin(), w.end());
printf("%d\\n", t);
"""
LAUNCH_KERNEL = "__global__ void empty_kernel(int *p) {}\n"
LAUNCH_BODY = """int *dp; cudaMalloc(&dp, 4);
for (int i = 0; i < 1000; i++) empty_kernel<<<1, 32>>>(dp);
cudaDeviceSynchronize();
auto t0 = std::chrono::steady_clock::now();
for (int i = 0; i < 20000; i++) empty_kernel<<<1, 32>>>(dp);
cudaDeviceSynchronize();
double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 20000;
printf("launch_us %.3f\\n", us);
"""


def run(k, code, timeout=600):
    t0 = time.perf_counter()
    reply, msgs = k.execute(code, timeout=timeout)
    dt = time.perf_counter() - t0
    assert reply["content"]["status"] == "ok", reply["content"]
    return dt, support.stdout_of(msgs)


def nvcc_program(source, arch):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "prog.cu")
        with open(p, "w") as f:
            f.write(source)
        t0 = time.perf_counter()
        subprocess.run(["nvcc", f"-arch={arch}", "-std=c++17", "--extended-lambda", p, "-o", os.path.join(d, "prog")],
                       check=True)
        dt = time.perf_counter() - t0
        out = subprocess.run([os.path.join(d, "prog")], check=True, capture_output=True, text=True).stdout
        return dt, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    cc = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True,
                        text=True).stdout.split()[0].replace(".", "")
    arch = f"sm_{cc}"
    cache = tempfile.mkdtemp(prefix="icuda-bench-cache-")
    with support.kernel(a.kernel, env={"XDG_CACHE_HOME": cache}) as k:
        run(k, "int warm = 1;")
        first, _ = run(k, "%%cxx\n" + INCLUDES + BODY)
        prog, _ = nvcc_program(INCLUDES + "int main() {\n" + BODY + "return 0;\n}\n", arch)
        second, _ = run(k, "%%cxx\n" + INCLUDES + SECOND)
        print(f"compile: first Thrust cell {first:.2f} s, the same code by nvcc as a program {prog:.2f} s, "
              f"a second Thrust cell {second:.2f} s")
        trivial = "%%cxx\nint bench_counter = 0;\nbench_counter++;"
        run(k, trivial)
        native = [run(k, trivial)[0] for _ in range(a.runs)]
        interp = [run(k, "int bench_z = 1;")[0] for _ in range(a.runs)]
        mn, mi = statistics.median(native), statistics.median(interp)
        print(f"overhead: unchanged native cell {mn * 1e3:.1f} ms, interpreted cell {mi * 1e3:.1f} ms "
              f"(median of {a.runs}): icuda's own cost of a native cell {(mn - mi) * 1e3:.1f} ms")
        _, out = run(k, "%%cxx\n#include <chrono>\n#include <cstdio>\n" + LAUNCH_KERNEL + LAUNCH_BODY)
        cell_us = float(re.search(r"launch_us ([\d.]+)", out).group(1))
    _, out = nvcc_program("#include <chrono>\n#include <cstdio>\n" + LAUNCH_KERNEL + "int main() {\n" + LAUNCH_BODY
                          + "return 0;\n}\n", arch)
    prog_us = float(re.search(r"launch_us ([\d.]+)", out).group(1))
    print(f"launch: {cell_us:.3f} us a launch from a native cell, {prog_us:.3f} us from an nvcc program")


if __name__ == "__main__":
    main()
