/* std::string: 32 bytes as libstdc++ has it — a checked pointer to its
 * characters (a library buffer, NUL-terminated, so c_str() is an ordinary
 * checked char *), the length and the capacity. All zero bytes are an empty
 * string. Construction from literals, copies, +, +=, comparisons, [] and
 * at() checked against the length, c_str(), size(), substr, find, and
 * std::to_string / std::stoi & co. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cxx_lib.h"
#include "runtime/hostmem/arena.h"
#include "runtime/base/xalloc.h"

typedef struct { uint64_t data, len, cap, pad; } xstr_t;
#define NPOS ((uint64_t)-1)

static const char *what_str = "std::string";

uint64_t cx_store_alloc(uint64_t size, const char *what, node_t *at) {
    if (size > ((uint64_t)1 << 36)) rt_error(at, "%s cannot hold %" PRIu64 " bytes (std::length_error)", what, size);
    uint64_t w = mem_alloc(size ? size : 1, PLACE_LIB, what, at ? &at->loc : NULL);
    if (!w) rt_error(at, "out of memory: %s cannot grow to %" PRIu64 " bytes (std::bad_alloc)", what, size);
    return w;
}

void cx_store_free(uint64_t w, const char *what, node_t *at) {
    if (!w) return;
    if (!ptr_valid(w) || g_bufs[ptr_slot(w)].place != PLACE_LIB || ptr_off(w) != 0)
        rt_error(at, "the storage of a %s was freed or damaged behind its back", what);
    uint32_t s = ptr_slot(w);
    arena_free(g_bufs[s].base);
    g_bufs[s].base = NULL;
    buf_kill(s, BUF_FREED);
}

static void str_valid(xstr_t *s, node_t *at) {
    if (!s->data) { if (!s->len && !s->cap) return; }
    else if (ptr_valid(s->data) && g_bufs[ptr_slot(s->data)].place == PLACE_LIB && ptr_off(s->data) == 0 && s->len <= s->cap &&
             s->cap < g_bufs[ptr_slot(s->data)].size)
        return;
    if (s->data && !ptr_valid(s->data)) mem_fail(s->data, 1, 0, at);
    rt_error(at, "a std::string was damaged: its length, capacity or storage was overwritten (through a pointer or a cast)");
}
static xstr_t *S(val_t *a, int i, node_t *at) {
    xstr_t *s = (xstr_t *)cx_obj(a, i, sizeof(xstr_t), at);
    str_valid(s, at);
    return s;
}

static const char *chars(xstr_t *s, node_t *at) {
    if (!s->data) return "";
    return mem_at(s->data, s->len + 1, 0, at);
}

static void reserve(xstr_t *s, uint64_t need, node_t *at) {
    if (need <= s->cap && s->data) return;
    uint64_t nc = s->cap * 2;
    if (nc < need) nc = need;
    if (nc < 15) nc = 15;
    uint64_t w = cx_store_alloc(nc + 1, what_str, at);
    char *d = mem_at(w, nc + 1, 1, at);
    if (s->data) memcpy(d, chars(s, at), s->len + 1);
    else d[0] = 0;
    cx_store_free(s->data, what_str, at);
    s->data = w;
    s->cap = nc;
}

static void set_bytes(xstr_t *s, const char *b, uint64_t n, node_t *at) { /* s empty or garbage-free */
    s->len = 0;
    if (n) reserve(s, n, at);
    if (s->data) {
        char *d = mem_at(s->data, n + 1, 1, at);
        memmove(d, b, n);
        d[n] = 0;
    }
    s->len = n;
}

static void append(xstr_t *s, const char *b, uint64_t n, node_t *at) {
    if (!n) return;
    char *tmp = NULL;
    if (s->data && b >= chars(s, at) && b <= chars(s, at) + s->len) { /* s += s */
        tmp = malloc(n);
        if (!tmp) rt_error(at, "out of memory");
        memcpy(tmp, b, n);
        b = tmp;
        g_in->tmp[1] = tmp;
    }
    reserve(s, s->len + n, at);
    char *d = mem_at(s->data, s->len + n + 1, 1, at);
    memcpy(d + s->len, b, n);
    d[s->len + n] = 0;
    s->len += n;
    if (tmp) { g_in->tmp[1] = NULL; free(tmp); }
}

