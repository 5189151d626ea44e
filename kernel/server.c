/* Sockets, the poll loop and the executor thread (see server.h for the
 * design). Only the main thread touches the Jupyter sockets; the executor
 * talks to it through one inproc PAIR socket with four kinds of records:
 *   "M<channel>" + signed frames   a finished message to send on <channel>
 *   "S", name, text                 a piece of stream output (coalesced here)
 *   "A"                             a cell failed with stop_on_error: abort what
 *                                   is queued on shell (sent before its reply)
 *   "D"                             the request is done
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_timedjoin_np */
#endif
#include "server.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "fault_guard.h"
#include "handlers.h"
#include "heartbeat.h"
#include "log.h"
#include "outbox.h"
#include "parent_watch.h"
#include "runtime/base/utf8.h"
#include "runtime/base/xalloc.h"

#define MAX_FRAMES 1024               /* per message; more is malformed */
#define MAX_MESSAGE_BYTES (64LL << 20) /* a message's frames together; a bigger one is refused with an answer */
#define MAX_FRAME_BYTES (1LL << 30)   /* ZMQ_MAXMSGSIZE of shell and control: ZeroMQ drops a peer that sends
                                         a bigger frame before any of its message is read */
#define REPLY_BACKLOG_BYTES (1LL << 30) /* replies waiting for a channel's clients before it reads no more
                                           requests until they take them (ICUDA_REPLY_BACKLOG_BYTES) */
#define HELD_READ_BYTES (1LL << 30) /* requests read and kept while shell is held; past it shell is not read */
#define REPLAY_CAPACITY 65536         /* signatures remembered (2 MiB) */
#define STREAM_FLUSH_MS 50
#define PARENT_POLL_MS 500           /* how often an idle kernel looks for its parent */
#define STREAM_MAX_BYTES (64 * 1024)
#define EXIT_WAIT_MS 3000             /* how long a running cell may take to stop at shutdown */
#define EXIT_DRAIN_MS 1000            /* how long replies may wait for slow clients at shutdown */

/* One message as it came: within MAX_MESSAGE_BYTES, its frames; over it,
 * the request as far as its header was decoded (never copied whole).
 * bytes: its frames together as the client sent them (without the routing
 * id the ROUTER socket puts first). */
typedef struct inbound {
    wire_frames_t frames;
    request_t *oversized;
    bool no_memory; /* oversized holds one that fit the limit but not in memory */
    size_t bytes;
} inbound_t;

typedef struct pending {
    inbound_t in;
    bool aborting;
    struct pending *next;
} pending_t;

typedef struct server {
    void *ctx, *shell, *control, *iopub, *stdin_sock, *pipe_main, *pipe_exec;
    outbox_t *shell_out, *control_out; /* replies waiting for slow clients (outbox.h) */
    size_t backlog_max;                /* REPLY_BACKLOG_BYTES */
    bool shell_held;                   /* shell is not read: its backlog is over backlog_max */
    wire_t wire;
    replay_t *replay;
    kernel_state_t ks;
    bool quit;

    pthread_t exec_thread, hb_thread;
    bool exec_started, hb_started, session_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    request_t *job; /* handed to the executor */
    bool exec_quit;

    /* main thread's view of the executor */
    bool exec_busy;
    json_t *job_parent; /* copy of the running request's header */
    char stream_name[8];
    char *sbuf;
    size_t slen, scap;
    double sfirst_ms;
    pending_t *pend_head, *pend_tail; /* shell messages read while aborting or held, in order */
    size_t pend_bytes;                /* their frames' bytes */
    pid_t parent;                     /* the client that started us, watched (parent_watch.h) */
} server_t;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *socket_of(server_t *s, channel_t ch) {
    switch (ch) {
    case CH_SHELL: return s->shell;
    case CH_CONTROL: return s->control;
    case CH_IOPUB: return s->iopub;
    case CH_STDIN: return s->stdin_sock;
    }
    return NULL;
}

static void send_frames(void *sock, const wire_blob_t *f, size_t n) {
    for (size_t i = 0; i < n; i++) {
        int flags = i + 1 < n ? ZMQ_SNDMORE : 0;
        while (zmq_send(sock, f[i].data, f[i].len, flags) < 0) {
            if (errno == EINTR) continue;
            log_msg("send failed: %s", zmq_strerror(errno));
            return;
        }
    }
}

/* A message out on its channel (main thread). Shell and control replies go
 * through their outbox, which never drops one for a slow client; iopub is
 * PUB, which drops for a subscriber that is that far behind, by design. */
static void deliver(server_t *s, channel_t ch, const wire_blob_t *f, size_t n) {
    if (ch == CH_SHELL) outbox_send(s->shell_out, f, n);
    else if (ch == CH_CONTROL) outbox_send(s->control_out, f, n);
    else send_frames(socket_of(s, ch), f, n);
}

