"""Pipelined execute requests through jupyter_client's own client, as a
script that sends everything before it reads anything does: N execute
requests sent with BlockingKernelClient.execute (nothing read in between),
then N replies read with get_shell_msg. Every reply must come, in the
order of the requests, with status ok and consecutive execution counts.

    python bench/pipelined_requests.py --kernel build/icuda [--counts 10000 100000] [--runs 5] [--code '1;']

A fresh kernel for each run. Prints one line a run (seconds to send all,
seconds to the last reply, replies received in order before the first
missing one, replies received at all, iopub messages the client got
afterwards, the kernel's peak resident memory) and exits non-zero if any reply was missing, out of order or
not ok. Iopub is not read until the end: what it reports shows
the PUB socket dropping for a subscriber that far behind (by design).
Asserts nothing about time."""
import argparse
import json
import os
import queue
import shutil
import sys
import tempfile
import time

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager


def spec(dirname, argv, env):
    d = os.path.join(dirname, "kernels", "icuda")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "kernel.json"), "w") as f:
        json.dump({"argv": argv, "display_name": "icuda (bench)", "language": "cuda",
                   "interrupt_mode": "message", "env": env}, f)
    return KernelSpecManager(kernel_dirs=[os.path.join(dirname, "kernels")])


def peak_rss_mib(km):
    """The kernel process's peak resident memory (VmHWM), in MiB."""
    try:
        with open(f"/proc/{km.provisioner.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (AttributeError, OSError):
        pass
    return float("nan")


def one_run(ksm, n, code, reply_timeout):
    km = KernelManager(kernel_name="icuda", kernel_spec_manager=ksm)
    km.start_kernel(stderr=open(os.devnull, "w"))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        while True:  # what wait_for_ready left on iopub
            try:
                kc.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                break
        t0 = time.perf_counter()
        ids = [kc.execute(code) for _ in range(n)]
        t_sent = time.perf_counter() - t0
        got, first_count, problem = 0, None, None
        for i, want in enumerate(ids):
            try:
                m = kc.get_shell_msg(timeout=reply_timeout)
                while m["msg_type"] == "kernel_info_reply":  # a late one of wait_for_ready's
                    m = kc.get_shell_msg(timeout=reply_timeout)
            except queue.Empty:
                problem = f"no reply after {got} (waited {reply_timeout} s for the next)"
                break
            parent = m["parent_header"].get("msg_id")
            c = m["content"]
            if parent != want:
                problem = f"reply {i} answers {parent}, not request {i}'s {want}"
                break
            if c.get("status") != "ok":
                problem = f"reply {i}: status {c.get('status')} {c.get('ename', '')} {c.get('evalue', '')}"
                break
            if first_count is None:
                first_count = c["execution_count"]
            elif c["execution_count"] != first_count + i:
                problem = f"reply {i}: execution_count {c['execution_count']}, {first_count + i} expected"
                break
            got += 1
        t_all = time.perf_counter() - t0
        received = got + (problem is not None and not problem.startswith("no reply"))
        if problem:  # how many came at all, in whatever order
            while True:
                try:
                    kc.get_shell_msg(timeout=5)
                    received += 1
                except queue.Empty:
                    break
        iopub = 0
        while True:
            try:
                kc.get_iopub_msg(timeout=0.5)
                iopub += 1
            except queue.Empty:
                break
        return t_sent, t_all, got, received, iopub, peak_rss_mib(km), problem
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--counts", type=int, nargs="+", default=[10000, 100000])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--code", default="1;", help="the cell each request runs")
    ap.add_argument("--reply-timeout", type=float, default=30.0,
                    help="seconds to wait for the next reply before counting it lost")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="an environment variable for the kernel (repeatable)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="icuda-pipelined-")
    env = {"ICUDA_HISTORY": os.path.join(tmp, "history.jsonl"),
           "XDG_CACHE_HOME": os.path.join(tmp, "cache")}
    env.update(e.split("=", 1) for e in args.env)
    ksm = spec(tmp, [os.path.abspath(args.kernel), "-f", "{connection_file}"], env)
    failed = False
    print(f"{'requests':>9} {'run':>3} {'sent (s)':>9} {'all replies (s)':>15} {'replies/s':>9} "
          f"{'in order':>8} {'received':>8} {'iopub got':>9} {'peak RSS':>8}")
    try:
        for n in args.counts:
            for r in range(args.runs):
                t_sent, t_all, got, received, iopub, rss, problem = one_run(ksm, n, args.code,
                                                                            args.reply_timeout)
                print(f"{n:9d} {r + 1:3d} {t_sent:9.2f} {t_all:15.2f} {got / t_all:9.0f} "
                      f"{got:8d} {received:8d} {iopub:9d} {rss:5.0f} MiB" + (f"   {problem}" if problem else ""),
                      flush=True)
                failed |= problem is not None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
