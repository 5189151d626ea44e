/* A later unit's rewrites of what it reaches of earlier cells
 * (native_launch.h): default arguments written into launches of their
 * kernels, device code's references to their device variables. */
#include "native_launch.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "runtime/base/xalloc.h"

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The end of the comment, string or character literal at p, or p when
 * none starts there. */
static size_t skip_literal(const char *s, size_t p, size_t n) {
    if (p + 1 < n && s[p] == '/' && s[p + 1] == '/') {
        while (p < n && s[p] != '\n') p++;
        return p;
    }
    if (p + 1 < n && s[p] == '/' && s[p + 1] == '*') {
        for (p += 2; p + 1 < n && !(s[p] == '*' && s[p + 1] == '/'); p++) {}
        return p + 1 < n ? p + 2 : n;
    }
    if (s[p] == '"' || s[p] == '\'') {
        char q = s[p++];
        for (; p < n && s[p] != q; p++)
            if (s[p] == '\\') p++;
        return p < n ? p + 1 : n;
    }
    return p;
}

static size_t skip_space(const char *s, size_t p, size_t n) {
    while (p < n && isspace((unsigned char)s[p])) p++;
    return p;
}

/* From an opening bracket at p: the offset of its closing one, or n; the
 * arguments between them separated by commas at its own depth (0 for none). */
static size_t closing(const char *s, size_t p, size_t n, int *args) {
    int depth = 0;
    bool any = false;
    *args = 0;
    for (size_t i = p; i < n;) {
        size_t e = skip_literal(s, i, n);
        if (e != i) {
            any = true;
            i = e;
            continue;
        }
        char c = s[i];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                *args = any ? *args + 1 : 0;
                return i;
            }
        } else if (c == ',' && depth == 1) (*args)++;
        else if (!isspace((unsigned char)c) && i > p) any = true;
        i++;
    }
    return n;
}

/* The end of the launch configuration "<<<...>>>" starting at p, or 0. */
static size_t config_end(const char *s, size_t p, size_t n) {
    if (p + 3 > n || memcmp(s + p, "<<<", 3)) return 0;
    int depth = 0;
    for (size_t i = p + 3; i + 2 < n;) {
        size_t e = skip_literal(s, i, n);
        if (e != i) {
            i = e;
            continue;
        }
        char c = s[i];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') depth--;
        else if (depth == 0 && !memcmp(s + i, ">>>", 3)) return i + 3;
        i++;
    }
    return 0;
}

static const native_defaulted_t *find(const native_defaulted_list_t *kernels, const char *s, size_t len) {
    for (size_t i = 0; i < kernels->n; i++)
        if (strlen(kernels->v[i].name) == len && !memcmp(kernels->v[i].name, s, len)) return &kernels->v[i];
    return NULL;
}

void native_launch_append(strbuf_t *b, const char *s, size_t n, const native_defaulted_list_t *kernels) {
    if (!kernels || !kernels->n) {
        sb_append(b, s, n);
        return;
    }
    size_t copied = 0;
    for (size_t p = 0; p < n;) {
        size_t e = skip_literal(s, p, n);
        if (e != p) {
            p = e;
            continue;
        }
        if (!ident_char(s[p]) || (p && ident_char(s[p - 1])) || isdigit((unsigned char)s[p])) {
            p++;
            continue;
        }
        size_t id = p;
        while (p < n && ident_char(s[p])) p++;
        const native_defaulted_t *k = find(kernels, s + id, p - id);
        if (!k || (id && s[id - 1] == '.') || (id > 1 && s[id - 1] == '>' && s[id - 2] == '-')) continue;
        size_t at = skip_space(s, p, n);
        if (n - at < 3 || memcmp(s + at, "<<<", 3)) continue;
        /* a launch not closed by the end of the text is not C++: nvcc says
         * so; later ones are left as written (no scan to the end again) */
        size_t cfg = config_end(s, at, n);
        if (!cfg) break;
        size_t open = skip_space(s, cfg, n);
        if (open >= n || s[open] != '(') continue;
        int args;
        size_t close = closing(s, open, n, &args);
        if (close >= n) break;
        int ndef = 0;
        while (k->defaults[ndef]) ndef++;
        if (args < k->nparams && args >= k->nparams - ndef) {
            sb_append(b, s + copied, close - copied);
            for (int a = args; a < k->nparams; a++)
                sb_printf(b, "%s%s", a ? ", " : "", k->defaults[ndef - (k->nparams - a)]);
            copied = close;
        }
        p = close + 1;
    }
    sb_append(b, s + copied, n - copied);
}

/* ---- device code naming an earlier cell's device variable ---- */

typedef native_tok_t tok_t;

