"""Shutdown, restart, interrupt (message and SIGINT), control while a cell
runs, and installing the kernelspec."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import support
from support import (DEVICE_CELL, alive_and_answering, kernel, slow_cell, timeout, types_of)


def _process(k):
    """The kernel's Popen (jupyter_client 7.4 and 8: the local provisioner's)."""
    return k.km.provisioner.process


def test_shutdown_reply_and_exit_status():
    with kernel() as k:
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
    with kernel() as k:
        proc = _process(k)
        r = k.request("shutdown_request", {"restart": False}, channel="shell")
        assert r["content"]["status"] == "ok"
        assert proc.wait(timeout=20) == 0


def test_restart_via_kernel_manager():
    with kernel() as k:
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["execution_count"] == 1
        old = _process(k)
        k.km.restart_kernel(now=False)
        assert old.wait(timeout=20) == 0  # it left on its own after shutdown_request(restart)
        k.kc.wait_for_ready(timeout=60)
        assert _process(k).pid != old.pid
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 1  # a fresh session
        assert "restart requested" in k.stderr_text()


def test_interrupt_while_idle():
    with kernel() as k:
        r = k.request("interrupt_request", channel="control")
        assert r["msg_type"] == "interrupt_reply" and r["content"]["status"] == "ok"
        # KernelManager uses the message too (interrupt_mode "message")
        k.km.interrupt_kernel()
        # an interrupt sent while idle does not stop the next cell
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok"


def test_sigint_does_not_kill_the_kernel():
    with kernel() as k:
        for _ in range(3):
            k.km.signal_kernel(signal.SIGINT)
            time.sleep(0.1)
        time.sleep(0.3)
        alive_and_answering(k)
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok"


def _wait_started(k, msg_id, timeout=60):
    """Waits for the cell's execute_input: it is running now."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = k.kc.get_iopub_msg(timeout=deadline - time.time())
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "execute_input":
            return
    raise TimeoutError("the cell never started")


@timeout(240)
def test_control_answers_while_a_cell_runs():
    with kernel() as k:
        msg_id = k.kc.execute(slow_cell())
        _wait_started(k, msg_id)
        t0 = time.time()
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
        assert time.time() - t0 < 10
        # the cell ends (interrupted, or finished before the interrupt landed)
        reply = k.reply_to(msg_id, timeout=200)
        c = reply["content"]
        assert c["status"] == "ok" or c["ename"] == "KeyboardInterrupt", c
        k.iopub_until_idle(msg_id, timeout=60)
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok", reply["content"]


@timeout(240)
def test_shutdown_while_a_cell_runs():
    with kernel() as k:
        proc = _process(k)
        msg_id = k.kc.execute(slow_cell())
        _wait_started(k, msg_id)
        r = k.request("shutdown_request", {"restart": False}, channel="control", timeout=10)
        assert r["content"]["status"] == "ok"
        assert proc.wait(timeout=30) == 0


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
        with kernel(transport="ipc", ip=os.path.join(tmp, "icuda-ipc")) as k:
            reply, _ = k.execute(DEVICE_CELL)
            assert reply["content"]["status"] == "ok"
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
        proc = subprocess.Popen([support.KERNEL, "-f", fname], env=env,
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
            assert reply["content"]["implementation"] == "icuda"
            session.send(sock, "shutdown_request", {"restart": False})
            assert proc.wait(timeout=20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            sock.close(linger=0)
            ctx.term()
            proc.stderr.close()


LAUNCHER = r"""
import json, os, subprocess, sys, time
from jupyter_client.connect import write_connection_file
cf, _ = write_connection_file(os.path.join(sys.argv[2], "k.json"), ip="127.0.0.1")
env = dict(os.environ, JPY_PARENT_PID=str(os.getpid()))
p = subprocess.Popen([sys.argv[1], "-f", cf], env=env, stderr=open(os.path.join(sys.argv[2], "err"), "w"),
                     start_new_session=True)
print(p.pid, flush=True)
time.sleep(600)
"""


@timeout(60)
def test_kernel_ends_when_the_process_that_started_it_dies():
    """As ipykernel's parent poller: JPY_PARENT_PID names the client; an
    orphaned kernel (its client SIGKILLed) shuts itself down."""
    with tempfile.TemporaryDirectory() as tmp:
        launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, support.PLAIN_KERNEL, tmp],
                                    stdout=subprocess.PIPE, text=True)
        kpid = int(launcher.stdout.readline())
        time.sleep(1.0)
        os.kill(kpid, 0)  # alive while its parent lives
        launcher.kill()
        launcher.wait()
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                os.kill(kpid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            os.kill(kpid, signal.SIGKILL)
            raise AssertionError("the orphaned kernel is still running")
        assert "has gone: shutting down" in open(os.path.join(tmp, "err")).read()
