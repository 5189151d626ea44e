/* A small C/C++ token scanner that finds a file-scope definition of main
 * (program_detect.h). It does not parse: it tracks bracket depth and looks
 * at the tokens around the word. */
#include "program_detect.h"

#include <ctype.h>
#include <string.h>

typedef enum { T_END, T_IDENT, T_PUNCT, T_OTHER } tok_kind_t;

typedef struct {
    tok_kind_t kind;
    const char *s;
    size_t n;
} tok_t;

static bool ident_start(char c) { return isalpha((unsigned char)c) || c == '_' || c == '$'; }
static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

/* Past a quoted literal starting at p (which is the quote). */
static const char *skip_quoted(const char *p) {
    char q = *p++;
    while (*p && *p != q && *p != '\n') {
        if (*p == '\\' && p[1]) p++;
        p++;
    }
    return *p == q ? p + 1 : p;
}

/* R"delim( ... )delim" at p (p at the R). */
static const char *skip_raw(const char *p) {
    const char *open = strchr(p + 2, '(');
    if (!open || open - (p + 2) > 16) return skip_quoted(p + 1);
    char close[20];
    size_t dn = (size_t)(open - (p + 2));
    close[0] = ')';
    memcpy(close + 1, p + 2, dn);
    close[dn + 1] = '"';
    close[dn + 2] = 0;
    const char *end = strstr(open + 1, close);
    return end ? end + dn + 2 : p + strlen(p);
}

/* The next token from *pp; comments, white space and preprocessor lines
 * are skipped (*bol: at the beginning of a line, where '#' starts one). */
static tok_t next(const char **pp, bool *bol) {
    const char *p = *pp;
    for (;;) {
        if (*p == '\n') {
            *bol = true;
            p++;
        } else if (isspace((unsigned char)*p)) {
            p++;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else if (*p == '#' && *bol) {
            while (*p && *p != '\n') {
                if (*p == '\\' && p[1] == '\n') p++;
                else if (p[0] == '/' && p[1] == '*') { /* a comment may hide the end of the line */
                    const char *e = strstr(p + 2, "*/");
                    p = e ? e + 1 : p + strlen(p) - 1;
                }
                p++;
            }
        } else {
            break;
        }
    }
    *bol = false;
    tok_t t = {T_OTHER, p, 0};
    if (!*p) {
        t.kind = T_END;
    } else if (ident_start(*p)) {
        t.kind = T_IDENT;
        while (ident_char(*p)) p++;
        t.n = (size_t)(p - t.s);
        bool raw = t.s[t.n - 1] == 'R' && t.n <= 3 && (t.n == 1 || strchr("uUL8", t.s[t.n - 2]));
        if (*p == '"' && raw) p = skip_raw(p - 1); /* R"x(...)x", u8R"(...)" */
        else if ((*p == '"' || *p == '\'') && t.n <= 2) p = skip_quoted(p); /* u8"..", L'x' */
        if (p != t.s + t.n) { /* a literal, not a word */
            t.kind = T_OTHER;
            t.n = 0;
        }
    } else if (*p == '"' || *p == '\'') {
        p = skip_quoted(p);
    } else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        while (ident_char(*p) || *p == '.' || *p == '\'' ||
               ((*p == '+' || *p == '-') && strchr("eEpP", p[-1])))
            p++;
    } else {
        t.kind = T_PUNCT;
        t.n = (p[0] == ':' && p[1] == ':') || (p[0] == '-' && p[1] == '>') ? 2 : 1;
        p += t.n;
    }
    *pp = p;
    return t;
}

static bool is(const tok_t *t, const char *s) { return t->n == strlen(s) && !strncmp(t->s, s, t->n); }

/* After "main": "( ... )" then "{", or "-> type {", or "try {". */
static bool has_body(const char **pp, bool *bol) {
    tok_t t = next(pp, bol);
    if (!is(&t, "(")) return false;
    int depth = 1;
    while (depth > 0) {
        t = next(pp, bol);
        if (t.kind == T_END) return false;
        if (is(&t, "(")) depth++;
        else if (is(&t, ")")) depth--;
    }
    t = next(pp, bol);
    if (is(&t, "->")) /* a trailing return type: words (and ::) up to the body */
        for (t = next(pp, bol); t.kind == T_IDENT || is(&t, "::"); t = next(pp, bol)) {}
    else if (t.kind == T_IDENT && (is(&t, "try") || is(&t, "noexcept")))
        t = next(pp, bol);
    return is(&t, "{");
}

bool program_defines_main(const char *code) {
    if (!code) return false;
    const char *p = code;
    bool bol = true;
    int depth = 0;
    tok_t prev = {T_END, NULL, 0};
    for (;;) {
        tok_t t = next(&p, &bol);
        if (t.kind == T_END) return false;
        if (t.kind == T_PUNCT && strchr("({[", *t.s)) depth++;
        else if (t.kind == T_PUNCT && strchr(")}]", *t.s) && depth > 0) depth--;
        if (depth == 0 && t.kind == T_IDENT && is(&t, "main") && prev.kind == T_IDENT && !is(&prev, "return") &&
            !is(&prev, "struct") && !is(&prev, "class") && !is(&prev, "namespace") && !is(&prev, "enum") &&
            !is(&prev, "union")) {
            const char *q = p;
            bool b = bol;
            if (has_body(&q, &b)) return true;
        }
        prev = t;
    }
}
