"""A Jupyter Kernel Gateway or Enterprise Gateway serving the kernelspec
that `icuda --install` writes, as a cluster's GPU node would, and a small
client of its REST and websocket API. The gateway runs on a free port of
127.0.0.1 with a token, in a folder of its own (runtime files, kernelspec,
history); stop() ends it, and with it every kernel it started, whatever the
test did. Kernel Gateway runs from the test venv (requirements.txt);
Enterprise Gateway, whose jupyter_client (< 7) conflicts with the rest, from
.venv-eg (requirements-enterprise-gateway.txt; `make test` makes it).
shared(kind) is the one gateway the tests of a module share."""
import atexit
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
import uuid

import support

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "icuda-gateway-test"
KINDS = {
    "kernel": ("jupyter-kernelgateway", "KernelGatewayApp"),
    "enterprise": ("jupyter-enterprisegateway", "EnterpriseGatewayApp"),
}
# JupyterLab's --gateway-url lists the gateway's kernels, which a gateway
# forbids by default: the line docs/remote-gpu.md gives for it
LIST_KERNELS = {
    "kernel": "--JupyterWebsocketPersonality.list_kernels=True",
    "enterprise": "--EnterpriseGatewayApp.list_kernels=True",
}
READY = re.compile(r"icuda \S+ ready \(.*pid (\d+)\)")


def executable(kind):
    """The gateway's command, or SkipTest saying how to install it."""
    name = KINDS[kind][0]
    if kind == "kernel":
        path = os.path.join(os.path.dirname(sys.executable), name)
        how = "make venv"
    else:
        path = os.environ.get("ICUDA_ENTERPRISE_GATEWAY", os.path.join(ROOT, ".venv-eg", "bin", name))
        how = "make venv-eg"
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"no {name} at {path} ({how})")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    # the server ends with the test process even if that is killed outright
    # (no atexit then); its kernels end with it (they watch their parent)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def spawn(argv, log_path, env):
    """A Jupyter web server, in a process group of its own, its output in log_path."""
    with open(log_path, "w") as log:
        return subprocess.Popen(argv, env=env, cwd=os.path.dirname(log_path), stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, preexec_fn=_die_with_parent)


def wait_up(proc, url, log_path, deadline_s=90, token=TOKEN):
    """Waits until url answers; ends the server and says why if it never does."""
    deadline = time.time() + deadline_s
    while True:
        try:
            req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
            urllib.request.urlopen(req, timeout=2).read()
            return proc
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                end(proc)
                with open(log_path, errors="replace") as f:
                    raise AssertionError(f"{proc.args[0]} did not start:\n{f.read()[-4000:]}")
            time.sleep(0.3)


