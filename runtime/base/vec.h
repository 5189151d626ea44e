/* A growable array of any element type: VEC(T) is a struct of the elements,
 * their count and the room allocated; it starts zeroed ({0}) and grows by
 * doubling. Allocation is checked (xalloc.h). */
#ifndef ICUDA_VEC_H
#define ICUDA_VEC_H

#include <stddef.h>
#include <stdlib.h>

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

/* appends item where running out of memory is an error to report, not the
 * end of the process: 1, or 0 (the vector unchanged) when no room could be
 * had */
#define VEC_TRY_PUSH(vec, item)                                                          \
    ({                                                                                   \
        int ok_ = 1;                                                                     \
        if ((vec).n == (vec).cap) {                                                      \
            size_t nc_ = (vec).cap ? (vec).cap * 2 : 16;                                 \
            void *nv_ = realloc((vec).v, nc_ * sizeof *(vec).v);                         \
            if (nv_) {                                                                   \
                (vec).v = nv_;                                                           \
                (vec).cap = nc_;                                                         \
            } else ok_ = 0;                                                              \
        }                                                                                \
        if (ok_) (vec).v[(vec).n++] = (item);                                            \
        ok_;                                                                             \
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
