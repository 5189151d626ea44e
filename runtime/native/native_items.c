/* The items of a native C++ cell, each with what it is for later cells
 * (native_items.h). */
#include "native_items.h"

#include "native_closure.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"

/* ---- tokens ---- */

typedef enum { TK_ID, TK_NUM, TK_STR, TK_PUNCT } tkind_t;

typedef struct {
    tkind_t k;
    const char *s;
    size_t n;
} tok_t;

typedef VEC(tok_t) toks_t;

static const char *const puncts[] = {"...", "<<=", ">>=", "->*", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
                                     "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", ".*", NULL};

static bool is_id_start(char c) { return isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80; }
static bool is_id_char(char c) { return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80; }

static void lex(const char *s, size_t n, toks_t *out) {
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (isspace((unsigned char)c)) { i++; continue; }
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n') i++;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) i++;
            i += 2;
            continue;
        }
        size_t b = i;
        if (c == 'R' && i + 1 < n && s[i + 1] == '"') { /* a raw string: R"delim( ... )delim" */
            size_t d = i + 2;
            while (d < n && s[d] != '(' && d - i < 20) d++;
            char close[24];
            int cl = snprintf(close, sizeof close, ")%.*s\"", (int)(d - i - 2), s + i + 2);
            const char *e = d < n ? strstr(s + d, close) : NULL;
            i = e && (size_t)(e - s) < n ? (size_t)(e - s) + (size_t)cl : n;
            VEC_PUSH(*out, ((tok_t){TK_STR, s + b, i - b}));
            continue;
        }
        if (c == '"' || c == '\'') {
            i++;
            while (i < n && s[i] != c) i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
            i++;
            if (i > n) i = n;
            VEC_PUSH(*out, ((tok_t){TK_STR, s + b, i - b}));
            continue;
        }
        if (is_id_start(c)) {
            while (i < n && is_id_char(s[i])) i++;
            if (i < n && (s[i] == '"' || s[i] == '\'') && i - b <= 2) continue; /* u8"..", L'x': the literal follows */
            VEC_PUSH(*out, ((tok_t){TK_ID, s + b, i - b}));
            continue;
        }
        if (isdigit((unsigned char)c) || (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
            while (i < n && (is_id_char(s[i]) || s[i] == '.' || s[i] == '\'' ||
                             ((s[i] == '+' || s[i] == '-') && strchr("eEpP", s[i - 1]))))
                i++;
            VEC_PUSH(*out, ((tok_t){TK_NUM, s + b, i - b}));
            continue;
        }
        size_t len = 1;
        for (int k = 0; puncts[k]; k++) {
            size_t pl = strlen(puncts[k]);
            if (i + pl <= n && !memcmp(s + i, puncts[k], pl)) {
                len = pl;
                break;
            }
        }
        i += len;
        VEC_PUSH(*out, ((tok_t){TK_PUNCT, s + b, len}));
    }
}

static bool is(const tok_t *t, const char *w) { return t && t->n == strlen(w) && !memcmp(t->s, w, t->n); }

static bool is_one_of(const tok_t *t, const char *const *words) {
    for (int i = 0; words[i]; i++)
        if (is(t, words[i])) return true;
    return false;
}

static const char *const builtin_types[] = {"void", "bool", "char", "short", "int", "long", "float", "double",
                                            "signed", "unsigned", "wchar_t", "char8_t", "char16_t", "char32_t",
                                            "__int128", "auto", "half", "size_t", NULL};
static const char *const statement_words[] = {"if", "for", "while", "do", "switch", "return", "break", "continue",
                                              "goto", "try", "throw", "delete", "case", "default", "else",
                                              "co_return", "co_await", "co_yield", NULL};
static const char *const keywords[] = {"void", "bool", "char", "short", "int", "long", "float", "double", "signed",
                                       "unsigned", "wchar_t", "auto", "const", "volatile", "static", "extern",
                                       "inline", "constexpr", "struct", "class", "union", "enum", "typename",
                                       "register", "mutable", "thread_local", "__restrict__", "__restrict",
                                       "restrict", NULL};

/* ---- declarations told from expressions ---- */

typedef struct {
    const toks_t *t;
    size_t i;
} cur_t;

static const tok_t *at(const cur_t *c, size_t k) { return c->i + k < c->t->n ? &c->t->v[c->i + k] : NULL; }

/* Skips a balanced group starting at the open bracket at c->i. */
static bool skip_group(cur_t *c) {
    const tok_t *o = at(c, 0);
    if (!o) return false;
    char open = o->s[0], close = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : 0;
    if (!close || o->n != 1) return false;
    int depth = 0;
    for (; c->i < c->t->n; c->i++) {
        const tok_t *x = &c->t->v[c->i];
        if (x->k != TK_PUNCT || x->n != 1) continue;
        if (x->s[0] == '(' || x->s[0] == '[' || x->s[0] == '{') depth++;
        else if (x->s[0] == ')' || x->s[0] == ']' || x->s[0] == '}') {
            if (--depth == 0) {
                c->i++;
                return true;
            }
        }
    }
    return false;
}