def end(proc, grace=20):
    """SIGTERM (a gateway shuts its kernels down on it), then SIGKILL."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            pass
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(10)


def api(url, method, path, body=None, timeout=60, token=TOKEN):
    """One REST call to a Jupyter server at url, with the token unless it is
    None; (status, decoded JSON or None), or (status, the error's text)."""
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"token {token}"
    req = urllib.request.Request(f"{url}{path}", data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read()
            return r.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for every purpose here
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Gateway:
    """A gateway of the given kind serving icuda's installed kernelspec."""

    def __init__(self, kind, kernel=None):
        exe = executable(kind)
        self.kind = kind
        self.work = tempfile.mkdtemp(prefix=f"icuda-{kind}-gateway-")
        self.proc = None
        try:
            self._start(exe, kind, os.path.abspath(kernel or support.PLAIN_KERNEL))
        except BaseException:
            self.stop()
            raise

    def _start(self, exe, kind, kernel):
        prefix = os.path.join(self.work, "prefix")
        # the kernelspec exactly as a user installs it
        r = subprocess.run([kernel, "--install", "--prefix", prefix], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
        self.spec_dir = os.path.join(prefix, "share", "jupyter", "kernels", "icuda")
        env = dict(os.environ, JUPYTER_PATH=os.path.join(prefix, "share", "jupyter"),
                   JUPYTER_DATA_DIR=os.path.join(self.work, "data"),
                   JUPYTER_CONFIG_DIR=os.path.join(self.work, "config"),
                   JUPYTER_RUNTIME_DIR=os.path.join(self.work, "runtime"),
                   ICUDA_HISTORY=os.path.join(self.work, "history.jsonl"))
        # the token as docs/remote-gpu.md gives it: in the environment, where
        # other users' ps does not show it
        env["KG_AUTH_TOKEN" if kind == "kernel" else "EG_AUTH_TOKEN"] = TOKEN
        if kind == "enterprise" and os.geteuid() == 0:
            # Enterprise Gateway refuses kernels to root by default; CI runs as root
            env["EG_UNAUTHORIZED_USERS"] = "icuda-nobody"
        app = KINDS[kind][1]
        self.log_path = os.path.join(self.work, "gateway.log")
        for attempt in range(3):
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            try:
                self.proc = spawn([exe, f"--{app}.ip=127.0.0.1", f"--{app}.port={self.port}",
                                   f"--{app}.port_retries=0", LIST_KERNELS[kind]],
                                  self.log_path, env)
                wait_up(self.proc, f"{self.url}/api/kernelspecs", self.log_path)
                return
            except AssertionError:
                # another process took the port between its choice and the bind
                if attempt == 2 or "already in use" not in open(self.log_path).read():
                    raise

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def kernel_pids(self):
        """The pids of the kernels it started, from their "ready" lines."""
        return [int(p) for p in READY.findall(self.log())]

    def api(self, method, path, body=None, timeout=60, token=TOKEN):
        """One REST call; (status, decoded JSON or None)."""
        return api(self.url, method, path, body, timeout, token)

    def stop(self):
        pids = []
        try:
            if self.proc is not None:
                pids = self.kernel_pids()
                end(self.proc)
        finally:
            # a kernel the gateway could not end, ended here
            deadline = time.time() + 10
            while any(alive(p) for p in pids) and time.time() < deadline:
                time.sleep(0.2)
            for p in pids:
                if alive(p):
                    os.kill(p, signal.SIGKILL)
            shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


_shared = {}
_failed = {}  # kind: why it did not start, said again at once to the next test


def shared(kind):
    """The gateway of this kind that a module's tests share, started on
    first use (again if it died); a gateway of the other kind is stopped
    first, and the last one at exit."""
    gw = _shared.get(kind)
    if gw is not None and gw.proc.poll() is None:
        return gw
    if kind in _failed:
        raise AssertionError(f"the {kind} gateway did not start (an earlier test's attempt):\n{_failed[kind]}")
    stop_shared()
    try:
        _shared[kind] = Gateway(kind)
    except AssertionError as e:
        _failed[kind] = str(e)
        raise
    return _shared[kind]


def stop_shared():
    while _shared:
        _shared.popitem()[1].stop()


atexit.register(stop_shared)


class RemoteKernel:
    """An icuda kernel started through the gateway's REST API, with its
    websocket (ch) and its process id (from its "ready" line in the log)."""

    def __init__(self, gw):
        self.gw = gw
        self.ch = None
        self.pid = None
        gw.latest_kernel = self
        before = len(gw.kernel_pids())
        status, k = gw.api("POST", "/api/kernels", {"name": "icuda"})
        assert status == 201, k
        self.id = k["id"]
        try:
            self.pid = wait_new_kernel(gw, before)
            self.ch = Channels(gw, self.id)
        except BaseException:
            self.close()
            raise

    def close(self):
        if self.ch is not None:
            self.ch.close()
        return self.gw.api("DELETE", f"/api/kernels/{self.id}")

    def state(self):
        """What the kernel process is doing now: its threads' stacks (gdb,
        where the machine has it), else each thread's kernel wait channel."""
        if not self.pid or not os.path.exists(f"/proc/{self.pid}"):
            return f"kernel pid {self.pid}: not running"
        if shutil.which("gdb"):
            try:
                r = subprocess.run(["gdb", "-p", str(self.pid), "-batch", "-nx", "-ex", "thread apply all bt 12"],
                                   capture_output=True, text=True, timeout=60)
                return "\n".join(l[:160] for l in r.stdout.splitlines() if l.startswith(("#", "Thread")))
            except (OSError, subprocess.TimeoutExpired) as e:
                return f"gdb: {e}"
        lines = []
        for t in sorted(os.listdir(f"/proc/{self.pid}/task")):
            try:
                with open(f"/proc/{self.pid}/task/{t}/wchan") as f:
                    lines.append(f"thread {t}: {f.read()}")
            except OSError:
                pass
        return "\n".join(lines)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def wait_for(cond, what, timeout=30):
    deadline = time.time() + timeout
    while not cond():
        assert time.time() < deadline, what
        time.sleep(0.2)


def wait_new_kernel(gw, before, timeout=60):
    """The pid of the kernel whose "ready" line follows the before-th."""
    wait_for(lambda: len(gw.kernel_pids()) > before,
             f"no new kernel's ready line in the gateway's log:\n{gw.log()[-3000:]}", timeout)
    return gw.kernel_pids()[before]


class Channels:
    """A kernel's websocket (/api/kernels/ID/channels) on a gateway: the
    Jupyter messages as JSON, each with its channel."""

    def __init__(self, gw, kernel_id):
        import websocket
        self.ws = websocket.create_connection(
            f"ws://127.0.0.1:{gw.port}/api/kernels/{kernel_id}/channels",
            header=[f"Authorization: token {TOKEN}"], timeout=60)
        self.session = uuid.uuid4().hex

    def close(self):
        self.ws.close()

    def send(self, channel, msg_type, content):
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": msg_type, "session": self.session,
                       "username": "test", "version": "5.3",
                       "date": time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())},
            "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
            "buffers": []}))
        return msg_id

    def recv(self, deadline):
        import websocket
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("no message from the gateway in time")
            self.ws.settimeout(left)
            try:
                return json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                continue

    def request(self, msg_type, content, channel="shell", timeout=60, on_busy=None):
        """Sends a request and collects what answers it: (the reply's
        content, the iopub messages of the request until it is idle)."""
        msg_id = self.send(channel, msg_type, content)
        deadline = time.time() + timeout
        reply, iopub, idle = None, [], False
        while reply is None or not idle:
            m = self.recv(deadline)
            if m.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if m["channel"] == "iopub":
                iopub.append(m)
                state = m["content"].get("execution_state") if m["msg_type"] == "status" else None
                if state == "busy" and on_busy:
                    on_busy()
                idle = idle or state == "idle"
            elif m["channel"] == channel:
                reply = m["content"]
        return reply, iopub

    def execute(self, code, timeout=60, on_busy=None):
        return self.request("execute_request", {"code": code, "silent": False, "store_history": True,
                                                "user_expressions": {}, "allow_stdin": False,
                                                "stop_on_error": True}, timeout=timeout, on_busy=on_busy)


def stdout(iopub):
    return "".join(m["content"]["text"] for m in iopub
                   if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")


def data_of(iopub, msg_type):
    return [m["content"]["data"] for m in iopub if m["msg_type"] == msg_type]
