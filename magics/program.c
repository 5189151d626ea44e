/* %%program: the cell as a whole CUDA C++ program with main, built with
 * nvcc (runtime/program/program_build.c: the session's %%header files beside it,
 * the executable cached) and run in its own process (runtime/program/program_run.c:
 * output streamed, an interrupt ends it), optionally under nsys or ncu, or
 * as an MPI job of N ranks under mpirun (runtime/program/program_mpi.c). A
 * cell that defines main() comes here too (magic_program_auto). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "magic_args.h"
#include "magics.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/program/cuda_tools.h"
#include "runtime/program/program_build.h"
#include "runtime/program/program_libs.h"
#include "runtime/program/program_log.h"
#include "runtime/program/program_mpi.h"
#include "runtime/program/program_report.h"
#include "runtime/program/program_run.h"
#include "runtime/base/progress.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
#include "runtime/device/compile_cache.h"
#define RED "\x1b[1;31m"
#define OFF "\x1b[0m"

/* Lines of the cell before the body: the magic line and any blank lines
 * before it. */
static int body_offset(const magic_ctx_t *mc, const char *body) {
    const char *c = mc->cell_code;
    if (!c || body < c || body > c + strlen(c)) return 1;
    int n = 0;
    for (const char *p = c; p < body; p++) n += *p == '\n';
    return n;
}

/* The profiler --profile asks for (want: "", "nsys" or "ncu"): its path
 * (malloc'd) and name; -1 with the error set where there is none. */
static int find_profiler(const char *want, char **path, const char **tool, cell_error_t *err) {
    char where_nsys[2048] = "", where_ncu[2048] = "";
    *path = NULL;
    if (strcmp(want, "ncu")) {
        *path = cuda_tool_find("nsys", where_nsys, sizeof where_nsys);
        *tool = "nsys";
    }
    if (!*path && strcmp(want, "nsys")) {
        *path = cuda_tool_find("ncu", where_ncu, sizeof where_ncu);
        *tool = "ncu";
    }
    if (*path) return 0;
    const char *what = !*want                 ? "Nsight Systems (nsys) or Nsight Compute (ncu), and neither was found"
                       : !strcmp(want, "nsys") ? "Nsight Systems (nsys), and it was not found"
                                               : "Nsight Compute (ncu), and it was not found";
    const char *where = *where_nsys ? where_nsys : where_ncu;
    json_t *tb = json_array();
    json_array_append_new(tb, json_sprintf(RED "RuntimeError" OFF ": --profile needs %s; the program was not run",
                                           what));
    json_array_append_new(tb, json_sprintf("looked in: %s", *where ? where : "(nowhere)"));
    json_array_append_new(tb, json_string("install Nsight Compute or Nsight Systems (the CUDA toolkit's full "
                                          "installer has them), or set ICUDA_TOOLS_PATH to their folder"));
    cell_error_set(err, "RuntimeError", tb, "--profile needs %s (looked in: %s); the program was not run",
                     what, *where ? where : "nowhere");
    return -1;
}

static int run_status(const proc_result_t *r, const char *what, cell_error_t *err) {
    char sig[96];
    if (r->interrupted) {
        if (r->killed)
            cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted: %s did not stop on SIGINT and was killed "
                             "(SIGKILL)", what);
        else
            cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted: %s was stopped (SIGINT)", what);
        return -1;
    }
    if (r->exited && r->exit_status == 0) return 0;
    if (r->exited) {
        cell_error_set(err, "ProgramError", NULL, "%s exited with status %d", what, r->exit_status);
    } else {
        proc_signal_name(r->signal, sig, sizeof sig);
        cell_error_set(err, "ProgramError", NULL, "%s was killed by %s", what, sig);
    }
    return -1;
}

/* After %device N the program's device 0 is the session's device N:
 * CUDA_VISIBLE_DEVICES lists it first, and every other GPU after it (in the
 * order the kernel's own CUDA_VISIBLE_DEVICES gives, when it has one). NULL
 * when nothing needs changing. */
static const char *visible_devices(magic_ctx_t *mc, char *out, size_t cap) {
    int n = 0, cur = cuda_session_current_device(mc->cuda, &n);
    if (cur <= 0 || cur >= n) return NULL;
    char ids[64][64];
    int k = 0;
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    if (env && *env) {
        for (const char *p = env; *p && k < 64;) {
            size_t l = strcspn(p, ",");
            if (l >= sizeof ids[0]) return NULL;
            memcpy(ids[k], p, l);
            ids[k++][l] = 0;
            p += l + (p[l] == ',');
        }
    } else {
        for (; k < n && k < 64; k++) snprintf(ids[k], sizeof ids[k], "%d", k);
    }
    if (cur >= k) return NULL;
    size_t o = (size_t)snprintf(out, cap, "CUDA_VISIBLE_DEVICES=%s", ids[cur]);
    for (int i = 0; i < k && o < cap; i++)
        if (i != cur) o += (size_t)snprintf(out + o, cap - o, ",%s", ids[i]);
    return o < cap ? out : NULL;
}

