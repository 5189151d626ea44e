"""%memcheck / %%memcheck: a statement's GPU work under compute-sanitizer in
a worker of its own, then back to a normal worker with every device buffer
kept; each finding told at the cell and line of the device code, with the
thread, block and buffer. Without a GPU (CI): a clear error and the session
goes on; usage errors. The report parser has its own C unit test
(tests/unit/test_sanitizer_log.c). The GPU tests need compute-sanitizer in
the toolkit's bin folder (or ICUDA_TOOLS_PATH); each has a kernel of its
own, since %memcheck moves the session to a worker under compute-sanitizer
and back."""
import functools
import re

import support
from support import count_of, kernel, needs_gpu, shared_kernel, stdout_of, timeout

# the thread with i == n writes one int past the end of a
OOB = """__global__ void fill(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n)
        a[i] = 0;
}"""

INC = """__global__ void inc(int *a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 1;
}
__global__ void through(int **pp, int v) { (*pp)[0] = v; }"""

# 64 threads, two warps: each reads what a thread of the other warp wrote,
# with no __syncthreads() between
RACE = """__global__ void reverse(int *d) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = d[t];
    d[t] = s[63 - t];
}"""

COPY = "__global__ void copyk(int *o, const int *u) { int i = blockIdx.x * blockDim.x + threadIdx.x; o[i] = u[i]; }"


# compute-sanitizer runs a statement for minutes
ok = functools.partial(support.ok, t=300)
error = functools.partial(support.error, t=300)


def test_memcheck_without_a_gpu_is_a_clear_error():
    if support.GPU:
        return  # the GPU tests below cover the machine with one
    with shared_kernel() as k:
        ok(k, OOB)
        ok(k, "int n = 1000; int x = 5;")
        for code in ("%memcheck fill<<<4, 256>>>(0, n);", "%memcheck --tool racecheck x = 6;",
                     "%%memcheck --tool=initcheck\nx = 7;"):
            c = error(k, code)
            assert c["ename"] in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), c
            assert "%memcheck runs the statement's GPU work under compute-sanitizer" in c["evalue"], c
            assert "no GPU" in c["evalue"], c
        # nothing ran, nothing was lost
        msgs = ok(k, 'printf("%d %d\\n", n, x);')
        assert stdout_of(msgs) == "1000 5\n"


def test_memcheck_usage_errors():
    with shared_kernel() as k:
        for code, what in (("%memcheck", "give the statement to check"),
                           ("%memcheck --tool", "--tool takes memcheck, racecheck, initcheck or synccheck"),
                           ("%memcheck --tool leakcheck x = 1;", "not 'leakcheck'"),
                           ("%%memcheck --tool racecheck x = 1;\nx = 2;", "%%memcheck takes only --tool")):
            c = error(k, code)
            assert c["ename"] == "UsageError" and what in c["evalue"], (code, c)
            assert any("usage: %memcheck" in line for line in c["traceback"]), c
        out = support.help_of(k, "%memcheck?")
        assert "racecheck" in out and "CudaMemcheckError" in out


@needs_gpu
@timeout(600)
def test_out_of_bounds_write_at_its_cell_and_line():
    with kernel() as k:
        cell = count_of(ok(k, OOB))
        ok(k, "int n = 1000; int *a; cudaMalloc(&a, n * sizeof(int));")
        c = error(k, "%memcheck fill<<<4, 256>>>(a, n);")
        assert c["ename"] == "CudaMemcheckError", c
        v = c["evalue"]
        # i == n == 1000 is thread 232 of block 3
        assert v.startswith("memcheck: Invalid __global__ write of size 4 bytes"), v
        assert f"at In [{cell}], line 4 in fill" in v, v
        assert "thread (232,0,0) block (3,0,0)" in v, v
        assert "0 bytes after the end of a (4000 bytes" in v, v
        tb = "\n".join(c["traceback"])
        assert "compute-sanitizer memcheck found 1 error in 1 kernel launch" in tb, tb
        assert "a[i] = 0;" in tb and "by thread (232,0,0) in block (3,0,0)" in tb, tb
        # back on a normal worker: the buffer and the kernel work as before
        msgs = ok(k, """cudaMemset(a, 0xff, n * sizeof(int));
fill<<<4, 250>>>(a, n - 1);
int h[1000]; cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
printf("%d %d\\n", h[0], h[999]);""")
        assert stdout_of(msgs) == "0 0\n"
        # many threads of one line: one finding, counted
        c = error(k, "%memcheck fill<<<8, 256>>>(a, 1500);")
        tb = "\n".join(c["traceback"])
        m = re.search(r"Invalid __global__ write of size 4 bytes\S* \((\d+) times\)", tb)
        assert m and int(m.group(1)) == 501, tb  # i = 1000 ... 1500
        assert tb.count(f"In [{cell}], line 4") == 1, tb