/* the library's view of a string value: a std::string object or a char * */
void cx_string_set(char *obj, const char *b, uint64_t n, node_t *at) {
    memset(obj, 0, sizeof(xstr_t));
    set_bytes((xstr_t *)obj, b, n, at);
}
const char *cx_string_chars(const char *obj, uint64_t *len, node_t *at) {
    xstr_t *s = (xstr_t *)obj;
    str_valid(s, at);
    if (len) *len = s->len;
    return chars(s, at);
}

static void str_destroy(cx_class_t *c, char *obj, node_t *at) {
    xstr_t *s = (xstr_t *)obj;
    str_valid(s, at);
    uint64_t w = s->data;
    memset(s, 0, sizeof *s);
    cx_store_free(w, what_str, at);
}
static void str_copy(cx_class_t *c, char *dst, const char *src, node_t *at) {
    xstr_t copy = *(const xstr_t *)src;
    str_valid(&copy, at);
    memset(dst, 0, sizeof(xstr_t));
    if (copy.len) set_bytes((xstr_t *)dst, chars(&copy, at), copy.len, at);
}
static char *str_show(cx_class_t *c, const char *obj) {
    xstr_t *s = (xstr_t *)obj;
    int64_t off;
    const char *b = "";
    if (s->data) {
        buf_t *bf = ptr_live_buf(s->data, &off);
        if (!bf || off != 0 || s->len >= bf->size) return xstrdup("(a damaged std::string)");
        b = bf->base + off;
    } else if (s->len) return xstrdup("(a damaged std::string)");
    size_t n = s->len > 200 ? 200 : s->len;
    char *r = xmalloc(n * 4 + 16);
    size_t k = 0;
    r[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)b[i];
        if (ch == '"' || ch == '\\') { r[k++] = '\\'; r[k++] = (char)ch; }
        else if (ch == '\n') { r[k++] = '\\'; r[k++] = 'n'; }
        else if (ch < 32 || ch >= 127) k += (size_t)sprintf(r + k, "\\x%02x", ch);
        else r[k++] = (char)ch;
    }
    r[k++] = '"';
    if (n < s->len) { memcpy(r + k, "...", 3); k += 3; }
    r[k] = 0;
    return r;
}
static const cx_libops_t str_ops = {str_destroy, str_copy, str_show};

#define ARGN(i) (c->list[i])

