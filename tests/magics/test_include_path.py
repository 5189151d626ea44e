"""%include_path: folders that %%program cells #include from (-I DIR), listed,
cleared, kept by %reset, a relative one taken from the kernel's folder; the
kernel's working directory is on the path too; a program is built again when
a header it includes from there changes. Needs nvcc and g++, no GPU."""
import os
import shutil
import tempfile

import support
from support import kernel, stdout_of, timeout

ANSWER = '%%program\n#include <cstdio>\n#include "helper_answer.h"\nint main() { printf("%d\\n", helper_answer()); }'

# as the CUDA samples' helper_cuda.h checks calls: the program exits on a CUDA error
CHECKS = """#pragma once
#include <cstdio>
#include <cstdlib>
#define checkCudaErrors(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\
    fprintf(stderr, "CUDA error %s at %s:%d\\n", cudaGetErrorName(e_), __FILE__, __LINE__); exit(EXIT_FAILURE); } } while (0)
"""

GPU_PROGRAM = """%%program
#include "helper_checks.h"
__global__ void fill(int *x) { x[threadIdx.x] = threadIdx.x; }
int main() {
    int *d = nullptr;
    checkCudaErrors(cudaMalloc(&d, 32 * sizeof(int)));
    fill<<<1, 32>>>(d);
    checkCudaErrors(cudaDeviceSynchronize());
    checkCudaErrors(cudaFree(d));
    puts("ran on the GPU");
}"""


def run(k, code, t=180):
    reply, msgs = k.execute(code, timeout=t)
    return reply["content"], stdout_of(msgs), stdout_of(msgs, "stderr")


def ok(k, code, t=180):
    c, out, err = run(k, code, t)
    assert c["status"] == "ok", (c, out, err)
    return out, err


def error(k, code, t=180):
    c, out, err = run(k, code, t)
    assert c["status"] == "error", (c, out, err)
    return c, out, err


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


@timeout(300)
def test_a_program_includes_headers_from_an_added_folder():
    folder = tempfile.mkdtemp(prefix="icuda-include-")
    cache = tempfile.mkdtemp(prefix="icuda-program-cache-")
    write(os.path.join(folder, "helper_answer.h"), "#pragma once\ninline int helper_answer() { return 42; }\n")
    write(os.path.join(folder, "helper_checks.h"), CHECKS)
    try:
        with kernel(env={"XDG_CACHE_HOME": cache}) as k:
            # not on the path yet: nvcc does not find it
            c, _, _ = error(k, ANSWER)
            assert c["ename"] == "CompileError" and "helper_answer.h" in c["evalue"], c
            out, _ = ok(k, f"%include_path {folder}")
            assert f"  {os.path.realpath(folder)}\n" in out, out
            assert ok(k, ANSWER)[0] == "42\n"
            # a program that needs the GPU compiles: without one, its run ends in its own check
            c, out, err = run(k, GPU_PROGRAM)
            if c["status"] == "ok":
                assert out == "ran on the GPU\n", out
            else:
                assert c["ename"] == "ProgramError" and "exited with status 1" in c["evalue"], c
                assert "CUDA error cuda" in err, err
            # the header changes: the program is compiled again, not taken from the cache
            write(os.path.join(folder, "helper_answer.h"), "#pragma once\ninline int helper_answer() { return 4300; }\n")
            assert ok(k, ANSWER)[0] == "4300\n"
            # %reset keeps the path
            ok(k, "%reset")
            assert ok(k, ANSWER)[0] == "4300\n"
            # --clear empties it
            out, _ = ok(k, "%include_path --clear")
            assert "no include folders of yours" in out, out
            c, _, _ = error(k, ANSWER.replace("%%program", "%%program -DAGAIN"))
            assert c["ename"] == "CompileError" and "helper_answer.h" in c["evalue"], c
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)


def test_relative_folders_and_the_kernels_working_directory():
    work = os.path.realpath(tempfile.mkdtemp(prefix="icuda-notebook-"))
    os.makedirs(os.path.join(work, "include"))
    write(os.path.join(work, "include", "rel.h"), "#define REL 7\n")
    write(os.path.join(work, "beside.h"), "#define BESIDE 5\n")
    here = os.getcwd()
    os.chdir(work)  # the kernel starts in the notebook's folder
    try:
        with kernel() as k:
            os.chdir(here)
            out, _ = ok(k, "%include_path")
            assert f"then the kernel's working directory: {work}\n" in out, out
            # a header beside the notebook is found, though the build runs in a cache folder
            out, _ = ok(k, '%%program\n#include <cstdio>\n#include "beside.h"\nint main() { printf("%d\\n", BESIDE); }')
            assert out == "5\n", out
            # a relative folder is the kernel's folder's
            out, _ = ok(k, "%include_path include")
            assert f"  {work}/include\n" in out, out
            out, _ = ok(k, '%%program\n#include <cstdio>\n#include <rel.h>\nint main() { printf("%d\\n", REL); }')
            assert out == "7\n", out
    finally:
        os.chdir(here)
        shutil.rmtree(work, ignore_errors=True)


def test_errors_listing_and_help():
    good = tempfile.mkdtemp(prefix="icuda-include-")
    try:
        with kernel() as k:
            out, _ = ok(k, "%include_path")
            assert out.startswith("no include folders of yours: %include_path DIR adds one\n"), out
            c, _, _ = error(k, "%include_path /nonexistent/icuda-folder")
            assert c["ename"] == "UsageError" and c["evalue"] == "/nonexistent/icuda-folder: no such folder", c
            with tempfile.NamedTemporaryFile() as f:
                c, _, _ = error(k, f"%include_path {f.name}")
                assert c["ename"] == "UsageError" and c["evalue"] == f"{f.name} is not a folder", c
            c, _, _ = error(k, "%include_path --reset")
            assert c["ename"] == "UsageError" and "not an option" in c["evalue"], c
            # one bad folder: none of them is added
            error(k, f"%include_path {good} /nonexistent/icuda-folder")
            assert "no include folders of yours" in ok(k, "%include_path")[0]
            # a folder added twice is listed once
            ok(k, f"%include_path {good}")
            out, _ = ok(k, f"%include_path {good}")
            assert out.count(os.path.realpath(good)) == 1, out
            assert "%include_path" in ok(k, "%lsmagic")[0]
            for ask in ("%include_path?", "%help include_path"):
                h = support.help_of(k, ask)
                assert h.startswith("%include_path [DIR ... | --clear]"), h
                assert "-I DIR" in h and "helper_cuda.h" in h and "--clear" in h, h
    finally:
        shutil.rmtree(good, ignore_errors=True)
