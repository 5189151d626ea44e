/* Tokens and the preprocessor of a cell: #define (object- and function-like,
 * with # and ##), #undef, #if/#ifdef/#ifndef/#elif/#else/#endif, #include of
 * anything (the standard headers are built in, others belong to the device
 * side), #pragma ignored. Macros persist in the session (interp->macros). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "front.h"
#include "runtime/base/utf8.h"

static const struct { const char *s; int id; } kwtab[] = {
    {"void", KW_VOID}, {"char", KW_CHAR}, {"short", KW_SHORT}, {"int", KW_INT}, {"long", KW_LONG},
    {"float", KW_FLOAT}, {"double", KW_DOUBLE}, {"signed", KW_SIGNED}, {"__signed__", KW_SIGNED},
    {"unsigned", KW_UNSIGNED}, {"_Bool", KW_BOOL}, {"bool", KW_BOOL}, {"struct", KW_STRUCT},
    {"class", KW_STRUCT},
    {"union", KW_UNION}, {"enum", KW_ENUM}, {"typedef", KW_TYPEDEF}, {"static", KW_STATIC},
    {"extern", KW_EXTERN}, {"const", KW_CONST}, {"volatile", KW_VOLATILE},
    {"restrict", KW_RESTRICT}, {"__restrict__", KW_RESTRICT}, {"__restrict", KW_RESTRICT},
    {"inline", KW_INLINE}, {"__inline__", KW_INLINE}, {"__inline", KW_INLINE},
    {"register", KW_REGISTER}, {"auto", KW_AUTO}, {"if", KW_IF}, {"else", KW_ELSE},
    {"for", KW_FOR}, {"while", KW_WHILE}, {"do", KW_DO}, {"switch", KW_SWITCH},
    {"case", KW_CASE}, {"default", KW_DEFAULT}, {"break", KW_BREAK}, {"continue", KW_CONTINUE},
    {"return", KW_RETURN}, {"goto", KW_GOTO}, {"sizeof", KW_SIZEOF}, {"true", KW_TRUE},
    {"false", KW_FALSE}, {"__host__", KW_HOST}, {"__device__", KW_DEVICE},
    {"__global__", KW_GLOBAL}, {"__forceinline__", KW_FORCEINLINE}, {"__noinline__", KW_NOINLINE},
    {"__shared__", KW_SHARED}, {"__constant__", KW_CONSTANT}, {"nullptr", KW_NULLPTR},
    {"_Alignof", KW_ALIGNOF}, {"alignof", KW_ALIGNOF}, {"__alignof__", KW_ALIGNOF},
    {"typeof", KW_TYPEOF}, {"__typeof__", KW_TYPEOF}, {"_Complex", KW_COMPLEX},
    {"_Static_assert", KW_STATIC_ASSERT}, {"static_assert", KW_STATIC_ASSERT},
    {"new", KW_NEW}, {"delete", KW_DELETE}, {"template", KW_TEMPLATE},
    {"typename", KW_TYPENAME}, {"namespace", KW_NAMESPACE}, {"using", KW_USING},
    {"constexpr", KW_CONSTEXPR}, {"this", KW_THIS}, {"operator", KW_OPERATOR},
    {"public", KW_PUBLIC}, {"private", KW_PRIVATE}, {"protected", KW_PROTECTED},
    {"virtual", KW_VIRTUAL}, {"try", KW_TRY}, {"catch", KW_CATCH}, {"throw", KW_THROW},
    {"static_cast", KW_STATIC_CAST}, {"reinterpret_cast", KW_REINTERPRET_CAST},
    {"const_cast", KW_CONST_CAST}, {"dynamic_cast", KW_DYNAMIC_CAST},
    {"explicit", KW_EXPLICIT}, {"friend", KW_FRIEND}, {"mutable", KW_MUTABLE},
    {"noexcept", KW_NOEXCEPT}, {"decltype", KW_DECLTYPE},
};

static const struct { const char *s; int id; } punct[] = {
    {"<<<", P_LAUNCH_OPEN}, {">>>", P_LAUNCH_CLOSE}, {"...", P_ELLIPSIS}, {"<<=", P_SHLEQ},
    {">>=", P_SHREQ}, {"->", P_ARROW}, {"++", P_INC}, {"--", P_DEC}, {"<<", P_SHL},
    {">>", P_SHR}, {"<=", P_LE}, {">=", P_GE}, {"==", P_EQ}, {"!=", P_NE}, {"&&", P_LAND},
    {"||", P_LOR}, {"*=", P_MULEQ}, {"/=", P_DIVEQ}, {"%=", P_MODEQ}, {"+=", P_ADDEQ},
    {"-=", P_SUBEQ}, {"&=", P_ANDEQ}, {"^=", P_XOREQ}, {"|=", P_OREQ}, {"##", P_HASHHASH},
    {"::", P_SCOPE},
    {"[", P_LBRACK}, {"]", P_RBRACK}, {"(", P_LPAREN}, {")", P_RPAREN}, {"{", P_LBRACE},
    {"}", P_RBRACE}, {".", P_DOT}, {"&", P_AMP}, {"*", P_STAR}, {"+", P_PLUS}, {"-", P_MINUS},
    {"~", P_TILDE}, {"!", P_NOT}, {"/", P_DIV}, {"%", P_MOD}, {"<", P_LT}, {">", P_GT},
    {"^", P_XOR}, {"|", P_OR}, {"?", P_QUEST}, {":", P_COLON}, {";", P_SEMI}, {"=", P_ASSIGN},
    {",", P_COMMA}, {"#", P_HASH},
};

const char *tok_str(token_t *t, char *buf, size_t n) {
    if (t->kind == TK_EOF) return "end of cell";
    snprintf(buf, n, "%.*s", t->n > 60 ? 60 : t->n, t->s);
    return buf;
}

/* token vectors live in the interpreter's scratch pool, emptied after each
 * cell, so an error that longjmps out of the preprocessor leaks nothing */
static void *scratch(size_t n) { return pool_alloc(&g_in->scratch, n); }
/* Tokens one vector may hold: any 10 MB cell without macros fits (at most
 * one token a byte: an initialiser "1,1,..." has 10.5 million), 0.9 GB of
 * tokens at most; a macro that repeats its argument ten times, nested
 * eight deep, makes 10^8 (9 GB of tokens: the allocation failed and the
 * kernel aborted). */
