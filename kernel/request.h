/* One request being answered, and the way its answers leave: a handler
 * replies, publishes and streams through these functions without knowing
 * the sockets or the threads; the server gives each request the port that
 * carries its messages out. */
#ifndef ICUDA_REQUEST_H
#define ICUDA_REQUEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "wire.h"

typedef enum channel { CH_SHELL, CH_CONTROL, CH_IOPUB, CH_STDIN } channel_t;

typedef struct request request_t;
typedef struct kernel_state kernel_state_t;

/* How a request's messages leave. Each takes ownership of content. */
typedef struct request_port {
    /* msg_type on the request's own channel, to its sender. */
    void (*reply)(request_t *rq, const char *msg_type, json_t *content);
    /* msg_type on iopub, with the request as parent. */
    void (*publish)(request_t *rq, const char *msg_type, json_t *content);
    /* A piece of a running cell's stream output (executor thread only). */
    void (*stream)(request_t *rq, const char *name, const char *text, size_t len);
} request_port_t;

struct request {
    const request_port_t *port;
    void *server; /* the port's own */
    kernel_state_t *ks;
    wire_msg_t msg;
    channel_t ch;
    bool on_executor;
    bool abort_queue; /* set by a handler: an error with stop_on_error */
};

/* The reply to rq on its own channel: msg_type is the request's with
 * "_request" replaced by "_reply". Takes ownership of content. */
void request_reply(request_t *rq, json_t *content);
/* An iopub message with rq as parent. Takes ownership of content. */
void request_publish(request_t *rq, const char *msg_type, json_t *content);
/* Stream output of a running cell (executor thread only). The server
 * coalesces consecutive pieces into one stream message (flushed within
 * 50 ms, at any other output, and at the end of the request). */
void request_stream(request_t *rq, const char *name, const char *text, size_t len);

/* "*_request" */
bool request_type_is_request(const char *msg_type);

#endif
