/* Running a program in its own process (for %%program: nvcc, the user's
 * program, a profiler around it): stdin from /dev/null, its output either
 * streamed to the cell as it comes or captured, and an interrupt ending
 * it — SIGINT to its process group first, SIGKILL after a grace period.
 * When it ends (or is killed, or the kernel dies) every process it started
 * is killed too, its own group's and any that left it (proc_reaper.h). */
#ifndef ICUDA_PROGRAM_RUN_H
#define ICUDA_PROGRAM_RUN_H

#include <stdatomic.h>
#include <stdbool.h>

#include "runtime/base/cell_io.h"

typedef struct {
    const char *cwd;        /* where it runs; NULL: the kernel's folder */
    const cell_io_t *io;  /* non-NULL: stdout and stderr go there as they come */
    int grace_ms;           /* after SIGINT, before SIGKILL (0: 500 ms) */
    const char *setenv;     /* non-NULL: "NAME=VALUE" set in its environment */
    char *const *env;       /* non-NULL: more "NAME=VALUE"s set there, NULL-terminated */
    /* non-NULL: when it becomes non-zero the program is stopped as on an
     * interrupt (r->cancelled rather than r->interrupted) */
    const atomic_int *cancel;
} proc_opts_t;

typedef struct {
    bool exited;            /* exited normally, with exit_status */
    int exit_status;
    int signal;             /* killed by this signal (exited false) */
    bool interrupted;       /* stopped because of an interrupt */
    bool cancelled;         /* stopped because o->cancel was raised */
    bool killed;            /* ... and it needed SIGKILL */
    char *output;           /* captured stdout and stderr together (io NULL), malloc'd */
    char why[256];          /* why it could not be started */
} proc_result_t;

/* Runs argv (argv[0] a path; no shell) with the kernel's environment (and
 * o->setenv, o->env) and
 * default signal dispositions. Returns 0 when it ran (see r), -1 when it
 * could not be started (r->why). Returns at most grace_ms + ~450 ms after
 * an interrupt: a process the driver still tears down after SIGKILL is
 * reaped by a thread of its own. */
int proc_run(char *const argv[], const proc_opts_t *o, proc_result_t *r);
void proc_result_free(proc_result_t *r);

/* The first executable file name in the folders of path (a PATH list;
 * NULL: the kernel's PATH), malloc'd, or NULL. */
char *proc_on_path(const char *path, const char *name);

/* "SIGSEGV (segmentation fault)" for a signal number. */
void proc_signal_name(int sig, char *out, size_t cap);

#endif
