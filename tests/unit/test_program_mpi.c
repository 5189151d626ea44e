/* %%program --mpi N's parts that need no MPI and no GPU
 * (runtime/program/program_mpi.c): the ranks against the GPUs, mpirun's
 * command line (one app context per rank, each with its GPU), the ids
 * CUDA_VISIBLE_DEVICES gives the GPUs, the output filter that puts each
 * rank's number in front of its lines, and where Open MPI's tools are found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "runtime/program/program_libs.h"
#include "runtime/program/program_mpi.h"

static bool has(char **argv, const char *w) {
    for (int i = 0; argv[i]; i++)
        if (!strcmp(argv[i], w)) return true;
    return false;
}

static int count(char **argv, const char *w) {
    int n = 0;
    for (int i = 0; argv[i]; i++) n += !strcmp(argv[i], w);
    return n;
}

static void check_ranks_against_gpus(void) {
    program_mpi_t m = {.ranks = 3, .gpus = 2};
    char why[512] = "";
    CHECK(program_mpi_check(&m, why, sizeof why) == -1);
    CHECK(strstr(why, "--mpi 3") && strstr(why, "this machine has 2 GPUs") && strstr(why, "--share-gpus"));
    m.share_gpus = true;
    CHECK(program_mpi_check(&m, why, sizeof why) == 0);
    m.share_gpus = false;
    m.all_gpus = true;
    CHECK(program_mpi_check(&m, why, sizeof why) == 0);
    program_mpi_t none = {.ranks = 4, .gpus = 0}; /* no GPU: the ranks run without one */
    CHECK(program_mpi_check(&none, why, sizeof why) == 0);
    program_mpi_t fits = {.ranks = 2, .gpus = 2};
    CHECK(program_mpi_check(&fits, why, sizeof why) == 0);
}

static void command_lines(void) {
    char *args[] = {"a b", "7"};
    program_mpi_t m = {.ranks = 2, .gpus = 2, .first = 1};
    setenv("CUDA_VISIBLE_DEVICES", "4,6", 1);
    program_mpi_ids(&m);
    CHECK_STR(m.ids[0], "4");
    CHECK_STR(m.ids[1], "6");
    char **v = program_mpi_argv(&m, "/x/mpirun", "/b/prog", args, 2);
    CHECK_STR(v[0], "/x/mpirun");
    CHECK(has(v, "--tag-output"));
    CHECK(has(v, ":") && count(v, "-np") == 2 && count(v, "/b/prog") == 2 && count(v, "a b") == 2);
    /* rank 0 gets the session's current GPU (1, id "6"), rank 1 the next (0, id "4") */
    int first = -1, second = -1;
    for (int i = 0; v[i]; i++) {
        if (!strcmp(v[i], "CUDA_VISIBLE_DEVICES=6") && first < 0) first = i;
        if (!strcmp(v[i], "CUDA_VISIBLE_DEVICES=4")) second = i;
    }
    CHECK(first > 0 && second > first);
    CHECK(has(v, "--allow-run-as-root") == (geteuid() == 0));
    program_strings_free(v);
    /* more ranks than processors: mpirun is told it may */
    program_mpi_t many = {.ranks = 4096, .gpus = 0};
    v = program_mpi_argv(&many, "mpirun", "prog", NULL, 0);
    CHECK(has(v, "--oversubscribe") && has(v, "4096") && !has(v, ":") && !has(v, "-x"));
    program_strings_free(v);
    /* every GPU for every rank: one context, the environment as it is */
    program_mpi_t all = {.ranks = 2, .gpus = 2, .all_gpus = true};
    v = program_mpi_argv(&all, "mpirun", "prog", NULL, 0);
    CHECK(!has(v, ":") && !has(v, "-x") && has(v, "2"));
    program_strings_free(v);
    unsetenv("CUDA_VISIBLE_DEVICES");
    program_mpi_t plain = {.ranks = 3, .gpus = 3};
    program_mpi_ids(&plain);
    CHECK_STR(plain.ids[2], "2");
    /* the kernel's list shorter than the GPUs it sees: the driver's numbers */
    setenv("CUDA_VISIBLE_DEVICES", "5", 1);
    program_mpi_ids(&plain);
    CHECK_STR(plain.ids[0], "0");
    unsetenv("CUDA_VISIBLE_DEVICES");
}

/* ---- the output filter ---- */

static char got_out[4096], got_err[4096];

static void collect(void *ctx, const char *name, const char *text, size_t len) {
    char *to = !strcmp(name, "stderr") ? got_err : got_out;
    strncat(to, text, len);
}

static void feed(const cell_io_t *io, const char *name, const char *text) {
    io->stream(io->ctx, name, text, strlen(text));
}

