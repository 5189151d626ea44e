/* Message handlers (messaging spec 5.4). Each checks its content fields
 * itself: a missing or mistyped field is a "BadRequest" error reply, never a
 * crash. */
#include "handlers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_guard.h"
#include "log.h"
#include "runtime/base/utf8.h"

/* ---- small helpers ---- */

void reply_error(request_t *rq, const char *ename, const char *evalue) {
    json_t *c = json_pack("{s:s, s:s, s:s, s:[]}", "status", "error", "ename", ename, "evalue",
                          evalue, "traceback");
    if (rq->msg.msg_type && strcmp(rq->msg.msg_type, "execute_request") == 0)
        json_object_set_new(c, "execution_count",
                            json_integer(__atomic_load_n(&rq->ks->execution_count, __ATOMIC_RELAXED)));
    request_reply(rq, c);
}

void reply_aborted(request_t *rq) {
    json_t *c = json_pack("{s:s, s:i}", "status", "aborted", "execution_count",
                          __atomic_load_n(&rq->ks->execution_count, __ATOMIC_RELAXED));
    request_reply(rq, c);
}

/* Reads an optional field of the request content of the given JSON type.
 * Returns false (and sends a BadRequest reply) if it is there but mistyped,
 * or absent while required. */
static bool field(request_t *rq, const char *key, json_type type, bool required, json_t **out) {
    json_t *v = json_object_get(rq->msg.content, key);
    *out = NULL;
    if (!v || (json_is_null(v) && !required)) {
        if (!required) return true;
        char why[160];
        snprintf(why, sizeof why, "%s: content field '%s' is required", rq->msg.msg_type, key);
        log_msg("%s", why);
        reply_error(rq, "BadRequest", why);
        return false;
    }
    bool ok = json_typeof(v) == type ||
              (type == JSON_TRUE && json_is_boolean(v)); /* JSON_TRUE stands for "a boolean" */
    if (!ok) {
        static const char *names[] = {"an object", "an array", "a string", "an integer",
                                      "a number", "a boolean", "a boolean", "null"};
        char why[160];
        snprintf(why, sizeof why, "%s: content field '%s' must be %s", rq->msg.msg_type, key,
                 names[type]);
        log_msg("%s", why);
        reply_error(rq, "BadRequest", why);
        return false;
    }
    *out = v;
    return true;
}

static bool opt_bool(json_t *v, bool dflt) { return v ? json_is_true(v) : dflt; }

/* ---- kernel_info ---- */

static void handle_kernel_info(request_t *rq) {
    const language_t *lang = rq->ks->lang;
    json_t *c = lang->kernel_info ? lang->kernel_info(lang->ctx) : NULL;
    if (!json_is_object(c)) {
        json_decref(c);
        c = json_object();
    }
    json_object_set_new(c, "status", json_string("ok"));
    json_object_set_new(c, "protocol_version", json_string(WIRE_PROTOCOL_VERSION));
    /* 5.4 changed only the debugger's messages, which this kernel does not
     * offer; the optional-features list (later protocols) is empty for the
     * same reason */
    json_object_set_new(c, "debugger", json_false());
    json_object_set_new(c, "supported_features", json_array());
    request_reply(rq, c);
}

/* ---- execute ---- */

typedef struct exec_io {
    request_t *rq;
    bool silent;
    int count;
    json_t *payload; /* the reply's payloads: help for the pager */
    char *result;    /* the cell's value as text, for the history's output */
} exec_io_t;

static void io_stream(void *ctx, const char *name, const char *text, size_t len) {
    exec_io_t *x = ctx;
    if (x->silent || !len) return;
    if (!name || (strcmp(name, "stdout") != 0 && strcmp(name, "stderr") != 0)) name = "stdout";
    request_stream(x->rq, name, text, len);
}

