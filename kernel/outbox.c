/* Replies waiting for their client (see outbox.h): one queue per client
 * that has any, in a short list (a client has a queue only while it reads
 * slower than the kernel answers). */
#include "outbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "log.h"
#include "runtime/base/xalloc.h"

#define RETRY_MIN_MS 1
#define RETRY_MAX_MS 100

typedef struct waiting {
    wire_frames_t frames;
    size_t bytes;
    struct waiting *next;
} waiting_t;

typedef struct peer {
    waiting_t *head, *tail; /* head->frames.f[0] is the client's routing id */
    size_t count;
    struct peer *next;
} peer_t;

struct outbox {
    void *sock;
    char name[16];
    peer_t *peers;
    size_t bytes;
    long retry_ms;
    bool quiet;      /* a drop was logged: the next ones are counted */
    size_t unlogged; /* drops counted, not yet logged */
};

typedef enum { SENT, FULL, GONE } sent_t;

/* One message, every frame without waiting. ROUTER refuses a message at its
 * first frame (the routing id) or not at all, so FULL and GONE leave
 * nothing half sent. */
static sent_t try_send(outbox_t *o, const wire_blob_t *f, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int flags = ZMQ_DONTWAIT | (i + 1 < n ? ZMQ_SNDMORE : 0);
        while (zmq_send(o->sock, f[i].data, f[i].len, flags) < 0) {
            if (errno == EINTR) continue;
            if (i == 0 && errno == EAGAIN) return FULL;
            if (i > 0 || errno != EHOSTUNREACH)
                log_msg("%s: a reply could not be sent: %s", o->name, zmq_strerror(errno));
            return GONE;
        }
    }
    return SENT;
}

/* A client that left usually leaves requests behind, each answered into
 * the void: the first drop is logged at once, the rest as one count when
 * a reply is next delivered (or at the end). */
static void dropped(outbox_t *o, size_t n) {
    if (o->quiet) {
        o->unlogged += n;
        return;
    }
    log_msg("%s: %zu repl%s to a client that has gone dropped", o->name, n, n == 1 ? "y" : "ies");
    o->quiet = true;
}

static void log_unlogged(outbox_t *o) {
    if (o->unlogged) log_msg("%s: %zu more replies to clients that had gone dropped", o->name, o->unlogged);
    o->unlogged = 0;
    o->quiet = false;
}

static bool same_blob(const wire_blob_t *a, const wire_blob_t *b) {
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static peer_t *find_peer(const outbox_t *o, const wire_blob_t *id) {
    for (peer_t *p = o->peers; p; p = p->next)
        if (same_blob(&p->head->frames.f[0], id)) return p;
    return NULL;
}

static void pop(outbox_t *o, peer_t *p) {
    waiting_t *w = p->head;
    p->head = w->next;
    if (!p->head) p->tail = NULL;
    p->count--;
    o->bytes -= w->bytes;
    wire_frames_clear(&w->frames);
    free(w);
}

outbox_t *outbox_new(void *sock, const char *name) {
    outbox_t *o = xcalloc(1, sizeof *o);
    o->sock = sock;
    snprintf(o->name, sizeof o->name, "%s", name);
    o->retry_ms = RETRY_MIN_MS;
    return o;
}

void outbox_free(outbox_t *o) {
    if (!o) return;
    size_t left = 0;
    while (o->peers) {
        peer_t *p = o->peers;
        left += p->count;
        while (p->head) pop(o, p);
        o->peers = p->next;
        free(p);
    }
    log_unlogged(o);
    if (left) log_msg("%s: %zu replies were never taken by their clients", o->name, left);
    free(o);
}

void outbox_send(outbox_t *o, const wire_blob_t *f, size_t n) {
    if (n == 0) return;
    peer_t *p = find_peer(o, &f[0]);
    if (!p) {
        sent_t r = try_send(o, f, n);
        if (r == SENT) {
            if (o->quiet) log_unlogged(o);
            return;
        }
        if (r == GONE) {
            dropped(o, 1);
            return;
        }
        p = xcalloc(1, sizeof *p);
        p->next = o->peers;
        o->peers = p;
        if (!p->next) o->retry_ms = RETRY_MIN_MS;
    }
    waiting_t *w = xcalloc(1, sizeof *w);
    for (size_t i = 0; i < n; i++) {
        wire_frames_push(&w->frames, f[i].data, f[i].len);
        w->bytes += f[i].len;
    }
    if (p->tail) p->tail->next = w;
    else p->head = w;
    p->tail = w;
    p->count++;
    o->bytes += w->bytes;
}

void outbox_flush(outbox_t *o) {
    bool progress = false, sent = false;
    for (peer_t **pp = &o->peers; *pp;) {
        peer_t *p = *pp;
        sent_t r = SENT;
        while (p->head && (r = try_send(o, p->head->frames.f, p->head->frames.n)) == SENT) {
            pop(o, p);
            progress = sent = true;
        }
        if (r == GONE) {
            dropped(o, p->count);
            while (p->head) pop(o, p);
            progress = true;
        }
        if (!p->head) {
            *pp = p->next;
            free(p);
        } else {
            pp = &p->next;
        }
    }
    if (sent && o->quiet) log_unlogged(o);
    if (progress) o->retry_ms = RETRY_MIN_MS;
    else if (o->retry_ms < RETRY_MAX_MS) o->retry_ms = o->retry_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : o->retry_ms * 2;
}

size_t outbox_bytes(const outbox_t *o) { return o->bytes; }

long outbox_retry_ms(const outbox_t *o) { return o->peers ? o->retry_ms : -1; }
