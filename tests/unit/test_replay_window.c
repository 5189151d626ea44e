/* Replay protection does not forget: after 100,000 other
 * messages through a set that remembers 65,536 signatures, the first message
 * sent again is still refused (its date is at or before the forgotten
 * horizon), while new messages pass; dates parse as Jupyter writes them. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "kernel/replay.h"
#include "kernel/wire.h"

static void digest_of(uint32_t i, unsigned char d[REPLAY_DIGEST_LEN]) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull + 1;
    for (int k = 0; k < REPLAY_DIGEST_LEN; k++) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
        d[k] = (unsigned char)(x >> 56);
    }
}

int main(void) {
    replay_t *r = replay_new(65536);
    unsigned char d[REPLAY_DIGEST_LEN];
    int64_t t0 = wire_date_us("2026-11-23T20:00:00.000001Z");
    CHECK(t0 == INT64_C(1795464000) * 1000000 + 1);
    CHECK(wire_date_us("2026-11-23T21:00:00+01:00") == INT64_C(1795464000) * 1000000);
    CHECK(wire_date_us("2026-11-23T20:00:00.5") == INT64_C(1795464000) * 1000000 + 500000);
    CHECK(wire_date_us("yesterday") == INT64_MIN && wire_date_us(NULL) == INT64_MIN);

    int fresh_refused = 0, replays_passed = 0;
    for (uint32_t i = 0; i < 100001; i++) { /* one message per millisecond */
        digest_of(i, d);
        if (replay_check_and_add_at(r, d, t0 + (int64_t)i * 1000)) fresh_refused++;
    }
    CHECK(fresh_refused == 0);
    CHECK(replay_count(r) == 65536);
    /* every earlier message sent again: refused, remembered or not */
    for (uint32_t i = 0; i < 100001; i += 7) {
        digest_of(i, d);
        if (!replay_check_and_add_at(r, d, t0 + (int64_t)i * 1000)) replays_passed++;
    }
    CHECK(replays_passed == 0);
    digest_of(0, d);
    CHECK(replay_check_and_add_at(r, d, t0)); /* the very first, 100,000 messages later */
    CHECK(replay_check_and_add_at(r, d, INT64_MIN)); /* with its date stripped: the signature would not verify, and no date is old */
    /* a new message passes, and only once */
    digest_of(200000, d);
    CHECK(!replay_check_and_add_at(r, d, t0 + INT64_C(200000) * 1000));
    CHECK(replay_check_and_add_at(r, d, t0 + INT64_C(200000) * 1000));
    printf("100,001 messages, %d fresh refused, %d replays passed\n", fresh_refused, replays_passed);
    replay_free(r);
    return check_report();
}
