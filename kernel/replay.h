/* The signatures of messages already seen, so that a captured message sent
 * again is dropped (messaging spec: "replay attack"). Memory is bounded: the
 * set remembers the last `capacity` signatures and forgets the oldest. */
#ifndef ICUDA_REPLAY_H
#define ICUDA_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPLAY_DIGEST_LEN 32

typedef struct replay replay_t;

replay_t *replay_new(size_t capacity);
void replay_free(replay_t *r);
/* Records a digest; returns true if it was already in the set (a replay). */
bool replay_check_and_add(replay_t *r, const unsigned char digest[REPLAY_DIGEST_LEN]);
/* The same for a message dated t (microseconds since the epoch, from its
 * header; INT64_MIN when it has none). The set forgets its oldest digests,
 * but never silently: it keeps the latest date it has forgotten (the
 * horizon), and a message dated at or before it is refused as a possible
 * replay, since the set can no longer tell. So a replay is refused however
 * many messages came between, in bounded memory; what the window costs is
 * that a message dated earlier than the horizon (a client whose clock lags
 * by more than the window's age) is refused too. docs/reliability.md. */
bool replay_check_and_add_at(replay_t *r, const unsigned char digest[REPLAY_DIGEST_LEN], int64_t t);
size_t replay_count(const replay_t *r);

#endif
