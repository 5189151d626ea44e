/* Default arguments written into launches of earlier cells' kernels
 * (native_launch.h). */
#include "native_launch.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

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
