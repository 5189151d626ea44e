/* What a native C++ cell sees of the rest of the session (native_links.c),
 * handed to the native layer as callbacks: it knows nothing of the
 * interpreter or the device cells itself. */
#ifndef ICUDA_NATIVE_LINKS_H
#define ICUDA_NATIVE_LINKS_H

#include "engine.h"
#include "runtime/cell/split.h"
#include "runtime/native/native_session.h"

/* What an interpreted cell's host items [from, to) defined that native
 * cells may use (functions, types, #includes of host headers), after they
 * ran. */
void native_remember_host(native_session_t *ns, const char *code, const cell_split_t *sp, size_t from, size_t to,
                          const char *cell);

/* Sets e's native session's links (native_session.h). */
void engine_native_links(engine_t *e);

#endif
