/* A program in its own process (program_run.h). fork + exec rather than a
 * shell, through a reaper (proc_reaper.h) that gives the program a process
 * group of its own, passes it an interrupt (so that it reaches whatever the
 * program started: nvcc's stages, a profiler's target) and ends whatever the
 * program leaves behind. */
#include "program_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/base/interrupt.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
#include "proc_reaper.h"
#define CAPTURE_CAP ((size_t)8 << 20) /* nvcc's log; more is noise */
#define POLL_MS 20
#define DRAIN_MS 200                  /* after it exits: what its children still write */
#define KILLED_WAIT_MS 400            /* after SIGKILL: one still in the driver's teardown is reaped later */

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* How many bytes at the end of b[0..n) begin a UTF-8 character that is not
 * complete yet (they wait for the next read). */
static size_t utf8_incomplete(const char *b, size_t n) {
    for (size_t k = 1; k <= 3 && k <= n; k++) {
        unsigned char c = (unsigned char)b[n - k];
        if ((c & 0xC0) == 0x80) continue;
        size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return need > k ? k : 0;
    }
    return 0;
}

typedef struct {
    int fd;
    const char *name;
    char held[4];
    size_t nheld;
} out_pipe_t;

static void deliver(out_pipe_t *p, const char *buf, size_t n, const proc_opts_t *o, strbuf_t *cap) {
    if (!o->io) {
        if (cap->len + n <= CAPTURE_CAP) sb_append(cap, buf, n);
        return;
    }
    if (!o->io->stream) return;
    char tmp[65536 + 4];
    memcpy(tmp, p->held, p->nheld);
    memcpy(tmp + p->nheld, buf, n);
    size_t all = p->nheld + n, keep = n ? utf8_incomplete(tmp, all) : 0;
    if (all > keep) o->io->stream(o->io->ctx, p->name, tmp, all - keep);
    memcpy(p->held, tmp + all - keep, keep);
    p->nheld = keep;
}

/* Reads what is there; false at the end of the pipe. */
static bool pump(out_pipe_t *p, const proc_opts_t *o, strbuf_t *cap) {
    char buf[65536];
    ssize_t k = read(p->fd, buf, sizeof buf);
    if (k > 0) {
        deliver(p, buf, (size_t)k, o, cap);
        return true;
    }
    if (k < 0 && (errno == EINTR || errno == EAGAIN)) return true;
    if (p->nheld) deliver(p, "", 0, o, cap); /* a truncated character goes out as it is */
    close(p->fd);
    p->fd = -1;
    return false;
}

/* Reaps a killed process that has not gone yet, so control need not wait. */
static void *reaper(void *arg) {
    pid_t pid = (pid_t)(intptr_t)arg;
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
    return NULL;
}

static void reap_later(pid_t pid) {
    pthread_t th;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&th, &a, reaper, (void *)(intptr_t)pid) != 0) reaper((void *)(intptr_t)pid);
    pthread_attr_destroy(&a);
}

extern char **environ;

static bool sets(const char *var, const char *set) {
    size_t kl = strcspn(set, "=");
    return !strncmp(var, set, kl) && var[kl] == '=';
}

/* The child's environment: the kernel's, with set and those of more set
 * (a later one wins); built before fork, since the child may only make
 * async-signal-safe calls. */
static char **child_env(const char *set, char *const *more) {
    size_t n = 0, m = 0;
    while (environ[n]) n++;
    while (more && more[m]) m++;
    char **v = xcalloc(n + m + 2, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool over = set && sets(environ[i], set);
        for (size_t j = 0; j < m && !over; j++) over = sets(environ[i], more[j]);
        if (!over) v[k++] = environ[i];
    }
    if (set) v[k++] = (char *)set;
    for (size_t j = 0; j < m; j++) {
        bool later = set && sets(more[j], set);
        for (size_t l = j + 1; l < m && !later; l++) later = sets(more[j], more[l]);
        if (!later) v[k++] = more[j];
    }
    v[k] = NULL;
    return v;
}