static val_t s_ctor_cstr(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    const char *src = a[1].u ? str_at(a[1].u, ARGN(1), &len) : NULL;
    if (!src) rt_error(c, "std::string constructed from a NULL pointer (std::logic_error)");
    set_bytes(S(a, 0, c), src, len, c);
    return (val_t){.u = 0};
}
static val_t s_ctor_nc(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    uint64_t k = a[1].u;
    if (k > ((uint64_t)1 << 32)) rt_error(c, "std::string of %" PRIu64 " characters is too long (std::length_error)", k);
    s->len = 0;
    if (k) {
        reserve(s, k, c);
        char *d = mem_at(s->data, k + 1, 1, c);
        memset(d, (int)a[2].i, k);
        d[k] = 0;
    }
    s->len = k;
    return (val_t){.u = 0};
}
static val_t s_cstr(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    if (!s->data) return (val_t){.u = cx_state(g_in)->empty_str};
    return (val_t){.u = s->data};
}
static val_t s_size(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = S(a, 0, c)->len}; }
static val_t s_begin(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    return (val_t){.u = s->data ? s->data : cx_state(g_in)->empty_str};
}
static val_t s_end(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    return (val_t){.u = s->data ? ptr_add(s->data, (int64_t)s->len) : cx_state(g_in)->empty_str};
}
static val_t s_empty(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = S(a, 0, c)->len == 0}; }
static val_t s_clear(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    s->len = 0;
    if (s->data) *mem_at(s->data, 1, 1, c) = 0;
    return (val_t){.u = 0};
}
static uint64_t index_check(xstr_t *s, int64_t i, node_t *c, bool at_fn, bool allow_end) {
    if (i < 0 || (uint64_t)i > s->len || ((uint64_t)i == s->len && !allow_end)) {
        char b[100];
        if (at_fn) rt_error(c, "std::out_of_range: basic_string::at: __n (which is %" PRId64 ") >= this->size() (which is %" PRIu64 ")", i, s->len);
        rt_error(c, "out-of-bounds string index: %s has %" PRIu64 " characters, index %" PRId64,
                 loc_text(&ARGN(0)->loc, b, sizeof b), s->len, i);
    }
    return (uint64_t)i;
}
static val_t s_index(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    uint64_t i = index_check(s, a[1].i, c, false, true);
    if (!s->data) return (val_t){.u = cx_state(g_in)->empty_str};
    return (val_t){.u = ptr_add(s->data, (int64_t)i)};
}
static val_t s_at(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    uint64_t i = index_check(s, a[1].i, c, true, false);
    return (val_t){.u = ptr_add(s->data, (int64_t)i)};
}
static val_t s_append_s(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c), *o = S(a, 1, c);
    uint64_t len = o->len;
    append(s, chars(o, c), len, c);
    return (val_t){.u = a[0].u};
}
static val_t s_append_p(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    if (!a[1].u) rt_error(c, "appending a NULL pointer to a std::string");
    const char *src = str_at(a[1].u, ARGN(1), &len);
    append(S(a, 0, c), src, len, c);
    return (val_t){.u = a[0].u};
}
static val_t s_append_c(node_t *c, val_t *a, int n, frame_t *f) {
    char ch = (char)a[1].i;
    append(S(a, 0, c), &ch, 1, c);
    return (val_t){.u = a[0].u};
}
/* results by value: a[0] is where the new string goes (zeroed) */
static val_t s_plus_s(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *r = S(a, 0, c), *x = S(a, 1, c), *y = S(a, 2, c);
    xstr_t xs = *x, ys = *y;
    set_bytes(r, chars(&xs, c), xs.len, c);
    append(r, chars(&ys, c), ys.len, c);
    return (val_t){.u = a[0].u};
}
static val_t s_plus_p(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *r = S(a, 0, c), xs = *S(a, 1, c);
    size_t len;
    if (!a[2].u) rt_error(c, "adding a NULL pointer to a std::string");
    const char *src = str_at(a[2].u, ARGN(2), &len);
    set_bytes(r, chars(&xs, c), xs.len, c);
    append(r, src, len, c);
    return (val_t){.u = a[0].u};
}
static val_t s_plus_c(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *r = S(a, 0, c), xs = *S(a, 1, c);
    char ch = (char)a[2].i;
    set_bytes(r, chars(&xs, c), xs.len, c);
    append(r, &ch, 1, c);
    return (val_t){.u = a[0].u};
}
static val_t s_rplus_p(node_t *c, val_t *a, int n, frame_t *f) { /* "abc" + s */
    xstr_t *r = S(a, 0, c), xs = *S(a, 1, c);
    size_t len;
    if (!a[2].u) rt_error(c, "adding a NULL pointer to a std::string");
    const char *src = str_at(a[2].u, ARGN(2), &len);
    set_bytes(r, src, len, c);
    append(r, chars(&xs, c), xs.len, c);
    return (val_t){.u = a[0].u};
}
static val_t s_rplus_c(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *r = S(a, 0, c), xs = *S(a, 1, c);
    char ch = (char)a[2].i;
    set_bytes(r, &ch, 1, c);
    append(r, chars(&xs, c), xs.len, c);
    return (val_t){.u = a[0].u};
}
static int cmp_bytes(const char *x, uint64_t xn, const char *y, uint64_t yn) {
    int r = memcmp(x, y, xn < yn ? xn : yn);
    if (r) return r;
    return xn < yn ? -1 : xn > yn ? 1 : 0;
}
static int cmp_of(node_t *c, val_t *a, bool ptr, bool rev) {
    xstr_t *x = S(a, 0, c);
    const char *yb;
    uint64_t yn;
    if (ptr) {
        size_t l;
        if (!a[1].u) rt_error(c, "comparing a std::string with a NULL pointer");
        yb = str_at(a[1].u, ARGN(1), &l);
        yn = l;
    } else {
        xstr_t *y = S(a, 1, c);
        yb = chars(y, c);
        yn = y->len;
    }
    int r = cmp_bytes(chars(x, c), x->len, yb, yn);
    return rev ? -r : r;
}
#define CMPFN(nm, expr) \
    static val_t s_##nm##_s(node_t *c, val_t *a, int n, frame_t *f) { int r = cmp_of(c, a, false, false); return (val_t){.i = (expr)}; } \
    static val_t s_##nm##_p(node_t *c, val_t *a, int n, frame_t *f) { int r = cmp_of(c, a, true, false); return (val_t){.i = (expr)}; } \
    static val_t s_##nm##_rp(node_t *c, val_t *a, int n, frame_t *f) { int r = cmp_of(c, a, true, true); return (val_t){.i = (expr)}; }