/* Encodes a message and sends it: directly on the main thread, through the
 * pipe from the executor. */
static void emit(server_t *s, bool from_executor, channel_t ch, const wire_frames_t *idents,
                 json_t *parent, const char *msg_type, json_t *content) {
    if (!content) {
        log_msg("%s not sent: its content could not be built", msg_type);
        return;
    }
    wire_frames_t topic = {0}, fr = {0};
    if (ch == CH_IOPUB) {
        char t[128];
        snprintf(t, sizeof t, "kernel.%s.%s", s->wire.session, msg_type);
        wire_frames_push(&topic, t, strlen(t));
        idents = &topic;
    }
    if (wire_encode(&s->wire, idents, msg_type, parent, NULL, content, &fr) != 0) {
        log_msg("%s not sent: it could not be encoded", msg_type);
    } else if (from_executor) {
        char head[2] = {'M', (char)ch};
        zmq_send(s->pipe_exec, head, 2, ZMQ_SNDMORE);
        send_frames(s->pipe_exec, fr.f, fr.n);
    } else {
        deliver(s, ch, fr.f, fr.n);
    }
    wire_frames_clear(&topic);
    wire_frames_clear(&fr);
    json_decref(content);
}

/* ---- the requests' port (request.h) ---- */

static void port_reply(request_t *rq, const char *msg_type, json_t *content) {
    server_t *s = rq->server;
    if (rq->abort_queue && rq->on_executor) {
        /* The queue is read before the reply leaves: only requests sent
         * before the client could know of the error are aborted; one sent
         * after it saw this reply is not. */
        zmq_send(s->pipe_exec, "A", 1, 0);
    }
    emit(s, rq->on_executor, rq->ch, &rq->msg.idents, rq->msg.header, msg_type, content);
}

static void port_publish(request_t *rq, const char *msg_type, json_t *content) {
    emit(rq->server, rq->on_executor, CH_IOPUB, NULL, rq->msg.header, msg_type, content);
}

static void port_stream(request_t *rq, const char *name, const char *text, size_t len) {
    server_t *s = rq->server;
    zmq_send(s->pipe_exec, "S", 1, ZMQ_SNDMORE);
    zmq_send(s->pipe_exec, name, strlen(name), ZMQ_SNDMORE);
    zmq_send(s->pipe_exec, text, len, 0);
}

static const request_port_t port = {port_reply, port_publish, port_stream};

static void publish_status(server_t *s, json_t *parent, const char *state) {
    emit(s, false, CH_IOPUB, NULL, parent, "status", json_pack("{s:s}", "execution_state", state));
}

/* ---- stream coalescing (main thread) ---- */

static void stream_flush(server_t *s, bool final) {
    if (!s->slen) return;
    size_t keep = final ? 0 : utf8_incomplete_tail(s->sbuf, s->slen);
    size_t tlen;
    char *text = utf8_sanitize(s->sbuf, s->slen - keep, &tlen);
    if (tlen)
        emit(s, false, CH_IOPUB, NULL, s->job_parent, "stream",
             json_pack("{s:s, s:s#}", "name", s->stream_name, "text", text, (int)tlen));
    free(text);
    memmove(s->sbuf, s->sbuf + s->slen - keep, keep);
    s->slen = keep;
    s->sfirst_ms = now_ms();
}

static void stream_append(server_t *s, const char *name, size_t nlen, const char *text,
                          size_t len) {
    if (nlen >= sizeof s->stream_name) nlen = sizeof s->stream_name - 1;
    if (s->slen && (strlen(s->stream_name) != nlen || memcmp(s->stream_name, name, nlen)))
        stream_flush(s, true);
    if (!s->slen) {
        memcpy(s->stream_name, name, nlen);
        s->stream_name[nlen] = 0;
        s->sfirst_ms = now_ms();
    }
    if (s->slen + len > s->scap) {
        size_t cap = s->scap ? s->scap : 4096;
        while (cap < s->slen + len) cap *= 2;
        char *b = xrealloc(s->sbuf, cap);
        s->sbuf = b;
        s->scap = cap;
    }
    memcpy(s->sbuf + s->slen, text, len);
    s->slen += len;
    if (s->slen >= STREAM_MAX_BYTES) stream_flush(s, false);
}

/* ---- receiving ---- */

/* Reads one multipart record of the executor's pipe. Returns 0, or -1 when
 * there is none. */
