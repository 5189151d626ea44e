"""%%program --mpi N: an MPI program built with Open MPI's mpicxx as nvcc's
host compiler and run by mpirun on N ranks — every line marked with its
rank, the job's exit status the cell's, an interrupt ending every rank,
arguments after --, and clear errors for bad options, a missing Open MPI
and (tests/unit/test_program_mpi.c) more ranks than GPUs. Needs nvcc, g++
and Open MPI (mpicxx, mpirun; skipped with the reason without them), no
GPU: without one the ranks run without it; on a GPU machine each rank sees
its own GPU (with fewer GPUs than two ranks, they share with --share-gpus).
tests/gpu/test_program_mpi_gpu.py runs CUDA work on the ranks."""
import functools
import os
import time
import unittest

import support
from support import kernel, shared_kernel, stdout_of, timeout

ok_streams = functools.partial(support.ok_streams, t=240)


def need_open_mpi():
    missing = support.open_mpi_missing()
    if missing:
        raise unittest.SkipTest(missing)


def share_flag(k):
    """--share-gpus where this machine has a GPU but fewer than two."""
    c, msgs = support.run(k, "int ng_ = 0; cudaGetDeviceCount(&ng_); printf(\"%d\\n\", ng_);")
    n = int(stdout_of(msgs).strip()) if c["status"] == "ok" else 0
    return " --share-gpus" if 0 < n < 2 else ""


def cell_streams(k, code, t=240):
    c, msgs = support.run(k, code, t)
    return c, stdout_of(msgs), stdout_of(msgs, "stderr")


ALLREDUCE = """#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank + 1, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    printf("rank %d of %d: sum %d, local rank %s, GPU %s\\n", rank, size, sum,
           getenv("OMPI_COMM_WORLD_LOCAL_RANK"), cvd ? cvd : "(all)");
    fprintf(stderr, "a word on stderr\\n");
    MPI_Finalize();
    return 0;
}"""


@timeout(400)
def test_an_mpi_program_runs_on_two_ranks_with_each_line_marked():
    need_open_mpi()
    with shared_kernel() as k:
        flags = share_flag(k)
        out, err = ok_streams(k, f"%%program --mpi 2{flags}\n" + ALLREDUCE)
        lines = sorted(out.splitlines())
        assert len(lines) == 2, out
        assert lines[0].startswith("[0] rank 0 of 2: sum 3, local rank 0, GPU "), out
        assert lines[1].startswith("[1] rank 1 of 2: sum 3, local rank 1, GPU "), out
        assert sorted(x for x in err.splitlines() if "a word" in x) == ["[0] a word on stderr", "[1] a word on stderr"], err
        if not support.GPU:
            assert "no GPU here: the 2 ranks run without one" in err, err
            assert lines[0].endswith("GPU (all)"), out


@timeout(400)
def test_the_jobs_exit_status_and_arguments():
    need_open_mpi()
    with shared_kernel() as k:
        flags = share_flag(k)
        c, out, err = cell_streams(k, f"""%%program --mpi 2{flags} -- 7 "two words"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("%d args: %s|%s\\n", argc, argv[1], argv[2]);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rank == 1 ? atoi(argv[1]) : 0;
}}""")
        assert c["status"] == "error" and c["ename"] == "ProgramError", c
        assert c["evalue"] == "the MPI job (2 ranks) exited with status 7", c
        assert "[0] 3 args: 7|two words" in out and "[1] 3 args: 7|two words" in out, out


@timeout(400)
def test_an_interrupt_ends_every_rank():
    need_open_mpi()
    with shared_kernel() as k:
        flags = share_flag(k)
        code = f"""%%program --mpi 2{flags}
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("pid %d\\n", (int)getpid());
    fflush(stdout);
    for (;;) sleep(1);
}}"""
        msg_id = k.kc.execute(code)
        seen, deadline = "", time.time() + 240
        while seen.count("pid ") < 2:
            assert time.time() < deadline, "the ranks never started: " + seen
            m = k.kc.get_iopub_msg(timeout=240)
            if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "stream":
                seen += m["content"]["text"]
        pids = [int(line.split("pid ")[1]) for line in seen.splitlines() if "pid " in line]
        k.request("interrupt_request", channel="control")
        c = k.reply_to(msg_id, "shell", timeout=30)["content"]
        assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
        # every rank is gone (a zombie waiting for its reaper is gone too)
        deadline = time.time() + 20
        left = pids
        while left and time.time() < deadline:
            left = [p for p in pids if os.path.exists(f"/proc/{p}") and "zombie" not in open(f"/proc/{p}/status").read()]
            time.sleep(0.2)
        assert not left, f"ranks still running after the interrupt: {left}"
        out, _ = support.ok_streams(k, 'printf("still here\\n");')
        assert out == "still here\n"


def test_bad_options_are_usage_errors():
    with shared_kernel() as k:
        for line, words in (("--mpi x", "--mpi takes the number of ranks"),
                            ("--mpi 0", "--mpi takes the number of ranks"),
                            ("--mpi", "--mpi takes the number of ranks"),
                            ("--share-gpus", "--share-gpus is for MPI jobs"),
                            ("--mpi 2 --all-gpus --share-gpus", "exclude each other"),
                            ("--mpi 2 --profile", "--profile and --mpi together")):
            c, _, _ = cell_streams(k, f"%%program {line}\nint main() {{ return 0; }}")
            assert c["status"] == "error" and c["ename"] == "UsageError" and words in c["evalue"], (line, c)


def test_no_open_mpi_is_a_clear_error():
    with kernel(env={"ICUDA_MPIRUN": "/nonexistent/mpirun", "ICUDA_MPICXX": "/nonexistent/mpicxx"}) as k:
        c, _, _ = cell_streams(k, "%%program --mpi 2\nint main() { return 0; }")
        assert c["status"] == "error" and c["ename"] == "RuntimeError", c
        assert "--mpi needs Open MPI, and mpicxx was not found" in c["evalue"], c
        assert "/nonexistent/mpicxx, which is not an executable" in c["evalue"] and "libopenmpi-dev" in c["evalue"], c


@timeout(300)
def test_an_mpi_program_without_mpi_says_how_to_run_it():
    with shared_kernel() as k:
        c, _, err = cell_streams(k, "%%program\n#include <mpi.h>\nint main(int argc, char **argv) {\n"
                                    "    MPI_Init(&argc, &argv);\n    return MPI_Finalize();\n}")
        assert c["status"] == "error", c
        assert "%%program --mpi N" in err, err
