/* The kernel's sockets and threads. The main thread owns every zmq socket:
 * it always polls control, and polls shell only while no cell runs. Cells
 * (and the other engine requests) run on one executor thread, which never
 * touches a Jupyter socket: it hands signed frames to the main thread through
 * an inproc PAIR socket. The heartbeat echoes on a thread of its own. */
#ifndef ICUDA_SERVER_H
#define ICUDA_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "connection.h"
#include "wire.h"

typedef enum channel { CH_SHELL, CH_CONTROL, CH_IOPUB, CH_STDIN } channel_t;

typedef struct server server_t;
typedef struct kernel_state kernel_state_t;

/* One request being answered, on the main thread or the executor. */
typedef struct request {
    server_t *srv;
    kernel_state_t *ks;
    wire_msg_t msg;
    channel_t ch;
    bool on_executor;
    bool abort_queue; /* set by a handler: an error with stop_on_error */
} request_t;

/* The reply to rq on its own channel: msg_type is the request's with
 * "_request" replaced by "_reply". Takes ownership of content. */
void server_reply(request_t *rq, json_t *content);
/* An iopub message with rq as parent. Takes ownership of content. */
void server_publish(request_t *rq, const char *msg_type, json_t *content);
/* Stream output of a running cell (executor thread only). The main thread
 * coalesces consecutive pieces into one stream message (flushed within
 * 50 ms, at any other output, and at the end of the request). */
void server_stream(request_t *rq, const char *name, const char *text, size_t len);

/* Runs the kernel until a shutdown_request; returns the process exit status. */
int server_main(const connection_t *conn);

#endif