static int recv_pipe(void *sock, wire_frames_t *out) {
    int flags = ZMQ_DONTWAIT;
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, sock, flags) < 0) {
            int e = errno;
            zmq_msg_close(&m);
            if (e == EINTR && out->n) continue; /* finish a record begun */
            return -1;
        }
        flags = 0; /* the rest of a record is already here */
        wire_frames_push(out, zmq_msg_data(&m), zmq_msg_size(&m));
        int more = zmq_msg_more(&m);
        zmq_msg_close(&m);
        if (!more) return 0;
    }
}

static const char *channel_name(channel_t ch) {
    return ch == CH_SHELL ? "shell" : ch == CH_CONTROL ? "control" : ch == CH_STDIN ? "stdin" : "iopub";
}

static request_t *new_request(server_t *s, channel_t ch) {
    request_t *rq = xcalloc(1, sizeof *rq);
    rq->port = &port;
    rq->server = s;
    rq->ks = &s->ks;
    rq->ch = ch;
    return rq;
}

static void free_request(request_t *rq) {
    if (!rq) return;
    wire_msg_clear(&rq->msg);
    free(rq);
}

static void inbound_clear(inbound_t *in) {
    wire_frames_clear(&in->frames);
    free_request(in->oversized);
    memset(in, 0, sizeof *in);
}

/* A message over MAX_MESSAGE_BYTES, in ZeroMQ's own buffers: its signature
 * is checked and its header decoded (nothing else is parsed or copied), so
 * that its sender can be told. NULL, with a log line, when even that fails. */
static request_t *decode_oversized(server_t *s, channel_t ch, const wire_blob_t *f, size_t n,
                                   size_t bytes) {
    request_t *rq = new_request(s, ch);
    char why[256];
    wire_status_t st =
        wire_decode_header(&s->wire, s->replay, f, n, MAX_MESSAGE_BYTES, &rq->msg, why, sizeof why);
    if (st == WIRE_OK || st == WIRE_BAD_BODY) return rq;
    log_msg("message on %s of %zu bytes (more than the limit of %lld) dropped: %s", channel_name(ch), bytes,
            MAX_MESSAGE_BYTES, why);
    free_request(rq);
    return NULL;
}

/* Copies a message's frames into in->frames; false, with none kept, when
 * there is no memory for them (the message is then answered as an
 * oversized one is, from ZeroMQ's buffers). */
static bool copied(inbound_t *in, zmq_msg_t *parts, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!wire_frames_try_push(&in->frames, zmq_msg_data(&parts[i]), zmq_msg_size(&parts[i]))) {
            wire_frames_clear(&in->frames);
            return false;
        }
    return true;
}

/* Reads one message from sock into in. Returns false when there is none to
 * read. ZeroMQ hands a message over whole, every frame in memory. One of
 * more than MAX_FRAMES frames is dropped with a log line (in stays empty);
 * one within MAX_MESSAGE_BYTES is copied into in->frames; a bigger one, or
 * one there is no memory to copy, is decoded as far as its header
 * (decode_oversized), never copied; stdin's
 * are read only to be ignored. */
static bool recv_inbound(server_t *s, void *sock, channel_t ch, inbound_t *in) {
    memset(in, 0, sizeof *in);
    zmq_msg_t *parts = NULL;
    size_t n = 0, cap = 0, total = 0;
    bool broken = false;
    int flags = ZMQ_DONTWAIT;
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, sock, flags) < 0) {
            int e = errno;
            zmq_msg_close(&m);
            if (total == 0) return false;
            if (e == EINTR) continue; /* finish a message begun */
            log_msg("message on %s dropped after %zu frames: %s", channel_name(ch), total, zmq_strerror(e));
            broken = true;
            break;
        }
        flags = 0; /* the rest of a message is already here */
        if (total++) in->bytes += zmq_msg_size(&m); /* the routing id ROUTER put first is not the client's */
        int more = zmq_msg_more(&m);
        if (n < MAX_FRAMES) {
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                parts = xreallocarray(parts, cap, sizeof *parts);
            }
            zmq_msg_init(&parts[n]);
            zmq_msg_move(&parts[n++], &m);
        }
        zmq_msg_close(&m);
        if (!more) break;
    }
    if (broken || ch == CH_STDIN) {
    } else if (total > MAX_FRAMES) {
        log_msg("message on %s dropped: %zu frames, more than %d", channel_name(ch), total, MAX_FRAMES);
    } else if (in->bytes > MAX_MESSAGE_BYTES || !copied(in, parts, n)) {
        in->no_memory = in->bytes <= MAX_MESSAGE_BYTES;
        wire_blob_t *f = xcalloc(n, sizeof *f);
        for (size_t i = 0; i < n; i++) f[i] = (wire_blob_t){zmq_msg_data(&parts[i]), zmq_msg_size(&parts[i])};
        in->oversized = decode_oversized(s, ch, f, n, in->bytes);
        free(f);
    }
    for (size_t i = 0; i < n; i++) zmq_msg_close(&parts[i]);
    free(parts);
    return true;
}

