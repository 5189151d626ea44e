"""Cells over the kernel's message size limit (64 MiB), sent with
jupyter_client's own client: what each gets back, how long it takes, and
the kernel's resident memory at its peak and after.

    python bench/large_messages.py --kernel build/icuda [--sizes 70e6 1e9 1.1e9]

Each cell is a comment of that many characters. Prints one line a size,
then whether a small cell still runs after them, and the kernel's log;
asserts nothing about time. The client needs about three times the largest
size in memory (the string, its JSON, the frames)."""
import argparse
import json
import os
import queue
import shutil
import tempfile
import time

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager


def memory_mib(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmHWM:", "VmRSS:")):
                out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return out["VmHWM"], out["VmRSS"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--sizes", type=float, nargs="+", default=[70e6, 1e9, 1.1e9])
    ap.add_argument("--reply-timeout", type=float, default=120.0)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="icuda-large-")
    d = os.path.join(tmp, "kernels", "icuda")
    os.makedirs(d)
    with open(os.path.join(d, "kernel.json"), "w") as f:
        json.dump({"argv": [os.path.abspath(args.kernel), "-f", "{connection_file}"],
                   "display_name": "icuda (bench)", "language": "cuda", "interrupt_mode": "message",
                   "env": {"ICUDA_HISTORY": os.path.join(tmp, "history.jsonl")}}, f)
    log = open(os.path.join(tmp, "stderr"), "w+")
    km = KernelManager(kernel_name="icuda", kernel_spec_manager=KernelSpecManager(
        kernel_dirs=[os.path.join(tmp, "kernels")]))
    km.start_kernel(stderr=log)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        pid = km.provisioner.process.pid
        peak, rss = memory_mib(pid)
        print(f"kernel at rest: peak {peak:.0f} MiB, resident {rss:.0f} MiB")
        for size in args.sizes:
            n = int(size)
            code = "//" + "x" * (n - 2)
            t0 = time.perf_counter()
            msg_id = kc.execute(code)
            del code
            answer = "no reply"
            deadline = time.perf_counter() + args.reply_timeout
            while time.perf_counter() < deadline:
                try:
                    m = kc.get_shell_msg(timeout=1)
                except queue.Empty:
                    continue
                if m["parent_header"].get("msg_id") == msg_id:
                    c = m["content"]
                    answer = f"{c['status']} {c.get('ename', '')}: {c.get('evalue', '')}"
                    break
            dt = time.perf_counter() - t0
            peak, rss = memory_mib(pid)
            print(f"{n:>13,d} characters: {answer}\n{'':>16}after {dt:.1f} s; kernel peak {peak:.0f} MiB, "
                  f"resident now {rss:.0f} MiB")
        reply = kc.execute_interactive("1;", timeout=args.reply_timeout, output_hook=lambda m: None)
        c = reply["content"]
        print(f"then a small cell: {c['status']}, execution_count {c.get('execution_count')}")
        log.seek(0)
        print("kernel log:\n" + log.read())
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
