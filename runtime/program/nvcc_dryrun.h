/* nvcc's plan for a build, read from what `nvcc --dryrun` prints: lines
 * "#$ NAME=VALUE" (variables that later commands use as $NAME, and that
 * nvcc's steps find in their environment) and "#$ command args..." (one
 * step, shell-quoted). The words are split and unquoted here, and $NAME /
 * ${NAME} expanded from the variables before them, without a shell. Each
 * step is told by its tool (nvcc_tool_t); what the steps mean together is
 * nvcc_steps.h's business. */
#ifndef ICUDA_NVCC_DRYRUN_H
#define ICUDA_NVCC_DRYRUN_H

#include <stddef.h>

typedef enum {
    NVCC_UNKNOWN,
    NVCC_RM,          /* rm FILE: a stale intermediate */
    NVCC_CPP_HOST,    /* gcc -E for the host side (no __CUDA_ARCH__) */
    NVCC_CPP_DEVICE,  /* gcc -E for the device side (-D__CUDA_ARCH__=...) */
    NVCC_CUDAFE,      /* cudafe++: the host front end */
    NVCC_CICC,        /* cicc: the device front end and NVVM, PTX out */
    NVCC_PTXAS,
    NVCC_FATBINARY,
    NVCC_CC,          /* gcc -c */
    NVCC_NVLINK,
    NVCC_LINK,        /* gcc/g++ without -E or -c: the final link */
} nvcc_tool_t;

typedef struct {
    char **argv;      /* NULL-terminated, argv[0] as written ("gcc", "/usr/.../cicc") */
    int argc;
    nvcc_tool_t tool;
} nvcc_step_t;

typedef struct {
    char **env;       /* "NAME=VALUE", NULL-terminated, in nvcc's order (a name may repeat: the last wins) */
    int nenv;
    nvcc_step_t *steps;
    int nsteps;
    char *said;       /* the lines that were not "#$ " (nvcc's own warnings), or NULL */
} nvcc_plan_t;

/* Reads a dry run's output into p. Returns 0, or -1 with why (p freed):
 * a quote left open, a $NAME no line before set, an unquoted $NAME whose
 * value would split into words, no step at all. */
int nvcc_plan_parse(const char *text, nvcc_plan_t *p, char *why, size_t cap);
void nvcc_plan_free(nvcc_plan_t *p);

/* A variable's value in the plan (the last assignment), or NULL. */
const char *nvcc_plan_var(const nvcc_plan_t *p, const char *name);

/* The tool of a step's words (argv[0]'s base name and its options). */
nvcc_tool_t nvcc_tool_of(char *const *argv, int argc);

/* The value of a step's option: "--opt VALUE" or "--opt=VALUE"; NULL if absent. */
const char *nvcc_step_option(const nvcc_step_t *s, const char *opt);
/* Whether a step has the word w. */
int nvcc_step_has(const nvcc_step_t *s, const char *w);

#endif
