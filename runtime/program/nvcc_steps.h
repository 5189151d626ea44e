/* nvcc's steps with the host's and the device's front ends run at once
 * (nvcc_steps.c): the same commands nvcc runs, in less time where there
 * are two cores for them. */
#ifndef ICUDA_NVCC_STEPS_H
#define ICUDA_NVCC_STEPS_H

#include "program_run.h"

/* Runs the nvcc command argv (argv[0] nvcc's path) in cwd, as proc_run
 * would (its output captured, an interrupt ending it): 0 when it ran (see
 * r), -1 when it could not be started (r->why). ICUDA_NVCC_SERIAL=1 runs
 * nvcc itself, one step after another. */
int nvcc_steps_run(char *const argv[], const char *cwd, proc_result_t *r);

#endif
