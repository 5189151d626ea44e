"""Shutdown, restart, interrupt (message and SIGINT), control while a cell
runs, transports and the parent's death, on the mock kernel (tests/mock);
installing the kernelspec, icuda's command line and jupyter console with
the real kernel."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import support
from support import alive_and_answering, mock_kernel, timeout, types_of


def _process(k):
    """The kernel's Popen (jupyter_client 7.4 and 8: the local provisioner's)."""
    return k.km.provisioner.process


def _wait_started(k, msg_id, timeout=60):
    """Waits for the cell's execute_input: it is running now."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = k.kc.get_iopub_msg(timeout=deadline - time.time())
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
            return
    raise TimeoutError("the cell never started")


def test_shutdown_reply_and_exit_status():
    with mock_kernel() as k:
        proc = _process(k)
        k.drain_iopub()
        r = k.request("shutdown_request", {"restart": False}, channel="control")
        assert r["content"] == {"status": "ok", "restart": False}
        # also broadcast on iopub (protocol 5.4), and busy/idle around it
        msgs = k.iopub_until_idle(r["parent_header"]["msg_id"])
        assert "shutdown_reply" in types_of(msgs)
        assert proc.wait(timeout=20) == 0
        assert "shutting down" in k.stderr_text()


def test_shutdown_on_shell_too():
    with mock_kernel() as k:
        proc = _process(k)
        r = k.request("shutdown_request", {"restart": False}, channel="shell")
        assert r["content"]["status"] == "ok"
        assert proc.wait(timeout=20) == 0


def test_restart_via_kernel_manager():
    with mock_kernel() as k:
        reply, _ = k.execute("set kept 1")
        assert reply["content"]["execution_count"] == 1
        old = _process(k)
        k.km.restart_kernel(now=False)
        assert old.wait(timeout=20) == 0  # it left on its own after shutdown_request(restart)
        k.kc.wait_for_ready(timeout=60)
        assert _process(k).pid != old.pid
        reply, _ = k.execute("get kept")
        assert reply["content"]["ename"] == "NameError"  # a fresh session
        reply, _ = k.execute("print fresh")
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 2
        assert "restart requested" in k.stderr_text()


def test_interrupt_while_idle():
    with mock_kernel() as k:
        r = k.request("interrupt_request", channel="control")
        assert r["msg_type"] == "interrupt_reply" and r["content"]["status"] == "ok"
        # an interrupt answered while idle does not stop the next cell
        reply, _ = k.execute("sleep 0.05")
        assert reply["content"]["status"] == "ok", reply["content"]
        # KernelManager uses the message too (interrupt_mode "message"); it
        # waits for no reply, so nothing says when it lands: only that the
        # kernel goes on
        k.km.interrupt_kernel()
        alive_and_answering(k)


def test_sigint_does_not_kill_the_kernel():
    with mock_kernel() as k:
        for _ in range(3):
            k.km.signal_kernel(signal.SIGINT)
            time.sleep(0.02)
        alive_and_answering(k)
        reply, _ = k.execute("sleep 0.05")
        assert reply["content"]["status"] == "ok"
        # SIGINT interrupts a running cell, as interrupt_request does
        msg_id = k.kc.execute("sleep 30")
        _wait_started(k, msg_id)
        time.sleep(0.05)
        k.km.signal_kernel(signal.SIGINT)
        c = k.reply_to(msg_id, timeout=10)["content"]
        assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c


def test_control_answers_while_a_cell_runs():
    with mock_kernel() as k:
        msg_id = k.kc.execute("sleep 30")
        _wait_started(k, msg_id)
        r = k.request("kernel_info_request", channel="control", timeout=10)
        assert r["content"]["status"] == "ok"
        # the heartbeat too
        hb = k.km.connect_hb()
        try:
            hb.send(b"beat")
            assert hb.poll(5000) and hb.recv() == b"beat"
        finally:
            hb.close(linger=0)
        r = k.request("interrupt_request", channel="control", timeout=10)
        assert r["content"]["status"] == "ok"
        # the cell stops (it would sleep 30 s): KeyboardInterrupt
        reply = k.reply_to(msg_id, timeout=20)
        c = reply["content"]
        assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
        k.iopub_until_idle(msg_id)
        reply, _ = k.execute("print next")
        assert reply["content"]["status"] == "ok", reply["content"]


