/* A session as the engine holds it: the parts each layer owns, side by side.
 * Every layer below gets only its own part (the device compiler and the
 * magics a device_session_t, the CUDA layer the interpreter and the device
 * session, the magics a magic_ctx_t of handles); this struct is the
 * engine's alone (engine.c, assist.c, inspect.c, session_reset.c). */
#ifndef ICUDA_SESSION_H
#define ICUDA_SESSION_H

#include "engine.h"
#include "runtime/device/device_session.h"
#include "runtime/native/native_session.h"

struct engine {
    device_session_t dev;
    struct interp *interp;
    struct cuda_session *cuda;
    struct measure_state *measure; /* %timeit's peaks and measurements (magics/measure.h) */
    native_session_t native;       /* what native C++ cells left for later ones */
};

/* %reset (runtime/engine/session_reset.c): the device session's prelude and
 * kernels forgotten, the CUDA layer's modules unloaded, the interpreter as
 * new, native cells forgotten; %%header files, %nvrtc options and the compile cache stay. Buffers
 * are the caller's to free first. */
void session_reset(engine_t *e);

#endif
