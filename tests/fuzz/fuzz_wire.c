/* libFuzzer target: the wire decoder and its signature check (make fuzz).
 * The input is split into frames at 0xFF bytes; when its first byte is odd,
 * frame 0 becomes the delimiter and frame 1 a valid signature of frames 2-5,
 * so the decoder's JSON checks are reached too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    static wire_t w;
    static replay_t *r;
    if (!r) {
        wire_init(&w, "fuzz-key");
        r = replay_new(1024);
    }
    wire_blob_t frames[16];
    size_t nf = 0, start = 0;
    for (size_t i = 0; i <= n && nf < 16; i++)
        if (i == n || data[i] == 0xFF) {
            frames[nf].data = (void *)(data + start);
            frames[nf].len = i - start;
            nf++;
            start = i + 1;
        }
    wire_msg_t msg;
    char why[256];
    /* the first byte chooses: sign the five frames after the delimiter, or not */
    if (n && (data[0] & 1) && nf >= 7) {
        static char sig[65];
        wire_sign(&w, &frames[2], 4, sig, NULL);
        frames[0].data = "<IDS|MSG>";
        frames[0].len = 9;
        frames[1].data = sig;
        frames[1].len = 64;
    }
    wire_decode(&w, r, frames, nf, &msg, why, sizeof why);
    wire_msg_clear(&msg);
    return 0;
}
