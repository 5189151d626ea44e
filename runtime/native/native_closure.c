/* A __device__ lambda held by one of main's variables, as its class
 * (native_closure.h). */
#include "native_closure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_launch.h"
#include "runtime/base/xalloc.h"

typedef native_tok_t tok_t;

typedef struct {
    size_t name_at, name_len;       /* the variable's name */
    size_t cap_open, cap_close;     /* '[' and ']' */
    size_t par_open, par_close;     /* '(' and ')', or 0, 0: no parameter list */
    size_t spec_from, spec_to;      /* from after ']' to the body: specifiers, parameters */
    size_t body_open, body_close;   /* '{' and '}' */
    bool mutable_, device;
} form_t;

static tok_t next(const char *s, tok_t t, size_t n) { return native_next_tok(s, t.at + t.len, n); }


/* The token closing the bracket t opens, or one at n. */
static tok_t closing(const char *s, tok_t t, size_t n) {
    char open = t.punct, close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (; t.at < n; t = next(s, t, n)) {
        if (t.punct == open) depth++;
        else if (t.punct == close && --depth == 0) return t;
    }
    return t;
}

/* Captures none, '=' or plain names, each an identifier. */
static bool plain(const char *s, size_t from, size_t to) {
    tok_t t = native_next_tok(s, from, to);
    if (t.at >= to) return true;
    if (t.punct == '=') return next(s, t, to).at >= to;
    for (;;) {
        if (t.punct || t.at >= to || native_tok_is(s, t, "this")) return false;
        t = next(s, t, to);
        if (t.at >= to) return true;
        if (t.punct != ',') return false;
        t = next(s, t, to);
    }
}

static bool parse(const char *s, size_t n, form_t *f) {
    memset(f, 0, sizeof *f);
    bool is_auto = false;
    tok_t t = native_next_tok(s, 0, n), prev = {0, 0, ';'};
    for (; t.at < n && !t.punct; prev = t, t = next(s, t, n)) is_auto |= native_tok_is(s, t, "auto");
    if (!is_auto || t.punct != '=' || prev.punct || native_tok_is(s, prev, "auto")) return false;
    f->name_at = prev.at;
    f->name_len = prev.len;
    t = next(s, t, n);
    if (t.punct != '[') return false;
    f->cap_open = t.at;
    t = closing(s, t, n);
    if (t.at >= n) return false;
    f->cap_close = t.at;
    f->spec_from = t.at + 1;
    for (t = next(s, t, n); t.at < n && t.punct != '{'; t = next(s, t, n)) {
        if (native_tok_is(s, t, "__device__")) f->device = true;
        if (native_tok_is(s, t, "mutable")) f->mutable_ = true;
        if (t.punct == '(') {
            tok_t c = closing(s, t, n);
            if (c.at >= n) return false;
            if (!f->par_close) {
                f->par_open = t.at;
                f->par_close = c.at;
            }
            t = c;
        }
    }
    if (t.at >= n) return false;
    f->spec_to = t.at;
    f->body_open = t.at;
    t = closing(s, t, n);
    if (t.at >= n) return false;
    f->body_close = t.at;
    t = next(s, t, n);
    return f->device && t.punct == ';' && next(s, t, n).at >= n && plain(s, f->cap_open + 1, f->cap_close);
}

bool native_closure_form(const char *text, size_t n) {
    form_t f;
    return parse(text, n, &f);
}

void native_closure_name(const char *text, size_t n, char *name, size_t cap) {
    form_t f;
    if (!cap) return;
    name[0] = 0;
    if (parse(text, n, &f) && f.name_len < cap) snprintf(name, cap, "%.*s", (int)f.name_len, text + f.name_at);
}

/* An execution space or inlining word, which goes before the operator. */
static bool space_word(const char *s, tok_t t) {
    return native_tok_is(s, t, "__device__") || native_tok_is(s, t, "__host__") ||
           native_tok_is(s, t, "__forceinline__");
}

static bool listed(char **v, size_t nv, const char *s, size_t len) {
    for (size_t i = 0; i < nv; i++)
        if (strlen(v[i]) == len && !memcmp(v[i], s, len)) return true;
    return false;
}

/* What the class holds: the plain names of the captures, or for '=' the
 * variables the body names that neither a parameter nor a local of the
 * body declares. */
static size_t captured(const char *s, const form_t *f, native_is_variable_fn is_variable, void *ctx, char ***out) {
    VEC(char *) v = {0};
    tok_t t = native_next_tok(s, f->cap_open + 1, f->cap_close);
    bool by_default = t.at < f->cap_close && t.punct == '=';
    for (; !by_default && t.at < f->cap_close; t = next(s, t, f->cap_close))
        if (!t.punct) VEC_PUSH(v, xstrndup(s + t.at, t.len));
    if (by_default) {
        VEC(char *) own = {0}; /* parameters and locals */
        tok_t p1 = {0, 0, ';'};
        for (t = native_next_tok(s, f->spec_from, f->body_close); t.at < f->body_close; p1 = t, t = next(s, t, f->body_close)) {
            if (t.punct) continue;
            bool param = f->par_close && t.at > f->par_open && t.at < f->par_close;
            bool local = t.at > f->body_open && !p1.punct && !native_expression_word(s, p1);
            if ((param || local) && !listed(own.v, own.n, s + t.at, t.len)) VEC_PUSH(own, xstrndup(s + t.at, t.len));
        }
        p1 = (tok_t){0, 0, ';'};
        for (t = native_next_tok(s, f->body_open, f->body_close); t.at < f->body_close; p1 = t, t = next(s, t, f->body_close)) {
            if (t.punct || p1.punct == '.' || p1.punct == 'A' || p1.punct == 'Q' || listed(own.v, own.n, s + t.at, t.len) ||
                listed(v.v, v.n, s + t.at, t.len) || next(s, t, f->body_close).punct == 'Q')
                continue;
            char *name = xstrndup(s + t.at, t.len);
            if (is_variable(ctx, name)) VEC_PUSH(v, name);
            else free(name);
        }
        for (size_t i = 0; i < own.n; i++) free(own.v[i]);
        VEC_FREE(own);
    }
    *out = v.v;
    return v.n;
}

