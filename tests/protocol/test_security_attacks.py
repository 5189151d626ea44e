"""Forged, tampered and unsigned messages run nothing (a cell with a visible
side effect proves it), an unknown signature scheme stops the kernel at
start-up, the key never reaches the log, and the kernel binds only the
addresses of its connection file; on the mock kernel (tests/mock)."""
import json
import os
import socket
import subprocess
import sys
import tempfile

import support
from support import Raw, mock_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol_tools import next_answers_probe  # noqa: E402

HIT = "incr hits"  # the side effect every forged message would have


def hits(k):
    r = k.request("execute_request", {"code": "", "silent": True,
                                      "user_expressions": {"h": "hits"}})
    v = r["content"]["user_expressions"]["h"]
    assert v["status"] == "ok", v
    return int(v["data"]["text/plain"])


def forged_attempts(raw):
    """Frames of execute_requests of HIT that a kernel must not run."""
    from jupyter_client.session import Session
    out = []
    # signed with another key
    wrong = Session(key=b"not-the-kernel-key", signature_scheme="hmac-sha256")
    out.append(("wrong key", wrong.serialize(wrong.msg("execute_request", {"code": HIT}))))
    # no signature at all (an unsigned client talking to a signed kernel)
    fr, _ = raw.frames("execute_request", {"code": HIT})
    fr[1] = b""
    out.append(("empty signature", fr))
    unsigned = Session(key=b"", signature_scheme="hmac-sha256")
    out.append(("unsigned session", unsigned.serialize(unsigned.msg("execute_request", {"code": HIT}))))
    # truncated and altered signatures
    fr, _ = raw.frames("execute_request", {"code": HIT})
    fr[1] = fr[1][:32]
    out.append(("truncated signature", fr))
    fr, _ = raw.frames("execute_request", {"code": HIT})
    fr[1] = fr[1][:-1] + (b"0" if fr[1][-1:] != b"0" else b"1")
    out.append(("altered signature", fr))
    fr, _ = raw.frames("execute_request", {"code": HIT})
    fr[1] = fr[1].upper()  # the same digest in capitals: not what was signed
    out.append(("signature in capitals", fr))
    # a valid signature of a harmless message, with the content frame swapped
    fr, _ = raw.frames("execute_request", {"code": "print harmless"})
    fr[-1] = json.dumps({"code": HIT}).encode()
    out.append(("tampered content, valid header", fr))
    # the header swapped under a valid signature
    fr, _ = raw.frames("kernel_info_request")
    fr2, _ = raw.frames("execute_request", {"code": HIT})
    out.append(("tampered header", [fr[0], fr[1], fr2[2]] + fr[3:5] + [fr2[5]]))
    return out


def test_forged_messages_run_nothing():
    with mock_kernel() as k:
        support.ok(k, "set hits 0")
        raw = Raw(k)
        try:
            for name, frames in forged_attempts(raw):
                raw.send(frames)
                assert next_answers_probe(raw), f"{name}: answered"
            # and a replay of a message that did run
            fr, _ = raw.frames("execute_request", {"code": HIT})
            raw.send(fr)
            assert raw.recv(timeout=30)["content"]["status"] == "ok"
            raw.send(fr)
            assert next_answers_probe(raw), "replay answered"
        finally:
            raw.close()
        assert hits(k) == 1, "a forged message ran"
        assert k.is_alive()


def test_the_key_never_reaches_the_log():
    with mock_kernel() as k:
        key = k.kc.session.key.decode()
        assert len(key) >= 16
        raw = Raw(k)
        try:
            for _, frames in forged_attempts(raw):
                raw.send(frames)
            raw.send(raw.sign(b"{not json"))
            raw.send([b"<IDS|MSG>", key.encode(), b"{}", b"{}", b"{}", b"{}"])  # the key as a signature
            assert next_answers_probe(raw)  # all of them were read and logged by now
        finally:
            raw.close()
        support.ok(k, "print x")
        text = k.stderr_text()
        assert "signature does not verify" in text  # the attempts were logged
        assert key not in text, "the key is in the kernel's log"


