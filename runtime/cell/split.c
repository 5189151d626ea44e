#include "split.h"

#include "runtime/base/vec.h"
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A token as the splitter needs it: an identifier/keyword, a literal, or one
 * punctuation character. Comments and whitespace are skipped. */
typedef struct {
    size_t start, end;
    char kind; /* 'i' identifier, 's' string/char literal, 'n' number, 'p' punctuation, 0 end */
} tok_t;

typedef struct {
    const char *s;
    size_t pos, len;
} scan_t;

/* ASCII tests without the locale's table lookup: the splitter runs them
 * on every byte of a cell, and a cell may be 10 MB. */
static inline bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
static inline bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }

static void skip_space(scan_t *sc, bool stop_at_newline) {
    while (sc->pos < sc->len) {
        char c = sc->s[sc->pos];
        if (c == '\n' && stop_at_newline) return;
        if (is_space(c)) {
            sc->pos++;
        } else if (c == '/' && sc->pos + 1 < sc->len && sc->s[sc->pos + 1] == '/') {
            while (sc->pos < sc->len && sc->s[sc->pos] != '\n') sc->pos++;
        } else if (c == '/' && sc->pos + 1 < sc->len && sc->s[sc->pos + 1] == '*') {
            /* by hand, not strstr/memmem: those may measure (or, under ASan,
             * check) the rest of the cell at every comment */
            size_t e = sc->pos + 2;
            while (e + 1 < sc->len && !(sc->s[e] == '*' && sc->s[e + 1] == '/')) e++;
            sc->pos = e + 1 < sc->len ? e + 2 : sc->len;
        } else {
            return;
        }
    }
}

static tok_t next_tok(scan_t *sc) {
    skip_space(sc, false);
    tok_t t = {sc->pos, sc->pos, 0};
    if (sc->pos >= sc->len) return t;
    char c = sc->s[sc->pos];
    if (is_alpha(c) || c == '_') {
        while (sc->pos < sc->len && (is_alnum(sc->s[sc->pos]) || sc->s[sc->pos] == '_'))
            sc->pos++;
        t.kind = 'i';
    } else if (is_digit(c) || (c == '.' && sc->pos + 1 < sc->len && is_digit(sc->s[sc->pos + 1]))) {
        while (sc->pos < sc->len && (is_alnum(sc->s[sc->pos]) || sc->s[sc->pos] == '.' ||
                                     sc->s[sc->pos] == '\'' ||
                                     ((sc->s[sc->pos] == '+' || sc->s[sc->pos] == '-') &&
                                      strchr("eEpP", sc->s[sc->pos - 1]))))
            sc->pos++;
        t.kind = 'n';
    } else if (c == '"' || c == '\'') {
        sc->pos++;
        while (sc->pos < sc->len && sc->s[sc->pos] != c && sc->s[sc->pos] != '\n') {
            if (sc->s[sc->pos] == '\\' && sc->pos + 1 < sc->len) sc->pos++;
            sc->pos++;
        }
        if (sc->pos < sc->len && sc->s[sc->pos] == c) sc->pos++;
        t.kind = 's';
    } else {
        sc->pos++;
        t.kind = 'p';
    }
    t.end = sc->pos;
    return t;
}

static bool tok_is(const scan_t *sc, tok_t t, const char *word) {
    size_t n = strlen(word);
    return t.end - t.start == n && memcmp(sc->s + t.start, word, n) == 0;
}

static bool tok_punct(const scan_t *sc, tok_t t, char c) {
    return t.kind == 'p' && sc->s[t.start] == c;
}

static tok_t peek_tok(const scan_t *sc) {
    scan_t copy = *sc;
    return next_tok(&copy);
}

/* True when only spaces/tabs stand between the start of the line and pos. */
static bool at_line_start(const char *s, size_t pos) {
    while (pos > 0 && (s[pos - 1] == ' ' || s[pos - 1] == '\t')) pos--;
    return pos == 0 || s[pos - 1] == '\n';
}

