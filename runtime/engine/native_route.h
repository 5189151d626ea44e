/* Which cells run as native C++ (native_route.c): a cell whose host side
 * the interpreter would refuse goes to nvcc and the GPU worker whole,
 * instead of failing. */
#ifndef ICUDA_NATIVE_ROUTE_H
#define ICUDA_NATIVE_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "runtime/cell/split.h"
#include "runtime/native/native_session.h"

/* True when the cell includes a header only a whole compiler takes, uses a
 * name a native cell defined, or holds C++ host cells refuse (exceptions,
 * virtual functions, inheritance, operator overloading, class templates,
 * lambdas, decltype, Thrust, CUB's device-wide algorithms); why gets the
 * reason, for the one line the cell says. */
bool engine_native_route(engine_t *e, const native_session_t *ns, const char *code, const cell_split_t *sp, char *why,
                         size_t cap);

#endif