tok_t native_next_tok(const char *s, size_t p, size_t n) {
    for (;;) {
        p = skip_space(s, p, n);
        size_t e = skip_literal(s, p, n);
        if (e == p) break;
        if (s[p] == '"' || s[p] == '\'') return (tok_t){p, e - p, '"'};
        p = e;
    }
    if (p >= n) return (tok_t){n, 0, 0};
    if (ident_char(s[p])) {
        size_t e = p;
        while (e < n && ident_char(s[e])) e++;
        return (tok_t){p, e - p, 0};
    }
    if (p + 1 < n && ((s[p] == ':' && s[p + 1] == ':') || (s[p] == '-' && s[p + 1] == '>')))
        return (tok_t){p, 2, s[p] == ':' ? 'Q' : 'A'};
    return (tok_t){p, 1, s[p]};
}

bool native_tok_is(const char *s, native_tok_t t, const char *w) {
    return !t.punct && t.len == strlen(w) && !memcmp(s + t.at, w, t.len);
}

static int var_of(const char *s, tok_t t, const native_names_t *vars) {
    if (t.punct) return -1;
    for (size_t i = 0; i < vars->n; i++)
        if (native_tok_is(s, t, vars->v[i])) return (int)i;
    return -1;
}

bool native_expression_word(const char *s, native_tok_t t) {
    static const char *const words[] = {"return", "case", "sizeof", "else", "do", "throw", "new", "delete",
                                        "co_return", "co_yield", "co_await", "alignof", "typeid", "not", "and",
                                        "or", "goto", NULL};
    for (int i = 0; words[i]; i++)
        if (native_tok_is(s, t, words[i])) return true;
    return (s[t.at] >= '0' && s[t.at] <= '9');
}

static bool type_word(const char *s, tok_t t) {
    static const char *const words[] = {"auto", "const", "volatile", "bool", "char", "short", "int", "long", "float",
                                        "double", "unsigned", "signed", "void", "size_t", NULL};
    for (int i = 0; words[i]; i++)
        if (native_tok_is(s, t, words[i])) return true;
    return false;
}

/* The closing brace of the body whose '{' is at open, or n. */
static size_t body_close(const char *s, size_t open, size_t n) {
    int depth = 0;
    for (tok_t t = native_next_tok(s, open, n); t.at < n; t = native_next_tok(s, t.at + t.len, n)) {
        if (t.punct == '{') depth++;
        else if (t.punct == '}' && --depth == 0) return t.at;
    }
    return n;
}

/* Which vars [head, close) declares: as a parameter between head and the
 * body's '{' at open, or as a local (after a type: float x, T x, int *x). */
static void shadowed(const char *s, size_t head, size_t open, size_t close, const native_names_t *vars, bool *out) {
    tok_t p2 = {0, 0, ';'}, p1 = {0, 0, ';'};
    for (tok_t t = native_next_tok(s, head, close); t.at < close; t = native_next_tok(s, t.at + t.len, close)) {
        int v = var_of(s, t, vars);
        if (v >= 0) {
            if (t.at < open) out[v] = true;
            else if (!p1.punct && !native_expression_word(s, p1)) out[v] = true;
            else if ((p1.punct == '*' || p1.punct == '&') && !p2.punct && type_word(s, p2)) out[v] = true;
        }
        p2 = p1;
        p1 = t;
    }
}

void native_devref_append(strbuf_t *b, const char *s, size_t n, const native_names_t *vars) {
    if (!vars || !vars->n) {
        sb_append(b, s, n);
        return;
    }
    bool *shadow = xcalloc(vars->n, sizeof *shadow);
    size_t copied = 0, head = 0, close = n;
    int parens = 0, braces = 0, pend_parens = 0, pend_braces = 0;
    bool pending = false, in_body = false;
    tok_t prev = {0, 0, ';'};
    for (tok_t t = native_next_tok(s, 0, n); t.at < n; prev = t, t = native_next_tok(s, t.at + t.len, n)) {
        if (in_body) {
            if (t.at == close) {
                in_body = false;
                braces--;
                continue;
            }
            int v = var_of(s, t, vars);
            tok_t nx = native_next_tok(s, t.at + t.len, n);
            if (v >= 0 && !shadow[v] && prev.punct != '.' && prev.punct != 'A' && prev.punct != 'Q' &&
                nx.punct != 'Q') {
                sb_append(b, s + copied, t.at - copied);
                sb_printf(b, "icuda_dev_%s", vars->v[v]);
                copied = t.at + t.len;
            }
            continue;
        }
        if (native_tok_is(s, t, "__global__") || native_tok_is(s, t, "__device__")) {
            if (!pending) head = t.at;
            pending = true;
            pend_parens = parens;
            pend_braces = braces;
        } else if (t.punct == '(') parens++;
        else if (t.punct == ')') parens--;
        else if (t.punct == '{') {
            if (pending && parens == pend_parens && braces == pend_braces) {
                pending = false;
                close = body_close(s, t.at, n);
                memset(shadow, 0, vars->n * sizeof *shadow);
                shadowed(s, head, t.at, close, vars, shadow);
                in_body = close < n;
            }
            braces++;
        } else if (t.punct == '}') braces--;
        else if ((t.punct == ';' || (t.punct == '=' && !native_tok_is(s, prev, "operator"))) && parens == pend_parens &&
                 braces == pend_braces)
            pending = false;
    }
    sb_append(b, s + copied, n - copied);
    free(shadow);
}
