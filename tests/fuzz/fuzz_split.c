/* libFuzzer target: the cell splitter on any bytes (make fuzz). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cell/split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    char *code = malloc(n + 1);
    memcpy(code, data, n);
    code[n] = 0;
    cell_split_t sp;
    split_cell(code, &sp);
    for (size_t i = 0; i < sp.n; i++) {
        const cell_item_t *it = &sp.items[i];
        if (it->start > it->end || it->end > strlen(code) || it->first_line > it->last_line) abort();
    }
    split_free(&sp);
    free(code);
    return 0;
}
