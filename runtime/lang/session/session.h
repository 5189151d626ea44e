/* The session's own parts (session/): entering and leaving a run of host
 * code, and what its files share. interp.h is the session's public face. */
#ifndef ICUDA_LANG_SESSION_H
#define ICUDA_LANG_SESSION_H

#include "runtime/lang/lib/lib.h"

void lang_stack_bounds(interp_t *in, char *here);
/* Makes in the running interpreter, its errors jumping to jb (a setjmp the
 * caller makes next) and its stack measured from here (the caller's
 * STACK_HERE(): not lang_enter's own frame, which is gone when it returns);
 * lang_recover undoes what a jump left half done (frames, a builtin's
 * scratch, tokens, unflushed output, a pending value). */
void lang_enter(interp_t *in, const cell_io_t *io, cell_error_t *err, jmp_buf *jb, char *here);
void lang_recover(interp_t *in);
/* every pointer held in a session variable or its members (session.c) */
typedef void (*session_pointer_fn)(void *ctx, const char *name, uint64_t word);
void session_pointers_each(interp_t *in, session_pointer_fn fn, void *ctx);

/* prepared.c: glue[0] first glue[1] second glue[2], compiled and run once
 * (session_data.c's probe of an array); the builtins %timeit's code calls */
int prepared_run_glued(interp_t *in, const interp_text_t *first, const interp_text_t *second,
                       const char *const glue[3], cell_error_t *err);
const char *builtin_prepared_prototypes(void);
void builtins_prepared_register(interp_t *in);
void builtins_session_data_register(interp_t *in);

#endif