/* An MPI job's tools and GPUs, before any compile: mpicxx and mpirun found
 * (*mpicxx, *mpirun malloc'd), the ranks checked against the GPUs. */
static int mpi_setup(magic_ctx_t *mc, const program_opts_t *o, program_mpi_t *m, char **mpicxx, char **mpirun,
                     cell_error_t *err) {
    char where[2048] = "";
    *mpirun = NULL;
    if (!(*mpicxx = program_find_mpi("mpicxx", where, sizeof where)) ||
        !(*mpirun = program_find_mpi("mpirun", where, sizeof where))) {
        cell_error_set(err, "RuntimeError", NULL, "%%%%program --mpi needs Open MPI, and %s was not found (looked in "
                       "%s): install it (Debian and Ubuntu: apt-get install libopenmpi-dev openmpi-bin), or set "
                       "ICUDA_MPICXX and ICUDA_MPIRUN to its mpicxx and mpirun", *mpicxx ? "mpirun" : "mpicxx", where);
        return -1;
    }
    memset(m, 0, sizeof *m);
    m->ranks = o->mpi;
    m->first = cuda_session_current_device(mc->cuda, &m->gpus);
    if (m->first < 0 || m->first >= m->gpus) m->first = 0;
    m->all_gpus = o->all_gpus;
    m->share_gpus = o->share_gpus;
    program_mpi_ids(m);
    char why[512];
    if (program_mpi_check(m, why, sizeof why)) {
        cell_error_set(err, "RuntimeError", NULL, "%s; the program was not built", why);
        return -1;
    }
    if (!m->gpus)
        io_printf(mc->io, "stderr", "icuda: no GPU here: the %d rank%s run without one\n", m->ranks,
                  m->ranks == 1 ? "" : "s");
    return 0;
}

static bool names_host_compiler(char *const *options, int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(options[i], "-ccbin") || !strncmp(options[i], "-ccbin=", 7) ||
            !strncmp(options[i], "--compiler-bindir", 17))
            return true;
    return false;
}

/* mpirun with the job's ranks, their output marked by rank. mpirun
 * passes the interrupt's SIGINT on to the ranks and ends the job; it has
 * longer than a program to do it before SIGKILL. */
static int run_mpi(magic_ctx_t *mc, const program_mpi_t *m, const char *mpirun, const program_binary_t *b,
                   const program_opts_t *o, cell_error_t *err) {
    char **argv = program_mpi_argv(m, mpirun, b->binary, o->args, o->nargs);
    program_mpi_io_t *tagged = program_mpi_io_new(mc->io);
    char vis[512];
    proc_opts_t po = {.io = program_mpi_io(tagged), .grace_ms = 3000,
                      .setenv = m->all_gpus ? visible_devices(mc, vis, sizeof vis) : NULL};
    proc_result_t r;
    int rc;
    char what[64];
    snprintf(what, sizeof what, "the MPI job (%d rank%s)", m->ranks, m->ranks == 1 ? "" : "s");
    if (proc_run(argv, &po, &r) != 0) {
        cell_error_set(err, "RuntimeError", NULL, "%s", r.why);
        rc = -1;
    } else {
        rc = run_status(&r, what, err);
    }
    program_mpi_io_free(tagged);
    proc_result_free(&r);
    program_strings_free(argv);
    return rc;
}