static void submit(server_t *s, request_t *rq) {
    s->job_parent = json_deep_copy(rq->msg.header);
    publish_status(s, s->job_parent, "busy");
    rq->on_executor = true;
    s->exec_busy = true;
    pthread_mutex_lock(&s->mu);
    s->job = rq;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* One message from shell or control: decode, then answer here or hand it to
 * the executor. aborting: it was queued behind a cell that failed. */
static void handle_incoming(server_t *s, channel_t ch, wire_frames_t *frames, bool aborting) {
    const char *chname = channel_name(ch);
    request_t *rq = new_request(s, ch);
    char why[256];
    wire_status_t st = wire_decode(&s->wire, s->replay, frames->f, frames->n, &rq->msg, why,
                                   sizeof why);
    if (st != WIRE_OK) {
        if (st == WIRE_BAD_BODY && request_type_is_request(rq->msg.msg_type)) {
            log_msg("bad %s on %s: %s; answered with an error", rq->msg.msg_type, chname, why);
            publish_status(s, rq->msg.header, "busy");
            reply_error(rq, rq->msg.no_memory ? "MemoryError" : "BadRequest", why);
            publish_status(s, rq->msg.header, "idle");
        } else {
            log_msg("message on %s dropped: %s", chname, why);
        }
        goto done;
    }
    const handler_entry_t *h = handlers_find(rq->msg.msg_type);
    if (h && h->on_executor) {
        if (ch != CH_SHELL) {
            publish_status(s, rq->msg.header, "busy");
            snprintf(why, sizeof why, "%s is answered on the shell channel only", rq->msg.msg_type);
            log_msg("%s", why);
            reply_error(rq, "BadRequest", why);
            publish_status(s, rq->msg.header, "idle");
            goto done;
        }
        if (aborting && strcmp(rq->msg.msg_type, "execute_request") == 0) {
            publish_status(s, rq->msg.header, "busy");
            reply_aborted(rq);
            publish_status(s, rq->msg.header, "idle");
            goto done;
        }
        submit(s, rq);
        return;
    }
    publish_status(s, rq->msg.header, "busy");
    if (h) h->fn(rq);
    else handle_unknown(rq);
    publish_status(s, rq->msg.header, "idle");
    if (s->ks.shutdown) s->quit = true;
done:
    free_request(rq);
}

/* A request over MAX_MESSAGE_BYTES, or one the kernel had no memory to
 * copy: never run, always answered (with the error on iopub too for a
 * cell, where a notebook shows it). */
static void answer_oversized(server_t *s, request_t *rq, size_t bytes, bool no_memory) {
    const char *type = rq->msg.msg_type, *ename = no_memory ? "MemoryError" : "MessageTooLarge";
    if (no_memory)
        log_msg("%s on %s refused: no memory left for its %zu bytes", type, channel_name(rq->ch), bytes);
    else
        log_msg("%s on %s refused: %zu bytes, more than the limit of %lld", type, channel_name(rq->ch), bytes,
                MAX_MESSAGE_BYTES);
    if (!request_type_is_request(type)) return;
    char why[300];
    if (no_memory)
        snprintf(why, sizeof why, "the kernel has no memory left to receive the %s (%zu bytes, %.1f MiB); it was "
                 "not run, and the session is as it was", type, bytes, bytes / 1048576.0);
    else
        snprintf(why, sizeof why,
                 "the %s is %zu bytes (%.1f MiB), more than the %lld bytes (%lld MiB) a message to the kernel may "
                 "have; it was not run",
                 type, bytes, bytes / 1048576.0, MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES >> 20);
    publish_status(s, rq->msg.header, "busy");
    if (strcmp(type, "execute_request") == 0) {
        char line[400];
        snprintf(line, sizeof line, "%s: %s", ename, why);
        request_publish(rq, "error", json_pack("{s:s, s:s, s:[s]}", "ename", ename, "evalue", why,
                                               "traceback", line));
    }
    reply_error(rq, ename, why);
    publish_status(s, rq->msg.header, "idle");
}

static void handle_inbound(server_t *s, channel_t ch, inbound_t *in, bool aborting) {
    if (in->oversized) answer_oversized(s, in->oversized, in->bytes, in->no_memory);
    else if (in->frames.n) handle_incoming(s, ch, &in->frames, aborting);
    inbound_clear(in);
}

static size_t kept_bytes(const inbound_t *in) { return in->frames.n ? in->bytes : 0; }

/* Keeps a shell message, to be handled in order when shell is next open. */
static void pend(server_t *s, inbound_t *in, bool aborting) {
    if (!in->frames.n && !in->oversized) return; /* dropped (logged) */
    pending_t *p = xcalloc(1, sizeof *p);
    p->in = *in;
    p->aborting = aborting;
    s->pend_bytes += kept_bytes(in);
    if (s->pend_tail) s->pend_tail->next = p;
    else s->pend_head = p;
    s->pend_tail = p;
}

/* After a cell failed with stop_on_error: everything already waiting on
 * shell is read now, and its execute_requests are answered "aborted"
 * (ipykernel's behaviour); other requests are answered normally, in order. */
static void drain_shell_for_abort(server_t *s) {
    inbound_t in;
    while (recv_inbound(s, s->shell, CH_SHELL, &in)) pend(s, &in, true);
}

/* One record from the executor. */
static void on_pipe(server_t *s) {
    wire_frames_t fr = {0};
    if (recv_pipe(s->pipe_main, &fr) != 0) return;
    if (fr.n == 0) goto out;
    const char *head = fr.f[0].data;
    if (head[0] == 'M' && fr.f[0].len == 2) {
        stream_flush(s, true); /* keep output in the order the cell made it */
        deliver(s, (channel_t)head[1], fr.f + 1, fr.n - 1);
    } else if (head[0] == 'S' && fr.n == 3) {
        stream_append(s, fr.f[1].data, fr.f[1].len, fr.f[2].data, fr.f[2].len);
    } else if (head[0] == 'A' && fr.f[0].len == 1) {
        drain_shell_for_abort(s);
    } else if (head[0] == 'D' && fr.f[0].len == 1) {
        stream_flush(s, true);
        publish_status(s, s->job_parent, "idle");
        json_decref(s->job_parent);
        s->job_parent = NULL;
        s->exec_busy = false;
    }
out:
    wire_frames_clear(&fr);
}

/* ---- executor thread ---- */

/* The last resort (fault_guard.h): the request that faulted gets an error,
 * the session is discarded (ended under the guard if that works, else left
 * as it is) and a fresh one takes its place. */
static void after_fault(server_t *s, request_t *rq, const fault_guard_t *g) {
    char why[400];
    snprintf(why, sizeof why,
             "the kernel hit an internal fault (%s at %p) while running this request; the session's state "
             "(everything its cells defined) was discarded and a fresh session started. Please report it.",
             fault_guard_signame(g->sig), g->addr);
    log_msg("internal fault: %s at %p in %s; starting a fresh session", fault_guard_signame(g->sig), g->addr,
            rq->msg.msg_type);
    const language_t *lang = s->ks.lang;
    fault_guard_t again;
    if (sigsetjmp(again.jb, 1) == 0) {
        fault_guard_arm(&again);
        lang->session_end(lang->ctx);
    } else {
        log_msg("the faulted session could not be ended (%s): left as it is", fault_guard_signame(again.sig));
    }
    fault_guard_disarm();
    if (!lang->session_start(lang->ctx)) log_msg("no fresh session could be started");
    bool execute = strcmp(rq->msg.msg_type, "execute_request") == 0;
    rq->abort_queue = execute; /* what was queued behind it counted on the lost session */
    if (execute)
        request_publish(rq, "error", json_pack("{s:s, s:s, s:[s]}", "ename", "InternalError", "evalue", why,
                                               "traceback", "InternalError: see the message above"));
    reply_error(rq, "InternalError", why);
}

static void *executor_loop(void *arg) {
    server_t *s = arg;
    const language_t *lang = s->ks.lang;
    if (lang->warm_up) lang->warm_up(lang->ctx);
    bool guard = fault_guard_install();
    if (guard) fault_guard_thread_init();
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->job && !s->exec_quit) pthread_cond_wait(&s->cv, &s->mu);
        request_t *volatile rq = s->job;
        s->job = NULL;
        pthread_mutex_unlock(&s->mu);
        if (!rq) break;
        fault_guard_t g;
        if (!guard) {
            handlers_find(rq->msg.msg_type)->fn(rq);
        } else if (sigsetjmp(g.jb, 1) == 0) {
            fault_guard_arm(&g);
            handlers_find(rq->msg.msg_type)->fn(rq);
            fault_guard_disarm();
        } else {
            after_fault(s, rq, &g);
        }
        wire_msg_clear(&rq->msg);
        free(rq);
        zmq_send(s->pipe_exec, "D", 1, 0);
    }
    if (guard) fault_guard_thread_exit();
    return NULL;
}

