/* inspect_request (Shift-Tab, NAME?): what the name at the cursor is, as
 * text/plain and text/markdown. Kernels, the runtime API, session
 * variables and functions, device built-ins, magics. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assist.h"
#include "runtime/toolkit/cuda_rt_table.h"
#include "runtime/device/cuda_docs.h"
#include "runtime/lang/interp.h"
#include "magics/magics.h"
#include "session.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

/* One answer: a title line, a code block and paragraphs, rendered twice. */
typedef struct {
    char title[320];
    char *code;       /* malloc'd, may be NULL */
    strbuf_t body;    /* paragraphs separated by blank lines */
    strbuf_t md_body; /* the same in markdown */
} doc_t;

static void para(doc_t *d, const char *plain, const char *md) {
    if (d->body.len) sb_puts(&d->body, "\n");
    if (d->md_body.len) sb_puts(&d->md_body, "\n");
    sb_printf(&d->body, "%s\n", plain);
    sb_printf(&d->md_body, "%s\n", md ? md : plain);
}

static json_t *render(doc_t *d) {
    strbuf_t p = {0}, m = {0};
    sb_printf(&p, "%s\n", d->title);
    sb_printf(&m, "**%s**\n", d->title);
    if (d->code) {
        sb_printf(&p, "%s\n", d->code);
        sb_printf(&m, "\n```cuda\n%s\n```\n", d->code);
    }
    if (d->body.len) {
        sb_printf(&p, "\n%s", d->body.data);
        sb_printf(&m, "\n%s", d->md_body.data);
    }
    char *ps = sb_take(&p), *ms = sb_take(&m);
    json_t *data = json_pack("{s:s, s:s}", "text/plain", ps, "text/markdown", ms);
    free(ps);
    free(ms);
    free(d->code);
    free(sb_take(&d->body));
    free(sb_take(&d->md_body));
    return data;
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The word under the cursor, or else the function whose call's parentheses
 * hold it (Shift-Tab inside "cudaMalloc(&p, |"), or the kernel of a launch. */
static bool name_at(const char *code, int cursor, char *out, size_t cap, bool *magic) {
    int n = (int)strlen(code);
    if (cursor < 0 || cursor > n) cursor = n;
    int s = cursor, t = cursor;
    while (s > 0 && ident_char(code[s - 1])) s--;
    while (t < n && ident_char(code[t])) t++;
    *magic = false;
    if (s > 0 && code[s - 1] == '%') {
        *magic = true;
        while (s > 0 && code[s - 1] == '%') s--;
    }
    if (t == s || (*magic && t - s <= 2)) {
        /* inside a call: back to the unmatched '(' on this statement */
        int depth = 0, i = cursor - 1;
        for (; i >= 0; i--) {
            char c = code[i];
            if (c == ')') depth++;
            else if (c == '(' && depth-- == 0) break;
            else if (c == ';' || c == '{' || c == '}') return false;
        }
        if (i < 0) return false;
        while (i > 0 && (code[i - 1] == ' ' || code[i - 1] == '>' || code[i - 1] == '<')) {
            if (code[i - 1] == '>') { /* k<<<g, b>>>( */
                while (i > 0 && code[i - 1] != '<') i--;
                while (i > 0 && code[i - 1] == '<') i--;
            } else i--;
        }
        t = i;
        s = t;
        while (s > 0 && ident_char(code[s - 1])) s--;
        *magic = false;
        if (t == s) return false;
    }
    size_t len = (size_t)(t - s) < cap - 1 ? (size_t)(t - s) : cap - 1;
    memcpy(out, code + s, len);
    out[len] = 0;
    return true;
}

static void describe_runtime(doc_t *d, const crt_fn_t *f) {
    snprintf(d->title, sizeof d->title, "%s: CUDA runtime API function", f->name);
    d->code = xstrdup(f->proto);
    const char *brief = cuda_runtime_brief(f->name);
    if (brief) para(d, brief, NULL);
    const char *codes = cuda_runtime_errors(f->name);
    if (codes && *codes) {
        strbuf_t md = {0};
        sb_puts(&md, "*Returns:* ");
        const char *p = codes;
        while (*p) {
            const char *q = strchr(p, ',');
            size_t l = q ? (size_t)(q - p) : strlen(p);
            sb_printf(&md, "`%.*s`%s", (int)l, p, q ? ", " : "");
            p = q ? q + 2 : p + l;
        }
        char *plain = NULL;
        if (asprintf(&plain, "Returns: %s", codes) < 0) plain = NULL;
        char *m = sb_take(&md);
        para(d, plain ? plain : codes, m);
        free(plain);
        free(m);
    }
    if (f->deprecated) para(d, "Deprecated in this CUDA version.", "*Deprecated* in this CUDA version.");
}

static void describe_variable(engine_t *e, doc_t *d, json_t *j, int detail) {
    const char *name = json_string_value(json_object_get(j, "name"));
    snprintf(d->title, sizeof d->title, "%s: %s %s", name, "host variable",
             json_string_value(json_object_get(j, "type")));
    d->code = xstrdup(json_string_value(json_object_get(j, "signature")));
    char line[400];
    json_t *cell = json_object_get(j, "cell");
    if (cell) {
        snprintf(line, sizeof line, "Defined in %s, line %d; %lld bytes.", json_string_value(cell),
                 (int)json_integer_value(json_object_get(j, "line")),
                 (long long)json_integer_value(json_object_get(j, "size")));
        para(d, line, NULL);
    }
    json_t *b = json_object_get(j, "buffer");
    if (b) {
        json_t *st = json_object_get(b, "state");
        if (st) snprintf(line, sizeof line, "Points to: %s.", json_string_value(st));
        else {
            int l = snprintf(line, sizeof line, "Points into a %s buffer of %lld bytes",
                             json_string_value(json_object_get(b, "place")),
                             (long long)json_integer_value(json_object_get(b, "size")));
            long long off = json_integer_value(json_object_get(b, "offset"));
            if (off && l < (int)sizeof line) l += snprintf(line + l, sizeof line - l, " (at byte %lld)", off);
            json_t *addr = json_object_get(b, "address");
            if (addr && l < (int)sizeof line) l += snprintf(line + l, sizeof line - l, " at %s", json_string_value(addr));
            json_t *bc = json_object_get(b, "cell");
            if (bc && l < (int)sizeof line)
                l += snprintf(line + l, sizeof line - l, ", allocated in %s line %d", json_string_value(bc),
                              (int)json_integer_value(json_object_get(b, "line")));
            if (l < (int)sizeof line) snprintf(line + l, sizeof line - l, ".");
        }
        para(d, line, NULL);
    }
    /* the value, as the cell's last line would show it */
    json_t *value = NULL;
    cell_error_t err = {0};
    if (interp_eval(e->interp, name, &value, &err) == 0 && value) {
        const char *v = json_string_value(json_object_get(value, "text/plain"));
        if (v) {
            size_t max = detail > 0 ? 4000 : 300;
            char *cut = xstrndup(v, max);
            strbuf_t md = {0}, pl = {0};
            sb_printf(&pl, "Value: %s%s", cut, strlen(v) > max ? " ..." : "");
            sb_printf(&md, "*Value:* `%s%s`", cut, strlen(v) > max ? " ..." : "");
            char *p = sb_take(&pl), *m = sb_take(&md);
            para(d, p, m);
            free(p);
            free(m);
            free(cut);
        }
    }
    json_decref(value);
    cell_error_clear(&err);
}

static void describe_session(doc_t *d, json_t *j) {
    const char *name = json_string_value(json_object_get(j, "name"));
    const char *kind = json_string_value(json_object_get(j, "kind"));
    json_t *cell = json_object_get(j, "cell");
    snprintf(d->title, sizeof d->title, "%s: %s%s", name, strcmp(kind, "function") ? "" : "host ", kind);
    d->code = xstrdup(json_string_value(json_object_get(j, "signature")));
    if (cell && strncmp(json_string_value(cell), "In [", 4) == 0) {
        char line[200];
        snprintf(line, sizeof line, "Defined in %s, line %d.", json_string_value(cell),
                 (int)json_integer_value(json_object_get(j, "line")));
        para(d, line, NULL);
    }
}

json_t *engine_inspect(engine_t *e, const char *code, int cursor_pos, int detail_level) {
    char word[256];
    bool magic;
    cursor_pos = assist_byte_offset(code, cursor_pos < 0 ? (int)strlen(code) : cursor_pos);
    if (!name_at(code, cursor_pos, word, sizeof word, &magic))
        return json_pack("{s:b, s:{}, s:{}}", "found", 0, "data", "metadata");
    doc_t d = {0};
    bool found = true;
    const kernel_entry_t *k;
    const crt_fn_t *f;
    const cuda_builtin_t *bi;
    json_t *j = NULL;
    if (magic) {
        const char *n = word;
        while (*n == '%') n++;
        const magic_t *m = magic_find(n);
        if (m) {
            snprintf(d.title, sizeof d.title, "%s%s: magic", m->cell && !m->line ? "%%" : "%", m->name);
            char *h = magic_help_text(m);
            d.code = NULL;
            para(&d, h, NULL);
            free(h);
        } else found = false;
    } else if ((k = device_find_kernel(&e->dev, word))) {
        snprintf(d.title, sizeof d.title, "%s: kernel", word);
        d.code = device_kernel_description(&e->dev, k);
    } else if ((f = crt_find(word))) {
        describe_runtime(&d, f);
    } else if (e->interp && (j = interp_describe(e->interp, word)) &&
               !strcmp(json_string_value(json_object_get(j, "kind")), "variable")) {
        describe_variable(e, &d, j, detail_level);
    } else if ((bi = cuda_builtin_find(word))) {
        snprintf(d.title, sizeof d.title, "%s: CUDA built-in %s", bi->name, bi->kind);
        d.code = xstrdup(bi->signature);
        para(&d, bi->doc, NULL);
    } else if (j) {
        describe_session(&d, j);
    } else {
        const magic_t *m = magic_find(word); /* "timeit?" as IPython allows */
        if (m) {
            snprintf(d.title, sizeof d.title, "%%%s: magic", m->name);
            char *h = magic_help_text(m);
            para(&d, h, NULL);
            free(h);
        } else found = false;
    }
    json_decref(j);
    json_t *data = render(&d);
    if (!found) {
        json_decref(data);
        data = json_object();
    }
    return json_pack("{s:b, s:o, s:{}}", "found", found, "data", data, "metadata");
}

/* "NAME?" or "NAME??" alone in a cell: the inspection, in the pager. */
bool engine_question(engine_t *e, const char *code, const cell_io_t *io) {
    const char *s = code;
    while (isspace((unsigned char)*s)) s++;
    const char *t = s + strlen(s);
    while (t > s && isspace((unsigned char)t[-1])) t--;
    int q = 0;
    while (t > s && t[-1] == '?' && q < 2) t--, q++;
    if (!q || t == s) return false;
    const char *w = s;
    if (*w == '%') return false; /* %magic? is the magics' own */
    for (const char *p = w; p < t; p++)
        if (!ident_char(*p)) return false;
    char *name = xstrndup(s, (size_t)(t - s));
    json_t *r = engine_inspect(e, name, (int)strlen(name), q - 1);
    json_t *data = json_object_get(r, "data");
    if (json_is_true(json_object_get(r, "found"))) {
        const char *plain = json_string_value(json_object_get(data, "text/plain"));
        io_page(io, plain, NULL);
    } else {
        char msg[320];
        snprintf(msg, sizeof msg, "Object `%s` not found.\n", name);
        io_page(io, msg, NULL);
    }
    json_decref(r);
    free(name);
    return true;
}
