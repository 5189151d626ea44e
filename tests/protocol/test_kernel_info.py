"""kernel_info, heartbeat, comms, history, is_complete, complete, inspect and
unknown requests, on the mock kernel (tests/mock); and what the real kernel
says of CUDA in kernel_info and is_complete."""
import json
import os

from support import kernel, mock_kernel


def test_kernel_info_fields():
    with mock_kernel() as k:
        r = k.request("kernel_info_request")
        c = r["content"]
        assert r["msg_type"] == "kernel_info_reply"
        assert c["status"] == "ok"
        assert c["protocol_version"] == "5.4"
        assert c["debugger"] is False and c["supported_features"] == []
        # the language describes itself: the kernel passes it on
        assert c["implementation"] == "icuda-mock"
        assert c["implementation_version"].count(".") == 2
        assert c["language_info"] == {"name": "mock", "version": "1.0", "mimetype": "text/x-mock",
                                      "file_extension": ".mock"}
        assert "mock language" in c["banner"] and c["help_links"] == []
        # the reply's header: version and a session id that stays the same
        assert r["header"]["version"] == "5.4"
        r2 = k.request("kernel_info_request")
        assert r2["header"]["session"] == r["header"]["session"]
        assert r2["header"]["msg_id"] != r["header"]["msg_id"]


def test_kernel_info_of_the_real_kernel():
    with kernel() as k:
        c = k.request("kernel_info_request")["content"]
        assert c["status"] == "ok" and c["protocol_version"] == "5.4"
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
        assert c["help_links"] and all("text" in h and "url" in h for h in c["help_links"])


def test_status_busy_idle_around_shell_and_control():
    with mock_kernel() as k:
        k.drain_iopub()
        for channel in ("shell", "control"):
            msg = k.kc.session.msg("kernel_info_request", {})
            (k.kc.shell_channel if channel == "shell" else k.kc.control_channel).send(msg)
            msgs = k.iopub_until_idle(msg["header"]["msg_id"])
            states = [m["content"]["execution_state"] for m in msgs if m["msg_type"] == "status"]
            assert states == ["busy", "idle"], (channel, states)
            k.reply_to(msg["header"]["msg_id"], channel)


def test_heartbeat_echoes():
    with mock_kernel() as k:
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
    with mock_kernel() as k:
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
    with mock_kernel() as k:
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
    with mock_kernel() as k:
        r = k.request("is_complete_request", {"code": "print a"})
        assert r["content"] == {"status": "complete"}, r["content"]
        r = k.request("is_complete_request", {"code": "print a \\"})
        assert r["content"] == {"status": "incomplete", "indent": "  "}, r["content"]
        r = k.request("is_complete_request", {"code": "frobnicate"})
        assert r["content"] == {"status": "invalid"}, r["content"]
        r = k.request("is_complete_request", {"code": 42})
        assert r["content"]["status"] == "error"
        assert r["content"]["ename"] == "BadRequest"


def test_is_complete_of_cuda_cells():
    with kernel() as k:
        r = k.request("is_complete_request", {"code": "__global__ void k(int *p) { p[0] = 1; }"})
        assert r["content"]["status"] == "complete"
        r = k.request("is_complete_request", {"code": "__global__ void k(int *p) {\n  p[0] = 1;"})
        assert r["content"]["status"] == "incomplete"
        assert isinstance(r["content"]["indent"], str)
        # the indent is bounded, however deep the nesting
        r = k.request("is_complete_request", {"code": "{" * 100000})
        assert r["content"]["status"] == "incomplete" and r["content"]["indent"] == " " * 64


