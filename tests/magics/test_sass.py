"""%sass: a kernel's SASS from the cached cubin with nvdisasm (or cuobjdump),
only that kernel's function, its -lineinfo annotations given back as the
cell's lines; template instances; a clear error for an unknown kernel and
for a machine without the tools. Needs no GPU."""
import os
import sys
import tempfile

from support import count_of, error, kernel, ok, shared_kernel, stdout_of

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from magics_tools import env_with, tools_dir  # noqa: E402

VECADD = """__global__ void vecadd(double *z, const double *x, const double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}
__global__ void twice(float *a) { a[threadIdx.x] *= 2.0f; }"""

SCALE = "template <typename T>\n__global__ void scale(T *a, T s, int n) {\n    int i = threadIdx.x;\n    if (i < n) a[i] *= s;\n}"


def test_sass_of_a_kernel_and_its_lines():
    env = env_with("nvdisasm")
    env["ICUDA_ARCH"] = "sm_90"
    with kernel(env=env) as k:
        n = count_of(ok(k, VECADD))
        msgs = ok(k, "%sass vecadd")
        out = stdout_of(msgs)
        assert out.startswith("// SASS of vecadd(double *z, const double *x, const double *y, int n), "
                              f"from In [{n}], for sm_90 (nvdisasm)"), out[:300]
        assert ".text._Z6vecaddPdPKdS1_i" in out and "EXIT" in out, out
        assert "twice" not in out, "only the kernel asked for"
        assert f"//## In [{n}], line 3: if (i < n) z[i] = x[i] + y[i];" in out, out
        assert "cell.cu" not in out
        assert "DADD" in out  # the sum of two doubles
        msgs = ok(k, "%sass --all vecadd")
        out = stdout_of(msgs)
        assert "SASS of the module of vecadd" in out and "_Z5twicePf" in out and "_Z6vecaddPdPKdS1_i" in out


def test_sass_of_a_template_instance():
    with shared_kernel(env=env_with("nvdisasm")) as k:
        n = count_of(ok(k, SCALE))
        msgs = ok(k, "%sass scale<float>")
        out = stdout_of(msgs)
        assert "SASS of scale<float>(float *a, float s, int n), from an instance of a template kernel" in out, out[:300]
        assert "_Z5scaleIfEvPT_S0_i" in out and "FMUL" in out, out
        assert f"//## In [{n}], line 4: if (i < n) a[i] *= s;" in out, out
        msgs = ok(k, "%sass scale<double>")  # another instance, compiled on demand
        assert "_Z5scaleIdEvPT_S0_i" in stdout_of(msgs)
        c = error(k, "%sass nothere<int>")
        assert c["ename"] == "NameError" and "no template kernel named nothere" in c["evalue"], c


def test_sass_unknown_kernel_and_bad_usage():
    with shared_kernel(env=env_with("nvdisasm")) as k:
        c = error(k, "%sass vecadd")
        assert c["ename"] == "UsageError" and "no kernel has been compiled yet" in c["evalue"], c
        ok(k, VECADD)
        c = error(k, "%sass nosuch")
        assert c["ename"] == "UsageError" and "no kernel named 'nosuch'" in c["evalue"], c
        assert "vecadd, twice" in c["evalue"], c
        assert any("usage: %sass" in line for line in c["traceback"]), c
        c = error(k, "%sass")
        assert c["ename"] == "UsageError" and "name one kernel" in c["evalue"]
        c = error(k, "%sass --fast vecadd")
        assert c["ename"] == "UsageError" and "--fast" in c["evalue"]
        ok(k, "%sass vecadd")  # the session goes on


def test_sass_without_the_tools_says_what_to_install():
    with tempfile.TemporaryDirectory() as empty:
        with kernel(env={"ICUDA_TOOLS_PATH": empty}) as k:
            ok(k, VECADD)
            c = error(k, "%sass vecadd")
            assert c["ename"] == "RuntimeError", c
            assert "needs nvdisasm or cuobjdump" in c["evalue"] and empty in c["evalue"], c
            assert "nvidia-cuda-nvdisasm" in c["evalue"] and "ICUDA_TOOLS_PATH" in c["evalue"], c
            msgs = ok(k, 'printf("still here\\n");')
            assert stdout_of(msgs) == "still here\n"


def test_sass_with_cuobjdump_only():
    d = tools_dir("cuobjdump")
    assert d, "cuobjdump not found (make test installs it into build/cuda-tools)"
    with tempfile.TemporaryDirectory() as only:
        os.symlink(os.path.join(d, "cuobjdump"), os.path.join(only, "cuobjdump"))
        with kernel(env={"ICUDA_TOOLS_PATH": only}) as k:
            ok(k, VECADD)
            msgs = ok(k, "%sass vecadd")
            out = stdout_of(msgs)
            assert "(cuobjdump)" in out.splitlines()[0], out[:200]
            assert "Function : _Z6vecaddPdPKdS1_i" in out and "EXIT" in out, out
            assert "_Z5twicePf" not in out and "/* 0x" not in out, out
