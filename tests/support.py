"""Helpers for the icuda tests: a private kernelspec, a running kernel with a
blocking jupyter_client, and the execute round trip.

Works with jupyter_client 7.4 and 8.x (the GPU machine's bundle has 7.4): only
KernelManager, BlockingKernelClient and Session APIs that both have.

conftest.py (pytest) or tests/run.py sets KERNEL, PLAIN_KERNEL and GPU; a
module run on its own reads them from ICUDA_TEST_KERNEL,
ICUDA_TEST_PLAIN_KERNEL, ICUDA_TEST_GPU.
"""
import contextlib
import json
import os
import queue
import random
import shutil
import tempfile
import time

KERNEL = os.environ.get("ICUDA_TEST_KERNEL", "build/asan/icuda")
PLAIN_KERNEL = os.environ.get("ICUDA_TEST_PLAIN_KERNEL", "build/icuda")
GPU = os.environ.get("ICUDA_TEST_GPU") == "1"

# Kernels started otherwise (nbclient, jupyter console) keep their history
# in a private file too, never in the user's data directory.
if "ICUDA_HISTORY" not in os.environ:
    os.environ["ICUDA_HISTORY"] = os.path.join(tempfile.gettempdir(),
                                               f"icuda-test-history-{os.getpid()}.jsonl")

SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")

# Cells whose behaviour the engine defines (DESIGN §2, §4).
DEVICE_CELL = "__global__ void k(int *p) { p[0] = 1; }"
BAD_DEVICE_CELL = "__global__ void k(int *p) { p[0] = ; }"


def slow_cell():
    """A device cell that takes seconds to compile (template-heavy CUB), made
    unique so that no compile cache answers it."""
    salt = random.getrandbits(48)
    return f"""// sleep: slow to compile, so that control can be tested while it runs
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#define SALT_{salt} 1
template <int B, int I>
__global__ void slow_sort_{salt}(int *d) {{
    typedef cub::BlockRadixSort<int, B, I> Sort;
    typedef cub::BlockReduce<int, B> Reduce;
    typedef cub::BlockScan<int, B> Scan;
    __shared__ union {{ typename Sort::TempStorage s; typename Reduce::TempStorage r;
                       typename Scan::TempStorage c; }} t;
    int k[I];
    for (int i = 0; i < I; i++) k[i] = d[threadIdx.x * I + i];
    Sort(t.s).Sort(k);
    __syncthreads();
    int x = Reduce(t.r).Sum(k[0]);
    __syncthreads();
    Scan(t.c).ExclusiveSum(k, k);
    d[threadIdx.x] = x + k[0];
}}
template __global__ void slow_sort_{salt}<128, 4>(int *);
template __global__ void slow_sort_{salt}<256, 8>(int *);
template __global__ void slow_sort_{salt}<512, 4>(int *);
template __global__ void slow_sort_{salt}<64, 16>(int *);
template __global__ void slow_sort_{salt}<1024, 2>(int *);
"""


def needs_gpu(fn):
    """Marks a test that runs only with --gpu."""
    fn.needs_gpu = True
    return fn


def timeout(seconds):
    """Gives a test its own time limit (the default is 120 s: pytest.ini, tests/run.py)."""
    def mark(fn):
        fn.timeout = seconds
        return fn
    return mark


@contextlib.contextmanager
def kernelspec_dir(kernel=None, env=None):
    """A temporary Jupyter data dir with a kernelspec 'icuda' for the kernel
    under test. Yields the kernels directory."""
    kernel = os.path.abspath(kernel or KERNEL)
    tmp = tempfile.mkdtemp(prefix="icuda-test-")
    try:
        spec_dir = os.path.join(tmp, "kernels", "icuda")
        os.makedirs(spec_dir)
        spec_env = {"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
                    "UBSAN_OPTIONS": "print_stacktrace=1",
                    # each test kernel keeps its history beside its kernelspec
                    "ICUDA_HISTORY": os.path.join(tmp, "history.jsonl")}
        spec_env.update(env or {})
        with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
            json.dump({"argv": [kernel, "-f", "{connection_file}"],
                       "display_name": "CUDA C (icuda, test)", "language": "cuda",
                       "interrupt_mode": "message", "env": spec_env, "metadata": {}}, f)
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class Kernel:
    """A running icuda kernel with a blocking client (self.kc) and its stderr
    captured in a file (self.stderr_text())."""

    def __init__(self, kernel=None, env=None, **km_options):
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager
        self._spec = kernelspec_dir(kernel, env)
        self.data_dir = self._spec.__enter__()
        self.kernels_dir = os.path.join(self.data_dir, "kernels")
        ksm = KernelSpecManager(kernel_dirs=[self.kernels_dir])
        self.km = KernelManager(kernel_name="icuda", kernel_spec_manager=ksm, **km_options)
        self._stderr = tempfile.NamedTemporaryFile(prefix="icuda-stderr-", suffix=".log",
                                                   delete=False)
        self.km.start_kernel(stderr=self._stderr)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    # -- lifecycle --

    def stderr_text(self):
        if not self._stderr.closed:
            self._stderr.flush()
        with open(self._stderr.name, errors="replace") as f:
            return f.read()

    def check_sanitizers(self):
        text = self.stderr_text()
        for mark in SANITIZER_MARKS:
            assert mark not in text, f"kernel stderr reports '{mark}':\n{text[-6000:]}"

    def is_alive(self):
        return self.km.is_alive()

    def close(self):
        try:
            self.kc.stop_channels()
        except Exception:
            pass
        try:
            if self.km.has_kernel:
                self.km.shutdown_kernel(now=False)
        except Exception:
            try:
                self.km.shutdown_kernel(now=True)
            except Exception:
                pass
        self._spec.__exit__(None, None, None)
        self._stderr.close()

    def remove_stderr_file(self):
        try:
            os.unlink(self._stderr.name)
        except OSError:
            pass

    # -- messages --

    def request(self, msg_type, content=None, channel="shell", timeout=30):
        """Sends a request and returns its reply (by parent msg_id)."""
        ch = self.kc.shell_channel if channel == "shell" else self.kc.control_channel
        msg = self.kc.session.msg(msg_type, content or {})
        ch.send(msg)
        return self.reply_to(msg["header"]["msg_id"], channel, timeout)

    def reply_to(self, msg_id, channel="shell", timeout=30):
        deadline = time.time() + timeout
        get = self.kc.get_shell_msg if channel == "shell" else self.kc.get_control_msg
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError(f"no {channel} reply to {msg_id} in {timeout} s")
            try:
                m = get(timeout=left)
            except queue.Empty:
                continue
            if m["parent_header"].get("msg_id") == msg_id:
                return m

    def iopub_until_idle(self, msg_id, timeout=30):
        """The iopub messages whose parent is msg_id, through its idle status."""
        out = []
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError(f"no idle status for {msg_id} in {timeout} s; got "
                                   f"{[m['msg_type'] for m in out]}")
            try:
                m = self.kc.get_iopub_msg(timeout=left)
            except queue.Empty:
                continue
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            out.append(m)
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                return out

    def execute(self, code, timeout=60, **kw):
        """Runs a cell: (execute_reply, iopub messages of it through idle)."""
        msg_id = self.kc.execute(code, **kw)
        reply = self.reply_to(msg_id, "shell", timeout)
        msgs = self.iopub_until_idle(msg_id, timeout)
        return reply, msgs

    def drain_iopub(self, seconds=0.2):
        msgs = []
        while True:
            try:
                msgs.append(self.kc.get_iopub_msg(timeout=seconds))
            except queue.Empty:
                return msgs


