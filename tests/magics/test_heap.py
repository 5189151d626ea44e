"""%heap, %free and %reset: live buffers with the variables that
point at them, where they were made, totals; freeing the right way for the
place; a fresh session in the same process. On a GPU: device, pinned and
managed buffers, cudaMemGetInfo, and %reset giving device memory back."""
import re

from support import count_of, displays, error, kernel, needs_gpu, ok, shared_kernel, stdout_of, value


def heap(k):
    d = displays(ok(k, "%heap"))
    assert len(d) == 1, d
    return d[0]


def test_heap_of_host_buffers():
    with shared_kernel() as k:
        assert "no live buffers" in heap(k)["text/plain"]
        n = count_of(ok(k, "int unused = 1;\n"
                           "float *a = (float *)malloc(4000); float *b = a; float *c = a + 4;\n"
                           "int *q = new int[10];\ndouble *d = new double;"))
        h = heap(k)
        rows = {ln.split()[0]: ln for ln in h["text/plain"].splitlines()[1:] if ln.split()}
        assert re.search(rf"a, b, c \(\+16 B\)\s+3\.9 KiB\s+host\s+In \[{n}\], line 2\s+yes", rows["malloc"]), rows
        assert re.search(rf"q\s+40 B\s+host\s+In \[{n}\], line 3", rows["new[]"]), rows
        assert re.search(rf"d\s+8 B\s+host\s+In \[{n}\], line 4", rows["new"]), rows
        assert "total host: 3 buffers, 4.0 KiB" in h["text/plain"], h["text/plain"]
        html = h["text/html"]
        assert html.startswith("<table>") and "<th>variables</th>" in html and "<code>a, b, c (+16 B)</code>" in html
        assert "color" not in html  # reads in light and dark themes alike
        # a buffer no variable points at still shows
        ok(k, "malloc(24);")
        assert re.search(r"\(none\)\s+24 B", heap(k)["text/plain"])


def test_long_listings_are_capped_and_counted():
    # 200,000 buffers made a 46 MB %heap display; the rows stop at 500
    with shared_kernel() as k:
        ok(k, "int **ps = (int **)malloc(700 * sizeof(int *)); for (int i = 0; i < 700; i++) ps[i] = (int *)malloc(4);\n"
              + "\n".join(f"int w{i} = {i};" for i in range(600)))
        t = heap(k)["text/plain"]
        assert "... and 201 more buffers (in the totals)" in t, t[-300:]
        assert "total host: 701 buffers" in t, t[-300:]
        w = displays(ok(k, "%who"))[0]["text/plain"]
        assert "... and " in w and "more variables" in w and len(w.splitlines()) < 520, w[-200:]


def test_free_the_right_way_for_each_allocation():
    with shared_kernel() as k:
        ok(k, "float *a = (float *)malloc(4000); float *b = a; float *c = a + 4;\n"
              "int *q = new int[10];\ndouble *d = new double; int z = 3;")
        for cell, words in [("%free", "which variables"), ("%free nope", "nope is not a session variable"),
                            ("%free c", "points inside a buffer"), ("%free z", "does not point at a live buffer"),
                            ("%free a nope", "nope is not a session variable")]:
            c = error(k, cell)
            assert c["ename"] == "UsageError" and words in c["evalue"], (cell, c["evalue"])
        assert "a, b, c" in heap(k)["text/plain"]  # nothing was freed by the failures
        out = stdout_of(ok(k, "%free a q d"))
        assert "freed 3.9 KiB of host memory with free; a, b now NULL" in out, out
        assert "dangling: c (+16 B)" in out, out
        assert "freed 40 B of host memory with delete[]; q now NULL" in out, out
        assert "freed 8 B of host memory with delete; d now NULL" in out, out
        assert value(k, "a == NULL && b == NULL && q == NULL && d == NULL") in ("(int) 1", "(bool) true")
        assert "no live buffers" in heap(k)["text/plain"]
        c = error(k, "%free a")
        assert "does not point at a live buffer" in c["evalue"]
        # two names of one buffer free it once
        ok(k, "char *s = (char *)malloc(10); char *t = s;")
        assert stdout_of(ok(k, "%free s t")).count("freed") == 1


def test_reset_gives_a_fresh_session():
    with kernel() as k:
        ok(k, "%%header util.cuh\n#define SCALE 3")
        ok(k, "%nvrtc -lineinfo")
        ok(k, "__device__ float twice(float x) { return 2 * x; }\n"
              "__global__ void k1(float *p) { p[0] = twice(p[0]); }")
        ok(k, "int N = 10; double *buf = (double *)malloc(N * sizeof(double));\n"
              "int helper(int x) { return x + N; }\ntypedef struct { int a; } thing;")
        ok(k, "double acc = 0;")
        ok(k, "%timeit -q -n 2 -r 2 acc += 1")
        out = stdout_of(ok(k, "%reset"))
        assert re.search(r"session reset: 3 variables, 1 buffer \(80 B\), 1 kernel", out), out
        for expr in ("N", "helper(1)", "buf", "acc"):
            c = error(k, expr)
            assert "undeclared" in c["evalue"], (expr, c["evalue"])
        c = error(k, "thing t;")
        assert c["ename"] in ("TypeError", "SyntaxError"), c
        assert "no live buffers" in heap(k)["text/plain"]
        assert "no session variables" in stdout_of(ok(k, "%who"))
        # the kernels and the device prelude are gone
        c = error(k, "%resources k1")
        assert "k1" in c["evalue"], c["evalue"]
        c = error(k, "__global__ void k2(float *p) { p[0] = twice(p[0]); }")
        assert c["ename"] == "CompileError" and "twice" in c["evalue"] + "".join(c["traceback"]), c
        # %%header files and %nvrtc options stay
        ok(k, '#include "util.cuh"\n__global__ void k3(float *p) { p[0] *= SCALE; }')
        assert "-lineinfo" in stdout_of(ok(k, "%nvrtc"))
        # names can be declared again with other types, and the library still works
        ok(k, "float N = 2.5f; std::vector<int> v = {1, 2};")
        assert value(k, "N * v.size()") == "(float) 5"
        # -f is accepted, anything else is not
        ok(k, "%reset -f")
        c = error(k, "%reset --hard")
        assert c["ename"] == "UsageError" and "-f" in c["evalue"]