/* Template arguments: '<' ... '>' with nesting ('>>' closes two). */
static bool skip_angles(cur_t *c) {
    int depth = 0;
    for (; c->i < c->t->n; c->i++) {
        const tok_t *x = &c->t->v[c->i];
        if (is(x, ";") || is(x, "{") || is(x, "}")) return false;
        if (is(x, "(") || is(x, "[")) {
            if (!skip_group(c)) return false;
            c->i--;
            continue;
        }
        if (is(x, "<")) depth++;
        else if (is(x, ">")) depth--;
        else if (is(x, ">>")) depth -= 2;
        if (depth <= 0) {
            c->i++;
            return depth == 0;
        }
    }
    return false;
}

/* A qualified name, "a::b<int>::c"; false when there is none. */
static bool qualified_name(cur_t *c) {
    if (is(at(c, 0), "::")) c->i++;
    for (;;) {
        const tok_t *t = at(c, 0);
        if (!t || t->k != TK_ID) return false;
        c->i++;
        if (is(at(c, 0), "<") && !skip_angles(c)) return false;
        if (!is(at(c, 0), "::")) return true;
        c->i++;
    }
}

/* One declarator's tokens: [start, end) is its pointer operators, name and
 * array bounds; [init, init_end) the expression after '=' (init 0: none). */
typedef struct {
    size_t start, end, init, init_end;
    bool other_init; /* (...) or {...}, or braces after '=' */
} dtor_t;

typedef struct {
    bool is_decl;
    bool is_const;     /* const or constexpr object (not a pointer to const) */
    bool is_function;  /* a function declaration (a prototype) */
    bool has_lambda;   /* an initializer is a lambda */
    const char *capture, *capture_end; /* the first such lambda's [captures] */
    bool has_init;
    bool plain_spec;   /* the type before the declarators is numbers only: int, unsigned long, size_t, ... */
    bool void_spec;    /* the type before the declarators names void: no object has it */
    size_t spec_end;   /* where the first declarator starts */
    VEC(char *) names;
    VEC(dtor_t) dtors;
} decl_t;

static char *tok_str(const tok_t *t) { return xstrndup(t->s, t->n); }

/* One declarator after the type: pointer operators, a name, its
 * initializer. False when the shape is not a declarator. */
static bool declarator(cur_t *c, decl_t *d, bool first) {
    bool ptr = false;
    dtor_t dt = {c->i, 0, 0, 0, false};
    for (;;) {
        const tok_t *t = at(c, 0);
        if (is(t, "*") || is(t, "&") || is(t, "&&")) ptr = true;
        else if (!(is(t, "const") || is(t, "volatile") || is(t, "__restrict__") || is(t, "__restrict"))) break;
        c->i++;
    }
    if (first && ptr) d->is_const = false;
    const tok_t *name = at(c, 0);
    if (is(name, "(") && is(at(c, 1), "*") && at(c, 2) && at(c, 2)->k == TK_ID && is(at(c, 3), ")")) {
        name = at(c, 2); /* a pointer to function: (*name)(...) */
        c->i += 4;
        if (!is(at(c, 0), "(") || !skip_group(c)) return false;
        d->is_const = false;
    } else if (name && name->k == TK_ID && !is_one_of(name, keywords)) {
        c->i++;
        while (is(at(c, 0), "::") && at(c, 1) && at(c, 1)->k == TK_ID) {
            name = at(c, 1); /* Foo::count: registered by its last part */
            c->i += 2;
        }
    } else {
        return false;
    }
    const tok_t *nx = at(c, 0);
    if (!(is(nx, ";") || is(nx, "=") || is(nx, "(") || is(nx, "{") || is(nx, "[") || is(nx, ","))) return false;
    if (is(nx, "(") && first) {
        const tok_t *in = at(c, 1);
        const tok_t *in2 = at(c, 2), *in3 = at(c, 3);
        if (is(in, ")") || is_one_of(in, builtin_types) || is(in, "const") || is(in, "struct") || is(in, "...") ||
            is(in, "volatile") || (d->void_spec && !ptr))
            d->is_function = true;
        /* a parameter of a named type: (Complex a, ...) or (Complex *, ...);
         * no expression has two names in a row or ends with '*' or '&' */
        else if (in && in->k == TK_ID && in2 &&
                 ((in2->k == TK_ID && !is_one_of(in2, keywords)) ||
                  ((is(in2, "*") || is(in2, "&")) && (is(in3, ",") || is(in3, ")")))))
            d->is_function = true;
    }
    VEC_PUSH(d->names, tok_str(name));
    while (is(at(c, 0), "[")) {
        if (!skip_group(c)) return false;
    }
    dt.end = c->i;
    if (is(at(c, 0), "(") || is(at(c, 0), "{")) {
        d->has_init = true;
        dt.other_init = true;
        if (!skip_group(c)) return false;
        if (d->is_function) {
            while (at(c, 0) && !is(at(c, 0), ";") && !is(at(c, 0), ",")) c->i++; /* const, noexcept, -> T */
        }
    } else if (is(at(c, 0), "=")) {
        d->has_init = true;
        c->i++;
        dt.init = c->i;
        if (is(at(c, 0), "[")) {
            cur_t g = *c;
            if (!d->has_lambda && skip_group(&g) && g.i > c->i) {
                d->capture = at(c, 0)->s;
                d->capture_end = c->t->v[g.i - 1].s + 1;
            }
            d->has_lambda = true;
        }
        if (is(at(c, 0), "{")) dt.other_init = true;
        while (at(c, 0) && !is(at(c, 0), ",") && !is(at(c, 0), ";")) {
            if (is(at(c, 0), "(") || is(at(c, 0), "[") || is(at(c, 0), "{")) {
                if (!skip_group(c)) return false;
            } else {
                c->i++;
            }
        }
        dt.init_end = c->i;
    }
    VEC_PUSH(d->dtors, dt);
    return true;
}

