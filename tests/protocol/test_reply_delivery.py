"""No reply is dropped: a client that sends everything before it reads
anything gets every reply, in order; while its replies wait, control and
the heartbeat answer; past the backlog bound the kernel runs no more
requests until the client reads, and nothing deadlocks; the replies of a
client that has gone are let go, also when it left requests unread. A message over the size limit gets an
error reply that says so. On the mock kernel (tests/mock).

ICUDA_REPLY_HWM lowers ZeroMQ's own queue per client (1,000 messages),
the test's clients have small receive queues and TCP buffers, and each
request's header carries 10 KB of padding (a reply holds its request's
header), so that a few thousand requests make more than the TCP buffers
between the two can hold (4 MiB here), as 10,000 or more trivial ones
would by default (bench/pipelined_requests.py runs those)."""
import os
import sys
import time

import zmq
from jupyter_client.session import Session

from support import Raw, mock_kernel, timeout, types_of

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol_tools import next_answers_probe  # noqa: E402

N = 3000
SMALL_PIPE = {"ICUDA_REPLY_HWM": "10"}
# about 20 of the padded execute replies
SMALL_BACKLOG = {"ICUDA_REPLY_HWM": "10", "ICUDA_REPLY_BACKLOG_BYTES": "200000"}
PAD = 10_000
HELD = "no more requests are run until they do"
RUNNING = "running requests again"
LIMIT = 64 << 20


class LateReader:
    """A second jupyter_client client of k whose shell socket holds few
    replies (a queue of 10, a 4 KiB TCP buffer): replies it does not read
    soon wait in the kernel. Its queue of requests is as short, so that the
    kernel has run most of them when the last is sent."""

    def __init__(self, k):
        self.ctx = zmq.Context()
        self.ctx.setsockopt(zmq.RCVHWM, 10)
        self.ctx.setsockopt(zmq.SNDHWM, 10)
        self.ctx.setsockopt(zmq.RCVBUF, 4096)
        # a session of its own: jupyter_client names its shell socket after
        # the session, and a ROUTER ignores a second peer of the same name
        self.kc = k.km.client(context=self.ctx, session=Session(key=k.km.session.key))
        self.kc.start_channels()

    def send_all(self, n, code="# a cell"):
        """What BlockingKernelClient.execute sends, each header padded."""
        ids = []
        for _ in range(n):
            msg = self.kc.session.msg("execute_request", {
                "code": code, "silent": False, "store_history": True, "user_expressions": {},
                "allow_stdin": False, "stop_on_error": True})
            msg["header"]["padding"] = "x" * PAD
            self.kc.shell_channel.send(msg)
            ids.append(msg["header"]["msg_id"])
        return ids

    def read_all(self, ids):
        """Every reply, in the order of the requests; their counts."""
        counts = []
        for i, want in enumerate(ids):
            m = self.kc.get_shell_msg(timeout=60)
            got = m["parent_header"].get("msg_id")
            assert got == want, f"reply {i} of {len(ids)} answers {got}, not {want}"
            assert m["content"]["status"] == "ok", m["content"]
            counts.append(m["content"]["execution_count"])
        return counts

    def close(self):
        self.kc.stop_channels()
        self.ctx.destroy(linger=0)


def wait_for_log(k, text, seconds=60):
    deadline = time.monotonic() + seconds
    while text not in k.stderr_text():
        assert time.monotonic() < deadline, f"the kernel never logged {text!r}:\n{k.stderr_text()[-2000:]}"
        time.sleep(0.05)


@timeout(300)
def test_a_client_that_sends_everything_before_reading_gets_every_reply_in_order():
    with mock_kernel(env=SMALL_PIPE) as k:
        c = LateReader(k)
        try:
            ids = c.send_all(N)
            counts = c.read_all(ids)
            assert counts == list(range(counts[0], counts[0] + N)), "execution counts not consecutive"
        finally:
            c.close()
        assert "dropped" not in k.stderr_text()


@timeout(300)
def test_past_the_backlog_bound_shell_waits_while_control_and_heartbeat_answer():
    with mock_kernel(env=SMALL_BACKLOG) as k:
        c = LateReader(k)
        try:
            ids = c.send_all(1000)
            wait_for_log(k, HELD)
            # the kernel serves the rest while shell waits for the late reader
            r = k.request("kernel_info_request", channel="control")
            assert r["content"]["status"] == "ok"
            r = k.request("interrupt_request", channel="control")
            assert r["content"]["status"] == "ok"
            assert k.kc.hb_channel.is_beating()
            # once it reads, every reply comes, and requests run again
            counts = c.read_all(ids)
            assert counts == list(range(1, 1001))
            wait_for_log(k, RUNNING)
            # iopub dropped what k's own client did not read (PUB, by design)
            k.drain_iopub()
            reply, _ = k.execute("print after")
            assert reply["content"]["status"] == "ok"
            assert reply["content"]["execution_count"] == 1001
        finally:
            c.close()