static void rank_marks(void) {
    cell_io_t sink = {NULL, collect, NULL, NULL, NULL};
    got_out[0] = got_err[0] = 0;
    program_mpi_io_t *x = program_mpi_io_new(&sink);
    const cell_io_t *io = program_mpi_io(x);
    /* lines arrive in pieces, on either of mpirun's streams */
    feed(io, "stdout", "[1,0]<stdout>:hel");
    feed(io, "stdout", "lo\n[1,12]<std");
    feed(io, "stdout", "out>:twelve\nmpirun's own line\n");
    feed(io, "stderr", "[1,1]<stderr>:oops\n[2,3]<stddiag>:diag\n");
    feed(io, "stdout", "[1,0]<stdout>:no newline at the end");
    program_mpi_io_free(x);
    CHECK_STR(got_out, "[0] hello\n[12] twelve\nmpirun's own line\n[0] no newline at the end");
    CHECK_STR(got_err, "[1] oops\n[3] diag\n");
    /* not tags: left as they are */
    got_out[0] = got_err[0] = 0;
    x = program_mpi_io_new(&sink);
    io = program_mpi_io(x);
    feed(io, "stdout", "[1,x]<stdout>:a\n[1,2]<other>:b\n[12]\n");
    program_mpi_io_free(x);
    CHECK_STR(got_out, "[1,x]<stdout>:a\n[1,2]<other>:b\n[12]\n");
}

static char head[32];
static size_t seen;

static void count_bytes(void *ctx, const char *name, const char *text, size_t len) {
    size_t k = strlen(head);
    if (k + 1 < sizeof head) strncat(head, text, len < sizeof head - 1 - k ? len : sizeof head - 1 - k);
    seen += len;
}

static void long_lines(void) {
    cell_io_t sink = {NULL, count_bytes, NULL, NULL, NULL};
    static char big[200000];
    head[0] = 0;
    seen = 0;
    program_mpi_io_t *x = program_mpi_io_new(&sink);
    const cell_io_t *io = program_mpi_io(x);
    memset(big, 'z', sizeof big);
    memcpy(big, "[1,5]<stdout>:", 14);
    /* a line longer than what is held goes out in pieces as it comes, the first one marked */
    io->stream(io->ctx, "stdout", big, sizeof big);
    CHECK(seen >= sizeof big - 14);
    feed(io, "stdout", "\n");
    program_mpi_io_free(x);
    CHECK(strncmp(head, "[5] zzz", 7) == 0);
    CHECK(seen == sizeof big - 14 + 4 + 1);
}

static void make_tool(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("#!/bin/sh\n", f);
        fclose(f);
    }
    chmod(path, 0755);
}

/* mpicxx and mpirun by their names on PATH, else by Debian's names for
 * Open MPI's (mpicxx.openmpi), and where they were looked for when neither */
static void finding_the_tools(void) {
    char dir[] = "/tmp/icuda-mpi-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK_SKIP(1, "no temporary folder");
        return;
    }
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    unsetenv("ICUDA_MPICXX");
    unsetenv("ICUDA_MPIRUN");
    setenv("PATH", dir, 1);
    char where[2048] = "";
    bool folders = false; /* a machine with Open MPI in one of its usual folders finds it there */
    const char *usual[] = {"/usr/lib64/openmpi/bin/mpicxx", "/usr/local/mpi/bin/mpicxx", "/opt/hpcx/ompi/bin/mpicxx"};
    for (int i = 0; i < 3; i++) folders |= access(usual[i], X_OK) == 0;
    char *p = program_find_mpi("mpicxx", where, sizeof where);
    if (!folders) {
        CHECK(p == NULL);
        CHECK(strstr(where, "mpicxx.openmpi") && strstr(where, dir) && strstr(where, "/usr/local/mpi/bin"));
    }
    free(p);
    make_tool(dir, "mpicxx.openmpi");
    make_tool(dir, "mpirun");
    make_tool(dir, "mpirun.openmpi");
    char want[512];
    p = program_find_mpi("mpicxx", where, sizeof where);
    snprintf(want, sizeof want, "%s/mpicxx.openmpi", dir);
    CHECK_STR(p, want);
    free(p);
    p = program_find_mpi("mpirun", where, sizeof where); /* the plain name first */
    snprintf(want, sizeof want, "%s/mpirun", dir);
    CHECK_STR(p, want);
    free(p);
    const char *names[] = {"mpicxx.openmpi", "mpirun", "mpirun.openmpi"};
    for (int i = 0; i < 3; i++) {
        snprintf(want, sizeof want, "%s/%s", dir, names[i]);
        unlink(want);
    }
    rmdir(dir);
    if (saved) setenv("PATH", saved, 1);
    else unsetenv("PATH");
    free(saved);
}

int main(void) {
    check_ranks_against_gpus();
    command_lines();
    rank_marks();
    long_lines();
    finding_the_tools();
    return check_report();
}
