/* stdlib.h, time.h, assert and exit. malloc'd buffers live in the shared
 * arena (mem_alloc), so the GPU worker can copy them; rand() is glibc's
 * TYPE_3 additive generator, so sequences match a gcc program's. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib.h"
#include "runtime/hostmem/arena.h"
#include "runtime/lang/eval/ub_checks.h"

#define ARG(i) (c->list[i])

static val_t b_malloc(node_t *c, val_t *a, int n, frame_t *f) {
    return (val_t){.u = a[0].u > ((uint64_t)1 << 36) ? 0 : mem_alloc(a[0].u, PLACE_HEAP, NULL, &c->loc)};
}
static val_t b_calloc(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t t;
    if (__builtin_mul_overflow(a[0].u, a[1].u, &t) || t > ((uint64_t)1 << 36)) return (val_t){.u = 0};
    return (val_t){.u = mem_alloc(t, PLACE_HEAP, NULL, &c->loc)};
}
static val_t b_free(node_t *c, val_t *a, int n, frame_t *f) {
    mem_free_heap(a[0].u, ARG(0));
    return (val_t){.u = 0};
}
static val_t b_realloc(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t p = a[0].u, sz = a[1].u;
    if (!p) return b_malloc(c, a + 1, 1, f);
    /* validate p exactly as free() would, before copying */
    mem_at(p, 0, 0, ARG(0));
    if (ptr_is_raw(p)) mem_free_heap(p, ARG(0)); /* raises: not from malloc */
    buf_t *b = &g_bufs[ptr_slot(p)];
    if (b->place != PLACE_HEAP || ptr_off(p) != 0) mem_free_heap(p, ARG(0)); /* raises */
    if (sz == 0) { mem_free_heap(p, ARG(0)); return (val_t){.u = 0}; }
    if (sz > ((uint64_t)1 << 36)) return (val_t){.u = 0};
    uint64_t q = mem_alloc(sz, PLACE_HEAP, NULL, &c->loc);
    if (!q) return (val_t){.u = 0};
    b = &g_bufs[ptr_slot(p)];
    buf_t *nb = &g_bufs[ptr_slot(q)];
    memcpy(nb->base, b->base, b->size < sz ? b->size : sz);
    mem_free_heap(p, ARG(0));
    return (val_t){.u = q};
}

/* glibc random_r.c, TYPE_3: r[i] = r[i-3] + r[i-31] */
void rand_seed(interp_t *in, uint32_t seed) {
    int32_t *r = in->rtab;
    int32_t st[34];
    if (seed == 0) seed = 1;
    st[0] = (int32_t)seed;
    for (int i = 1; i < 31; i++) {
        int32_t hi = st[i - 1] / 127773, lo = st[i - 1] % 127773;
        int32_t word = 16807 * lo - 2836 * hi;
        if (word < 0) word += 2147483647;
        st[i] = word;
    }
    for (int i = 0; i < 31; i++) r[i] = st[i];
    in->rf = 3;
    in->rr = 0;
    for (int i = 0; i < 310; i++) {
        rand_next(in);
    }
}
int32_t rand_next(interp_t *in) {
    int32_t *r = in->rtab;
    uint32_t v = (uint32_t)r[in->rf] + (uint32_t)r[in->rr];
    r[in->rf] = (int32_t)v;
    int32_t res = (int32_t)(v >> 1);
    if (++in->rf >= 31) in->rf = 0;
    if (++in->rr >= 31) in->rr = 0;
    return res;
}
static val_t b_rand(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = rand_next(g_in)}; }
static val_t b_srand(node_t *c, val_t *a, int n, frame_t *f) { rand_seed(g_in, (uint32_t)a[0].u); return (val_t){.u = 0}; }

/* abs of the lowest value is undefined (its negation does not fit), as the
 * unary minus is: the same error, in the call's type */