#define LEX_MAX_TOKENS 16000000
/* Macro expansions one text may make: an object-like macro of ten copies
 * of another, eight deep, is 10^8 of them, each with its own body (10 GB
 * before a single vector reached LEX_MAX_TOKENS). */
#define LEX_MAX_EXPANSIONS 2000000
/* How deep macro expansions may nest (a macro used in another's body or
 * argument): each level is a C call of the expander, so the depth is
 * bounded, and past it is an error that says so (a chain of 10,000 macros,
 * each the next one's name, was left half expanded: "'M9936' is undeclared"). */
#define LEX_MAX_MACRO_DEPTH 200

static void vpush(tokvec_t *v, token_t *t) {
    if (v->n >= LEX_MAX_TOKENS)
        syntax_error(&t->loc, "the cell expands to more than %d tokens (a macro that repeats its argument at every level?)",
                     LEX_MAX_TOKENS);
    if (v->n == v->cap) { /* a large vector grows in place (its own chunk): no copy left behind */
        int nc = v->cap ? v->cap * 2 : 64;
        v->v = pool_regrow(&g_in->scratch, v->v, sizeof(token_t) * (size_t)v->n, sizeof(token_t) * (size_t)nc);
        v->cap = nc;
    }
    v->v[v->n++] = *t;
}

static int hexv(int c) { return isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10); }

/* decodes one escape at *pp (after the backslash) */
static int escape(const char **pp, loc_t *l) {
    const char *p = *pp;
    int c = *p++;
    switch (c) {
    case 'n': c = '\n'; break;
    case 't': c = '\t'; break;
    case 'r': c = '\r'; break;
    case 'a': c = 7; break;
    case 'b': c = 8; break;
    case 'f': c = 12; break;
    case 'v': c = 11; break;
    case 'e': c = 27; break;
    case 'x': {
        if (!isxdigit((unsigned char)*p)) syntax_error(l, "\\x used with no following hex digits");
        /* out of a char's range is an error, as gcc says; counted in an
         * unsigned, since the digits may go on (fuzz_interp: int overflow) */
        unsigned v = 0;
        while (isxdigit((unsigned char)*p)) {
            v = v * 16 + (unsigned)hexv(*p++);
            if (v > 0xff) syntax_error(l, "hex escape sequence out of range");
        }
        c = (int)v;
        break;
    }
    default:
        if (c >= '0' && c <= '7') {
            c -= '0';
            for (int i = 0; i < 2 && *p >= '0' && *p <= '7'; i++) c = c * 8 + (*p++ - '0');
            c &= 0xff;
        }
        break;
    }
    *pp = p;
    return c;
}

static void lex_number(interp_t *in, const char *p, token_t *t) {
    const char *s = p;
    bool isf = false;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        while (isxdigit((unsigned char)*p) || *p == '.') isf |= *p++ == '.';
        if (*p == 'p' || *p == 'P') {
            isf = true;
            p++;
            if (*p == '+' || *p == '-') p++;
            while (isdigit((unsigned char)*p)) p++;
        }
    } else if (p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        p += 2;
        while (*p == '0' || *p == '1') p++;
    } else {
        while (isdigit((unsigned char)*p) || *p == '.') isf |= *p++ == '.';
        if (*p == 'e' || *p == 'E') {
            isf = true;
            p++;
            if (*p == '+' || *p == '-') p++;
            while (isdigit((unsigned char)*p)) p++;
        }
    }
    const char *suf = p;
    while (isalnum((unsigned char)*p) || *p == '_') p++;
    t->s = s;
    t->n = (int)(p - s);
    char sb[16];
    int sl = (int)(p - suf);
    if (sl >= (int)sizeof sb) syntax_error(&t->loc, "invalid suffix on number");
    for (int i = 0; i < sl; i++) sb[i] = (char)tolower((unsigned char)suf[i]);
    sb[sl] = 0;
    t->loc.len = t->n;
    if (isf || (!strchr(s, 'x') && (strcmp(sb, "f") == 0 && false))) {
        t->kind = TK_FLOAT;
        char *nb = pool_strndup(&in->pool, s, (size_t)(suf - s));
        t->fval = strtod(nb, NULL);
        if (strcmp(sb, "f") == 0) { t->lit_type = T_FLOAT; t->fval = (float)t->fval; }
        else if (strcmp(sb, "l") == 0 || sl == 0) t->lit_type = sl ? T_LDOUBLE : T_DOUBLE;
        else syntax_error(&t->loc, "invalid suffix \"%.*s\" on floating constant", sl, suf);
        return;
    }
    t->kind = TK_INT;
    int base = 10;
    const char *d = s;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, d = s + 2;
    else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, d = s + 2;
    else if (s[0] == '0') base = 8;
    uint64_t v = 0;
    bool ovf = false;
    for (const char *q = d; q < suf; q++) {
        int dv = hexv(*q);
        if (dv >= base) syntax_error(&t->loc, "invalid digit \"%c\" in %s constant", *q, base == 8 ? "octal" : "binary");
        if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base) ovf = true;
        v = v * (uint64_t)base + (uint64_t)dv;
    }
    if (ovf) syntax_error(&t->loc, "integer constant is too large for its type");
    bool u = strchr(sb, 'u') != NULL;
    int l = 0;
    for (char *q = sb; *q; q++) if (*q == 'l') l++;
    if (sl != u + l) syntax_error(&t->loc, "invalid suffix \"%.*s\" on integer constant \"%.*s\"", sl, suf, t->n, s);
    t->ival = v;
    /* C11 6.4.4.1: the first type in the list that holds the value */
    int ty;
    if (u) ty = l == 0 && v <= 0xffffffffu ? T_UINT : l == 2 ? T_ULLONG : T_ULONG;
    else if (l == 0) {
        if (v <= 0x7fffffff) ty = T_INT;
        else if (base != 10 && v <= 0xffffffffu) ty = T_UINT;
        else if (v <= 0x7fffffffffffffffULL) ty = T_LONG;
        else ty = T_ULONG;
    } else {
        if (v <= 0x7fffffffffffffffULL) ty = l == 2 ? T_LLONG : T_LONG;
        else ty = l == 2 ? T_ULLONG : T_ULONG;
    }
    t->lit_type = ty;
}

/* A character the lexer does not know: shown as the character it is (a
 * non-ASCII letter, say) or as a byte, never as half a UTF-8 sequence. */