int proc_run(char *const argv[], const proc_opts_t *o, proc_result_t *r) {
    memset(r, 0, sizeof *r);
    char **envp = child_env(o->setenv, o->env);
    int grace = o->grace_ms > 0 ? o->grace_ms : 500;
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, rep[2] = {-1, -1};
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    bool ok = devnull >= 0 && pipe2(po, O_CLOEXEC) == 0 && pipe2(rep, O_CLOEXEC) == 0 &&
              (!o->io || pipe2(pe, O_CLOEXEC) == 0);
    pid_t pid = -1, self = getpid();
    if (ok) {
        proc_reaper_args_t ra = {argv, envp, o->cwd, devnull, po[1], o->io ? pe[1] : po[1], rep[1], self};
        pid = fork();
        if (pid == 0) proc_reaper(&ra);
    }
    int e = errno;
    free(envp);
    if (devnull >= 0) close(devnull);
    if (po[1] >= 0) close(po[1]);
    if (pe[1] >= 0) close(pe[1]);
    if (rep[1] >= 0) close(rep[1]);
    int child_errno = 0;
    if (pid > 0) {
        ssize_t k;
        while ((k = read(rep[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {}
        if (k != (ssize_t)sizeof child_errno) child_errno = 0; /* closed by exec: it runs */
    }
    if (rep[0] >= 0) close(rep[0]);
    if (!ok || pid < 0 || child_errno) {
        if (pid > 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        snprintf(r->why, sizeof r->why, "cannot run %s: %s", argv[0], strerror(child_errno ? child_errno : e));
        if (po[0] >= 0) close(po[0]);
        if (pe[0] >= 0) close(pe[0]);
        return -1;
    }

    out_pipe_t pipes[2] = {{po[0], "stdout", {0}, 0}, {pe[0], "stderr", {0}, 0}};
    strbuf_t cap = {0};
    bool exited = false;
    int st = 0;
    double t_int = 0, t_exit = 0, t_kill = 0;
    for (;;) {
        struct pollfd pf[2] = {{pipes[0].fd, POLLIN, 0}, {pipes[1].fd, POLLIN, 0}};
        int n = poll(pf, 2, POLL_MS);
        for (int i = 0; n > 0 && i < 2; i++)
            if (pipes[i].fd >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) pump(&pipes[i], o, &cap);
        if (!exited) {
            pid_t w = waitpid(pid, &st, WNOHANG);
            if (w == pid || (w < 0 && errno != EINTR)) {
                exited = true;
                t_exit = now_ms();
            }
        }
        if (!r->interrupted && !r->cancelled && (interrupt_pending() || (o->cancel && atomic_load(o->cancel)))) {
            if (interrupt_pending()) r->interrupted = true;
            else r->cancelled = true;
            t_int = now_ms();
            if (!exited) kill(pid, SIGINT); /* the reaper passes it to the program's group */
        }
        if ((r->interrupted || r->cancelled) && !exited && !r->killed && now_ms() - t_int >= grace) {
            kill(pid, SIGTERM); /* the reaper kills the program and all it started */
            r->killed = true;
            t_kill = now_ms();
        }
        if (r->killed && !exited && now_ms() - t_kill >= KILLED_WAIT_MS) { /* it is going: stop waiting */
            reap_later(pid);
            st = SIGKILL; /* as waitpid would say */
            break;
        }
        bool open = pipes[0].fd >= 0 || pipes[1].fd >= 0;
        if (exited && (!open || now_ms() - t_exit >= DRAIN_MS)) break;
    }
    for (int i = 0; i < 2; i++)
        if (pipes[i].fd >= 0) {
            if (pipes[i].nheld) deliver(&pipes[i], "", 0, o, &cap);
            close(pipes[i].fd);
        }
    if (WIFEXITED(st)) {
        r->exited = true;
        r->exit_status = WEXITSTATUS(st);
    } else if (WIFSIGNALED(st)) {
        r->signal = WTERMSIG(st);
    }
    if (!o->io) r->output = sb_take(&cap);
    return 0;
}

void proc_result_free(proc_result_t *r) {
    free(r->output);
    r->output = NULL;
}

void proc_signal_name(int sig, char *out, size_t cap) {
    static const struct {
        int sig;
        const char *name, *what;
    } known[] = {
        {SIGSEGV, "SIGSEGV", "segmentation fault"}, {SIGABRT, "SIGABRT", "aborted"},
        {SIGBUS, "SIGBUS", "bus error"},             {SIGFPE, "SIGFPE", "arithmetic exception"},
        {SIGILL, "SIGILL", "illegal instruction"},   {SIGKILL, "SIGKILL", "killed"},
        {SIGTERM, "SIGTERM", "terminated"},          {SIGINT, "SIGINT", "interrupted"},
        {SIGPIPE, "SIGPIPE", "broken pipe"},         {SIGTRAP, "SIGTRAP", "trace trap"},
        {SIGQUIT, "SIGQUIT", "quit"},                {SIGHUP, "SIGHUP", "hangup"},
        {SIGALRM, "SIGALRM", "alarm clock"},         {SIGXCPU, "SIGXCPU", "CPU time limit exceeded"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].sig == sig) {
            snprintf(out, cap, "%s (%s)", known[i].name, known[i].what);
            return;
        }
    snprintf(out, cap, "signal %d", sig);
}

char *proc_on_path(const char *path, const char *name) {
    if (!path) path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        char buf[PATH_MAX];
        if (n && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name) < (int)sizeof buf && access(buf, X_OK) == 0)
            return xstrdup(buf);
        p += n + (p[n] == ':');
    }
    return NULL;
}
