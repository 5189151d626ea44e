/* The last-resort guard: a SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT on
 * the executor thread while it runs a request becomes an error reply
 * ("InternalError") and a fresh session, instead of the kernel process
 * dying.
 *
 * It is a guard, not the plan: a cell must never reach it (every limit is an
 * error of its own, docs/reliability.md). The fault may have left the
 * session's state half-changed, so the session is discarded; what the
 * faulting code held (a lock, memory) may stay held. A fault anywhere else
 * (another thread, or outside a request) goes to the handler that was
 * there before (AddressSanitizer's in an ASan build), or kills as usual.
 * ASan builds leave the guard off, so that ASan reports the bug, unless
 * ICUDA_FAULT_GUARD=1. */
#ifndef ICUDA_FAULT_GUARD_H
#define ICUDA_FAULT_GUARD_H

#include <setjmp.h>
#include <stdbool.h>

typedef struct fault_guard {
    sigjmp_buf jb;
    int sig;     /* what was caught */
    void *addr;  /* where (si_addr) */
} fault_guard_t;

/* Installs the handlers (once per process); false where the guard is off. */
bool fault_guard_install(void);
/* An alternate signal stack for the calling thread, so that a stack
 * overflow can be caught too. Call on the thread the guard protects. */
void fault_guard_thread_init(void);
/* Gives that stack back; call on the same thread before it ends. */
void fault_guard_thread_exit(void);

/* Arms g on this thread: call right after sigsetjmp(g->jb, 1) returned 0;
 * disarm when the guarded work is done (or after a fault). */
void fault_guard_arm(fault_guard_t *g);
void fault_guard_disarm(void);

/* "SIGSEGV" ... */
const char *fault_guard_signame(int sig);

/* Tests only: with ICUDA_TEST_FAULTS=1 in the environment, a cell that is
 * exactly "%icuda_test_fault segv|bus|fpe|stack" faults that way on purpose. */
void fault_guard_test_trigger(const char *code);

#endif
