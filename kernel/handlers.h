/* One function per message type. The table says which thread answers a type:
 * requests that use the language run on the executor, the rest on the main
 * thread (so kernel_info, interrupt and shutdown answer while a cell runs). */
#ifndef ICUDA_HANDLERS_H
#define ICUDA_HANDLERS_H

#include <stdbool.h>

#include "history.h"
#include "language.h"
#include "request.h"

/* What the handlers share across requests. */
struct kernel_state {
    const language_t *lang;
    history_t *history;
    int execution_count; /* written by the executor thread only */
    bool shutdown;       /* set by the shutdown handler (main thread) */
    bool restart;
};

typedef void (*handler_fn)(request_t *rq);

typedef struct handler_entry {
    const char *msg_type;
    handler_fn fn;
    bool on_executor; /* needs the language */
} handler_entry_t;

/* The entry for msg_type, or NULL for a type this kernel does not know. */
const handler_entry_t *handlers_find(const char *msg_type);

/* Answers a request this kernel does not know ("*_request" → error reply). */
void handle_unknown(request_t *rq);
/* An error reply (status "error") with the given ename/evalue. */
void reply_error(request_t *rq, const char *ename, const char *evalue);
/* The reply to an execute_request queued behind a failed cell. */
void reply_aborted(request_t *rq);

#endif