static void decl_free(decl_t *d) {
    for (size_t i = 0; i < d->names.n; i++) free(d->names.v[i]);
    VEC_FREE(d->names);
    VEC_FREE(d->dtors);
}

/* The names of numbers the interpreter and C++ lay out alike. */
static const char *const number_types[] = {"bool", "char", "short", "int", "long", "float", "double", "signed",
                                           "unsigned", "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t",
                                           "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
                                           "int64_t", "uint64_t", NULL};

static void parse_decl(const toks_t *t, decl_t *d) {
    memset(d, 0, sizeof *d);
    cur_t c = {t, 0};
    bool typed = false, is_auto = false;
    for (;;) {
        const tok_t *x = at(&c, 0);
        if (is(x, "const") || is(x, "constexpr")) d->is_const = true;
        if (is(x, "static") || is(x, "extern") || is(x, "inline") || is(x, "thread_local") || is(x, "register") ||
            is(x, "mutable") || is(x, "volatile") || is(x, "const") || is(x, "constexpr") || is(x, "typename") ||
            is(x, "__managed__")) {
            c.i++;
            continue;
        }
        if (is(x, "struct") || is(x, "class") || is(x, "union") || is(x, "enum")) {
            c.i++;
            if (!qualified_name(&c)) return;
            typed = true;
            break;
        }
        break;
    }
    if (!typed) {
        const tok_t *x = at(&c, 0);
        if (is_one_of(x, builtin_types)) {
            is_auto = is(x, "auto");
            while (is_one_of(at(&c, 0), builtin_types) || is(at(&c, 0), "const") || is(at(&c, 0), "volatile")) {
                if (is(at(&c, 0), "const")) d->is_const = true;
                c.i++;
            }
        } else if (is(x, "decltype")) {
            c.i++;
            if (!is(at(&c, 0), "(") || !skip_group(&c)) return;
        } else if (!qualified_name(&c)) {
            return;
        }
    }
    while (is(at(&c, 0), "const") || is(at(&c, 0), "volatile")) {
        if (is(at(&c, 0), "const")) d->is_const = true;
        c.i++;
    }
    /* auto [a, b] = ...: a structured binding */
    if (is_auto && (is(at(&c, 0), "[") || ((is(at(&c, 0), "&") || is(at(&c, 0), "&&")) && is(at(&c, 1), "[")))) {
        if (!is(at(&c, 0), "[")) c.i++;
        size_t b = c.i;
        if (!skip_group(&c) || !is(at(&c, 0), "=")) return;
        for (size_t k = b + 1; k + 1 < c.i; k++)
            if (t->v[k].k == TK_ID) VEC_PUSH(d->names, tok_str(&t->v[k]));
        d->is_decl = d->names.n > 0;
        d->has_init = true;
        return;
    }
    d->spec_end = c.i;
    d->plain_spec = c.i > 0;
    for (size_t k = 0; k < c.i; k++) d->plain_spec = d->plain_spec && is_one_of(&t->v[k], number_types);
    for (size_t k = 0; k < c.i; k++) d->void_spec = d->void_spec || is(&t->v[k], "void");
    if (!declarator(&c, d, true)) {
        decl_free(d);
        memset(d, 0, sizeof *d);
        return;
    }
    while (is(at(&c, 0), ",")) {
        c.i++;
        if (!declarator(&c, d, false)) {
            decl_free(d);
            memset(d, 0, sizeof *d);
            return;
        }
    }
    d->is_decl = is(at(&c, 0), ";") || !at(&c, 0);
    if (!d->is_decl) {
        decl_free(d);
        memset(d, 0, sizeof *d);
    }
}

/* ---- kernels ---- */

static char *text_of(const char *s, size_t a, size_t b) {
    while (a < b && isspace((unsigned char)s[a])) a++;
    while (b > a && isspace((unsigned char)s[b - 1])) b--;
    return xstrndup(s + a, b - a);
}

/* Whether a parameter (its tokens [a, b)) names itself: its last word is a
 * name that follows another word of its type. */
static bool param_named(const toks_t *t, size_t a, size_t b, size_t *name_end) {
    size_t e = b;
    while (e > a && is(&t->v[e - 1], "]")) { /* float x[] */
        int depth = 0;
        while (e > a) {
            e--;
            if (is(&t->v[e], "]")) depth++;
            else if (is(&t->v[e], "[") && --depth == 0) break;
        }
    }
    *name_end = e;
    if (e <= a + 1) return false;
    const tok_t *last = &t->v[e - 1], *before = &t->v[e - 2];
    return last->k == TK_ID && !is_one_of(last, keywords) && !is_one_of(last, builtin_types) && !is(before, "::");
}

