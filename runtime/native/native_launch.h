/* Launches in a later unit of an earlier native cell's kernel that leave
 * out defaulted parameters. The later unit reaches the kernel through a
 * reference to its host stub, and a reference has no default arguments:
 * such a launch gets them written in, as the compiler would have filled
 * them in the defining cell. */
#ifndef ICUDA_NATIVE_LAUNCH_H
#define ICUDA_NATIVE_LAUNCH_H

#include <stddef.h>

#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"

typedef struct {
    const char *name;          /* the kernel's name in the unit */
    int nparams;               /* how many parameters it has */
    char *const *defaults;     /* its last parameters' default arguments, NULL-terminated */
} native_defaulted_t;
typedef VEC(native_defaulted_t) native_defaulted_list_t;

/* Appends text[0, n) to b, each launch name<<<...>>>(args) of a kernel of
 * the list that passes fewer arguments than it has parameters, but all of
 * the ones without a default, completed with the defaults it leaves out.
 * Comments, strings and character literals are copied as they are. */
void native_launch_append(strbuf_t *b, const char *text, size_t n, const native_defaulted_list_t *kernels);

#endif
