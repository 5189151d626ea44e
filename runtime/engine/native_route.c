/* Which cells run as native C++ (native_route.h): decided before anything
 * of a cell compiles or runs, from what the cell includes, the names it
 * uses and the C++ the interpreter does not take. */
#include "native_route.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cuda/cuda_session.h"
#include "runtime/native/native_items.h"
#include "session.h"

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The next token of s at *p (an identifier, or one character), comments,
 * strings and white space skipped; false at the end. */
static bool token(const char *s, size_t end, size_t *p, size_t *a, size_t *n) {
    size_t i = *p;
    for (;;) {
        while (i < end && isspace((unsigned char)s[i])) i++;
        if (i + 1 < end && s[i] == '/' && s[i + 1] == '/') {
            while (i < end && s[i] != '\n') i++;
            continue;
        }
        if (i + 1 < end && s[i] == '/' && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < end && !(s[i] == '*' && s[i + 1] == '/')) i++;
            i += 2;
            continue;
        }
        break;
    }
    if (i >= end) return false;
    *a = i;
    if (s[i] == '"' || s[i] == '\'') {
        char q = s[i++];
        while (i < end && s[i] != q) i += s[i] == '\\' ? 2 : 1;
        i++;
    } else if (ident_char(s[i])) {
        while (i < end && ident_char(s[i])) i++;
    } else {
        i++;
    }
    if (i > end) i = end;
    *n = i - *a;
    *p = i;
    return true;
}

static bool tok_is(const char *s, size_t a, size_t n, const char *w) { return n == strlen(w) && !memcmp(s + a, w, n); }

/* C++ that host cells refuse, in one host item: what it is, or NULL; or a
 * call of the CUDA runtime that only native code can make, named in call. */
static const char *refused_cxx(const char *s, const cell_item_t *it, char call[64]) {
    static const struct {
        const char *word, *what;
    } words[] = {{"try", "exceptions"}, {"catch", "exceptions"}, {"throw", "exceptions"},
                 {"virtual", "virtual functions"}, {"dynamic_cast", "dynamic_cast"}, {"friend", "friend declarations"},
                 {"decltype", "decltype"}, {"operator", "operator overloading"}};
    size_t p = it->start, a, n, pa = 0, pn = 0;
    bool first = true, after_class = false, in_template = false;
    int angle = 0;
    while (token(s, it->end, &p, &a, &n)) {
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
            if (tok_is(s, a, n, words[w].word)) return words[w].what;
        if (tok_is(s, a, n, "thrust") || (tok_is(s, a, n, "cub") && strstr(s + a, "::Device") == s + a + 3))
            return tok_is(s, a, n, "thrust") ? "Thrust" : "CUB's device-wide algorithms";
        if (tok_is(s, a, n, "cuda") && p + 1 < it->end && s[p] == ':' && s[p + 1] == ':')
            return "libcu++ (cuda::)"; /* cuda::std::atomic, cuda::atomic_ref: device cells have them, host cells not */
        if (first && tok_is(s, a, n, "template")) in_template = true;
        if (in_template && angle == 0 && pn && (tok_is(s, a, n, "class") || tok_is(s, a, n, "struct")) &&
            tok_is(s, pa, pn, ">"))
            return "class templates";
        if (tok_is(s, a, n, "<")) angle++;
        if (tok_is(s, a, n, ">") && angle > 0) angle--;
        if (n > 4 && !memcmp(s + a, "cuda", 4) && p < it->end && s[p] == '(') { /* a call, not the word */
            const char *family = NULL;
            snprintf(call, 64, "%.*s", (int)(n < 63 ? n : 63), s + a);
            if (n < 63 && cuda_native_only(call, &family)) return family;
            call[0] = 0;
        }
        if ((tok_is(s, a, n, "class") || tok_is(s, a, n, "struct")) && !(pn && tok_is(s, pa, pn, "enum")))
            after_class = true; /* enum class E : int is no inheritance */
        else if (after_class && tok_is(s, a, n, ":") && !(p < it->end && s[p] == ':') &&
                 !(pn == 1 && s[pa] == ':'))
            return "inheritance";
        else if (tok_is(s, a, n, "{") || tok_is(s, a, n, ";")) after_class = false;
        /* a lambda: '[' where an expression starts, then ']' and '(' or '{' */
        if (tok_is(s, a, n, "[") && (!pn || strchr("=(,{;:", s[pa]) || tok_is(s, pa, pn, "return")) &&
            !(p < it->end && s[p] == '[')) {
            size_t q = p, qa, qn;
            int depth = 1;
            while (depth && token(s, it->end, &q, &qa, &qn)) {
                if (tok_is(s, qa, qn, "[")) depth++;
                if (tok_is(s, qa, qn, "]")) depth--;
            }
            if (!depth && token(s, it->end, &q, &qa, &qn) &&
                (tok_is(s, qa, qn, "(") || tok_is(s, qa, qn, "{") || tok_is(s, qa, qn, "mutable") ||
                 tok_is(s, qa, qn, "__device__") || tok_is(s, qa, qn, "__host__")))
                return "lambdas";
        }
        pa = a;
        pn = n;
        first = false;
    }
    return NULL;
}

/* Whether a device item launches a kernel (<<< in its body): dynamic
 * parallelism links only as relocatable device code with the device
 * runtime, which nvcc gives a native cell and NVRTC a device module not. */
