"""%%program: a whole CUDA C++ program compiled with nvcc and run in its own
process — output streamed, exit status and signals reported, compile errors
at the cell's lines, the executable cached, interrupts, program arguments,
%%header files, a cell that defines main() run this way by itself, the
libraries its #includes name linked without asking, and clear errors where
nvcc or a profiler is missing. Needs nvcc and g++, no GPU. Tests with a
compile cache, tools or an architecture of their own (env=) start a kernel
of their own; the others share one."""
import functools
import glob
import os
import shutil
import sys
import tempfile
import time

import support
from support import kernel, shared_kernel, stdout_of, timeout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from magics_tools import CUDA  # noqa: E402

NVCC = os.path.join(CUDA, "bin", "nvcc")

HELLO = """%%program
#include <iostream>
#include <cstdio>

__global__ void scale(float *x, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}

template <typename T>
T twice(T v) { return v + v; }

int main() {
    std::cout << "hello from a program: " << twice(21) << std::endl;
    std::cerr << "and a word on stderr" << std::endl;
    fprintf(stdout, "pi is about %.3f\\n", 3.14159);
    return 0;
}"""


# nvcc takes seconds to minutes
ok_streams = functools.partial(support.ok_streams, t=180)
error_streams = functools.partial(support.error_streams, t=180)


def cell_streams(k, code):
    """Runs a cell that may fail: (its execute_reply's content, its stdout, its stderr)."""
    c, msgs = support.run(k, code, 180)
    return c, stdout_of(msgs), stdout_of(msgs, "stderr")


def cache_env():
    return {"XDG_CACHE_HOME": tempfile.mkdtemp(prefix="icuda-program-cache-")}


@timeout(300)
def test_a_host_program_with_a_kernel_prints_on_both_streams():
    env = cache_env()
    try:
        with kernel(env=env) as k:
            out, err = ok_streams(k, HELLO)
            assert out == "hello from a program: 42\npi is about 3.142\n", out
            assert err == "and a word on stderr\n", err
            # the session goes on as before: host and device cells
            out, _ = ok_streams(k, 'int v = 5;\nprintf("v=%d\\n", v);')
            assert out == "v=5\n"
    finally:
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)


@timeout(300)
def test_exit_status_and_signals_are_errors():
    with shared_kernel() as k:
        c, out, _ = error_streams(k, '%%program\n#include <cstdio>\nint main() { puts("before"); return 3; }')
        assert c["ename"] == "ProgramError" and c["evalue"] == "the program exited with status 3", c
        assert out == "before\n"  # what it printed came first
        c, _, _ = error_streams(k, '%%program\n#include <cstdlib>\nint main() { abort(); }')
        assert c["ename"] == "ProgramError" and "killed by SIGABRT" in c["evalue"], c
        c, _, _ = error_streams(k, '%%program\n#include <csignal>\nint main() { raise(SIGSEGV); }')
        assert c["evalue"] == "the program was killed by SIGSEGV (segmentation fault)", c


@timeout(300)
def test_exit_zero_and_stdin_from_dev_null():
    with shared_kernel() as k:
        out, _ = ok_streams(k, '%%program\n#include <cstdio>\n#include <cstdlib>\n'
                               'int main() { int c = getchar(); printf("%s\\n", c == EOF ? "EOF" : "input"); exit(0); }')
        assert out == "EOF\n", out


def test_compile_error_at_the_cells_line():
    with shared_kernel() as k:
        code = ("%%program\n"
                "#include <cstdio>\n"
                "\n"
                "int main() {\n"
                "    int x = undefined_y + 1;\n"
                "    printf(\"%d\\n\", x);\n"
                "}\n")
        reply, msgs = k.execute(code, timeout=180)
        c = reply["content"]
        n = c["execution_count"]
        assert c["status"] == "error" and c["ename"] == "CompileError", c
        assert c["evalue"] == f'identifier "undefined_y" is undefined (In [{n}], line 5)', c["evalue"]
        tb = "\n".join(c["traceback"])
        assert f"1 error in the program of In [{n}] (nvcc)" in tb, tb
        assert f'In [{n}], line 5: error: identifier "undefined_y" is undefined' in tb, tb
        assert "     5 |     int x = undefined_y + 1;\n       |             ^" in tb, tb
        assert "cell.cu" not in tb and "/programs/" not in tb, tb
        # blank lines above the magic line count too; a header's errors are at the header's line
        ok_streams(k, "%%header broken.cuh\n#pragma once\ninline int f() { return 1 }\n")
        c, _, _ = error_streams(k, '\n\n%%program\n#include "broken.cuh"\nint main() { return f(); }')
        tb = "\n".join(c["traceback"])
        assert 'broken.cuh, line 2: error: expected a ";"' in tb, tb
        assert "inline int f() { return 1 }" in tb
        c, _, _ = error_streams(k, '\n\n%%program\nint main() { return nope; }')
        n = c["traceback"][1].split("]")[0] + "]"
        assert ", line 4: error: identifier \"nope\" is undefined" in c["traceback"][1], c["traceback"]