/* The line of pos, counted on from a known (from, line) before it: items
 * come in order, so the splitter counts each newline once. */
static int line_from(const char *s, size_t from, int line, size_t pos) {
    for (size_t i = from; i < pos; i++)
        if (s[i] == '\n') line++;
    return line;
}

/* Which of words[] (at most 8) the item holds, as bits: one pass over it. */
static unsigned item_words(const char *s, size_t start, size_t end, const char *const *words) {
    scan_t sc = {s, start, end};
    unsigned found = 0;
    for (tok_t t = next_tok(&sc); t.kind; t = next_tok(&sc))
        if (t.kind == 'i' && t.end - t.start > 5 && s[t.start] == '_')
            for (int k = 0; words[k]; k++)
                if (tok_is(&sc, t, words[k])) found |= 1u << k;
    return found;
}

/* Where a declaration's '=' initialiser starts (its '='), or end: CUDA's
 * words after it are a lambda's ([] __device__ (int x) { ... }), not the
 * declaration's, whose variable is main's, on the host. */
static size_t initialiser_at(const char *s, size_t start, size_t end) {
    scan_t sc = {s, start, end};
    int depth = 0;
    for (tok_t t = next_tok(&sc); t.kind; t = next_tok(&sc)) {
        char c = t.kind == 'p' ? s[t.start] : 0;
        if (c == '(' || c == '[' || c == '{') depth++;
        if (c == ')' || c == ']' || c == '}') depth--;
        if (c == '=' && depth == 0 && t.end - t.start == 1 && !(t.end < end && s[t.end] == '=') &&
            !(t.start > start && strchr("=!<>+-*/%&|^", s[t.start - 1])))
            return t.start;
    }
    return end;
}

/* A name into dst: whole when it fits, else its head and a hash of all of
 * it ("head#0123456789abcdef"), so that two long names that differ only
 * past the head still make different keys (a later definition replaces an
 * earlier one of the same key). */
static void copy_span(char *dst, size_t cap, const char *s, size_t n) {
    if (n < cap) {
        memcpy(dst, s, n);
        dst[n] = 0;
        return;
    }
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    size_t head = cap - 18;
    memcpy(dst, s, head);
    snprintf(dst + head, cap - head, "#%016llx", (unsigned long long)h);
}
static void copy_name(char *dst, size_t cap, const char *s, tok_t t) { copy_span(dst, cap, s + t.start, t.end - t.start); }

/* Names the item and says whether it is a function definition or a variable:
 * the identifier before the first top-level '(' (skipping attribute-like
 * calls), else the last identifier before '=', '[', ';' or '{'. */
/* An item's key and name while it is classified; push() keeps them in the
 * split's text store (split.h). */
typedef struct { char key[128], name[96]; } item_text_t;