static void io_result(void *ctx, json_t *data, json_t *metadata) {
    exec_io_t *x = ctx;
    if (json_is_object(data) && json_is_string(json_object_get(data, "text/plain"))) {
        free(x->result);
        /* the cell's value, any size: without room the history keeps no output */
        x->result = strdup(json_string_value(json_object_get(data, "text/plain")));
    }
    if (x->silent || !json_is_object(data)) return;
    json_t *c = json_pack("{s:O, s:o, s:i}", "data", data, "metadata",
                          json_is_object(metadata) ? json_deep_copy(metadata) : json_object(),
                          "execution_count", x->count);
    if (c) request_publish(x->rq, "execute_result", c);
}

static void io_display(void *ctx, json_t *data, json_t *metadata, const char *display_id, bool update) {
    exec_io_t *x = ctx;
    if (x->silent || !json_is_object(data)) return;
    json_t *transient = display_id ? json_pack("{s:s}", "display_id", display_id) : json_object();
    json_t *c = json_pack("{s:O, s:o, s:o}", "data", data, "metadata",
                          json_is_object(metadata) ? json_deep_copy(metadata) : json_object(),
                          "transient", transient);
    if (c) request_publish(x->rq, display_id && update ? "update_display_data" : "display_data", c);
}

/* Help goes to the pager as ipykernel sends it: a "page" payload. */
static void io_page_payload(void *ctx, json_t *data) {
    exec_io_t *x = ctx;
    if (x->silent || !json_is_object(data)) return;
    json_array_append_new(x->payload, json_pack("{s:s, s:O, s:i}", "source", "page", "data", data, "start", 0));
}

/* The error's name in red on the traceback's summary line ("TypeError:
 * ..."), as ipykernel shows it; lines already coloured are left alone. */
static json_t *coloured(json_t *tb, const char *ename) {
    json_t *out = json_array();
    size_t n = json_array_size(tb), el = strlen(ename);
    for (size_t i = 0; i < n; i++) {
        const char *line = json_string_value(json_array_get(tb, i));
        if (!line) continue;
        if (i + 1 == n && !strchr(line, '\x1b') && el && !strncmp(line, ename, el) && line[el] == ':')
            json_array_append_new(out, json_sprintf("\x1b[0;31m%s\x1b[0m%s", ename, line + el));
        else
            json_array_append_new(out, json_string(line));
    }
    return out;
}

