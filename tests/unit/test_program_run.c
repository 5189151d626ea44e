/* proc_run: exit status, signals, streamed and captured output, an
 * interrupt (SIGINT, then SIGKILL for a program that ignores it). */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <stdbool.h>

#include "check.h"
#include "runtime/base/interrupt.h"
#include "runtime/program/program_run.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/cell_io.h"
typedef struct {
    strbuf_t out, err;
    int chunks;
    bool split_char; /* a chunk ended inside a UTF-8 character */
} sink_t;

static void on_stream(void *ctx, const char *name, const char *text, size_t len) {
    sink_t *s = ctx;
    sb_append(strcmp(name, "stdout") ? &s->err : &s->out, text, len);
    s->chunks++;
    if (len && ((unsigned char)text[len - 1] & 0x80) && ((unsigned char)text[len - 1] & 0x40)) s->split_char = true;
}

static void *raise_later(void *arg) {
    usleep(300 * 1000);
    interrupt_raise();
    return NULL;
}

/* The pid a script wrote into dir/name (0 when none). */
static pid_t pid_in(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    int pid = 0;
    if (f) {
        if (fscanf(f, "%d", &pid) != 1) pid = 0;
        fclose(f);
    }
    return pid;
}

static bool running(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", (int)pid);
    return access(path, F_OK) == 0;
}

/* Waits (up to 30 s, never asserted on) until pid has gone. */
static bool gone_soon(pid_t pid) {
    for (int i = 0; i < 3000 && running(pid); i++) usleep(10 * 1000);
    return !running(pid);
}

/* A script that starts a child in its own group (bg), and a daemon that
 * left the group and the session (setsid, then its parent exited), writes
 * their pids into dir, and then runs tail. */
static char *leaver(const char *dir, const char *tail) {
    char *s = NULL;
    if (asprintf(&s, "cd %s; sleep 1000 & echo $! > bg; setsid sh -c 'sleep 1000 & echo $! > daemon.tmp; "
                     "mv daemon.tmp daemon' & while [ ! -s daemon ]; do sleep 0.01; done; %s", dir, tail) < 0)
        abort();
    return s;
}

static int sh(const char *script, const proc_opts_t *o, proc_result_t *r) {
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    return proc_run(argv, o, r);
}

