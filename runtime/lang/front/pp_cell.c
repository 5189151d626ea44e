/* A cell's conditionals between items, decided before the cell is split.
 *
 * The splitter cuts a cell into items and sends each to the host, the
 * device or both; a device unit puts the session's #defines and #includes
 * before everything else. An #if ... #endif around items would be torn
 * apart by that, so the conditionals that begin between items (at brace
 * depth 0) are decided here, once per side, the way that side's
 * preprocessor would: the host with the session's macros (__CUDACC__, no
 * __CUDA_ARCH__), the device with __CUDA_ARCH__ too. What a group not
 * taken holds, and the directive lines themselves, become spaces (newlines
 * kept, so every line stays where it was). Conditionals inside a body are
 * left to that side's own preprocessor (lex.c, NVRTC). #error and #warning
 * between items are this cell's: an error at its line, a warning on stderr.
 * The cell's own #define/#undef count from where they stand, but the
 * session's macros are left as they were: the cell defines them when it
 * runs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include "front.h"
#include "runtime/base/xalloc.h"

#include "runtime/base/cell_io.h"
#include "runtime/lang/interp.h"
#define CUDA_VERSION_NUMBER CUDART_VERSION

typedef struct {
    bool resolved;    /* decided here (it began between items) */
    bool taking;      /* resolved: the group now read is taken */
    bool taken;       /* resolved: one of its groups was taken */
    bool seen_else;
    bool first_group; /* left to the side: still in its #if group, whose braces count */
    int line;
    char name[8];
} cond_t;

struct pp_cell {
    interp_t *in;
    hmap_t session;      /* the session's macros, put aside while the cell's copy is used */
    src_t *src;          /* made when a directive is lexed */
    const char *code, *cell;
    char *out;
    const cell_io_t *io; /* #warning goes here when set */
    cond_t st[64];
    int n;
    int depth;           /* braces of the text kept */
    bool any_resolved;
};
typedef struct pp_cell pp_t;

static loc_t at_line(pp_t *p, int line) {
    if (!p->src) p->src = src_new(p->in, p->cell, p->code);
    return (loc_t){p->src, line, 0, 1};
}

static bool taking(const pp_t *p) {
    for (int i = 0; i < p->n; i++)
        if (p->st[i].resolved && !p->st[i].taking) return false;
    return true;
}

static bool inside_unresolved(const pp_t *p) {
    for (int i = 0; i < p->n; i++)
        if (!p->st[i].resolved) return true;
    return false;
}

static bool counting_braces(const pp_t *p) {
    for (int i = 0; i < p->n; i++)
        if (!p->st[i].resolved && !p->st[i].first_group) return false;
    return taking(p);
}

static void blank(pp_t *p, size_t from, size_t to) {
    for (size_t i = from; i < to; i++)
        if (p->out[i] != '\n') p->out[i] = ' ';
}

/* The tokens of the directive at [from, to), which starts line `line`. */
static tokvec_t directive_tokens(pp_t *p, size_t from, size_t to, int line) {
    if (!p->src) p->src = src_new(p->in, p->cell, p->code);
    char *text = pool_alloc(&p->in->scratch, to - from + 1);
    memcpy(text, p->code + from, to - from);
    text[to - from] = 0;
    tokvec_t tv = {0};
    lex_span(p->in, p->src, text, line, &tv);
    return tv;
}

/* The directive's words after its name, as written (for #error). */
static void directive_rest(const char *code, size_t name_end, size_t to, char *buf, size_t cap) {
    size_t n = 0;
    for (size_t i = name_end; i < to && n + 1 < cap; i++) {
        if (code[i] == '\\' && i + 1 < to && code[i + 1] == '\n') { i++; continue; }
        if (n == 0 && isspace((unsigned char)code[i])) continue;
        buf[n++] = code[i] == '\n' ? ' ' : code[i];
    }
    while (n && isspace((unsigned char)buf[n - 1])) n--;
    buf[n] = 0;
}

static bool open_conditional(pp_t *p, const char *dn, tokvec_t *tv, int line, size_t from, size_t to) {
    if (p->n >= 63) {
        loc_t l = at_line(p, line);
        syntax_error(&l, "#if nested too deeply");
    }
    cond_t *c = &p->st[p->n];
    memset(c, 0, sizeof *c);
    c->line = line;
    snprintf(c->name, sizeof c->name, "%.7s", dn);
    bool on = taking(p);
    c->resolved = !on || (p->depth == 0 && !inside_unresolved(p));
    c->first_group = true;
    if (on && c->resolved) {
        *tv = directive_tokens(p, from, to, line);
        token_t *v = tv->v + 2;
        int n = tv->n - 3; /* without '#', the name and the end */
        if (!strcmp(dn, "if")) {
            if (n < 1) syntax_error(&tv->v[1].loc, "#if with no expression");
            c->taking = lex_pp_if(p->in, v, n);
        } else {
            if (n < 1) syntax_error(&tv->v[1].loc, "no macro name given in #%s directive", dn);
            c->taking = lex_pp_defined(p->in, v) == (dn[2] == 'd');
        }
        c->taken = c->taking;
        p->any_resolved = true;
    } else if (!on) {
        c->taken = true; /* inside a group not taken: none of its groups is */
    }
    p->n++;
    return c->resolved;
}