def test_complete_and_inspect_shapes():
    with mock_kernel() as k:
        k.execute("set speed 3")
        code = "print sp"
        r = k.request("complete_request", {"code": code, "cursor_pos": len(code)})
        c = r["content"]
        assert c == {"status": "ok", "matches": ["speed"], "cursor_start": 6, "cursor_end": 8,
                     "metadata": {}}, c
        # cursor_pos missing: the end of the code; counted in code points
        r = k.request("complete_request", {"code": "print \u00e9\u00e9 pri"})
        c = r["content"]
        assert c["matches"] == ["print"] and (c["cursor_start"], c["cursor_end"]) == (9, 12), c
        # a cursor past the end is the end
        r = k.request("complete_request", {"code": "se", "cursor_pos": 99})
        assert r["content"]["matches"] == ["set"]
        r = k.request("inspect_request", {"code": "get speed", "cursor_pos": 6, "detail_level": 0})
        c = r["content"]
        assert c == {"status": "ok", "found": True, "data": {"text/plain": "speed = 3"}, "metadata": {}}, c
        r = k.request("inspect_request", {"code": "nothing", "cursor_pos": 3})
        assert r["content"] == {"status": "ok", "found": False, "data": {}, "metadata": {}}
        r = k.request("inspect_request", {"code": "x", "cursor_pos": "end"})
        assert r["content"]["status"] == "error"


def test_history():
    with mock_kernel() as k:
        k.execute("print one")
        k.execute("print two")
        k.execute("print unstored", store_history=False)
        k.execute("error Oops")
        r = k.request("history_request", {"hist_access_type": "tail", "n": 10, "output": False,
                                          "raw": True})
        h = r["content"]["history"]
        assert r["content"]["status"] == "ok"
        assert [e[1] for e in h] == [1, 2, 3], h
        assert h[0][2] == "print one" and h[2][2] == "error Oops"
        r = k.request("history_request", {"hist_access_type": "tail", "n": 1, "output": False,
                                          "raw": True})
        assert [e[1] for e in r["content"]["history"]] == [3]
        r = k.request("history_request", {"hist_access_type": "range", "session": 0, "start": 2,
                                          "stop": 3, "output": False, "raw": True})
        assert [e[1] for e in r["content"]["history"]] == [2]
        r = k.request("history_request", {"hist_access_type": "search", "pattern": "*two*",
                                          "n": 5, "output": False, "raw": True})
        assert [e[1] for e in r["content"]["history"]] == [2]
        r = k.request("history_request", {"hist_access_type": "sideways"})
        assert r["content"]["status"] == "error"


def test_history_output_pairs_search_and_restart():
    with mock_kernel() as k:
        k.execute("set a 20")
        k.execute("result 21")
        k.execute("result 22")
        k.execute("result 21")
        r = k.request("history_request", {"hist_access_type": "tail", "n": 10, "output": True, "raw": True})
        h = r["content"]["history"]
        assert [e[1] for e in h] == [1, 2, 3, 4], h
        assert h[0][2] == ["set a 20", None] and h[1][2] == ["result 21", "21"], h
        r = k.request("history_request", {"hist_access_type": "search", "pattern": "result ?", "unique": True,
                                          "output": False, "raw": False})
        # not found: the pattern is a glob of the whole input, and "?" is one character
        assert r["content"]["history"] == []
        r = k.request("history_request", {"hist_access_type": "search", "pattern": "result 2?", "unique": True,
                                          "output": False, "raw": False})
        assert [(e[1], e[2]) for e in r["content"]["history"]] == [(3, "result 22"), (4, "result 21")]
        session = h[0][0]
        k.km.restart_kernel(now=False)
        k.kc.wait_for_ready(timeout=60)
        k.execute("set b 1")
        r = k.request("history_request", {"hist_access_type": "tail", "n": 2, "output": False, "raw": True})
        h = r["content"]["history"]
        assert h == [[session, 4, "result 21"], [session + 1, 1, "set b 1"]], h
        r = k.request("history_request", {"hist_access_type": "range", "session": -1, "start": 2, "stop": 4,
                                          "output": True, "raw": True})
        assert [e[2] for e in r["content"]["history"]] == [["result 21", "21"], ["result 22", "22"]]
        path = os.path.join(k.data_dir, "history.jsonl")
        with open(path) as f:
            lines = [json.loads(x) for x in f]
        entries = [x for x in lines if "input" in x]  # the other lines note each session as it starts
        assert len(entries) == 5 and lines[-1]["session"] == session + 1
        assert [x["session"] for x in lines if "input" not in x] == [session, session + 1]
        r = k.request("history_request", {"hist_access_type": "tail", "output": "yes"})
        assert r["content"]["status"] == "error"
