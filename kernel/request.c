/* A request's replies, iopub messages and stream output, handed to the port
 * its server gave it (request.h). */
#include "request.h"

#include <stdio.h>
#include <string.h>

bool request_type_is_request(const char *t) {
    size_t n = t ? strlen(t) : 0;
    return n > 8 && strcmp(t + n - 8, "_request") == 0;
}

void request_reply(request_t *rq, json_t *content) {
    const char *t = rq->msg.msg_type;
    char type[160];
    size_t n = strlen(t);
    if (request_type_is_request(t) && n < sizeof type)
        snprintf(type, sizeof type, "%.*s_reply", (int)(n - 8), t);
    else
        snprintf(type, sizeof type, "%.140s_reply", t);
    rq->port->reply(rq, type, content);
}

void request_publish(request_t *rq, const char *msg_type, json_t *content) {
    rq->port->publish(rq, msg_type, content);
}

void request_stream(request_t *rq, const char *name, const char *text, size_t len) {
    rq->port->stream(rq, name, text, len);
}
