/* The signatures of messages already seen, so that a captured message sent
 * again is dropped (messaging spec: "replay attack"). Memory is bounded: the
 * set remembers the last `capacity` signatures and forgets the oldest. */
#ifndef ICUDA_REPLAY_H
#define ICUDA_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#define REPLAY_DIGEST_LEN 32

typedef struct replay replay_t;

replay_t *replay_new(size_t capacity);
void replay_free(replay_t *r);
/* Records a digest; returns true if it was already in the set (a replay). */
bool replay_check_and_add(replay_t *r, const unsigned char digest[REPLAY_DIGEST_LEN]);
size_t replay_count(const replay_t *r);

#endif