/* #elif, #else, #endif: true when the line is this file's (to be blanked). */
static bool continue_conditional(pp_t *p, const char *dn, int line, size_t from, size_t to) {
    if (!p->n) {
        loc_t l = at_line(p, line);
        syntax_error(&l, "#%s without #if", dn);
    }
    cond_t *c = &p->st[p->n - 1];
    if (!strcmp(dn, "endif")) {
        p->n--;
        return c->resolved;
    }
    if (c->seen_else) {
        loc_t l = at_line(p, line);
        syntax_error(&l, "#%s after #else (the #%s of line %d)", dn, c->name, c->line);
    }
    if (!c->resolved) {
        c->first_group = false;
        return false;
    }
    c->seen_else = !strcmp(dn, "else");
    p->n--; /* the parent's state decides whether this group can be taken */
    bool parent_on = taking(p);
    p->n++;
    bool take = false;
    if (parent_on && !c->taken) {
        if (c->seen_else) {
            take = true;
        } else {
            tokvec_t tv = directive_tokens(p, from, to, line);
            if (tv.n < 4) syntax_error(&tv.v[1].loc, "#elif with no expression");
            take = lex_pp_if(p->in, tv.v + 2, tv.n - 3);
        }
    }
    c->taking = take;
    c->taken |= take;
    return true;
}

/* Braces of a line of code (not in strings, character constants or
 * comments); *comment carries an open block comment to the next line. */
static int line_braces(const char *s, size_t from, size_t to, bool *comment) {
    int d = 0;
    for (size_t i = from; i < to; i++) {
        char c = s[i];
        if (*comment) {
            if (c == '*' && i + 1 < to && s[i + 1] == '/') { *comment = false; i++; }
            continue;
        }
        if (c == '/' && i + 1 < to && s[i + 1] == '/') break;
        if (c == '/' && i + 1 < to && s[i + 1] == '*') { *comment = true; i++; continue; }
        if (c == '"' || (c == '\'' && !(i > from && isalnum((unsigned char)s[i - 1])))) {
            for (i++; i < to && s[i] != c; i++)
                if (s[i] == '\\') i++;
            continue;
        }
        if (c == '{') d++;
        if (c == '}') d--;
    }
    return d;
}

static void directive(pp_t *p, size_t from, size_t hash, size_t to, int line) {
    size_t a = hash + 1;
    while (a < to && (p->code[a] == ' ' || p->code[a] == '\t')) a++;
    size_t b = a;
    while (b < to && (isalnum((unsigned char)p->code[b]) || p->code[b] == '_')) b++;
    char dn[32];
    snprintf(dn, sizeof dn, "%.*s", (int)(b - a < 31 ? b - a : 31), p->code + a);
    bool on = taking(p);
    if (!strcmp(dn, "if") || !strcmp(dn, "ifdef") || !strcmp(dn, "ifndef")) {
        tokvec_t tv;
        if (open_conditional(p, dn, &tv, line, from, to)) blank(p, from, to);
        return;
    }
    if (!strcmp(dn, "elif") || !strcmp(dn, "else") || !strcmp(dn, "endif")) {
        if (continue_conditional(p, dn, line, from, to) || !on) blank(p, from, to);
        return;
    }
    if (!on) {
        blank(p, from, to);
        return;
    }
    bool ours = !inside_unresolved(p); /* not inside a conditional left to the side */
    char rest[512];
    directive_rest(p->code, b, to, rest, sizeof rest);
    if (!strcmp(dn, "define") || !strcmp(dn, "undef")) {
        if (!ours) return;
        tokvec_t tv = directive_tokens(p, from, to, line);
        if (tv.n < 4 || !(tv.v[2].kind == TK_IDENT || tv.v[2].kind == TK_KW))
            syntax_error(&tv.v[1].loc, "macro names must be identifiers");
        if (dn[0] == 'd') {
            lex_pp_define(p->in, tv.v + 2, tv.n - 3);
        } else
            hmap_deln(&p->in->macros, tv.v[2].s, (size_t)tv.v[2].n);
    } else if (!strcmp(dn, "error") && ours) {
        loc_t l = at_line(p, line);
        l.col = (int)(hash - from);
        l.len = (int)(b - hash);
        syntax_error(&l, "#error %s", rest);
    } else if (!strcmp(dn, "warning") && ours) {
        if (p->io && p->io->stream) {
            char msg[640];
            int k = snprintf(msg, sizeof msg, "%s, line %d: warning: %s\n", p->cell, line, rest);
            p->io->stream(p->io->ctx, "stderr", msg, (size_t)(k < (int)sizeof msg ? k : (int)sizeof msg - 1));
        }
        blank(p, from, to);
    } else if ((!strcmp(dn, "pragma") && !strcmp(rest, "once")) || !strcmp(dn, "line") || (!dn[0] && a == to)) {
        if (p->depth == 0) blank(p, from, to); /* nothing for a cell: it is no file of its own */
    } else if (dn[0] && strcmp(dn, "include") && strcmp(dn, "pragma") && strcmp(dn, "error") &&
               strcmp(dn, "warning") && strcmp(dn, "include_next") && ours) {
        loc_t l = at_line(p, line);
        l.col = (int)(hash - from);
        l.len = (int)(b - hash);
        syntax_error(&l, "invalid preprocessing directive #%s", dn);
    }
}