def test_warnings_go_to_stderr_and_the_program_runs():
    env = cache_env()  # warnings come with a compile: a fresh cache makes one
    with kernel(env=env) as k:
        reply, msgs = k.execute('%%program\n#include <cstdio>\nint main() {\n    int unused;\n    puts("ran");\n}',
                                timeout=180)
        c = reply["content"]
        assert c["status"] == "ok", c
        assert stdout_of(msgs) == "ran\n"
        err = stdout_of(msgs, "stderr")
        n = c["execution_count"]
        assert f'In [{n}], line 4: warning #177-D: variable "unused" was declared but never referenced' in err, err
        # run again: found in the cache, nothing compiled, nothing said
        reply, msgs = k.execute('%%program\n#include <cstdio>\nint main() {\n    int unused;\n    puts("ran");\n}')
        assert stdout_of(msgs) == "ran\n" and stdout_of(msgs, "stderr") == ""
    shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)


def test_link_errors_and_bad_options():
    with shared_kernel() as k:
        c, _, _ = error_streams(k, "%%program\nvoid missing();\nint main() { missing(); }")
        assert c["ename"] == "CompileError" and "undefined reference to `missing()'" in c["evalue"], c
        c, _, _ = error_streams(k, "%%program -o elsewhere\nint main() {}")
        assert c["ename"] == "UsageError" and "-o is not for %%program" in c["evalue"], c
        c, _, _ = error_streams(k, "%%program --profile=gprof\nint main() {}")
        assert c["ename"] == "UsageError" and "--profile takes nsys or ncu" in c["evalue"], c
        c, _, _ = error_streams(k, "%%program --no-such-nvcc-option\nint main() {}")
        assert c["ename"] == "CompileError" and "no-such-nvcc-option" in c["evalue"], c
        c, _, _ = error_streams(k, "%%program\n\n")
        assert c["ename"] == "UsageError" and "empty" in c["evalue"], c


@timeout(300)
def test_an_unchanged_program_is_not_compiled_again():
    env = cache_env()
    cache = env["XDG_CACHE_HOME"]
    code = '%%program -DWHO=\\"cache\\"\n#include <cstdio>\nint main() { printf("built for %s\\n", WHO); }'
    try:
        with kernel(env=env) as k:
            out, _ = ok_streams(k, code)
            assert out == "built for cache\n", out
            progs = glob.glob(os.path.join(cache, "icuda", "programs", "*", "prog"))
            assert len(progs) == 1, progs
            assert os.path.exists(os.path.join(os.path.dirname(progs[0]), "cell.cu"))
            # put another executable in its place: if the cell ran it, nothing was compiled
            with open(progs[0], "w") as f:
                f.write("#!/bin/sh\necho 'the cached executable ran'\n")
            os.chmod(progs[0], 0o755)
            out, err = ok_streams(k, code)
            assert out == "the cached executable ran\n" and err == "", (out, err)
            # a changed option is another program
            out, _ = ok_streams(k, code.replace('\\"cache\\"', '\\"options\\"'))
            assert out == "built for options\n", out
            assert len(glob.glob(os.path.join(cache, "icuda", "programs", "*", "prog"))) == 2
            # so is a changed %%header that it includes
            ok_streams(k, "%%header who.cuh\n#define WHO2 \"one\"")
            hcode = '%%program\n#include <cstdio>\n#include "who.cuh"\nint main() { puts(WHO2); }'
            assert ok_streams(k, hcode)[0] == "one\n"
            ok_streams(k, "%%header who.cuh\n#define WHO2 \"two\"")
            assert ok_streams(k, hcode)[0] == "two\n"
        # a new session finds it too
        with kernel(env=env) as k:
            out, _ = ok_streams(k, code)
            assert out == "the cached executable ran\n", out
    finally:
        shutil.rmtree(cache, ignore_errors=True)


