/* A growable array of any element type: VEC(T) is a struct of the elements,
 * their count and the room allocated; it starts zeroed ({0}) and grows by
 * doubling. Allocation is checked (xalloc.h). */
#ifndef ICUDA_VEC_H
#define ICUDA_VEC_H

#include <stddef.h>

#include "runtime/base/xalloc.h"

#define VEC(T) struct { T *v; size_t n, cap; }

/* room for at least want elements in all */
#define VEC_RESERVE(vec, want)                                                           \
    do {                                                                                 \
        size_t want_ = (want);                                                           \
        if (want_ > (vec).cap) {                                                         \
            size_t nc_ = (vec).cap ? (vec).cap * 2 : 8;                                  \
            if (nc_ < want_) nc_ = want_;                                                \
            (vec).v = xreallocarray((vec).v, nc_, sizeof *(vec).v);                      \
            (vec).cap = nc_;                                                             \
        }                                                                                \
    } while (0)

/* appends item; a pointer to the new element */
#define VEC_PUSH(vec, item)                                                              \
    ({                                                                                   \
        VEC_RESERVE(vec, (vec).n + 1);                                                   \
        (vec).v[(vec).n] = (item);                                                       \
        &(vec).v[(vec).n++];                                                             \
    })

/* grows an array kept as a pointer and two counts of any integer type
 * (count, cap) so that one more element fits: for structs whose fields
 * are named otherwise than VEC's */
#define ARRAY_GROW(ptr, count, cap)                                                      \
    do {                                                                                 \
        if ((size_t)(count) >= (size_t)(cap)) {                                          \
            size_t nc_ = (cap) ? (size_t)(cap) * 2 : 8;                                  \
            (ptr) = xreallocarray((ptr), nc_, sizeof *(ptr));                            \
            (cap) = nc_;                                                                 \
        }                                                                                \
    } while (0)

#define VEC_FREE(vec)                                                                    \
    do {                                                                                 \
        free((vec).v);                                                                   \
        (vec).v = NULL;                                                                  \
        (vec).n = (vec).cap = 0;                                                         \
    } while (0)

#endif