int main(void) {
    /* as the kernel's executor has it; the child must not inherit either */
    signal(SIGPIPE, SIG_IGN);
    sigset_t intr;
    sigemptyset(&intr);
    sigaddset(&intr, SIGINT);
    pthread_sigmask(SIG_BLOCK, &intr, NULL);
    proc_result_t r;
    proc_opts_t cap = {0};

    /* captured: both streams, in order, and the status */
    CHECK(sh("echo out; echo err >&2; exit 3", &cap, &r) == 0);
    CHECK(r.exited && r.exit_status == 3 && !r.interrupted);
    CHECK_STR(r.output, "out\nerr\n");
    proc_result_free(&r);

    /* streamed, each to its own name */
    sink_t s = {0};
    cell_io_t io = {&s, on_stream, NULL, NULL, NULL};
    proc_opts_t str = {.io = &io};
    CHECK(sh("printf partial; echo oops >&2; echo ' line'", &str, &r) == 0);
    CHECK(r.exited && r.exit_status == 0 && r.output == NULL);
    CHECK_STR(s.out.data, "partial line\n");
    CHECK_STR(s.err.data, "oops\n");
    free(s.out.data);
    free(s.err.data);

    /* a character split across two writes arrives whole */
    memset(&s, 0, sizeof s);
    CHECK(sh("printf '\\303'; sleep 0.2; printf '\\251\\n'", &str, &r) == 0);
    CHECK_STR(s.out.data, "\xc3\xa9\n");
    CHECK(!s.split_char);
    free(s.out.data);
    free(s.err.data);

    /* stdin is /dev/null; the folder is the one asked for */
    cap.cwd = "/";
    CHECK(sh("cat; pwd; exec grep -E '^Sig(Blk|Ign)' /proc/self/status", &cap, &r) == 0);
    unsigned long long blk = ~0ull, ign = ~0ull;
    CHECK(sscanf(r.output, "/\nSigBlk:\t%llx\nSigIgn:\t%llx\n", &blk, &ign) == 2);
    /* signals 1-31 (glibc keeps 32 and 33 for itself: no sigaction reaches them) */
    CHECK((blk & 0x7fffffffull) == 0 && (ign & 0x7fffffffull) == 0);
    proc_result_free(&r);
    cap.cwd = NULL;

    /* killed by a signal */
    CHECK(sh("kill -SEGV $$", &cap, &r) == 0);
    CHECK(!r.exited && r.signal == SIGSEGV);
    char name[64];
    proc_signal_name(r.signal, name, sizeof name);
    CHECK_STR(name, "SIGSEGV (segmentation fault)");
    proc_result_free(&r);
    proc_signal_name(SIGUSR1 + 200, name, sizeof name);
    CHECK(strncmp(name, "signal ", 7) == 0);

    /* not there */
    char *missing[] = {"/nonexistent/program", NULL};
    CHECK(proc_run(missing, &cap, &r) == -1);
    CHECK(strstr(r.why, "/nonexistent/program") && strstr(r.why, "No such file"));

    /* an interrupt: SIGINT ends it */
    interrupt_clear();
    pthread_t th;
    pthread_create(&th, NULL, raise_later, NULL);
    CHECK(sh("exec sleep 30", &cap, &r) == 0);
    pthread_join(th, NULL);
    CHECK(r.interrupted && !r.killed && r.signal == SIGINT);
    proc_result_free(&r);

    /* ... and SIGKILL after the grace period when it ignores SIGINT */
    interrupt_clear();
    pthread_create(&th, NULL, raise_later, NULL);
    proc_opts_t quick = {.grace_ms = 200};
    CHECK(sh("trap '' INT; while :; do :; done", &quick, &r) == 0);
    pthread_join(th, NULL);
    CHECK(r.interrupted && r.killed && r.signal == SIGKILL);
    proc_result_free(&r);
    interrupt_clear();

    /* what it started in the background does not hold the cell: a child
     * that keeps its output open for 10 minutes (waiting for it would hang
     * the test) is ended with the program */
    CHECK(sh("sleep 600 & echo $!", &cap, &r) == 0);
    CHECK(r.exited && r.exit_status == 0);
    pid_t held = r.output ? (pid_t)atol(r.output) : 0;
    CHECK(held > 0 && gone_soon(held));
    if (held > 0) kill(held, SIGKILL);
    proc_result_free(&r);

    /* what it started is ended with it: its group and a daemon that left it */
    char dir[] = "/tmp/icuda-test-reaper-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char *script = leaver(dir, "echo done");
    CHECK(sh(script, &cap, &r) == 0);
    free(script);
    CHECK(r.exited && r.exit_status == 0);
    CHECK_STR(r.output, "done\n");
    proc_result_free(&r);
    pid_t bg = pid_in(dir, "bg"), daemon = pid_in(dir, "daemon");
    CHECK(bg > 0 && daemon > 0);
    CHECK(bg > 0 && !running(bg));
    CHECK(daemon > 0 && !running(daemon));

    /* ... and after an interrupt, SIGINT or SIGKILL */
    for (int kill_it = 0; kill_it < 2; kill_it++) {
        interrupt_clear();
        script = leaver(dir, kill_it ? "trap '' INT; while :; do :; done" : "exec sleep 30");
        pthread_create(&th, NULL, raise_later, NULL);
        CHECK(sh(script, &quick, &r) == 0);
        pthread_join(th, NULL);
        free(script);
        CHECK(r.interrupted && r.killed == kill_it && r.signal == (kill_it ? SIGKILL : SIGINT));
        proc_result_free(&r);
        bg = pid_in(dir, "bg");
        daemon = pid_in(dir, "daemon");
        CHECK(bg > 0 && gone_soon(bg));
        CHECK(daemon > 0 && gone_soon(daemon));
    }
    interrupt_clear();

    /* ... and when the kernel itself dies (SIGKILL) while it runs */
    char bgf[600], daemonf[600];
    snprintf(bgf, sizeof bgf, "%s/bg", dir);
    snprintf(daemonf, sizeof daemonf, "%s/daemon", dir);
    unlink(bgf);
    unlink(daemonf);
    script = leaver(dir, "sleep 1000");
    pid_t kernel = fork();
    if (kernel == 0) {
        sh(script, &cap, &r);
        _exit(0);
    }
    free(script);
    for (int i = 0; i < 3000 && !pid_in(dir, "daemon"); i++) usleep(10 * 1000);
    bg = pid_in(dir, "bg");
    daemon = pid_in(dir, "daemon");
    CHECK(bg > 0 && daemon > 0 && running(bg) && running(daemon));
    kill(kernel, SIGKILL);
    waitpid(kernel, NULL, 0);
    CHECK(bg > 0 && gone_soon(bg));
    CHECK(daemon > 0 && gone_soon(daemon));
    char *rm = NULL;
    if (asprintf(&rm, "rm -rf %s", dir) < 0) abort();
    CHECK(system(rm) == 0);
    free(rm);

    /* one variable set for it (%%program after %device N), the rest inherited */
    setenv("ICUDA_TEST_KEEP", "kept", 1);
    setenv("CUDA_VISIBLE_DEVICES", "0,1,2", 1);
    proc_opts_t env = {.setenv = "CUDA_VISIBLE_DEVICES=2,0,1"};
    CHECK(sh("echo $CUDA_VISIBLE_DEVICES $ICUDA_TEST_KEEP; env | grep -c ^CUDA_VISIBLE_DEVICES=", &env, &r) == 0);
    CHECK_STR(r.output, "2,0,1 kept\n1\n");
    proc_result_free(&r);
    CHECK_STR(getenv("CUDA_VISIBLE_DEVICES"), "0,1,2"); /* the kernel's own is untouched */

    /* more variables (nvcc's steps get nvcc's): each set once, a later one winning */
    char *more[] = {"ICUDA_TEST_KEEP=over", "ICUDA_TEST_NEW=a", "ICUDA_TEST_NEW=b", NULL};
    proc_opts_t env2 = {.setenv = "CUDA_VISIBLE_DEVICES=1", .env = more};
    CHECK(sh("echo $CUDA_VISIBLE_DEVICES $ICUDA_TEST_KEEP $ICUDA_TEST_NEW; "
             "env | grep -c -e ^ICUDA_TEST_KEEP= -e ^ICUDA_TEST_NEW=",
             &env2, &r) == 0);
    CHECK_STR(r.output, "1 over b\n2\n");
    proc_result_free(&r);

    /* the cancel flag stops it as an interrupt would, and says so */
    atomic_int cancel = 1;
    proc_opts_t can = {.cancel = &cancel};
    CHECK(sh("sleep 30", &can, &r) == 0);
    CHECK(r.cancelled && !r.interrupted && !(r.exited && r.exit_status == 0));
    proc_result_free(&r);
    return check_report();
}
