"""execute_request: counts, silent, store_history, user_expressions, errors,
stop_on_error, output order — on the mock kernel (tests/mock); and how the
real kernel reports a compile error."""
from support import (BAD_DEVICE_CELL, DEVICE_CELL, kernel, mock_kernel, stdout_of, types_of)


def test_cell_runs_and_counts():
    with mock_kernel() as k:
        reply, msgs = k.execute("print hello")
        c = reply["content"]
        assert c["status"] == "ok", c
        assert c["execution_count"] == 1
        assert c["user_expressions"] == {} and c["payload"] == []
        t = types_of(msgs)
        assert t == ["status", "execute_input", "stream", "status"], t
        assert msgs[0]["content"]["execution_state"] == "busy"
        assert msgs[1]["content"] == {"code": "print hello", "execution_count": 1}
        assert msgs[2]["content"] == {"name": "stdout", "text": "hello\n"}
        reply, _ = k.execute("print again")
        assert reply["content"]["execution_count"] == 2


def test_silent_and_store_history():
    with mock_kernel() as k:
        reply, _ = k.execute("print one")
        assert reply["content"]["execution_count"] == 1
        # silent: no count, no execute_input, no output at all
        reply, msgs = k.execute("print quiet\nresult 1\ndisplay x", silent=True)
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 1
        assert types_of(msgs) == ["status", "status"], types_of(msgs)
        # store_history=False: no count, but output and execute_input
        reply, msgs = k.execute("print unstored", store_history=False)
        assert reply["content"]["execution_count"] == 1
        assert "execute_input" in types_of(msgs) and stdout_of(msgs) == "unstored\n"
        reply, _ = k.execute("print two")
        assert reply["content"]["execution_count"] == 2
        # a silent error: an error reply, still nothing on iopub
        reply, msgs = k.execute("error Oops silent", silent=True)
        assert reply["content"]["status"] == "error"
        assert types_of(msgs) == ["status", "status"]


def test_error_reply_and_error_message():
    with mock_kernel() as k:
        reply, msgs = k.execute("print before\nerror ValueError bad value\nprint never")
        c = reply["content"]
        assert c["status"] == "error"
        assert (c["ename"], c["evalue"]) == ("ValueError", "bad value"), c
        assert c["execution_count"] == 1
        assert c["user_expressions"] == {} and c["payload"] == []
        # the summary line's error name in red, as ipykernel shows it
        assert c["traceback"] == ["In [1]", "\x1b[0;31mValueError\x1b[0m: bad value"], c["traceback"]
        t = types_of(msgs)
        assert t == ["status", "execute_input", "stream", "error", "status"], t
        assert stdout_of(msgs) == "before\n"
        e = msgs[3]["content"]
        assert (e["ename"], e["evalue"], e["traceback"]) == ("ValueError", "bad value", c["traceback"])
        # the session goes on
        reply, _ = k.execute("print after")
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 2


def test_a_compile_error_of_the_real_kernel():
    with kernel() as k:
        reply, msgs = k.execute(BAD_DEVICE_CELL)
        c = reply["content"]
        assert c["status"] == "error"
        assert c["ename"] == "CompileError", c
        assert isinstance(c["evalue"], str) and isinstance(c["traceback"], list)
        errs = [m for m in msgs if m["msg_type"] == "error"]
        assert len(errs) == 1 and errs[0]["content"]["ename"] == "CompileError"
        reply, _ = k.execute(DEVICE_CELL)
        assert reply["content"]["status"] == "ok"
        # ptxas's own errors are the message, not "did not compile"
        reply, _ = k.execute('__global__ void bad_asm() { asm("this is not ptx"); }')
        c = reply["content"]
        assert c["ename"] == "CompileError" and "Parsing error near 'not'" in c["evalue"], c["evalue"]
        assert c["traceback"][0].endswith("1 error in the device code of In [3]"), c["traceback"]


def test_user_expressions_answered():
    with mock_kernel() as k:
        reply, _ = k.execute("set two 2", user_expressions={"two": "two", "bad": "nope"})
        ue = reply["content"]["user_expressions"]
        assert ue["two"] == {"status": "ok", "data": {"text/plain": "2"}, "metadata": {}}, ue
        assert ue["bad"]["status"] == "error" and ue["bad"]["ename"] == "NameError", ue
        # an error cell answers no user_expressions
        reply, _ = k.execute("error Oops", user_expressions={"two": "two"})
        assert reply["content"]["user_expressions"] == {}


def _send_cells(k, cells):
    """Sends several execute_requests back to back; returns their msg_ids."""
    return [k.kc.execute(code, **kw) for code, kw in cells]


# the failing cell waits a moment first, so that the rest are queued behind it
SLOW_ERROR = "sleep 0.2\nerror Failed on purpose"


def test_stop_on_error_aborts_queued_cells():
    with mock_kernel() as k:
        ids = _send_cells(k, [(SLOW_ERROR, {}), ("print a", {}), ("print b", {})])
        replies = [k.reply_to(i) for i in ids]
        st = [r["content"]["status"] for r in replies]
        assert st == ["error", "aborted", "aborted"], st
        assert replies[0]["content"]["ename"] == "Failed"
        assert [r["content"]["execution_count"] for r in replies] == [1, 1, 1]
        for i in ids:
            k.iopub_until_idle(i)
        # the queue was cleared: new cells run
        reply, _ = k.execute("print c")
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 2


def test_stop_on_error_false_keeps_going():
    with mock_kernel() as k:
        ids = _send_cells(k, [(SLOW_ERROR, {"stop_on_error": False}), ("print a", {})])
        st = [k.reply_to(i)["content"]["status"] for i in ids]
        assert st == ["error", "ok"], st


def test_bad_execute_fields_get_error_replies():
    with mock_kernel() as k:
        for content in ({}, {"code": 5}, {"code": "x", "silent": "yes"},
                        {"code": "x", "user_expressions": []},
                        {"code": "x", "store_history": 1}):
            r = k.request("execute_request", content)
            c = r["content"]
            assert c["status"] == "error", (content, c)
            assert c["ename"] == "BadRequest"
            assert "execution_count" in c
        reply, _ = k.execute("print ok")
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == 1


def test_stream_output_in_order_and_coalesced():
    with mock_kernel() as k:
        reply, msgs = k.execute("print a\nprint b\nprint c\neprint warned\nprint d\nresult 1")
        assert reply["content"]["status"] == "ok", reply["content"]
        t = types_of(msgs)
        assert t[:2] == ["status", "execute_input"] and t[-2:] == ["execute_result", "status"], t
        streams = [[m["content"]["name"], m["content"]["text"]] for m in msgs if m["msg_type"] == "stream"]
        merged = []
        for name, text in streams:
            if merged and merged[-1][0] == name:
                merged[-1][1] += text
            else:
                merged.append([name, text])
        assert merged == [["stdout", "a\nb\nc\n"], ["stderr", "warned\n"], ["stdout", "d\n"]], streams
        # lines printed together arrive as one message, not one per line
        # (a busy machine may split them where 50 ms pass between two)
        assert len(streams) < 5, streams
