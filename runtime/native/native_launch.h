/* What a later unit's text is rewritten for, of what it reaches of earlier
 * native cells:
 * - launches of an earlier cell's kernel that leave out defaulted
 *   parameters. The later unit reaches the kernel through a reference to
 *   its host stub, and a reference has no default arguments: such a launch
 *   gets them written in, as the compiler would have filled them in the
 *   defining cell;
 * - device code that names an earlier cell's __device__, __constant__ or
 *   __managed__ variable. The later unit reaches the variable's host side
 *   by reference, which device code cannot read: in the bodies of
 *   __global__ and __device__ functions and lambdas the name becomes
 *   icuda_dev_NAME, which the unit defines as the variable itself in the
 *   device pass (through its device address) and as the reference in the
 *   host pass. */
#ifndef ICUDA_NATIVE_LAUNCH_H
#define ICUDA_NATIVE_LAUNCH_H

#include <stdbool.h>
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

typedef VEC(const char *) native_names_t;

/* A token of C++ text: an identifier or number (punct 0), a literal
 * (punct '"'), or punctuation (its character; 'Q' for "::", 'A' for "->"). */
typedef struct {
    size_t at, len;
    char punct;
} native_tok_t;

/* The token at or after p, comments and white space skipped; at = n at the end. */
native_tok_t native_next_tok(const char *s, size_t p, size_t n);
/* Whether t is the identifier w. */
bool native_tok_is(const char *s, native_tok_t t, const char *w);
/* Whether t is a word before a name that makes no declaration of it
 * (return x; case x:), or a number. */
bool native_expression_word(const char *s, native_tok_t t);

/* Appends text[0, n) to b, each name of vars in a device body written
 * icuda_dev_NAME; not where it is a member (.name, ->name, X::name), nor
 * in a body that declares a parameter or local of that name. */
void native_devref_append(strbuf_t *b, const char *text, size_t n, const native_names_t *vars);

#endif
