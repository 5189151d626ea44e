"""The last-resort guard (kernel/fault_guard.c): an internal fault while a
cell runs is an InternalError reply and a fresh session, never a dead
kernel. Faults are injected with the test-only trigger (ICUDA_TEST_FAULTS=1
and a cell "%icuda_test_fault KIND"), on the mock kernel (tests/mock);
ICUDA_FAULT_GUARD=1 turns the guard on in a sanitizer build too."""
import time

import support
from support import err, kernel, mock_kernel, ok, stdout_of, types_of

FAULTS = {"ICUDA_TEST_FAULTS": "1", "ICUDA_FAULT_GUARD": "1"}


def test_each_fault_is_an_error_and_a_fresh_session():
    with mock_kernel(env=FAULTS) as k:
        for kind, sig in (("segv", "SIGSEGV"), ("fpe", "SIGFPE"), ("bus", "SIGBUS"), ("stack", "SIGSEGV"),
                          ("abort", "SIGABRT")):
            ok(k, "set kept 41")
            reply, msgs = k.execute(f"%icuda_test_fault {kind}")
            c = reply["content"]
            assert c["status"] == "error" and c["ename"] == "InternalError", c
            assert sig in c["evalue"] and "fresh session" in c["evalue"], c["evalue"]
            assert "error" in types_of(msgs) and types_of(msgs)[-1] == "status"
            # the session was discarded: its variable is gone; the next cells work
            ename, evalue = err(k, "get kept")
            assert ename == "NameError", (ename, evalue)
            assert stdout_of(ok(k, "print 42")) == "42\n"
        assert k.is_alive()
        assert k.stderr_text().count("internal fault:") == 5


def test_cells_queued_behind_a_fault_are_aborted_and_counts_go_on():
    with mock_kernel(env=FAULTS) as k:
        # a cell that waits first, so that the other two are surely waiting
        # on shell when the fault's reply goes
        slow = k.kc.execute("sleep 0.2")
        first = k.kc.execute("%icuda_test_fault segv")
        queued = k.kc.execute("print after")
        assert k.reply_to(slow)["content"]["status"] == "ok"
        r1 = k.reply_to(first)
        r2 = k.reply_to(queued)
        assert r1["content"]["ename"] == "InternalError"
        assert r2["content"]["status"] == "aborted"
        reply, _ = k.execute("print later")
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == r1["content"]["execution_count"] + 1


def test_the_real_kernel_starts_a_fresh_engine():
    with kernel(support.PLAIN_KERNEL, env={"ICUDA_TEST_FAULTS": "1"}) as k:
        ok(k, "int kept = 41;")
        reply, _ = k.execute("%icuda_test_fault segv")
        c = reply["content"]
        assert c["ename"] == "InternalError" and "fresh session" in c["evalue"], c
        ename, evalue = err(k, "kept")
        assert ename == "TypeError" and "undeclared" in evalue, (ename, evalue)
        ok(k, support.DEVICE_CELL)  # device cells compile in the new session


def test_the_trigger_needs_its_environment_variable():
    with mock_kernel() as k:
        ename, evalue = err(k, "%icuda_test_fault segv")
        assert ename == "UnknownCommand", (ename, evalue)  # the language's answer: nothing faulted
        assert k.is_alive()


def asan_built(path):
    """Built with -fsanitize=address (libasan is linked dynamically: its
    entry point's name is what the binary holds)."""
    with open(path, "rb") as f:
        return b"__asan_init" in f.read()


def test_asan_builds_guard_only_when_asked():
    if not asan_built(support.MOCK_KERNEL):
        return  # a plain build: the guard is always on there
    # by default ASan's handler reports the fault (the bug is what matters there)
    with mock_kernel(env={"ICUDA_TEST_FAULTS": "1"}, check=False) as k:
        k.kc.execute("%icuda_test_fault segv")
        deadline = time.time() + 60
        while k.is_alive() and time.time() < deadline:
            time.sleep(0.05)
        assert not k.is_alive()
        assert "AddressSanitizer: SEGV" in k.stderr_text()
    k.remove_stderr_file()
