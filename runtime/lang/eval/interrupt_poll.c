/* How a running cell is stopped: poll_interrupt (interrupt_poll.h) counts
 * down g_tick and, every 1024 polls, looks at the interrupt flag
 * (runtime/base/interrupt.h); a pending interrupt is raised as
 * KeyboardInterrupt where it is seen. */
#include "interrupt_poll.h"

int g_tick = 1024;

_Noreturn void raise_interrupt(node_t *at) {
    interrupt_clear();
    lang_raise("KeyboardInterrupt", at ? &at->loc : NULL, "interrupted by the user");
}

void interrupt_at(node_t *at) {
    if (g_in->setting_up) return; /* left pending: the next cell starts by clearing it */
    raise_interrupt(at);
}
