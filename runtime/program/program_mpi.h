/* MPI programs (%%program --mpi N): Open MPI's compiler wrapper as nvcc's
 * host compiler, mpirun's command line with one GPU per rank, and the
 * ranks' output with each line marked by its rank (program_mpi.c). */
#ifndef ICUDA_PROGRAM_MPI_H
#define ICUDA_PROGRAM_MPI_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/base/cell_io.h"

/* An MPI job as %%program runs it. */
typedef struct {
    int ranks;
    int gpus;          /* GPUs the session sees (0: none: the ranks run without one) */
    int first;         /* the session's current device: rank r gets GPU (first + r) % gpus */
    char ids[64][64];  /* what CUDA_VISIBLE_DEVICES calls GPU i (the kernel's own list, or "i") */
    bool all_gpus;     /* --all-gpus: every rank sees every GPU (the program picks one) */
    bool share_gpus;   /* --share-gpus: more ranks than GPUs, taken round robin */
} program_mpi_t;

/* Open MPI's mpirun or mpicxx: $ICUDA_MPIRUN / $ICUDA_MPICXX when set,
 * else the first on PATH (by its name, then as Debian names Open MPI's:
 * mpirun.openmpi), else in Open MPI's usual folders. malloc'd, or NULL
 * with where (cap bytes) saying where it was looked for. */
char *program_find_mpi(const char *tool, char *where, size_t cap);

/* Fills m->ids from CUDA_VISIBLE_DEVICES as the kernel has it (the ids of
 * the session's GPUs 0 .. gpus-1), or "0", "1", ... */
void program_mpi_ids(program_mpi_t *m);

/* Whether the job fits the GPUs: 0, or -1 with why (cap bytes) saying
 * what to do (fewer ranks, --share-gpus). */
int program_mpi_check(const program_mpi_t *m, char *why, size_t cap);

/* mpirun's command line for binary and its args: one app context per
 * rank, each with CUDA_VISIBLE_DEVICES naming its GPU (so the rank's device
 * 0 is its own GPU), --allow-run-as-root for root, --oversubscribe when
 * there are more ranks than processors, --tag-output (program_mpi_io reads
 * the tags), and setpriv --pdeathsig KILL in front of the program where
 * util-linux has it (a rank ends with mpirun, even when mpirun is
 * killed). NULL-terminated, malloc'd (program_strings_free). */
char **program_mpi_argv(const program_mpi_t *m, const char *mpirun, const char *binary, char *const *args, int nargs);

/* A cell_io_t between mpirun and the cell: each line "[J,R]<stdout>:text"
 * that --tag-output gives becomes "[R] text" on the rank's stream (stdout or
 * stderr); mpirun's own lines pass as they are. */
typedef struct program_mpi_io program_mpi_io_t;
program_mpi_io_t *program_mpi_io_new(const cell_io_t *to);
const cell_io_t *program_mpi_io(program_mpi_io_t *x);
/* Sends what is left of an unfinished line, and frees x. */
void program_mpi_io_free(program_mpi_io_t *x);

#endif
