"""kernel_info, heartbeat, comms, history, is_complete, complete, inspect and
unknown requests."""
import time

import zmq

from support import (BAD_DEVICE_CELL, DEVICE_CELL, kernel, types_of)


def test_kernel_info_fields():
    with kernel() as k:
        r = k.request("kernel_info_request")
        c = r["content"]
        assert r["msg_type"] == "kernel_info_reply"
        assert c["status"] == "ok"
        assert c["protocol_version"] == "5.4"
        assert c["implementation"] == "icuda"
        assert c["implementation_version"].count(".") == 2
        li = c["language_info"]
        assert li["name"] == "cuda"
        assert li["mimetype"] == "text/x-cuda"
        assert li["file_extension"] == ".cu"
        assert li["pygments_lexer"] == "cuda"
        assert li["codemirror_mode"] == "text/x-c++src"
        assert isinstance(li["version"], str) and li["version"]
        assert "icuda" in c["banner"]
        assert all("text" in h and "url" in h for h in c["help_links"])
        # the reply's header: version and a session id that stays the same
        assert r["header"]["version"] == "5.4"
        r2 = k.request("kernel_info_request")
        assert r2["header"]["session"] == r["header"]["session"]
        assert r2["header"]["msg_id"] != r["header"]["msg_id"]


def test_status_busy_idle_around_shell_and_control():
    with kernel() as k:
        k.drain_iopub()
        for channel in ("shell", "control"):
            msg = k.kc.session.msg("kernel_info_request", {})
            (k.kc.shell_channel if channel == "shell" else k.kc.control_channel).send(msg)
            msgs = k.iopub_until_idle(msg["header"]["msg_id"])
            states = [m["content"]["execution_state"] for m in msgs if m["msg_type"] == "status"]
            assert states == ["busy", "idle"], (channel, states)
            k.reply_to(msg["header"]["msg_id"], channel)


def test_heartbeat_echoes():
    with kernel() as k:
        sock = k.km.connect_hb()
        try:
            for payload in (b"ping", b"x" * 1000):
                sock.send(payload)
                assert sock.poll(5000), "no heartbeat echo"
                assert sock.recv() == payload
        finally:
            sock.close(linger=0)
        assert k.kc.is_alive()


def test_comm_info_and_comms():
    with kernel() as k:
        r = k.request("comm_info_request", {"target_name": "jupyter.widget"})
        assert r["content"] == {"status": "ok", "comms": {}}
        k.drain_iopub()
        msg = k.kc.session.msg("comm_open", {"comm_id": "c1", "target_name": "nothing", "data": {}})
        k.kc.shell_channel.send(msg)
        msgs = k.iopub_until_idle(msg["header"]["msg_id"])
        closes = [m for m in msgs if m["msg_type"] == "comm_close"]
        assert closes and closes[0]["content"]["comm_id"] == "c1"
        for t in ("comm_msg", "comm_close"):
            msg = k.kc.session.msg(t, {"comm_id": "c1", "data": {}})
            k.kc.shell_channel.send(msg)
            k.iopub_until_idle(msg["header"]["msg_id"])
        r = k.request("kernel_info_request")
        assert r["content"]["status"] == "ok"
        assert "comm_open for target 'nothing'" in k.stderr_text()


def test_unknown_request_type():
    with kernel() as k:
        r = k.request("frobnicate_request", {"x": 1})
        assert r["msg_type"] == "frobnicate_reply"
        c = r["content"]
        assert c["status"] == "error"
        assert c["ename"] == "UnknownMessageType"
        assert "frobnicate_request" in c["evalue"]
        r = k.request("frobnicate_request", channel="control")
        assert r["content"]["ename"] == "UnknownMessageType"
        # a non-request of an unknown type: no reply, only a log line
        msg = k.kc.session.msg("something_else", {})
        k.kc.shell_channel.send(msg)
        k.iopub_until_idle(msg["header"]["msg_id"])
        assert k.request("kernel_info_request")["content"]["status"] == "ok"
        err = k.stderr_text()
        assert "frobnicate_request" in err and "something_else" in err


def test_is_complete():
    with kernel() as k:
        r = k.request("is_complete_request", {"code": DEVICE_CELL})
        assert r["content"]["status"] == "complete"
        r = k.request("is_complete_request", {"code": "__global__ void k(int *p) {\n  p[0] = 1;"})
        assert r["content"]["status"] == "incomplete"
        assert isinstance(r["content"]["indent"], str)
        # the indent is bounded, however deep the nesting
        r = k.request("is_complete_request", {"code": "{" * 100000})
        assert r["content"]["status"] == "incomplete" and r["content"]["indent"] == " " * 64
        r = k.request("is_complete_request", {"code": 42})
        assert r["content"]["status"] == "error"
        assert r["content"]["ename"] == "BadRequest"


def test_complete_and_inspect_shapes():
    with kernel() as k:
        code = "cudaMal"
        r = k.request("complete_request", {"code": code, "cursor_pos": len(code)})
        c = r["content"]
        assert c["status"] == "ok"
        assert isinstance(c["matches"], list)
        assert isinstance(c["cursor_start"], int) and isinstance(c["cursor_end"], int)
        assert "metadata" in c
        # cursor_pos missing: the end of the code
        r = k.request("complete_request", {"code": code})
        assert r["content"]["status"] == "ok"
        r = k.request("inspect_request", {"code": "cudaMalloc", "cursor_pos": 4,
                                          "detail_level": 0})
        c = r["content"]
        assert c["status"] == "ok" and isinstance(c["found"], bool)
        assert isinstance(c["data"], dict) and isinstance(c["metadata"], dict)
        r = k.request("inspect_request", {"code": "x", "cursor_pos": "end"})
        assert r["content"]["status"] == "error"


def test_history():
    with kernel() as k:
        k.execute(DEVICE_CELL)
        k.execute("__global__ void k2(int *p) { p[0] = 2; }")
        k.execute("__global__ void k3(int *p) { p[0] = 3; }", store_history=False)
        k.execute(BAD_DEVICE_CELL)
        r = k.request("history_request", {"hist_access_type": "tail", "n": 10, "output": False,
                                          "raw": True})
        h = r["content"]["history"]
        assert r["content"]["status"] == "ok"
        assert [e[1] for e in h] == [1, 2, 3], h
        assert h[0][2] == DEVICE_CELL and h[2][2] == BAD_DEVICE_CELL
        r = k.request("history_request", {"hist_access_type": "tail", "n": 1, "output": False,
                                          "raw": True})
        assert [e[1] for e in r["content"]["history"]] == [3]
        r = k.request("history_request", {"hist_access_type": "range", "session": 0, "start": 2,
                                          "stop": 3, "output": False, "raw": True})
        assert [e[1] for e in r["content"]["history"]] == [2]
        r = k.request("history_request", {"hist_access_type": "search", "pattern": "*k2*",
                                          "n": 5, "output": False, "raw": True})
        assert [e[1] for e in r["content"]["history"]] == [2]
        r = k.request("history_request", {"hist_access_type": "sideways"})
        assert r["content"]["status"] == "error"
