/* Host code compiled once and run many times (prepared.c): what the rest of
 * the session uses besides interp.h's entries. */
#ifndef ICUDA_LANG_SESSION_PREPARED_H
#define ICUDA_LANG_SESSION_PREPARED_H

#include "enter.h"
#include "runtime/lang/interp.h"

/* glue[0] first glue[1] second glue[2], compiled and run once (session_data.c's
 * probe of an array) */
int prepared_run_glued(interp_t *in, const interp_text_t *first, const interp_text_t *second,
                       const char *const glue[3], cell_error_t *err);
/* %timeit's result type and the builtins its code calls */
const char *builtin_prepared_prototypes(void);
void builtins_prepared_register(interp_t *in);

#endif