static void name_item(const char *s, cell_item_t *it, item_text_t *tx) {
    scan_t sc = {s, it->start, it->end};
    tok_t last_ident = {0, 0, 0}, first = next_tok(&sc);
    sc.pos = it->start;
    static const char *skip_calls[] = {"__launch_bounds__", "__attribute__", "__align__", "alignas",
                                       "__declspec", "__cluster_dims__", "__maxnreg__", NULL};
    bool is_type = false, base_clause = false;
    char type_word[16] = "";
    tok_t type_tag = {0, 0, 0};
    int angle = 0;
    for (tok_t t = next_tok(&sc); t.kind; t = next_tok(&sc)) {
        if (t.kind == 'i') {
            bool skip = false;
            for (int k = 0; skip_calls[k]; k++)
                if (tok_is(&sc, t, skip_calls[k])) skip = true;
            if (skip) { /* skip its parenthesised arguments */
                tok_t p = next_tok(&sc);
                if (tok_punct(&sc, p, '(')) {
                    int depth = 1;
                    while (depth > 0) {
                        tok_t q = next_tok(&sc);
                        if (!q.kind) break;
                        if (tok_punct(&sc, q, '(')) depth++;
                        if (tok_punct(&sc, q, ')')) depth--;
                    }
                }
                continue;
            }
            if (!is_type && (tok_is(&sc, t, "struct") || tok_is(&sc, t, "union") || tok_is(&sc, t, "enum") ||
                             tok_is(&sc, t, "class"))) {
                is_type = true;
                copy_name(type_word, sizeof type_word, s, t);
                scan_t ahead = sc; /* the tag, past "class" of enum class and attributes */
                tok_t tag = next_tok(&ahead);
                for (bool more = true; more && tag.kind == 'i';) {
                    more = false;
                    if (tok_is(&ahead, t, "enum") && (tok_is(&ahead, tag, "class") || tok_is(&ahead, tag, "struct"))) {
                        tag = next_tok(&ahead);
                        more = true;
                    }
                    for (int k = 0; skip_calls[k] && !more; k++)
                        if (tok_is(&ahead, tag, skip_calls[k]) && tok_punct(&ahead, peek_tok(&ahead), '(')) {
                            int depth = 0;
                            do {
                                tag = next_tok(&ahead);
                                if (tok_punct(&ahead, tag, '(')) depth++;
                                if (tok_punct(&ahead, tag, ')')) depth--;
                            } while (tag.kind && depth > 0);
                            tag = next_tok(&ahead);
                            more = true;
                        }
                }
                if (tag.kind == 'i') type_tag = tag;
            }
            last_ident = t;
        } else if (t.kind == 'p') {
            char c = s[t.start];
            if (c == '<') angle++;
            if (c == '>' && angle > 0) angle--;
            if (angle) continue;
            if (c == '(' && last_ident.kind) {
                copy_name(tx->name, sizeof tx->name, s, last_ident);
                /* Is there a body? A '{' after the matching ')'. */
                int depth = 1;
                tok_t q = t;
                while (depth > 0 && (q = next_tok(&sc)).kind) {
                    if (tok_punct(&sc, q, '(')) depth++;
                    if (tok_punct(&sc, q, ')')) depth--;
                }
                for (q = next_tok(&sc); q.kind; q = next_tok(&sc)) {
                    if (tok_punct(&sc, q, '{')) { it->is_function = true; break; }
                    if (tok_punct(&sc, q, ';') || tok_punct(&sc, q, '=')) break;
                }
                if (!it->is_function && !tok_is(&sc, first, "typedef")) it->is_variable = true;
                break;
            }
            if (c == ':' && is_type && type_tag.kind && last_ident.start == type_tag.start) {
                base_clause = true; /* enum E : unsigned char {, struct D : B { */
                continue;
            }
            if (c == '{' && is_type && type_tag.kind && (last_ident.start == type_tag.start || base_clause)) {
                char tag[80];
                copy_name(tag, sizeof tag, s, type_tag);
                snprintf(tx->name, sizeof tx->name, "%s", tag);
                snprintf(tx->key, sizeof tx->key, "type:%s %s", type_word, tag);
                return;
            }
            if (c == '=' || c == '[' || c == ';' || c == '{' || c == ',') {
                if (last_ident.kind) copy_name(tx->name, sizeof tx->name, s, last_ident);
                if (c == '{' && is_type) { /* anonymous struct/enum: the name comes after the body */
                    int depth = 1;
                    tok_t q;
                    while (depth > 0 && (q = next_tok(&sc)).kind) {
                        if (tok_punct(&sc, q, '{')) depth++;
                        if (tok_punct(&sc, q, '}')) depth--;
                    }
                    tok_t nm = next_tok(&sc);
                    if (nm.kind == 'i') copy_name(tx->name, sizeof tx->name, s, nm);
                } else if (!tok_is(&sc, first, "typedef")) {
                    it->is_variable = true;
                }
                break;
            }
        }
    }
    if (tx->name[0]) {
        if (tok_is(&sc, first, "typedef")) snprintf(tx->key, sizeof tx->key, "type:%s", tx->name);
        else if (it->is_function) snprintf(tx->key, sizeof tx->key, "fn:%s", tx->name);
        else snprintf(tx->key, sizeof tx->key, "var:%s", tx->name);
    }
}

