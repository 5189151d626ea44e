/* The cells run with store_history, for history_request (tail, range,
 * search; input, or input and output), kept across kernel restarts in a
 * file (history.c says where). Written by the executor thread, read by the
 * main thread: every call takes the lock. */
#ifndef ICUDA_HISTORY_H
#define ICUDA_HISTORY_H

#include <jansson.h>

typedef struct history history_t;

/* Loads the history file ($ICUDA_HISTORY, or icuda/history.jsonl in the
 * user's data directory); this process is the next session. */
history_t *history_new(void);
void history_free(history_t *h);
/* This process's session number (1 + the last one in the file). */
int history_session(history_t *h);
/* A cell ran: its input and its result's text/plain (output; may be NULL). */
void history_add(history_t *h, int line, const char *code, const char *output);
/* Answers a history_request's content: a list of [session, line, input] or,
 * with output, [session, line, [input, output]] (new reference), or NULL
 * with a reason in why for a malformed request. */
json_t *history_query(history_t *h, json_t *request, char *why, size_t whylen);

#endif