CMPFN(eq, r == 0)
CMPFN(ne, r != 0)
CMPFN(lt, r < 0)
CMPFN(gt, r > 0)
CMPFN(le, r <= 0)
CMPFN(ge, r >= 0)
static val_t s_compare(node_t *c, val_t *a, int n, frame_t *f) { int r = cmp_of(c, a, false, false); return (val_t){.i = r < 0 ? -1 : r > 0}; }
static val_t s_compare_p(node_t *c, val_t *a, int n, frame_t *f) { int r = cmp_of(c, a, true, false); return (val_t){.i = r < 0 ? -1 : r > 0}; }

static val_t s_substr(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *r = S(a, 0, c), xs = *S(a, 1, c);
    uint64_t pos = a[2].u, cnt = a[3].u;
    if (pos > xs.len) rt_error(c, "std::out_of_range: basic_string::substr: __pos (which is %" PRIu64 ") > this->size() (which is %" PRIu64 ")", pos, xs.len);
    if (cnt > xs.len - pos) cnt = xs.len - pos;
    set_bytes(r, chars(&xs, c) + pos, cnt, c);
    return (val_t){.u = a[0].u};
}
static val_t s_find_common(node_t *c, xstr_t *s, const char *needle, uint64_t nn, uint64_t pos) {
    const char *h = chars(s, c);
    if (pos > s->len || nn > s->len - pos) return (val_t){.u = nn == 0 && pos <= s->len ? pos : NPOS};
    for (uint64_t i = pos; i + nn <= s->len; i++)
        if (!memcmp(h + i, needle, nn)) return (val_t){.u = i};
    return (val_t){.u = NPOS};
}
static val_t s_find_s(node_t *c, val_t *a, int n, frame_t *f) { xstr_t *o = S(a, 1, c); xstr_t os = *o; return s_find_common(c, S(a, 0, c), chars(&os, c), os.len, a[2].u); }
static val_t s_find_p(node_t *c, val_t *a, int n, frame_t *f) {
    size_t l;
    if (!a[1].u) rt_error(c, "find of a NULL pointer");
    const char *nd = str_at(a[1].u, ARGN(1), &l);
    return s_find_common(c, S(a, 0, c), nd, l, a[2].u);
}
static val_t s_find_c(node_t *c, val_t *a, int n, frame_t *f) { char ch = (char)a[1].i; return s_find_common(c, S(a, 0, c), &ch, 1, a[2].u); }
static val_t s_push_back(node_t *c, val_t *a, int n, frame_t *f) { char ch = (char)a[1].i; append(S(a, 0, c), &ch, 1, c); return (val_t){.u = 0}; }
static val_t s_pop_back(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    if (!s->len) rt_error(c, "pop_back on an empty std::string");
    s->len--;
    *mem_at(ptr_add(s->data, (int64_t)s->len), 1, 1, c) = 0;
    return (val_t){.u = 0};
}
static val_t s_back(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    if (!s->len) rt_error(c, "back() of an empty std::string");
    return (val_t){.u = ptr_add(s->data, (int64_t)s->len - 1)};
}
static val_t s_front(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    if (!s->len) rt_error(c, "front() of an empty std::string");
    return (val_t){.u = s->data};
}
static val_t s_assign_p(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    if (!a[1].u) rt_error(c, "assigning a NULL pointer to a std::string");
    const char *src = str_at(a[1].u, ARGN(1), &len);
    xstr_t *s = S(a, 0, c);
    char *tmp = malloc(len + 1);
    if (!tmp) rt_error(c, "out of memory");
    memcpy(tmp, src, len);
    g_in->tmp[1] = tmp;
    s->len = 0;
    set_bytes(s, tmp, len, c);
    g_in->tmp[1] = NULL;
    free(tmp);
    return (val_t){.u = a[0].u};
}
static val_t s_assign_s(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c), *o = S(a, 1, c);
    if (s == o) return (val_t){.u = a[0].u};
    xstr_t os = *o;
    uint64_t len = os.len;
    char *tmp = malloc(len + 1);
    if (!tmp) rt_error(c, "out of memory");
    memcpy(tmp, chars(&os, c), len);
    g_in->tmp[1] = tmp;
    set_bytes(s, tmp, len, c);
    g_in->tmp[1] = NULL;
    free(tmp);
    return (val_t){.u = a[0].u};
}
static val_t s_assign_c(node_t *c, val_t *a, int n, frame_t *f) {
    char ch = (char)a[1].i;
    set_bytes(S(a, 0, c), &ch, 1, c);
    return (val_t){.u = a[0].u};
}

