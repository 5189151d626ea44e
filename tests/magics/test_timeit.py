"""%timeit / %%timeit and %roofline: options and their errors, the
host clock's exact output shape, -o results that host code reads, --bytes
and --flops expressions, setup code, errors and interrupts inside the timed
statement, %roofline without measurements; and on a GPU (make test-gpu):
launches timed with CUDA events, -o measuring a kernel of known length,
GB/s as fractions of the device's peaks, and the roofline picture. How
close the figures come to raw measurements is bench/'s (docs/performance.md)."""
import re
import time

import support
from support import displays, error, kernel, needs_gpu, ok, results, shared_kernel, stdout_of, timeout, value

T = r"[0-9.]+(?:e[+-]\d+)? (?:s|ms|µs|ns)"


def timing_lines(n, r, clock):
    return re.compile(rf"^{T} ± {T} per run \(mean ± std\. dev\. of {r} runs?, {n} runs? each; {clock}\)\n"
                      rf"min {T}, max {T} per run\n"
                      # a loop whose compiled code is in the host cache (any earlier
                      # session's) runs compiled even for -n 1, and the report says so
                      r"(?:host code: native tier \(compiled code entered \d+ times?; \d+ loops? or functions? compiled or loaded, \d+ ms compiling\)\n)?")


def test_usage_errors():
    with shared_kernel() as k:
        ok(k, "double x = 1.0;")
        for cell, words in [("%timeit", "nothing to time"),
                            ("%timeit -n 3", "nothing to time"),
                            ("%timeit -n 0 x = 2", "-n takes a whole number"),
                            ("%timeit -r many x = 2", "-r takes a whole number"),
                            ("%timeit -n", "-n needs a value"),
                            ("%timeit -o 2x x = 2", "-o takes the name of a variable"),
                            ("%timeit -o int x = 2", "-o takes the name of a variable"),
                            ("%timeit --bytes", "--bytes needs a value"),
                            ("%timeit -z x = 2", "unknown option -z"),
                            ("%%timeit -n 2\n", "the cell's body is empty"),
                            ("%%timeit\n__global__ void k(int *p) { }", "line 2 holds device code"),
                            ("%%timeit\nstruct P { int a; };", "line 2 holds a type or macro definition"),
                            ("%%timeit\nx++;\n%who", "line 3 holds a magic"),
                            ("%roofline --fast", "unknown argument --fast")]:
            c = error(k, cell)
            assert c["ename"] == "UsageError", (cell, c)
            assert words in c["evalue"], (cell, c["evalue"])
            assert any(l.startswith("usage: %") for l in c["traceback"]), c["traceback"]
        # nothing was lost
        assert value(k, "x") == "(double) 1"


def test_host_statement_exact_output():
    with shared_kernel() as k:
        ok(k, "double x = 1.0; long runs = 0;")
        out = stdout_of(ok(k, "%timeit -n 100 -r 3 x = x * 0.5 + 1.0; runs++"))
        assert timing_lines(100, 3, "host clock").fullmatch(out), out
        # one warm-up run, then 3 x 100
        assert value(k, "runs") == "(long) 301"
        # one repeat of one run: singular words
        out = stdout_of(ok(k, "%timeit -n 1 -r 1 runs++"))
        assert timing_lines(1, 1, "host clock").fullmatch(out), out
        assert "1 run, 1 run each" in out
        # -q: nothing at all; glued -n5 and -r2; -- before a statement with a leading '-'
        assert stdout_of(ok(k, "%timeit -q -n5 -r2 runs++")) == ""
        assert value(k, "runs") == "(long) 314"
        out = stdout_of(ok(k, "%timeit -n 2 -r 2 -- -x"))
        assert timing_lines(2, 2, "host clock").fullmatch(out), out


def test_automatic_n_and_r():
    with shared_kernel() as k:
        ok(k, "long runs = 0;")
        out = stdout_of(ok(k, "%timeit -o t runs++"))
        m = re.search(r"of 7 runs, (\d+) runs each; host clock", out)
        assert m, out
        n = int(m.group(1))
        # 1, 2, 5, 10, 20, 50, ... until a repeat takes 0.2 s
        assert re.fullmatch(r"[125]0*", str(n)), n
        assert value(k, "t.n") == f"(long) {n}"
        assert value(k, "t.r") == "(long) 7"