/* ---- set-up and tear-down ---- */

/* A positive whole number from the environment, or dflt. */
static long long env_size(const char *name, long long dflt) {
    const char *v = getenv(name);
    if (!v || !*v) return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    if (*end || x <= 0) {
        log_msg("%s=%s is not a positive whole number: %lld used", name, v, dflt);
        return dflt;
    }
    return x;
}

/* replies: shell or control, whose replies must never be dropped: ZeroMQ
 * says EAGAIN when a client's pipe is full (ZMQ_ROUTER_MANDATORY) and the
 * outbox keeps them; max_frame: ZMQ_MAXMSGSIZE. */
static void *bind_socket(server_t *s, const connection_t *c, int type, int port,
                         const char *name, bool replies, int64_t max_frame) {
    void *sk = zmq_socket(s->ctx, type);
    if (!sk) {
        log_msg("cannot create the %s socket: %s", name, zmq_strerror(errno));
        return NULL;
    }
    int linger = 1000;
    zmq_setsockopt(sk, ZMQ_MAXMSGSIZE, &max_frame, sizeof max_frame);
    zmq_setsockopt(sk, ZMQ_LINGER, &linger, sizeof linger);
    if (type == ZMQ_ROUTER) {
        /* A client that reconnects under its old identity (a Jupyter server
         * or gateway reuses the websocket's session id as the identity of
         * its sockets) takes the identity over: without this the router
         * keeps routing replies to the stale connection until it closes,
         * and the new one never hears an answer. */
        int on = 1;
        zmq_setsockopt(sk, ZMQ_ROUTER_HANDOVER, &on, sizeof on);
    }
    if (replies) {
        int on = 1;
        /* ZeroMQ's own queue per client (1,000 messages unless tests lower it) */
        long long want = env_size("ICUDA_REPLY_HWM", 1000);
        int hwm = want > INT_MAX ? INT_MAX : (int)want;
        zmq_setsockopt(sk, ZMQ_ROUTER_MANDATORY, &on, sizeof on);
        zmq_setsockopt(sk, ZMQ_SNDHWM, &hwm, sizeof hwm);
    }
    if (strchr(c->ip, ':')) {
        int on = 1; /* an IPv6 address in the connection file */
        zmq_setsockopt(sk, ZMQ_IPV6, &on, sizeof on);
    }
    char ep[400];
    connection_endpoint(c, port, ep, sizeof ep);
    if (zmq_bind(sk, ep) != 0) {
        log_msg("cannot bind the %s socket to %s: %s", name, ep, zmq_strerror(errno));
        zmq_close(sk);
        return NULL;
    }
    return sk;
}