/* An #include's header and where it goes (include_routes.h). A header
 * icuda may not have stays on the device side, where the engine checks it
 * before anything runs; one inside the cell's own #if may never be read, so
 * it goes to NVRTC unchecked, as it always did. */
static void route_include(const char *s, size_t after_directive, cell_item_t *it, item_text_t *tx) {
    it->is_include = true;
    it->include_route = INC_DEVICE;
    it->kind = ITEM_DEVICE;
    if (!include_name(s + after_directive, it->end - after_directive, tx->name, sizeof tx->name, &it->include_angle)) {
        tx->name[0] = 0; /* #include MACRO: NVRTC's business */
        return;
    }
    it->include_route = include_route(tx->name);
    if (it->include_route == INC_HOST) it->kind = ITEM_HOST;
    else if (it->include_route == INC_BOTH) it->kind = ITEM_BOTH;
}

/* `using namespace X;` and `namespace a = b;` (and `using T = type;`, a
 * typedef) at the top of a cell: both sides, as #define is. `using std::x;`
 * is the host's. */
static bool namespace_item(const char *s, cell_item_t *it, item_text_t *tx) {
    scan_t sc = {s, it->start, it->end};
    tok_t a = next_tok(&sc), b = next_tok(&sc), c = next_tok(&sc);
    bool using_ns = tok_is(&sc, a, "using") && tok_is(&sc, b, "namespace");
    bool alias = tok_is(&sc, a, "namespace") && b.kind == 'i' && tok_punct(&sc, c, '=');
    bool using_type = tok_is(&sc, a, "using") && b.kind == 'i' && tok_punct(&sc, c, '=');
    if (!using_ns && !alias && !using_type) return false;
    it->kind = ITEM_BOTH;
    if (using_ns) { /* the namespace's qualified name */
        size_t from = b.end, to = it->end;
        char *name = xmalloc(to - from + 1);
        size_t n = 0;
        for (size_t i = from; i < to; i++)
            if (!isspace((unsigned char)s[i]) && s[i] != ';') name[n++] = s[i];
        copy_span(tx->name, sizeof tx->name, name, n);
        free(name);
        snprintf(tx->key, sizeof tx->key, "using:%s", tx->name);
    } else {
        copy_name(tx->name, sizeof tx->name, s, b);
        snprintf(tx->key, sizeof tx->key, "%s:%s", alias ? "nsalias" : "type", tx->name);
    }
    return true;
}

/* Whether a struct/union/class body declares a member function (a name
 * followed by '(' at the body's own depth, "~T(" and "operator" included),
 * as opposed to data members such as a function pointer "void (*f)(int)". */
static bool has_member_functions(const char *s, const cell_item_t *it) {
    static const char *not_functions[] = {"__align__", "alignas", "__attribute__", "__declspec", "static_assert",
                                          "_Static_assert", "sizeof", "decltype", "alignof", NULL};
    scan_t sc = {s, it->start, it->end};
    int braces = 0, parens = 0;
    bool operator_seen = false; /* "operator" in the member declaration so far */
    tok_t prev = {0, 0, 0};
    for (tok_t t = next_tok(&sc); t.kind; prev = t, t = next_tok(&sc)) {
        if (braces == 1 && tok_is(&sc, t, "operator")) operator_seen = true;
        if (t.kind != 'p') continue;
        char c = s[t.start];
        if (braces == 1 && parens == 0 && (c == ';' || c == '{' || c == '}')) operator_seen = false;
        if (c == '{') braces++;
        else if (c == '}') braces--;
        else if (c == ')') parens--;
        else if (c == '(') {
            if (braces == 1 && parens == 0 && operator_seen) return true;
            if (braces == 1 && parens == 0 && prev.kind == 'i') {
                bool skip = false;
                for (int k = 0; not_functions[k]; k++) skip |= tok_is(&sc, prev, not_functions[k]);
                tok_t nx = peek_tok(&sc);
                bool fn_pointer = tok_punct(&sc, nx, '*') || tok_punct(&sc, nx, '&') || tok_punct(&sc, nx, '^');
                if (!skip && !fn_pointer) return true;
            }
            parens++;
        }
    }
    return false;
}

