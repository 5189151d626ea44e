"""The preprocessor across a cell's two sides (docs/preprocessor.md): macros
seen by later cells on the host and the device, once; conditionals around
items decided per side (__CUDA_ARCH__ only on the device); #error, #warning
and an unbalanced #if as errors of their own cell; and no cell, whatever it
defines, breaking the cells after it. No GPU needed: device cells compile."""
from support import shared_kernel, stdout_of

GOOD_DEVICE = "__global__ void fine(int *p) { p[0] = 1; }"


def succeeded(reply):
    """The reply of a cell that must succeed (these tests read the reply and
    the messages both: support.ok gives the messages alone)."""
    assert reply["content"]["status"] == "ok", reply["content"]
    return reply


def error_text(msgs):
    return "\n".join("\n".join(m["content"]["traceback"]) for m in msgs if m["msg_type"] == "error")


def test_macro_reaches_later_cells_on_both_sides_once():
    with shared_kernel() as k:
        for _ in range(2):  # running it again gives no redefinition warning
            reply, msgs = k.execute("#define N 10\n#define SQ(x) ((x) * (x))\n"
                                    "#define CAT(a, b) a##b\n#define LOG(fmt, ...) printf(fmt __VA_OPT__(,) __VA_ARGS__)")
            succeeded(reply)
            assert stdout_of(msgs, "stderr") == ""
        reply, msgs = k.execute("__global__ void sq(int *p) { p[CAT(0, )] = SQ(N); }\n"
                                "LOG(\"%d %d\\n\", SQ(N), CAT(1, 2));\nLOG(\"done\\n\");")
        succeeded(reply)
        assert stdout_of(msgs) .endswith("100 12\ndone\n"), stdout_of(msgs)
        assert stdout_of(msgs, "stderr") == ""
        # redefining replaces it on both sides
        succeeded(k.execute("#define N 3")[0])
        reply, msgs = k.execute("__global__ void sq2(int *p) { static_assert(SQ(N) == 9, \"N is 3\"); }\n"
                                "printf(\"%d\\n\", N);")
        succeeded(reply)
        assert stdout_of(msgs).endswith("3\n")
        assert stdout_of(msgs, "stderr") == ""


def test_multiline_macro_does_not_leak_into_device_compiles():
    with shared_kernel() as k:
        succeeded(k.execute("#define CUDA_CHECK(call) do { \\\n"
                            "    cudaError_t err_ = (call); \\\n"
                            "    if (err_ != cudaSuccess) { \\\n"
                            "        fprintf(stderr, \"CUDA error %s at %s:%d\\n\", cudaGetErrorString(err_), __FILE__, __LINE__); \\\n"
                            "        exit(EXIT_FAILURE); \\\n"
                            "    } \\\n"
                            "} while (0)\nconst int BLOCK = 128;")[0])
        for _ in range(2):
            reply, msgs = k.execute(GOOD_DEVICE)
            succeeded(reply)
            assert stdout_of(msgs, "stderr") == ""
        reply, msgs = k.execute("CUDA_CHECK(cudaSuccess);\nprintf(\"%d\\n\", BLOCK);\n\nCUDA_CHECK(cudaErrorInvalidValue);")
        assert stdout_of(msgs) == "128\n"
        assert "CUDA error invalid argument at In [" in stdout_of(msgs, "stderr")
        assert "]:4\n" in stdout_of(msgs, "stderr")


def test_conditionals_around_host_statements_and_device_functions():
    with shared_kernel() as k:
        reply, msgs = k.execute(
            "#define USE_DOUBLE 1\n"
            "#if USE_DOUBLE\n"
            "typedef double real;\n"
            "__device__ real twice(real x) { return 2 * x; }\n"
            "printf(\"double\\n\");\n"
            "#  ifdef NOT_DEFINED\n"
            "printf(\"never\\n\");\n"
            "#  endif\n"
            "#else\n"
            "typedef float real;\n"
            "__device__ real twice(real x) { return x; }\n"
            "printf(\"float\\n\");\n"
            "#endif\n"
            "__global__ void scale(real *p) { p[0] = twice(p[0]); }\n"
            "printf(\"%zu\\n\", sizeof(real));")
        succeeded(reply)
        assert stdout_of(msgs).endswith("double\n8\n"), stdout_of(msgs)
        assert "scale(real *p)" in stdout_of(msgs)
        # a later cell sees real and twice as the taken branch made them
        reply, msgs = k.execute("__global__ void again(real *p) { static_assert(sizeof(real) == 8, \"double\"); "
                                "p[0] = twice(1.0); }")
        succeeded(reply)


def test_cuda_arch_only_on_the_device():
    with shared_kernel() as k:
        reply, msgs = k.execute(
            "#ifdef __CUDA_ARCH__\n"
            "__device__ int side() { return __CUDA_ARCH__; }\n"
            "#else\n"
            "int side() { return 0; }\n"
            "#endif\n"
            "__host__ __device__ int where() {\n"
            "#ifdef __CUDA_ARCH__\n  return 1;\n#else\n  return 0;\n#endif\n}\n"
            "__global__ void k(int *p) { p[0] = side() + where(); }\n"
            "#if defined(__CUDACC__) && defined(__NVCC__) && !defined(__CUDA_ARCH__)\n"
            "printf(\"host %d %d\\n\", side(), where());\n"
            "#endif")
        succeeded(reply)
        assert stdout_of(msgs).endswith("host 0 0\n"), stdout_of(msgs)
        reply, msgs = k.execute("%nvrtc -arch=sm_80\n"
                                "#if __CUDA_ARCH__ >= 900\n__global__ void new_arch(int *p) { }\n"
                                "#else\n__global__ void old_arch(int *p) { }\n#endif")
        succeeded(reply)
        assert "old_arch(" in stdout_of(msgs) and "new_arch" not in stdout_of(msgs), stdout_of(msgs)