static const language_t *sigint_lang; /* what SIGINT interrupts */

static void on_sigint(int sig) {
    (void)sig;
    if (sigint_lang) sigint_lang->interrupt(sigint_lang->ctx);
}

static void close_main_sockets(server_t *s) {
    void **socks[] = {&s->shell, &s->control, &s->iopub, &s->stdin_sock, &s->pipe_main};
    for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++)
        if (*socks[i]) {
            zmq_close(*socks[i]);
            *socks[i] = NULL;
        }
}

/* Sends what waits for slow clients, for at most ms milliseconds (at the
 * end: the clients may still be reading). */
static void drain_outboxes(server_t *s, long ms) {
    double deadline = now_ms() + ms;
    for (;;) {
        outbox_flush(s->shell_out);
        outbox_flush(s->control_out);
        long a = outbox_retry_ms(s->shell_out), b = outbox_retry_ms(s->control_out);
        if (a < 0 && b < 0) return;
        long wait = a < 0 ? b : b < 0 ? a : a < b ? a : b;
        if (now_ms() + wait > deadline) return;
        usleep((useconds_t)wait * 1000);
    }
}

/* Shell's requests run only while its clients' waiting replies are under
 * backlog_max: past it (held) requests are read and kept, up to
 * HELD_READ_BYTES, then left in ZeroMQ's queues (and the clients' sends)
 * until the replies are taken. They are read at all because ZeroMQ lets a
 * client that has gone go (sends to it fail, its replies can be dropped)
 * only once its requests have been read to the end. Control, stdin, the
 * heartbeat and interrupts are served all the while. */
static bool shell_open(server_t *s) {
    bool over = outbox_bytes(s->shell_out) >= s->backlog_max;
    if (over != s->shell_held)
        log_msg(over ? "shell: %zu bytes of replies wait for clients that do not read them; no more requests are "
                       "run until they do"
                     : "shell: %zu bytes of replies wait; running requests again",
                outbox_bytes(s->shell_out));
    s->shell_held = over;
    return !over && !s->exec_busy; /* and shell waits while a request runs */
}