/* The end of a type's body when declarators follow it ("} u;", "} a, *b;"),
 * else 0. Attributes after the body ("} __attribute__((aligned(16)));")
 * are the type's, not declarators. */
static size_t type_body_end(const char *s, const cell_item_t *it) {
    scan_t sc = {s, it->start, it->end};
    int depth = 0;
    for (tok_t t = next_tok(&sc); t.kind; t = next_tok(&sc)) {
        if (tok_punct(&sc, t, '{')) depth++;
        if (tok_punct(&sc, t, '}') && --depth == 0) {
            size_t body_end = t.end;
            tok_t nx = next_tok(&sc);
            while (tok_is(&sc, nx, "__attribute__") || tok_is(&sc, nx, "__align__") || tok_is(&sc, nx, "alignas")) {
                int parens = 0;
                do { /* its parenthesised arguments */
                    nx = next_tok(&sc);
                    if (tok_punct(&sc, nx, '(')) parens++;
                    if (tok_punct(&sc, nx, ')')) parens--;
                } while (nx.kind && parens > 0);
                nx = next_tok(&sc);
            }
            return nx.kind && !tok_punct(&sc, nx, ';') ? body_end : 0;
        }
    }
    return 0;
}

/* "template <typename T> void fill(T *p, int n);": after the template's
 * parameter list, a declarator whose name is followed by a parameter list
 * and no body, not a class ("template <class T> struct S;") nor a variable
 * template ("template <class T> T pi = T(3.14);"). */
static bool template_prototype(const char *s, const cell_item_t *it) {
    scan_t sc = {s, it->start, it->end};
    tok_t t = next_tok(&sc); /* "template" */
    int angle = 0;
    for (t = next_tok(&sc); t.kind; t = next_tok(&sc)) { /* its parameter list */
        if (tok_punct(&sc, t, '<')) angle++;
        else if (tok_punct(&sc, t, '>') && --angle == 0) break;
    }
    tok_t prev = {0, 0, 0};
    angle = 0;
    for (t = next_tok(&sc); t.kind; prev = t, t = next_tok(&sc)) {
        if (tok_is(&sc, t, "struct") || tok_is(&sc, t, "class") || tok_is(&sc, t, "union") || tok_is(&sc, t, "using") ||
            tok_is(&sc, t, "template"))
            return false;
        if (t.kind != 'p') continue;
        char c = s[t.start];
        if (c == '<') angle++;
        else if (c == '>' && angle > 0) angle--;
        else if (angle == 0 && (c == '=' || c == ';' || c == '{' || c == '[')) return false;
        else if (angle == 0 && c == '(') return prev.kind == 'i' && !it->is_function;
    }
    return false;
}