def test_shutdown_while_a_cell_runs():
    with mock_kernel() as k:
        proc = _process(k)
        msg_id = k.kc.execute("sleep 30")
        _wait_started(k, msg_id)
        r = k.request("shutdown_request", {"restart": False}, channel="control", timeout=10)
        assert r["content"]["status"] == "ok"
        assert proc.wait(timeout=10) == 0
        # the cell was interrupted, and answered before the kernel left
        assert k.reply_to(msg_id, timeout=5)["content"]["ename"] == "KeyboardInterrupt"


def _install(args, env_extra):
    env = dict(os.environ)
    env.update(env_extra)
    p = subprocess.run([support.PLAIN_KERNEL, "--install"] + args, capture_output=True,
                       text=True, env=env, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout


def _check_spec_dir(d):
    with open(os.path.join(d, "kernel.json")) as f:
        spec = json.load(f)
    assert spec["argv"] == [os.path.realpath(support.PLAIN_KERNEL), "-f", "{connection_file}"]
    assert spec["display_name"] == "CUDA C (icuda)"
    assert spec["language"] == "cuda"
    assert spec["interrupt_mode"] == "message"
    for logo, magic in (("logo-32x32.png", b"\x89PNG"), ("logo-64x64.png", b"\x89PNG"),
                        ("logo-svg.svg", b"<svg")):
        with open(os.path.join(d, logo), "rb") as f:
            assert f.read().startswith(magic), logo
    with open(os.path.join(d, "logo-64x64.png"), "rb") as f:
        data = f.read()
    assert data[16:24] == b"\x00\x00\x00\x40\x00\x00\x00\x40"  # IHDR 64 x 64


def test_install_user_prefix_sys_prefix():
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        out = _install(["--user"], {"JUPYTER_DATA_DIR": data})
        _check_spec_dir(os.path.join(data, "kernels", "icuda"))
        assert "Installed" in out
        _install([], {"JUPYTER_DATA_DIR": data})  # --user is the default; reinstall works
        _install(["--prefix", os.path.join(tmp, "p")], {})
        _check_spec_dir(os.path.join(tmp, "p", "share", "jupyter", "kernels", "icuda"))
        _install(["--sys-prefix"], {"VIRTUAL_ENV": os.path.join(tmp, "venv")})
        _check_spec_dir(os.path.join(tmp, "venv", "share", "jupyter", "kernels", "icuda"))
        # what `jupyter kernelspec list` reads
        code = ("import json; from jupyter_client.kernelspec import KernelSpecManager as K;"
                "print(json.dumps(K().find_kernel_specs()))")
        env = dict(os.environ, JUPYTER_PATH=os.path.join(tmp, "p", "share", "jupyter"),
                   JUPYTER_DATA_DIR=os.path.join(tmp, "empty"))
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           timeout=60)
        specs = json.loads(p.stdout)
        assert specs.get("icuda") == os.path.join(tmp, "p", "share", "jupyter", "kernels", "icuda")
        jupyter = os.path.join(os.path.dirname(sys.executable), "jupyter")
        if os.path.exists(jupyter):
            p = subprocess.run([jupyter, "kernelspec", "list"], capture_output=True, text=True,
                               env=env, timeout=60)
            assert "icuda" in p.stdout, p.stdout + p.stderr