static _Noreturn void stray(loc_t *at, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp;
    size_t n = utf8_char(s, strnlen(s, 4), &cp);
    if (n == 1 && *p >= 0x20 && *p < 0x7F) syntax_error(at, "stray '%c' in program", *p);
    if (n > 1)
        syntax_error(at, "stray '%.*s' (U+%04X) in program: names may use only ASCII letters, digits and '_'", (int)n, s,
                     (unsigned)cp);
    syntax_error(at, "stray byte 0x%02X in program", *p);
}

/* raw tokens of a source text from p, which starts line `line` of src */
static void lex_raw_at(interp_t *in, src_t *src, const char *p, int line, tokvec_t *out) {
    const char *lstart = p;
    bool bol = true;
    while (*p) {
        if (*p == '\n') { line++; p++; lstart = p; bol = true; continue; }
        if (isspace((unsigned char)*p)) { p++; continue; }
        if (p[0] == '\\' && p[1] == '\n') { p += 2; line++; lstart = p; continue; }
        if (p[0] == '/' && p[1] == '/') { while (*p && *p != '\n') p++; continue; }
        if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            loc_t l = {src, line, (int)(p - lstart), 2};
            if (!e) syntax_error(&l, "unterminated comment");
            for (const char *q = p; q < e; q++) if (*q == '\n') { line++; lstart = q + 1; }
            p = e + 2;
            continue;
        }
        token_t t = {0};
        t.loc = (loc_t){src, line, (int)(p - lstart), 1};
        t.bol = bol;
        bol = false;
        if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            lex_number(in, p, &t);
            p += t.n;
        } else if (isalpha((unsigned char)*p) || *p == '_' || *p == '$') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_' || *p == '$') p++;
            t.kind = TK_IDENT;
            t.s = s;
            t.n = (int)(p - s);
            if (((t.n == 1 && (*s == 'L' || *s == 'u' || *s == 'U')) || (t.n == 2 && s[0] == 'u' && s[1] == '8')) &&
                (*p == '"' || *p == '\'')) {
                /* wide literals are read as narrow ones; u8"..." is what a narrow one is here: UTF-8 */
                goto quote;
            }
            for (size_t i = 0; i < sizeof kwtab / sizeof *kwtab; i++)
                if (kwtab[i].s[0] == *s && (int)strlen(kwtab[i].s) == t.n && memcmp(kwtab[i].s, s, (size_t)t.n) == 0) {
                    t.kind = TK_KW;
                    t.id = kwtab[i].id;
                    break;
                }
        } else if (*p == '"' || *p == '\'') {
        quote:;
            char q = *p;
            const char *s = t.kind == TK_IDENT ? t.s : p;
            p++;
            size_t cap = 64, n = 0;
            char *buf = scratch(cap);
            while (*p && *p != q && *p != '\n') {
                int c;
                if (*p == '\\') { p++; c = escape(&p, &t.loc); }
                else c = (unsigned char)*p++;
                if (n + 2 >= cap) { char *nb = scratch(cap * 2); memcpy(nb, buf, n); buf = nb; cap *= 2; }
                buf[n++] = (char)c;
            }
            t.s = s;
            t.n = (int)(p - s) + (*p == q);
            t.loc.len = t.n;
            if (*p != q) { syntax_error(&t.loc, "missing terminating %c character", q); }
            p++;
            buf[n] = 0;
            if (q == '"') {
                t.kind = TK_STR;
                t.str = pool_strndup(&in->pool, buf, n);
                t.slen = (int)n + 1;
            } else {
                if (n == 0) { syntax_error(&t.loc, "empty character constant"); }
                t.kind = TK_CHAR;
                t.ival = (uint64_t)(int64_t)(signed char)buf[0];
                if (n > 1) { /* multi-char constant as gcc computes it */
                    uint64_t v = 0; /* unsigned: a long constant shifts bytes out, as gcc's does */
                    for (size_t i = 0; i < n; i++) v = (v << 8) | (unsigned char)buf[i];
                    t.ival = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
                }
                t.lit_type = n > 1 ? T_INT : T_CHAR; /* a .cu file is C++: 'a' is a char */
            }
        } else {
            int found = 0;
            for (size_t i = 0; i < sizeof punct / sizeof *punct; i++) {
                if (punct[i].s[0] != *p) continue;
                size_t l = strlen(punct[i].s);
                if (strncmp(p, punct[i].s, l) == 0) {
                    t.kind = TK_PUNCT;
                    t.id = punct[i].id;
                    t.s = p;
                    t.n = (int)l;
                    t.loc.len = t.n;
                    p += l;
                    found = 1;
                    break;
                }
            }
            if (!found) stray(&t.loc, p);
        }
        t.loc.len = t.n;
        vpush(out, &t);
        poll_interrupt(NULL);
    }
    token_t e = {0};
    e.kind = TK_EOF;
    e.loc = (loc_t){src, line, (int)(p - lstart), 1};
    e.bol = true;
    vpush(out, &e);
}

static void lex_raw(interp_t *in, src_t *src, tokvec_t *out) { lex_raw_at(in, src, src->text, 1, out); }

/* ---------------- macros ---------------- */

static bool is_ident(token_t *t) { return t->kind == TK_IDENT || t->kind == TK_KW; }
static bool teq(token_t *t, const char *s) {
    return (int)strlen(s) == t->n && memcmp(t->s, s, (size_t)t->n) == 0;
}
static char *tname(interp_t *in, token_t *t) { return pool_strndup(&in->pool, t->s, (size_t)t->n); }

/* the macros being expanded, outermost first: never more than the depth
 * (each one pushed is expanded one level deeper) */
typedef struct { const char *names[LEX_MAX_MACRO_DEPTH + 2]; int n; } active_t;

static bool is_active(active_t *a, const char *nm, int nl) {
    for (int i = 0; i < a->n; i++)
        if ((int)strlen(a->names[i]) == nl && memcmp(a->names[i], nm, (size_t)nl) == 0) return true;
    return false;
}

static void expand(interp_t *in, token_t *v, int n, tokvec_t *out, active_t *act, int depth);

static macro_t *find_macro(interp_t *in, token_t *t) {
    if (!is_ident(t) || t->no_expand) return NULL;
    return hmap_getn(&in->macros, t->s, (size_t)t->n);
}