static void classify(const char *s, cell_item_t *it, item_text_t *tx) {
    scan_t sc = {s, it->start, it->end};
    tok_t first = next_tok(&sc);
    if (tok_punct(&sc, first, '#')) {
        tok_t d = next_tok(&sc);
        bool is_define = tok_is(&sc, d, "define"), is_undef = tok_is(&sc, d, "undef");
        it->kind = (is_define || is_undef) ? ITEM_BOTH : ITEM_DEVICE;
        tok_t nm = next_tok(&sc);
        if ((is_define || is_undef) && nm.kind == 'i') {
            copy_name(tx->name, sizeof tx->name, s, nm);
            snprintf(tx->key, sizeof tx->key, "macro:%s", tx->name);
        } else if (tok_is(&sc, d, "include")) {
            size_t a = d.end, b = it->end;
            while (a < b && isspace((unsigned char)s[a])) a++;
            while (b > a && isspace((unsigned char)s[b - 1])) b--;
            snprintf(tx->key, sizeof tx->key, "include:%.*s", (int)(b - a), s + a);
            route_include(s, d.end, it, tx);
        }
        return;
    }
    if (namespace_item(s, it, tx)) return;
    static const char *const cuda_words[] = {"__global__", "__device__", "__host__", "__constant__", "__managed__", NULL};
    it->is_template = tok_is(&sc, first, "template");
    size_t head_end = it->is_template ? it->end : initialiser_at(s, it->start, it->end);
    unsigned w = item_words(s, it->start, head_end, cuda_words);
    bool global = w & 1, device = w & 2, host = w & 4, constant = w & 8, managed = w & 16;
    bool extern_c = tok_is(&sc, first, "extern") && s[next_tok(&sc).start] == '"';
    name_item(s, it, tx);
    it->is_kernel = global && it->is_function;
    bool is_type = strncmp(tx->key, "type:", 5) == 0 && !it->is_function;
    if (host && device && !global) it->kind = ITEM_BOTH;
    else if (global || device || constant || managed || extern_c)
        it->kind = ITEM_DEVICE;
    else if (it->is_template && (it->is_function || template_prototype(s, it)))
        it->kind = ITEM_HOST; /* a function template (or its prototype) without CUDA's words is host code */
    else if (is_type && has_member_functions(s, it))
        it->kind = ITEM_HOST; /* a timer or a wrapper class (or class template): host member functions NVRTC cannot take */
    else if (it->is_template)
        it->kind = ITEM_DEVICE;
    else if (is_type)
        it->kind = ITEM_BOTH;
    else
        it->kind = ITEM_HOST;
    if (is_type && it->kind == ITEM_BOTH && !tok_is(&sc, first, "typedef")) it->device_end = type_body_end(s, it);
    if (it->kind == ITEM_DEVICE && it->is_variable && tx->name[0]) {
        snprintf(tx->key, sizeof tx->key, "devvar:%s", tx->name);
        it->is_managed = managed;
    }
}

/* The split's copy of an item's text: "" and a repeat of the item before's
 * (t++; after t++;) cost nothing; the rest goes in blocks that never move. */
struct split_text { struct split_text *next; size_t used, cap; char data[]; };

static const char *keep_text(cell_split_t *out, const char *t, const char *prev) {
    if (!t[0]) return "";
    if (prev && !strcmp(prev, t)) return prev;
    size_t n = strlen(t) + 1;
    struct split_text *b = out->texts;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 16384 ? n : 16384;
        b = malloc(sizeof *b + cap);
        if (!b) {
            out->no_memory = true;
            return "";
        }
        b->used = 0;
        b->cap = cap;
        b->next = out->texts;
        out->texts = b;
    }
    char *r = memcpy(b->data + b->used, t, n);
    b->used += n;
    return r;
}

static void push(cell_split_t *out, const char *s, size_t start, size_t end, item_kind_t forced, bool force) {
    while (start < end && isspace((unsigned char)s[start])) start++;
    while (end > start && isspace((unsigned char)s[end - 1])) end--;
    if (start == end) return;
    /* A lone ';' (after a function body) is no item. */
    scan_t sc = {s, start, end};
    tok_t t = next_tok(&sc);
    if (!t.kind || (tok_punct(&sc, t, ';') && !next_tok(&sc).kind)) return;
    if (out->no_memory) return;
    if (out->n == out->cap) { /* a cell of short statements has millions: out of memory is the cell's error */
        size_t nc = out->cap ? out->cap * 2 : 64;
        cell_item_t *v = realloc(out->items, nc * sizeof *v);
        if (!v) {
            out->no_memory = true;
            return;
        }
        out->items = v;
        out->cap = nc;
    }
    cell_item_t *it = &out->items[out->n++];
    const cell_item_t *before = out->n > 1 ? it - 1 : NULL;
    int first_line = before ? line_from(s, before->start, before->first_line, start) : line_from(s, 0, 1, start);
    memset(it, 0, sizeof *it);
    it->start = start;
    it->end = end;
    it->first_line = first_line;
    it->last_line = it->first_line;
    for (size_t i = start; i < end; i++)
        if (s[i] == '\n') it->last_line++;
    item_text_t tx = {"", ""};
    if (force) it->kind = forced;
    else classify(s, it, &tx);
    it->key = keep_text(out, tx.key, before ? before->key : NULL);
    it->name = keep_text(out, tx.name, before ? before->name : NULL);
}