static void main_loop(server_t *s) {
    while (!s->quit) {
        outbox_flush(s->shell_out);
        outbox_flush(s->control_out);
        bool shell = shell_open(s);
        if (shell && s->pend_head) {
            pending_t *p = s->pend_head;
            s->pend_head = p->next;
            if (!s->pend_head) s->pend_tail = NULL;
            s->pend_bytes -= kept_bytes(&p->in);
            handle_inbound(s, CH_SHELL, &p->in, p->aborting);
            free(p);
            continue;
        }
        zmq_pollitem_t items[4] = {{s->pipe_main, 0, ZMQ_POLLIN, 0}};
        channel_t chs[4] = {0};
        int n = 1;
        if (outbox_bytes(s->control_out) < s->backlog_max) {
            items[n] = (zmq_pollitem_t){s->control, 0, ZMQ_POLLIN, 0};
            chs[n++] = CH_CONTROL;
        }
        items[n] = (zmq_pollitem_t){s->stdin_sock, 0, ZMQ_POLLIN, 0};
        chs[n++] = CH_STDIN;
        if (shell || (s->shell_held && !s->exec_busy && s->pend_bytes < HELD_READ_BYTES)) {
            items[n] = (zmq_pollitem_t){s->shell, 0, ZMQ_POLLIN, 0};
            chs[n++] = CH_SHELL;
        }
        long timeout = s->parent ? PARENT_POLL_MS : -1;
        if (s->slen) {
            double left = s->sfirst_ms + STREAM_FLUSH_MS - now_ms();
            timeout = left < 1 ? 1 : (long)left;
        }
        long retry[2] = {outbox_retry_ms(s->shell_out), outbox_retry_ms(s->control_out)};
        for (int i = 0; i < 2; i++)
            if (retry[i] >= 0 && (timeout < 0 || retry[i] < timeout)) timeout = retry[i];
        if (zmq_poll(items, n, timeout) < 0) {
            if (errno == EINTR) continue;
            log_msg("poll failed: %s", zmq_strerror(errno));
            break;
        }
        if (s->slen && now_ms() - s->sfirst_ms >= STREAM_FLUSH_MS) stream_flush(s, false);
        if (parent_watch_gone(s->parent)) {
            log_msg("the process that started the kernel (pid %d) has gone: shutting down", (int)s->parent);
            s->quit = true;
            break;
        }
        if (items[0].revents & ZMQ_POLLIN) on_pipe(s);
        for (int i = 1; i < n; i++) {
            if (!(items[i].revents & ZMQ_POLLIN)) continue;
            if (chs[i] == CH_SHELL && s->exec_busy) continue; /* the pipe record may have changed it */
            inbound_t in;
            if (!recv_inbound(s, items[i].socket, chs[i], &in)) continue;
            if (chs[i] == CH_STDIN) log_msg("message on stdin ignored: icuda never asks for input");
            if (chs[i] == CH_SHELL && s->shell_held) pend(s, &in, false);
            else handle_inbound(s, chs[i], &in, false);
            if (s->quit) break;
        }
    }
}

/* Lets a running cell stop (it was interrupted) and the executor end. Returns
 * false if it would not stop in time. */
static bool stop_executor(server_t *s) {
    if (s->exec_busy) s->ks.lang->interrupt(s->ks.lang->ctx);
    double deadline = now_ms() + EXIT_WAIT_MS;
    while (s->exec_busy && now_ms() < deadline) {
        zmq_pollitem_t it = {s->pipe_main, 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&it, 1, 50) > 0) on_pipe(s);
    }
    pthread_mutex_lock(&s->mu);
    s->exec_quit = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 2;
    return pthread_timedjoin_np(s->exec_thread, NULL, &ts) == 0;
}