static void kernel_parts(const char *s, size_t base, const toks_t *t, native_item_t *it) {
    size_t body = 0;
    for (size_t k = 0; k < t->n; k++)
        if (is(&t->v[k], "{")) {
            body = k;
            break;
        }
    if (!body || !is(&t->v[body - 1], ")")) return;
    size_t close = body - 1, open = close;
    int depth = 0;
    for (size_t k = close + 1; k-- > 0;) {
        if (is(&t->v[k], ")")) depth++;
        else if (is(&t->v[k], "(") && --depth == 0) {
            open = k;
            break;
        }
    }
    if (open == close || open == 0 || t->v[open - 1].k != TK_ID) return;
    it->names = xcalloc(1, sizeof *it->names);
    it->names[0] = tok_str(&t->v[open - 1]);
    it->nnames = 1;
    char *head = text_of(s, base, (size_t)(t->v[body].s - s));
    it->decl = xasprintf("%s;", head);
    free(head);
    /* the parameters, each named */
    strbuf_t params = {0}, args = {0};
    VEC(char *) defaults = {0};
    size_t a = open + 1;
    int np = 0;
    bool ok = true;
    for (size_t k = open + 1; k <= close && ok; k++) {
        const tok_t *x = &t->v[k];
        if (is(x, "(") || is(x, "[") || is(x, "{") || is(x, "<")) depth++;
        else if ((is(x, ")") || is(x, "]") || is(x, "}") || is(x, ">")) && k != close) depth--;
        else if (is(x, ">>")) depth -= 2;
        if (!(k == close || (depth == 0 && is(x, ",")))) continue;
        size_t b = k, e = b;
        for (size_t q = a; q < b; q++)
            if (is(&t->v[q], "=")) { /* a default argument */
                e = q;
                break;
            }
        if (e < b) {
            VEC_PUSH(defaults, text_of(s, (size_t)(t->v[e + 1].s - s), (size_t)(t->v[b].s - s)));
        } else { /* defaults are the last parameters': one without ends the run */
            for (size_t q = 0; q < defaults.n; q++) free(defaults.v[q]);
            defaults.n = 0;
        }
        if (e == a) {
            if (k == close && np == 0) break; /* () */
            ok = false;
            break;
        }
        if (e == a + 1 && is(&t->v[a], "void") && k == close && np == 0) break; /* (void) */
        for (size_t q = a; q < e; q++)
            if (is(&t->v[q], "(")) ok = false; /* a pointer to function: left alone */
        if (!ok) break;
        size_t name_end;
        bool named = param_named(t, a, e, &name_end);
        const char *ps = t->v[a].s, *pe = t->v[e - 1].s + t->v[e - 1].n;
        char pname[64];
        if (named) {
            snprintf(pname, sizeof pname, "%.*s", (int)t->v[name_end - 1].n, t->v[name_end - 1].s);
            sb_printf(&params, "%s%.*s", np ? ", " : "", (int)(pe - ps), ps);
        } else {
            snprintf(pname, sizeof pname, "icuda_p%d", np);
            const char *split = name_end < e ? t->v[name_end].s : pe; /* before an array's brackets */
            sb_printf(&params, "%s%.*s %s%.*s", np ? ", " : "", (int)(split - ps), ps, pname, (int)(pe - split), split);
        }
        sb_printf(&args, "%s(void *)&%s", np ? ", " : "", pname);
        np++;
        a = k + 1;
    }
    if (ok) {
        it->params = sb_take(&params);
        it->args = sb_take(&args);
        it->nparams = np;
        if (defaults.n) {
            VEC_PUSH(defaults, NULL);
            it->defaults = defaults.v;
            defaults.v = NULL;
        }
    } else {
        free(params.data);
        free(args.data);
    }
    for (size_t q = 0; defaults.v && q < defaults.n; q++) free(defaults.v[q]);
    free(defaults.v);
}

/* ---- items ---- */

static bool type_definition(const toks_t *t) {
    /* struct/class/union/enum [class] [Name] [final] {  or  : base */
    size_t k = 1;
    if (k < t->n && (is(&t->v[k], "class") || is(&t->v[k], "struct"))) k++; /* enum class */
    while (k < t->n && (t->v[k].k == TK_ID || is(&t->v[k], "::"))) k++;
    if (k < t->n && is(&t->v[k], "<")) return true; /* a partial specialization */
    return k < t->n && (is(&t->v[k], "{") || is(&t->v[k], ":"));
}

/* An enum's tag and its enumerators: a later cell that names only an
 * enumerator (True of enum { False, True }) needs the enum as much as one
 * that names its tag. Nothing for any other item. */
static void enum_names(const toks_t *t, native_item_t *it) {
    size_t k = is(&t->v[0], "typedef") ? 1 : 0;
    if (k >= t->n || !is(&t->v[k], "enum")) return;
    k++;
    if (k < t->n && (is(&t->v[k], "class") || is(&t->v[k], "struct"))) k++;
    VEC(char *) names = {0};
    if (k < t->n && t->v[k].k == TK_ID) VEC_PUSH(names, xstrndup(t->v[k].s, t->v[k].n));
    while (k < t->n && !is(&t->v[k], "{")) k++;
    int depth = 0;
    bool want = true; /* the next identifier names an enumerator */
    for (k++; k < t->n; k++) {
        const tok_t *x = &t->v[k];
        if (is(x, "(") || is(x, "[") || is(x, "{")) depth++;
        else if (is(x, ")") || is(x, "]")) depth--;
        else if (is(x, "}") && depth-- == 0) break;
        else if (depth == 0 && is(x, ",")) want = true;
        else if (want && depth == 0 && x->k == TK_ID) {
            VEC_PUSH(names, xstrndup(x->s, x->n));
            want = false;
        } else want = false;
    }
    it->names = names.v;
    it->nnames = (int)names.n;
}