static void scan(pp_t *p) {
    const char *s = p->code;
    size_t len = strlen(s), i = 0;
    int line = 1;
    bool comment = false;
    while (i < len) {
        size_t from = i, end = i;
        while (end < len && s[end] != '\n') end++;
        size_t k = from;
        while (k < end && (s[k] == ' ' || s[k] == '\t')) k++;
        if (!comment && k < end && s[k] == '#') {
            size_t to = end; /* continued with '\' */
            int lines = 1;
            while (to > from && to < len && s[to - 1] == '\\') {
                to++;
                while (to < len && s[to] != '\n') to++;
                lines++;
            }
            directive(p, from, k, to, line);
            line += lines;
            i = to < len ? to + 1 : len;
            continue;
        }
        bool counted = counting_braces(p);
        int d = line_braces(s, from, end, &comment);
        if (counted) p->depth += d;
        if (!taking(p)) blank(p, from, end);
        line++;
        i = end < len ? end + 1 : len;
    }
    if (p->n) {
        loc_t l = at_line(p, p->st[p->n - 1].line);
        syntax_error(&l, "unterminated #%s: it has no #endif in this cell", p->st[p->n - 1].name);
    }
}

bool pp_cell_has_directive(const char *code) {
    for (const char *l = code; l; l = strchr(l, '\n')) {
        if (*l == '\n') l++;
        while (*l == ' ' || *l == '\t') l++;
        if (*l == '#') return true;
    }
    return false;
}

pp_cell_t *pp_cell_begin(interp_t *in, const char *code, const char *cell, const cell_io_t *io) {
    pp_cell_t *p = xcalloc(1, sizeof *p);
    p->in = in;
    p->code = code;
    p->cell = cell;
    p->io = io;
    p->out = xstrdup(code);
    p->session = in->macros; /* the cell's #defines are tried on a copy */
    size_t cap = (size_t)(p->session.cap ? p->session.cap : 1);
    in->macros.keys = xmalloc(sizeof *p->session.keys * cap);
    in->macros.vals = xmalloc(sizeof *p->session.vals * cap);
    if (p->session.cap) {
        memcpy(in->macros.keys, p->session.keys, sizeof *p->session.keys * (size_t)p->session.cap);
        memcpy(in->macros.vals, p->session.vals, sizeof *p->session.vals * (size_t)p->session.cap);
    }
    return p;
}

void pp_cell_run(pp_cell_t *p, int cuda_arch) {
    if (cuda_arch) {
        char defs[96];
        snprintf(defs, sizeof defs, "#define __CUDA_ARCH__ %d\n#define __CUDACC_RTC__ 1\n", cuda_arch);
        lex_define_text(p->in, defs);
    }
    scan(p);
}

char *pp_cell_end(pp_cell_t *p, bool ok, bool *decided) {
    interp_t *in = p->in;
    hmap_free(&in->macros);
    in->macros = p->session;
    pool_free(&in->scratch);
    char *out = p->out;
    *decided = p->any_resolved;
    free(p);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* What nvcc defines for host code, besides __CUDACC__ (builtins_cuda.c):
 * the compiler's version is the toolkit's. */
void pp_predefine(interp_t *in) {
    char defs[512];
    snprintf(defs, sizeof defs,
             "#define __NVCC__ 1\n#define __cplusplus 201703L\n#define __CUDACC_VER_MAJOR__ %d\n"
             "#define __CUDACC_VER_MINOR__ %d\n#define __CUDACC_VER_BUILD__ 0\n#define __STDC__ 1\n"
             "#define __STDC_VERSION__ 201112L\n",
             CUDA_VERSION_NUMBER / 1000, CUDA_VERSION_NUMBER % 1000 / 10);
    lex_define_text(in, defs);
}
