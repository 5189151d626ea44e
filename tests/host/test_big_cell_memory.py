"""What a big host cell and a deep recursion of big frames cost the kernel
in memory, and what happens when the memory is not there: a MemoryError
that names the limit, the session kept (its variables, the same process),
never the last-resort guard's InternalError and a fresh session.

The kernel here is the plain one (PLAIN_KERNEL): AddressSanitizer's
reserves terabytes of shadow memory and cannot start under an
address-space limit, and its own allocator would change the figures."""
from support import PLAIN_KERNEL, kernel, results, stdout_of, timeout

MiB = 1 << 20
GB = 1000 * 1000 * 1000


def statements(n):
    """A cell of n `t++;` statements at the top level (each an item of its
    own), about 5 n bytes; prints t."""
    return "t = 0;\n" + "t++;\n" * n + 'printf("%d\\n", t);'


def assert_session_kept(k, pid):
    reply, msgs = k.execute("kept + 1")
    assert results(msgs) == ["(int) 42"], reply["content"]
    assert k.pid() == pid and k.is_alive()
    assert "internal fault" not in k.stderr_text(), k.stderr_text()[-2000:]


def error_of(reply):
    c = reply["content"]
    assert c["status"] == "error", c
    return c["ename"], c["evalue"]


@timeout(90)
def test_a_big_cell_past_the_memory_left_is_a_memory_error_and_the_session_stays():
    # 3 GB of address space: the 10 MB cell's tokens and syntax tree (about
    # 0.9 GB) are more than half of what is left; without the budget the
    # lexer's allocation failed, the interpreter aborted and the last-resort
    # guard discarded the session
    with kernel(PLAIN_KERNEL, address_space=3 * GB) as k:
        k.execute("int kept = 41, t = 0;")
        pid = k.pid()
        ename, evalue = error_of(k.execute(statements(2_000_000), timeout=60)[0])
        assert ename == "MemoryError" and "split it into smaller cells" in evalue, (ename, evalue)
        assert_session_kept(k, pid)
        # what the cell took is given back: a smaller one runs after it
        reply, msgs = k.execute(statements(100_000), timeout=60)
        assert stdout_of(msgs) == "100000\n", reply["content"]


@timeout(90)
def test_a_big_cell_with_almost_no_memory_left_is_a_memory_error_wherever_it_runs_out():
    # 1.5 GB of address space, most of it the arena's and the libraries':
    # the cell runs out while its message is decoded, split or lexed, each a
    # MemoryError (the decoder's was "BadRequest: content is not valid JSON:
    # invalid token", after 30 s to minutes of failing allocations)
    with kernel(PLAIN_KERNEL, address_space=3 * GB // 2) as k:
        k.execute("int kept = 41, t = 0;")
        pid = k.pid()
        for _ in range(2):
            ename, evalue = error_of(k.execute(statements(2_000_000), timeout=60)[0])
            assert ename == "MemoryError", (ename, evalue)
        assert_session_kept(k, pid)


@timeout(90)
def test_a_recursion_of_big_frames_under_an_address_space_limit_is_a_memory_error():
    with kernel(PLAIN_KERNEL, address_space=8 * GB) as k:
        k.execute("int kept = 41;")
        pid = k.pid()
        ename, evalue = error_of(k.execute(
            "void bigrec(int n) { char b[60 << 20]; b[n & 1023] = (char)n; bigrec(n + 1); }\nbigrec(0);",
            timeout=60)[0])
        assert ename == "MemoryError", (ename, evalue)
        assert "local variables of bigrec" in evalue and "host-memory limit" in evalue, evalue
        assert_session_kept(k, pid)
        # the frames went back to the limit: the same recursion fails the same way, not sooner
        again = error_of(k.execute("bigrec(0);", timeout=60)[0])
        assert again == (ename, evalue), (again, evalue)


@timeout(90)
def test_a_10_mb_cell_peaks_below_1_gb_and_gives_its_memory_back():
    # no NVRTC warm-up compile beside the cell: its memory would count in the peak
    with kernel(PLAIN_KERNEL, env={"ICUDA_NO_WARMUP": "1"}, address_space=8 * GB) as k:
        k.execute("int kept = 41, t = 0;")
        pid = k.pid()
        before = k.memory("VmRSS")
        k.reset_peak_memory()
        reply, msgs = k.execute(statements(2_000_000), timeout=60)
        assert stdout_of(msgs) == "2000000\n", reply["content"]
        peak, after = k.memory("VmHWM"), k.memory("VmRSS")
        assert peak < GB, (before, peak)
        assert after - before < 64 * MiB, (before, peak, after)
        assert_session_kept(k, pid)


@timeout(90)
def test_a_big_cell_that_also_defines_gives_back_its_statements():
    # the declarations stay (u, twice, S, the buffer's record); the syntax
    # of 1,000,000 top-level statements goes when the cell ends (it was
    # kept whole, 400 MiB, until %reset)
    with kernel(PLAIN_KERNEL, env={"ICUDA_NO_WARMUP": "1"}) as k:
        k.execute("int kept = 41;")
        pid = k.pid()
        before = k.memory("VmRSS")
        cell = ("int u = 0;\nint twice(int x) { return 2 * x; }\nstruct S { int a; };\n"
                "char *buf = (char *)malloc(8);\n" + "u++;\n" * 1_000_000 +
                "for (int i = 0; i < 300000; i++) u += i % 3;\n" + 'printf("%d\\n", u);')
        reply, msgs = k.execute(cell, timeout=60)
        assert stdout_of(msgs) == "1300000\n", reply["content"]
        after = k.memory("VmRSS")
        assert after - before < 128 * MiB, (before, after)
        reply, msgs = k.execute("struct S s = {twice(u)}; free(buf);\nprintf(\"%d\\n\", s.a);")
        assert stdout_of(msgs) == "2600000\n", reply["content"]
        assert_session_kept(k, pid)
