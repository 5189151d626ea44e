/* A __device__ lambda that main keeps in a variable (auto scale = [=]
 * __device__ (float x) { return a * x; };), as a native unit writes it.
 *
 * main's locals are a unit's globals, and nvcc takes an extended lambda
 * only inside a function whose return type is not deduced, which no
 * function that returns the lambda for a global to hold can be. So the
 * lambda becomes the class it stands for: its captures members (copied
 * when the variable is made, as [=] copies them), its body the body of a
 * __device__ operator(). Kernels and Thrust take the object as they take
 * a lambda. */
#ifndef ICUDA_NATIVE_CLOSURE_H
#define ICUDA_NATIVE_CLOSURE_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/base/strbuf.h"

/* Whether text[0, n) is one such declaration ("[static] [const] auto NAME =
 * [captures] specifiers (params) specifiers { body };", __device__ among
 * the specifiers) whose captures are none, '=' or plain names. */
bool native_closure_form(const char *text, size_t n);
/* ... and the variable's name into name (cap bytes), "" when it is none. */
void native_closure_name(const char *text, size_t n, char *name, size_t cap);

/* Whether name is a variable the unit sees at namespace scope (what a
 * capture-default copies). */
typedef bool (*native_is_variable_fn)(void *ctx, const char *name);

/* Appends the class and the variable for text (native_closure_form), its
 * body at line first_line of cell; false, appending nothing, if text is
 * no such declaration. The variable is made and registered in the worker
 * (made_in NULL: the defining cell), or, in a later cell, bound to the one
 * the cell made_in made, whose captures are the values they had then. */
bool native_closure_append(strbuf_t *b, const char *text, size_t n, int first_line, const char *cell,
                           const char *made_in, native_is_variable_fn is_variable, void *ctx);

#endif
