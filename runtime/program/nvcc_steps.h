/* nvcc's build of one unit, its steps run by icuda rather than by nvcc:
 * the steps come from nvcc itself (nvcc_dryrun.h), and the two front ends
 * run side by side — [gcc -E host -> cudafe++] beside [gcc -E device ->
 * cicc -> ptxas -> fatbinary] — then the rest in nvcc's order. cudafe++
 * would write the module id that cicc reads, which puts them one after the
 * other; icuda writes that id itself (from the unit's key, so the same
 * inputs make the same object). The output reads as nvcc's: each step's,
 * in nvcc's order, up to the first step that failed, and that step's exit
 * status is the build's. The host compile reads the unit's headers
 * precompiled where an earlier build with the same headers made them
 * (nvcc_pch.h). */
#ifndef ICUDA_NVCC_STEPS_H
#define ICUDA_NVCC_STEPS_H

#include <stddef.h>

#include "program_run.h"

/* Set to "0" in the environment: every build goes to nvcc whole; "1": the
 * front ends always side by side. Unset: side by side when the machine has
 * most of a CPU to spare (sampled over 50 ms), else one after the other. */
#define NVCC_STEPS_ENV "ICUDA_NVCC_STEPS"
/* Names a file: each build appends its steps' times to it (for bench/). */
#define NVCC_STEPS_LOG_ENV "ICUDA_NVCC_STEPS_LOG"

typedef enum {
    NVCC_STEPS_RAN,           /* r says how (exited, exit_status, interrupted, output) */
    NVCC_STEPS_UNRECOGNISED,  /* nvcc's plan was not one this knows: run nvcc itself (why says what) */
} nvcc_steps_status_t;

/* argv: nvcc and its arguments (NULL-terminated, "-o OUT" among them), run
 * in dir; unit_id: hex that names the unit (its key), for the module id;
 * pch_root: the folder of precompiled headers (NULL: none made or used).
 * The intermediate files a successful build made in dir are removed. */
nvcc_steps_status_t nvcc_steps_run(char *const *argv, const char *dir, const char *unit_id, const char *pch_root,
                                   proc_result_t *r, char *why, size_t cap);

#endif