@timeout(300)
def test_interrupt_stops_the_program_and_the_session_goes_on():
    with shared_kernel() as k:
        for body, how in (("while (1) {}", "stopped (SIGINT)"),
                          ("signal(SIGINT, SIG_IGN);\n    while (1) {}", "did not stop on SIGINT and was killed")):
            code = ("%%program\n#include <cstdio>\n#include <csignal>\nint main() {\n"
                    f"    printf(\"running\\n\");\n    fflush(stdout);\n    {body}\n}}")
            msg_id = k.kc.execute(code)
            # wait for the program's first line: it is compiled and running
            deadline = time.time() + 180
            seen = ""
            while "running" not in seen:
                assert time.time() < deadline, "the program never started"
                m = k.kc.get_iopub_msg(timeout=180)
                if m["parent_header"].get("msg_id") != msg_id:
                    continue
                if m["msg_type"] in ("stream", "error"):
                    seen += m["content"].get("text") or m["content"].get("evalue", "")
                # a program that failed to build ends the cell: say so, not wait out the deadline
                assert not (m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"), seen
            t0 = time.time()
            k.request("interrupt_request", channel="control")
            reply = k.reply_to(msg_id, "shell", timeout=20)
            took = time.time() - t0
            print(f"interrupt of a running program: control back in {took:.2f} s")
            c = reply["content"]
            assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
            assert how in c["evalue"], c
            out, _ = ok_streams(k, 'printf("still here\\n");')
            assert out == "still here\n"


@timeout(300)
def test_output_is_streamed_while_the_program_runs():
    flag = tempfile.mktemp(prefix="icuda-program-flag-")
    # the flag's path is an argument: the same source each run, found in the cache
    code = (f"%%program -- {flag}\n#include <cstdio>\n#include <unistd.h>\nint main(int argc, char **argv) {{\n"
            "    printf(\"waiting without a newline\");\n    fflush(stdout);\n"
            "    while (access(argv[1], F_OK) != 0) usleep(10000);\n"
            "    printf(\" -- and done\\n\");\n}")
    try:
        with shared_kernel() as k:
            msg_id = k.kc.execute(code)
            deadline = time.time() + 180
            seen = ""
            while "waiting" not in seen:  # the partial line arrives while it waits
                assert time.time() < deadline, "the partial line never came"
                m = k.kc.get_iopub_msg(timeout=180)
                if m["parent_header"].get("msg_id") != msg_id:
                    continue
                if m["msg_type"] in ("stream", "error"):
                    seen += m["content"].get("text") or m["content"].get("evalue", "")
                # a program that failed to build ends the cell: say so, not wait out the deadline
                assert not (m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"), seen
            open(flag, "w").close()
            reply = k.reply_to(msg_id, "shell", timeout=60)
            assert reply["content"]["status"] == "ok", reply["content"]
            rest = "".join(m["content"]["text"] for m in k.iopub_until_idle(msg_id) if m["msg_type"] == "stream")
            assert seen + rest == "waiting without a newline -- and done\n", seen + rest
    finally:
        if os.path.exists(flag):
            os.unlink(flag)


def test_program_arguments_and_nvcc_options():
    with shared_kernel() as k:
        out, _ = ok_streams(k, '%%program -DN=7 -std=c++17 -DS=\\"text\\" -- first "two words" \'single \\ quoted\' a\\ b\n'
                               '#include <cstdio>\n'
                               'int main(int argc, char **argv) {\n    printf("N=%d S=%s argc=%d\\n", N, S, argc);\n'
                               '    for (int i = 1; i < argc; i++) printf("[%s]\\n", argv[i]);\n}')
        assert out == "N=7 S=text argc=5\n[first]\n[two words]\n[single \\ quoted]\n[a b]\n", out


def test_a_header_cell_is_includable():
    with shared_kernel() as k:
        ok_streams(k, "%%header vec_util.cuh\n#pragma once\n"
                      "__host__ __device__ inline float axpy(float a, float x, float y) { return a * x + y; }\n"
                      "constexpr int kWidth = 16;")
        out, _ = ok_streams(k, '%%program\n#include <cstdio>\n#include "vec_util.cuh"\n'
                               'int main() { printf("%.1f %d\\n", axpy(2.0f, 3.0f, 1.0f), kWidth); }')
        assert out == "7.0 16\n", out


def test_a_cell_that_defines_main_runs_as_a_program():
    with shared_kernel() as k:
        code = ("#include <iostream>\n"
                "// a pasted program: no magic line\n"
                "__global__ void noop() {}\n"
                "int main(int argc, char **argv) {\n"
                "    std::cout << \"pasted program, argc = \" << argc << std::endl;\n"
                "    return 0;\n"
                "}\n")
        out, err = ok_streams(k, code)
        assert out == "pasted program, argc = 1\n", out
        assert err == "icuda: this cell defines main(): running it as a whole program (%%program)\n", err
        # its lines are the cell's own (no magic line above them)
        reply, _ = k.execute("#include <cstdio>\nint main() {\n    return undefined_z;\n}")
        c = reply["content"]
        assert c["ename"] == "CompileError" and f"(In [{c['execution_count']}], line 3)" in c["evalue"], c
        # a declaration of main, or main in a comment, is no program
        out, err = ok_streams(k, '// int main() { }\nint main_count = 2;\nprintf("%d\\n", main_count);')
        assert out == "2\n" and "whole program" not in err


def test_no_nvcc_is_a_clear_error():
    with kernel(env={"ICUDA_NVCC": "/nonexistent/bin/nvcc"}) as k:
        c, _, _ = error_streams(k, "%%program\nint main() {}")
        assert c["ename"] == "RuntimeError", c
        assert "%%program needs nvcc" in c["evalue"] and "ICUDA_NVCC=/nonexistent/bin/nvcc" in c["evalue"], c
        c, _, _ = error_streams(k, "int main() { return 0; }")  # the automatic way says so too
        assert "%%program needs nvcc" in c["evalue"], c
    empty = tempfile.mkdtemp(prefix="icuda-no-tools-")
    try:
        with kernel(env={"ICUDA_TOOLS_PATH": empty}) as k:
            c, _, _ = error_streams(k, "%%program\nint main() {}")
            assert "%%program needs nvcc" in c["evalue"] and f"looked in: {empty}" in c["evalue"], c
    finally:
        os.rmdir(empty)


def test_profile_without_a_profiler_is_a_clear_error():
    empty = tempfile.mkdtemp(prefix="icuda-no-tools-")
    try:
        with kernel(env={"ICUDA_TOOLS_PATH": empty, "ICUDA_NVCC": NVCC}) as k:
            c, out, _ = error_streams(k, '%%program --profile\n#include <cstdio>\nint main() { puts("ran"); }')
            assert c["ename"] == "RuntimeError", c
            assert ("--profile needs Nsight Systems (nsys) or Nsight Compute (ncu), and neither was found"
                    in c["evalue"]), c
            assert "the program was not run" in c["evalue"] and out == ""
            c, _, _ = error_streams(k, '%%program --profile=ncu\nint main() {}')
            assert "--profile needs Nsight Compute (ncu), and it was not found (looked in" in c["evalue"], c
            # without --profile the same session builds and runs
            out, _ = ok_streams(k, '%%program\n#include <cstdio>\nint main() { puts("ran"); }')
            assert out == "ran\n"
    finally:
        os.rmdir(empty)


def test_help_and_lsmagic():
    with shared_kernel() as k:
        out, _ = ok_streams(k, "%lsmagic")
        assert "%%program" in out, out
        for ask in ("%%program?", "%help program", "%program?"):
            out = support.help_of(k, ask)
            assert out.startswith("%%program [--profile[=nsys|ncu] | --mpi N [--all-gpus|--share-gpus]] [NVCC OPTION ...] "
                                  "[-- PROGRAM ARG ...]"), out
            assert "nvcc" in out and "cache" in out
        c, _, _ = error_streams(k, "%program")
        assert c["ename"] == "UsageError" and "cell magic" in c["evalue"], c


def test_cuda_runtime_calls_without_a_gpu_are_the_programs_business():
    """On a machine without a GPU (or driver) the program gets CUDA's error
    and reports it itself; on one with a GPU it sees it."""
    with shared_kernel() as k:
        out, _ = ok_streams(k, '%%program\n#include <cstdio>\nint main() {\n    int n = -1;\n'
                               '    cudaError_t e = cudaGetDeviceCount(&n);\n'
                               '    printf("%s %d\\n", cudaGetErrorName(e), e == cudaSuccess ? n : 0);\n}')
        name, count = out.split()
        assert name in ("cudaSuccess", "cudaErrorNoDevice", "cudaErrorInsufficientDriver"), out
        assert (name == "cudaSuccess") == (int(count) > 0), out


def test_the_architecture_is_the_sessions():
    """-arch is the one device cells use (ICUDA_ARCH here, the GPU's on a GPU
    machine); one this nvcc does not know falls back to nvcc's default."""
    code = ("%%program\n#include <cstdio>\n"
            "__global__ void k() {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 800\n#error not sm_80\n#endif\n}\n"
            "int main() { puts(\"built\"); }")
    with kernel(env={"ICUDA_ARCH": "sm_80"}) as k:
        assert ok_streams(k, code)[0] == "built\n"
        # the options may choose: then icuda adds none
        c, _, _ = error_streams(k, code.replace("%%program", "%%program -arch=sm_90"))
        assert c["ename"] == "CompileError" and "not sm_80" in c["evalue"], c
    env = cache_env()
    try:
        with kernel(env=dict(env, ICUDA_ARCH="sm_999")) as k:
            out, err = ok_streams(k, '%%program\n#include <cstdio>\nint main() { puts("built anyway"); }')
            assert out == "built anyway\n", out
            assert "this nvcc cannot compile for sm_999: built for its default architecture" in err, err
    finally:
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)


@timeout(300)
def test_interrupt_while_nvcc_compiles():
    """nvcc and what it started (cudafe++, cicc, gcc) stop; the half-made
    build leaves nothing in the cache."""
    env = cache_env()
    programs = os.path.join(env["XDG_CACHE_HOME"], "icuda", "programs")
    code = ("%%program\n#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n#include <thrust/reduce.h>\n"
            "#include <cub/cub.cuh>\n#include <cstdio>\n"
            "int main() {\n    thrust::device_vector<double> v(1000, 1.0);\n    thrust::sort(v.begin(), v.end());\n"
            "    thrust::device_vector<int> w(10, 2);\n    thrust::sort(w.begin(), w.end());\n"
            "    printf(\"%f %d\\n\", thrust::reduce(v.begin(), v.end()), thrust::reduce(w.begin(), w.end()));\n}")
    try:
        with kernel(env=env) as k:
            msg_id = k.kc.execute(code)
            time.sleep(2.0)  # nvcc is at work: Thrust takes many seconds to compile
            t0 = time.time()
            k.request("interrupt_request", channel="control")
            reply = k.reply_to(msg_id, "shell", timeout=30)
            print(f"interrupt of nvcc: control back in {time.time() - t0:.2f} s")
            c = reply["content"]
            assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
            assert "interrupted while nvcc compiled the program of In [1]" in c["evalue"], c
            assert os.listdir(programs) == [], os.listdir(programs)
            out, _ = ok_streams(k, '%%program\n#include <cstdio>\nint main() { puts("next"); }')
            assert out == "next\n"
    finally:
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)