/* relexes the spelling made by ## */
static token_t paste(interp_t *in, token_t *a, token_t *b) {
    char *s = pool_alloc(&in->pool, (size_t)(a->n + b->n + 1));
    memcpy(s, a->s, (size_t)a->n);
    memcpy(s + a->n, b->s, (size_t)b->n);
    src_t *ts = src_new(in, a->loc.src ? a->loc.src->name : "?", s);
    tokvec_t tv = {0};
    lex_raw(in, ts, &tv);
    token_t r = tv.v[0];
    if (tv.n != 2) { syntax_error(&a->loc, "pasting \"%.*s\" and \"%.*s\" does not give a valid token", a->n, a->s, b->n, b->s); }
    r.loc = a->loc;
    return r;
}

/* A variadic macro's body for one use: __VA_OPT__(x) is x when the
 * variable arguments have tokens and nothing otherwise (C23, C++20); GNU's
 * ", ## __VA_ARGS__" loses its comma when they have none. */
static token_t *variadic_body(macro_t *m, int *nargs, int argc, int *nb) {
    int va = m->nparams - 1;
    bool empty = va >= argc || nargs[va] == 0;
    token_t *v = scratch(sizeof(token_t) * (size_t)(m->nbody + 1));
    int n = 0;
    for (int i = 0; i < m->nbody; i++) {
        token_t *b = &m->body[i];
        if (is_ident(b) && teq(b, "__VA_OPT__") && i + 1 < m->nbody && m->body[i + 1].kind == TK_PUNCT &&
            m->body[i + 1].id == P_LPAREN) {
            int j = i + 2, lvl = 0;
            for (; j < m->nbody; j++) {
                if (m->body[j].kind != TK_PUNCT) continue;
                if (m->body[j].id == P_LPAREN) lvl++;
                if (m->body[j].id == P_RPAREN && lvl-- == 0) break;
            }
            if (j >= m->nbody) syntax_error(&b->loc, "unterminated __VA_OPT__");
            if (!empty)
                for (int k = i + 2; k < j; k++) v[n++] = m->body[k];
            i = j;
            continue;
        }
        if (b->kind == TK_PUNCT && b->id == P_COMMA && i + 2 < m->nbody && m->body[i + 1].kind == TK_PUNCT &&
            m->body[i + 1].id == P_HASHHASH && teq(&m->body[i + 2], "__VA_ARGS__")) {
            if (!empty) v[n++] = *b;
            i++; /* the ## goes either way */
            continue;
        }
        v[n++] = *b;
    }
    *nb = n;
    return v;
}

static void expand_macro(interp_t *in, macro_t *m, token_t *at, token_t **args, int *nargs,
                         int argc, tokvec_t *out, active_t *act, int depth) {
    if (++in->pp_expansions > LEX_MAX_EXPANSIONS)
        syntax_error(&at->loc, "more than %d macro expansions (a macro made of copies of another, nested?)",
                     LEX_MAX_EXPANSIONS);
    int nbody = m->nbody;
    token_t *mbody = m->variadic ? variadic_body(m, nargs, argc, &nbody) : m->body;
    /* sized for the body: most expansions are small, and each one's vector lives to the cell's end */
    tokvec_t body = {scratch(sizeof(token_t) * (size_t)(nbody + 4)), 0, nbody + 4};
    /* each argument is expanded once, however often its parameter occurs:
     * expanding it per occurrence made A(A(A(...))) with ten x's in A take
     * ten times the work at every level (8.5 GB for 10^6 tokens) */
    tokvec_t *expanded = argc ? scratch(sizeof *expanded * (size_t)argc) : NULL;
    if (expanded) memset(expanded, 0, sizeof *expanded * (size_t)argc);
    bool *have = argc ? scratch(sizeof *have * (size_t)argc) : NULL;
    if (have) memset(have, 0, sizeof *have * (size_t)argc);
    for (int i = 0; i < nbody; i++) {
        token_t *b = &mbody[i];
        int pi = -1;
        if (m->fnlike && is_ident(b))
            for (int k = 0; k < m->nparams; k++)
                if (teq(b, m->params[k])) { pi = k; break; }
        if (m->fnlike && b->kind == TK_PUNCT && b->id == P_HASH && i + 1 < nbody) {
            int k2 = -1;
            for (int k = 0; k < m->nparams; k++)
                if (teq(&mbody[i + 1], m->params[k])) { k2 = k; break; }
            if (k2 >= 0) { /* stringify */
                size_t cap = 16, len = 0;
                for (int j = 0; j < (k2 < argc ? nargs[k2] : 0); j++) cap += (size_t)args[k2][j].n * 2 + 2;
                char *s = pool_alloc(&in->pool, cap + 2);
                s[len++] = '"';
                char *raw = pool_alloc(&in->pool, cap);
                size_t rl = 0;
                for (int j = 0; j < (k2 < argc ? nargs[k2] : 0); j++) {
                    token_t *a = &args[k2][j];
                    token_t *pv = j ? &args[k2][j - 1] : NULL;
                    if (pv && !(pv->loc.line == a->loc.line && pv->loc.col + pv->n == a->loc.col)) s[len++] = ' ', raw[rl++] = ' ';
                    for (int c = 0; c < a->n; c++) {
                        if (a->kind == TK_STR || a->kind == TK_CHAR) {
                            if (a->s[c] == '"' || a->s[c] == '\\') s[len++] = '\\';
                        }
                        s[len++] = a->s[c];
                        raw[rl++] = a->s[c];
                    }
                }
                s[len++] = '"';
                s[len] = 0;
                raw[rl] = 0;
                token_t t = {0};
                t.kind = TK_STR;
                t.s = s;
                t.n = (int)len;
                t.str = raw;
                t.slen = (int)rl + 1;
                t.loc = at->loc;
                vpush(&body, &t);
                i++;
                continue;
            }
        }
        bool next_paste = i + 1 < nbody && mbody[i + 1].kind == TK_PUNCT && mbody[i + 1].id == P_HASHHASH;
        bool prev_paste = i > 0 && mbody[i - 1].kind == TK_PUNCT && mbody[i - 1].id == P_HASHHASH;
        if (b->kind == TK_PUNCT && b->id == P_HASHHASH) continue;
        if (pi >= 0) {
            if (pi >= argc) continue;
            if (next_paste || prev_paste) {
                for (int j = 0; j < nargs[pi]; j++) vpush(&body, &args[pi][j]);
            } else {
                if (!have[pi]) {
                    expand(in, args[pi], nargs[pi], &expanded[pi], act, depth + 1);
                    have[pi] = true;
                }
                for (int j = 0; j < expanded[pi].n; j++) vpush(&body, &expanded[pi].v[j]);
            }
        } else {
            token_t t = *b;
            t.loc = at->loc;
            t.bol = false;
            vpush(&body, &t);
        }
        if (prev_paste && body.n >= 2) {
            /* paste the last token before this item with its first */
            token_t r = paste(in, &body.v[body.n - 2], &body.v[body.n - 1]);
            body.n -= 2;
            vpush(&body, &r);
        }
    }
    act->names[act->n++] = m->name;
    expand(in, body.v, body.n, out, act, depth + 1);
    act->n--;
}