@contextlib.contextmanager
def kernel(path=None, env=None, check=True, **km_options):
    """A kernel for the length of a with-block; at the end it is shut down and
    its stderr checked for sanitizer reports. km_options go to KernelManager
    (e.g. transport="ipc")."""
    k = Kernel(path, env, **km_options)
    ok = False
    try:
        yield k
        ok = True
    finally:
        k.close()
        if check:
            try:
                k.check_sanitizers()
            finally:
                if ok:
                    k.remove_stderr_file()


def stdout_of(msgs, name="stdout"):
    return "".join(m["content"]["text"] for m in msgs
                   if m["msg_type"] == "stream" and m["content"]["name"] == name)


def types_of(msgs):
    return [m["msg_type"] for m in msgs]


# -- raw sockets: what a client library would never send --

class Raw:
    """A raw DEALER socket on a kernel's shell or control port, signing with
    the kernel's key through the client's Session (or not at all)."""

    def __init__(self, k, channel="shell"):
        self.k = k
        self.session = k.kc.session
        self.sock = (k.km.connect_shell() if channel == "shell" else k.km.connect_control())

    def close(self):
        self.sock.close(linger=0)

    def frames(self, msg_type, content=None, header=None):
        """A correctly signed message as frames (header overrides fields)."""
        msg = self.session.msg(msg_type, content or {})
        if header is not None:
            msg["header"] = header
        return self.session.serialize(msg), msg

    def sign(self, header, parent=b"{}", metadata=b"{}", content=b"{}"):
        """Frames from raw byte parts, signed."""
        parts = [header, parent, metadata, content]
        return [b"<IDS|MSG>", self.session.sign(parts)] + parts

    def send(self, frames):
        self.sock.send_multipart(frames)

    def recv(self, timeout=5.0):
        """The next message (deserialised), or None after timeout seconds."""
        if not self.sock.poll(int(timeout * 1000)):
            return None
        frames = self.sock.recv_multipart()
        _, rest = self.session.feed_identities(frames)
        return self.session.deserialize(rest)


def alive_and_answering(k, timeout=30):
    """The kernel still runs and answers kernel_info on shell."""
    assert k.is_alive(), "kernel process died"
    r = k.request("kernel_info_request", timeout=timeout)
    assert r["content"]["status"] == "ok"
    return r


def page_text(reply):
    """The text/plain of an execute_reply's "page" payload (help: %help NAME,
    %NAME?, NAME?), or ""."""
    return "".join(p["data"].get("text/plain", "") for p in reply["content"].get("payload", [])
                   if p.get("source") == "page")


def help_of(k, code):
    """Runs a help cell; its page text (it must succeed and print nothing)."""
    reply, msgs = k.execute(code)
    assert reply["content"]["status"] == "ok", reply["content"]
    assert stdout_of(msgs) == "", stdout_of(msgs)
    return page_text(reply)


def ok(k, code):
    """Runs a cell that must succeed; its messages."""
    reply, msgs = k.execute(code)
    assert reply["content"]["status"] == "ok", reply["content"]
    return msgs


def err(k, code):
    """Runs a cell that must fail; its (ename, evalue)."""
    reply, _ = k.execute(code)
    c = reply["content"]
    assert c["status"] == "error", c
    return c["ename"], c["evalue"]


# -- the mock kernel: the protocol layer over a mock language, no CUDA --

# conftest.py or tests/run.py sets it (--mock-kernel), as KERNEL
MOCK_KERNEL = os.environ.get("ICUDA_TEST_MOCK_KERNEL", "build/icuda-mock")


def mock_kernel(env=None, check=True, **km_options):
    """kernel() of MOCK_KERNEL: kernel/ over the mock language of
    tests/mock/mock_language.c (its commands are listed there)."""
    return kernel(MOCK_KERNEL, env, check, **km_options)
