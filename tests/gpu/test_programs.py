"""The course-style programs of tests/programs: every one is valid CUDA C++
(nvcc compiles it: no GPU needed), and on a GPU every one runs in icuda and
prints PASS, twice: pasted as a user pastes a program into two cells
(everything before `int main(`, then main's body without its first and last
lines), and whole, as a %%program cell. Plus: a whole program pasted with no
magic runs as a program, and %%program passes arguments after `--`. The
tests on a GPU share one kernel, made new with %reset for each."""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import tempfile

from support import needs_gpu, shared_kernel, stdout_of, timeout

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS_DIR = os.path.join(os.path.dirname(HERE), "programs")
PROGRAMS = sorted(glob.glob(os.path.join(PROGRAMS_DIR, "*.cu")))
MAIN_LINE = re.compile(r"^int main\s*\(.*\)\s*\{\s*$")


def read(path):
    with open(path) as f:
        return f.read()


def split_cells(source):
    """(cell 1, cell 2): what comes before `int main(...) {`, and main's body
    (the lines between that line and the file's last `}`)."""
    lines = source.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if MAIN_LINE.match(l)]
    assert len(starts) == 1, "a program has one `int main(...) {` line"
    ends = [i for i, l in enumerate(lines) if l.strip()]
    last = ends[-1]
    assert lines[last].rstrip() == "}", "a program ends with main's closing brace"
    return "".join(lines[:starts[0]]), "".join(lines[starts[0] + 1:last])


def nvcc_options(source):
    """Options a program's first line asks nvcc for (`// nvcc: -lcublas`):
    the libraries it links, for the nvcc test and for %%program."""
    first = source.split("\n", 1)[0]
    return first[len("// nvcc:"):].split() if first.startswith("// nvcc:") else []


def nvcc():
    cuda = os.environ.get("CUDA", "/usr/local/cuda")
    path = os.path.join(cuda, "bin", "nvcc")
    return path if os.path.exists(path) else shutil.which("nvcc")


# -- no GPU needed --

def test_programs_are_there_and_split_into_two_cells():
    assert len(PROGRAMS) >= 10, PROGRAMS
    readme = read(os.path.join(PROGRAMS_DIR, "README"))
    for p in PROGRAMS:
        name = os.path.basename(p)
        assert name in readme, f"tests/programs/README does not describe {name}"
        before, body = split_cells(read(p))
        assert "__global__" in before, name
        assert "PASS" in body, name


@timeout(900)
def test_every_program_compiles_with_nvcc():
    exe = nvcc()
    if not exe:
        print("nvcc not found: skipped")
        return
    tmp = tempfile.mkdtemp(prefix="icuda-programs-")

    def build(path):
        out = os.path.join(tmp, os.path.basename(path) + ".bin")
        p = subprocess.run([exe, "-std=c++17", "-arch=sm_90"] + nvcc_options(read(path)) + ["-o", out, path],
                           capture_output=True, text=True, errors="replace", timeout=400)
        return path, p.returncode, p.stderr

    try:
        # Thrust and CUB programs first: each takes several times another's
        # compile, and started last one would run alone at the end
        heavy = [p for p in PROGRAMS if re.search(r"#include <(thrust|cub)/", read(p))]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(build, heavy + [p for p in PROGRAMS if p not in heavy]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    bad = [f"{os.path.basename(p)}:\n{err[-3000:]}" for p, rc, err in results if rc != 0]
    assert not bad, "nvcc rejects:\n" + "\n".join(bad)


# -- on a GPU --

def _ok(k, code, what, t):
    """Runs a cell that must succeed; its messages. A failure names the
    program and the part of it (support.ok names neither), with the ends of
    its output."""
    reply, msgs = k.execute(code, timeout=t)
    c = reply["content"]
    assert c["status"] == "ok", (f"{what}: {c.get('ename')}: {c.get('evalue')}\n"
                                 f"stdout: {stdout_of(msgs)[-3000:]}\nstderr: {stdout_of(msgs, 'stderr')[-3000:]}")
    return msgs


def _passes(msgs, what):
    out = stdout_of(msgs)
    assert "PASS" in out and "FAIL" not in out, f"{what} printed:\n{out[-3000:]}\n{stdout_of(msgs, 'stderr')[-2000:]}"


def _cells_test(path):
    name = os.path.basename(path)

    @needs_gpu
    @timeout(600)
    def test():
        before, body = split_cells(read(path))
        with shared_kernel() as k:
            _ok(k, before, f"{name}, cell 1 (before main)", 300)
            _passes(_ok(k, body, f"{name}, cell 2 (main's body)", 300), name)
    return test


def _program_test(path):
    name = os.path.basename(path)

    @needs_gpu
    @timeout(600)
    def test():
        with shared_kernel() as k:
            src = read(path)
            opts = " ".join(nvcc_options(src))
            _passes(_ok(k, "%%program" + (" " + opts if opts else "") + "\n" + src, f"{name} as %%program", 300), name)
    return test


for _p in PROGRAMS:
    _stem = os.path.basename(_p)[:-3]
    globals()[f"test_cells_{_stem}"] = _cells_test(_p)
    globals()[f"test_program_{_stem}"] = _program_test(_p)


@needs_gpu
@timeout(600)
def test_a_whole_program_pasted_without_magic_runs_as_a_program():
    src = read(os.path.join(PROGRAMS_DIR, "add_managed.cu"))
    with shared_kernel() as k:
        msgs = _ok(k, src, "add_managed.cu pasted whole", 300)
        _passes(msgs, "add_managed.cu pasted whole")


@needs_gpu
@timeout(600)
def test_program_arguments_after_two_dashes_reach_argv():
    src = read(os.path.join(PROGRAMS_DIR, "transpose_args_goto.cu"))
    with shared_kernel() as k:
        msgs = _ok(k, "%%program -- 333\n" + src, "transpose with an argument", 300)
        _passes(msgs, "transpose with an argument")
        assert "matrix 333 x 333" in stdout_of(msgs), stdout_of(msgs)