static int line_at(const char *s, size_t at, int first_line) {
    int l = first_line;
    for (size_t i = 0; i < at; i++) l += s[i] == '\n';
    return l;
}

bool native_closure_append(strbuf_t *b, const char *s, size_t n, int first_line, const char *cell,
                           const char *made_in, native_is_variable_fn is_variable, void *ctx) {
    form_t f;
    if (!parse(s, n, &f)) return false;
    char **caps;
    size_t ncaps = captured(s, &f, is_variable, ctx, &caps);
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(f.name_len < 100 ? f.name_len : 100), s + f.name_at);
    sb_puts(b, "\n#line 1 \"<icuda>\"\n");
    for (size_t i = 0; i < ncaps; i++)
        sb_printf(b, "using icuda_cl_%s_%zu = std::remove_cv_t<std::remove_reference_t<decltype(%s)>>;\n", name, i,
                  caps[i]);
    sb_printf(b, "struct icuda_closure_%s {\n", name);
    for (size_t i = 0; i < ncaps; i++) sb_printf(b, "icuda_cl_%s_%zu %s;\n", name, i, caps[i]);
    /* a generic lambda's auto parameters: the operator's template parameters */
    int nauto = 0;
    for (tok_t t = native_next_tok(s, f.par_open, f.par_close); f.par_close && t.at < f.par_close; t = next(s, t, n))
        nauto += native_tok_is(s, t, "auto");
    if (nauto) {
        sb_puts(b, "template <");
        for (int k = 0; k < nauto; k++) sb_printf(b, "%sclass icuda_A%d", k ? ", " : "", k);
        sb_puts(b, ">\n");
    }
    /* execution spaces first, then the operator, then what follows the parameters */
    for (tok_t t = native_next_tok(s, f.spec_from, f.spec_to); t.at < f.spec_to; t = next(s, t, f.spec_to))
        if (space_word(s, t))
            sb_printf(b, "%.*s ", (int)t.len, s + t.at);
    sb_puts(b, "auto operator()");
    if (f.par_close) {
        sb_printf(b, "\n#line %d \"%s\"\n", line_at(s, f.par_open, first_line), cell);
        int k = 0;
        size_t copied = f.par_open;
        for (tok_t t = native_next_tok(s, f.par_open, f.par_close + 1); t.at <= f.par_close; t = next(s, t, n)) {
            if (!native_tok_is(s, t, "auto")) continue;
            sb_append(b, s + copied, t.at - copied);
            sb_printf(b, "icuda_A%d", k++);
            copied = t.at + t.len;
        }
        sb_append(b, s + copied, f.par_close + 1 - copied);
    } else {
        sb_puts(b, "()");
    }
    if (!f.mutable_) sb_puts(b, " const");
    size_t after = f.par_close ? f.par_close + 1 : f.spec_from;
    for (tok_t t = native_next_tok(s, after, f.spec_to); t.at < f.spec_to; t = next(s, t, f.spec_to)) {
        if (space_word(s, t) || native_tok_is(s, t, "mutable") || native_tok_is(s, t, "constexpr"))
            continue;
        sb_printf(b, " %.*s", (int)t.len, s + t.at);
    }
    sb_printf(b, "\n#line %d \"%s\"\n", line_at(s, f.body_open, first_line), cell);
    sb_append(b, s + f.body_open, f.body_close + 1 - f.body_open);
    sb_puts(b, "\n#line 1 \"<icuda>\"\n};\n");
    /* the variable: its specifiers, the class for auto */
    bool is_const = false;
    for (tok_t t = native_next_tok(s, 0, f.name_at); t.at < f.name_at; t = next(s, t, f.name_at)) {
        is_const |= native_tok_is(s, t, "const") || native_tok_is(s, t, "constexpr");
        if (made_in) continue;
        if (native_tok_is(s, t, "constexpr")) sb_puts(b, "const ");
        else if (native_tok_is(s, t, "auto")) sb_printf(b, "icuda_closure_%s ", name);
        else sb_printf(b, "%.*s ", (int)t.len, s + t.at);
    }
    if (made_in) {
        sb_printf(b, "static %sicuda_closure_%s &%s = *static_cast<%sicuda_closure_%s *>(icuda_native::need(\"%s\", \"%s\"));\n",
                  is_const ? "const " : "", name, name, is_const ? "const " : "", name, name, made_in);
    } else {
        sb_printf(b, "%s{", name);
        for (size_t i = 0; i < ncaps; i++) sb_printf(b, "%s%s", i ? ", " : "", caps[i]);
        sb_printf(b, "};\nstatic int icuda_reg_closure_%s = icuda_native::reg(\"%s\", %s);\n", name, name, name);
    }
    for (size_t i = 0; i < ncaps; i++) free(caps[i]);
    free(caps);
    return true;
}
