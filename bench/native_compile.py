"""A native C++ cell's compile time, no GPU needed: nvcc whole
(ICUDA_NVCC_STEPS=0) against icuda running nvcc's steps: the default (the
two front ends side by side when a CPU is spare, and the headers of the
host compile precompiled in the background for the cells after), the same
without precompiled headers (ICUDA_NVCC_PCH=0), and side by side always
(ICUDA_NVCC_STEPS=1). Each run starts a kernel with an empty
compile cache and compiles a Thrust cell (cold), then a second, different
Thrust cell of the same notebook (warm) at once; the figures are the median
of the runs, seconds from execute to reply (the cell compiles, then runs
where there is a GPU, or says it cannot). --steps prints each build's steps
(ICUDA_NVCC_STEPS_LOG).

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


MODES = {"0": "nvcc whole", "": "steps (default)", "no-pch": "steps, no precompiled header",
         "1": "steps side by side"}


def one_run(kernel, mode, show_steps):
    cache = tempfile.mkdtemp(prefix="icuda-bench-compile-")
    log = os.path.join(cache, "steps.log")
    env = {"XDG_CACHE_HOME": cache, "ICUDA_NVCC_STEPS": "" if mode == "no-pch" else mode,
           "ICUDA_NVCC_PCH": "0" if mode == "no-pch" else "", "ICUDA_NVCC_STEPS_LOG": log}
    try:
        with support.kernel(kernel, env=env, check=False) as k:
            timed(k, "int warm = 1;")
            got = timed(k, "%%cxx\n" + INCLUDES + BODY), timed(k, "%%cxx\n" + INCLUDES + SECOND)
        if show_steps and os.path.exists(log):
            print(f"-- {MODES[mode]}: {got[0]:.2f} s, {got[1]:.2f} s\n" + open(log).read(), flush=True)
        return got
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--steps", action="store_true", help="print each build's steps")
    a = ap.parse_args()
    got = {m: [] for m in MODES}
    for _ in range(a.runs):
        for m in MODES:  # interleaved, so that the machine's load falls on each alike
            got[m].append(one_run(a.kernel, m, a.steps))
    for m, name in MODES.items():
        cold = statistics.median(r[0] for r in got[m])
        warm = statistics.median(r[1] for r in got[m])
        print(f"{name:30s} first Thrust cell {cold:.2f} s, second {warm:.2f} s (median of {a.runs}; runs: "
              + ", ".join(f"{c:.1f}/{w:.1f}" for c, w in got[m]) + ")")


if __name__ == "__main__":
    main()