/* __LINE__ and __FILE__: the line in the cell where the macro was used (a
 * macro's body carries its caller's place) and the cell's name. */
static void line_file_token(token_t *t) {
    if (teq(t, "__LINE__")) {
        t->kind = TK_INT;
        t->ival = (uint64_t)t->loc.line;
        t->lit_type = T_INT;
        return;
    }
    const char *name = t->loc.src && t->loc.src->name ? t->loc.src->name : "cell";
    size_t n = strlen(name);
    char *s = scratch(n + 1);
    memcpy(s, name, n + 1);
    t->kind = TK_STR;
    t->str = s;
    t->slen = (int)n + 1;
}

/* A function-like macro's use: its name t, then v[lp] the '(' of its
 * arguments; expanded into out. The index of its ')'. */
static int expand_call(interp_t *in, macro_t *m, token_t *t, token_t *v, int lp, int n, tokvec_t *out, active_t *act,
                       int depth) {
    int j = lp + 1, lvl = 0, argc = 0, cap = 8;
    token_t **args = scratch(sizeof *args * (size_t)cap);
    int *nargs = scratch(sizeof *nargs * (size_t)cap);
    args[0] = &v[j];
    nargs[0] = 0;
    bool empty = true;
    for (; j < n; j++) {
        token_t *a = &v[j];
        if (a->kind == TK_PUNCT && (a->id == P_LPAREN)) lvl++;
        if (a->kind == TK_PUNCT && a->id == P_RPAREN) {
            if (lvl == 0) break;
            lvl--;
        }
        if (lvl == 0 && a->kind == TK_PUNCT && a->id == P_COMMA &&
            !(m->variadic && argc == m->nparams - 1)) {
            argc++;
            if (argc >= cap) {
                cap *= 2;
                token_t **na = scratch(sizeof *args * (size_t)cap);
                int *nn = scratch(sizeof *nargs * (size_t)cap);
                memcpy(na, args, sizeof *args * (size_t)argc);
                memcpy(nn, nargs, sizeof *nargs * (size_t)argc);
                args = na;
                nargs = nn;
            }
            args[argc] = &v[j + 1];
            nargs[argc] = 0;
            continue;
        }
        nargs[argc]++;
        empty = false;
    }
    if (j >= n) { syntax_error(&t->loc, "unterminated argument list invoking macro \"%.*s\"", t->n, t->s); }
    argc = empty && argc == 0 ? 0 : argc + 1;
    if (argc != m->nparams && !(m->variadic && argc >= m->nparams - 1) && !(m->nparams == 1 && argc == 0)) {
        syntax_error(&t->loc, "macro \"%s\" %s %d argument%s, but takes %d", m->name,
                     argc > m->nparams ? "passed" : "requires", argc, argc == 1 ? "" : "s", m->nparams);
    }
    token_t call = *t;
    call.loc.len = v[j].loc.line == t->loc.line ? v[j].loc.col + 1 - t->loc.col : t->n;
    expand_macro(in, m, &call, args, nargs, argc, out, act, depth);
    return j;
}

/* The chain of macros being expanded, for the depth error: the outermost
 * three, then the innermost two. */
static const char *active_chain(active_t *act, char *buf, size_t cap) {
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < act->n && k < cap; i++) {
        if (act->n > 5 && i == 3) {
            k += (size_t)snprintf(buf + k, cap - k, " \u2192 \u2026");
            i = act->n - 3;
            continue;
        }
        k += (size_t)snprintf(buf + k, cap - k, "%s%.40s", i ? " \u2192 " : " (", act->names[i]);
    }
    if (act->n && k < cap) snprintf(buf + k, cap - k, ")");
    return buf;
}

/* The cell's raw tokens that preprocessing is past go back as it goes
 * (lex_cell): nothing reads them again, and a big cell's out vector grows
 * while they go. Cleared after, and after an error (lex_abort_cleanup). */
static struct { token_t *base; int n, kept; } g_raw;
#define RAW_DISCARD_STEP (1 << 16)
#define RAW_DISCARD_MARGIN 1024

void lex_abort_cleanup(void) { g_raw.base = NULL; }

static inline void raw_discard_to(token_t *at) {
    int i = (int)(at - g_raw.base);
    if (i - g_raw.kept <= RAW_DISCARD_STEP + RAW_DISCARD_MARGIN) return;
    g_raw.kept = i - RAW_DISCARD_MARGIN;
    pool_discard(&g_in->scratch, g_raw.base, sizeof(token_t) * (size_t)g_raw.kept);
}

static void expand(interp_t *in, token_t *v, int n, tokvec_t *out, active_t *act, int depth) {
    if (depth > LEX_MAX_MACRO_DEPTH) {
        char chain[400];
        syntax_error(&v[0].loc, "macro expansion nested more than %d deep%s", LEX_MAX_MACRO_DEPTH,
                     active_chain(act, chain, sizeof chain));
    }
    bool raw = depth == 0 && g_raw.base && v >= g_raw.base && v < g_raw.base + g_raw.n;
    for (int i = 0; i < n; i++) {
        token_t *t = &v[i];
        if (raw) raw_discard_to(t);
        macro_t *m = find_macro(in, t);
        if (m && is_active(act, t->s, t->n)) {
            token_t c = *t;
            c.no_expand = true;
            vpush(out, &c);
            continue;
        }
        if (!m && t->kind == TK_IDENT && (teq(t, "__LINE__") || teq(t, "__FILE__"))) {
            vpush(out, t);
            line_file_token(&out->v[out->n - 1]);
            continue;
        }
        if (!m) { vpush(out, t); continue; }
        size_t before = (size_t)out->n;
        int end = i; /* the use's last token */
        if (!m->fnlike) expand_macro(in, m, t, NULL, NULL, 0, out, act, depth);
        else if (i + 1 >= n || v[i + 1].kind != TK_PUNCT || v[i + 1].id != P_LPAREN) {
            vpush(out, t); /* a function-like macro's name alone */
            continue;
        } else
            end = expand_call(in, m, t, v, i + 1, n, out, act, depth);
        /* An expansion that ends in a function-like macro's name takes its
         * arguments from what follows it in the source (#define CHECK
         * check_impl, then CHECK(x)): at this depth, so that a cell may do
         * so any number of times. */
        while ((size_t)out->n > before && end + 1 < n && v[end + 1].kind == TK_PUNCT && v[end + 1].id == P_LPAREN) {
            token_t last = out->v[out->n - 1];
            macro_t *lm = find_macro(in, &last);
            if (!lm || !lm->fnlike || is_active(act, last.s, last.n)) break;
            out->n--;
            before = (size_t)out->n;
            end = expand_call(in, lm, &last, v, end + 1, n, out, act, depth);
        }
        i = end;
    }
}

