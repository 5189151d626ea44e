/* The one interrupt flag of the kernel process. Raised from the control
 * thread (interrupt_request) or the SIGINT handler; polled by whatever runs a
 * cell (interpreter loops, compile waits), cleared when a cell starts. */
#ifndef ICUDA_INTERRUPT_H
#define ICUDA_INTERRUPT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

extern atomic_int icuda_interrupt_flag;
/* The lowest stack address compiled host functions may reach; they test it
 * once a call (runtime/lang/native/native_func.c). Raising the flag sets it past
 * every stack, so that one test polls the interrupt as well. */
extern char *_Atomic icuda_interrupt_guard;

/* Async-signal-safe. */
static inline void interrupt_raise(void) {
    atomic_store(&icuda_interrupt_flag, 1);
    atomic_store(&icuda_interrupt_guard, (char *)UINTPTR_MAX);
}
static inline bool interrupt_pending(void) {
    return atomic_load_explicit(&icuda_interrupt_flag, memory_order_relaxed) != 0;
}
static inline void interrupt_clear(void) { atomic_store(&icuda_interrupt_flag, 0); }

#endif