def test_error_and_warning_directives_are_the_cells():
    with shared_kernel() as k:
        reply, msgs = k.execute("int before = 1;\n#if 1\n#error this build is not supported\n#endif")
        assert reply["content"]["status"] == "error"
        assert "#error this build is not supported" in reply["content"]["evalue"]
        assert "line 3" in error_text(msgs)
        reply, msgs = k.execute("#warning mind the sizes\nint w = 1;")
        succeeded(reply)
        n = reply["content"]["execution_count"]
        assert stdout_of(msgs, "stderr") == f"In [{n}], line 1: warning: mind the sizes\n"
        reply, msgs = k.execute(GOOD_DEVICE)
        succeeded(reply)
        assert stdout_of(msgs, "stderr") == ""


def test_no_cell_poisons_later_cells():
    bad_cells = [
        "#define BAD(a, a) a",                # NVRTC rejects the macro
        "#ifdef HALF_FINISHED\nint a = 1;",   # an #if with no #endif
        "#endif",                             # the reverse
        "#if 1 +\n#endif",                    # a bad expression
        "#pragma once",                       # meaningless in a cell
        "#pragma nv_diag_suppress not_a_number",  # a pragma NVRTC warns about
        "#if 0\n#define HIDDEN 1\n#endif",    # nothing of a group not taken stays
    ]
    with shared_kernel() as k:
        for bad in bad_cells:
            k.execute(bad)
            reply, msgs = k.execute(GOOD_DEVICE)
            succeeded(reply)
            assert stdout_of(msgs, "stderr") == "", (bad, stdout_of(msgs, "stderr"))
        reply, msgs = k.execute("#ifdef HIDDEN\nprintf(\"hidden\\n\");\n#endif\nprintf(\"end\\n\");")
        assert stdout_of(msgs) == "end\n"


def test_bad_macro_is_reported_in_its_cell():
    with shared_kernel() as k:
        reply, msgs = k.execute("#define BAD(a, a) a")
        assert reply["content"]["ename"] == "CompileError"
        text = error_text(msgs)
        assert "duplicate macro parameter" in text and "line 1" in text
        assert "precompiled" not in text and "PCH" not in text


def test_struct_nvrtc_cannot_take_stays_on_the_host():
    with shared_kernel() as k:
        reply, msgs = k.execute("#include <string>\nstruct Named { std::string name; int n; };\n"
                                "Named x{\"a\", 2};\nprintf(\"%d\\n\", x.n);")
        succeeded(reply)
        assert stdout_of(msgs) == "2\n"
        succeeded(k.execute(GOOD_DEVICE)[0])


def test_pragma_once_in_a_header_cell():
    with shared_kernel() as k:
        succeeded(k.execute("%%header twice.cuh\n#pragma once\n__device__ int twice(int x) { return 2 * x; }")[0])
        reply, msgs = k.execute("#include \"twice.cuh\"\n#include \"twice.cuh\"\n"
                                "__global__ void use(int *p) { p[0] = twice(p[0]); }")
        succeeded(reply)
        assert stdout_of(msgs, "stderr") == ""


MIXED_HEADER = """%%header common.cuh
#pragma once
#include "scale.cuh"
#define SQ(x) ((x) * (x))
struct Acc { float sum; };
void acc_add(Acc *a, float x) { a->sum += x * SCALE; }
int peek(int *p) { return p[10]; }
__device__ float dsq(float x) { return SQ(x) * SCALE; }
"""


def test_a_header_that_mixes_host_and_device_code_serves_both_sides():
    with shared_kernel() as k:
        succeeded(k.execute("%%header scale.cuh\n#pragma once\n#define SCALE 2.0f")[0])
        succeeded(k.execute(MIXED_HEADER)[0])
        reply, msgs = k.execute('#include "common.cuh"\n'
                                "__global__ void k(float *o) { o[0] = dsq(3.0f); }\n"
                                "Acc a = {0};\nacc_add(&a, 1.5f);\n"
                                'printf("%.1f %d\\n", a.sum, SQ(4));')
        succeeded(reply)
        assert stdout_of(msgs).endswith("3.0 16\n"), stdout_of(msgs)
        # included again (twice in one cell, and in a later cell): read once a cell
        reply, msgs = k.execute('#include "common.cuh"\n#include "common.cuh"\n'
                                'Acc b = {1};\nacc_add(&b, 1);\nprintf("%.1f\\n", b.sum);')
        succeeded(reply)
        assert stdout_of(msgs) == "3.0\n"
        # an error inside a header's host function names the header's line
        reply, msgs = k.execute("int *q = (int *)malloc(8);\npeek(q);")
        assert reply["content"]["status"] == "error"
        text = error_text(msgs)
        assert "common.cuh, line 6" in text and "out-of-bounds read" in text, text
        assert f"In [{reply['content']['execution_count']}], line 2" in text, text


def test_a_broken_header_is_an_error_of_the_cell_that_includes_it():
    with shared_kernel() as k:
        succeeded(k.execute("%%header bad.h\nint broken( {")[0])
        reply, msgs = k.execute('#include "bad.h"\nprintf("after\\n");')
        assert reply["content"]["status"] == "error"
        assert "bad.h, line 1" in error_text(msgs)
        reply, msgs = k.execute('printf("fine\\n");')
        succeeded(reply)
        assert stdout_of(msgs) == "fine\n"