CUBLAS = """#include <cstdio>
#include <cublas_v2.h>
#include <cufft.h>
int main() {
    cublasHandle_t h;
    cublasStatus_t s = cublasCreate(&h);
    printf("cublasCreate: %d, cufft %d\\n", (int)s, (int)sizeof(cufftComplex));
    if (s != CUBLAS_STATUS_SUCCESS) return 1;  // no GPU here: the program's own failure
    cublasDestroy(h);
    return 0;
}"""


def built_then_ran(c, out):
    """The program compiled and linked, and ran: to its end with a GPU, to
    its own failure without one (never a CompileError, a link error)."""
    assert c["status"] == "ok" or c["ename"] == "ProgramError", c
    assert out.startswith("cublasCreate: "), out


@timeout(300)
def test_the_libraries_its_includes_name_are_linked():
    env = cache_env()
    try:
        with kernel(env=env) as k:
            c, out, err = cell_streams(k, "%%program\n" + CUBLAS)
            built_then_ran(c, out)
            assert "icuda: linking -lcublas -lcufft (the program includes cublas_v2.h, cufft.h)\n" in err, err
            # found in the cache: nothing compiled, nothing said
            c, out, err = cell_streams(k, "%%program\n" + CUBLAS)
            built_then_ran(c, out)
            assert "linking" not in err, err
            # a library the options name already is not added again
            c, out, err = cell_streams(k, "%%program -lcublas\n" + CUBLAS)
            built_then_ran(c, out)
            assert "icuda: linking -lcufft (the program includes cufft.h)\n" in err, err
            # a pasted program (main, no magic) links the same way
            c, out, err = cell_streams(k, CUBLAS + "\n// pasted")
            built_then_ran(c, out)
            assert "icuda: linking -lcublas -lcufft" in err, err
            # through a %%header file it includes
            ok_streams(k, "%%header blas_all.cuh\n#pragma once\n#include <cublas_v2.h>")
            c, out, err = cell_streams(k, '%%program\n#include <cstdio>\n#include "blas_all.cuh"\n'
                                 'int main() { cublasHandle_t h; int s = cublasCreate(&h);\n'
                                 '    printf("cublasCreate: %d\\n", s); return s != 0; }')
            built_then_ran(c, out)
            assert "icuda: linking -lcublas (the program includes cublas_v2.h)\n" in err, err
            # curand_kernel.h is device code in headers: nothing to link; one in a comment counts for nothing
            out, err = ok_streams(k, "%%program\n#include <cstdio>\n#include <curand_kernel.h>\n// #include <cufft.h>\n"
                             "__global__ void k(curandState *s) { curand_init(1, 0, 0, s); }\n"
                             "int main() { puts(\"no library\"); }")
            assert out == "no library\n" and "linking" not in err, err
    finally:
        shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)



