/* A ring of the last N digests plus an open-addressing index into it. The
 * ring gives FIFO eviction; the index (linear probing, deletion by backward
 * shift, no tombstones) keeps lookups O(1) however long the session runs. */
#include "replay.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/xalloc.h"

struct replay {
    unsigned char (*ring)[REPLAY_DIGEST_LEN];
    size_t capacity, count, head; /* head: next ring slot to write */
    uint32_t *slots;              /* ring index + 1; 0 = empty */
    size_t mask;
    int64_t *dates;               /* per ring slot: the message's date */
    int64_t horizon;              /* the latest date forgotten (INT64_MIN: none yet) */
};

replay_t *replay_new(size_t capacity) {
    if (capacity < 1) capacity = 1;
    replay_t *r = xcalloc(1, sizeof *r);
    size_t nslots = 2;
    while (nslots < capacity * 2) nslots <<= 1;
    r->ring = xcalloc(capacity, REPLAY_DIGEST_LEN);
    r->slots = xcalloc(nslots, sizeof *r->slots);
    r->dates = xcalloc(capacity, sizeof *r->dates);
    r->horizon = INT64_MIN;
    r->capacity = capacity;
    r->mask = nslots - 1;
    return r;
}

void replay_free(replay_t *r) {
    if (!r) return;
    free(r->ring);
    free(r->slots);
    free(r->dates);
    free(r);
}

/* The digest is an HMAC output: its first bytes are already uniform. */
static size_t home(const replay_t *r, const unsigned char *d) {
    uint64_t h;
    memcpy(&h, d, sizeof h);
    return (size_t)h & r->mask;
}

static void index_remove(replay_t *r, size_t ring_idx) {
    size_t i = home(r, r->ring[ring_idx]);
    while (r->slots[i] != ring_idx + 1) {
        if (!r->slots[i]) return; /* not indexed: cannot happen */
        i = (i + 1) & r->mask;
    }
    /* Backward-shift deletion: move later members of the probe run into the
     * hole when their home position allows it. */
    size_t hole = i;
    for (size_t j = (i + 1) & r->mask; r->slots[j]; j = (j + 1) & r->mask) {
        size_t h = home(r, r->ring[r->slots[j] - 1]);
        /* j may move to hole if h is not in the cyclic range (hole, j]. */
        bool in_range = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j);
        if (!in_range) {
            r->slots[hole] = r->slots[j];
            hole = j;
        }
    }
    r->slots[hole] = 0;
}

bool replay_check_and_add(replay_t *r, const unsigned char digest[REPLAY_DIGEST_LEN]) {
    return replay_check_and_add_at(r, digest, INT64_MIN);
}

bool replay_check_and_add_at(replay_t *r, const unsigned char digest[REPLAY_DIGEST_LEN], int64_t t) {
    if (r->horizon != INT64_MIN && t <= r->horizon) return true; /* older than what the set remembers */
    size_t i = home(r, digest);
    for (; r->slots[i]; i = (i + 1) & r->mask)
        if (memcmp(r->ring[r->slots[i] - 1], digest, REPLAY_DIGEST_LEN) == 0) return true;
    if (r->count == r->capacity) {
        index_remove(r, r->head); /* forget the oldest, remembering its date */
        if (r->dates[r->head] > r->horizon) r->horizon = r->dates[r->head];
        r->count--;
        /* the slot found above may have been shifted into: probe again */
        i = home(r, digest);
        while (r->slots[i]) i = (i + 1) & r->mask;
    }
    memcpy(r->ring[r->head], digest, REPLAY_DIGEST_LEN);
    r->dates[r->head] = t;
    r->slots[i] = (uint32_t)(r->head + 1);
    r->head = (r->head + 1) % r->capacity;
    r->count++;
    return false;
}

size_t replay_count(const replay_t *r) { return r->count; }
