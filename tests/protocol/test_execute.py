"""execute_request: counts, silent, store_history, user_expressions, errors,
stop_on_error, output order."""
from support import (BAD_DEVICE_CELL, DEVICE_CELL, kernel, slow_cell, stdout_of, timeout,
                     types_of)


def test_device_cell_runs_and_counts():
    with kernel() as k:
        reply, msgs = k.execute(DEVICE_CELL)
        c = reply["content"]
        assert c["status"] == "ok", c
        assert c["execution_count"] == 1
        assert c["user_expressions"] == {} and c["payload"] == []
        t = types_of(msgs)
        assert t[0] == "status" and t[-1] == "status"
        assert msgs[0]["content"]["execution_state"] == "busy"
        assert "execute_input" in t
        ei = [m for m in msgs if m["msg_type"] == "execute_input"][0]
        assert ei["content"] == {"code": DEVICE_CELL, "execution_count": 1}
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["execution_count"] == 2


def test_silent_and_store_history():
    with kernel() as k:
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["execution_count"] == 1
        # silent: no count, no execute_input, no output at all
        reply, msgs = k.execute(DEVICE_CELL, silent=True)
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 1
        assert types_of(msgs) == ["status", "status"], types_of(msgs)
        # store_history=False: no count, but output and execute_input
        reply, msgs = k.execute(DEVICE_CELL, store_history=False)
        assert reply["content"]["execution_count"] == 1
        assert "execute_input" in types_of(msgs)
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["execution_count"] == 2
        # a silent error: an error reply, still nothing on iopub
        reply, msgs = k.execute(BAD_DEVICE_CELL, silent=True)
        assert reply["content"]["status"] == "error"
        assert types_of(msgs) == ["status", "status"]


def test_compile_error_reply_and_error_message():
    with kernel() as k:
        reply, msgs = k.execute(BAD_DEVICE_CELL)
        c = reply["content"]
        assert c["status"] == "error"
        assert c["ename"] == "CompileError", c
        assert isinstance(c["evalue"], str) and isinstance(c["traceback"], list)
        assert c["execution_count"] == 1
        errs = [m for m in msgs if m["msg_type"] == "error"]
        assert len(errs) == 1
        assert errs[0]["content"]["ename"] == "CompileError"
        assert all(isinstance(s, str) for s in errs[0]["content"]["traceback"])
        # the session goes on
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 2
        # ptxas's own errors are the message, not "did not compile"
        reply, _ = k.execute('__global__ void bad_asm() { asm("this is not ptx"); }')
        c = reply["content"]
        assert c["ename"] == "CompileError" and "Parsing error near 'not'" in c["evalue"], c["evalue"]
        assert c["traceback"][0].endswith("1 error in the device code of In [3]"), c["traceback"]


def test_user_expressions_answered():
    with kernel() as k:
        reply, _ = k.execute(DEVICE_CELL, user_expressions={"two": "1 + 1", "bad": "1 +"})
        ue = reply["content"]["user_expressions"]
        assert set(ue) == {"two", "bad"}, ue
        for v in ue.values():
            assert v["status"] in ("ok", "error")
        # an error cell answers no user_expressions
        reply, _ = k.execute(BAD_DEVICE_CELL, user_expressions={"two": "1 + 1"})
        assert reply["content"]["user_expressions"] == {}


def SLOW_BAD_CELL():
    return slow_cell() + "\n" + BAD_DEVICE_CELL


def _send_cells(k, cells):
    """Sends several execute_requests back to back; returns their msg_ids."""
    return [k.kc.execute(code, **kw) for code, kw in cells]


@timeout(240)
def test_stop_on_error_aborts_queued_cells():
    with kernel() as k:
        # the failing cell is slow to compile, so the rest are queued behind it
        ids = _send_cells(k, [(SLOW_BAD_CELL(), {}), (DEVICE_CELL, {}), (DEVICE_CELL, {})])
        replies = [k.reply_to(i, timeout=200) for i in ids]
        st = [r["content"]["status"] for r in replies]
        assert st == ["error", "aborted", "aborted"], st
        assert replies[0]["content"]["ename"] == "CompileError"
        for i in ids:
            k.iopub_until_idle(i, timeout=60)
        # the queue was cleared: new cells run
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok"


@timeout(240)
def test_stop_on_error_false_keeps_going():
    with kernel() as k:
        ids = _send_cells(k, [(SLOW_BAD_CELL(), {"stop_on_error": False}), (DEVICE_CELL, {})])
        st = [k.reply_to(i, timeout=200)["content"]["status"] for i in ids]
        assert st == ["error", "ok"], st


def test_bad_execute_fields_get_error_replies():
    with kernel() as k:
        for content in ({}, {"code": 5}, {"code": "x", "silent": "yes"},
                        {"code": "x", "user_expressions": []},
                        {"code": "x", "store_history": 1}):
            r = k.request("execute_request", content)
            c = r["content"]
            assert c["status"] == "error", (content, c)
            assert c["ename"] == "BadRequest"
            assert "execution_count" in c
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 1


def test_stream_output_in_order_and_coalesced():
    cell = "\n".join(f"__global__ void kern{i}(int *p) {{ p[{i}] = {i}; }}" for i in range(3))
    with kernel() as k:
        reply, msgs = k.execute(cell)
        assert reply["content"]["status"] == "ok", reply["content"]
        t = types_of(msgs)
        assert t.index("execute_input") < t.index("stream") < len(t) - 1
        out = stdout_of(msgs)
        for i in range(3):
            assert f"kern{i}" in out, out
        # lines printed together arrive as one message, not one per line
        assert t.count("stream") < 3, t