static val_t b_abs(node_t *c, val_t *a, int n, frame_t *f) {
    int32_t x = (int32_t)a[0].i;
    if (x == INT32_MIN) ub_negation(c, x);
    return (val_t){.i = x < 0 ? -x : x};
}
/* labs, llabs, imaxabs */
static val_t b_labs(node_t *c, val_t *a, int n, frame_t *f) {
    if (a[0].i == INT64_MIN) ub_negation(c, a[0].i);
    return (val_t){.i = a[0].i < 0 ? -a[0].i : a[0].i};
}
static val_t b_atoi(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = (int32_t)atoi(str_at(a[0].u, ARG(0), NULL))}; }
static val_t b_atol(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = atol(str_at(a[0].u, ARG(0), NULL))}; }
static val_t b_atof(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = atof(str_at(a[0].u, ARG(0), NULL))}; }
static void set_end(node_t *c, val_t *a, int k, const char *s, const char *e) {
    if (!a[k].u) return;
    uint64_t v = ptr_add(a[0].u, e - s);
    char *d = mem_at(a[k].u, 8, 1, ARG(k));
    memcpy(d, &v, 8);
}
static val_t b_strtol(node_t *c, val_t *a, int n, frame_t *f) {
    const char *s = str_at(a[0].u, ARG(0), NULL);
    char *e;
    long r = strtol(s, &e, (int)a[2].i);
    set_end(c, a, 1, s, e);
    return (val_t){.i = r};
}
static val_t b_strtoul(node_t *c, val_t *a, int n, frame_t *f) {
    const char *s = str_at(a[0].u, ARG(0), NULL);
    char *e;
    unsigned long r = strtoul(s, &e, (int)a[2].i);
    set_end(c, a, 1, s, e);
    return (val_t){.u = r};
}
static val_t b_strtod(node_t *c, val_t *a, int n, frame_t *f) {
    const char *s = str_at(a[0].u, ARG(0), NULL);
    char *e;
    double r = strtod(s, &e);
    set_end(c, a, 1, s, e);
    return (val_t){.d = r};
}
static val_t b_strtof(node_t *c, val_t *a, int n, frame_t *f) {
    const char *s = str_at(a[0].u, ARG(0), NULL);
    char *e;
    float r = strtof(s, &e);
    set_end(c, a, 1, s, e);
    return (val_t){.d = r};
}

/* qsort: a stable merge sort (glibc's qsort is a merge sort too) over
 * indexes, so the comparator always gets pointers into the user's buffer */
typedef struct { node_t *c; frame_t *f; func_t *fn; uint64_t base; uint64_t size; } qctx_t;
static int qcmp(qctx_t *q, uint64_t i, uint64_t j) {
    val_t args[2] = {{.u = ptr_add(q->base, (int64_t)(i * q->size))}, {.u = ptr_add(q->base, (int64_t)(j * q->size))}};
    return (int)call_func(q->fn, args, q->c, q->f, NULL).i;
}
static void msort(qctx_t *q, uint64_t *v, uint64_t *tmp, uint64_t n) {
    if (n < 2) return;
    uint64_t h = n / 2;
    msort(q, v, tmp, h);
    msort(q, v + h, tmp, n - h);
    uint64_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = qcmp(q, v[i], v[j]) <= 0 ? v[i++] : v[j++];
    while (i < h) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}
static val_t b_qsort(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t cnt = a[1].u, size = a[2].u, fp = a[3].u;
    if (cnt == 0 || size == 0) return (val_t){.u = 0};
    uint64_t total;
    if (__builtin_mul_overflow(cnt, size, &total)) rt_error(c, "qsort: %" PRIu64 " elements of %" PRIu64 " bytes is too large", cnt, size);
    mem_at(a[0].u, total, 1, ARG(0));
    if (ptr_slot(fp) != SLOT_FUNC || (uint64_t)ptr_off(fp) >= (uint64_t)g_nfboxes || !g_fboxes[ptr_off(fp)]->cur)
        rt_error(c, "qsort: the comparator is not a function");
    qctx_t q = {c, f, g_fboxes[ptr_off(fp)]->cur, a[0].u, size};
    if (q.fn->nparams != 2) rt_error(c, "qsort: the comparator %s must take two pointers", q.fn->name);
    uint64_t *idx = calloc(cnt * 2, sizeof *idx);
    char *copy = malloc(total);
    if (!idx || !copy) { free(idx); free(copy); rt_error(c, "qsort: out of memory"); }
    g_in->tmp[0] = idx; /* freed by the unwinder if the comparator fails */
    g_in->tmp[1] = copy;
    for (uint64_t i = 0; i < cnt; i++) idx[i] = i;
    msort(&q, idx, idx + cnt, cnt);
    char *base = mem_at(a[0].u, total, 1, ARG(0)); /* again: the comparator may have freed it */
    memcpy(copy, base, total);
    for (uint64_t i = 0; i < cnt; i++) memcpy(base + i * size, copy + idx[i] * size, size);
    free(idx);
    free(copy);
    g_in->tmp[0] = g_in->tmp[1] = NULL;
    return (val_t){.u = 0};
}

