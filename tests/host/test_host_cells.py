"""Host C in cells, through jupyter_client as a notebook front end meets it:
persistence, the value of a last expression as execute_result, errors with
the cell line and a caret, user_expressions, %who as display_data, device
code seeing host constants, and interrupting a host loop."""
import threading
import time

from support import ok, results, shared_kernel, stdout_of, types_of


def errors(msgs):
    return [m["content"] for m in msgs if m["msg_type"] == "error"]


def test_variables_persist_and_values_show():
    with shared_kernel() as k:
        reply, msgs = k.execute("int N = 1 << 10;\ndouble *h = (double *)malloc(N * sizeof(double));\n"
                                "for (int i = 0; i < N; i++) h[i] = i * 0.5;")
        assert reply["content"]["status"] == "ok", reply
        assert results(msgs) == []
        reply, msgs = k.execute("printf(\"%d %g\\n\", N, h[N - 1]);\nh[2]")
        assert stdout_of(msgs) == "1024 511.5\n"
        assert results(msgs) == ["(double) 1"]
        # the execute_result carries the cell's execution count
        res = [m for m in msgs if m["msg_type"] == "execute_result"][0]
        assert res["content"]["execution_count"] == reply["content"]["execution_count"]
        reply, msgs = k.execute("h")
        assert results(msgs) == ["(double *) host, 1024 elements: [0, 0.5, 1, …, 510.5, 511, 511.5]"]
        # re-running a declaration replaces it
        k.execute("int N = 3;")
        reply, msgs = k.execute("N")
        assert results(msgs) == ["(int) 3"]


def test_errors_name_the_line_and_keep_earlier_work():
    with shared_kernel() as k:
        k.execute("int *p = (int *)malloc(4 * sizeof(int));\nint done = 0;")
        reply, msgs = k.execute("done = 1;\np[4] = 7;\ndone = 2;")
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "RuntimeError"
        err = errors(msgs)[0]
        assert "out-of-bounds write" in err["evalue"] and "p[4]" in err["evalue"], err
        tb = "\n".join(err["traceback"])
        assert "line 2" in tb and "p[4] = 7;" in tb and "^" in tb, tb
        _, msgs = k.execute("done")
        assert results(msgs) == ["(int) 1"]  # what ran before the error stays done
        reply, msgs = k.execute("free(p);\nfree(p);")
        assert reply["content"]["ename"] == "RuntimeError" and "double free" in reply["content"]["evalue"]
        reply, _ = k.execute("int x = ;")
        assert reply["content"]["ename"] == "SyntaxError"
        reply, _ = k.execute("assert(done == 5);")
        assert reply["content"]["ename"] == "AssertionError" and "done == 5" in reply["content"]["evalue"]


def test_user_expressions_use_the_session():
    with shared_kernel() as k:
        k.execute("double gbs = 3.0 * 8 * 1000 / 2.0 / 1e6;")
        reply, _ = k.execute("int z = 1;", user_expressions={"bw": "gbs", "twice": "z * 2", "bad": "nope"})
        ue = reply["content"]["user_expressions"]
        assert ue["bw"]["status"] == "ok" and ue["bw"]["data"]["text/plain"] == "(double) 0.012", ue
        assert ue["twice"]["data"]["text/plain"] == "(int) 2"
        assert ue["bad"]["status"] == "error" and "nope" in ue["bad"]["evalue"]


def test_who_is_display_data():
    with shared_kernel() as k:
        k.execute("int count = 3;\nfloat *xs = (float *)calloc(8, sizeof(float));")
        _, msgs = k.execute("%who")
        shown = [m for m in msgs if m["msg_type"] == "display_data"]
        assert shown, types_of(msgs)
        text = shown[0]["content"]["data"]["text/plain"]
        assert "count" in text and "int" in text and "xs" in text and "float *" in text, text
        assert "<table>" in shown[0]["content"]["data"]["text/html"]


