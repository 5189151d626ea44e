"""The last-resort guard (kernel/fault_guard.c, issue 13): an internal fault
while a cell runs is an InternalError reply and a fresh session, never a
dead kernel. Faults are injected with the test-only trigger
(ICUDA_TEST_FAULTS=1 and a cell "%icuda_test_fault KIND")."""
import time

import support
from support import err, kernel, ok, stdout_of, types_of

FAULTS = {"ICUDA_TEST_FAULTS": "1"}


def test_each_fault_is_an_error_and_a_fresh_session():
    with kernel(support.PLAIN_KERNEL, env=FAULTS) as k:
        for kind, sig in (("segv", "SIGSEGV"), ("fpe", "SIGFPE"), ("bus", "SIGBUS"), ("stack", "SIGSEGV"),
                          ("abort", "SIGABRT")):
            ok(k, "int kept = 41;")
            reply, msgs = k.execute(f"%icuda_test_fault {kind}")
            c = reply["content"]
            assert c["status"] == "error" and c["ename"] == "InternalError", c
            assert sig in c["evalue"] and "fresh session" in c["evalue"], c["evalue"]
            assert "error" in types_of(msgs) and types_of(msgs)[-1] == "status"
            # the session was discarded: its variable is gone; the next cells work
            ename, evalue = err(k, "kept")
            assert ename == "TypeError" and "undeclared" in evalue, (ename, evalue)
            assert stdout_of(ok(k, 'printf("%d\\n", 6 * 7);')) == "42\n"
        ok(k, support.DEVICE_CELL)  # device cells compile in the new session
        assert k.is_alive()
        assert k.stderr_text().count("internal fault:") == 5


@support.timeout(240)
def test_cells_queued_behind_a_fault_are_aborted_and_counts_go_on():
    with kernel(support.PLAIN_KERNEL, env=FAULTS) as k:
        # a cell slow to compile first, so that the other two are surely
        # waiting on shell when the fault's reply goes (a fault alone is
        # answered before a loaded machine has sent the next request)
        slow = k.kc.execute(support.slow_cell())
        first = k.kc.execute("%icuda_test_fault segv")
        queued = k.kc.execute("int after = 1;")
        assert k.reply_to(slow, timeout=200)["content"]["status"] == "ok"
        r1 = k.reply_to(first)
        r2 = k.reply_to(queued)
        assert r1["content"]["ename"] == "InternalError"
        assert r2["content"]["status"] == "aborted"
        reply, _ = k.execute("int later = 2;")
        assert reply["content"]["status"] == "ok"
        assert reply["content"]["execution_count"] == r1["content"]["execution_count"] + 1


def test_the_trigger_needs_its_environment_variable():
    with kernel(support.PLAIN_KERNEL) as k:
        ename, evalue = err(k, "%icuda_test_fault segv")
        assert ename == "UsageError", (ename, evalue)
        assert k.is_alive()


def asan_built(path):
    with open(path, "rb") as f:
        return b"AddressSanitizer" in f.read()


def test_asan_builds_guard_only_when_asked():
    if not asan_built(support.KERNEL):
        return  # the kernel under test is a plain build (make test-gpu): the guard is always on there
    # ICUDA_FAULT_GUARD=1: the guard works beside ASan's own handlers
    with kernel(env=dict(FAULTS, ICUDA_FAULT_GUARD="1")) as k:
        reply, _ = k.execute("%icuda_test_fault segv")
        assert reply["content"]["ename"] == "InternalError"
        ok(k, "int alive = 1;")
    # by default ASan's handler reports the fault (the bug is what matters there)
    with kernel(env=FAULTS, check=False) as k:
        k.kc.execute("%icuda_test_fault segv")
        deadline = time.time() + 60
        while k.is_alive() and time.time() < deadline:
            time.sleep(0.2)
        assert not k.is_alive()
        assert "AddressSanitizer: SEGV" in k.stderr_text()
    k.remove_stderr_file()
