/* libFuzzer target: the .npy header check of %load (magics/npy_header.c)
 * on any file's bytes; an accepted header must describe data inside the
 * file. Also a round trip: a header %save writes for a shape taken from the
 * input parses back to that shape. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "magics/npy_header.h"

#include "runtime/base/cell_io.h"
static void roundtrip(const uint8_t *data, size_t n) {
    static const int kinds[][2] = {{INTERP_ELEM_FLOAT, 4}, {INTERP_ELEM_FLOAT, 8}, {INTERP_ELEM_INT, 2},
                                   {INTERP_ELEM_UINT, 1}, {INTERP_ELEM_BOOL, 1}, {INTERP_ELEM_INT, 8}};
    if (n < 2) return;
    const npy_dtype_t *d = npy_dtype_of(kinds[data[0] % 6][0], (size_t)kinds[data[0] % 6][1]);
    int nd = 1 + data[1] % NPY_MAX_DIMS;
    long dims[NPY_MAX_DIMS];
    uint64_t count = 1;
    for (int i = 0; i < nd; i++) {
        dims[i] = 2 + i < (int)n ? data[2 + i] % 5 : 1; /* small: the data is written too */
        count *= (uint64_t)dims[i];
    }
    size_t hl;
    char *h = npy_header(d, dims, nd, &hl);
    if (hl % 64) abort();
    size_t total = hl + count * (size_t)d->esize;
    unsigned char *file = calloc(1, total);
    memcpy(file, h, hl);
    npy_t o;
    cell_error_t err = {0};
    if (npy_parse_header("rt.npy", file, total, total, &o, &err) || o.d != d || o.nd != nd || o.count != count ||
        o.data_off != hl)
        abort();
    for (int i = 0; i < nd; i++)
        if (o.dims[i] != dims[i]) abort();
    free(file);
    free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    npy_t o;
    cell_error_t err = {0};
    if (npy_parse_header("f.npy", data, n, n, &o, &err) == 0) {
        if (!o.d || o.nd > NPY_MAX_DIMS || o.data_off > n) abort();
        if ((n - o.data_off) / (size_t)o.d->esize < o.count) abort();
    } else if (!err.ename) abort();
    cell_error_clear(&err);
    /* as %load reads it: the header from a prefix, the data's length from the file's size */
    size_t head = n / 2;
    if (npy_parse_header("f.npy", data, head, n, &o, &err) == 0) {
        if (!o.d || o.data_off > head) abort();
        if ((n - o.data_off) / (size_t)o.d->esize < o.count) abort();
    } else if (!err.ename) abort();
    cell_error_clear(&err);
    /* %save's --shape words, from the input as text */
    char shape[64];
    size_t k = n < sizeof shape - 1 ? n : sizeof shape - 1;
    memcpy(shape, data, k);
    shape[k] = 0;
    long dims[NPY_MAX_DIMS];
    int nd;
    if (npy_parse_shape(shape, dims, &nd) && (nd < 1 || nd > NPY_MAX_DIMS)) abort();
    roundtrip(data, n);
    return 0;
}