@needs_gpu
def test_heap_and_free_of_device_pinned_and_managed_buffers():
    with kernel() as k:
        ok(k, "float *d, *m, *p; cudaMalloc(&d, 1 << 20); cudaMallocManaged(&m, 4096); cudaMallocHost(&p, 8192);\n"
              "cudaMemset(d, 0, 1 << 20);")
        h = heap(k)["text/plain"]
        assert re.search(r"^0x[0-9a-f]+\s+d\s+1\.0 MiB\s+device 0\s+In \[1\], line 1", h, re.M), h
        assert re.search(r"^0x[0-9a-f]+\s+m\s+4\.0 KiB\s+managed\s+In \[1\], line 1\s+yes", h, re.M), h
        assert re.search(r"^0x[0-9a-f]+\s+p\s+8\.0 KiB\s+pinned\s+In \[1\], line 1\s+yes", h, re.M), h
        assert "device: 1 buffer, 1.0 MiB" in h and "managed: 1 buffer" in h and "pinned: 1 buffer" in h, h
        assert re.search(r"device 0 \(cudaMemGetInfo\): .* free of ", h), h
        out = stdout_of(ok(k, "%free d m p"))
        assert "with cudaFree; d now NULL" in out and "with cudaFree; m now NULL" in out, out
        assert "of pinned memory with cudaFreeHost; p now NULL" in out, out
        assert "no live buffers" in heap(k)["text/plain"]
        c = error(k, "%free d")
        assert "does not point at a live buffer" in c["evalue"]


@needs_gpu
def test_reset_releases_device_memory_and_modules():
    with kernel() as k:
        ok(k, "__global__ void touch(char *p) { p[threadIdx.x] = 1; }")
        ok(k, "size_t f0, t0; cudaMemGetInfo(&f0, &t0);\n"
              "char *big; cudaMalloc(&big, (size_t)1 << 30); touch<<<1, 32>>>(big); cudaDeviceSynchronize();")
        f0 = int(value(k, "f0").split()[-1])
        out = stdout_of(ok(k, "%reset"))
        assert "1 buffer (1.0 GiB)" in out, out
        ok(k, "size_t f1, t1; cudaMemGetInfo(&f1, &t1);")
        f1 = int(value(k, "f1").split()[-1])
        assert f1 >= f0 - (64 << 20), (f0, f1)  # the gigabyte came back
        c = error(k, "touch<<<1, 1>>>(0);")
        assert "touch" in c["evalue"]
        # the worker is the same and works
        ok(k, "__global__ void again(int *p) { p[0] = 7; }")
        ok(k, "int *q; cudaMalloc(&q, 4); again<<<1, 1>>>(q); int h = 0; cudaMemcpy(&h, q, 4, cudaMemcpyDeviceToHost);")
        assert value(k, "h") == "(int) 7"


def test_who_table_escapes_types_and_leaves_out_the_library():
    with shared_kernel() as k:
        ok(k, "std::vector<int> v = {1, 2, 3}; double x = 1;")
        d = displays(ok(k, "%who"))
        assert len(d) == 1
        html, plain = d[0]["text/html"], d[0]["text/plain"]
        assert "<code>std::vector&lt;int&gt;</code>" in html, html
        assert "std::cout" not in plain and re.search(r"^x\s+double\s+8 B", plain, re.M), plain
        assert "color" not in html


def test_heap_names_pointers_inside_structs_and_arrays():
    with shared_kernel() as k:
        ok(k, "struct Vec { int n; float *data; };\n"
              "struct Vec v = {4, (float *)malloc(16)};\n"
              "double *parts[3] = {0, (double *)malloc(8), 0};")
        text = heap(k)["text/plain"]
        assert re.search(r"v\.data\s+16 B", text), text
        assert re.search(r"parts\[1\]\s+8 B", text), text
        ok(k, "%free v.data")
        assert "v.data" not in heap(k)["text/plain"]


def test_timeit_o_twice_leaves_no_orphan_buffer():
    with shared_kernel() as k:
        ok(k, "int x = 0;")
        ok(k, "%timeit -o r -n 2 -r 3 x++;")
        ok(k, "%timeit -o r -n 2 -r 3 x++;")
        rows = [ln for ln in heap(k)["text/plain"].splitlines() if "malloc" in ln]
        assert len(rows) == 1 and "r.times" in rows[0], rows
