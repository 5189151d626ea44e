/* The last-resort guard (fault_guard.h): sigsetjmp around each request the
 * executor runs, siglongjmp from a handler on an alternate stack. */
#include "fault_guard.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* SIGABRT: the interpreter aborts where an allocation fails (a cell that took
 * all the memory): a fresh session, not a dead kernel */
static const int guarded[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NGUARDED (sizeof guarded / sizeof guarded[0])
static struct sigaction previous[NGUARDED];
static __thread fault_guard_t *armed;

static void on_fault(int sig, siginfo_t *si, void *uc) {
    fault_guard_t *g = armed;
    if (g) {
        armed = NULL;
        g->sig = sig;
        g->addr = si ? si->si_addr : NULL;
        siglongjmp(g->jb, 1);
    }
    /* not ours: the handler before us decides (ASan reports), else the default */
    for (size_t i = 0; i < NGUARDED; i++) {
        if (guarded[i] != sig) continue;
        const struct sigaction *p = &previous[i];
        if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
            p->sa_sigaction(sig, si, uc);
            return;
        }
        if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
            p->sa_handler(sig);
            return;
        }
    }
    signal(sig, SIG_DFL); /* the faulting instruction runs again and kills */
    if (!si || si->si_code <= 0) raise(sig); /* sent by kill(), not a fault */
}

static bool enabled(void) {
    const char *e = getenv("ICUDA_FAULT_GUARD");
    if (e && *e) return strcmp(e, "0") != 0;
#if defined(__SANITIZE_ADDRESS__)
    return false;
#else
    return true;
#endif
}

bool fault_guard_install(void) {
    static int state; /* 0 not tried, 1 on, -1 off */
    if (state) return state > 0;
    state = -1;
    if (!enabled()) return false;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NGUARDED; i++)
        if (sigaction(guarded[i], &sa, &previous[i]) != 0) return false;
    state = 1;
    return true;
}

static __thread void *own_stack; /* the one fault_guard_thread_init gave this thread */

void fault_guard_thread_init(void) {
    stack_t now;
    if (sigaltstack(NULL, &now) == 0 && !(now.ss_flags & SS_DISABLE)) return; /* ASan's, say: keep it */
    size_t size = 64 * 1024 > SIGSTKSZ ? 64 * 1024 : SIGSTKSZ;
    stack_t st = {0};
    st.ss_sp = malloc(size); /* the thread's for its life; no room: it goes on without an alternate stack */
    if (!st.ss_sp) return;
    st.ss_size = size;
    if (sigaltstack(&st, NULL) != 0) free(st.ss_sp);
    else own_stack = st.ss_sp;
}

void fault_guard_arm(fault_guard_t *g) { armed = g; }
void fault_guard_disarm(void) { armed = NULL; }

const char *fault_guard_signame(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    }
    return "signal";
}

/* ---- deliberate faults, for the tests ---- */

static volatile long never = -1; /* the compiler cannot see the recursion end */

static int recurse(volatile char *p, long depth) {
    volatile char big[4096];
    big[0] = p ? p[0] : 0;
    if (depth == never) return 0;
    return recurse(big, depth + 1) + big[1];
}

/* a real SIGFPE, not UBSan's report of the division */
__attribute__((no_sanitize("undefined"))) static void divide_by_zero(void) {
    volatile int zero = 0, x = 1;
    x /= zero;
}

void fault_guard_test_trigger(const char *code) {
    static const char prefix[] = "%icuda_test_fault ";
    if (strncmp(code, prefix, sizeof prefix - 1) != 0) return;
    const char *e = getenv("ICUDA_TEST_FAULTS");
    if (!e || strcmp(e, "1") != 0) return;
    const char *what = code + sizeof prefix - 1;
    if (!strcmp(what, "segv")) {
        volatile int *volatile bad = (volatile int *)(uintptr_t)8;
        *bad = 1;
    } else if (!strcmp(what, "fpe")) {
        divide_by_zero();
    } else if (!strcmp(what, "bus")) {
        /* a page of a file past its end */
        char path[] = "/tmp/icuda-bus-XXXXXX";
        int fd = mkstemp(path);
        if (fd < 0) return;
        unlink(path);
        volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p != MAP_FAILED) (void)p[0];
    } else if (!strcmp(what, "stack")) {
        recurse(NULL, 0);
    } else if (!strcmp(what, "abort")) {
        abort(); /* as the interpreter does where an allocation fails */
    }
}

/* the thread's alternate stack back, before the thread ends (valgrind counts
 * it lost otherwise) */
void fault_guard_thread_exit(void) {
    if (!own_stack) return;
    stack_t off = {0};
    off.ss_flags = SS_DISABLE;
    if (sigaltstack(&off, NULL) == 0) free(own_stack);
    own_stack = NULL;
}