static val_t b_exit(node_t *c, val_t *a, int n, frame_t *f) {
    g_in->exit_code = (int)a[0].i;
    g_in->exited = true;
    lang_raise("__exit__", &c->loc, "exit(%d)", (int)a[0].i);
}
static val_t b_abort(node_t *c, val_t *a, int n, frame_t *f) { rt_error(c, "abort() was called"); }
static val_t b_assert(node_t *c, val_t *a, int n, frame_t *f) {
    if (a[0].i) return (val_t){.u = 0};
    const char *txt = str_at(a[1].u, ARG(1), NULL);
    lang_raise("AssertionError", &c->loc, "assertion failed: %s (%s, line %d)", txt,
               c->loc.src ? c->loc.src->name : "?", c->loc.line);
}
static val_t b_time(node_t *c, val_t *a, int n, frame_t *f) {
    time_t t = time(NULL);
    if (a[0].u) {
        char *d = mem_at(a[0].u, 8, 1, ARG(0));
        int64_t v = t;
        memcpy(d, &v, 8);
    }
    return (val_t){.i = t};
}
/* <sys/time.h>: the time of day; the obsolete timezone argument must be
 * NULL (what it would receive is not the time zone on every system). */
static val_t b_gettimeofday(node_t *c, val_t *a, int n, frame_t *f) {
    if (a[1].u)
        rt_error(c, "gettimeofday's second argument (a struct timezone) must be NULL: the time zone is not "
                 "given this way; pass NULL");
    if (a[0].u) {
        char *d = mem_at(a[0].u, 16, 1, ARG(0));
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        int64_t v[2] = {(int64_t)ts.tv_sec, (int64_t)(ts.tv_nsec / 1000)};
        memcpy(d, v, 16);
    }
    return (val_t){.i = 0};
}
static val_t b_clock(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = clock()}; }
static val_t b_difftime(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.d = (double)(a[0].i - a[1].i)}; }

void builtins_stdlib_register(interp_t *in) {
    builtin_add(in, "malloc", b_malloc, 0);
    builtin_add(in, "calloc", b_calloc, 0);
    builtin_add(in, "free", b_free, 0);
    builtin_add(in, "realloc", b_realloc, 0);
    builtin_add(in, "rand", b_rand, 0);
    builtin_add(in, "srand", b_srand, 0);
    builtin_add(in, "abs", b_abs, 0);
    builtin_add(in, "labs", b_labs, 0);
    builtin_add(in, "llabs", b_labs, 0);
    builtin_add(in, "imaxabs", b_labs, 0);
    builtin_add(in, "atoi", b_atoi, 0);
    builtin_add(in, "atol", b_atol, 0);
    builtin_add(in, "atoll", b_atol, 0);
    builtin_add(in, "atof", b_atof, 0);
    builtin_add(in, "strtol", b_strtol, 0);
    builtin_add(in, "strtoll", b_strtol, 0);
    builtin_add(in, "strtoul", b_strtoul, 0);
    builtin_add(in, "strtoull", b_strtoul, 0);
    builtin_add(in, "strtod", b_strtod, 0);
    builtin_add(in, "strtof", b_strtof, 0);
    builtin_add(in, "qsort", b_qsort, 0);
    builtin_add(in, "exit", b_exit, BF_NORETURN);
    builtin_add(in, "abort", b_abort, BF_NORETURN);
    builtin_add(in, "__icuda_assert", b_assert, 0);
    builtin_add(in, "time", b_time, 0);
    builtin_add(in, "clock", b_clock, 0);
    builtin_add(in, "gettimeofday", b_gettimeofday, 0);
    builtin_add(in, "difftime", b_difftime, 0);
}

/* ---- ctype.h, bsearch, div, strtok ---- */
#include <ctype.h>
#define CT(nm) static val_t c_##nm(node_t *c, val_t *a, int n, frame_t *f) { \
    int x = (int)a[0].i; return (val_t){.i = (x >= -1 && x < 256) ? (nm(x) != 0) : 0}; }
CT(isalpha) CT(isdigit) CT(isalnum) CT(isspace) CT(isupper) CT(islower) CT(ispunct) CT(isxdigit)
CT(isprint) CT(iscntrl) CT(isgraph)
static val_t c_toupper(node_t *c, val_t *a, int n, frame_t *f) { int x = (int)a[0].i; return (val_t){.i = x >= -1 && x < 256 ? toupper(x) : x}; }
static val_t c_tolower(node_t *c, val_t *a, int n, frame_t *f) { int x = (int)a[0].i; return (val_t){.i = x >= -1 && x < 256 ? tolower(x) : x}; }

