"""How soon an interrupt stops a host loop, through the kernel: the time from
jupyter_client sending interrupt_request on the control channel to the
execute_reply (KeyboardInterrupt) on shell, over N interrupts per case
(median, 99th percentile, worst):

  - interpreted:      the loop interpreted (%host_tier off)
  - compiled:         the loop's compiled code running (%host_tier always, code cached)
  - background cc:    the loop hot, its compile in flight in the background
                      (%host_tier auto), the loop going on interpreted
  - foreground cc:    the interpreter waiting for the loop's compile
                      (%host_tier always): the interrupt abandons it

The compiles are made slow (ICUDA_HOST_CC is cc after a 2 s sleep) and each
round's loop is new (no cached code), so a compile is always in flight when
the interrupt comes, 0.3 s after the cell started. The last columns count
the compiles started and how long after the reply a compiler (the script or
its sleep) was still there, at worst: an abandoned foreground compile is
killed before the reply goes out (0, or the time a killed process takes to
finish exiting); a background compile is left to finish into the cache,
which shows as its 2 s sleep.

    python bench/interrupt_latency.py --kernel build/icuda [--n 100]

Prints a table; asserts nothing about time (docs/performance.md)."""
import argparse
import json
import os
import random
import shutil
import statistics
import tempfile
import time

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager


SLEEP = "2.000137"  # a compiler's sleep, found by its argument


def compilers_running(tmp):
    """Processes of the slow compiler: the script (its path) or its sleep."""
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if tmp.encode() in cmd or SLEEP.encode() + b"\0" in cmd:
            n += 1
    return n


def start(kernel, tmp):
    cc = os.path.join(tmp, "slow-cc")
    with open(cc, "w") as f:
        f.write(f'#!/bin/sh\necho >> {tmp}/compiles\nsleep {SLEEP}\nexec cc "$@"\n')
    os.chmod(cc, 0o755)
    d = os.path.join(tmp, "kernels", "icuda")
    os.makedirs(d)
    env = {"ICUDA_HOST_CC": cc, "XDG_CACHE_HOME": os.path.join(tmp, "cache"),
           "ICUDA_HISTORY": os.path.join(tmp, "history.jsonl")}
    with open(os.path.join(d, "kernel.json"), "w") as f:
        json.dump({"argv": [os.path.abspath(kernel), "-f", "{connection_file}"], "display_name": "icuda",
                   "language": "cuda", "interrupt_mode": "message", "env": env}, f)
    ksm = KernelSpecManager(kernel_dirs=[os.path.join(tmp, "kernels")])
    km = KernelManager(kernel_name="icuda", kernel_spec_manager=ksm)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc


def run(kc, code, timeout=600):
    msg_id = kc.execute(code)
    while True:
        m = kc.get_shell_msg(timeout=timeout)
        if m["parent_header"].get("msg_id") == msg_id:
            break
    idle(kc, msg_id)
    if m["content"]["status"] != "ok":
        raise SystemExit(f"{code!r}: {m['content']}")


def idle(kc, msg_id):
    while True:
        m = kc.get_iopub_msg(timeout=600)
        if (m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status"
                and m["content"]["execution_state"] == "idle"):
            return


def interrupt_once(km, kc, code, delay, tmp):
    msg_id = kc.execute(code)
    while True:  # the cell has started
        m = kc.get_iopub_msg(timeout=600)
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
            break
    time.sleep(delay)
    t0 = time.perf_counter()
    km.interrupt_kernel()
    while True:
        m = kc.get_shell_msg(timeout=600)
        if m["parent_header"].get("msg_id") == msg_id:
            break
    dt = time.perf_counter() - t0
    # how long after the reply a compiler still ran (0: none by then); a
    # compile left running would show its 2 s sleep
    left = 0.0
    while compilers_running(tmp) and left < 5.0:
        time.sleep(0.001)
        left = time.perf_counter() - t0 - dt
    idle(kc, msg_id)
    if m["content"].get("ename") != "KeyboardInterrupt":
        raise SystemExit(f"{code!r}: not interrupted: {m['content']}")
    return dt, left


def compiles(tmp):
    try:
        with open(os.path.join(tmp, "compiles")) as f:
            return len(f.readlines())
    except FileNotFoundError:
        return 0


def loop(salt):
    return "{ long s = 0; for (long j = 0; ; j++) s += j %% %d; }" % salt


def case(km, kc, tmp, name, tier, n, delay, new_loop_each_time):
    run(kc, f"%host_tier {tier}")
    salt = random.randrange(10 ** 6, 10 ** 7)
    if not new_loop_each_time:  # compiled once (and cached) before the timed rounds
        interrupt_once(km, kc, loop(salt), 4.0, tmp)
    c0 = compiles(tmp)
    rounds = [interrupt_once(km, kc, loop(salt if not new_loop_each_time else salt + i), delay, tmp) for i in range(n)]
    times = sorted(dt for dt, _ in rounds)
    left = max(k for _, k in rounds)
    p99 = times[min(len(times) - 1, -(-99 * len(times) // 100) - 1)]
    print(f"| {name} | {n} | {statistics.median(times) * 1e3:.1f} ms | {p99 * 1e3:.1f} ms | {times[-1] * 1e3:.1f} ms "
          f"| {compiles(tmp) - c0} | {left * 1e3:.1f} ms |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--delay", type=float, default=0.3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="icuda-interrupt-bench-")
    km = kc = None
    try:
        km, kc = start(a.kernel, tmp)
        print("| case | interrupts | median | 99th percentile | worst | compiles started | a compiler still there after the reply, worst |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        case(km, kc, tmp, "interpreted (tier off)", "off", a.n, a.delay, True)
        case(km, kc, tmp, "compiled code running (tier always, cached)", "always", a.n, a.delay, False)
        case(km, kc, tmp, "background compile in flight (tier auto)", "auto", a.n, a.delay, True)
        case(km, kc, tmp, "foreground compile in flight (tier always)", "always", a.n, a.delay, True)
    finally:
        if kc:
            kc.stop_channels()
        if km:
            km.shutdown_kernel(now=True)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