/* ---- std::to_string, std::stoi ... ---- */
static val_t s_to_string(node_t *c, val_t *a, int n, frame_t *f) {
    char b[400];
    int k = (int)c->op;
    if (k == 0) snprintf(b, sizeof b, "%" PRId64, a[1].i);
    else if (k == 1) snprintf(b, sizeof b, "%" PRIu64, a[1].u);
    else snprintf(b, sizeof b, "%f", a[1].d);
    cx_string_set(cx_obj(a, 0, sizeof(xstr_t), c), b, strlen(b), c);
    return (val_t){.u = a[0].u};
}

static node_t *one_arg(P *p, loc_t *l, const char *fname) {
    expect(p, P_LPAREN, "'('");
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    if (n != 1) type_error(l, "%s takes one argument, not %d", fname, n);
    return args[0];
}

static node_t *fn_to_string(P *p, loc_t *l) {
    node_t *e = rvalue(p, one_arg(p, l, "std::to_string"));
    loc_t lc = from(p, l);
    if (!ty_is_arith(e->ty)) type_error(&e->loc, "std::to_string needs a number, not %s", tyname(e->ty));
    int k;
    if (ty_is_float(e->ty)) { k = 2; e = mk_cast(e, &ty_double); }
    else if (e->ty->is_unsigned || e->ty->kind == T_UINT || e->ty->kind == T_ULONG || e->ty->kind == T_ULLONG) { k = 1; e = mk_cast(e, &ty_ulong); }
    else { k = 0; e = mk_cast(e, &ty_long); }
    return cx_lib_call_ret(p, &lc, s_to_string, cx_string_type(p->in), &e, 1, k, "std::to_string");
}