def test_command_line():
    k = support.PLAIN_KERNEL
    p = subprocess.run([k, "--version"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 0 and p.stdout.startswith("icuda ")
    p = subprocess.run([k, "--help"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 0 and "--install" in p.stdout
    p = subprocess.run([k, "--bogus"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 2
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        f.write("{not json")
        f.flush()
        p = subprocess.run([k, "-f", f.name], capture_output=True, text=True, timeout=10)
        assert p.returncode == 1 and "[icuda] bad connection file" in p.stderr
    p = subprocess.run([k, "-f", "/nonexistent.json"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 1


@timeout(120)
def test_jupyter_console_starts_the_kernel():
    jupyter = os.path.join(os.path.dirname(sys.executable), "jupyter")
    if not os.path.exists(jupyter + "-console"):
        return  # no jupyter-console in this Python (the GPU bundle): nothing to check
    with support.kernelspec_dir() as data_dir:
        env = dict(os.environ, JUPYTER_PATH=data_dir, JUPYTER_DATA_DIR=data_dir)
        cells = "__global__ void k(int *p) { p[0] = 1; }\n"
        p = subprocess.run([jupyter, "console", "--kernel", "icuda", "--simple-prompt",
                            "--ZMQTerminalInteractiveShell.confirm_exit=False"],
                           input=cells + "exit\n", capture_output=True, text=True, env=env,
                           timeout=100)
        out = p.stdout + p.stderr
        assert "icuda" in out, out  # the banner
        assert "In [2]" in out, out  # the cell ran and the prompt came back


def test_ipc_transport_and_ipv6():
    with tempfile.TemporaryDirectory() as tmp:
        with mock_kernel(transport="ipc", ip=os.path.join(tmp, "icuda-ipc")) as k:
            reply, msgs = k.execute("print over ipc")
            assert reply["content"]["status"] == "ok"
            assert support.stdout_of(msgs) == "over ipc\n"
            assert any(n.startswith("icuda-ipc-") for n in os.listdir(tmp))
    # IPv6 (jupyter_client's launcher refuses ::1, so by hand)
    import socket
    try:
        probe = socket.socket(socket.AF_INET6)
        probe.bind(("::1", 0))
        probe.close()
    except OSError:
        return  # no IPv6 loopback here
    import zmq
    from jupyter_client.session import Session
    with tempfile.TemporaryDirectory() as tmp:
        ports = []
        for _ in range(5):
            s6 = socket.socket(socket.AF_INET6)
            s6.bind(("::1", 0))
            ports.append(s6.getsockname()[1])
            s6.close()
        cfg = dict(zip(("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"),
                       ports), ip="::1", key="0123456789abcdef", transport="tcp",
                   signature_scheme="hmac-sha256")
        fname = os.path.join(tmp, "c.json")
        with open(fname, "w") as f:
            json.dump(cfg, f)
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
        proc = subprocess.Popen([support.MOCK_KERNEL, "-f", fname], env=env,
                                stderr=subprocess.PIPE)
        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.IPV6, 1)
        sock.connect(f"tcp://[::1]:{cfg['shell_port']}")
        try:
            session = Session(key=b"0123456789abcdef")
            session.send(sock, "kernel_info_request", {})
            assert sock.poll(20000), "no reply over IPv6"
            _, reply = session.recv(sock)
            assert reply["content"]["implementation"] == "icuda-mock"
            session.send(sock, "shutdown_request", {"restart": False})
            assert proc.wait(timeout=20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            sock.close(linger=0)
            ctx.term()
            proc.stderr.close()


LAUNCHER = r"""
import os, subprocess, sys, time
env = dict(os.environ, JPY_PARENT_PID=str(os.getpid()))
p = subprocess.Popen([sys.argv[1], "-f", sys.argv[2]], env=env, stderr=open(sys.argv[3], "w"),
                     start_new_session=True)
print(p.pid, flush=True)
time.sleep(600)
"""


def _connection_file(tmp):
    import socket
    ports = []
    for _ in range(5):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
        s.close()
    cfg = dict(zip(("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"), ports),
               ip="127.0.0.1", key="a-key", transport="tcp", signature_scheme="hmac-sha256")
    fname = os.path.join(tmp, "k.json")
    with open(fname, "w") as f:
        json.dump(cfg, f)
    return fname


def _running(pid):
    """The process lives: it exists and has not exited (an orphan that has
    exited stays a zombie until whoever adopted it reaps it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@timeout(60)
def test_kernel_ends_when_the_process_that_started_it_dies():
    """As ipykernel's parent poller: JPY_PARENT_PID names the client; an
    orphaned kernel (its client SIGKILLed) shuts itself down."""
    with tempfile.TemporaryDirectory() as tmp:
        err = os.path.join(tmp, "err")
        launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, support.MOCK_KERNEL,
                                     _connection_file(tmp), err], stdout=subprocess.PIPE, text=True)
        kpid = int(launcher.stdout.readline())
        deadline = time.time() + 30
        while "ready" not in open(err).read():
            assert time.time() < deadline, "the kernel never started"
            time.sleep(0.02)
        os.kill(kpid, 0)  # alive while its parent lives
        launcher.kill()
        launcher.wait()
        deadline = time.time() + 15
        while time.time() < deadline:
            if not _running(kpid):
                break
            time.sleep(0.02)
        else:
            os.kill(kpid, signal.SIGKILL)
            raise AssertionError("the orphaned kernel is still running")
        assert "has gone: shutting down" in open(err).read()
