/* nvcc's log in the cell's terms (program_log.h): each diagnostic is
 * rewritten into the form NVRTC uses — "label(line): kind: message", the
 * source line indented two spaces, a caret line — with the label and text
 * the notebook knows, and compile_log_format shows that as it shows device
 * cells' errors. */
#include "program_log.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device/compile_errors.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

typedef struct {
    const char *label;  /* as shown: the cell's label or the header's name */
    const char *text;   /* the file's text, or NULL */
    int offset;
} origin_t;

/* The file a diagnostic names, as the notebook knows it. */
static bool origin_of(const program_log_src_t *s, const char *file, size_t n, origin_t *o) {
    if (n > 2 && !strncmp(file, "./", 2)) file += 2, n -= 2;
    if (strlen(s->unit) == n && !strncmp(file, s->unit, n)) {
        *o = (origin_t){s->cell, s->source, s->line_offset};
        return true;
    }
    for (int i = 0; i < s->nheaders; i++)
        if (strlen(s->headers[i].name) == n && !strncmp(file, s->headers[i].name, n)) {
            *o = (origin_t){s->headers[i].name, s->headers[i].text, 0};
            return true;
        }
    if (s->text_of && n < 64) {
        static _Thread_local char label[64]; /* used at once, by put_diag */
        memcpy(label, file, n);
        label[n] = 0;
        const char *text = s->text_of(s->ctx, label);
        if (text) {
            *o = (origin_t){label, text, 0};
            return true;
        }
    }
    return false;
}

/* Line n (1-based) of text, malloc'd; NULL past the end. */
static char *nth_line(const char *text, int n) {
    if (!text || n < 1) return NULL;
    const char *p = text;
    for (int i = 1; i < n; i++) {
        p = strchr(p, '\n');
        if (!p) return NULL;
        p++;
    }
    if (!*p && n > 1) return NULL;
    size_t k = strcspn(p, "\n");
    if (k && p[k - 1] == '\r') k--;
    return xstrndup(p, k);
}

static char *next_line(const char **p) {
    if (!**p) return NULL;
    size_t k = strcspn(*p, "\n");
    char *l = xstrndup(*p, k);
    *p += k + ((*p)[k] == '\n');
    return l;
}

static bool only_caret(const char *s) {
    bool caret = false;
    for (; *s; s++) {
        if (*s == '^') caret = true;
        else if (*s != ' ') return false;
    }
    return caret;
}

static bool word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Where in the cell's own line the compiler's caret points, when it echoed
 * a different text (macros expanded: __global__ as __attribute__((global))):
 * the token under the caret, found in the line. -1 when unknown. */
static int caret_in(const char *line, const char *echoed, int col) {
    if ((int)strlen(echoed) <= col) return -1;
    if (!strcmp(line, echoed)) return col;
    const char *tok = echoed + col;
    size_t n = 1;
    if (word_char(*tok))
        while (word_char(tok[n])) n++;
    for (const char *h = line; *h; h++) {
        if (strncmp(h, tok, n)) continue;
        bool whole = !word_char(*tok) || ((h == line || !word_char(h[-1])) && !word_char(h[n]));
        if (whole) return (int)(h - line);
    }
    return -1;
}

#define TAB_STOP 4

/* The diagnostic in NVRTC's form: head, then the line (tabs as spaces, so
 * that the caret stays under its character) and a caret at byte col. A
 * host compiler's "fatal error" is an error to the formatter. */
static void put_diag(strbuf_t *b, const origin_t *o, int line, const char *rest, int col) {
    int shown = line + o->offset;
    if (!strncmp(rest, "fatal error: ", 13)) rest += 6;
    sb_printf(b, "%s(%d): %s\n", o->label, shown, rest);
    char *text = nth_line(o->text, line);
    if (text && col >= 0 && col < (int)strlen(text)) {
        int caret = 0, w = 0;
        sb_puts(b, "  ");
        for (int i = 0; text[i]; i++) {
            if (i == col) caret = w;
            int k = text[i] == '\t' ? TAB_STOP - w % TAB_STOP : 1;
            if (text[i] == '\t') sb_printf(b, "%*s", k, "");
            else sb_putc(b, text[i]);
            w += k;
        }
        sb_printf(b, "\n  %*s^\n", caret, "");
    }
    free(text);
}

/* "file(12): rest" (EDG, as cudafe++ and NVRTC write). */
static bool edg_head(const char *l, size_t *flen, int *line, const char **rest) {
    const char *p = strstr(l, "): ");
    if (!p) return false;
    const char *open = p;
    while (open > l && *open != '(') open--;
    if (*open != '(' || open == l || open + 1 == p) return false;
    for (const char *d = open + 1; d < p; d++)
        if (!isdigit((unsigned char)*d)) return false;
    *flen = (size_t)(open - l);
    *line = atoi(open + 1);
    *rest = p + 3;
    return true;
}

