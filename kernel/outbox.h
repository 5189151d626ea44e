/* Replies that wait for their client. A ROUTER socket (shell, control)
 * set to ZMQ_ROUTER_MANDATORY answers EAGAIN instead of dropping a message
 * when a client's pipe is full (the client reads slower than the kernel
 * answers); such a message waits here, behind any others for the same
 * client, in the order it was made, and leaves when the pipe has room.
 * Clients are independent: one that does not read holds back only its own
 * replies. The only message dropped is one addressed to a client that has
 * gone (EHOSTUNREACH), with a log line. Main thread only. */
#ifndef ICUDA_OUTBOX_H
#define ICUDA_OUTBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "wire.h"

typedef struct outbox outbox_t;

/* sock: a ROUTER socket with ZMQ_ROUTER_MANDATORY set; name for the log. */
outbox_t *outbox_new(void *sock, const char *name);
/* Frees what still waits (the caller has given it its chance: outbox_flush). */
void outbox_free(outbox_t *o);

/* Sends a message whose first frame is the client's routing id, now if the
 * client's pipe has room and nothing of its own waits, else copies it into
 * the queue. */
void outbox_send(outbox_t *o, const wire_blob_t *frames, size_t n);

/* Sends what waits, as far as the clients' pipes take it. */
void outbox_flush(outbox_t *o);

/* Bytes of the messages waiting (frames' payloads). */
size_t outbox_bytes(const outbox_t *o);

/* How long to wait before the next outbox_flush: -1 when nothing waits;
 * else 1 ms after a flush that sent something, doubling up to 100 ms while
 * a client reads nothing (ZeroMQ's POLLOUT on a ROUTER says only that some
 * client has room, so it cannot wake the kernel for one that is full). */
long outbox_retry_ms(const outbox_t *o);

#endif
