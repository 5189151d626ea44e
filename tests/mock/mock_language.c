/* The mock language: a cell is lines of one command each, run in order; the
 * first that fails ends the cell.
 *   print TEXT          TEXT and a newline on stdout (eprint: on stderr)
 *   set NAME VALUE      a session variable
 *   incr NAME           adds one to a variable that holds an integer
 *   get NAME            the variable's value as the cell's result
 *   result TEXT         TEXT as the cell's result (execute_result)
 *   display TEXT        TEXT as display_data
 *   progress N          one display under a display id, then N updates of it
 *   page TEXT           TEXT for the pager
 *   error NAME TEXT     fails with ename NAME and evalue TEXT
 *   sleep SECONDS       waits; an interrupt stops it (KeyboardInterrupt)
 *   # ...               a comment
 * An unknown command fails with ename "UnknownCommand". is_complete says
 * "incomplete" after a line ending in a backslash and "invalid" for an
 * unknown command; complete and inspect know the commands and the session's
 * variables; user_expressions are variable names. */
#include "mock_language.h"

#include <ctype.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/base/xalloc.h"

#ifndef ICUDA_VERSION
#define ICUDA_VERSION "0.0.0"
#endif

typedef struct var {
    char *name, *value;
    struct var *next;
} var_t;

typedef struct session {
    var_t *vars;
} session_t;

typedef struct mock {
    language_t table;
    session_t *session;
    atomic_int interrupted;
    int displays; /* display ids made so far */
} mock_t;

static const char *const commands[] = {"print", "eprint", "set",   "incr",  "get",   "result",
                                       "display", "progress", "page", "error", "sleep"};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static bool is_command(const char *w, size_t n) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strlen(commands[i]) == n && !strncmp(commands[i], w, n)) return true;
    return false;
}

static var_t *find_var(const session_t *s, const char *name, size_t n) {
    for (var_t *v = s ? s->vars : NULL; v; v = v->next)
        if (strlen(v->name) == n && !strncmp(v->name, name, n)) return v;
    return NULL;
}

static void set_var(session_t *s, const char *name, const char *value) {
    var_t *v = find_var(s, name, strlen(name));
    if (!v) {
        v = xcalloc(1, sizeof *v);
        v->name = strdup(name);
        v->next = s->vars;
        s->vars = v;
    } else {
        free(v->value);
    }
    v->value = strdup(value);
}

static void fail(language_error_t *err, const char *ename, const char *evalue, int count) {
    err->ename = strdup(ename);
    err->evalue = strdup(evalue);
    char where[64];
    snprintf(where, sizeof where, "In [%d]", count);
    err->traceback = json_pack("[s, o]", where, json_sprintf("%s: %s", ename, evalue));
}

/* ---- the table ---- */

static json_t *mock_kernel_info(void *ctx) {
    return json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:s, s:[]}", "implementation", "icuda-mock",
                     "implementation_version", ICUDA_VERSION, "language_info", "name", "mock", "version",
                     "1.0", "mimetype", "text/x-mock", "file_extension", ".mock", "banner",
                     "icuda's protocol layer over a mock language (tests/mock)", "help_links");
}

static bool mock_session_start(void *ctx) {
    mock_t *m = ctx;
    m->session = calloc(1, sizeof *m->session);
    return m->session != NULL;
}

static void mock_session_end(void *ctx) {
    mock_t *m = ctx;
    session_t *s = m->session;
    m->session = NULL;
    if (!s) return;
    while (s->vars) {
        var_t *v = s->vars;
        s->vars = v->next;
        free(v->name);
        free(v->value);
        free(v);
    }
    free(s);
}

static void mock_interrupt(void *ctx) {
    mock_t *m = ctx;
    atomic_store(&m->interrupted, 1);
}

static json_t *text(const char *t) { return json_pack("{s:s}", "text/plain", t); }

/* Waits up to seconds, in steps short enough that an interrupt stops it at once. */
static bool sleep_interruptibly(mock_t *m, double seconds) {
    struct timespec step = {0, 5 * 1000 * 1000};
    for (double left = seconds; left > 0; left -= 0.005) {
        if (atomic_load(&m->interrupted)) return false;
        nanosleep(&step, NULL);
    }
    return !atomic_load(&m->interrupted);
}