static char *tok_span(const toks_t *t, size_t a, size_t b) {
    if (a >= b) return xstrdup("");
    return xstrndup(t->v[a].s, (size_t)(t->v[b - 1].s + t->v[b - 1].n - t->v[a].s));
}

/* A declaration of numbers (and pointers and arrays of them), each
 * declarator at most "= expression": the interpreter can hold its
 * variables, so that interpreted cells see them too. The declarations
 * without initialisers, and the initialisations as assignments. */
static void share_texts(const char *code, const toks_t *t, const decl_t *d, native_item_t *it) {
    (void)code;
    if (!d->plain_spec || d->is_const || d->dtors.n != d->names.n) return;
    for (size_t k = 0; k < d->dtors.n; k++) {
        const dtor_t *dt = &d->dtors.v[k];
        if (dt->other_init) return;
        /* what the interpreter can hand to native code as it is: a number, a
         * pointer to numbers, an array of numbers; not a pointer to pointers
         * (char **argv) nor an array of pointers */
        int stars = 0;
        bool bracket = false;
        for (size_t j = dt->start; j < dt->end; j++) {
            stars += is(&t->v[j], "*");
            bracket |= is(&t->v[j], "[");
        }
        if (stars > 1 || (stars && bracket)) return;
    }
    char *spec = tok_span(t, 0, d->spec_end);
    strbuf_t decl = {0}, init = {0};
    for (size_t k = 0; k < d->dtors.n; k++) {
        const dtor_t *dt = &d->dtors.v[k];
        char *dn = tok_span(t, dt->start, dt->end);
        sb_printf(&decl, "%s %s;\n", spec, dn);
        free(dn);
        if (dt->init) {
            char *e = tok_span(t, dt->init, dt->init_end);
            sb_printf(&init, "%s = %s;\n", d->names.v[k], e);
            free(e);
        }
    }
    free(spec);
    it->share_decl = sb_take(&decl);
    it->share_init = init.len ? sb_take(&init) : NULL;
}

/* __device__, __constant__ or __managed__ among a declaration's specifiers
 * (not in its initializer: a __device__ lambda makes no device variable). */
static bool device_specified(const toks_t *t) {
    for (size_t k = 0; k < t->n; k++) {
        const tok_t *x = &t->v[k];
        if (is(x, "=") || is(x, "(") || is(x, "{") || is(x, ";")) return false;
        if (is(x, "__device__") || is(x, "__constant__") || is(x, "__managed__")) return true;
    }
    return false;
}

/* __global__ among a declaration's specifiers and a ';' after its
 * parameters: a kernel's prototype, a declaration like a function's. */
static bool kernel_prototype(const toks_t *t) {
    bool global = false;
    for (size_t k = 0; k < t->n; k++) {
        const tok_t *x = &t->v[k];
        if (is(x, "=") || is(x, "{")) return false;
        if (is(x, "__global__")) global = true;
        if (is(x, "(") && global) return is(&t->v[t->n - 1], ";");
    }
    return false;
}

/* A specifier only functions take (__host__, inline) before parentheses
 * and a ';': a function's prototype, whose parameters may be bare type
 * names (Complex Mul(Complex, Complex);) that read like a constructor's
 * arguments. */
static bool function_prototype(const toks_t *t) {
    static const char *const only_functions[] = {"__host__", "inline", "__inline__", "__forceinline__", "__noinline__",
                                                 NULL};
    bool marked = false;
    for (size_t k = 0; k < t->n; k++) {
        const tok_t *x = &t->v[k];
        if (is(x, "=") || is(x, "{")) return false;
        for (int w = 0; only_functions[w]; w++) marked |= is(x, only_functions[w]);
        if (is(x, "(")) return marked && t->n && is(&t->v[t->n - 1], ";");
    }
    return false;
}

static size_t lambda_captures(const toks_t *t, size_t j);

/* Whether tokens [a, b) hold an extended lambda ([=] __device__ (...)),
 * which nvcc takes only inside a function. */
static bool extended_lambda_in(const toks_t *t, size_t a, size_t b) {
    bool lambda = false, device = false;
    for (size_t j = a; j < b; j++) {
        if (is(&t->v[j], "[") && lambda_captures(t, j)) lambda = true;
        if (is(&t->v[j], "__device__")) device = true;
    }
    return lambda && device;
}

