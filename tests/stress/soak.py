#!/usr/bin/env python3
"""Load and soak against a running icuda kernel (`make stress`): under load
its answers stay right and in order, and its memory and caches bounded.

    python tests/stress/soak.py --kernel build/icuda [--gpu] [--scale 1.0]

Parts (each a function returning a row of figures, and raising
AssertionError on a wrong answer):
  pipelined   N execute requests sent without waiting, on one client, then
              from two clients at once: every reply, in its client's order
              (parent msg_id), execution counts consecutive, each cell run once
  control     kernel_info and interrupt on control while shell runs an
              endless host loop: latency, the loop stops, the session lives
  compiles    N distinct device cells: kernel RSS before/after, the disk
              cache's size against its limit and how many modules it evicted
  host        N host cells that malloc/memset/free 1 MiB: RSS growth
  gpu         (--gpu) N cells that cudaMalloc, launch, cudaFree: RSS of kernel
              and worker, device memory (cudaMemGetInfo) before/after

The figures are printed as a table; tests/stress/test_soak.py runs short
versions as correctness tests (bounds on growth, never on time).
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import support  # noqa: E402

MiB = 1 << 20


# ---- processes ----

def kernel_pid(k):
    prov = getattr(k.km, "provisioner", None)
    proc = getattr(prov, "process", None) if prov else None
    if proc is None:
        proc = getattr(k.km, "kernel", None)
    return proc.pid


def children(pid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # the command may hold spaces or parentheses: ppid follows the last ')'
        fields = stat[stat.rfind(")") + 2:].split()
        if int(fields[1]) == pid:
            out.append(int(d))
    return out


def rss(pid):
    """Resident set size in bytes (VmRSS), 0 if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss(pid):
    """(the kernel's RSS, its children's RSS together: the GPU worker)."""
    return rss(pid), sum(rss(c) for c in children(pid))


def mib(n):
    return f"{n / MiB:.1f}"


# ---- raw pipelining on shell: one poll loop per client, no thread per socket ----

class ShellClient:
    """A DEALER on the kernel's shell port signing with a Session of its own
    (a separate client, as a second notebook tab would be)."""

    def __init__(self, k):
        from jupyter_client.session import Session
        self.session = Session(key=k.kc.session.key, signature_scheme="hmac-sha256",
                               username="stress")
        self.sock = k.km.connect_shell()
        self.sent, self.replies = [], []

    def close(self):
        self.sock.close(linger=0)

    def send_execute(self, code):
        msg = self.session.msg("execute_request", {"code": code, "silent": False,
                                                   "store_history": True, "stop_on_error": False})
        self.sock.send_multipart(self.session.serialize(msg))
        self.sent.append(msg["header"]["msg_id"])

    def read_one(self):
        import zmq
        frames = self.sock.recv_multipart(zmq.NOBLOCK)
        _, rest = self.session.feed_identities(frames)
        self.replies.append(self.session.deserialize(rest))


def pump(clients, code, n, timeout):
    """Sends n execute requests on each client (interleaved, never waiting for
    a reply) while reading replies; returns when every reply is in."""
    import zmq
    poller = zmq.Poller()
    for c in clients:
        poller.register(c.sock, zmq.POLLIN | zmq.POLLOUT)
    deadline = time.time() + timeout
    while any(len(c.replies) < n for c in clients):
        if time.time() > deadline:
            got = [len(c.replies) for c in clients]
            raise AssertionError(f"replies missing after {timeout} s: {got} of {n} each")
        for sock, ev in poller.poll(1000):
            c = next(c for c in clients if c.sock is sock)
            if ev & zmq.POLLIN:
                while True:
                    try:
                        c.read_one()
                    except zmq.Again:
                        break
            if ev & zmq.POLLOUT and len(c.sent) < n:
                c.send_execute(code)
                if len(c.sent) == n:
                    poller.modify(c.sock, zmq.POLLIN)


