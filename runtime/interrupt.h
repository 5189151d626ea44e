/* The one interrupt flag of the kernel process. Raised from the control
 * thread (interrupt_request) or the SIGINT handler; polled by whatever runs a
 * cell (interpreter loops, compile waits), cleared when a cell starts. */
#ifndef ICUDA_INTERRUPT_H
#define ICUDA_INTERRUPT_H

#include <stdatomic.h>
#include <stdbool.h>

extern atomic_int icuda_interrupt_flag;

/* Async-signal-safe. */
static inline void interrupt_raise(void) { atomic_store(&icuda_interrupt_flag, 1); }
static inline bool interrupt_pending(void) {
    return atomic_load_explicit(&icuda_interrupt_flag, memory_order_relaxed) != 0;
}
static inline void interrupt_clear(void) { atomic_store(&icuda_interrupt_flag, 0); }

#endif
