"""A function's locals come from the host arena, under the limit malloc's
buffers have: a recursion of large frames ends in a MemoryError at that
limit (it used to take memory without bound until the C stack ran out),
and the memory of frames that returned goes back to the system."""
from support import results, shared_kernel, stdout_of

MiB = 1 << 20


def error_of(reply):
    c = reply["content"]
    assert c["status"] == "error", c
    return c["ename"], c["evalue"]


def test_a_recursion_of_large_frames_is_a_memory_error_at_the_limit():
    with shared_kernel() as k:
        k.execute("int kept = 41;")
        ename, evalue = error_of(k.execute(
            "void bigrec(int n) { char b[60 << 20]; b[n & 1023] = (char)n; bigrec(n + 1); }\nbigrec(0);",
            timeout=120)[0])
        assert ename == "MemoryError", (ename, evalue)
        assert "local variables of bigrec" in evalue and "host-memory limit" in evalue, evalue
        # the session goes on, its variables and the memory the frames held with it
        reply, msgs = k.execute("kept + 1")
        assert results(msgs) == ["(int) 42"], reply["content"]
        reply, msgs = k.execute('char *p = (char *)malloc(100 << 20); printf("%d\\n", p != NULL); free(p);')
        assert stdout_of(msgs) == "1\n", reply["content"]


def test_a_variable_length_array_past_the_limit_is_a_memory_error():
    with shared_kernel() as k:
        ename, evalue = error_of(k.execute("{ long n = 1L << 38; char v[n]; v[0] = 1; }")[0])
        assert ename == "MemoryError" and "variable-length array v" in evalue, (ename, evalue)
        # a session variable's (a VLA at the cell's top level) likewise
        ename, evalue = error_of(k.execute("long n = 1L << 36; char sv[n];")[0])
        assert ename == "MemoryError" and "variable-length array sv" in evalue, (ename, evalue)
        reply, msgs = k.execute('{ int n = 1000; int w[n]; w[999] = 5; printf("%d\\n", w[999]); }')
        assert stdout_of(msgs) == "5\n", reply["content"]


def test_memory_of_returned_frames_goes_back():
    # 20 frames of 32 MiB, each filled: 640 MiB resident at the deepest call;
    # after the return it is given back (the frames were kept for reuse, so
    # it stayed resident until %reset)
    with shared_kernel() as k:
        k.execute("int warm = 1;")
        before = k.memory("VmRSS")
        k.reset_peak_memory()
        reply, msgs = k.execute(
            "int rec(int n) { char b[32 << 20]; memset(b, n, sizeof b); return n < 20 ? rec(n + 1) + b[7] : b[7]; }\n"
            'printf("%d\\n", rec(1));', timeout=120)
        assert stdout_of(msgs) == "210\n", reply["content"]
        peak, after = k.memory("VmHWM"), k.memory("VmRSS")
        assert peak - before > 500 * MiB, (before, peak)  # the frames were touched
        assert after - before < 100 * MiB, (before, peak, after)
        # and the same recursion again reuses nothing it kept
        reply, msgs = k.execute('printf("%d\\n", rec(1));', timeout=120)
        assert stdout_of(msgs) == "210\n" and k.memory("VmRSS") - before < 100 * MiB