# A program that leaves processes behind: a child in its own group (through
# system's shell) and a daemon that left the group and the session (setsid,
# then its parent exited); their pids go into DIR, then it returns or spins.
LEAVER = r"""%%program -- {dir} {mode}
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

static void note(const std::string &path, int pid) {
    std::string tmp = path + ".tmp";
    FILE *f = fopen(tmp.c_str(), "w");
    fprintf(f, "%d\n", pid);
    fclose(f);
    rename(tmp.c_str(), path.c_str());
}

int main(int argc, char **argv) {
    std::string dir = argv[1], mode = argv[2];
    system(("sleep 1000 & echo $! > " + dir + "/bg").c_str());
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            note(dir + "/daemon", getpid());
            for (;;) pause();
        }
        _exit(0);
    }
    struct stat st;
    while (stat((dir + "/daemon").c_str(), &st) != 0) usleep(10000);
    printf("started\n");
    fflush(stdout);
    if (mode == "spin")
        for (;;) {}
    return 0;
}"""


def leaver(d, mode):
    return LEAVER.replace("{dir}", d).replace("{mode}", mode)


def left_behind(d):
    """The pids the program wrote into d."""
    return [int(open(os.path.join(d, name)).read()) for name in ("bg", "daemon")]


def running(pid):
    return os.path.exists(f"/proc/{pid}")