def test_device_code_sees_host_constants():
    with shared_kernel() as k:
        reply, msgs = k.execute("const int BLOCK = 128;\n"
                                "__global__ void fill(float *x) { __shared__ float t[BLOCK]; t[threadIdx.x] = 1; x[0] = t[0]; }")
        assert reply["content"]["status"] == "ok", reply
        assert "128 B shared" not in stdout_of(msgs)  # 128 floats
        assert "512 B shared" in stdout_of(msgs), stdout_of(msgs)
        reply, msgs = k.execute("__global__ void g(float *x) { x[0] = BLOCK; }")
        assert reply["content"]["status"] == "ok", reply
        # and running the first cell again still compiles (no redefinition)
        reply, _ = k.execute("const int BLOCK = 128;\n"
                             "__global__ void fill(float *x) { __shared__ float t[BLOCK]; t[threadIdx.x] = 1; x[0] = t[0]; }")
        assert reply["content"]["status"] == "ok", reply


def test_interrupt_stops_a_host_loop():
    with shared_kernel() as k:
        msg_id = k.kc.execute("long n = 0;\nwhile (1) { n++; }")
        k.started(msg_id)
        time.sleep(0.2)  # the loop runs a while (n > 0 below)
        k.request("interrupt_request", channel="control")
        reply = k.reply_to(msg_id, "shell", timeout=10)
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        _, msgs = k.execute("n > 0")
        assert results(msgs) == ["(int) 1"]  # the session goes on, with what the loop did


def test_a_multiline_macro_does_not_poison_later_device_cells():
    check = ("#define CUDA_CHECK(call)                      \\\n"
             "  do {                                        \\\n"
             "    cudaError_t err_ = (call);                \\\n"
             "    if (err_ != cudaSuccess) {                \\\n"
             "      fprintf(stderr, \"%s:%d %s\\n\", __FILE__, __LINE__, cudaGetErrorString(err_)); \\\n"
             "      exit(1);                                \\\n"
             "    }                                         \\\n"
             "  } while (0)\n"
             "__global__ void k1(float *x) { x[0] = 1; }\n")
    with shared_kernel() as k:
        reply, _ = k.execute(check)
        assert reply["content"]["status"] == "ok", reply
        reply, msgs = k.execute("__global__ void k2(float *x) { x[0] = 2; }")
        assert reply["content"]["status"] == "ok", reply
        reply, msgs = k.execute("int line = __LINE__;\nprintf(\"%d %s\\n\", line + __LINE__, __FILE__);")
        assert reply["content"]["status"] == "ok", reply
        assert stdout_of(msgs).startswith("3 In ["), stdout_of(msgs)


def test_long_names_reach_device_code():
    """Names longer than any buffer of the splitter or the device prelude:
    a host constant of 300 characters is declared whole for device code,
    and two __device__ functions whose names differ only in their last
    character are two definitions, not one replacing the other."""
    name = "n" * 299
    with shared_kernel() as k:
        reply, _ = k.execute(f"const int {name}C = 64;")
        assert reply["content"]["status"] == "ok", reply
        reply, _ = k.execute(f"__device__ float {name}1() {{ return 1; }}")
        assert reply["content"]["status"] == "ok", reply
        reply, _ = k.execute(f"__device__ float {name}2() {{ return 2; }}")
        assert reply["content"]["status"] == "ok", reply
        reply, _ = k.execute(f"__global__ void uses_long(float *x) {{ x[0] = {name}1() + {name}2() + {name}C; }}")
        assert reply["content"]["status"] == "ok", reply["content"]


def test_unsized_array_of_pointers_ending_in_null_and_aligned_structs():
    """const char *names[] = {"a", "b", NULL}: NULL, which starts with '(', is
    an element too; __align__(N) and alignas(N) of a struct (the samples'
    aligned types) set its alignment, and so its size."""
    with shared_kernel() as k:
        msgs = ok(k, 'const char *methods[] = {"default", "blocking", "disable", NULL};\n'
                     'typedef struct __align__(16) { float r, g, b; } RGB32a;\n'
                     'struct alignas(8) Pair { int a; };\n'
                     'printf("%zu %zu %zu %zu\\n", sizeof methods / sizeof methods[0], sizeof(RGB32a), '
                     '_Alignof(RGB32a), sizeof(struct Pair));')
        assert stdout_of(msgs) == "4 16 16 8\n", stdout_of(msgs)
