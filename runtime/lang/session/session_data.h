/* The session's data as the magics see it (session_data.c): what the rest
 * of the session uses besides interp.h's entries. */
#ifndef ICUDA_LANG_SESSION_DATA_H
#define ICUDA_LANG_SESSION_DATA_H

#include "enter.h"

/* each committed session variable s of in, in the order of its map */
#define FOR_SESSION_VARS(in, s)                                                            \
    for (int i_ = 0; i_ < (in)->globals.cap; i_++)                                        \
        for (sym_t *s = (in)->globals.keys && (in)->globals.keys[i_] &&                   \
                                (in)->globals.keys[i_] != (const char *)1                 \
                            ? (in)->globals.vals[i_]                                      \
                            : NULL;                                                       \
             s && s->kind == S_VAR_GLOBAL && s->gv->committed; s = NULL)

/* every pointer held in a session variable or its members */
typedef void (*session_pointer_fn)(void *ctx, const char *name, uint64_t word);
void session_pointers_each(interp_t *in, session_pointer_fn fn, void *ctx);
/* __icuda_array, the probe interp_array runs */
void builtins_session_data_register(interp_t *in);

#endif