static int run_program(magic_ctx_t *mc, const char *source, int line_offset, const program_opts_t *o,
                       cell_error_t *err) {
    device_session_t *e = mc->dev;
    /* a profile asked for and impossible: said before any compile */
    char *prof = NULL;
    const char *tool = NULL;
    if (o->profile && find_profiler(o->profile, &prof, &tool, err)) return -1;
    /* so is an MPI job without Open MPI, or with more ranks than GPUs */
    char *mpicxx = NULL, *mpirun = NULL;
    program_mpi_t mpi;
    if (o->mpi && mpi_setup(mc, o, &mpi, &mpicxx, &mpirun, err)) {
        free(mpicxx);
        free(mpirun);
        return -1;
    }

    const char *forced = getenv("ICUDA_ARCH");
    const char *arch = device_arch(e);
    bool gpu_arch = e->arch_from_gpu || (forced && *forced);
    int ninc = 0;
    char **inc = program_include_dirs(e, &ninc);
    /* device lambdas compile as a program's own Makefile would have them;
     * an MPI program with Open MPI's wrapper as the host compiler */
    char *extended[] = {"--extended-lambda", "-ccbin", mpicxx};
    int nextra = mpicxx && !names_host_compiler(o->nvcc, o->nnvcc) ? 3 : 1;
    program_spec_t spec = {.source = source,
                           .extra = extended,
                           .nextra = nextra,
                           .options = o->nvcc,
                           .noptions = o->nnvcc,
                           .arch = gpu_arch ? arch : NULL,
                           .headers = e->headers,
                           .nheaders = e->nheaders,
                           .cache_dir = compile_cache_dir(e->cache),
                           .include_dirs = inc,
                           .ninclude_dirs = ninc,
                           .link_includes = true};
    program_binary_t b;
    progress_t *pg = progress_start(mc->io, true, "building %s with nvcc ...", mc->cell_name);
    program_status_t st = program_build(&spec, &b);
    progress_done(pg, "%s %s with nvcc in %.1f s", st == PROGRAM_BUILT || st == PROGRAM_CACHED ? "built" : "tried to build",
                  mc->cell_name, progress_elapsed(pg));
    program_log_src_t src = {.unit = PROGRAM_UNIT, .build_dir = b.dir, .source = source, .cell = mc->cell_name,
                             .line_offset = line_offset, .headers = e->headers, .nheaders = e->nheaders};
    int rc = 0;
    switch (st) {
    case PROGRAM_NO_NVCC: rc = program_error_no_nvcc("%%program", b.why, err); break;
    case PROGRAM_ERROR:
        cell_error_set(err, "RuntimeError", NULL, "%%%%program: %s", b.why);
        rc = -1;
        break;
    case PROGRAM_INTERRUPTED:
        cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted while nvcc compiled the program of %s",
                         mc->cell_name);
        rc = -1;
        break;
    case PROGRAM_FAILED:
        rc = program_error_compile(&b, &src, "the program of", err);
        if (!o->mpi && b.log && (strstr(b.log, "mpi.h") || strstr(b.log, "undefined reference to `MPI_")))
            io_printf(mc->io, "stderr", "icuda: an MPI program builds and runs with %%%%program --mpi N (N ranks, "
                      "built with Open MPI's mpicxx, run with mpirun)\n");
        break;
    case PROGRAM_BUILT:
        if (b.arch_refused)
            io_printf(mc->io, "stderr", "icuda: this nvcc cannot compile for %s: built for its default "
                      "architecture (PTX that the driver compiles for the GPU)\n", arch);
        program_show_linked(mc->io, &b, "the program");
        program_show_warnings(mc->io, &b, &src);
        break;
    case PROGRAM_CACHED: break;
    }

    char **cmd = xcalloc((size_t)o->nargs + 8, sizeof *cmd);
    int n = 0;
    char report[4200] = "", out[4300];
    if (rc == 0 && prof) {
        cmd[n++] = prof;
        if (!strcmp(tool, "nsys")) { /* its report files go to a folder of their own, removed after */
            const char *t = getenv("TMPDIR");
            snprintf(report, sizeof report, "%s/icuda-profile-XXXXXX", t && *t ? t : "/tmp");
            if (!mkdtemp(report)) report[0] = 0;
            snprintf(out, sizeof out, "--output=%s/report", report[0] ? report : "/tmp/icuda-profile");
            cmd[n++] = "profile";
            cmd[n++] = "--stats=true";
            cmd[n++] = "--force-overwrite=true";
            cmd[n++] = out;
        }
        io_printf(mc->io, "stderr", "icuda: running the program under %s\n",
                  !strcmp(tool, "nsys") ? "nsys profile --stats=true"
                                        : "ncu (each kernel is replayed to measure it: the program runs slower)");
    }
    if (rc == 0 && o->mpi) {
        rc = run_mpi(mc, &mpi, mpirun, &b, o, err);
    } else if (rc == 0) {
        cmd[n++] = b.binary;
        for (int i = 0; i < o->nargs; i++) cmd[n++] = o->args[i];
        cmd[n] = NULL;
        char vis[512];
        proc_opts_t po = {.io = mc->io, .setenv = visible_devices(mc, vis, sizeof vis)};
        proc_result_t r;
        if (proc_run(cmd, &po, &r) != 0) {
            cell_error_set(err, "RuntimeError", NULL, "%s", r.why);
            rc = -1;
        } else {
            rc = run_status(&r, prof ? tool : "the program", err);
        }
        proc_result_free(&r);
    }
    free(mpicxx);
    free(mpirun);
    if (report[0]) program_remove_tree(report);
    free(cmd);
    free(prof);
    program_binary_free(&b);
    program_strings_free(inc);
    return rc;
}

