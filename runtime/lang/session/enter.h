/* Entering a run of host code and recovering from an error's jump
 * (enter.c), for every entry of the session that runs code. */
#ifndef ICUDA_LANG_SESSION_ENTER_H
#define ICUDA_LANG_SESSION_ENTER_H

#include "runtime/lang/lib/lib.h"

/* in->stack_base and stack_limit, measured from here (STACK_HERE()) */
void lang_stack_bounds(interp_t *in, char *here);
/* Makes in the running interpreter, its errors jumping to jb (a setjmp the
 * caller makes next) and its stack measured from here (the caller's
 * STACK_HERE(): not lang_enter's own frame, which is gone when it returns);
 * lang_recover undoes what a jump left half done (frames, a builtin's
 * scratch, tokens, unflushed output, a pending value). */
void lang_enter(interp_t *in, const cell_io_t *io, cell_error_t *err, jmp_buf *jb, char *here);
void lang_recover(interp_t *in);

#endif