def check_order(clients, n, first_count):
    """Each client got exactly its replies, in the order it sent them; the
    execution counts are consecutive over all clients and increase per client."""
    counts = []
    for c in clients:
        parents = [r["parent_header"].get("msg_id") for r in c.replies]
        assert len(parents) == n, f"{len(parents)} replies for {n} requests"
        assert parents == c.sent, "a reply is missing, extra or out of order"
        bad = [r["content"] for r in c.replies if r["content"].get("status") != "ok"]
        assert not bad, f"{len(bad)} cells failed, the first: {bad[0]}"
        mine = [r["content"]["execution_count"] for r in c.replies]
        assert mine == sorted(mine) and len(set(mine)) == n, "execution counts out of order"
        counts += mine
    assert sorted(counts) == list(range(first_count, first_count + n * len(clients))), \
        "execution counts are not consecutive"


def part_pipelined(k, n):
    r = k.request("execute_request", {"code": "long calls = 0;"})
    assert r["content"]["status"] == "ok", r["content"]
    first = r["content"]["execution_count"] + 1
    rows = []
    for nclients in (1, 2):
        clients = [ShellClient(k) for _ in range(nclients)]
        try:
            t0 = time.time()
            pump(clients, "calls++;", n, timeout=max(120, n * 0.2))
            dt = time.time() - t0
            check_order(clients, n, first)
        finally:
            for c in clients:
                c.close()
        first += n * nclients
        rows.append((f"{n * nclients:,} execute requests pipelined, {nclients} client(s)",
                     f"all answered in order, counts consecutive; {dt:.1f} s "
                     f"({n * nclients / dt:,.0f}/s)"))
    # the client's iopub was not read meanwhile: its queue is full of the
    # pipelined cells' status messages, and new ones would be dropped
    while k.drain_iopub(0.5):
        pass
    total = 3 * n
    ran = evaluate(k, "calls")
    assert ran == str(total), f"the cells ran {ran} times, not {total}"
    rows.append(("cells run (a counter every cell increments)", f"{ran} of {total}"))
    return rows


def evaluate(k, expr):
    """The text of a host expression, through user_expressions."""
    r = k.request("execute_request", {"code": "", "silent": True,
                                      "user_expressions": {"v": expr}})
    v = r["content"]["user_expressions"]["v"]
    assert v["status"] == "ok", v
    return v["data"]["text/plain"].split(")")[-1].strip()  # "(long) 3" -> "3"


# ---- control while shell is busy ----

def part_control(k, rounds):
    support.ok(k, "long spins = 0;")
    rows = []
    worst_info = worst_intr = worst_stop = 0.0
    for _ in range(rounds):
        msg_id = k.kc.execute("for (;;) spins++;")
        # the loop has started when spins moves; user_expressions would queue
        # behind it on shell, so wait for execute_input on iopub instead
        k_wait_input(k, msg_id)
        time.sleep(0.2)
        for _ in range(5):
            t0 = time.time()
            r = k.request("kernel_info_request", channel="control", timeout=10)
            worst_info = max(worst_info, time.time() - t0)
            assert r["content"]["status"] == "ok"
        t0 = time.time()
        r = k.request("interrupt_request", channel="control", timeout=10)
        worst_intr = max(worst_intr, time.time() - t0)
        assert r["content"]["status"] == "ok", r["content"]
        reply = k.reply_to(msg_id, "shell", timeout=30)
        worst_stop = max(worst_stop, time.time() - t0)
        assert reply["content"]["status"] == "error" and \
            reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
        k.iopub_until_idle(msg_id)
    assert int(evaluate(k, "spins")) > 0
    support.alive_and_answering(k)
    rows.append((f"kernel_info on control while shell loops ({5 * rounds})",
                 f"all answered, slowest {worst_info * 1e3:.0f} ms"))
    rows.append((f"interrupt on control while shell loops ({rounds})",
                 f"reply within {worst_intr * 1e3:.0f} ms, loop stopped within "
                 f"{worst_stop * 1e3:.0f} ms (KeyboardInterrupt), session lives"))
    return rows


