"""Protocol and compile timings of icuda beside ipykernel, both started the
same way (jupyter_client's KernelManager from a kernelspec):

  - kernel start to kernel_info_reply (spawned directly, and through
    jupyter_client's KernelManager)
  - trivial cell round trip (execute_request -> idle)
  - device cell compile: cold (new source, empty disk cache) and unchanged

    python bench/protocol.py --kernel build/icuda [--runs 5]

Prints a table; asserts nothing about time."""
import argparse
import json
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

VECADD = """__global__ void vecadd_%d(double *z, const double *x, const double *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}"""


def spec(dirname, name, argv, env=None):
    d = os.path.join(dirname, "kernels", name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.json"), "w") as f:
        json.dump({"argv": argv, "display_name": name, "language": name,
                   "interrupt_mode": "message", "env": env or {}}, f)


def start(ksm, name):
    km = KernelManager(kernel_name=name, kernel_spec_manager=ksm)
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    msg_id = kc.kernel_info()
    while True:
        m = kc.get_shell_msg(timeout=30)
        if m["parent_header"].get("msg_id") == msg_id:
            break
    dt = time.perf_counter() - t0
    # iopub subscriptions take a moment (ZeroMQ's slow joiner): without this
    # wait the first cell's messages can be published before anyone listens.
    kc.wait_for_ready(timeout=30)
    return km, kc, dt


def direct_start(argv, runs):
    """Start to kernel_info_reply without jupyter_client's manager: spawn the
    kernel on a connection file and ask on a bare DEALER socket. What the
    kernel itself costs. KernelManager adds its own time on top, mostly
    ZeroMQ's 100 ms reconnect timer while the kernel binds its ports."""
    import zmq
    from jupyter_client.connect import write_connection_file
    from jupyter_client.session import Session
    times = []
    for _ in range(runs):
        fn, cfg = write_connection_file()
        t0 = time.perf_counter()
        p = subprocess.Popen([a.replace("{connection_file}", fn) for a in argv],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        # ZeroMQ retries a refused connect every 100 ms by default: the
        # bench would measure that timer, not the kernel
        sock.setsockopt(zmq.RECONNECT_IVL, 1)
        sock.connect("tcp://127.0.0.1:%d" % cfg["shell_port"])
        session = Session(key=cfg["key"].encode())
        session.send(sock, "kernel_info_request", {})
        session.recv(sock, mode=0)
        times.append(time.perf_counter() - t0)
        p.terminate()
        p.wait()
        sock.close(linger=0)
        ctx.term()
        os.unlink(fn)
    return times


def run_cell(kc, code):
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    status = None
    while True:
        m = kc.get_iopub_msg(timeout=120)
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        if m["msg_type"] == "error":
            status = m["content"]["ename"]
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            return time.perf_counter() - t0, status


def stop(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=True)


def fmt(xs):
    return f"median {statistics.median(xs) * 1e3:8.2f} ms   min {min(xs) * 1e3:8.2f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--trivial", default="// nothing to do",
                    help="icuda's trivial cell (ipykernel runs 'pass')")
    ap.add_argument("--raw-nvrtc", default="build/bench/nvrtc_raw")
    ap.add_argument("--arch", help="e.g. sm_90: compile for this (both icuda and raw NVRTC)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="icuda-bench-")
    cache = os.path.join(tmp, "cache")
    env = {"XDG_CACHE_HOME": cache}
    if args.arch:
        env["ICUDA_ARCH"] = args.arch
    spec(tmp, "icuda", [os.path.abspath(args.kernel), "-f", "{connection_file}"], env)
    spec(tmp, "ipykernel", [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    ksm = KernelSpecManager(kernel_dirs=[os.path.join(tmp, "kernels")])
    rows = []
    argv = {"icuda": [os.path.abspath(args.kernel), "-f", "{connection_file}"],
            "ipykernel": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]}
    for name in ("icuda", "ipykernel"):
        rows.append((name, "start -> kernel_info_reply (direct)", fmt(direct_start(argv[name], args.runs))))
    for name, trivial in (("icuda", args.trivial), ("ipykernel", "pass")):
        starts, trips = [], []
        for _ in range(args.runs):
            km, kc, dt = start(ksm, name)
            starts.append(dt)
            run_cell(kc, trivial)  # first cell may warm things up
            for _ in range(20):
                trips.append(run_cell(kc, trivial)[0])
            stop(km, kc)
        rows.append((name, "start -> kernel_info_reply (KernelManager)", fmt(starts)))
        rows.append((name, "trivial cell round trip", fmt(trips)))
    km, kc, _ = start(ksm, "icuda")
    time.sleep(1.0)  # let the background warm-up (NVRTC load, arch probe) finish
    cold, warm = [], []
    for _ in range(args.runs):
        shutil.rmtree(cache, ignore_errors=True)
        code = VECADD % random.getrandbits(40)
        dt, err = run_cell(kc, code)
        assert err is None, err
        cold.append(dt)
        warm.append(min(run_cell(kc, code)[0] for _ in range(5)))
    stop(km, kc)
    rows.append(("icuda", "vecadd cell, cold compile", fmt(cold)))
    rows.append(("icuda", "vecadd cell, unchanged (cached)", fmt(warm)))
    if os.path.exists(args.raw_nvrtc):
        out = subprocess.run([args.raw_nvrtc] + ([args.arch] if args.arch else []),
                             capture_output=True, text=True).stdout.strip()
        rows.append(("raw NVRTC", "vecadd compile (same options)", out))
    for r in rows:
        print(f"{r[0]:10s} {r[1]:44s} {r[2]}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
