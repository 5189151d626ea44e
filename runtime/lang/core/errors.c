/* Errors of the interpreter: SyntaxError/TypeError while compiling a cell,
 * RuntimeError/AssertionError/KeyboardInterrupt while running it. Each one
 * fills the cell_error_t of the running call with a traceback that shows
 * the cell line and a caret under the offending expression, then longjmps
 * back to the session's setjmp (nothing in between owns resources that the
 * unwinder, calls.c's exec_unwind, and the session's lang_recover do not
 * know about). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core.h"
#include "runtime/base/utf8.h"

#include "runtime/base/cell_io.h"
#include "runtime/base/xalloc.h"
src_t *src_new(interp_t *in, const char *name, const char *text) {
    src_t *s = pool_alloc(&in->pool, sizeof *s);
    s->name = (char *)lang_intern(in, name); /* buffer records name their cell after it is gone */
    s->text = pool_strndup(&in->pool, text, strlen(text));
    int n = 1;
    for (const char *p = s->text; *p; p++) n += *p == '\n';
    s->nlines = n;
    s->lines = pool_alloc(&in->pool, sizeof(char *) * (size_t)(n + 1));
    s->linelen = pool_alloc(&in->pool, sizeof(int) * (size_t)(n + 1));
    const char *p = s->text;
    for (int i = 0; i < n; i++) {
        const char *e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        s->lines[i] = p;
        s->linelen[i] = (int)(e - p);
        p = *e ? e + 1 : e;
    }
    return s;
}

char *loc_text(loc_t *l, char *buf, size_t n) {
    if (!l || !l->src || l->line < 1 || l->line > l->src->nlines) {
        snprintf(buf, n, "?");
        return buf;
    }
    const char *ln = l->src->lines[l->line - 1];
    int ll = l->src->linelen[l->line - 1];
    int c = l->col < ll ? l->col : ll;
    int len = l->len;
    if (c + len > ll) len = ll - c;
    if (len < 0) len = 0;
    if ((size_t)len >= n) len = (int)n - 1;
    memcpy(buf, ln + c, (size_t)len);
    buf[len] = 0;
    return buf;
}

/* A JSON string of s, whose bytes may not be UTF-8 (a source line cut at
 * 400 bytes, a stray byte): invalid bytes become U+FFFD, never a lost line
 * or a reply the kernel cannot encode. */
static json_t *text_json(const char *s) {
    size_t n;
    char *c = utf8_sanitize(s, strlen(s), &n);
    json_t *j = json_stringn(c, n);
    free(c);
    return j ? j : json_string("?");
}

static void add_loc(json_t *tb, loc_t *l, const char *prefix) {
    char b[512];
    if (!l || !l->src) return;
    snprintf(b, sizeof b, "%s%s, line %d:", prefix, l->src->name, l->line);
    json_array_append_new(tb, text_json(b));
    if (l->line < 1 || l->line > l->src->nlines) return;
    const char *ln = l->src->lines[l->line - 1];
    int ll = l->src->linelen[l->line - 1];
    if (ll > 400) ll = 400;
    snprintf(b, sizeof b, "    %.*s", ll, ln);
    json_array_append_new(tb, text_json(b));
    int k = 4, c;
    for (c = 0; c < l->col && c < ll && k < 480; c++) b[k++] = ln[c] == '\t' ? '\t' : ' ';
    memcpy(b, "    ", 4);
    b[k++] = '^';
    for (int i = 1; i < l->len && c + i < ll && k < 500; i++) b[k++] = '~';
    b[k] = 0;
    json_array_append_new(tb, text_json(b));
}

static void set_error(const char *ename, loc_t *at, const char *msg) {
    interp_t *in = g_in;
    cell_error_t *e = in->err;
    if (!e) return;
    free(e->ename);
    free(e->evalue);
    if (e->traceback) json_decref(e->traceback);
    e->ename = xstrdup(ename);
    json_t *m = text_json(msg); /* the message as valid UTF-8 */
    e->evalue = xstrdup(json_string_value(m));
    json_decref(m);
    json_t *tb = json_array();
    add_loc(tb, at, "");
    /* the calls that led here, innermost first */
    int depth = 0;
    for (frame_t *f = in->top; f && f->call; f = f->up) {
        if (++depth > 8) {
            json_array_append_new(tb, json_string("  ..."));
            break;
        }
        char b[600], t[400];
        loc_t *l = &f->call->loc;
        if (!l->src) continue;
        int ll = l->line >= 1 && l->line <= l->src->nlines ? l->src->linelen[l->line - 1] : 0;
        const char *ln = ll ? l->src->lines[l->line - 1] : "";
        while (ll > 0 && (*ln == ' ' || *ln == '\t')) ln++, ll--;
        snprintf(t, sizeof t, "%.*s", ll > 300 ? 300 : ll, ln);
        snprintf(b, sizeof b, "  called from %s, line %d: %s", l->src->name, l->line, t);
        json_array_append_new(tb, text_json(b));
    }
    char b[2200];
    snprintf(b, sizeof b, "%s: %s", ename, msg);
    json_array_append_new(tb, text_json(b));
    e->traceback = tb;
}

static _Noreturn void jump(void) {
    if (!g_in->jb) { /* an error with no cell to end: a bug, said, and the fault guard's restart */
        fprintf(stderr, "icuda: an error outside any cell: %s: %s\n", g_in->err && g_in->err->ename ? g_in->err->ename : "?",
                g_in->err && g_in->err->evalue ? g_in->err->evalue : "?");
        abort();
    }
    longjmp(*g_in->jb, 1);
}

_Noreturn void lang_raise(const char *ename, loc_t *at, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_error(ename, at, msg);
    jump();
}

_Noreturn void rt_error(node_t *at, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_error("RuntimeError", at ? &at->loc : NULL, msg);
    jump();
}

_Noreturn void type_error(loc_t *at, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_error("TypeError", at, msg);
    jump();
}

_Noreturn void syntax_error(loc_t *at, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_error("SyntaxError", at, msg);
    jump();
}