/* Runs one line; 0, or -1 with *err filled. */
static int run_line(mock_t *m, const char *line, int count, const language_output_t *out,
                    language_error_t *err) {
    while (*line == ' ' || *line == '\t') line++;
    if (!*line || *line == '#') return 0;
    size_t n = strcspn(line, " \t");
    const char *arg = line + n;
    while (*arg == ' ' || *arg == '\t') arg++;
    char cmd[16];
    snprintf(cmd, sizeof cmd, "%.*s", (int)(n < sizeof cmd ? n : sizeof cmd - 1), line);
    size_t an = strcspn(arg, " \t"); /* a first word of the argument */
    const char *rest = arg + an;
    while (*rest == ' ' || *rest == '\t') rest++;
    session_t *s = m->session;
    if (!strcmp(cmd, "print") || !strcmp(cmd, "eprint")) {
        size_t len = strlen(arg);
        char *t = xmalloc(len + 2);
        memcpy(t, arg, len);
        t[len] = '\n';
        out->stream(out->ctx, cmd[0] == 'e' ? "stderr" : "stdout", t, len + 1);
        free(t);
    } else if (!strcmp(cmd, "set") && an) {
        char *name = strndup(arg, an);
        set_var(s, name, rest);
        free(name);
    } else if (!strcmp(cmd, "incr") || !strcmp(cmd, "get")) {
        var_t *v = find_var(s, arg, strlen(arg));
        if (!v) {
            char why[200];
            snprintf(why, sizeof why, "name '%.150s' is not defined", arg);
            fail(err, "NameError", why, count);
            return -1;
        }
        if (cmd[0] == 'i') {
            char num[32];
            snprintf(num, sizeof num, "%lld", atoll(v->value) + 1);
            free(v->value);
            v->value = strdup(num);
        } else {
            json_t *d = text(v->value);
            out->result(out->ctx, d, NULL);
            json_decref(d);
        }
    } else if (!strcmp(cmd, "result") || !strcmp(cmd, "display") || !strcmp(cmd, "page")) {
        json_t *d = text(arg);
        if (cmd[0] == 'r') out->result(out->ctx, d, NULL);
        else if (cmd[0] == 'd') out->display(out->ctx, d, NULL, NULL, false);
        else out->page(out->ctx, d);
        json_decref(d);
    } else if (!strcmp(cmd, "progress")) {
        char id[64], line_text[64];
        snprintf(id, sizeof id, "mock-progress-%d", ++m->displays);
        int steps = atoi(arg);
        for (int i = 0; i <= steps; i++) {
            snprintf(line_text, sizeof line_text, "%d of %d done", i, steps);
            json_t *d = text(line_text);
            out->display(out->ctx, d, NULL, id, i > 0);
            json_decref(d);
        }
    } else if (!strcmp(cmd, "error")) {
        char *ename = strndup(arg, an);
        fail(err, an ? ename : "Error", rest, count);
        free(ename);
        return -1;
    } else if (!strcmp(cmd, "sleep")) {
        if (!sleep_interruptibly(m, atof(arg))) {
            fail(err, "KeyboardInterrupt", "interrupted", count);
            return -1;
        }
    } else {
        char why[200];
        snprintf(why, sizeof why, "unknown command '%.150s'", cmd);
        fail(err, "UnknownCommand", why, count);
        return -1;
    }
    return 0;
}

static int mock_execute(void *ctx, const char *code, int execution_count, bool silent,
                        const language_output_t *out, language_error_t *err) {
    mock_t *m = ctx;
    atomic_store(&m->interrupted, 0); /* an interrupt asked while idle stops nothing */
    if (!m->session) {
        fail(err, "InternalError", "no session", execution_count);
        return -1;
    }
    char *copy = xstrdup(code);
    int rc = 0;
    for (char *line = copy, *next; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        rc = run_line(m, line, execution_count, out, err);
    }
    free(copy);
    return rc;
}

