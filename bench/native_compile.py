"""A native C++ cell's compile time, no GPU needed: nvcc whole
(ICUDA_NVCC_STEPS=0) against icuda running nvcc's steps with the two front
ends side by side (the default). Each run starts a kernel with an empty
compile cache and compiles a Thrust cell (cold), then a second, different
Thrust cell of the same notebook (warm); the figures are the median of the
runs, seconds from execute to reply (the cell compiles, then runs where
there is a GPU, or says it cannot).

    python bench/native_compile.py [--kernel build/icuda] [--runs 5]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402
from native_cells import BODY, INCLUDES, SECOND  # noqa: E402


def timed(k, code):
    t0 = time.perf_counter()
    reply, _ = k.execute(code, timeout=600)
    dt = time.perf_counter() - t0
    c = reply["content"]
    assert c["status"] == "ok" or c.get("ename") in ("cudaErrorNoDevice", "cudaErrorInsufficientDriver"), c
    return dt


def one_run(kernel, steps):
    cache = tempfile.mkdtemp(prefix="icuda-bench-compile-")
    env = {"XDG_CACHE_HOME": cache}
    if not steps:
        env["ICUDA_NVCC_STEPS"] = "0"
    try:
        with support.kernel(kernel, env=env, check=False) as k:
            timed(k, "int warm = 1;")
            return timed(k, "%%cxx\n" + INCLUDES + BODY), timed(k, "%%cxx\n" + INCLUDES + SECOND)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    got = {True: [], False: []}
    for _ in range(a.runs):
        for steps in (False, True):  # interleaved, so that the machine's load falls on both alike
            got[steps].append(one_run(a.kernel, steps))
    for steps in (False, True):
        cold = statistics.median(r[0] for r in got[steps])
        warm = statistics.median(r[1] for r in got[steps])
        print(f"{'steps side by side' if steps else 'nvcc whole':20s} first Thrust cell {cold:.2f} s, "
              f"second {warm:.2f} s (median of {a.runs}; runs: "
              + ", ".join(f"{c:.1f}/{w:.1f}" for c, w in got[steps]) + ")")


if __name__ == "__main__":
    main()
