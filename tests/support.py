"""Helpers for the icuda tests: a private kernelspec, a running kernel with a
blocking jupyter_client, the execute round trip, one kernel shared by the
tests of a module (shared_kernel), and the small helpers that run a cell and
read its messages (ok, err, error, value, results, displays, stdout_of, ...).

Works with jupyter_client 7.4 and 8.x (the GPU machine's bundle has 7.4): only
KernelManager, BlockingKernelClient and Session APIs that both have.

conftest.py (pytest) or tests/run.py sets KERNEL, PLAIN_KERNEL and GPU; a
module run on its own reads them from ICUDA_TEST_KERNEL,
ICUDA_TEST_PLAIN_KERNEL, ICUDA_TEST_GPU.
"""
import atexit
import contextlib
import json
import os
import queue
import random
import shutil
import sys
import tempfile
import time
import unittest

KERNEL = os.environ.get("ICUDA_TEST_KERNEL", "build/asan/icuda")
PLAIN_KERNEL = os.environ.get("ICUDA_TEST_PLAIN_KERNEL", "build/icuda")
GPU = os.environ.get("ICUDA_TEST_GPU") == "1"

# Kernels started otherwise (nbclient, jupyter console) keep their history
# in a private file too, never in the user's data directory.
if "ICUDA_HISTORY" not in os.environ:
    os.environ["ICUDA_HISTORY"] = os.path.join(tempfile.gettempdir(),
                                               f"icuda-test-history-{os.getpid()}.jsonl")

SANITIZER_MARKS = ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer")

# A device cell that compiles, and one that fails to: the engine defines
# what each replies and prints.
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


# where the kernel looks for Open MPI's tools past PATH (runtime/program/program_mpi.c)
OPEN_MPI_FOLDERS = ("/usr/lib64/openmpi/bin", "/usr/local/mpi/bin", "/opt/hpcx/ompi/bin")


def open_mpi_missing():
    """None where the kernel finds mpicxx and mpirun as %%program --mpi
    looks for them, else what is missing (a skip's reason)."""
    for tool in ("mpicxx", "mpirun"):
        var = "ICUDA_" + tool.upper()
        if os.environ.get(var):
            if not os.access(os.environ[var], os.X_OK):
                return f"no Open MPI here: ${var} ({os.environ[var]}) is not an executable"
            continue
        if not (shutil.which(tool) or shutil.which(tool + ".openmpi")
                or any(os.access(os.path.join(d, tool), os.X_OK) for d in OPEN_MPI_FOLDERS)):
            return f"no Open MPI here: {tool} is neither on PATH nor in {', '.join(OPEN_MPI_FOLDERS)}"
    return None


def timeout(seconds):
    """Gives a test its own time limit (the default is 120 s: pytest.ini, tests/run.py)."""
    def mark(fn):
        fn.timeout = seconds
        return fn
    return mark


TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
CACHE_ROOT = os.path.join(os.path.dirname(TESTS_DIR), "build", "test-cache")


def module_cache_home():
    """The compile cache ($XDG_CACHE_HOME) of the test module that starts a
    kernel: build/test-cache/FOLDER/MODULE, or None outside a test module.
    The default cache keeps the 64 programs (%%program, native C++ cells)
    run last; the suite's modules, and other sessions on the machine, run
    more than that in turn, so that each was evicted before its next run
    and a run with a warm cache compiled them all again. A cache of its own
    per module holds what that module compiles from one run to the next;
    tests of the caches themselves make a fresh one (env=)."""
    f = sys._getframe(1)
    while f is not None:
        path = os.path.abspath(f.f_globals.get("__file__") or "")
        name = os.path.basename(path)
        if name.startswith("test_") and name.endswith(".py") and path.startswith(TESTS_DIR + os.sep):
            return os.path.join(CACHE_ROOT, os.path.relpath(path, TESTS_DIR)[:-3])
        f = f.f_back
    return None