static void classify(const char *code, const cell_item_t *ci, native_item_t *it) {
    toks_t t = {0};
    lex(code + ci->start, ci->end - ci->start, &t);
    snprintf(it->key, sizeof it->key, "%s", ci->key);
    const tok_t *f = t.n ? &t.v[0] : NULL;
    if (!f) {
        it->kind = NI_STATEMENT;
    } else if (is(f, "#")) {
        it->kind = NI_PP;
    } else if (is_one_of(f, statement_words) || is(f, "{") || is(f, ";")) {
        it->kind = NI_STATEMENT;
    } else if (ci->is_kernel && !ci->is_template) {
        it->kind = NI_KERNEL;
        kernel_parts(code, ci->start, &t, it);
    } else if (!ci->is_template && !ci->is_function && kernel_prototype(&t)) {
        it->kind = NI_REPEAT; /* each cell its own copy of the prototype */
        snprintf(it->key, sizeof it->key, "proto:%s", ci->name);
    } else if (ci->is_variable && !ci->is_template && function_prototype(&t)) {
        it->kind = NI_REPEAT;
        snprintf(it->key, sizeof it->key, "fn:%s", ci->name);
    } else if (ci->is_variable && !ci->is_template && device_specified(&t)) {
        it->kind = NI_DEVICE_VAR;
        toks_t rest = {0};
        for (size_t k = 0; k < t.n; k++)
            if (!is(&t.v[k], "__device__") && !is(&t.v[k], "__constant__") && !is(&t.v[k], "__managed__") &&
                !is(&t.v[k], "static"))
                VEC_PUSH(rest, t.v[k]);
        decl_t d;
        parse_decl(&rest, &d);
        it->nnames = (int)d.names.n;
        it->names = d.names.v;
        VEC_FREE(d.dtors);
        free(rest.v);
    } else if (ci->is_template || ci->is_function || is(f, "template") || is(f, "typedef") || is(f, "using") ||
               is(f, "namespace") || is(f, "static_assert") || is(f, "__device__") || is(f, "__host__") ||
               is(f, "__global__") || (is(f, "extern") && t.n > 1 && t.v[1].k == TK_STR)) {
        it->kind = NI_REPEAT;
        if (is(f, "typedef")) enum_names(&t, it);
    } else if ((is(f, "struct") || is(f, "class") || is(f, "union") || is(f, "enum")) && type_definition(&t)) {
        it->kind = NI_REPEAT;
        enum_names(&t, it);
    } else {
        decl_t d;
        parse_decl(&t, &d);
        if (!d.is_decl) {
            it->kind = NI_STATEMENT;
            decl_free(&d);
        } else if (d.is_function || (d.is_const && d.has_init) || d.has_lambda) {
            it->kind = NI_REPEAT; /* prototypes, constants and lambdas: each cell its own */
            if (!it->key[0] && d.names.n) snprintf(it->key, sizeof it->key, "var:%s", d.names.v[0]);
            if (d.capture && d.capture >= code + it->start && d.capture_end <= code + it->end) {
                it->capture = (size_t)(d.capture - code);
                it->capture_end = (size_t)(d.capture_end - code);
            }
            decl_free(&d);
        } else {
            it->kind = NI_VARIABLE;
            it->nnames = (int)d.names.n;
            it->names = d.names.v;
            if (d.names.n) snprintf(it->key, sizeof it->key, "var:%s", d.names.v[0]);
            share_texts(code, &t, &d, it);
            const dtor_t *dt = d.dtors.n == 1 ? &d.dtors.v[0] : NULL;
            bool deduced = false; /* auto: no function returning it can be written before it */
            for (size_t j = 0; j < d.spec_end && j < t.n; j++) deduced |= is(&t.v[j], "auto") || is(&t.v[j], "static");
            if (dt && !deduced && dt->init && dt->init_end > dt->init && extended_lambda_in(&t, dt->init, dt->init_end)) {
                it->lambda_init = (size_t)(t.v[dt->init - 1].s - code); /* its '=' */
                it->lambda_init_end = (size_t)(t.v[dt->init_end - 1].s + t.v[dt->init_end - 1].n - code);
            }
            VEC_FREE(d.dtors);
        }
    }
    free(t.v);
}

void native_item_of(const char *code, const cell_item_t *ci, native_item_t *it) {
    memset(it, 0, sizeof *it);
    it->start = ci->start;
    it->end = ci->end;
    it->first_line = ci->first_line;
    classify(code, ci, it);
    if (it->kind == NI_STATEMENT) it->key[0] = 0; /* "x = 3;" defines nothing for later cells */
}

/* The directive word of a # line ("if", "include", ...) into w. */
static void directive_word(const char *t, size_t n, char w[16]) {
    size_t i = 0, k = 0;
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '#')) i++;
    while (i < n && k < 15 && t[i] >= 'a' && t[i] <= 'z') w[k++] = t[i++];
    w[k] = 0;
}

/* An #if ... #endif that holds an #include and, besides # lines, only
 * what is repeated whole (a template of the header's types, as in #if
 * CUDART_VERSION < 5000 / #include <cuda.h> / template ... / #endif) is one
 * # item: the unit puts a cell's #includes first, and moving the # lines
 * without the code between them would leave that code outside its #if. */
static void keep_conditionals_whole(const char *code, native_items_t *out) {
    for (size_t i = 0; i < out->n; i++) {
        char w[16];
        if (out->v[i].kind != NI_PP) continue;
        directive_word(code + out->v[i].start, out->v[i].end - out->v[i].start, w);
        if (strcmp(w, "if") && strcmp(w, "ifdef") && strcmp(w, "ifndef")) continue;
        int depth = 0;
        bool include = false, plain = true, guards = false;
        size_t j = i;
        for (; j < out->n; j++) {
            const native_item_t *it = &out->v[j];
            if (it->kind != NI_PP) {
                plain &= it->kind == NI_REPEAT;
                guards = true;
                continue;
            }
            directive_word(code + it->start, it->end - it->start, w);
            if (!strcmp(w, "if") || !strcmp(w, "ifdef") || !strcmp(w, "ifndef")) depth++;
            else if (!strcmp(w, "endif") && --depth == 0) break;
            else if (!strcmp(w, "include")) include = true;
        }
        if (j == out->n) return; /* no #endif in this cell: left as it is */
        if (!include || !plain || !guards) {
            i = j;
            continue;
        }
        out->v[i].end = out->v[j].end;
        out->v[i].key[0] = 0;
        for (size_t k = i + 1; k <= j; k++) native_item_free(&out->v[k]);
        memmove(&out->v[i + 1], &out->v[j + 1], (out->n - j - 1) * sizeof *out->v);
        out->n -= j - i;
    }
}