@needs_gpu
@timeout(600)
def test_racecheck_names_both_lines():
    with kernel() as k:
        cell = count_of(ok(k, RACE))
        ok(k, "int *d; cudaMalloc(&d, 64 * sizeof(int)); cudaMemset(d, 0, 64 * sizeof(int));")
        c = error(k, "%memcheck --tool racecheck reverse<<<1, 64>>>(d);")
        assert c["ename"] == "CudaMemcheckError", c
        v = c["evalue"]
        assert v.startswith("racecheck: "), v
        assert "Race" in v and f"In [{cell}], line 4" in v and f"In [{cell}], line 5" in v, v
        tb = "\n".join(c["traceback"])
        assert "s[t] = d[t];" in tb and "d[t] = s[63 - t];" in tb, tb
        assert "hazard" in tb, tb
        # the fixed kernel is clean
        ok(k, RACE.replace("    d[t] = s[63 - t];", "    __syncthreads();\n    d[t] = s[63 - t];"))
        msgs = ok(k, "%memcheck --tool racecheck reverse<<<1, 64>>>(d);")
        assert "compute-sanitizer racecheck: no errors in 1 kernel launch" in stdout_of(msgs)


@needs_gpu
@timeout(600)
def test_buffers_keep_their_contents_across_the_switch_and_back():
    with kernel() as k:
        ok(k, INC)
        ok(k, """int n = 1000; int h[1000]; for (int i = 0; i < n; i++) h[i] = i;
int *d; cudaMalloc(&d, n * sizeof(int));
cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice);
inc<<<4, 256>>>(d, n);
int *e; cudaMalloc(&e, 64); cudaMemset(e, 7, 64);
int **pp; cudaMalloc(&pp, sizeof(int *)); cudaMemcpy(pp, &e, sizeof(int *), cudaMemcpyHostToDevice);""")
        # d's contents are known only to the GPU now (a kernel wrote it)
        msgs = ok(k, "%memcheck inc<<<4, 256>>>(d, n);")
        out = stdout_of(msgs)
        assert "compute-sanitizer memcheck: no errors in 1 kernel launch" in out, out
        msgs = ok(k, """%%memcheck
inc<<<4, 256>>>(d, n);
through<<<1, 1>>>(pp, 42);""")
        assert "no errors in 2 kernel launches" in stdout_of(msgs)
        msgs = ok(k, """int back[1000]; cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
for (int i = 0; i < n; i++) assert(back[i] == i + 3);
int eb[16]; cudaMemcpy(eb, e, 64, cudaMemcpyDeviceToHost);
printf("%d %d %d\\n", back[999], eb[0], eb[1]);""")
        # the pointer stored inside pp still reached e in the sanitized worker
        assert stdout_of(msgs) == f"1002 42 {0x07070707}\n", stdout_of(msgs)
        # and a fault on the normal worker afterwards recovers as it always did
        ok(k, "inc<<<4, 256>>>(d, n); cudaDeviceSynchronize();")


@needs_gpu
@timeout(600)
def test_initcheck_and_a_clean_statement():
    with kernel() as k:
        cell = count_of(ok(k, COPY))
        msgs = ok(k, """%%memcheck --tool initcheck
int *o, *u; cudaMalloc(&o, 1024 * sizeof(int)); cudaMalloc(&u, 1024 * sizeof(int));
cudaMemset(u, 0, 1024 * sizeof(int));
copyk<<<4, 256>>>(o, u);""")
        assert "compute-sanitizer initcheck: no errors in 1 kernel launch" in stdout_of(msgs)
        c = error(k, """%%memcheck --tool initcheck
int *w; cudaMalloc(&w, 1024 * sizeof(int));
copyk<<<4, 256>>>(o, w);""")
        assert c["ename"] == "CudaMemcheckError" and c["evalue"].startswith("initcheck: Uninitialized"), c
        assert f"In [{cell}], line 1" in c["evalue"], c
