/* A fresh session without a new kernel process (%reset): what cells
 * defined is forgotten, what the user configured (%%header files, %nvrtc
 * options) and the compile cache stay. */
#include "runtime/cuda/cuda_session.h"
#include "runtime/lang/interp.h"
#include "session.h"

void session_reset(engine_t *e) {
    device_session_forget(&e->dev);
    cuda_session_reset(e->cuda);
    interp_reset(e->interp);
    native_session_forget(&e->native);
}
