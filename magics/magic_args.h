/* The magics' argument parsing (magics/magic_args.c): pure functions of the
 * magic line, linked alone by the fuzzer. magic_usage_error and
 * magic_split_args are declared in magics.h, which every magic includes. */
#ifndef ICUDA_MAGIC_ARGS_H
#define ICUDA_MAGIC_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "magics.h"

/* %timeit / %%timeit: -n N -r R -o NAME -q --bytes EXPR --flops EXPR, then
 * the statement (or the setup). */
#define TIMEIT_MAX_RUNS 1000000000L
#define TIMEIT_MAX_REPEATS 10000

typedef struct timeit_opts {
    long n;            /* runs per repeat; 0: chosen */
    long r;            /* repeats; 0: the default */
    char *out;         /* -o NAME */
    bool quiet;
    char *bytes, *flops;
    const char *rest;  /* the statement (%timeit) or the setup (%%timeit), inside args */
} timeit_opts_t;

int timeit_parse_opts(const magic_t *m, const char *args, timeit_opts_t *o, cell_error_t *err);
void timeit_opts_free(timeit_opts_t *o);

/* %plot / %hist (hist: --bins, one array): options, then the arrays; the
 * strings stay owned by argv. */
#define PLOT_MAX_SERIES 10
enum { PLOT_LINE, PLOT_SCATTER, PLOT_BAR };

typedef struct plot_opts {
    bool xlog, ylog;
    const char *title, *xlabel, *ylabel, *labels;
    int kind;
    long bins;
    const char *args[PLOT_MAX_SERIES + 1];
    int nargs;
} plot_opts_t;

int plot_parse_opts(const magic_t *m, char **argv, int argc, bool hist, plot_opts_t *o, cell_error_t *err);

/* %host_tier / %%host: a mode (off|auto|always, NULL if none; points into
 * buf) and an optimisation level (-O0/-O2: 0 or 2, -1 if none). */
int host_tier_args(const magic_t *m, const char *args, char *buf, size_t cap, const char **mode, int *opt,
                   cell_error_t *err);

/* %%program: nvcc's options, then the program's arguments after --. */
typedef struct program_opts {
    char **argv; /* the magic line, split; the fields below point into it */
    int argc;
    char **nvcc; /* nvcc's options */
    int nnvcc;
    char **args; /* the program's arguments, after -- */
    int nargs;
    const char *profile; /* NULL, or "nsys" / "ncu" / "" (whichever there is) */
    int mpi;             /* --mpi N: ranks of an MPI job (0: not one) */
    bool all_gpus;       /* --all-gpus: every rank sees every GPU */
    bool share_gpus;     /* --share-gpus: more ranks than GPUs, which they take in turn */
} program_opts_t;

/* Fills o (free o->argv with magic_free_args, also after an error). */
int program_parse_opts(const magic_t *m, const char *line, program_opts_t *o, cell_error_t *err);

#endif