static bool launches_kernel(const char *s, const cell_item_t *it) {
    size_t p = it->start, a, n;
    while (token(s, it->end, &p, &a, &n))
        if (n == 1 && s[a] == '<' && a + 2 < it->end && s[a + 1] == '<' && s[a + 2] == '<') return true;
    return false;
}

bool engine_native_route(engine_t *e, const native_session_t *ns, const char *code, const cell_split_t *sp, char *why,
                         size_t cap) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (device_include_refused(&e->dev, it)) {
            snprintf(why, cap, "it includes %c%s%c", it->include_angle ? '<' : '"', it->name,
                     it->include_angle ? '>' : '"');
            return true;
        }
    }
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if ((it->kind == ITEM_DEVICE || it->kind == ITEM_BOTH) && it->is_function && launches_kernel(code, it)) {
            snprintf(why, cap, "%s launches a kernel from device code (dynamic parallelism, line %d), which "
                     "nvcc builds with -rdc=true", it->name, it->first_line);
            return true;
        }
    }
    char **ids = native_session_empty(ns) ? NULL : native_identifiers(code); /* a big cell's names: only when needed */
    for (char **p = ids; p && *p; p++)
        if (native_session_defines(ns, *p) || native_session_global(ns, *p)) {
            snprintf(why, cap, "it uses %s, which a native C++ cell defined", *p);
            native_strv_free(ids);
            return true;
        }
    native_strv_free(ids);
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (it->kind != ITEM_HOST && it->kind != ITEM_BOTH) continue; /* a struct of both sides may inherit */
        char call[64] = "";
        const char *what = refused_cxx(code, it, call);
        if (what && call[0]) {
            snprintf(why, cap, "it calls %s (%s, line %d), which host cells cannot", call, what, it->first_line);
            return true;
        }
        if (what) {
            snprintf(why, cap, "host cells do not interpret %s (line %d)", what, it->first_line);
            return true;
        }
    }
    return false;
}

/* The header an #include line names ("<map>", "\"helpers.h\""): its
 * length, *t where it starts. */
static int header_name(const native_entry_t *inc, const char **t) {
    const char *h = inc->text + strspn(inc->text, " \t#") + strlen("include");
    h += strspn(h, " \t");
    *t = h;
    return (int)strcspn(h, "\n");
}

bool engine_native_fallback(const native_session_t *ns, const cell_split_t *sp, const cell_error_t *err, char *why,
                            size_t cap) {
    const char *v = err->evalue, *suffix = "' is undeclared";
    if (!err->ename || strcmp(err->ename, "TypeError") || !v || v[0] != '\'') return false;
    size_t n = strlen(v), sn = strlen(suffix);
    if (n <= sn + 1 || strcmp(v + n - sn, suffix)) return false;
    if (!strncmp(v + 1, "std::", 5)) { /* the standard library has it; the interpreter's does not */
        snprintf(why, cap, "it uses %.*s, which host cells do not have", (int)(n - sn - 1), v + 1);
        return true;
    }
    for (size_t i = 0; i < sp->n; i++) { /* a device library's host side: cub's allocator, libcu++'s types */
        const cell_item_t *it = &sp->items[i];
        if (!it->is_include || it->include_route != INC_DEVICE) continue;
        snprintf(why, cap, "it uses %.*s, which host cells do not know and %c%s%c, which it includes, may declare",
                 (int)(n - sn - 1), v + 1, it->include_angle ? '<' : '"', it->name, it->include_angle ? '>' : '"');
        return true;
    }
    const native_entry_t *inc = native_session_last_include(ns);
    if (!inc) return false;
    const char *t;
    int tl = header_name(inc, &t);
    snprintf(why, cap, "it uses %.*s, which host cells do not know and a header a native cell included may declare "
             "(%.*s, %s)", (int)(n - sn - 1), v + 1, tl, t, inc->cell);
    return true;
}

bool engine_native_device_fallback(const native_session_t *ns, const cell_error_t *err, char *why, size_t cap) {
    static const char pre[] = "identifier \"", post[] = "\" is undefined";
    const char *v = err->evalue;
    if (!err->ename || strcmp(err->ename, "CompileError") || !v) return false;
    const native_entry_t *inc = native_session_last_include(ns);
    if (!inc) return false;
    const char *t;
    int tl = header_name(inc, &t);
    /* a type NVRTC lacks is often not "undefined" to it: uint32_t *p reads
     * as a product, and the error is elsewhere */
    const char *a = strstr(v, pre);
    const char *b = a ? strstr(a + strlen(pre), post) : NULL;
    if (b && b - a < 100)
        snprintf(why, cap, "its device code uses %.*s, which NVRTC does not know and a header a native cell included "
                 "may declare (%.*s, %s)", (int)(b - a - (int)strlen(pre)), a + strlen(pre), tl, t, inc->cell);
    else {
        int vl = (int)strcspn(v, "\n("); /* the first error, without its "(In [3], line 1)" */
        while (vl > 0 && v[vl - 1] == ' ') vl--;
        snprintf(why, cap, "NVRTC refused its device code (%.*s), which a header a native cell included may make "
                 "right (%.*s, %s)", vl > 120 ? 120 : vl, v, tl, t, inc->cell);
    }
    return true;
}