static void handle_execute(request_t *rq) {
    json_t *code, *silent_v, *store_v, *uexpr, *stop_v;
    if (!field(rq, "code", JSON_STRING, true, &code) ||
        !field(rq, "silent", JSON_TRUE, false, &silent_v) ||
        !field(rq, "store_history", JSON_TRUE, false, &store_v) ||
        !field(rq, "user_expressions", JSON_OBJECT, false, &uexpr) ||
        !field(rq, "stop_on_error", JSON_TRUE, false, &stop_v))
        return;
    bool silent = opt_bool(silent_v, false);
    bool store = !silent && opt_bool(store_v, true);
    bool stop_on_error = opt_bool(stop_v, true);
    kernel_state_t *ks = rq->ks;
    if (store) __atomic_add_fetch(&ks->execution_count, 1, __ATOMIC_RELAXED);
    int count = ks->execution_count;
    const char *src = json_string_value(code);
    if (!silent) request_publish(rq, "execute_input", json_pack("{s:s, s:i}", "code", src,
                                                                "execution_count", count));
    exec_io_t x = {rq, silent, count, json_array(), NULL};
    language_output_t out = {&x, io_stream, io_result, io_display, io_page_payload};
    language_error_t err = {0};
    const language_t *lang = ks->lang;
    fault_guard_test_trigger(src);
    int rc = lang->execute(lang->ctx, src, count, silent, &out, &err);
    if (store) history_add(ks->history, count, src, x.result);
    free(x.result);
    json_t *c;
    if (rc == 0) {
        json_t *ue = (uexpr && json_object_size(uexpr) && lang->user_expressions)
                         ? lang->user_expressions(lang->ctx, uexpr)
                         : NULL;
        if (!json_is_object(ue)) {
            json_decref(ue);
            ue = json_object();
        }
        c = json_pack("{s:s, s:i, s:o, s:O}", "status", "ok", "execution_count", count,
                      "user_expressions", ue, "payload", x.payload);
    } else {
        /* a language's message may quote bytes that are not UTF-8 (a compiler's log, say) */
        size_t ignored;
        char *ename_s = utf8_sanitize(err.ename ? err.ename : "Error", strlen(err.ename ? err.ename : "Error"), &ignored);
        char *evalue_s = utf8_sanitize(err.evalue ? err.evalue : "", strlen(err.evalue ? err.evalue : ""), &ignored);
        const char *ename = ename_s, *evalue = evalue_s;
        json_t *tb = json_is_array(err.traceback) ? coloured(err.traceback, ename) : json_array();
        if (!silent)
            request_publish(rq, "error", json_pack("{s:s, s:s, s:O}", "ename", ename, "evalue",
                                                   evalue, "traceback", tb));
        c = json_pack("{s:s, s:i, s:s, s:s, s:o, s:{}, s:[]}", "status", "error",
                      "execution_count", count, "ename", ename, "evalue", evalue, "traceback", tb,
                      "user_expressions", "payload");
        if (stop_on_error) rq->abort_queue = true;
        free(ename_s);
        free(evalue_s);
    }
    language_error_clear(&err);
    json_decref(x.payload);
    if (!c) { /* invalid UTF-8 from the language, say */
        log_msg("execute_reply could not be built");
        c = json_pack("{s:s, s:i, s:s, s:s, s:[]}", "status", "error", "execution_count", count,
                      "ename", "InternalError", "evalue", "reply could not be encoded", "traceback");
    }
    request_reply(rq, c);
}

/* ---- is_complete, complete, inspect ---- */

static void handle_is_complete(request_t *rq) {
    json_t *code;
    if (!field(rq, "code", JSON_STRING, true, &code)) return;
    char *indent = NULL;
    const language_t *lang = rq->ks->lang;
    const char *status =
        lang->is_complete ? lang->is_complete(lang->ctx, json_string_value(code), &indent) : NULL;
    if (!status) status = "unknown";
    json_t *c = json_pack("{s:s}", "status", status);
    if (strcmp(status, "incomplete") == 0)
        json_object_set_new(c, "indent", json_string(indent ? indent : ""));
    free(indent);
    request_reply(rq, c);
}

/* cursor_pos: absent or null means the end of the code (in code points). */
static bool cursor(request_t *rq, json_t *code, int *pos) {
    json_t *v;
    if (!field(rq, "cursor_pos", JSON_INTEGER, false, &v)) return false;
    const char *s = json_string_value(code);
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xc0) != 0x80) n++;
    if (!v) *pos = n;
    else {
        long long x = json_integer_value(v);
        *pos = x < 0 ? 0 : x > n ? n : (int)x;
    }
    return true;
}

static void handle_complete(request_t *rq) {
    json_t *code;
    int pos;
    if (!field(rq, "code", JSON_STRING, true, &code) || !cursor(rq, code, &pos)) return;
    const language_t *lang = rq->ks->lang;
    json_t *r = lang->complete ? lang->complete(lang->ctx, json_string_value(code), pos) : NULL;
    if (!json_is_object(r)) {
        json_decref(r);
        r = json_pack("{s:[], s:i, s:i, s:{}}", "matches", "cursor_start", pos, "cursor_end", pos,
                      "metadata");
    }
    json_object_set_new(r, "status", json_string("ok"));
    request_reply(rq, r);
}

