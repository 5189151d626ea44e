"""%env as IPython's, %time / %%time: one run, its declarations kept, CPU
and wall clock; on a GPU: the GPU time of a kernel of known length. %env
sets the kernel's environment: that test has a kernel of its own."""
import re

from support import error, kernel, needs_gpu, ok, shared_kernel, stdout_of, value

T = r"[0-9.]+(?:e[+-]\d+)? (?:s|ms|µs|ns)"


def test_env():
    with kernel() as k:
        assert stdout_of(ok(k, "%env ICUDA_TEST_A=one two")) == "env: ICUDA_TEST_A=one two\n"
        assert stdout_of(ok(k, "%env ICUDA_TEST_A")) == "one two\n"
        assert stdout_of(ok(k, "%env ICUDA_TEST_B  three")) == "env: ICUDA_TEST_B=three\n"
        assert stdout_of(ok(k, "%env ICUDA_TEST_C=")) == "env: ICUDA_TEST_C=\n"
        listing = stdout_of(ok(k, "%env"))
        assert "ICUDA_TEST_A=one two\n" in listing and "ICUDA_TEST_B=three\n" in listing
        assert listing.splitlines() == sorted(listing.splitlines())
        c = error(k, "%env ICUDA_TEST_NOT_SET")
        assert c["ename"] == "UsageError" and "Environment does not have key: ICUDA_TEST_NOT_SET" in c["evalue"]
        c = error(k, "%env =x")
        assert c["ename"] == "UsageError"


def test_time_host_statement_and_cell():
    with shared_kernel() as k:
        out = stdout_of(ok(k, "%time long s = 0; for (int i = 0; i < 100000; i++) s += i"))
        assert re.fullmatch(rf"CPU times: user {T}, sys: {T}, total: {T}\nWall time: {T}\n"
                            r"(GPU time: none \(the statement did no GPU work\)\n)?", out), out
        assert value(k, "s") == "(long) 4999950000"  # what it declares stays, as IPython's %time
        out = stdout_of(ok(k, "%%time\ndouble z = 2;\nz *= 3;\nprintf(\"z=%g\\n\", z);"))
        assert out.startswith("z=6\n") and "Wall time: " in out, out
        assert value(k, "z") == "(double) 6"
        for cell, words in [("%time", "nothing to time"), ("%%time -n 3\nint a;", "takes no arguments")]:
            c = error(k, cell)
            assert c["ename"] == "UsageError" and words in c["evalue"], c
        # an error in the statement is the cell's, with no times
        reply, msgs = k.execute("%time int q = 1 / 0")
        assert reply["content"]["status"] == "error" and "Wall time" not in stdout_of(msgs)


@needs_gpu
def test_time_gpu_work():
    with shared_kernel() as k:
        ok(k, "__global__ void spin(long long cycles) { long long t0 = clock64(); while (clock64() - t0 < cycles) { } }")
        ok(k, "int rate_khz; cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0);")
        # about 50 ms of one thread spinning
        out = stdout_of(ok(k, "%time spin<<<1, 1>>>((long long)rate_khz * 50)"))
        m = re.search(rf"Wall time: ({T}) \(until the GPU finished\)\nGPU time: ({T}) \(CUDA events", out)
        assert m, out

        def secs(s):
            v, u = s.split()
            return float(v) * {"s": 1, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}[u]
        wall, gpu = secs(m.group(1)), secs(m.group(2))
        # at least the 50 ms the kernel spins (a loaded GPU only adds), and within the wall time
        assert gpu > 0.045 and gpu <= wall + 0.005, (gpu, wall)
