"""%profile / %%profile on a real GPU (make test-gpu): a trace of 3 launches
and 2 copies lists exactly those, the timeline has one box per activity,
kernels carry the names they were written with (a template instance too),
output of the profiled code reaches the cell, a profiled kernel that faults
costs no session, and CUPTI lets go after each profile. Each test has a
kernel of its own: profiling attaches CUPTI to the GPU worker."""
import re

from support import displays, err, kernel, needs_gpu, ok, run, stdout_of

VECADD = """__global__ void vecadd(double *z, const double *x, const double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}"""

ALLOC = """int N = 1 << 20;
double *hx = (double *)malloc(N * sizeof(double)), *hy = (double *)malloc(N * sizeof(double));
double *hz = (double *)malloc(N * sizeof(double));
for (int i = 0; i < N; i++) { hx[i] = i; hy[i] = 2.0 * i; }
double *x, *y, *z;
cudaMalloc(&x, N * sizeof(double)); cudaMalloc(&y, N * sizeof(double)); cudaMalloc(&z, N * sizeof(double));
cudaMemcpy(y, hy, N * sizeof(double), cudaMemcpyHostToDevice);"""

THREE_AND_TWO = """%%profile
cudaMemcpy(x, hx, N * sizeof(double), cudaMemcpyHostToDevice);
for (int r = 0; r < 3; r++) vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);
cudaMemcpy(hz, z, N * sizeof(double), cudaMemcpyDeviceToHost);
printf("hz[5] = %g\\n", hz[5]);"""


def err_and_msgs(k, code, t=120):
    """Runs a cell that must fail; (ename, evalue, its messages): a profile
    reports on a failed statement too, and these tests read that report."""
    c, msgs = run(k, code, t)
    assert c["status"] == "error", c
    return c["ename"], c["evalue"], msgs


def summary(msgs):
    """The summary's text/plain (the display with an HTML table)."""
    for d in displays(msgs):
        if "text/html" in d and "GPU activity" in d["text/plain"]:
            return d["text/plain"], d["text/html"]
    raise AssertionError(f"no profile summary in {[m['msg_type'] for m in msgs]}")


def timeline(msgs):
    for d in displays(msgs):
        if "image/svg+xml" in d:
            return d["image/svg+xml"]
    return None


def line(text, needle):
    for l in text.splitlines():
        if needle in l:
            return l
    raise AssertionError(f"no line with {needle!r} in\n{text}")


def boxes(svg):
    return svg.count('fill-opacity="0.85"')


@needs_gpu
def test_three_launches_and_two_copies_exactly():
    with kernel() as k:
        ok(k, VECADD)
        ok(k, ALLOC)
        msgs = ok(k, THREE_AND_TWO)
        assert "hz[5] = 15" in stdout_of(msgs)  # the profiled code's own output
        text, html = summary(msgs)
        print(text)
        assert "3 kernel launches, 2 copies, 0 memsets" in text, text
        l = line(text, "  vecadd")
        assert re.search(r"\s3\s", l) and "(4096,1,1)" in l and "(256,1,1)" in l, l
        assert "_Z" not in text, text  # the name as written, not as compiled
        assert re.search(r"\s1\s.*HtoD\s+8388608 B", line(text, "HtoD")), text
        assert re.search(r"\s1\s.*DtoH\s+8388608 B", line(text, "DtoH")), text
        assert "<table>" in html and "vecadd" in html
        svg = timeline(msgs)
        assert svg and svg.startswith("<svg") and boxes(svg) == 5, svg and boxes(svg)
        assert ">default</text>" in svg, svg


@needs_gpu
def test_template_instance_and_line_magic_in_a_cell():
    with kernel() as k:
        ok(k, "template <typename T> __global__ void scale(T *x, T a, int n) "
              "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }")
        msgs = ok(k, """float hf[8]; for (int i = 0; i < 8; i++) hf[i] = i;
float *df; cudaMalloc(&df, sizeof hf); cudaMemcpy(df, hf, sizeof hf, cudaMemcpyHostToDevice);
printf("before\\n");
%profile scale<float><<<1, 8>>>(df, 2.0f, 8);
cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
printf("after %g\\n", hf[7]);""")
        out = stdout_of(msgs)
        assert "before" in out and "after 14" in out, out
        text, html = summary(msgs)
        assert "1 kernel launch, 0 copies, 0 memsets" in text, text
        l = line(text, "scale<float>")
        assert "(1,1,1)" in l and "(8,1,1)" in l, l
        assert "scale&lt;float&gt;" in html
        assert boxes(timeline(msgs)) == 1