def wait_started(k, msg_id):
    deadline = time.time() + 180
    seen = ""
    while "started" not in seen:
        assert time.time() < deadline, "the program never started"
        m = k.kc.get_iopub_msg(timeout=180)
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "stream":
            seen += m["content"]["text"]


@timeout(300)
def test_what_a_program_started_ends_with_its_cell_and_its_interrupt():
    d = tempfile.mkdtemp(prefix="icuda-leaver-")
    try:
        with shared_kernel() as k:
            out, _ = ok_streams(k, leaver(d, "return"))
            assert out == "started\n", out
            pids = left_behind(d)
            assert not any(running(p) for p in pids), pids  # gone when the cell's reply comes
            for name in ("bg", "daemon"):
                os.unlink(os.path.join(d, name))
            msg_id = k.kc.execute(leaver(d, "spin"))
            wait_started(k, msg_id)
            pids = left_behind(d)
            assert all(running(p) for p in pids), pids
            k.request("interrupt_request", channel="control")
            c = k.reply_to(msg_id, "shell", timeout=30)["content"]
            assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
            assert not any(running(p) for p in pids), pids
    finally:
        shutil.rmtree(d, ignore_errors=True)


@timeout(300)
def test_what_a_program_started_ends_at_kernel_shutdown():
    d = tempfile.mkdtemp(prefix="icuda-leaver-")
    try:
        with kernel() as k:
            msg_id = k.kc.execute(leaver(d, "spin"))
            wait_started(k, msg_id)
            pids = left_behind(d)
            assert all(running(p) for p in pids), pids
        # the kernel has shut down (its with-block ended) while the program ran
        for _ in range(3000):
            if not any(running(p) for p in pids):
                break
            time.sleep(0.01)
        assert not any(running(p) for p in pids), pids
    finally:
        shutil.rmtree(d, ignore_errors=True)
