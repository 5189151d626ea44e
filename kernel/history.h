/* The cells run with store_history, for history_request (tail, range,
 * search; input only). Written by the executor thread, read by the main
 * thread: every call takes the lock. */
#ifndef ICUDA_HISTORY_H
#define ICUDA_HISTORY_H

#include <jansson.h>

/* The session number history entries carry: one per kernel process. */
#define HISTORY_SESSION 1

typedef struct history history_t;

history_t *history_new(void);
void history_free(history_t *h);
void history_add(history_t *h, int line, const char *code);
/* Answers a history_request's content: a list of [session, line, input]
 * (new reference), or NULL with a reason in why for a malformed request. */
json_t *history_query(history_t *h, json_t *request, char *why, size_t whylen);

#endif