def k_wait_input(k, msg_id, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = k.kc.get_iopub_msg(timeout=1)
        except Exception:
            continue
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
            return
    raise AssertionError("the cell never started")


# ---- device compiles and the disk cache ----

def dir_usage(path):
    files = [os.path.join(path, f) for f in os.listdir(path) if f.endswith(".mod")]
    return len(files), sum(os.path.getsize(f) for f in files)


def part_compiles(k, n, cache_dir, cache_limit):
    pid = kernel_pid(k)
    support.ok(k, "__global__ void warm(int *p) { p[0] = 0; }")
    before = rss(pid)
    peak_bytes = peak_files = 0
    for i in range(n):
        support.ok(k, f"__global__ void stress_k{i}(int *p) {{ p[threadIdx.x] = {i} * threadIdx.x; }}")
        if i % 10 == 9 or i == n - 1:
            files, used = dir_usage(cache_dir)
            peak_files, peak_bytes = max(peak_files, files), max(peak_bytes, used)
            assert used <= cache_limit, f"the disk cache holds {used} bytes, over its limit {cache_limit}"
    after = rss(pid)
    files, used = dir_usage(cache_dir)
    assert files < n + 1 or used <= cache_limit
    evicted = n + 1 - files
    # the first kernel, compiled n cells ago and perhaps evicted from memory
    # and disk, still describes itself (inspect reloads or says it is gone)
    r = k.request("inspect_request", {"code": "stress_k0", "cursor_pos": 9})
    assert r["content"]["status"] == "ok"
    return [(f"{n:,} distinct device-cell compiles",
             f"kernel RSS {mib(before)} → {mib(after)} MiB "
             f"(+{(after - before) / n / 1024:.1f} KiB a cell)"),
            (f"disk cache (limit {mib(cache_limit)} MiB)",
             f"peak {mib(peak_bytes)} MiB in {peak_files} modules; {evicted} evicted, "
             f"never over the limit")], (before, after, evicted)


def part_host_loops(k, n, cache_dir, cache_limit):
    """n distinct hot host loops, each compiled by the native tier: the
    host/ folder stays within the disk limit (a loop's .so, .c and log are
    one entry) and the kernel's RSS within its bound of loaded code."""
    pid = kernel_pid(k)
    host = os.path.join(cache_dir, "host")
    support.ok(k, "%host_tier always")
    before = rss(pid)
    peak_bytes = peak_entries = 0
    for i in range(n):
        m = 7 + i
        out = support.stdout_of(support.ok(k, f"{{ long s = 0; for (int i = 0; i < 3000; i++) s += i % {m}; "
                                              f"printf(\"%ld\\n\", s); }}"))
        assert out.strip() == str(sum(j % m for j in range(3000))), out
        if i % 10 == 9 or i == n - 1:
            names = os.listdir(host)
            used = sum(os.path.getsize(os.path.join(host, f)) for f in names)
            entries = len({f.split(".")[0] for f in names})
            peak_entries, peak_bytes = max(peak_entries, entries), max(peak_bytes, used)
            assert used <= cache_limit, f"the host code cache holds {used} bytes, over its limit {cache_limit}"
    after = rss(pid)
    evicted = n - len([f for f in os.listdir(host) if f.endswith(".so")])
    support.ok(k, "%host_tier auto")
    return [(f"{n:,} distinct compiled host loops",
             f"kernel RSS {mib(before)} → {mib(after)} MiB "
             f"(+{(after - before) / n / 1024:.1f} KiB a loop)"),
            (f"host code cache (limit {mib(cache_limit)} MiB)",
             f"peak {mib(peak_bytes)} MiB in {peak_entries} loops; {evicted} evicted, never over the limit")], \
        (before, after, evicted)


# ---- host cells ----

def part_host(k, n):
    pid = kernel_pid(k)
    for i in range(20):  # warm the allocator and the interpreter's pools
        support.ok(k, "{ char *p = (char *)malloc(1 << 20); memset(p, 1, 1 << 20); free(p); }")
    before = rss(pid)
    for i in range(n):
        support.ok(k, f"{{ char *p = (char *)malloc(1 << 20); memset(p, {i % 256}, 1 << 20); "
                      f"int s = p[{i % 1000}]; free(p); }}")
    after = rss(pid)
    return [(f"{n:,} host cells: malloc 1 MiB, memset, free",
             f"kernel RSS {mib(before)} → {mib(after)} MiB "
             f"(+{(after - before) / n / 1024:.1f} KiB a cell)")], (before, after)


# ---- GPU: allocate, launch, free ----

GPU_KERNEL = "__global__ void stress_fill(int *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; " \
             "if (i < n) p[i] = i; }"
GPU_CELL = "{ int *d = NULL; cudaMalloc(&d, 1 << 22); stress_fill<<<4096, 256>>>(d, 1 << 20); " \
           "cudaError_t e = cudaDeviceSynchronize(); cudaFree(d); if (e) printf(\"%s\\n\", cudaGetErrorString(e)); }"
MEMINFO = "{ size_t f = 0, t = 0; cudaMemGetInfo(&f, &t); printf(\"%zu %zu\\n\", f, t); }"


def device_free(k):
    out = support.stdout_of(support.ok(k, MEMINFO)).split()
    return int(out[0]), int(out[1])


def part_gpu(k, n):
    pid = kernel_pid(k)
    support.ok(k, GPU_KERNEL)
    for _ in range(10):  # the module loaded, the context's pools warm
        support.ok(k, GPU_CELL)
    free0, total = device_free(k)
    kb, wb = tree_rss(pid)
    t0 = time.time()
    for _ in range(n):
        msgs = support.ok(k, GPU_CELL)
        assert support.stdout_of(msgs) == "", support.stdout_of(msgs)
    dt = time.time() - t0
    free1, _ = device_free(k)
    ka, wa = tree_rss(pid)
    assert wb > 0, "no GPU worker process found under the kernel"
    return [(f"{n:,} GPU cells: cudaMalloc 4 MiB, launch, cudaFree ({dt:.0f} s)",
             f"kernel RSS {mib(kb)} → {mib(ka)} MiB, worker RSS {mib(wb)} → {mib(wa)} MiB, "
             f"device free {mib(free0)} → {mib(free1)} MiB of {mib(total)}")], \
        (kb, ka, wb, wa, free0, free1)


# ---- the driver ----

def stress_kernel(kernel_path, cache_dir, cache_limit, extra_env=None):
    env = {"XDG_CACHE_HOME": os.path.dirname(cache_dir), "ICUDA_CACHE_MAX_BYTES": str(cache_limit)}
    env.update(extra_env or {})
    return support.kernel(kernel_path, env=env)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--gpu", action="store_true", help="also the GPU part (needs a GPU)")
    ap.add_argument("--only", action="append", help="run only these parts (repeatable)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every count (0.05: a quick run)")
    ap.add_argument("--cache-limit", type=int, default=2 * MiB,
                    help="ICUDA_CACHE_MAX_BYTES for the compile part (small, so eviction happens)")
    a = ap.parse_args()
    support.KERNEL = os.path.abspath(a.kernel)
    parts = a.only or ["pipelined", "control", "compiles", "host", "loops"] + (["gpu"] if a.gpu else [])
    n = lambda x: max(1, int(x * a.scale))  # noqa: E731
    rows = []
    tmp = tempfile.mkdtemp(prefix="icuda-stress-")
    cache_dir = os.path.join(tmp, "icuda")
    with stress_kernel(a.kernel, cache_dir, a.cache_limit) as k:
        if "pipelined" in parts:
            rows += part_pipelined(k, n(10000))
        if "control" in parts:
            rows += part_control(k, n(20))
        if "compiles" in parts:
            rows += part_compiles(k, n(1000), cache_dir, a.cache_limit)[0]
        if "host" in parts:
            rows += part_host(k, n(1000))[0]
        if "loops" in parts:
            rows += part_host_loops(k, n(1000), cache_dir, a.cache_limit)[0]
        if "gpu" in parts:
            rows += part_gpu(k, n(1000))[0]
    w = max(len(r[0]) for r in rows)
    print(f"\nicuda stress ({a.kernel}, scale {a.scale})\n")
    print(f"{'what':{w}}  result")
    print(f"{'-' * w}  {'-' * 40}")
    for what, result in rows:
        print(f"{what:{w}}  {result}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
