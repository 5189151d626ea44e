/* The process between the kernel and a program it runs (proc_run): it
 * starts the program in a process group of its own and, as a subreaper,
 * inherits every process the program leaves behind whose parent ends (a
 * double fork, a daemon that called setsid). When the program ends, or on
 * SIGTERM (proc_run's interrupt after its grace period, or the kernel's
 * death: it is this process's parent-death signal), it kills the program's
 * group and every descendant still there, then exits as the program did
 * (its status, or the same signal). SIGINT is passed to the program's group.
 * What escapes: only a process handed to something outside this tree (a
 * service manager, another user's daemon), or every process of it when this
 * one is SIGKILLed by someone else. */
#ifndef ICUDA_PROC_REAPER_H
#define ICUDA_PROC_REAPER_H

#include <sys/types.h>

typedef struct {
    char *const *argv, *const *envp; /* argv[0] a path */
    const char *cwd;                 /* NULL: the kernel's */
    int devnull, out, err;           /* the program's stdin, stdout and stderr */
    int report;                      /* the program's exec errno goes here; closed by a successful exec */
    pid_t kernel;                    /* the parent it was forked from: when that has gone, it ends */
} proc_reaper_args_t;

/* Runs in the child of a fork of the (multithreaded) kernel: only
 * async-signal-safe calls. Never returns. */
_Noreturn void proc_reaper(const proc_reaper_args_t *a);

#endif