def test_result_variable_fields():
    with shared_kernel() as k:
        ok(k, "double x = 1.0; int N = 1000;")
        out = stdout_of(ok(k, "%timeit -n 50 -r 4 -o res --bytes 2*N*sizeof(double) --flops 2*N "
                              "for (int i = 0; i < N; i++) x = x * 0.5 + 1.0"))
        assert timing_lines(50, 4, "host clock").match(out), out
        assert re.search(r"^memory: [0-9.e+]+ GB/s \(host clock: no GPU peak to compare with\)$", out, re.M), out
        assert re.search(r"^compute: [0-9.e+]+ GFLOP/s \(host clock: no GPU peak to compare with\)$", out, re.M), out
        assert "arithmetic intensity: 0.125 FLOP/byte" in out, out
        assert value(k, "res.n") == "(long) 50"
        assert value(k, "res.r") == "(long) 4"
        assert value(k, "res.runs") == "(long) 200"
        assert value(k, "res.ntimes") == "(long) 4"
        assert value(k, "res.bytes == 16000 && res.flops == 2000") == "(int) 1"
        assert value(k, 'strcmp(res.clock, "host clock")') == "(int) 0"
        assert value(k, "res.min > 0 && res.min <= res.mean && res.mean <= res.max") == "(int) 1"
        assert value(k, "res.std >= 0 && res.std <= res.max - res.min") == "(int) 1"
        assert value(k, "fabs(res.bytes_per_s * res.mean - 16000) < 1e-6") == "(int) 1"
        assert value(k, "fabs(res.flops_per_s * res.mean - 2000) < 1e-9") == "(int) 1"
        # the per-repeat times, as host code (and %plot) can use them
        msgs = ok(k, "double s = 0; for (int i = 0; i < res.ntimes; i++) { assert(res.times[i] >= res.min && "
                     "res.times[i] <= res.max); s += res.times[i]; }\nfabs(s / res.ntimes - res.mean) < 1e-12")
        assert results(msgs) == ["(int) 1"]
        # the struct shows like any struct, and %who lists it
        assert value(k, "res").startswith("(timeit_result) {mean = ")
        assert "timeit_result" in stdout_of(ok(k, "%who")) + str(displays(ok(k, "%who")))
        # storing again replaces it, as declaring a variable again does
        ok(k, "%timeit -q -n 3 -r 2 -o res x = 2")
        assert value(k, "res.n") == "(long) 3"
        # but a type's name is refused: the type would be gone
        c = error(k, "%timeit -q -n 1 -r 1 -o size_t x = 3")
        assert c["ename"] == "UsageError" and "size_t is a type" in c["evalue"], c
        assert value(k, "sizeof(size_t)") == "(unsigned long) 8"


def test_bad_bytes_and_flops_expressions_run_nothing():
    with shared_kernel() as k:
        ok(k, "long runs = 0; double *p = 0;")
        c = error(k, "%timeit -n 1 -r 1 --bytes 8*M runs++")
        assert c["ename"] == "TypeError" and "--bytes 8*M" in c["evalue"] and "'M'" in c["evalue"], c
        assert c["traceback"][:3] == ["%timeit, line 1:", "    --bytes 8*M", "              ^"], c["traceback"]
        c = error(k, "%timeit -n 1 -r 1 --flops (2 *) runs++")
        assert c["ename"] == "SyntaxError" and "--flops" in c["evalue"], c
        c = error(k, '%timeit -n 1 -r 1 --bytes "0 - 8" runs++')
        assert c["ename"] == "UsageError" and "--bytes must be a positive number" in c["evalue"], c
        c = error(k, "%timeit -n 1 -r 1 --flops 0 runs++")
        assert c["ename"] == "UsageError" and "--flops must be a positive number" in c["evalue"], c
        c = error(k, "%timeit -n 1 -r 1 --bytes p runs++")
        assert c["ename"] in ("TypeError", "SyntaxError"), c
        assert value(k, "runs") == "(long) 0"
        # spaces inside brackets need no quotes
        out = stdout_of(ok(k, "%timeit -n 1 -r 1 --bytes (3 * 8) runs++"))
        assert "memory:" in out, out


