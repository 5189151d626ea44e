/* %%header files of a session: kept whole for %%program, and split the way
 * a cell is (split.h) into what each side reads: NVRTC gets the header's
 * device view (host-only functions blanked), the host interpreter its host
 * view (kernels and device functions blanked), lines kept, so a header that
 * mixes both works from both sides and errors name its own lines. */
#ifndef ICUDA_SESSION_HEADERS_H
#define ICUDA_SESSION_HEADERS_H

#include <stdbool.h>

#include "runtime/device/device_session.h"
#include "runtime/cell/split.h"

/* Saves (or replaces: *replaced) the header name with text body. */
void session_header_save(device_session_t *ds, const char *name, const char *body, bool *replaced);
void session_headers_free(device_session_t *ds);

/* An #include "name" of a session header goes to both sides (the splitter
 * alone sends an unknown header to the device side only). */
void session_headers_route(const device_session_t *ds, cell_split_t *sp);

/* The host view of header name, or NULL when the session has none: the
 * interpreter's #include hook (ctx is the engine). */
const char *session_header_host_view(void *ctx, const char *name);

#endif
