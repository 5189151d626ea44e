/* The reaper between the kernel and a program (proc_reaper.h). Everything
 * here runs in a forked child of a process with threads, so it makes only
 * async-signal-safe calls: system calls, no malloc, no stdio. */
#include "proc_reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_KIDS 4096 /* children killed per round; more are met in the next round */

static void close_from(unsigned first, int keep) {
    long r = -1;
#if defined(SYS_close_range)
    if (keep < 0) r = syscall(SYS_close_range, first, ~0u, 0u);
    else r = syscall(SYS_close_range, first, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
#endif
    if (r != 0) {
        long max = sysconf(_SC_OPEN_MAX);
        if (max < 0 || max > 65536) max = 65536;
        for (int fd = (int)first; fd < max; fd++)
            if (fd != keep) close(fd);
    }
}

/* The program itself, in the reaper's child: its own group, default signal
 * handling, the three descriptors it is given and none of the kernel's. */
static _Noreturn void program(const proc_reaper_args_t *a, pid_t reaper) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the reaper gone (SIGKILLed): this goes too */
    if (getppid() != reaper) _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) /* ignored signals (SIGPIPE) would stay ignored across exec */
        if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, NULL);
    int e = 0;
    if (a->cwd && chdir(a->cwd) != 0) e = errno;
    if (!e && (dup2(a->devnull, 0) < 0 || dup2(a->out, 1) < 0 || dup2(a->err, 2) < 0)) e = errno;
    if (!e) {
        close_from(3, a->report); /* none of the kernel's descriptors (sockets, the GPU channel) reach it */
        execve(a->argv[0], a->argv, a->envp);
        e = errno;
    }
    ssize_t w = write(a->report, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* "/proc/self/task/<tid>/children" for this (single-threaded) process. */
static void children_path(char *buf, pid_t self) {
    static const char head[] = "/proc/self/task/", tail[] = "/children";
    char digits[24];
    int n = 0;
    for (unsigned long v = (unsigned long)self; n == 0 || v; v /= 10) digits[n++] = (char)('0' + v % 10);
    memcpy(buf, head, sizeof head - 1);
    char *p = buf + sizeof head - 1;
    while (n) *p++ = digits[--n];
    memcpy(p, tail, sizeof tail);
}

/* This process's children now (at most max), or -1 when the kernel has no
 * such list (CONFIG_PROC_CHILDREN off). */
static int children(const char *path, pid_t *kids, int max) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int n = 0;
    long v = -1;
    char buf[4096];
    ssize_t k;
    while ((k = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < k; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                v = (v < 0 ? 0 : v * 10) + (buf[i] - '0');
            } else if (v >= 0) {
                if (n < max) kids[n++] = (pid_t)v;
                v = -1;
            }
        }
    if (v >= 0 && n < max) kids[n++] = (pid_t)v;
    close(fd);
    return n;
}

/* Kills the program's group and every descendant: each killed process's
 * own children come to this subreaper, and are killed in the next round,
 * until there is no child left. */
static void end_all(pid_t group, pid_t self) {
    char path[64];
    children_path(path, self);
    static pid_t kids[MAX_KIDS];
    struct timespec tick = {0, 10 * 1000 * 1000};
    int blind_ticks = 0;
    for (;;) {
        kill(-group, SIGKILL);
        int n = children(path, kids, MAX_KIDS);
        for (int i = 0; i < n; i++) {
            kill(kids[i], SIGKILL);
            kill(-kids[i], SIGKILL); /* the group it leads, if it leads one (setsid) */
        }
        bool reaped = false;
        pid_t w;
        while ((w = waitpid(-1, NULL, WNOHANG)) > 0) reaped = true;
        if (w < 0 && errno == ECHILD) return;
        if (reaped) continue;
        if (n >= 0) {
            /* one is still going (a process in the kernel's teardown): wait for it */
            if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD) return;
        } else {
            /* no list of children: what the group kill did not reach cannot be
             * named; wait a little for what is ending, then leave the rest */
            if (++blind_ticks > 100) return;
            nanosleep(&tick, NULL);
        }
    }
}

/* Exits as the program did: its status, or killed by the same signal. */
static _Noreturn void exit_as(int st) {
    if (WIFSIGNALED(st)) {
        int s = WTERMSIG(st);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none); /* a core of this copy of the kernel is nobody's */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(s, &dfl, NULL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, s);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        kill(getpid(), s);
        _exit(128 + s); /* a signal whose default is not to end a process */
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
}

_Noreturn void proc_reaper(const proc_reaper_args_t *a) {
    pid_t self = getpid();
    setpgid(0, 0); /* apart from the kernel's group: a terminal's ^C to the kernel is the kernel's to pass on */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_SETMASK, &set, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, NULL); /* ignored, children would be reaped unseen */
    if (getppid() != a->kernel) _exit(127); /* the kernel died before the death signal was set */
    pid_t g = fork();
    if (g == 0) program(a, self);
    if (g < 0) {
        int e = errno;
        ssize_t w = write(a->report, &e, sizeof e);
        (void)w;
        _exit(127);
    }
    setpgid(g, g); /* also here: no race with a kill below */
    close_from(0, -1);
    int st = 0;
    for (bool done = false; !done;) {
        siginfo_t si;
        int sig = sigwaitinfo(&set, &si);
        if (sig == SIGINT) kill(-g, SIGINT);
        if (sig == SIGTERM) {
            kill(-g, SIGKILL);
            while (waitpid(g, &st, 0) < 0 && errno == EINTR) {}
            break;
        }
        /* reap what ended; the program's status is read before it is reaped,
         * so that its group's number is still taken when the group is killed */
        for (;;) {
            siginfo_t w;
            memset(&w, 0, sizeof w);
            if (waitid(P_ALL, 0, &w, WEXITED | WNOHANG | WNOWAIT) != 0 || w.si_pid == 0) break;
            if (w.si_pid == g) {
                kill(-g, SIGKILL);
                while (waitpid(g, &st, 0) < 0 && errno == EINTR) {}
                done = true;
                break;
            }
            waitpid(w.si_pid, NULL, 0);
        }
    }
    end_all(g, self);
    exit_as(st);
}