@contextlib.contextmanager
def kernelspec_dir(kernel=None, env=None, address_space=None):
    """A temporary Jupyter data dir with a kernelspec 'icuda' for the kernel
    under test. Yields the kernels directory. address_space: the kernel's
    address-space limit in bytes (prlimit --as, which execs the kernel: the
    pid stays the kernel's), as on a machine with less memory."""
    kernel = os.path.abspath(kernel or KERNEL)
    tmp = tempfile.mkdtemp(prefix="icuda-test-")
    try:
        spec_dir = os.path.join(tmp, "kernels", "icuda")
        os.makedirs(spec_dir)
        spec_env = {"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
                    "UBSAN_OPTIONS": "print_stacktrace=1",
                    # each test kernel keeps its history beside its kernelspec
                    "ICUDA_HISTORY": os.path.join(tmp, "history.jsonl")}
        cache_home = module_cache_home()
        if cache_home:
            os.makedirs(cache_home, exist_ok=True)
            spec_env["XDG_CACHE_HOME"] = cache_home
        if address_space:
            # no start-up compile beside a cell that is to exhaust the
            # address space: NVRTC's warm-up would be what runs out, and
            # LLVM ends the process when its allocation fails
            spec_env["ICUDA_NO_WARMUP"] = "1"
        spec_env.update(env or {})
        with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
            limit = ["prlimit", f"--as={address_space}"] if address_space else []
            json.dump({"argv": limit + [kernel, "-f", "{connection_file}"],
                       "display_name": "CUDA C (icuda, test)", "language": "cuda",
                       "interrupt_mode": "message", "env": spec_env, "metadata": {}}, f)
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class Kernel:
    """A running icuda kernel with a blocking client (self.kc) and its stderr
    captured in a file (self.stderr_text())."""

    def __init__(self, kernel=None, env=None, address_space=None, **km_options):
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import KernelManager
        self._spec = kernelspec_dir(kernel, env, address_space)
        self.data_dir = self._spec.__enter__()
        self.kernels_dir = os.path.join(self.data_dir, "kernels")
        ksm = KernelSpecManager(kernel_dirs=[self.kernels_dir])
        self.km = KernelManager(kernel_name="icuda", kernel_spec_manager=ksm, **km_options)
        self._stderr = tempfile.NamedTemporaryFile(prefix="icuda-stderr-", suffix=".log",
                                                   delete=False)
        self.km.start_kernel(stderr=self._stderr)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.wait_ready(60)

    def wait_ready(self, timeout):
        """Returns once kernel_info is answered on shell and its idle status
        has come on iopub (so the iopub subscription is live); what came on
        iopub before it is read and dropped. jupyter_client's wait_for_ready
        checks the same but then waits for 0.2 s of silence on iopub, twice:
        a third of a kernel's start. A slow kernel (a sanitizer, a loaded
        machine) is waited for, not asked again; only a status lost to a
        subscription not yet made is asked for again, each wait twice the
        last."""
        deadline = time.time() + timeout
        idle_wait = 0.1
        msg_id = self.kc.kernel_info()
        while True:
            try:
                reply = self.reply_to(msg_id, "shell", timeout=1)
                self.iopub_until_idle(msg_id, timeout=idle_wait)
            except TimeoutError as e:
                if not self.km.is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info") from e
                if time.time() > deadline:
                    raise RuntimeError(f"Kernel didn't respond in {timeout} s") from e
                if "idle status" in str(e):
                    idle_wait = min(2 * idle_wait, 4)
                    msg_id = self.kc.kernel_info()
                continue
            self.kc._handle_kernel_info_reply(reply)
            return

    # -- lifecycle --

    def stderr_text(self, start=0):
        """The kernel's stderr so far, from byte offset start."""
        if not self._stderr.closed:
            self._stderr.flush()
        with open(self._stderr.name, "rb") as f:
            f.seek(start)
            return f.read().decode(errors="replace")

    def stderr_size(self):
        """How many bytes the kernel has written to stderr so far."""
        try:
            return os.path.getsize(self._stderr.name)
        except OSError:
            return 0

    def check_sanitizers(self, start=0):
        """No sanitizer report in the kernel's stderr (from byte offset start)."""
        text = self.stderr_text(start)
        for mark in SANITIZER_MARKS:
            assert mark not in text, f"kernel stderr reports '{mark}':\n{text[-6000:]}"

    def is_alive(self):
        return self.km.is_alive()

    def pid(self):
        """The kernel process's id (jupyter_client 7.4 and 8: the local provisioner's Popen)."""
        prov = getattr(self.km, "provisioner", None)
        proc = getattr(prov, "process", None) if prov else None
        return (proc or self.km.kernel).pid

    def memory(self, field="VmRSS"):
        """A size field of the kernel's /proc status, in bytes: VmRSS (resident
        now), VmHWM (the peak since start or since reset_peak_memory)."""
        with open(f"/proc/{self.pid()}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
        raise KeyError(field)

    def reset_peak_memory(self):
        """VmHWM starts again from the resident size now."""
        with open(f"/proc/{self.pid()}/clear_refs", "w") as f:
            f.write("5")

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

    def started(self, msg_id, timeout=120):
        """Waits for the cell's execute_input: the kernel has taken the cell
        and an interrupt from now on stops it (one sent before the cell
        starts is a no-op, as an interrupt of an idle kernel is)."""
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError(f"the cell {msg_id} did not start in {timeout} s")
            try:
                m = self.kc.get_iopub_msg(timeout=left)
            except queue.Empty:
                continue
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
                return

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

    def drain_replies(self):
        """Drops the shell and control replies waiting in the client."""
        for get in (self.kc.get_shell_msg, self.kc.get_control_msg):
            while True:
                try:
                    get(timeout=0.001)
                except queue.Empty:
                    break


@contextlib.contextmanager
def kernel(path=None, env=None, check=True, address_space=None, **km_options):
    """A kernel for the length of a with-block; at the end it is shut down and
    its stderr checked for sanitizer reports. address_space: as for
    kernelspec_dir (AddressSanitizer's kernel cannot run under one: use
    PLAIN_KERNEL). km_options go to KernelManager (e.g. transport="ipc")."""
    k = Kernel(path, env, address_space, **km_options)
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


# -- one kernel for the tests of a module --
#
# Starting a kernel under AddressSanitizer costs about a second; most tests
# need a session with nothing defined, not a new process. shared_kernel()
# gives each test the module's kernel after %reset (what cells defined is
# forgotten, host and device buffers freed) with the %nvrtc options cleared,
# the host tier set back as the kernel started, and every message of the
# tests before it read and dropped. What %reset keeps stays for the module:
# the execution count and history, %%header files, environment variables
# set with %env, the compile caches, the GPU worker and its device-wide
# settings. A test that depends on a new process (start-up, shutdown,
# restart, crashes, faults and interrupts that restart the GPU worker,
# kernel options or env=, execution counts) uses kernel(): docs/testing.md
# lists them.
#
# The kernel is shut down when the module's tests are done (conftest.py and
# tests/run.py call close_shared_kernel()), when a test of another module or
# with other options asks for one, and at exit.

RESET_TIMEOUT = 30
_shared = None  # the running _Shared, or None


class _Shared:
    def __init__(self, key, path, env, km_options):
        self.key = key
        self.k = Kernel(path, env, **km_options)
        # how the host tier was at the start ("%host_tier auto -O2"), so that
        # each test starts with it whatever the one before chose
        try:
            reply, msgs = self.k.execute("%host_tier", store_history=False, timeout=RESET_TIMEOUT)
            said = stdout_of(msgs)  # "host tier: auto, compiled code built with -O2"
            assert reply["content"]["status"] == "ok" and said.startswith("host tier: "), (reply["content"], said)
        except BaseException:
            self.k.close()
            raise
        mode = said.split(":", 1)[1].split(",")[0].strip()
        opt = said.rstrip().rsplit(" ", 1)[-1]
        self.reset_cell = f"%reset -f\n%nvrtc --reset\n%host_tier {mode} {opt}"
        self.used = False

    def reset(self):
        """The session made new for the next test; False where the kernel
        is gone or does not answer (it is started again)."""
        k = self.k
        if not k.is_alive():
            return False
        if self.used:
            try:
                reply, _ = k.execute(self.reset_cell, silent=True, store_history=False, timeout=RESET_TIMEOUT)
            except TimeoutError:
                return False
            if reply["content"]["status"] != "ok":
                return False
        # nothing of an earlier test (or of the kernel's start) is left to read
        k.drain_iopub(0.02)
        k.drain_replies()
        self.used = True
        return True

    def close(self, check=True):
        """Shuts the kernel down; its stderr file goes unless a check finds
        a report (the AssertionError says what it holds)."""
        self.k.close()
        if check:
            self.k.check_sanitizers()
        self.k.remove_stderr_file()


def close_shared_kernel(check=True):
    """Shuts the shared kernel down, if one runs, and checks its stderr for
    sanitizer reports (an AssertionError names them). conftest.py calls it
    after the last test of each module, tests/run.py likewise."""
    global _shared
    s, _shared = _shared, None
    if s is not None:
        s.close(check)


atexit.register(close_shared_kernel, False)


class shared_kernel:
    """The module's shared kernel as a fresh session, for a with-block:

        with shared_kernel() as k:
            ok(k, "int x = 1;")

    Like kernel(): same arguments, and at the block's end the kernel's
    stderr (what this test made it write) is checked for sanitizer reports.
    Tests asking for other arguments (path, env, km_options) get a kernel
    of their own: the one running is shut down first. A kernel that died
    or does not answer %reset is started again; after a test that failed,
    the next one gets a new kernel too."""

    def __init__(self, path=None, env=None, check=True, **km_options):
        self.path, self.env, self.check, self.km_options = path, env, check, km_options
        # the module that asks: a test of another module never shares its kernel
        self.owner = sys._getframe(1).f_globals.get("__file__")
        self.key = (os.path.abspath(path or KERNEL), json.dumps(env or {}, sort_keys=True),
                    json.dumps(km_options, sort_keys=True, default=str), self.owner)

    def __enter__(self):
        global _shared
        if _shared is not None and (_shared.key != self.key or not _shared.reset()):
            close_shared_kernel()
        if _shared is None:
            _shared = _Shared(self.key, self.path, self.env, self.km_options)
            _shared.reset()
        self.s = _shared
        self.start = self.s.k.stderr_size()
        return self.s.k

    def __exit__(self, etype, value, tb):
        global _shared
        s = self.s
        failed = etype is not None and not issubclass(etype, unittest.SkipTest)
        if failed and _shared is s:
            # what a failed test left running or half-said is no next test's
            # business; its stderr file stays, as kernel() leaves it
            _shared = None
            s.k.close()
        if self.check:
            try:
                s.k.check_sanitizers(self.start)
            except AssertionError:
                if _shared is s:
                    _shared = None
                    s.k.close()
                raise
        return False


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


def run(k, code, t=120):
    """Runs a cell: (its execute_reply's content, its iopub messages)."""
    reply, msgs = k.execute(code, timeout=t)
    return reply["content"], msgs


def ok(k, code, t=120):
    """Runs a cell that must succeed; its messages."""
    reply, msgs = k.execute(code, timeout=t)
    assert reply["content"]["status"] == "ok", (reply["content"], stdout_of(msgs, "stderr"))
    return msgs


def err(k, code, t=120):
    """Runs a cell that must fail; its (ename, evalue)."""
    c = error(k, code, t)
    return c["ename"], c["evalue"]


def error(k, code, t=120):
    """Runs a cell that must fail; its execute_reply's content (ename,
    evalue, traceback, execution_count)."""
    reply, msgs = k.execute(code, timeout=t)
    c = reply["content"]
    assert c["status"] == "error", (c, stdout_of(msgs))
    return c


def ok_streams(k, code, t=120):
    """Runs a cell that must succeed; (its stdout, its stderr): what a
    program (%%program) printed on each."""
    c, msgs = run(k, code, t)
    out, err = stdout_of(msgs), stdout_of(msgs, "stderr")
    assert c["status"] == "ok", (c, out, err)
    return out, err


def error_streams(k, code, t=120):
    """Runs a cell that must fail; (its execute_reply's content, its stdout,
    its stderr)."""
    c, msgs = run(k, code, t)
    out, err = stdout_of(msgs), stdout_of(msgs, "stderr")
    assert c["status"] == "error", (c, out, err)
    return c, out, err


def results(msgs, kind="execute_result"):
    """The text/plain of each execute_result (or of each message of kind)."""
    return [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == kind]


def result_of(msgs):
    """The text/plain of the cell's execute_result, or None."""
    r = results(msgs)
    return r[0] if r else None


def value(k, expr, t=120):
    """Runs a cell that must succeed with one execute_result; its text/plain
    ("(int) 3")."""
    msgs = ok(k, expr, t)
    res = results(msgs)
    assert len(res) == 1, msgs
    return res[0]


def displays(msgs):
    """The data bundles of the display_data messages."""
    return [m["content"]["data"] for m in msgs if m["msg_type"] == "display_data"]


def count_of(msgs):
    """The execution count of the cell whose messages these are (its
    execute_input's): "In [N]" in what the kernel says of that cell."""
    counts = [m["content"]["execution_count"] for m in msgs if m["msg_type"] == "execute_input"]
    assert len(counts) == 1, types_of(msgs)
    return counts[0]


# -- the mock kernel: the protocol layer over a mock language, no CUDA --

# conftest.py or tests/run.py sets it (--mock-kernel), as KERNEL
MOCK_KERNEL = os.environ.get("ICUDA_TEST_MOCK_KERNEL", "build/icuda-mock")


def mock_kernel(env=None, check=True, **km_options):
    """kernel() of MOCK_KERNEL: kernel/ over the mock language of
    tests/mock/mock_language.c (its commands are listed there)."""
    return kernel(MOCK_KERNEL, env, check, **km_options)