def connection_file(tmp, ip, key="0123456789abcdef-secret", scheme="hmac-sha256"):
    ports = []
    for _ in range(5):
        s = socket.socket()
        s.bind((ip, 0))
        ports.append(s.getsockname()[1])
        s.close()
    cfg = dict(zip(("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"), ports),
               ip=ip, key=key, transport="tcp", signature_scheme=scheme)
    fname = os.path.join(tmp, "kernel.json")
    with open(fname, "w") as f:
        json.dump(cfg, f)
    return fname, cfg


def start(fname, tmp):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0", ICUDA_HISTORY=os.path.join(tmp, "h.jsonl"))
    err = open(os.path.join(tmp, "stderr.log"), "w+")
    return subprocess.Popen([support.MOCK_KERNEL, "-f", fname], env=env, stderr=err), err


def test_unknown_signature_scheme_is_refused_at_start():
    with tempfile.TemporaryDirectory() as tmp:
        for scheme, key in (("hmac-md5", "k3y-for-md5"), ("sha256", "k3y"), ("hmac-sha512", ""),
                            ("", "k3y")):
            fname, _ = connection_file(tmp, "127.0.0.1", key=key, scheme=scheme)
            proc, err = start(fname, tmp)
            try:
                assert proc.wait(timeout=30) == 1, f"{scheme!r}: the kernel started"
            finally:
                if proc.poll() is None:
                    proc.kill()
            err.seek(0)
            text = err.read()
            err.close()
            assert f'signature_scheme "{scheme}" is not supported (hmac-sha256)' in text, text
            assert not key or key not in text


def test_a_malformed_connection_file_does_not_print_the_key():
    with tempfile.TemporaryDirectory() as tmp:
        fname = os.path.join(tmp, "kernel.json")
        with open(fname, "w") as f:
            f.write('{"shell_port": 1, "key": "s3cr3t-k3y-value')  # torn mid-key
        proc, err = start(fname, tmp)
        assert proc.wait(timeout=30) == 1
        err.seek(0)
        text = err.read()
        err.close()
        assert "bad connection file" in text and "s3cr3t" not in text, text


def listening(pid):
    """The ip:port pairs the process's TCP sockets are bound to (any state
    but an outgoing connection's), from /proc/net/tcp{,6}."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    bound = set()
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True),
                      ("/proc/net/udp", False), ("/proc/net/udp6", True)):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[9] not in inodes or f[3] != "0A" and "tcp" in table:
                continue  # not ours, or an established connection
            addr, port = f[1].split(":")
            if v6:
                ip = socket.inet_ntop(socket.AF_INET6, bytes.fromhex(addr)[::-1][::-1])
            else:
                ip = socket.inet_ntoa(bytes.fromhex(addr)[::-1])
            bound.add((table.rsplit("/", 1)[1], ip, int(port, 16)))
    return bound


def test_binds_only_the_connection_files_addresses():
    from jupyter_client.blocking import BlockingKernelClient
    for ip in ("127.0.0.1", "127.0.0.2"):
        with tempfile.TemporaryDirectory() as tmp:
            fname, cfg = connection_file(tmp, ip)
            proc, err = start(fname, tmp)
            kc = BlockingKernelClient(connection_file=fname)
            kc.load_connection_file()
            kc.start_channels()
            try:
                kc.wait_for_ready(timeout=60)
                msg_id = kc.execute("sleep 0.01")  # the language up, its threads started
                assert kc.get_shell_msg(timeout=60)["parent_header"]["msg_id"] == msg_id
                want = {("tcp", ip, cfg[p]) for p in
                        ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")}
                got = listening(proc.pid)
                assert got == want, f"bound {sorted(got)}, the connection file says {sorted(want)}"
                kc.shutdown()
                assert proc.wait(timeout=30) == 0
            finally:
                kc.stop_channels()
                if proc.poll() is None:
                    proc.kill()
                err.close()
