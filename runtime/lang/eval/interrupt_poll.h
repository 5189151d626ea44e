/* How a running cell is stopped (interrupt_poll.c): the evaluator and the lexer
 * poll, and a pending interrupt is raised where it is seen. */
#ifndef ICUDA_LANG_EVAL_INTERRUPT_POLL_H
#define ICUDA_LANG_EVAL_INTERRUPT_POLL_H

#include "runtime/lang/core/core.h"

extern int g_tick;
_Noreturn void raise_interrupt(node_t *at);
/* raise_interrupt, but not while a session is being set up: there is no
 * cell to stop, and its prelude must be whole */
void interrupt_at(node_t *at);
static inline void poll_interrupt(node_t *at);
#include "runtime/base/interrupt.h"
static inline void poll_interrupt(node_t *at) {
    if (UNLIKELY(--g_tick <= 0)) {
        g_tick = 1024;
        if (interrupt_pending()) interrupt_at(at);
    }
}

#endif