static val_t s_sto(node_t *c, val_t *a, int n, frame_t *f) {
    xstr_t *s = S(a, 0, c);
    const char *b = chars(s, c);
    char *end;
    val_t r;
    if (c->op == 2) r.d = strtod(b, &end);
    else if (c->op == 3) r.d = strtof(b, &end);
    else r.i = strtoll(b, &end, 10);
    if (end == b) rt_error(c, "std::invalid_argument: %s: no conversion of \"%.60s\"", c->op >= 2 ? "stod" : "stoi", b);
    if (c->op == 0 && (r.i > 2147483647LL || r.i < -2147483648LL)) rt_error(c, "std::out_of_range: stoi: \"%.60s\"", b);
    return r;
}
static node_t *sto(P *p, loc_t *l, int k, type_t *rt, const char *nm) {
    node_t *e = one_arg(p, l, nm);
    loc_t lc = from(p, l);
    type_t *st = cx_string_type(p->in);
    node_t *v = cx_convert(p, e, st, nm);
    if (!v) type_error(&e->loc, "%s needs a std::string, not %s", nm, tyname(e->ty));
    builtin_t *b = pool_alloc(&p->in->pool, sizeof *b);
    b->name = nm;
    b->fn = s_sto;
    node_t **args = pool_alloc(&p->in->pool, sizeof(node_t *));
    args[0] = cx_this_word(p, v);
    node_t *c = mk_builtin(&lc, b, rt, args, 1);
    c->op = k;
    return c;
}
static node_t *fn_stoi(P *p, loc_t *l) { return sto(p, l, 0, &ty_int, "std::stoi"); }
static node_t *fn_stol(P *p, loc_t *l) { return sto(p, l, 1, &ty_long, "std::stol"); }
static node_t *fn_stod(P *p, loc_t *l) { return sto(p, l, 2, &ty_double, "std::stod"); }
static node_t *fn_stof(P *p, loc_t *l) { return sto(p, l, 3, &ty_float, "std::stof"); }

type_t *cx_string_type(interp_t *in) { return cx_state(in)->string_type; }

void cxx_string_register(interp_t *in) {
    cx_class_t *c;
    type_t *t = cx_lib_class(in, "std::string", sizeof(xstr_t), 8, LIB_STRING, &c);
    c->ops = &str_ops;
    c->nontrivial = true;
    c->has_dtor = true;
    cx_state_t *cs = cx_state(in);
    cs->string_type = t;
    cx_lib_type_name(in, "std::string", t);
    uint32_t es = buf_new((char *)"", 1, PLACE_STRLIT, "an empty std::string", NULL);
    g_bufs[es].owner = in->id;
    cs->empty_str = ptr_make(es, 0);
    type_t *cstr = ty_ptr(ty_const(&ty_char)), *sz = &ty_ulong;
    cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 1, cstr), s_ctor_cstr, NULL);
    cx_lib_method(in, c, "#ctor", cx_fty(&ty_void, 2, sz, &ty_char), s_ctor_nc, NULL);
    cx_lib_method(in, c, "c_str", cx_fty(cstr, 0), s_cstr, NULL);
    cx_lib_method(in, c, "data", cx_fty(cstr, 0), s_cstr, NULL);
    cx_lib_method(in, c, "size", cx_fty(sz, 0), s_size, NULL);
    cx_lib_method(in, c, "begin", cx_fty(ty_ptr(&ty_char), 0), s_begin, NULL);
    cx_lib_method(in, c, "end", cx_fty(ty_ptr(&ty_char), 0), s_end, NULL);
    cx_lib_type_name(in, "std::string::iterator", ty_ptr(&ty_char));
    cx_lib_type_name(in, "std::string::const_iterator", ty_ptr(ty_const(&ty_char)));
    cx_lib_type_name(in, "std::string::size_type", &ty_ulong);
    cx_lib_method(in, c, "length", cx_fty(sz, 0), s_size, NULL);
    cx_lib_method(in, c, "empty", cx_fty(&ty_bool, 0), s_empty, NULL);
    cx_lib_method(in, c, "clear", cx_fty(&ty_void, 0), s_clear, NULL);
    cx_method_t *m;
    m = cx_lib_method(in, c, "operator[]", cx_fty(&ty_char, 1, &ty_long), s_index, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "at", cx_fty(&ty_char, 1, &ty_long), s_at, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "back", cx_fty(&ty_char, 0), s_back, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "front", cx_fty(&ty_char, 0), s_front, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "operator+=", cx_fty(t, 1, t), s_append_s, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "operator+=", cx_fty(t, 1, cstr), s_append_p, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "operator+=", cx_fty(t, 1, &ty_char), s_append_c, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "append", cx_fty(t, 1, t), s_append_s, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "append", cx_fty(t, 1, cstr), s_append_p, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "operator=", cx_fty(t, 1, t), s_assign_s, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "operator=", cx_fty(t, 1, cstr), s_assign_p, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "operator=", cx_fty(t, 1, &ty_char), s_assign_c, NULL);
    m->ret_ref = true;
    cx_lib_method(in, c, "push_back", cx_fty(&ty_void, 1, &ty_char), s_push_back, NULL);
    cx_lib_method(in, c, "pop_back", cx_fty(&ty_void, 0), s_pop_back, NULL);
    cx_lib_method(in, c, "operator+", cx_fty(t, 1, t), s_plus_s, NULL);
    cx_lib_method(in, c, "operator+", cx_fty(t, 1, cstr), s_plus_p, NULL);
    cx_lib_method(in, c, "operator+", cx_fty(t, 1, &ty_char), s_plus_c, NULL);
    cx_lib_method(in, c, "roperator+", cx_fty(t, 1, cstr), s_rplus_p, NULL);
    cx_lib_method(in, c, "roperator+", cx_fty(t, 1, &ty_char), s_rplus_c, NULL);
