"""The native tier of host code through the kernel (docs/native-tier.md):
%host_tier shows and sets the mode, rejects bad arguments; a hot loop runs
compiled, gives the interpreter's result, and %timeit says the native tier
ran; an out-of-bounds write in a compiled hot loop is the interpreter's
error at the cell's line, and the session goes on."""
import functools
import os
import random
import re
import shutil
import tempfile
import time

import support
from support import kernel, shared_kernel, stdout_of

# cells that compile host code with the C compiler: more time than most
ok = functools.partial(support.ok, t=300)


def test_host_tier_magic():
    with shared_kernel() as k:
        assert stdout_of(ok(k, "%host_tier")) == "host tier: auto, compiled code built with -O2\n"
        assert stdout_of(ok(k, "%host_tier always -O0")) == "host tier: always, compiled code built with -O0\n"
        assert stdout_of(ok(k, "%host_tier off")) == "host tier: off, compiled code built with -O0\n"
        reply, msgs = k.execute("%host_tier sometimes", timeout=60)
        c = reply["content"]
        assert c["status"] == "error" and c["ename"] == "UsageError", c
        assert "sometimes" in c["evalue"], c
        assert any("%host_tier [off|auto|always]" in line for line in c["traceback"]), c


def test_hot_loop_compiled_same_result_and_errors():
    with shared_kernel() as k:
        ok(k, "%host_tier always")
        ok(k, "int n = 200000; double *x = (double *)malloc(n * sizeof(double)); double s = 0;\n"
              "for (int i = 0; i < n; i++) x[i] = i * 0.25;")
        out = stdout_of(ok(k, "%timeit -n 3 -r 2 for (int i = 0; i < n; i++) s += x[i] * x[i];"))
        assert "host code: native tier" in out, out
        ok(k, "s = 0;\nfor (int i = 0; i < n; i++) s += x[i] * x[i];")
        ok(k, "%host_tier off")
        ok(k, "double t = 0;\nfor (int i = 0; i < n; i++) t += x[i] * x[i];")
        assert stdout_of(ok(k, 'printf("%d\\n", s == t);')) == "1\n"
        ok(k, "%host_tier auto")
        reply, msgs = k.execute("float *a = (float *)malloc(n * sizeof(float));\n"
                                "for (int i = 0; i <= n; i++)\n"
                                "    a[i] = 1.0f;\n", timeout=300)
        c = reply["content"]
        assert c["status"] == "error" and c["ename"] == "RuntimeError", c
        assert "out-of-bounds write" in c["evalue"] and "a[200000]" in c["evalue"], c
        assert any("a[i] = 1.0f;" in line for line in c["traceback"]), c["traceback"]
        assert stdout_of(ok(k, 'printf("%g\\n", a[n - 1]);')) == "1\n"


def test_host_cell_magic_chooses_for_one_cell():
    """%%host: this cell interpreted (off) or compiled (always), the
    session's choice back afterwards, the same answer and the same errors."""
    with shared_kernel() as k:
        ok(k, "int n = 100000; double *x = (double *)malloc(n * sizeof(double));\n"
              "for (int i = 0; i < n; i++) x[i] = i * 0.5;")
        a = stdout_of(ok(k, "%%host always -O0\n%timeit -n 2 -r 1 double s = 0; for (int i = 0; i < n; i++) s += x[i];"))
        assert "host code: native tier" in a, a
        b = stdout_of(ok(k, "%%host off\n%timeit -n 2 -r 1 double s = 0; for (int i = 0; i < n; i++) s += x[i];"))
        assert "native tier" not in b, b
        assert stdout_of(ok(k, "%host_tier")) == "host tier: auto, compiled code built with -O2\n"
        # an error inside the cell: the same error, and the session's choice still comes back
        reply, _ = k.execute("%%host always\nfor (int i = 0; i <= n; i++) x[i] = 1;", timeout=120)
        c = reply["content"]
        assert c["ename"] == "RuntimeError" and "out-of-bounds write" in c["evalue"], c
        assert stdout_of(ok(k, "%host_tier")) == "host tier: auto, compiled code built with -O2\n"
        for bad, words in [("%%host\nint z;", "say how the cell runs"), ("%%host fast\nint z;", "unknown argument 'fast'")]:
            reply, _ = k.execute(bad, timeout=60)
            assert reply["content"]["ename"] == "UsageError" and words in reply["content"]["evalue"], reply["content"]


def test_timeit_times_one_tier():
    """A loop that gets hot in %timeit's warm-up is compiled then, in the
    foreground, so that every timed repeat runs the same code: with a C
    compiler that takes 1.5 s, each of the 3 repeats still enters compiled
    code (in the background they would all have run interpreted)."""
    d = tempfile.mkdtemp(prefix="icuda-slowcc-")
    try:
        cc = os.path.join(d, "cc")
        with open(cc, "w") as f:
            f.write('#!/bin/sh\nsleep 1.5\nexec cc "$@"\n')
        os.chmod(cc, 0o755)
        salt = random.randrange(1000, 10 ** 6)  # no compiled code to find in any cache
        with kernel(env={"ICUDA_HOST_CC": cc, "XDG_CACHE_HOME": d}) as k:
            ok(k, "int n = 300000; long s = 0;")
            out = stdout_of(ok(k, f"%timeit -n 1 -r 3 for (int i = 0; i < n; i++) s += i % {salt};"))
            m = re.search(r"compiled code entered (\d+) times", out)
            # the warm-up switches to compiled code when the loop gets hot, then 3 repeats
            assert m and int(m.group(1)) == 4, out
            # and the session's own hot loops go back to compiling in the background
            ok(k, f"for (int i = 0; i < n; i++) s -= i % {salt + 1};")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_interrupt_abandons_a_foreground_compile():
    """The tier forced on compiles a loop in the foreground: the interpreter
    waits for the C compiler. An interrupt then kills the compiler and ends
    the cell with KeyboardInterrupt, and the session goes on. The compiler
    here never finishes (it writes its pid, then sleeps)."""
    d = tempfile.mkdtemp(prefix="icuda-stuck-cc-")
    try:
        cc, pidfile = os.path.join(d, "cc"), os.path.join(d, "pid")
        with open(cc, "w") as f:
            f.write(f'#!/bin/sh\necho $$ > {pidfile}.tmp && mv {pidfile}.tmp {pidfile}\nexec sleep 600\n')
        os.chmod(cc, 0o755)
        with kernel(env={"ICUDA_HOST_CC": cc, "XDG_CACHE_HOME": d}) as k:
            ok(k, "%host_tier always\nint before = 1;")
            msg_id = k.kc.execute("long s = 0;\nfor (;;) s++;")
            for _ in range(6000):  # the compiler has started
                if os.path.exists(pidfile):
                    break
                time.sleep(0.01)
            assert os.path.exists(pidfile), "the compiler never started"
            k.request("interrupt_request", channel="control")
            c = k.reply_to(msg_id, "shell", timeout=120)["content"]
            assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
            with open(pidfile) as f:
                pid = int(f.read())
            try:
                os.kill(pid, 0)
                alive = True
            except ProcessLookupError:
                alive = False
            assert not alive, f"the compiler (pid {pid}) still runs"
            ok(k, "%host_tier off")
            assert stdout_of(ok(k, 'printf("%d\\n", before + 1);')) == "2\n"
    finally:
        shutil.rmtree(d, ignore_errors=True)
