"""Notebooks through nbclient, as users run them in their own tests: each
tutorial in notebooks/ (whole with --gpu; without a GPU, its cells not
tagged `gpu`: tools/notebook_cells.py), that the tutorials match their
sources in tools/notebooks/, a notebook of device cells, and a compile error
that must raise CellExecutionError naming the cell's line."""
import glob
import os
import re
import subprocess
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

import support

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools"))
import notebook_cells  # noqa: E402

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


def run_tutorial(path):
    """Runs one tutorial: every cell with a GPU, the cells not tagged `gpu`
    without one; cells whose icuda.needs the kernel lacks are left out (and
    named on stdout). Cells tagged raises-exception must have raised."""
    nb = nbformat.read(path, as_version=4)
    name = os.path.basename(path)
    with support.kernelspec_dir() as data_dir:
        saved = os.environ.get("JUPYTER_PATH")
        os.environ["JUPYTER_PATH"] = data_dir
        try:
            have = notebook_cells.probe(notebook_cells.all_needs(nb))
        finally:
            if saved is None:
                del os.environ["JUPYTER_PATH"]
            else:
                os.environ["JUPYTER_PATH"] = saved
    run, skipped = notebook_cells.runnable(nb, support.GPU, have)
    if skipped:
        print(f"{name}: {notebook_cells.describe_skips(skipped)}")
    try:
        execute(run, timeout=600)
    except CellExecutionError as e:
        raise AssertionError(f"{name}: {ANSI.sub('', str(e))[:3000]}")
    for cell in run.cells:
        if "raises-exception" in cell.get("metadata", {}).get("tags", []):
            assert any(o.output_type == "error" for o in cell.outputs), \
                f"{name}: expected an error from:\n{cell.source}"
        if cell.cell_type == "code":
            for o in cell.outputs:
                if o.output_type == "stream" and o.name == "stderr":
                    # a tutorial warns about nothing the reader did not cause
                    assert not any(m in o.text for m in support.SANITIZER_MARKS), o.text


def test_notebooks_match_their_sources():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_notebooks.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_notebooks_are_clean():
    paths = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
    assert len(paths) >= 11, paths
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert nb.metadata["kernelspec"] == {"name": "icuda", "display_name": "CUDA C (icuda)",
                                             "language": "cuda"}, path
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, path


def _tutorial_test(path):
    @support.timeout(900)
    def test():
        run_tutorial(path)
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    test.__name__ = "test_notebook_" + stem
    test.__qualname__ = test.__name__
    return test


for _path in sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb"))):
    _t = _tutorial_test(_path)
    globals()[_t.__name__] = _t