static void define(interp_t *in, token_t *v, int n, bool builtin) {
    /* v[0] is the name */
    if (n < 1 || !is_ident(&v[0])) syntax_error(n ? &v[0].loc : NULL, "macro names must be identifiers");
    macro_t *m = pool_alloc(&in->pool, sizeof *m);
    m->name = tname(in, &v[0]);
    m->builtin = builtin;
    int i = 1;
    /* function-like only when '(' touches the name */
    if (n > 1 && v[1].kind == TK_PUNCT && v[1].id == P_LPAREN && v[1].loc.line == v[0].loc.line &&
        v[1].loc.col == v[0].loc.col + v[0].n) {
        m->fnlike = true;
        m->params = pool_alloc(&in->pool, sizeof(char *) * (size_t)n);
        for (i = 2; i < n; i++) {
            if (v[i].kind == TK_PUNCT && v[i].id == P_RPAREN) break;
            if (v[i].kind == TK_PUNCT && v[i].id == P_COMMA) continue;
            if (v[i].kind == TK_PUNCT && v[i].id == P_ELLIPSIS) {
                m->variadic = true;
                m->params[m->nparams++] = "__VA_ARGS__";
                continue;
            }
            if (!is_ident(&v[i])) syntax_error(&v[i].loc, "expected parameter name in macro definition");
            m->params[m->nparams++] = tname(in, &v[i]);
        }
        if (i >= n) syntax_error(&v[0].loc, "missing ')' in macro parameter list");
        i++;
    }
    m->nbody = n - i;
    m->body = pool_alloc(&in->pool, sizeof(token_t) * (size_t)(m->nbody + 1));
    memcpy(m->body, v + i, sizeof(token_t) * (size_t)m->nbody);
    /* the definition as written, for the device prelude */
    if (!builtin) {
        loc_t *l = &v[0].loc;
        const char *ln = l->src->lines[l->line - 1];
        int len = l->src->linelen[l->line - 1];
        /* continued lines: take up to the last token's line */
        int last = n ? v[n - 1].loc.line : l->line;
        if (last > l->line) {
            const char *e = l->src->lines[last - 1] + l->src->linelen[last - 1];
            len = (int)(e - ln);
        }
        m->text = pool_strndup(&in->pool, ln, (size_t)len);
    }
    hmap_put(&in->macros, m->name, m);
}

/* #if expressions: integers, defined(), ! ~ - + * / % + - << >> < > <= >= == != & ^ | && || ?: */
typedef struct {
    token_t *v;
    int n, i;
    interp_t *in;
    int skip; /* inside an operand C does not evaluate (0 && x, 1 || x, ?:): no division error */
} pex_t;
static int64_t pe_cond(pex_t *p);
static token_t *pe_peek(pex_t *p) { return p->i < p->n ? &p->v[p->i] : NULL; }
static bool pe_punct(pex_t *p, int id) {
    token_t *t = pe_peek(p);
    if (t && t->kind == TK_PUNCT && t->id == id) { p->i++; return true; }
    return false;
}
static int64_t pe_unary(pex_t *p) {
    token_t *t = pe_peek(p);
    if (!t) syntax_error(p->n ? &p->v[p->n - 1].loc : NULL, "#if with no expression");
    if (pe_punct(p, P_NOT)) return !pe_unary(p);
    if (pe_punct(p, P_MINUS)) return (int64_t)(0 - (uint64_t)pe_unary(p)); /* wraps, as cpp does: no UB */
    if (pe_punct(p, P_PLUS)) return pe_unary(p);
    if (pe_punct(p, P_TILDE)) return ~pe_unary(p);
    if (pe_punct(p, P_LPAREN)) {
        int64_t v = pe_cond(p);
        if (!pe_punct(p, P_RPAREN)) syntax_error(&t->loc, "missing ')' in #if expression");
        return v;
    }
    p->i++;
    if (t->kind == TK_INT || t->kind == TK_CHAR) return (int64_t)t->ival;
    if (is_ident(t)) {
        if (t->kind == TK_KW && t->id == KW_TRUE) return 1;
        return 0; /* an unknown identifier is 0 */
    }
    syntax_error(&t->loc, "token \"%.*s\" is not valid in preprocessor expressions", t->n, t->s);
}
/* C's binary operator precedence (10 = * / %, 1 = ||), -1 for anything
 * else: for #if expressions here and for the parser. */