static json_t *mock_user_expressions(void *ctx, json_t *expressions) {
    mock_t *m = ctx;
    json_t *r = json_object();
    const char *name;
    json_t *e;
    json_object_foreach(expressions, name, e) {
        const char *x = json_string_value(e);
        var_t *v = x ? find_var(m->session, x, strlen(x)) : NULL;
        if (v)
            json_object_set_new(r, name, json_pack("{s:s, s:o, s:{}}", "status", "ok", "data", text(v->value),
                                                   "metadata"));
        else
            json_object_set_new(r, name, json_pack("{s:s, s:s, s:s, s:[]}", "status", "error", "ename",
                                                   "NameError", "evalue", "not a variable", "traceback"));
    }
    return r;
}

static const char *mock_is_complete(void *ctx, const char *code, char **indent) {
    size_t n = strlen(code);
    while (n && (code[n - 1] == '\n' || code[n - 1] == ' ')) n--;
    if (n && code[n - 1] == '\\') {
        *indent = strdup("  ");
        return "incomplete";
    }
    for (const char *line = code; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        while (*line == ' ' || *line == '\t') line++;
        size_t w = strcspn(line, " \t\n");
        if (w && *line != '#' && !is_command(line, w)) return "invalid";
    }
    return "complete";
}

/* The byte offset of code point cp in code (its end if cp is past it). */
static size_t byte_at(const char *code, int cp) {
    size_t i = 0;
    for (int k = 0; code[i]; i++)
        if (((unsigned char)code[i] & 0xc0) != 0x80 && k++ == cp) return i;
    return i;
}

static int code_points(const char *s, size_t n) {
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xc0) != 0x80) k++;
    return k;
}

static bool word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static json_t *mock_complete(void *ctx, const char *code, int cursor_pos) {
    mock_t *m = ctx;
    size_t end = byte_at(code, cursor_pos), start = end;
    while (start && word_char(code[start - 1])) start--;
    const char *w = code + start;
    size_t wn = end - start;
    json_t *matches = json_array();
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strncmp(commands[i], w, wn)) json_array_append_new(matches, json_string(commands[i]));
    for (var_t *v = m->session ? m->session->vars : NULL; v; v = v->next)
        if (!strncmp(v->name, w, wn)) json_array_append_new(matches, json_string(v->name));
    int cs = code_points(code, start), ce = code_points(code, end);
    return json_pack("{s:o, s:i, s:i, s:{}}", "matches", matches, "cursor_start", cs, "cursor_end", ce,
                     "metadata");
}

static json_t *mock_inspect(void *ctx, const char *code, int cursor_pos, int detail_level) {
    mock_t *m = ctx;
    size_t at = byte_at(code, cursor_pos), start = at, end = at;
    while (start && word_char(code[start - 1])) start--;
    while (word_char(code[end])) end++;
    var_t *v = find_var(m->session, code + start, end - start);
    char buf[300];
    if (v)
        snprintf(buf, sizeof buf, "%s = %.200s", v->name, v->value);
    else if (end > start && is_command(code + start, end - start))
        snprintf(buf, sizeof buf, "%.*s: a command of the mock language", (int)(end - start), code + start);
    else
        return json_pack("{s:b, s:{}, s:{}}", "found", 0, "data", "metadata");
    return json_pack("{s:b, s:{s:s}, s:{}}", "found", 1, "data", "text/plain", buf, "metadata");
}

language_t *mock_language_new(void) {
    mock_t *m = xcalloc(1, sizeof *m);
    m->table = (language_t){
        .ctx = m,
        .kernel_info = mock_kernel_info,
        .session_start = mock_session_start,
        .session_end = mock_session_end,
        .warm_up = NULL, /* nothing to warm */
        .execute = mock_execute,
        .interrupt = mock_interrupt,
        .user_expressions = mock_user_expressions,
        .is_complete = mock_is_complete,
        .complete = mock_complete,
        .inspect = mock_inspect,
    };
    return &m->table;
}

void mock_language_free(language_t *lang) {
    if (!lang) return;
    mock_t *m = lang->ctx;
    mock_session_end(m);
    free(m);
}
