/* libFuzzer target: the host parser and interpreter (make fuzz). Each input
 * is a cell, run as interp_harness.h says; tests/fuzz/interp.dict holds C's
 * tokens for libFuzzer's mutations (-dict). */
#include <stdint.h>
#include <stdio.h>

#include "interp_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    char *code = malloc(n + 1);
    memcpy(code, data, n);
    code[n] = 0;
    harness_run(code);
    free(code);
    return 0;
}