static void handle_inspect(request_t *rq) {
    json_t *code, *dl;
    int pos;
    if (!field(rq, "code", JSON_STRING, true, &code) || !cursor(rq, code, &pos) ||
        !field(rq, "detail_level", JSON_INTEGER, false, &dl))
        return;
    const language_t *lang = rq->ks->lang;
    json_t *r = lang->inspect ? lang->inspect(lang->ctx, json_string_value(code), pos,
                                              dl ? (int)json_integer_value(dl) : 0)
                              : NULL;
    if (!json_is_object(r)) {
        json_decref(r);
        r = json_pack("{s:b, s:{}, s:{}}", "found", 0, "data", "metadata");
    }
    json_object_set_new(r, "status", json_string("ok"));
    request_reply(rq, r);
}

/* ---- history, comms ---- */

static void handle_history(request_t *rq) {
    char why[200];
    json_t *h = history_query(rq->ks->history, rq->msg.content, why, sizeof why);
    if (!h) {
        log_msg("%s", why);
        reply_error(rq, "BadRequest", why);
        return;
    }
    request_reply(rq, json_pack("{s:s, s:o}", "status", "ok", "history", h));
}

static void handle_comm_info(request_t *rq) {
    request_reply(rq, json_pack("{s:s, s:{}}", "status", "ok", "comms"));
}

/* This kernel has no comm targets. The spec asks for a comm_close in answer
 * to a comm_open of an unknown target, so the front end does not wait. */
static void handle_comm_open(request_t *rq) {
    json_t *id = json_object_get(rq->msg.content, "comm_id");
    json_t *target = json_object_get(rq->msg.content, "target_name");
    log_msg("comm_open for target '%s' ignored: icuda has no comm targets",
            json_is_string(target) ? json_string_value(target) : "?");
    if (json_is_string(id))
        request_publish(rq, "comm_close", json_pack("{s:O, s:{}}", "comm_id", id, "data"));
}

static void handle_comm_ignore(request_t *rq) {
    log_msg("%s ignored: icuda has no comms", rq->msg.msg_type);
}

/* ---- control: shutdown, interrupt ---- */

static void handle_shutdown(request_t *rq) {
    json_t *restart;
    if (!field(rq, "restart", JSON_TRUE, false, &restart)) return;
    bool r = opt_bool(restart, false);
    rq->ks->shutdown = true;
    rq->ks->restart = r;
    request_reply(rq, json_pack("{s:s, s:b}", "status", "ok", "restart", r));
    /* Protocol 5.4 also broadcasts it on iopub; older clients ignore it. */
    request_publish(rq, "shutdown_reply", json_pack("{s:s, s:b}", "status", "ok", "restart", r));
}

static void handle_interrupt(request_t *rq) {
    const language_t *lang = rq->ks->lang;
    lang->interrupt(lang->ctx);
    request_reply(rq, json_pack("{s:s}", "status", "ok"));
}

void handle_unknown(request_t *rq) {
    const char *t = rq->msg.msg_type;
    if (request_type_is_request(t)) {
        char why[200];
        snprintf(why, sizeof why, "unknown message type '%.150s'", t);
        log_msg("%s: answered with an error", why);
        reply_error(rq, "UnknownMessageType", why);
    } else {
        log_msg("message of unknown type '%.150s' ignored", t);
    }
}

static const handler_entry_t table[] = {
    {"kernel_info_request", handle_kernel_info, false},
    {"execute_request", handle_execute, true},
    {"is_complete_request", handle_is_complete, true},
    {"complete_request", handle_complete, true},
    {"inspect_request", handle_inspect, true},
    {"history_request", handle_history, false},
    {"comm_info_request", handle_comm_info, false},
    {"comm_open", handle_comm_open, false},
    {"comm_msg", handle_comm_ignore, false},
    {"comm_close", handle_comm_ignore, false},
    {"shutdown_request", handle_shutdown, false},
    {"interrupt_request", handle_interrupt, false},
};

const handler_entry_t *handlers_find(const char *msg_type) {
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].msg_type, msg_type) == 0) return &table[i];
    return NULL;
}