void native_items(const char *code, const cell_split_t *sp, native_items_t *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *ci = &sp->items[i];
        if (ci->kind == ITEM_MAGIC) continue;
        native_item_t it;
        native_item_of(code, ci, &it);
        VEC_PUSH(*out, it);
    }
    /* a #pragma before a statement (omp parallel for, unroll) is the statement's */
    for (size_t i = 0; i + 1 < out->n; i++) {
        native_item_t *it = &out->v[i];
        if (it->kind != NI_PP || out->v[i + 1].kind != NI_STATEMENT) continue;
        const char *t = code + it->start;
        t += strspn(t, " \t#");
        if (!strncmp(t, "pragma", 6) && strncmp(t + 6 + strspn(t + 6, " \t"), "once", 4)) {
            it->kind = NI_STATEMENT;
            it->key[0] = 0;
        }
    }
    keep_conditionals_whole(code, out);
}

void native_item_free(native_item_t *it) {
    for (int k = 0; k < it->nnames; k++) free(it->names[k]);
    free(it->names);
    free(it->decl);
    free(it->params);
    free(it->args);
    native_strv_free(it->defaults);
    free(it->share_decl);
    free(it->share_init);
}

void native_items_free(native_items_t *items) {
    for (size_t i = 0; i < items->n; i++) native_item_free(&items->v[i]);
    VEC_FREE(*items);
}

/* Captures that name only what a global holds: a capture-default and plain
 * names ("&", "=, &n", "a, &b"), not an initialiser ("x = 1") nor this. */
static bool plain_captures(const char *s, const char *e) {
    bool after_name = false;
    for (const char *p = s; p < e; p++) {
        if (is_id_start(*p)) {
            const char *q = p;
            while (q < e && is_id_char(*q)) q++;
            if ((size_t)(q - p) == 4 && !memcmp(p, "this", 4)) return false;
            p = q - 1;
            after_name = true;
        } else if (*p == '=' && after_name) {
            return false;
        } else if (*p == ',') {
            after_name = false;
        } else if (!(*p == '&' || *p == '=' || isspace((unsigned char)*p))) {
            return false;
        }
    }
    return true;
}

/* The lambda whose capture list opens at t->v[j] ('['): the index of its
 * ']', or 0 when the '[' opens no lambda (a subscript, an attribute). */
static size_t lambda_captures(const toks_t *t, size_t j) {
    const tok_t *pv = j ? &t->v[j - 1] : NULL;
    if (pv && !(is(pv, "=") || is(pv, "(") || is(pv, ",") || is(pv, "{") || is(pv, ";") || is(pv, ":") ||
                is(pv, "return") || is(pv, "?") || is(pv, "&&") || is(pv, "||")))
        return 0;
    if (j + 1 < t->n && is(&t->v[j + 1], "[")) return 0;
    int depth = 0;
    for (size_t k = j; k < t->n; k++) {
        if (is(&t->v[k], "[")) depth++;
        if (is(&t->v[k], "]") && --depth == 0) {
            const tok_t *nx = k + 1 < t->n ? &t->v[k + 1] : NULL;
            return nx && (is(nx, "(") || is(nx, "{") || is(nx, "mutable") || is(nx, "__device__") ||
                          is(nx, "__host__") || is(nx, "->"))
                       ? k
                       : 0;
        }
    }
    return 0;
}

/* The end of the body of the lambda whose captures close at t->v[close]:
 * the '}' that closes the first '{' after them (close when there is none).
 * A lambda in that body is a local one, whose captures stand. */
static size_t body_end(const toks_t *t, size_t close) {
    size_t k = close + 1;
    while (k < t->n && !is(&t->v[k], "{")) k++;
    for (int depth = 0; k < t->n; k++) {
        if (is(&t->v[k], "{")) depth++;
        if (is(&t->v[k], "}") && --depth == 0) return k;
    }
    return close;
}

/* Spaces over [s, e) of code in out (a copy of code made at the first). */
static void blank(const char *code, const char *s, const char *e, char **out) {
    if (!*out) *out = xstrdup(code);
    for (const char *p = s; p < e; p++)
        if (*p != '\n') (*out)[p - code] = ' ';
}

/* Blank in out the captures of the lambdas in a variable's initialiser,
 * which is at namespace scope where a lambda captures nothing: its
 * capture-default and plain names ("&", "n", "&n") go, its init-captures and
 * this stay, and the commas left join what stays. */
