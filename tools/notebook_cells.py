"""Which cells of a tutorial notebook can run here, shared by
tests/notebooks/test_notebooks.py and tools/run-notebook.py.

Two marks decide it:
- the tag `gpu`: the cell needs a GPU (it calls the CUDA runtime, launches,
  or runs a magic that does GPU work). Without a GPU it is left out, and the
  notebook's other cells must still run: device cells compile, host code and
  the magics that need no GPU run.
- metadata `icuda.needs` (a name or a list): the cell uses a feature still
  being built, or one the machine may lack (a second GPU, NCCL, Open MPI;
  FEATURES below). It runs where the kernel (or the machine) has the
  feature and is left out, and named, where it has not. Such cells are
  leaves: nothing after them depends on them, but cells with the same
  needs.
"""
import copy
import os
import re
import shutil

import nbformat
from nbclient import NotebookClient

GPU_TAG = "gpu"

# feature: a cell that runs without error only where the kernel has it
# (magics are looked up in %lsmagic instead)
MAGIC_FEATURES = ("plot", "hist", "save", "load", "heap")
CODE_FEATURES = {
    "curand-types": "(int)sizeof(curandState)",
    "curand-host": "curandGenerator_t icuda_probe_gen_;",
    "cublas": "cublasHandle_t icuda_probe_handle_;",
    # a second GPU: cudaSetDevice(n) fails where there are fewer than two
    "two-gpus": "{ int icuda_probe_n_ = 0; cudaGetDeviceCount(&icuda_probe_n_); "
                "if (icuda_probe_n_ < 2) cudaSetDevice(icuda_probe_n_ + 2); }",
    # NCCL's header at build time and its library here
    "nccl": "{ int icuda_probe_v_ = 0; ncclGetVersion(&icuda_probe_v_); }",
}
def open_mpi_tool(tool):
    """Whether the kernel finds Open MPI's tool as %%program --mpi looks for
    it: $ICUDA_MPICXX / $ICUDA_MPIRUN, PATH (also as tool.openmpi), Open
    MPI's usual folders."""
    var = os.environ.get("ICUDA_" + tool.upper())
    if var:
        return os.access(var, os.X_OK)
    return bool(shutil.which(tool) or shutil.which(tool + ".openmpi")
                or any(os.access(os.path.join(d, tool), os.X_OK)
                       for d in ("/usr/lib64/openmpi/bin", "/usr/local/mpi/bin", "/opt/hpcx/ompi/bin")))


# features of the machine the kernel runs on, seen from here (the same machine)
HOST_FEATURES = {
    "mpi": lambda: all(open_mpi_tool(t) for t in ("mpicxx", "mpirun")),
}


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


def needs(cell):
    n = cell.get("metadata", {}).get("icuda", {}).get("needs", [])
    return [n] if isinstance(n, str) else list(n)


def all_needs(nb):
    return sorted({n for c in nb.cells for n in needs(c)})


def probe(names, kernel_name="icuda"):
    """The subset of feature names the kernel `kernel_name` has (one short
    session, only when some cell needs something)."""
    host = {n for n in names if n in HOST_FEATURES and HOST_FEATURES[n]()}
    names = [n for n in names if n in MAGIC_FEATURES or n in CODE_FEATURES]
    if not names:
        return host
    code = [n for n in names if n in CODE_FEATURES]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("%lsmagic")] + \
               [nbformat.v4.new_code_cell(CODE_FEATURES[n]) for n in code]
    NotebookClient(nb, timeout=60, kernel_name=kernel_name, allow_errors=True).execute()
    lsmagic = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "")
                      for o in nb.cells[0].outputs)
    have = {n for n in names if n in MAGIC_FEATURES and re.search(r"%" + n + r"\b", lsmagic)}
    for n, cell in zip(code, nb.cells[1:]):
        if not any(o.output_type == "error" for o in cell.outputs):
            have.add(n)
    return have | host


def runnable(nb, gpu, have):
    """A copy of nb without the cells that cannot run here, and a list of
    (cell index, reason) for those left out."""
    out = copy.deepcopy(nb)
    kept, skipped = [], []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            missing = [n for n in needs(cell) if n not in have]
            if not gpu and GPU_TAG in tags(cell):
                skipped.append((i, "needs a GPU"))
                continue
            if missing:
                skipped.append((i, "needs " + ", ".join(missing)))
                continue
        kept.append(out.cells[i])
    out.cells = kept
    return out, skipped


def gpu_present():
    """True where a CUDA driver answers with at least one device."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0


def describe_skips(skipped):
    """One line: what was left out and why."""
    by_reason = {}
    for _, reason in skipped:
        by_reason[reason] = by_reason.get(reason, 0) + 1
    parts = [f"{n} cell{'s' if n != 1 else ''} that {r.replace('needs', 'need' if n != 1 else 'needs', 1)}"
             for r, n in by_reason.items()]
    return "skipped " + "; ".join(parts)


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