#define CMPREG(op, nm) \
    cx_lib_method(in, c, "operator" op, cx_fty(&ty_bool, 1, t), s_##nm##_s, NULL); \
    cx_lib_method(in, c, "operator" op, cx_fty(&ty_bool, 1, cstr), s_##nm##_p, NULL); \
    cx_lib_method(in, c, "roperator" op, cx_fty(&ty_bool, 1, cstr), s_##nm##_rp, NULL);
    CMPREG("==", eq) CMPREG("!=", ne) CMPREG("<", lt) CMPREG(">", gt) CMPREG("<=", le) CMPREG(">=", ge)
    cx_lib_method(in, c, "compare", cx_fty(&ty_int, 1, t), s_compare, NULL);
    cx_lib_method(in, c, "compare", cx_fty(&ty_int, 1, cstr), s_compare_p, NULL);
    m = cx_lib_method(in, c, "substr", cx_fty(t, 2, sz, sz), s_substr, NULL);
    m->nreq = 0;
    m->defv[0].u = 0;
    m->defv[1].u = NPOS;
    m = cx_lib_method(in, c, "find", cx_fty(sz, 2, t, sz), s_find_s, NULL);
    m->nreq = 1;
    m = cx_lib_method(in, c, "find", cx_fty(sz, 2, cstr, sz), s_find_p, NULL);
    m->nreq = 1;
    m = cx_lib_method(in, c, "find", cx_fty(sz, 2, &ty_char, sz), s_find_c, NULL);
    m->nreq = 1;
    gvar_t *np = cx_lib_global(in, "std::string::npos", ty_const(&ty_ulong));
    if (np) { uint64_t v = NPOS; memcpy(np->addr, &v, 8); }
    cx_register_libfn(in, "std::to_string", fn_to_string);
    cx_register_libfn(in, "std::stoi", fn_stoi);
    cx_register_libfn(in, "std::stol", fn_stol);
    cx_register_libfn(in, "std::stod", fn_stod);
    cx_register_libfn(in, "std::stof", fn_stof);
}