def test_cell_form_with_setup():
    with shared_kernel() as k:
        ok(k, "long setups = 0, runs = 0, seen = 0;")
        out = stdout_of(ok(k, "%%timeit -n 5 -r 2 int base = 100; setups++;\n"
                              "int mine = base + 1;\n"
                              "runs++;\n"
                              "seen = mine;"))
        assert timing_lines(5, 2, "host clock").fullmatch(out), out
        # the setup ran once; the body once to warm up and 2 x 5 times
        assert value(k, "setups") == "(long) 1"
        assert value(k, "runs") == "(long) 11"
        assert value(k, "seen") == "(long) 101"
        # neither the setup's nor the body's declarations joined the session
        for name in ("base", "mine"):
            c = error(k, name)
            assert "undeclared" in c["evalue"], c
        # without setup; loops and blocks in the body
        ok(k, "%%timeit -n 2 -r 1\nruns++;")
        assert value(k, "runs") == "(long) 14"
        ok(k, "%%timeit -n 2 -r 1\nfor (int i = 0; i < 3; i++) {\n    runs++;\n}\nif (runs > 0) { seen++; }")
        assert value(k, "runs") == "(long) 23"
        # a host function cannot be defined in the timed code
        c = error(k, "%%timeit -n 2 -r 1\nint f(void) { return 1; }")
        assert c["ename"] == "SyntaxError" and "function cannot be defined" in c["evalue"], c


def test_error_inside_the_statement_stops_it():
    with shared_kernel() as k:
        ok(k, "int *a = (int *)malloc(4 * sizeof(int)); int i = 0;")
        c = error(k, "%timeit -n 1000 -r 7 a[i++] = 1")
        assert c["ename"] == "RuntimeError", c
        assert c["traceback"][0] == "%timeit, line 1:", c["traceback"]
        assert c["traceback"][1] == "    %timeit -n 1000 -r 7 a[i++] = 1", c["traceback"]
        # it stopped at the first bad access
        assert value(k, "i") == "(int) 5"
        c = error(k, "%%timeit -n 3\nint j = 0;\nint *q = 0;\n*q = j;")
        assert c["ename"] == "RuntimeError" and c["traceback"][0].endswith(", line 4:"), c
        c = error(k, "%timeit -n 2 -r 1 i = = 2")
        assert c["ename"] == "SyntaxError", c
        c = error(k, "%timeit -n 2 -r 1 exit(0)")
        assert "left the timing loop" in c["evalue"], c
        assert value(k, "i") == "(int) 5"


@timeout(60)
def test_interrupt_stops_timing():
    with shared_kernel() as k:
        ok(k, "long runs = 0;")
        msg_id = k.kc.execute("%timeit -n 1000000000 -r 7 runs++")
        k.started(msg_id)
        time.sleep(0.5)  # the statement runs a while (runs > 0 below)
        k.request("interrupt_request", channel="control")
        reply = k.reply_to(msg_id, "shell", timeout=10)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
        assert value(k, "runs > 0") == "(int) 1"


def test_roofline_without_measurements_and_clear():
    with shared_kernel() as k:
        out = stdout_of(ok(k, "%roofline"))
        assert out.startswith("No measurements yet"), out
        assert "%timeit --bytes" in out and "--flops" in out, out
        # a host-clock measurement is remembered but is on no GPU's roofline
        ok(k, "double x = 1.0;")
        ok(k, "%timeit -q -n 10 -r 2 --bytes 16 --flops 2 x = x * 2.0 + 1.0")
        ok(k, "%timeit -q -n 10 -r 2 --bytes 16 x = x * 2.0")  # not both: not remembered
        data = displays(ok(k, "%roofline"))
        tables = [d for d in data if "text/html" in d]
        assert len(tables) == 1, data
        plain = tables[0]["text/plain"]
        assert "x = x * 2.0 + 1.0" in plain and "host clock" in plain, plain
        assert plain.count("\n1 ") == 1 and "\n2 " not in plain, plain
        assert "<table>" in tables[0]["text/html"]
        assert stdout_of(ok(k, "%roofline --clear")) == "forgot 1 measurement\n"
        assert stdout_of(ok(k, "%roofline")).startswith("No measurements yet")


