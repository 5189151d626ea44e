"""What JupyterLab, Notebook and the console ask of the kernel beside running
cells, as the real kernel answers it: inspection (Shift-Tab, NAME?),
completion (Tab) and the pager's page payload. History across restarts is
the protocol's (test_kernel_info.py)."""
import support
from support import kernel, needs_gpu

KERNEL_CELL = "__global__ void vecadd(float *z, const float *x, int n) { int i = threadIdx.x; if (i < n) z[i] = x[i]; }"
HOST_CELL = ("struct P { int a; float bee; }; struct P pt = {1, 2.5f}; struct P *pp = &pt;\n"
             "int x = 42; int *h = (int *)malloc(40);\n"
             "int twice_it(int v) { return 2 * v; }")


def inspect(k, code, pos=None, level=0):
    r = k.request("inspect_request", {"code": code, "cursor_pos": len(code) if pos is None else pos,
                                      "detail_level": level})
    c = r["content"]
    assert c["status"] == "ok", c
    return c


def complete(k, code, pos=None):
    r = k.request("complete_request", {"code": code, "cursor_pos": len(code) if pos is None else pos})
    c = r["content"]
    assert c["status"] == "ok", c
    assert len(c["matches"]) == len(set(c["matches"])), c["matches"]
    types = c["metadata"]["_jupyter_types_experimental"]
    assert [t["text"] for t in types] == c["matches"]
    assert all(t["start"] == c["cursor_start"] and t["end"] == c["cursor_end"] for t in types)
    return c


def ok(k, code):
    reply, msgs = k.execute(code)
    assert reply["content"]["status"] == "ok", reply["content"]
    return reply, msgs


def test_inspect_kernels_variables_runtime_builtins_magics():
    with kernel() as k:
        ok(k, KERNEL_CELL)
        ok(k, HOST_CELL)
        for level in (0, 1):
            c = inspect(k, "vecadd", 3, level)
            assert c["found"]
            plain, md = c["data"]["text/plain"], c["data"]["text/markdown"]
            assert "vecadd(float *z, const float *x, int n)" in plain and "In [1]" in plain
            assert "registers" in plain, plain
            assert "```cuda" in md and "vecadd(float *z" in md
        c = inspect(k, "x = cudaMalloc", 7)
        plain = c["data"]["text/plain"]
        assert c["found"] and "cudaError_t cudaMalloc(void **devPtr, size_t size)" in plain, plain
        assert "device memory" in plain and "cudaErrorMemoryAllocation" in plain, plain
        assert "`cudaErrorInvalidValue`" in c["data"]["text/markdown"]
        # inside a call's parentheses: the function called
        plain = inspect(k, "cudaMemcpy(d, h, ")["data"]["text/plain"]
        assert "enum cudaMemcpyKind kind" in plain and "cudaErrorInvalidMemcpyDirection" in plain, plain
        plain = inspect(k, "vecadd<<<1, 32>>>(")["data"]["text/plain"]
        assert "vecadd: kernel" in plain, plain
        plain = inspect(k, "x")["data"]["text/plain"]
        assert "int x" in plain and "In [2], line 2" in plain and "(int) 42" in plain, plain
        plain = inspect(k, "h")["data"]["text/plain"]
        assert "host heap buffer of 40 bytes" in plain and "allocated in In [2] line 2" in plain, plain
        plain = inspect(k, "pt")["data"]["text/plain"]
        assert "struct P" in plain and "bee = 2.5" in plain, plain
        for name, words in (("threadIdx", "index inside its block"), ("__syncthreads", "every thread of the block"),
                            ("atomicAdd", "old value"), ("__shfl_down_sync", "lane"),
                            ("printf", "Prints")):
            c = inspect(k, f"  y = {name}", 7)
            assert c["found"] and words in c["data"]["text/plain"], (name, c)
        plain = inspect(k, "%timeit", 3)["data"]["text/plain"]
        assert "%timeit [-n N]" in plain, plain
        assert inspect(k, "cudaMemcpyHostToDevice")["data"]["text/plain"].count("= 1")
        assert not inspect(k, "no_such_name_here")["found"]
        assert not inspect(k, "   ", 1)["found"]
        assert support.alive_and_answering(k)


