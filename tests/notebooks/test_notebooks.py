"""Notebooks through nbclient, as users run them in their own tests: the
tutorials in notebooks/ (those that need a GPU only with --gpu), a notebook
of device cells, and a compile error that must raise CellExecutionError
naming the cell's line."""
import glob
import os
import re

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

import support

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def execute(nb, timeout=300):
    """Runs nb on the kernel under test; returns the executed notebook."""
    with support.kernelspec_dir() as data_dir:
        # nbclient makes its own (async) kernel manager; it finds the
        # kernelspec under test through JUPYTER_PATH.
        saved = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = data_dir
        try:
            NotebookClient(nb, timeout=timeout, kernel_name="icuda").execute()
        finally:
            if saved is None:
                del os.environ["JUPYTER_PATH"]
            else:
                os.environ["JUPYTER_PATH"] = saved
    return nb


def notebook(*sources):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "icuda", "display_name": "CUDA C (icuda)", "language": "cuda"}
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    return nb


def text_of(cell):
    parts = []
    for out in cell.outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("display_data", "execute_result"):
            parts.append(out.data.get("text/plain", ""))
        elif out.output_type == "error":
            parts.append("\n".join(out.traceback))
    return ANSI.sub("", "".join(parts))


def needs_gpu(path):
    return nbformat.read(path, as_version=4).metadata.get("icuda", {}).get("needs_gpu", False)


def test_device_cells_notebook_executes():
    nb = execute(notebook(
        "struct pair { float a, b; };\n__device__ float add(pair p) { return p.a + p.b; }",
        "__global__ void sums(const pair *p, float *out, int n)\n{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = add(p[i]);\n}",
        "%ptx sums",
        "%resources sums"))
    assert "sums(const pair *p, float *out, int n):" in text_of(nb.cells[1])
    assert "registers" in text_of(nb.cells[1])
    assert ".entry" in text_of(nb.cells[2]) and "add.f32" in text_of(nb.cells[2])
    assert "defined in In [2]" in text_of(nb.cells[3])


def test_compile_error_raises_with_the_cells_line():
    nb = notebook("__global__ void ok(int *p) { p[0] = 1; }",
                  "__global__ void broken(float *x)\n{\n    x[0] = 1.0f;\n    x[1] = y + 2;\n}")
    try:
        execute(nb)
    except CellExecutionError as e:
        msg = ANSI.sub("", str(e))
        assert "CompileError" in msg, msg
        assert "line 4" in msg, msg
        assert "identifier \"y\" is undefined" in msg, msg
        assert "x[1] = y + 2;" in msg, msg
    else:
        raise AssertionError("a compile error did not raise CellExecutionError")
    # the cells before the error ran and kept their outputs
    assert "ok(int *p):" in text_of(nb.cells[0])


def test_tutorial_notebooks():
    paths = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
    assert paths, "no notebooks in notebooks/"
    ran = 0
    for path in paths:
        if needs_gpu(path) and not support.GPU:
            continue
        nb = nbformat.read(path, as_version=4)
        try:
            execute(nb, timeout=600)
        except CellExecutionError as e:
            raise AssertionError(f"{os.path.basename(path)}: {ANSI.sub('', str(e))[:3000]}")
        # a cell that shows a mistake must really have failed
        for cell in nb.cells:
            if "raises-exception" in cell.get("metadata", {}).get("tags", []):
                assert any(o.output_type == "error" for o in cell.outputs), \
                    f"{os.path.basename(path)}: expected an error from:\n{cell.source}"
        ran += 1
    assert ran > 0