static val_t b_bsearch(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t key = a[0].u, base = a[1].u, cnt = a[2].u, size = a[3].u, fp = a[4].u;
    if (cnt == 0) return (val_t){.u = 0};
    mem_at(base, cnt * size, 0, ARG(1));
    if (ptr_slot(fp) != SLOT_FUNC || (uint64_t)ptr_off(fp) >= (uint64_t)g_nfboxes || !g_fboxes[ptr_off(fp)]->cur)
        rt_error(c, "bsearch: the comparator is not a function");
    func_t *fn = g_fboxes[ptr_off(fp)]->cur;
    uint64_t lo = 0, hi = cnt;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        val_t args[2] = {{.u = key}, {.u = ptr_add(base, (int64_t)(mid * size))}};
        int r = (int)call_func(fn, args, c, f, NULL).i;
        if (r < 0) hi = mid;
        else if (r > 0) lo = mid + 1;
        else return args[1];
    }
    return (val_t){.u = 0};
}

/* div_t results live in a small ring: each is copied by its user at once */
static char divring[16][16];
static int divk;
static val_t b_div(node_t *c, val_t *a, int n, frame_t *f) {
    char *r = divring[divk++ & 15];
    int32_t x = (int32_t)a[0].i, y = (int32_t)a[1].i;
    if (y == 0) rt_error(c, "integer division by zero in div()");
    if (y == -1 && x == INT32_MIN) rt_error(c, "division of %d by -1 cannot be represented in type 'int'", x);
    int32_t q = x / y, m = x % y;
    memcpy(r, &q, 4);
    memcpy(r + 4, &m, 4);
    return (val_t){.p = r};
}
/* ldiv, lldiv, imaxdiv */
static val_t b_ldiv(node_t *c, val_t *a, int n, frame_t *f) {
    char *r = divring[divk++ & 15];
    int64_t x = a[0].i, y = a[1].i;
    const char *fn = ((builtin_t *)c->p)->name;
    if (y == 0) rt_error(c, "integer division by zero in %s()", fn);
    if (y == -1 && x == INT64_MIN)
        rt_error(c, "division of %" PRId64 " by -1 cannot be represented in type '%s'", x,
                 !strcmp(fn, "lldiv") ? "long long" : "long");
    int64_t q = x / y, m = x % y;
    memcpy(r, &q, 8);
    memcpy(r + 8, &m, 8);
    return (val_t){.p = r};
}

/* strtok keeps its place as an interpreter pointer (the session's
 * tok_next), so it stays checked */
static val_t b_strtok(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t s = a[0].u ? a[0].u : g_in->tok_next;
    if (!s) return (val_t){.u = 0};
    size_t len, dl;
    const char *str = str_at(s, a[0].u ? ARG(0) : c, &len);
    const char *delim = str_at(a[1].u, ARG(1), &dl);
    size_t i = strspn(str, delim);
    if (str[i] == 0) { g_in->tok_next = 0; return (val_t){.u = 0}; }
    size_t j = i + strcspn(str + i, delim);
    char *w = mem_at(s, len + 1, 1, a[0].u ? ARG(0) : c);
    if (w[j]) { w[j] = 0; g_in->tok_next = ptr_add(s, (int64_t)j + 1); }
    else g_in->tok_next = 0;
    return (val_t){.u = ptr_add(s, (int64_t)i)};
}

void builtins_stdlib2_register(interp_t *in) {
    builtin_add(in, "isalpha", c_isalpha, 0);
    builtin_add(in, "isdigit", c_isdigit, 0);
    builtin_add(in, "isalnum", c_isalnum, 0);
    builtin_add(in, "isspace", c_isspace, 0);
    builtin_add(in, "isupper", c_isupper, 0);
    builtin_add(in, "islower", c_islower, 0);
    builtin_add(in, "ispunct", c_ispunct, 0);
    builtin_add(in, "isxdigit", c_isxdigit, 0);
    builtin_add(in, "isprint", c_isprint, 0);
    builtin_add(in, "iscntrl", c_iscntrl, 0);
    builtin_add(in, "isgraph", c_isgraph, 0);
    builtin_add(in, "toupper", c_toupper, 0);
    builtin_add(in, "tolower", c_tolower, 0);
    builtin_add(in, "bsearch", b_bsearch, 0);
    builtin_add(in, "div", b_div, 0);
    builtin_add(in, "ldiv", b_ldiv, 0);
    builtin_add(in, "lldiv", b_ldiv, 0);
    builtin_add(in, "imaxdiv", b_ldiv, 0);
    builtin_add(in, "strtok", b_strtok, 0);
}