@timeout(300)
def test_the_replies_of_a_client_that_has_gone_are_let_go():
    with mock_kernel(env=SMALL_BACKLOG) as k:
        c = LateReader(k)
        c.send_all(1000)
        wait_for_log(k, HELD)
        c.close()
        # its waiting replies go (logged), requests run again, others are answered
        # on shell alone: iopub (PUB) may drop what the gone client's
        # requests published while this client's reader was behind
        reply = k.reply_to(k.kc.execute("print after"), "shell", timeout=120)
        assert reply["content"]["status"] == "ok"
        log = k.stderr_text()
        assert "to a client that has gone dropped" in log, log[-2000:]
        assert RUNNING in log


@timeout(300)
def test_a_client_that_has_gone_with_requests_still_queued_is_let_go():
    # ZeroMQ lets a client go only once its requests are read to the end:
    # the kernel reads them while shell is held, else it would wait forever
    with mock_kernel(env=SMALL_BACKLOG) as k:
        c = LateReader(k)
        c.send_all(1000)
        wait_for_log(k, HELD)
        # the client's I/O thread hands what it queued to ZeroMQ, which takes
        # it to the kernel's queue (a shorter wait could only let the test
        # pass without the reading, never fail with it)
        time.sleep(1)
        c.close()
        # on shell alone: iopub (PUB) may drop what the gone client's
        # requests published while this client's reader was behind
        reply = k.reply_to(k.kc.execute("print after"), "shell", timeout=120)
        assert reply["content"]["status"] == "ok"
        log = k.stderr_text()
        assert "to a client that has gone dropped" in log, log[-2000:]
        assert RUNNING in log


@timeout(300)
def test_a_cell_over_the_size_limit_gets_an_error_reply():
    with mock_kernel() as k:
        code = "# " + "x" * 70_000_000
        reply, msgs = k.execute(code, timeout=240)  # reply_to matches the parent's msg_id
        c = reply["content"]
        assert (c["status"], c["ename"]) == ("error", "MessageTooLarge"), c
        size = int(c["evalue"].split(" is ")[1].split(" bytes")[0])
        assert size > 70_000_000, c["evalue"]
        assert f"more than the {LIMIT} bytes (64 MiB)" in c["evalue"], c["evalue"]
        assert c["execution_count"] == 0
        assert types_of(msgs) == ["status", "error", "status"], types_of(msgs)
        assert msgs[1]["content"]["ename"] == "MessageTooLarge"
        assert msgs[1]["content"]["traceback"] == ["MessageTooLarge: " + c["evalue"]]
        assert f"execute_request on shell refused: {size} bytes" in k.stderr_text()
        # nothing of it ran, the session goes on
        reply, _ = k.execute("print after")
        assert (reply["content"]["status"], reply["content"]["execution_count"]) == ("ok", 1)


@timeout(300)
def test_size_counts_every_frame_on_either_channel_and_a_bad_signature_is_logged():
    with mock_kernel() as k:
        raw = Raw(k, "control")
        try:
            # a small request with a buffer frame that takes it over the limit
            frames, msg = raw.frames("kernel_info_request")
            raw.send(frames + [b"\0" * (LIMIT - 100)])
            r = raw.recv(timeout=120)
            assert r is not None and r["parent_header"]["msg_id"] == msg["header"]["msg_id"]
            assert (r["msg_type"], r["content"]["ename"]) == ("kernel_info_reply", "MessageTooLarge")
            # the same size unsigned: only a log line, nothing answers it
            frames, _ = raw.frames("kernel_info_request")
            frames[1] = b"0" * 64
            raw.send(frames + [b"\0" * (LIMIT - 100)])
            assert next_answers_probe(raw, timeout=120)
            log = k.stderr_text()
            assert "more than the limit of %d) dropped: signature does not verify" % LIMIT in log, log[-2000:]
            # exactly at the limit is within it, one byte more is not
            for over, status in ((0, "ok"), (1, "error")):
                frames, msg = raw.frames("kernel_info_request")
                raw.send(frames + [b"\0" * (LIMIT - sum(len(f) for f in frames) + over)])
                r = raw.recv(timeout=120)
                assert r["parent_header"]["msg_id"] == msg["header"]["msg_id"]
                assert r["content"]["status"] == status, (over, r["content"])
        finally:
            raw.close()


@timeout(300)
def test_an_oversized_cell_queued_behind_a_failed_one_is_still_answered_in_order():
    with mock_kernel() as k:
        raw = Raw(k)
        try:
            sent = []
            for code in ("sleep 0.5\nerror Stop here", "# " + "x" * (LIMIT + 10), "print queued"):
                frames, msg = raw.frames("execute_request", {"code": code, "silent": False})
                raw.send(frames)
                sent.append(msg["header"]["msg_id"])
            got = [raw.recv(timeout=120) for _ in sent]
            assert [m["parent_header"]["msg_id"] for m in got] == sent
            assert got[0]["content"]["ename"] == "Stop"
            assert got[1]["content"]["ename"] == "MessageTooLarge"
            # aborted when it was waiting as the first failed, run when it came later
            assert got[2]["content"]["status"] in ("aborted", "ok")
        finally:
            raw.close()
