/* The one door between the protocol and the language that runs the cells: a
 * table of operations over an opaque context. kernel/ knows nothing else of
 * what runs a cell; the program's entry point hands it the table. */
#ifndef ICUDA_LANGUAGE_H
#define ICUDA_LANGUAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* Where one execute's output goes; each call becomes one iopub message.
 * Called only on the thread that runs execute, only while it runs. JSON
 * arguments are borrowed. */
typedef struct language_output {
    void *ctx;
    /* name is "stdout" or "stderr"; text need not be NUL-terminated. */
    void (*stream)(void *ctx, const char *name, const char *text, size_t len);
    /* The cell's value (execute_result); its text/plain is also what the
     * history keeps as the cell's output. metadata may be NULL. */
    void (*result)(void *ctx, json_t *data, json_t *metadata);
    /* display_data; with a display_id, the message carries it in its
     * transient field, and update sends update_display_data, which replaces
     * what was shown under that id. display_id NULL: a display no later
     * message can replace (update is then ignored). metadata may be NULL. */
    void (*display)(void *ctx, json_t *data, json_t *metadata, const char *display_id, bool update);
    /* Help for the pager: a MIME bundle, sent as the execute_reply's "page"
     * payload. */
    void (*page)(void *ctx, json_t *data);
} language_output_t;

/* Why a cell failed: the error reply's fields, owned (language_error_clear). */
typedef struct language_error {
    char *ename;
    char *evalue;
    json_t *traceback; /* an array of strings, or NULL */
} language_error_t;

static inline void language_error_clear(language_error_t *err) {
    free(err->ename);
    free(err->evalue);
    json_decref(err->traceback);
    err->ename = err->evalue = NULL;
    err->traceback = NULL;
}

/* The operations; ctx is passed back to each. Apart from kernel_info and
 * interrupt, no two run at the same time, and those that use the session
 * run on the executor thread between session_start and session_end. JSON
 * results are new references. kernel_info, warm_up, user_expressions,
 * is_complete, complete and inspect may be NULL: the kernel answers as if
 * there were nothing to offer. */
typedef struct language {
    void *ctx;

    /* The kernel_info_reply's description of the implementation and its
     * language: implementation, implementation_version, language_info,
     * banner, help_links. Runs on the main thread, also while a cell runs:
     * it must not touch the session. */
    json_t *(*kernel_info)(void *ctx);

    /* A fresh session (what cells define lives in it). Called once before
     * the first request, and again after an internal fault ended the last
     * one. false: it could not start. */
    bool (*session_start)(void *ctx);
    /* Ends the session. Called at exit, and after an internal fault under a
     * guard: it may fault in turn, and the session is then abandoned, so it
     * must forget the session before it frees it. */
    void (*session_end)(void *ctx);
    /* Starts warming up (in the background) what the first cell would wait
     * for, and returns at once. Called once, when the executor starts. */
    void (*warm_up)(void *ctx);

    /* Runs one cell. execution_count labels it ("In [3]"); silent: the
     * cell shows nothing (the kernel drops any output too). Returns 0, or
     * -1 with *err filled (the caller clears it). A cell interrupted gives
     * ename "KeyboardInterrupt". */
    int (*execute)(void *ctx, const char *code, int execution_count, bool silent,
                   const language_output_t *out, language_error_t *err);
    /* Asks the running cell, if any, to stop. Any thread, and from a signal
     * handler: async-signal-safe. An interrupt asked while no cell runs
     * does not stop the next one. */
    void (*interrupt)(void *ctx);

    /* An execute_request's user_expressions: a dict name -> expression in,
     * name -> {status, data, metadata} or {status:"error", ename, evalue,
     * traceback} out. */
    json_t *(*user_expressions)(void *ctx, json_t *expressions);
    /* "complete", "incomplete", "invalid" or "unknown"; for "incomplete",
     * *indent (malloc'd, may be "") is the next line's indent. */
    const char *(*is_complete)(void *ctx, const char *code, char **indent);
    /* complete_reply and inspect_reply contents without "status";
     * cursor_pos counts code points. NULL: nothing to offer. */
    json_t *(*complete)(void *ctx, const char *code, int cursor_pos);
    json_t *(*inspect)(void *ctx, const char *code, int cursor_pos, int detail_level);
} language_t;

#endif