int server_main(const connection_t *conn, const language_t *lang) {
    server_t *s = xcalloc(1, sizeof *s);
    int status = 1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);

    /* SIGINT goes to the main thread only: every thread made from here on
     * (zmq's, heartbeat, executor) inherits the blocked mask. */
    sigset_t intr, old;
    sigemptyset(&intr);
    sigaddset(&intr, SIGINT);
    pthread_sigmask(SIG_BLOCK, &intr, &old);
    signal(SIGPIPE, SIG_IGN);

    s->parent = parent_watch_pid();
    s->ctx = zmq_ctx_new();
    wire_init(&s->wire, conn->key);
    s->replay = replay_new(REPLAY_CAPACITY);
    if (!s->wire.key_len) log_msg("the connection file has no key: messages are not signed");

    s->shell = bind_socket(s, conn, ZMQ_ROUTER, conn->shell_port, "shell", true, MAX_FRAME_BYTES);
    s->control = bind_socket(s, conn, ZMQ_ROUTER, conn->control_port, "control", true, MAX_FRAME_BYTES);
    s->iopub = bind_socket(s, conn, ZMQ_PUB, conn->iopub_port, "iopub", false, MAX_MESSAGE_BYTES);
    s->stdin_sock = bind_socket(s, conn, ZMQ_ROUTER, conn->stdin_port, "stdin", false, MAX_FRAME_BYTES);
    void *hb = bind_socket(s, conn, ZMQ_REP, conn->hb_port, "heartbeat", false, MAX_MESSAGE_BYTES);
    s->shell_out = s->shell ? outbox_new(s->shell, "shell") : NULL;
    s->control_out = s->control ? outbox_new(s->control, "control") : NULL;
    s->backlog_max = (size_t)env_size("ICUDA_REPLY_BACKLOG_BYTES", REPLY_BACKLOG_BYTES);
    if (!s->shell_out || !s->control_out || !s->iopub || !s->stdin_sock || !hb || !s->replay) {
        if (hb) zmq_close(hb);
        goto out;
    }
    s->hb_started = heartbeat_start(hb, &s->hb_thread) == 0;
    if (!s->hb_started) {
        zmq_close(hb);
        goto out;
    }

    char pipe_ep[64];
    snprintf(pipe_ep, sizeof pipe_ep, "inproc://icuda-executor-%p", (void *)s);
    s->pipe_main = zmq_socket(s->ctx, ZMQ_PAIR);
    s->pipe_exec = zmq_socket(s->ctx, ZMQ_PAIR);
    int hwm = 0; /* unbounded: the executor must never block on its own output */
    zmq_setsockopt(s->pipe_main, ZMQ_RCVHWM, &hwm, sizeof hwm);
    zmq_setsockopt(s->pipe_exec, ZMQ_SNDHWM, &hwm, sizeof hwm);
    if (zmq_bind(s->pipe_main, pipe_ep) != 0 || zmq_connect(s->pipe_exec, pipe_ep) != 0) {
        log_msg("cannot set up the executor pipe: %s", zmq_strerror(errno));
        goto out;
    }

    s->ks.lang = lang;
    s->ks.history = history_new();
    s->session_started = lang->session_start(lang->ctx);
    if (!s->session_started || !s->ks.history) {
        log_msg("cannot start a session");
        goto out;
    }
    if (pthread_create(&s->exec_thread, NULL, executor_loop, s) != 0) {
        log_msg("cannot start the executor thread");
        goto out;
    }
    s->exec_started = true;

    sigint_lang = lang;
    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    json_t *info = lang->kernel_info ? lang->kernel_info(lang->ctx) : NULL;
    const char *name = json_string_value(json_object_get(info, "implementation"));
    const char *version = json_string_value(json_object_get(info, "implementation_version"));
    log_msg("%s %s ready (protocol %s, pid %d)", name ? name : "kernel", version ? version : "",
            WIRE_PROTOCOL_VERSION, (int)getpid());
    json_decref(info);
    main_loop(s);
    status = 0;
    log_msg("shutting down%s", s->ks.restart ? " (restart requested)" : "");

out:
    if (s->exec_started && !stop_executor(s)) {
        /* A cell that ignores interrupts: the replies are queued; give zmq a
         * moment to send them, then leave without waiting for the cell. */
        log_msg("the running cell did not stop; exiting without it");
        stream_flush(s, true);
        drain_outboxes(s, EXIT_DRAIN_MS);
        close_main_sockets(s);
        usleep(200 * 1000);
        _exit(status);
    }
    /* nothing runs now that an interrupt could stop, and lang is the
     * caller's again once this returns */
    signal(SIGINT, SIG_IGN);
    sigint_lang = NULL;
    if (!s->exec_started && s->pipe_exec) zmq_close(s->pipe_exec);
    else if (s->pipe_exec) zmq_close(s->pipe_exec); /* the executor has ended */
    s->pipe_exec = NULL;
    if (s->shell_out && s->control_out) drain_outboxes(s, EXIT_DRAIN_MS);
    close_main_sockets(s);
    zmq_ctx_shutdown(s->ctx); /* ends the heartbeat thread's blocking recv */
    if (s->hb_started) pthread_join(s->hb_thread, NULL);
    zmq_ctx_term(s->ctx); /* waits (up to the linger) for queued replies */
    if (s->session_started) lang->session_end(lang->ctx);
    history_free(s->ks.history);
    replay_free(s->replay);
    wire_free(&s->wire);
    while (s->pend_head) {
        pending_t *p = s->pend_head;
        s->pend_head = p->next;
        inbound_clear(&p->in);
        free(p);
    }
    outbox_free(s->shell_out);
    outbox_free(s->control_out);
    json_decref(s->job_parent);
    free(s->sbuf);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
    return status;
}

int server_run(const char *connection_file, const language_t *lang) {
    connection_t conn;
    char why[512];
    if (connection_load(connection_file, &conn, why, sizeof why) != 0) {
        log_msg("bad connection file: %s", why);
        return 1;
    }
    int status = server_main(&conn, lang);
    connection_free(&conn);
    return status;
}