def test_help():
    with shared_kernel() as k:
        out = support.help_of(k, "%timeit?")
        assert out.startswith("%timeit [-n N] [-r R] [-o NAME] [-q] [--bytes EXPR] [--flops EXPR] STATEMENT"), out
        assert "CUDA events" in out
        assert "%roofline" in stdout_of(ok(k, "%lsmagic"))


# ---- on a GPU ----

BUSY = """__global__ void busy(float *out, int iters) {
    float a = threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++) a = fmaf(a, 1.0001f, 1e-7f);
    if (a == 12345.0f) out[0] = a;
}
__global__ void vecadd(double *z, const double *x, const double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}"""

ALLOC = """int N = 1 << 24;
double *x, *y, *z; float *o;
cudaMalloc(&x, N * sizeof(double)); cudaMalloc(&y, N * sizeof(double)); cudaMalloc(&z, N * sizeof(double));
cudaMalloc(&o, sizeof(float));
cudaMemset(x, 0, N * sizeof(double)); cudaMemset(y, 0, N * sizeof(double));"""


@needs_gpu
def test_gpu_launch_timed_with_events():
    with shared_kernel() as k:
        ok(k, BUSY)
        ok(k, ALLOC)
        out = stdout_of(ok(k, "%timeit -n 20 -r 3 busy<<<132, 256>>>(o, 20000)"))
        assert timing_lines(20, 3, "CUDA events").fullmatch(out), out
        # a copy is GPU work too; a host statement is not
        out = stdout_of(ok(k, "%timeit -n 5 -r 2 cudaMemcpy(z, x, N * sizeof(double), cudaMemcpyDeviceToDevice)"))
        assert "; CUDA events)" in out, out
        out = stdout_of(ok(k, "%timeit -n 5 -r 2 N + 1"))
        assert "; host clock)" in out, out
        # automatic n with events
        out = stdout_of(ok(k, "%timeit -o t busy<<<132, 256>>>(o, 2000)"))
        assert "of 7 runs" in out and "; CUDA events)" in out, out
        assert value(k, 'strcmp(t.clock, "CUDA events")') == "(int) 0"
        # 1, 2, 5, 10, ... until a repeat takes 0.2 s (the n each size of
        # kernel gets: bench/timeit_accuracy.py)
        assert re.fullmatch(r"\(long\) [125]0*", value(k, "t.n")), value(k, "t.n")
        assert value(k, "t.r") == "(long) 7"


@needs_gpu
def test_gpu_result_measures_the_kernel():
    """A kernel that spins for 1 ms of its clock: every run %timeit reports
    is at least that long (a loaded GPU only adds), and all the runs it
    timed fit in the cell's wall time. How close %timeit comes to a
    hand-written event measurement is a benchmark figure, not a test
    (bench/timeit_accuracy.py, docs/performance.md)."""
    with shared_kernel() as k:
        ok(k, "__global__ void spin_ms(long long cycles) { long long t0 = clock64(); "
              "while (clock64() - t0 < cycles) { } }")
        ok(k, "int rate_khz; cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0);")
        t0 = time.time()
        ok(k, "%timeit -q -n 20 -r 5 -o t spin_ms<<<1, 1>>>((long long)rate_khz)")
        wall = time.time() - t0
        assert value(k, 'strcmp(t.clock, "CUDA events")') == "(int) 0"
        assert value(k, "t.runs") == "(long) 100"
        # the clock rate is the highest the SMs run at: 1 ms or more
        assert value(k, "t.min >= 0.00099 && t.min <= t.mean && t.mean <= t.max") == "(int) 1", value(k, "t.min")
        # seconds, not milliseconds: the runs fit in the wall time
        runs_s = float(value(k, "t.runs * t.mean").split()[-1])
        assert runs_s <= wall, (runs_s, wall)