static void blank_captures(const char *code, const native_item_t *it, char **out) {
    toks_t t = {0};
    lex(code + it->start, it->end - it->start, &t);
    for (size_t j = 0; j < t.n; j++) {
        if (!is(&t.v[j], "[")) continue;
        size_t close = lambda_captures(&t, j);
        if (!close) continue;
        bool kept_before = false;
        size_t a = j + 1, comma = 0;
        while (a < close) {
            size_t b = a;
            int depth = 0;
            for (; b < close; b++) {
                if (is(&t.v[b], "(") || is(&t.v[b], "{") || is(&t.v[b], "[")) depth++;
                if (is(&t.v[b], ")") || is(&t.v[b], "}") || is(&t.v[b], "]")) depth--;
                if (depth == 0 && is(&t.v[b], ",")) break;
            }
            const tok_t *nm = b - a == 1 ? &t.v[a] : b - a == 2 && is(&t.v[a], "&") ? &t.v[a + 1] : NULL;
            bool drop = (b - a == 1 && (is(&t.v[a], "=") || is(&t.v[a], "&"))) ||
                        (nm && nm->k == TK_ID && !is(nm, "this"));
            if (comma && (drop || !kept_before)) blank(code, t.v[comma].s, t.v[comma].s + 1, out);
            if (drop) blank(code, t.v[a].s, t.v[b - 1].s + t.v[b - 1].n, out);
            kept_before |= !drop;
            comma = b < close ? b : 0;
            a = b + 1;
        }
        j = body_end(&t, close);
    }
    free(t.v);
}

char *native_items_unit_code(const char *code, const native_items_t *items) {
    char *out = NULL;
    for (size_t i = 0; i < items->n; i++) {
        const native_item_t *it = &items->v[i];
        if (it->kind == NI_VARIABLE) {
            blank_captures(code, it, &out);
            continue;
        }
        if (!it->capture_end || it->capture_end - it->capture < 3) continue; /* "[]" */
        if (native_closure_form(code + it->start, it->end - it->start)) continue; /* its captures are a class's */
        const char *s = code + it->capture + 1, *e = code + it->capture_end - 1;
        if (plain_captures(s, e)) blank(code, s, e, &out);
    }
    return out;
}

char **native_items_lambda_names(const char *code, const native_item_t *it) {
    toks_t t = {0};
    lex(code + it->start, it->end - it->start, &t);
    VEC(char *) out = {0};
    for (size_t j = 0; j < t.n; j++) {
        size_t close = is(&t.v[j], "[") ? lambda_captures(&t, j) : 0;
        if (!close) continue;
        size_t end = body_end(&t, close);
        if (end == close) end = t.n; /* no body: what follows, to the end */
        for (size_t m = j + 1; m < end; m++) {
            if (t.v[m].k != TK_ID || (m && (is(&t.v[m - 1], ".") || is(&t.v[m - 1], "->") || is(&t.v[m - 1], "::"))))
                continue;
            bool seen = false;
            for (size_t q = 0; q < out.n && !seen; q++) seen = strlen(out.v[q]) == t.v[m].n && !memcmp(out.v[q], t.v[m].s, t.v[m].n);
            if (!seen) VEC_PUSH(out, tok_str(&t.v[m]));
        }
    }
    free(t.v);
    if (!out.n) return NULL;
    VEC_PUSH(out, NULL);
    return out.v;
}

bool native_items_define(const native_items_t *items, const char *name) {
    for (size_t i = 0; i < items->n; i++)
        for (int k = 0; k < items->v[i].nnames && items->v[i].kind != NI_SHARED; k++)
            if (!strcmp(items->v[i].names[k], name)) return true;
    return false;
}

bool native_items_have_key(const native_items_t *items, const char *key) {
    if (!key[0]) return false;
    for (size_t i = 0; i < items->n; i++)
        if (!strcmp(items->v[i].key, key)) return true;
    return false;
}

/* Names seen, by hash (open addressing over indexes into out): a list
 * searched from the start for each name took hours for a cell of a million
 * distinct names. */
static size_t name_hash(const char *s, size_t n) {
    size_t h = 14695981039346656037u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

char **native_identifiers(const char *text) {
    toks_t t = {0};
    lex(text, strlen(text), &t);
    VEC(char *) out = {0};
    size_t cap = 64, *seen = xcalloc(cap, sizeof *seen); /* out index + 1; 0 empty */
    for (size_t k = 0; k < t.n; k++) {
        if (t.v[k].k != TK_ID) continue;
        if (k && (is(&t.v[k - 1], ".") || is(&t.v[k - 1], "->") || is(&t.v[k - 1], "::"))) continue;
        size_t h = name_hash(t.v[k].s, t.v[k].n) & (cap - 1);
        bool found = false;
        for (; seen[h]; h = (h + 1) & (cap - 1)) {
            const char *o = out.v[seen[h] - 1];
            if (strlen(o) == t.v[k].n && !memcmp(o, t.v[k].s, t.v[k].n)) {
                found = true;
                break;
            }
        }
        if (found) continue;
        VEC_PUSH(out, tok_str(&t.v[k]));
        seen[h] = out.n;
        if (out.n * 2 > cap) { /* rehash at half full */
            free(seen);
            cap *= 2;
            seen = xcalloc(cap, sizeof *seen);
            for (size_t j = 0; j < out.n; j++) {
                size_t g = name_hash(out.v[j], strlen(out.v[j])) & (cap - 1);
                while (seen[g]) g = (g + 1) & (cap - 1);
                seen[g] = j + 1;
            }
        }
    }
    free(seen);
    free(t.v);
    VEC_PUSH(out, NULL);
    return out.v;
}

void native_strv_free(char **v) {
    for (char **p = v; p && *p; p++) free(*p);
    free(v);
}