def test_complete_without_duplicates_with_types_and_offsets():
    with kernel() as k:
        ok(k, KERNEL_CELL)
        ok(k, HOST_CELL)
        c = complete(k, "pri")
        assert c["matches"] == ["printf"], c
        assert (c["cursor_start"], c["cursor_end"]) == (0, 3)
        c = complete(k, "vec")
        assert c["matches"] == ["vecadd"]
        assert c["metadata"]["_jupyter_types_experimental"][0]["type"] == "kernel"
        # mid-line, after non-ASCII text: offsets in code points
        code = "float µs = 1; // é\nint y = x + pri(1);"
        pos = code.index("pri(") + 3
        c = complete(k, code, pos)
        assert c["matches"] == ["printf"] and c["cursor_start"] == pos - 3 and c["cursor_end"] == pos, c
        c = complete(k, "pt.")
        assert c["matches"] == ["a", "bee"], c
        assert {t["signature"] for t in c["metadata"]["_jupyter_types_experimental"]} == {"int a", "float bee"}
        assert complete(k, "pp->b")["matches"] == ["bee"]
        c = complete(k, "int z = twice_")
        assert c["matches"] == ["twice_it"], c
        t = c["metadata"]["_jupyter_types_experimental"][0]
        assert t["type"] == "function" and t["signature"] == "int twice_it(int v)", t
        # a qualified name: the C++ library's, whole, from the qualifier on
        c = complete(k, "  std::vec")
        assert c["matches"] == ["std::vector"] and (c["cursor_start"], c["cursor_end"]) == (2, 10), c
        assert "std::cout" in complete(k, "std::co")["matches"]
        assert not [m for m in complete(k, "std::")["matches"] if "::_" in m]
        c = complete(k, "cudaMemcpyH")
        assert c["matches"] == ["cudaMemcpyHostToDevice", "cudaMemcpyHostToHost"], c
        assert c["metadata"]["_jupyter_types_experimental"][0]["type"] == "enum value"
        c = complete(k, "cudaMallocM")
        assert "cudaMallocManaged" in c["matches"]
        assert "size_t size" in c["metadata"]["_jupyter_types_experimental"][0]["signature"]
        # device code: built-ins; host code: no threadIdx
        assert "threadIdx" in complete(k, "__global__ void g(int *p) { p[thr")["matches"]
        assert "threadIdx" not in complete(k, "int t = thr")["matches"]
        assert "__shfl_down_sync" in complete(k, "__device__ int f(int v) { return __shfl_d")["matches"]
        assert "atomicAdd" in complete(k, "__global__ void g(int *p) { atomicA")["matches"]
        c = complete(k, "%ti")
        assert c["matches"] == ["%time", "%timeit"] and c["cursor_start"] == 0
        assert "%%program" in complete(k, "%%pro")["matches"]
        c = complete(k, "%timeit -")
        assert {"-n", "-r", "--bytes"} <= set(c["matches"]) and c["cursor_start"] == 8, c
        assert complete(k, "x")["matches"].count("x") == 1


def test_help_in_the_pager():
    with kernel() as k:
        ok(k, "int x = 42;")
        for code, words in (("%help who", "%who"), ("%who?", "%who"), ("%%timeit?", "%timeit"),
                            ("x?", "(int) 42"), ("cudaMalloc?", "cudaMalloc(void **devPtr"),
                            ("__syncthreads??", "__syncthreads")):
            reply, msgs = ok(k, code)
            pages = [p for p in reply["content"]["payload"] if p["source"] == "page"]
            assert len(pages) == 1, reply["content"]
            data = pages[0]["data"]
            assert words in data["text/plain"] and data["text/html"].startswith("<pre>"), (code, data)
            assert support.stdout_of(msgs) == ""
        assert "not found" in support.help_of(k, "nothing_like_it?")
        c = k.execute("%help nosuchmagic")[0]["content"]
        assert c["status"] == "error" and c["ename"] == "UsageError"


@needs_gpu
def test_inspect_a_device_buffer():
    with kernel() as k:
        ok(k, "float *d;\ncudaMalloc(&d, 1024 * sizeof(float));")
        plain = inspect(k, "d")["data"]["text/plain"]
        assert "float *d" in plain and "Defined in In [1], line 1" in plain, plain
        assert "Points into a device buffer of 4096 bytes at 0x" in plain, plain
        assert "allocated in In [1] line 2" in plain, plain
        ok(k, "float *m; cudaMallocManaged(&m, 64);")
        plain = inspect(k, "m")["data"]["text/plain"]
        assert "managed buffer of 64 bytes" in plain and "allocated in In [2] line 1" in plain, plain
