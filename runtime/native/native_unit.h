/* A native cell's translation unit, assembled without compiling it
 * (native_unit.c): the registry and runner every cell object starts with,
 * what device cells defined, the native prelude of earlier cells (their
 * objects bound through the registry of the worker live), the
 * interpreter's variables the cell names, then the cell. */
#ifndef ICUDA_NATIVE_UNIT_H
#define ICUDA_NATIVE_UNIT_H

#include <stdbool.h>

#include "native_session.h"

/* The label a unit gives the cell it is made for (its #lines): the same
 * whatever number the cell runs under, so that the unit is too. */
#define NATIVE_THIS_CELL "this cell"

/* malloc'd. live: the pid of the worker the cell will run in (objects of
 * other workers are gone and are not bound). bounds gets the interpreter's
 * variables the unit binds, to be registered in the worker as it is
 * loaded. */
char *native_unit(const native_session_t *ns, int live, const char *code, const native_items_t *items,
                  const char *cell, native_bounds_t *bounds);

/* Whether a type as the compiler spelled it (demangled) can be written in
 * a declaration: not a lambda's, not one of an anonymous namespace. */
bool native_type_spellable(const char *type);

#endif
