/* What a native C++ cell sees of the rest of the session (native_links.c),
 * handed to the native layer as callbacks: it knows nothing of the
 * interpreter or the device cells itself. */
#ifndef ICUDA_NATIVE_LINKS_H
#define ICUDA_NATIVE_LINKS_H

#include "engine.h"

/* Sets e's native session's links (native_session.h). */
void engine_native_links(engine_t *e);

#endif
