/* The .npy header (NumPy format 1.0-3.0), as %save writes it and %load
 * checks it (magics/npy_header.c). */
#ifndef ICUDA_NPY_HEADER_H
#define ICUDA_NPY_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/base/cell_io.h"
#include "runtime/lang/interp.h"

#define NPY_MAX_DIMS 8

typedef struct npy_dtype {
    char code[4];        /* "f4": kind letter and size */
    const char *ctype;
    int elem, esize;     /* INTERP_ELEM_*, bytes */
} npy_dtype_t;

/* The dtype of a C element type, or NULL when .npy has none. */
const npy_dtype_t *npy_dtype_of(int elem, size_t esize);

/* "a,b,c" -> dims; false when it is not a list of whole numbers >= 0. */
bool npy_parse_shape(const char *s, long *dims, int *nd);

/* The header of an array of dtype d and shape dims (malloc'd, *len bytes,
 * a multiple of 64 as NumPy writes it). */
char *npy_header(const npy_dtype_t *d, const long *dims, int nd, size_t *len);

typedef struct npy {
    const npy_dtype_t *d;
    bool swap;            /* big-endian data */
    long dims[NPY_MAX_DIMS];
    int nd;
    uint64_t count;       /* elements */
    size_t data_off;      /* where the data starts in the file */
} npy_t;

/* Checks a file's header from its first len bytes (buf; all of them, or at
 * least the header) and, from its size, that the data holds count elements.
 * 0, or -1 with err naming path. */
int npy_parse_header(const char *path, const unsigned char *buf, size_t len, uint64_t file_size, npy_t *o,
                     cell_error_t *err);

#endif
