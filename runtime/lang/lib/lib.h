/* The library host code calls, as the stages above it see it: the C library's
 * builtins (builtins*.c), CUDA's host-side names (builtins_cuda.c) and the
 * C++ library classes (cxx_*.c), each registered into the session's tables
 * at set-up. */
#ifndef ICUDA_LANG_LIB_H
#define ICUDA_LANG_LIB_H

#include "runtime/lang/front/front.h"

void builtins_register(interp_t *in);
void builtins_stdio_register(interp_t *in);
void builtins_math_register(interp_t *in);
void builtins_stdlib_register(interp_t *in);
void builtins_stdlib2_register(interp_t *in);
void builtins_string_register(interp_t *in);
void builtins_cxx_register(interp_t *in);
void builtins_cuda_register(interp_t *in);
/* the prototypes of the builtins, parsed by the session's prelude */
const char *builtin_prototypes(void);
const char *builtin_cuda_prototypes(void);
const char *builtin_cxx_prototypes(void);
/* std::vector, std::string, std::cout, ... (after the prelude) */
void cxx_library_register(interp_t *in);
/* a C++ library object's text for value display (malloc'd), or NULL:
 * show its fields (cxx_lib.c) */
char *cxx_show(type_t *t, const void *obj);
/* rand()'s generator: glibc's TYPE_3, one per session */
void rand_seed(interp_t *in, uint32_t seed);
int32_t rand_next(interp_t *in);

#endif