int binary_precedence(const token_t *t) {
    if (!t || t->kind != TK_PUNCT) return -1;
    switch (t->id) {
    case P_STAR: case P_DIV: case P_MOD: return 10;
    case P_PLUS: case P_MINUS: return 9;
    case P_SHL: case P_SHR: return 8;
    case P_LT: case P_GT: case P_LE: case P_GE: return 7;
    case P_EQ: case P_NE: return 6;
    case P_AMP: return 5;
    case P_XOR: return 4;
    case P_OR: return 3;
    case P_LAND: return 2;
    case P_LOR: return 1;
    }
    return -1;
}
static int64_t pe_bin(pex_t *p, int minp) {
    int64_t l = pe_unary(p);
    for (;;) {
        token_t *t = pe_peek(p);
        int pr = binary_precedence(t);
        if (pr < minp) return l;
        p->i++;
        bool unevaluated = (t->id == P_LAND && !l) || (t->id == P_LOR && l);
        p->skip += unevaluated;
        int64_t r = pe_bin(p, pr + 1);
        p->skip -= unevaluated;
        switch (t->id) {
        /* a preprocessor's integers wrap (gcc warns, and goes on): in unsigned arithmetic here */
        case P_STAR: l = (int64_t)((uint64_t)l * (uint64_t)r); break;
        case P_DIV:
        case P_MOD:
            if (!r && !p->skip) syntax_error(&t->loc, "division by zero in #if");
            if (!r) l = 0;
            else if (r == -1) l = t->id == P_DIV ? (int64_t)(0 - (uint64_t)l) : 0; /* INT64_MIN / -1 */
            else l = t->id == P_DIV ? l / r : l % r;
            break;
        case P_PLUS: l = (int64_t)((uint64_t)l + (uint64_t)r); break;
        case P_MINUS: l = (int64_t)((uint64_t)l - (uint64_t)r); break;
        case P_SHL: l = (int64_t)((uint64_t)l << (r & 63)); break;
        case P_SHR: l >>= (r & 63); break;
        case P_LT: l = l < r; break;
        case P_GT: l = l > r; break;
        case P_LE: l = l <= r; break;
        case P_GE: l = l >= r; break;
        case P_EQ: l = l == r; break;
        case P_NE: l = l != r; break;
        case P_AMP: l &= r; break;
        case P_XOR: l ^= r; break;
        case P_OR: l |= r; break;
        case P_LAND: l = l && r; break;
        case P_LOR: l = l || r; break;
        }
    }
}
static int64_t pe_cond(pex_t *p) {
    int64_t c = pe_bin(p, 1);
    if (pe_punct(p, P_QUEST)) {
        p->skip += !c;
        int64_t a = pe_cond(p);
        p->skip -= !c;
        if (!pe_punct(p, P_COLON)) syntax_error(&p->v[p->i - 1].loc, "expected ':' in #if");
        p->skip += !!c;
        int64_t b = pe_cond(p);
        p->skip -= !!c;
        return c ? a : b;
    }
    return c;
}

static bool eval_if(interp_t *in, token_t *v, int n) {
    /* replace defined X / defined(X) first, then expand macros */
    tokvec_t pre = {0};
    for (int i = 0; i < n; i++) {
        if (is_ident(&v[i]) && teq(&v[i], "defined")) {
            int j = i + 1;
            bool par = j < n && v[j].kind == TK_PUNCT && v[j].id == P_LPAREN;
            if (par) j++;
            if (j >= n || !is_ident(&v[j])) syntax_error(&v[i].loc, "operator \"defined\" requires an identifier");
            token_t t = v[i];
            t.kind = TK_INT;
            t.ival = find_macro(in, &v[j]) != NULL;
            vpush(&pre, &t);
            i = j + (par ? 1 : 0);
            continue;
        }
        vpush(&pre, &v[i]);
    }
    tokvec_t ex = {0};
    active_t act = {.n = 0};
    expand(in, pre.v, pre.n, &ex, &act, 0);
    pex_t p = {.v = ex.v, .n = ex.n, .in = in};
    int64_t r;
    r = pe_cond(&p);
    return r != 0;
}

/* The headers one cell has included so far: each is read once a cell (as
 * #pragma once or include guards would have it), nesting bounded. */
#define MAX_INCLUDE_DEPTH 16
typedef struct { const char *names[64]; int n, depth; } includes_t;

static void preprocess_tokens(interp_t *in, tokvec_t *raw, tokvec_t *out, bool builtin, includes_t *inc);

/* #include "name" of a session header: its host view, lexed as a source of
 * its own (errors name the header's lines), into the cell's tokens. */
static void include_header(interp_t *in, token_t *d, token_t *v, int n, tokvec_t *out, bool builtin, includes_t *inc) {
    if (n < 1 || v[0].kind != TK_STR || !v[0].str || !in->header_text) return;
    const char *name = v[0].str;
    const char *text = in->header_text(in->header_ctx, name);
    if (!text) return; /* a standard or device header */
    for (int k = 0; k < inc->n; k++)
        if (!strcmp(inc->names[k], name)) return;
    if (inc->depth >= MAX_INCLUDE_DEPTH)
        syntax_error(&d->loc, "#include nested too deeply (more than %d headers)", MAX_INCLUDE_DEPTH);
    if (inc->n < 64) inc->names[inc->n++] = pool_strndup(&in->pool, name, strlen(name));
    src_t *src = src_new(in, name, text);
    tokvec_t raw = {0};
    lex_raw(in, src, &raw);
    inc->depth++;
    preprocess_tokens(in, &raw, out, builtin, inc);
    inc->depth--;
}

static void preprocess(interp_t *in, tokvec_t *raw, tokvec_t *out, bool builtin) {
    includes_t inc = {.n = 0};
    in->pp_expansions = 0;
    preprocess_tokens(in, raw, out, builtin, &inc);
    vpush(out, &raw->v[raw->n - 1]);
}