static int program_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    program_opts_t o;
    int rc = program_parse_opts(&magic_program, args, &o, err);
    if (rc == 0) {
        const char *p = body;
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) rc = magic_usage_error(&magic_program, err, "the cell is empty: write a program with main() "
                                        "below %%%%program");
    }
    if (rc == 0) rc = run_program(mc, body, body_offset(mc, body), &o, err);
    magic_free_args(o.argv, o.argc);
    return rc;
}

int magic_program_auto(magic_ctx_t *mc, const char *code, cell_error_t *err) {
    io_printf(mc->io, "stderr", "icuda: this cell defines main(): running it as a whole program (%%%%program)\n");
    program_opts_t o;
    memset(&o, 0, sizeof o);
    return run_program(mc, code, 0, &o, err);
}

const magic_t magic_program = {
    "program", "%%program [--profile[=nsys|ncu] | --mpi N [--all-gpus|--share-gpus]] [NVCC OPTION ...] [-- PROGRAM ARG ...]",
    "compile the cell as a whole CUDA C++ program with nvcc and run it",
    "The cell is a complete program with main(), as in a .cu file: it is compiled\n"
    "with the CUDA toolkit's nvcc (for the GPU's architecture, -arch=sm_XY, unless\n"
    "the options choose) and run in a process of its own, its stdout and stderr\n"
    "shown as they come. Options before -- go to nvcc (-O3, -std=c++20, -lcublas,\n"
    "-DN=1024, -Xcompiler -fopenmp, ...); words after -- are the program's argv.\n"
    "The session's %%header files are beside the program, so #include \"NAME.cuh\"\n"
    "finds them; so are the folders %include_path adds and the kernel's working\n"
    "directory (the notebook's folder), as -I options after yours.\n"
    "\n"
    "The libraries the program's #includes name are linked without asking:\n"
    "cublas_v2.h -lcublas, cublasLt.h -lcublasLt, cufft.h -lcufft, curand.h\n"
    "-lcurand, cusparse.h -lcusparse, cusolverDn.h -lcusolver, nccl.h -lnccl,\n"
    "cuda.h -lcuda, nvrtc.h -lnvrtc, nvjpeg.h -lnvjpeg, cudnn.h -lcudnn, npp*.h\n"
    "-lnppc and its module, ... (the %%header files it includes count too). One\n"
    "that your options name already, or that is not installed, is not added; a\n"
    "build that compiles says what it added in one line.\n"
    "\n"
    "A compile error is shown at the cell's own lines; a non-zero exit\n"
    "status, or a signal that ends the program, makes the cell an error\n"
    "(ProgramError). Interrupting the kernel stops the program (SIGINT, then\n"
    "SIGKILL half a second later). stdin is /dev/null; the program runs in the\n"
    "kernel's folder, with its environment (CUDA_VISIBLE_DEVICES included), on\n"
    "the GPU beside the session's own work. After %%device N, the program's\n"
    "device 0 is the session's device N (CUDA_VISIBLE_DEVICES lists it first).\n"
    "\n"
    "The executable is kept in icuda's cache ($XDG_CACHE_HOME/icuda/programs, by\n"
    "default ~/.cache/icuda/programs): running an unchanged cell again does not\n"
    "compile it again.\n"
    "\n"
    "--profile runs the program under Nsight Systems (nsys profile --stats=true)\n"
    "where it is installed, else under Nsight Compute (ncu); --profile=ncu or\n"
    "--profile=nsys chooses. (nvcc's own --profile, for gprof, is spelled -pg.)\n"
    "\n"
    "--mpi N runs an MPI program as a job of N ranks: it is built with Open MPI's\n"
    "mpicxx as nvcc's host compiler and run with mpirun, one GPU per rank: rank r\n"
    "sees GPU (current + r) mod the GPUs as its device 0 (CUDA_VISIBLE_DEVICES),\n"
    "and OMPI_COMM_WORLD_LOCAL_RANK tells it its rank before MPI_Init. Each line a\n"
    "rank prints starts with its rank, \"[1] ...\". More ranks than GPUs is an\n"
    "error unless --share-gpus (the ranks take the GPUs in turn); --all-gpus lets\n"
    "every rank see every GPU (the program picks one, cudaSetDevice(local rank)).\n"
    "Without a GPU the ranks run without one. An interrupt ends every rank; the\n"
    "job's exit status is the cell's. Open MPI is mpicxx and mpirun on PATH, or\n"
    "$ICUDA_MPICXX and $ICUDA_MPIRUN. See docs/multi-gpu.md.\n"
    "\n"
    "nvcc is $ICUDA_NVCC when set, else found as %sass finds the toolkit's tools\n"
    "($CUDA_HOME/bin, the toolkit icuda was built with, PATH). A cell without a\n"
    "cell magic that defines main() is run this way too, with a one-line notice.\n"
    "See docs/program.md.",
    NULL, program_cell};