/* Does the '{' that opened the top-level brace begin a body that ends the item
 * at its '}' (function, control statement, block, namespace, extern "C")
 * rather than a type body or an initializer that continues to ';'? */
static bool brace_ends_item(const scan_t *sc, size_t item_start, tok_t before_brace, bool head_has_type_word,
                            tok_t paren_callee) {
    if (!before_brace.kind) return true; /* a bare block */
    const char *s = sc->s;
    if (before_brace.kind == 'p') {
        char c = s[before_brace.start];
        /* struct __align__(8) { ... } T; is a type whose body goes on to ';' */
        if (c == ')' && head_has_type_word && paren_callee.kind == 'i' &&
            (tok_is(sc, paren_callee, "__align__") || tok_is(sc, paren_callee, "alignas") ||
             tok_is(sc, paren_callee, "__attribute__") || tok_is(sc, paren_callee, "__declspec")))
            return false;
        if (c == ')') return true;
        if (c == '=' || c == ',' || c == '(' || c == '[' || c == ']') return false;
        return false;
    }
    if (before_brace.kind == 'i') {
        if (tok_is(sc, before_brace, "else") || tok_is(sc, before_brace, "do") || tok_is(sc, before_brace, "try") ||
            tok_is(sc, before_brace, "const") || tok_is(sc, before_brace, "noexcept"))
            return true;
        scan_t h = {s, item_start, sc->len};
        tok_t first = next_tok(&h);
        if (tok_is(&h, first, "namespace")) return true;
        if (head_has_type_word) return false;
        return false;
    }
    if (before_brace.kind == 's') return true; /* extern "C" { */
    return false;
}

/* +1 for #if/#ifdef/#ifndef, -1 for #endif, 0 for any other # line. */
static int conditional_directive(const char *s, const cell_item_t *it) {
    scan_t sc = {s, it->start, it->end};
    next_tok(&sc);
    tok_t d = next_tok(&sc);
    if (tok_is(&sc, d, "if") || tok_is(&sc, d, "ifdef") || tok_is(&sc, d, "ifndef")) return 1;
    return tok_is(&sc, d, "endif") ? -1 : 0;
}