static void preprocess_tokens(interp_t *in, tokvec_t *raw, tokvec_t *out, bool builtin, includes_t *inc) {
    token_t *v = raw->v;
    int n = raw->n - 1; /* without EOF */
    /* conditional stack: each level: taking?, taken-already?, parent-taking */
    struct { bool on, done, parent; } cs[64];
    int nc = 0;
    bool on = true;
    int i = 0;
    while (i < n) {
        if (v[i].bol && v[i].kind == TK_PUNCT && v[i].id == P_HASH) {
            int s = i + 1, e = s;
            while (e < n && !v[e].bol) e++;
            token_t *d = s < e ? &v[s] : NULL;
            char dn[32] = "";
            if (d && is_ident(d) && d->n < 31) { memcpy(dn, d->s, (size_t)d->n); dn[d->n] = 0; }
            if (!strcmp(dn, "ifdef") || !strcmp(dn, "ifndef") || !strcmp(dn, "if")) {
                if (nc >= 63) syntax_error(&d->loc, "#if nested too deeply");
                bool c = false;
                if (on) {
                    if (dn[2] == 0) c = eval_if(in, v + s + 1, e - s - 1);
                    else {
                        if (e - s < 2) syntax_error(&d->loc, "no macro name given in #%s directive", dn);
                        c = find_macro(in, &v[s + 1]) != NULL;
                        if (dn[2] == 'n') c = !c;
                    }
                }
                cs[nc].parent = on;
                cs[nc].on = on && c;
                cs[nc].done = on && c;
                nc++;
                on = on && c;
            } else if (!strcmp(dn, "elif")) {
                if (!nc) syntax_error(&d->loc, "#elif without #if");
                bool c = cs[nc - 1].parent && !cs[nc - 1].done && eval_if(in, v + s + 1, e - s - 1);
                cs[nc - 1].on = c;
                cs[nc - 1].done |= c;
                on = c;
            } else if (!strcmp(dn, "else")) {
                if (!nc) syntax_error(&d->loc, "#else without #if");
                cs[nc - 1].on = cs[nc - 1].parent && !cs[nc - 1].done;
                cs[nc - 1].done = true;
                on = cs[nc - 1].on;
            } else if (!strcmp(dn, "endif")) {
                if (!nc) syntax_error(&d->loc, "#endif without #if");
                nc--;
                on = cs[nc].parent;
            } else if (!on) {
                /* skipped */
            } else if (!strcmp(dn, "define")) {
                define(in, v + s + 1, e - s - 1, builtin);
            } else if (!strcmp(dn, "undef")) {
                if (e - s >= 2) hmap_deln(&in->macros, v[s + 1].s, (size_t)v[s + 1].n);
            } else if (!strcmp(dn, "error")) {
                syntax_error(&d->loc, "#error %.*s", e - s > 1 ? (int)(v[e - 1].s + v[e - 1].n - v[s + 1].s) : 0,
                             e - s > 1 ? v[s + 1].s : "");
            } else if (!strcmp(dn, "warning")) {
                char msg[600];
                int k = snprintf(msg, sizeof msg, "%s, line %d: warning: %.*s\n", d->loc.src ? d->loc.src->name : "cell",
                                 d->loc.line, e - s > 1 ? (int)(v[e - 1].s + v[e - 1].n - v[s + 1].s) : 0,
                                 e - s > 1 ? v[s + 1].s : "");
                out_write("stderr", msg, (size_t)(k < (int)sizeof msg ? k : (int)sizeof msg - 1));
            } else if (!strcmp(dn, "include")) {
                /* standard headers are built in; a %%header is read; others belong to the device side */
                include_header(in, d, v + s + 1, e - s - 1, out, builtin, inc);
            } else if (!strcmp(dn, "pragma") || !strcmp(dn, "line") || dn[0] == 0) {
            } else {
                syntax_error(&d->loc, "invalid preprocessing directive #%s", dn);
            }
            i = e;
            continue;
        }
        int e = i;
        while (e < n && !(v[e].bol && v[e].kind == TK_PUNCT && v[e].id == P_HASH)) e++;
        if (on) {
            active_t act = {.n = 0};
            expand(in, v + i, e - i, out, &act, 0);
        }
        i = e;
    }
    if (nc) syntax_error(&v[n].loc, "unterminated #if");
}

static void merge_launch_tokens(tokvec_t *v);

void lex_cell(interp_t *in, src_t *src, tokvec_t *out) {
    tokvec_t raw = {0};
    lex_raw(in, src, &raw);
    g_raw.base = raw.v;
    g_raw.n = raw.n;
    g_raw.kept = 0;
    preprocess(in, &raw, out, false);
    g_raw.base = NULL;
    pool_release(&in->scratch, raw.v); /* the cell's tokens are out's now: 1x their size, not 2x, while it parses */
    merge_launch_tokens(out);
}

void lex_define_text(interp_t *in, const char *text) {
    src_t *s = src_new(in, "<builtin>", text);
    tokvec_t raw = {0}, out = {0};
    lex_raw(in, s, &raw);
    preprocess(in, &raw, &out, true);
}

/* A launch as code formatters write it, k<< <grid, block>> >(args): `<<` `<`
 * is a launch's opening (nothing else can follow `<<` with `<`), and inside
 * one, `>>` `>` or `>` `>>` (or `>` `>` `>`) at its own bracket depth is its
 * close. */
static bool punct_is(const token_t *t, int id) { return t->kind == TK_PUNCT && t->id == id; }

static void merge_into(tokvec_t *v, int i, int ntok, int id, const char *spelling) {
    token_t *t = &v->v[i], *last = &v->v[i + ntok - 1];
    t->id = id;
    t->s = spelling;
    t->n = 3;
    if (last->loc.src == t->loc.src && last->loc.line == t->loc.line && last->loc.col >= t->loc.col)
        t->loc.len = last->loc.col + last->loc.len - t->loc.col;
    memmove(t + 1, t + ntok, sizeof *t * (size_t)(v->n - i - ntok));
    v->n -= ntok - 1;
}

static void merge_launch_tokens(tokvec_t *v) {
    int open = 0, depth = 0; /* inside a launch's <<< >>>, and its bracket depth there */
    for (int i = 0; i < v->n; i++) {
        token_t *t = &v->v[i];
        if (t->kind != TK_PUNCT) continue;
        bool n1 = i + 1 < v->n, n2 = i + 2 < v->n;
        if (!open && t->id == P_SHL && n1 && punct_is(&v->v[i + 1], P_LT)) merge_into(v, i, 2, P_LAUNCH_OPEN, "<<<");
        if (!open && t->id == P_LAUNCH_OPEN) {
            open = 1;
            depth = 0;
            continue;
        }
        if (!open) continue;
        if (t->id == P_LPAREN || t->id == P_LBRACK || t->id == P_LBRACE) depth++;
        else if ((t->id == P_RPAREN || t->id == P_RBRACK || t->id == P_RBRACE) && depth > 0) depth--;
        else if (t->id == P_SEMI) open = 0; /* no launch after all: leave the rest alone */
        else if (depth == 0 && t->id == P_LAUNCH_CLOSE) open = 0;
        else if (depth == 0 && ((t->id == P_SHR && n1 && punct_is(&v->v[i + 1], P_GT)) ||
                                (t->id == P_GT && n1 && punct_is(&v->v[i + 1], P_SHR)))) {
            merge_into(v, i, 2, P_LAUNCH_CLOSE, ">>>");
            open = 0;
        } else if (depth == 0 && t->id == P_GT && n2 && punct_is(&v->v[i + 1], P_GT) && punct_is(&v->v[i + 2], P_GT)) {
            merge_into(v, i, 3, P_LAUNCH_CLOSE, ">>>");
            open = 0;
        }
    }
}

/* ---- for the cell's conditionals (pp_cell.c) ---- */

void lex_span(interp_t *in, src_t *src, const char *p, int line, tokvec_t *out) { lex_raw_at(in, src, p, line, out); }
bool lex_pp_if(interp_t *in, token_t *v, int n) { return eval_if(in, v, n); }
bool lex_pp_defined(interp_t *in, token_t *name) { return find_macro(in, name) != NULL; }
void lex_pp_define(interp_t *in, token_t *v, int n) { define(in, v, n, false); }