/* "file:12:5: rest" (the host compiler's). */
static bool gcc_head(const char *l, size_t *flen, int *line, int *col, const char **rest) {
    for (const char *c = strchr(l, ':'); c; c = strchr(c + 1, ':')) {
        char *e1, *e2;
        long ln = strtol(c + 1, &e1, 10);
        if (e1 == c + 1 || *e1 != ':') continue;
        long cn = strtol(e1 + 1, &e2, 10);
        if (e2 == e1 + 1 || strncmp(e2, ": ", 2)) continue;
        *flen = (size_t)(c - l);
        *line = (int)ln;
        *col = (int)cn;
        *rest = e2 + 2;
        return *flen > 0;
    }
    return false;
}

/* gcc's column counts a tab as reaching the next multiple of 8. */
static int byte_of_column(const char *text, int col) {
    if (!text) return col - 1;
    int c = 1;
    for (int i = 0; text[i]; i++) {
        if (c >= col) return i;
        c = text[i] == '\t' ? ((c - 1) / 8 + 1) * 8 + 1 : c + 1;
    }
    return col - 1;
}

/* gcc's echo of the line: "    5 |   int x = y;" and "      |           ^". */
static bool gcc_echo(const char *l) {
    if (*l != ' ') return false;
    while (*l == ' ') l++;
    while (isdigit((unsigned char)*l)) l++;
    while (*l == ' ') l++;
    return *l == '|';
}

/* Other mentions of the unit ("In file included from cell.cu:2:"). */
static void relabel_rest(strbuf_t *b, const program_log_src_t *s, const char *l) {
    size_t ul = strlen(s->unit);
    const char *p = l, *hit;
    while ((hit = strstr(p, s->unit)) != NULL) {
        sb_append(b, p, (size_t)(hit - p));
        const char *after = hit + ul;
        char *end;
        long n = after[0] == ':' ? strtol(after + 1, &end, 10) : 0;
        if (n > 0 && (hit == l || !word_char(hit[-1]))) {
            sb_printf(b, "%s, line %ld", s->cell, n + s->line_offset);
            p = end;
        } else {
            sb_append(b, hit, ul);
            p = after;
        }
    }
    sb_puts(b, p);
    sb_putc(b, '\n');
}

/* The log without the build folder in paths. */
static char *strip_dir(const char *log, const char *dir) {
    strbuf_t b = {0};
    if (!dir || !*dir) {
        sb_puts(&b, log);
        return sb_take(&b);
    }
    char pre[4200];
    snprintf(pre, sizeof pre, "%s/", dir);
    const char *p = log, *hit;
    while ((hit = strstr(p, pre)) != NULL) {
        sb_append(&b, p, (size_t)(hit - p));
        p = hit + strlen(pre);
    }
    sb_puts(&b, p);
    return sb_take(&b);
}

static char *normalise(const char *log, const program_log_src_t *s) {
    char *clean = strip_dir(log, s->build_dir);
    strbuf_t b = {0};
    const char *p = clean;
    char *l;
    bool in_gcc_diag = false;
    while ((l = next_line(&p)) != NULL) {
        size_t flen;
        int line, col;
        const char *rest;
        origin_t o;
        if (edg_head(l, &flen, &line, &rest) && origin_of(s, l, flen, &o)) {
            in_gcc_diag = false;
            /* the echoed line and caret that follow, when they do */
            const char *q = p;
            char *echo = next_line(&q), *caret = echo ? next_line(&q) : NULL;
            int c = -1;
            if (echo && caret && !strncmp(echo, "  ", 2) && only_caret(caret) && strlen(caret) >= 2) {
                char *own = nth_line(o.text, line);
                if (own) c = caret_in(own, echo + 2, (int)(strchr(caret, '^') - caret) - 2);
                free(own);
                p = q;
            }
            put_diag(&b, &o, line, rest, c);
            free(echo);
            free(caret);
        } else if (gcc_head(l, &flen, &line, &col, &rest) && origin_of(s, l, flen, &o)) {
            in_gcc_diag = true;
            char *own = nth_line(o.text, line);
            put_diag(&b, &o, line, rest, own ? byte_of_column(own, col) : -1);
            free(own);
        } else if (in_gcc_diag && gcc_echo(l)) {
            /* shown already, from the cell's own text */
        } else {
            in_gcc_diag = false;
            relabel_rest(&b, s, l);
        }
        free(l);
    }
    free(clean);
    return sb_take(&b);
}

int program_log_format(const char *log, const program_log_src_t *src, json_t *lines, char **first_error) {
    *first_error = NULL;
    if (!log) return 0;
    char *norm = normalise(log, src);
    int errors = compile_log_format(norm, lines, first_error);
    if (!*first_error) { /* the linker's or nvcc's own words */
        const char *p = norm;
        char *l;
        while (!*first_error && (l = next_line(&p)) != NULL) {
            if (strstr(l, "error") || strstr(l, "fatal") || strstr(l, "undefined reference")) {
                char *t = l;
                while (isspace((unsigned char)*t)) t++;
                *first_error = xstrdup(t);
            }
            free(l);
        }
    }
    free(norm);
    return errors;
}
