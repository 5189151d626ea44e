/* Which cells run as native C++ (native_route.c): a cell whose host side
 * the interpreter would refuse goes to nvcc and the GPU worker whole,
 * instead of failing. */
#ifndef ICUDA_NATIVE_ROUTE_H
#define ICUDA_NATIVE_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "runtime/base/cell_io.h"
#include "runtime/cell/split.h"
#include "runtime/native/native_session.h"

/* True when the cell includes a header only a whole compiler takes, uses a
 * name a native cell defined, or holds C++ host cells refuse (exceptions,
 * virtual functions, inheritance, operator overloading, class templates,
 * lambdas, decltype, Thrust, CUB's device-wide algorithms); why gets the
 * reason, for the one line the cell says. */
bool engine_native_route(engine_t *e, const native_session_t *ns, const char *code, const cell_split_t *sp, char *why,
                         size_t cap);

/* True when a cell the interpreter refused for a name it does not know
 * ("'X' is undeclared", found before anything of the cell ran) should run
 * natively instead: the name is the standard library's (std::unique_ptr),
 * the cell itself includes a device library whose host side the
 * interpreter lacks (CachingDeviceAllocator of <cub/util_allocator.cuh>),
 * or a native cell included a header the name may come from
 * (findCudaDevice of helper_cuda.h, std::map of <map>); why gets the
 * reason. */
bool engine_native_fallback(const native_session_t *ns, const cell_split_t *sp, const cell_error_t *err, char *why,
                            size_t cap);
/* Whether a device cell NVRTC refused runs as native C++ instead: a native
 * cell included a header, which nvcc's device code sees and NVRTC's does
 * not (the samples' helper_cuda.h brings uint32_t). why says so. Nothing
 * of the cell has run yet; nvcc reports what is still wrong. */
bool engine_native_device_fallback(const native_session_t *ns, const cell_error_t *err, char *why, size_t cap);

#endif