void split_cell(const char *code, cell_split_t *out) {
    memset(out, 0, sizeof *out);
    scan_t sc = {code, 0, strlen(code)};
    if (sc.len >= UINT32_MAX) { /* items hold 32-bit offsets */
        out->too_long = true;
        return;
    }
    size_t item_start = 0;
    int depth = 0;          /* (), [] and {} together */
    bool in_item = false;
    tok_t prev = {0, 0, 0}, before_top_brace = {0, 0, 0}, paren_callee = {0, 0, 0};
    bool head_type = false, head_do = false, do_saw_while = false;
    size_t brace_head_start = 0;
    int pp_depth = 0;       /* the cell's own #if nesting */
    for (;;) {
        skip_space(&sc, false);
        if (sc.pos >= sc.len) break;
        if (depth == 0 && at_line_start(code, sc.pos) &&
            (code[sc.pos] == '#' || (code[sc.pos] == '%' && !in_item))) {
            if (in_item) { /* a '#' line ends an unterminated item */
                push(out, code, item_start, sc.pos, 0, false);
                in_item = false;
            }
            size_t start = sc.pos;
            bool magic = code[sc.pos] == '%';
            while (sc.pos < sc.len && code[sc.pos] != '\n') {
                if (!magic && code[sc.pos] == '\\' && sc.pos + 1 < sc.len && code[sc.pos + 1] == '\n') sc.pos++;
                sc.pos++;
            }
            size_t before = out->n;
            push(out, code, start, sc.pos, ITEM_MAGIC, magic);
            if (!magic && out->n > before) {
                cell_item_t *it = &out->items[out->n - 1];
                int dir = conditional_directive(code, it);
                if (dir < 0 && pp_depth > 0) pp_depth--;
                it->in_conditional = pp_depth > 0;
                if (dir > 0) pp_depth++;
            }
            continue;
        }
        tok_t t = next_tok(&sc);
        if (!t.kind) break;
        if (!in_item) {
            in_item = true;
            item_start = t.start;
            prev = (tok_t){0, 0, 0};
            paren_callee = (tok_t){0, 0, 0};
            head_type = false;
            head_do = tok_is(&sc, t, "do");
            do_saw_while = false;
            brace_head_start = t.start;
        }
        bool would_end = false;
        if (t.kind == 'i' && depth == 0 &&
            (tok_is(&sc, t, "struct") || tok_is(&sc, t, "union") || tok_is(&sc, t, "enum") ||
             tok_is(&sc, t, "class") || tok_is(&sc, t, "typedef")))
            head_type = true;
        if (t.kind == 'i' && depth == 0 && head_do && tok_is(&sc, t, "while") && prev.kind &&
            (tok_punct(&sc, prev, ';') || tok_punct(&sc, prev, '}')))
            do_saw_while = true;
        if (t.kind == 'p') {
            char c = code[t.start];
            if (c == '(' || c == '[' || c == '{') {
                if (c == '{' && depth == 0) before_top_brace = prev;
                if (c == '(' && depth == 0) paren_callee = prev; /* what the last top-level ( follows */
                if (++depth > SPLIT_MAX_DEPTH && !out->too_deep_line)
                    out->too_deep_line = line_from(code, 0, 1, t.start);
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth > 0) depth--;
                if (c == '}' && depth == 0 &&
                    brace_ends_item(&sc, brace_head_start, before_top_brace, head_type, paren_callee))
                    would_end = true;
            } else if (c == ';' && depth == 0) {
                would_end = true;
            }
        }
        prev = t;
        if (would_end) {
            tok_t nx = peek_tok(&sc);
            /* if ... else, try ... catch: one statement */
            if (nx.kind == 'i' && (tok_is(&sc, nx, "else") || tok_is(&sc, nx, "catch"))) continue;
            if (head_do && !do_saw_while) continue;
            /* "void f() {};" keeps its stray ';' in the item */
            if (code[t.start] == '}' && tok_punct(&sc, nx, ';')) next_tok(&sc);
            push(out, code, item_start, sc.pos, 0, false);
            in_item = false;
        }
    }
    if (in_item) push(out, code, item_start, sc.len, 0, false);
}

void split_free(cell_split_t *s) {
    free(s->items);
    for (struct split_text *b = s->texts, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    memset(s, 0, sizeof *s);
}

char *split_view(const char *code, const cell_split_t *s, size_t from, size_t to, bool (*keep)(const cell_item_t *)) {
    size_t n = strlen(code);
    char *v = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) v[i] = code[i] == '\n' ? '\n' : ' ';
    v[n] = 0;
    for (size_t k = from; k < to && k < s->n; k++)
        if (keep(&s->items[k])) memcpy(v + s->items[k].start, code + s->items[k].start, s->items[k].end - s->items[k].start);
    return v;
}

bool split_is_cell_magic(const char *code) {
    scan_t sc = {code, 0, strlen(code)};
    skip_space(&sc, false);
    return sc.pos + 1 < sc.len && code[sc.pos] == '%' && code[sc.pos + 1] == '%';
}