@needs_gpu
def test_device_printf_streams_and_memset():
    with kernel() as k:
        ok(k, '#include <cstdio>\n__global__ void hello(int v) { if (threadIdx.x == 0) printf("hello %d\\n", v); }')
        msgs = ok(k, """%%profile
cudaStream_t s; cudaStreamCreate(&s);
int *d; cudaMalloc(&d, 1 << 20);
cudaMemset(d, 0, 1 << 20);
hello<<<1, 32>>>(1);
hello<<<1, 32, 0, s>>>(2);
cudaStreamSynchronize(s);""")
        out = stdout_of(msgs)
        assert "hello 1" in out and "hello 2" in out, out
        text, _ = summary(msgs)
        assert "2 kernel launches, 0 copies, 1 memset" in text, text
        assert re.search(r"\s1\s.*memset\s+1048576 B", line(text, "  memset ")), text
        svg = timeline(msgs)
        assert boxes(svg) == 3 and ">default</text>" in svg and ">stream " in svg, svg


@needs_gpu
def test_a_faulting_kernel_under_profile_costs_no_session():
    with kernel() as k:
        ok(k, VECADD)
        ok(k, ALLOC)
        ok(k, "__global__ void oob(double *p) { p[threadIdx.x + (1L << 40)] = 1; }")
        e, v, msgs = err_and_msgs(k, "%profile oob<<<1, 32>>>(z);")
        assert e == "cudaErrorIllegalAddress", (e, v)
        assert "restarted" in v, v
        # found by a synchronisation inside the code: the same, and the earlier copy is kept
        e, v, msgs = err_and_msgs(k, "%%profile\ncudaMemcpy(x, hx, N * sizeof(double), cudaMemcpyHostToDevice);\n"
                                     "oob<<<1, 32>>>(z);\ncudaDeviceSynchronize();")
        assert e == "cudaErrorIllegalAddress" and "restarted" in v, (e, v)
        print("profile of a fault:", [d.get("text/plain", "")[:200] for d in displays(msgs)],
              stdout_of(msgs, "stderr"))
        # the session goes on, and so does profiling
        ok(k, "cudaMemcpy(x, hx, N * sizeof(double), cudaMemcpyHostToDevice);")
        msgs = ok(k, "%profile vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);")
        text, _ = summary(msgs)
        assert "1 kernel launch" in text, text


@needs_gpu
def test_cells_after_a_profile_run_without_cupti():
    with kernel() as k:
        ok(k, VECADD)
        ok(k, ALLOC)
        msgs = ok(k, "%profile vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);")
        assert "1 kernel launch" in summary(msgs)[0]
        # a plain cell: no trace, no display, same results
        ok(k, "cudaMemcpy(x, hx, N * sizeof(double), cudaMemcpyHostToDevice);")
        msgs = ok(k, "for (int r = 0; r < 10; r++) vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);\n"
                     "cudaMemcpy(hz, z, N * sizeof(double), cudaMemcpyDeviceToHost);\nprintf(\"%g\\n\", hz[2]);")
        assert not displays(msgs) and "6" in stdout_of(msgs)
        # a second profile attaches again and sees only its own work
        msgs = ok(k, "%profile --no-timeline vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);")
        text, _ = summary(msgs)
        assert "1 kernel launch, 0 copies" in text, text
        assert timeline(msgs) is None
        # nothing on the GPU: said so
        msgs = ok(k, "%profile int q = 1;")
        assert "No GPU activity was recorded" in summary(msgs)[0]
        # profiles do not nest: the inner one says so, the outer one still reports
        e, v, msgs = err_and_msgs(k, "%%profile\nvecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);\n"
                                     "%profile vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);")
        assert e == "ProfilerUnavailable" and "nested" in v, (e, v)
        assert "1 kernel launch" in summary(msgs)[0]
        # --metrics says why it is missing and still traces
        msgs = ok(k, "%profile --metrics vecadd<<<(N + 255) / 256, 256>>>(z, x, y, N);")
        assert "not available in this version" in stdout_of(msgs, "stderr")
        assert "1 kernel launch" in summary(msgs)[0]


@needs_gpu
def test_without_cupti_a_clear_reason():
    with kernel(env={"ICUDA_CUPTI": "/nonexistent/libcupti.so.13"}) as k:
        ok(k, "int n = 0;")
        e, v = err(k, "%profile n++;")
        assert e == "ProfilerUnavailable" and "libcupti" in v and "/nonexistent" in v, (e, v)
        ok(k, "n += 1; printf(\"%d\\n\", n);")