@needs_gpu
def test_gpu_bytes_give_bandwidth_and_fraction_of_peak():
    with shared_kernel() as k:
        ok(k, BUSY)
        ok(k, ALLOC)
        out = stdout_of(ok(k, "%timeit -n 20 -r 3 -o t --bytes 3*N*sizeof(double) --flops N "
                              "vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N)"))
        m = re.search(r"^memory: ([0-9.e+]+) GB/s = ([0-9.]+)% of the measured peak ([0-9.]+) ([GT])B/s "
                      r"\(([0-9.]+)% of the theoretical ([0-9.]+) ([GT])B/s\)$", out, re.M)
        assert m, out
        gbs, frac, frac_theory = float(m.group(1)), float(m.group(2)), float(m.group(5))
        peak = float(m.group(3)) * (1e3 if m.group(4) == "T" else 1)
        theory = float(m.group(6)) * (1e3 if m.group(7) == "T" else 1)
        # the fractions are the rate over each peak (how near the peak a
        # vector add comes is a benchmark figure: docs/performance.md)
        assert abs(frac - 100 * gbs / peak) <= 0.02 * frac + 0.1, out
        assert abs(frac_theory - 100 * gbs / theory) <= 0.02 * frac_theory + 0.1, out
        # nothing measured moves more than the memory can: a load only lowers
        # both rates, a wrong unit would raise them a thousandfold
        assert gbs <= 1.1 * theory and peak <= 1.1 * theory, out
        assert value(k, "fabs(t.bytes_per_s * t.mean - 3.0 * N * sizeof(double)) < 1e-3 * 3.0 * N * sizeof(double)") \
            == "(int) 1"
        assert re.search(r"^compute: [0-9.e+]+ GFLOP/s = [0-9.]+% of the FP32 peak [0-9.]+ [GT]FLOP/s, "
                         r"[0-9.]+% of the FP64 peak [0-9.]+ [GT]FLOP/s$", out, re.M), out
        assert "arithmetic intensity: 0.0417 FLOP/byte" in out, out
        assert value(k, "fabs(t.bytes_per_s / 1e9 - %r) / %r < 0.01" % (gbs, gbs)) == "(int) 1"


@needs_gpu
def test_gpu_roofline_picture():
    with shared_kernel() as k:
        ok(k, BUSY)
        ok(k, ALLOC)
        ok(k, "%timeit -q -n 20 -r 3 --bytes 3*N*sizeof(double) --flops N vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N)")
        ok(k, "%timeit -q -n 20 -r 3 --bytes 4 --flops 2.0*132*256*20000 busy<<<132, 256>>>(o, 20000)")
        data = displays(ok(k, "%roofline"))
        svgs = [d for d in data if "image/svg+xml" in d]
        assert len(svgs) == 1, data
        svg = svgs[0]["image/svg+xml"]
        assert svg.startswith("<svg") and svg.count("<circle") >= 2, svg[:400]
        assert "vecadd" in svg and "busy" in svg and "roof:" in svg
        tables = [d for d in data if "text/html" in d]
        plain = tables[0]["text/plain"]
        assert re.search(r"vecadd .* memory, [0-9.]+%", plain), plain
        assert re.search(r"busy .* compute, [0-9.]+%", plain), plain
        data = displays(ok(k, "%roofline --fp64"))
        assert any("FP64" in d.get("image/svg+xml", "") for d in data), data


@needs_gpu
def test_gpu_fault_inside_timing_is_the_cells_error():
    # the fault restarts the GPU worker: a kernel of its own
    with kernel() as k:
        ok(k, "__global__ void bad(int *p) { p[1 << 30] = 1; }")
        ok(k, "int *d; cudaMalloc(&d, 4);")
        c = error(k, "%timeit -n 10 -r 2 bad<<<1, 1>>>(d)")
        assert c["ename"] in ("cudaErrorIllegalAddress", "cudaErrorLaunchFailure"), c
        # the session goes on
        ok(k, "%timeit -n 2 -r 1 cudaMemset(d, 0, 4)")
