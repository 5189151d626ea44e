/* std::vector<T>: 24 bytes as libstdc++ has it — a checked pointer to the
 * elements (a library buffer, so data() works with cudaMemcpy and its size
 * checks, and a pointer kept across a reallocation is a use after free),
 * the size and the capacity; all zero bytes are an empty vector. [] is
 * checked against the size and names the vector; at() fails as
 * std::out_of_range would. begin()/end() are T *, so std::sort(v.begin(),
 * v.end()) and range-for work. Elements of class type are constructed,
 * copied and destroyed as C++ does (cxx_object.c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cxx_lib.h"
#include "runtime/lang/eval/exec_inline.h"
#include "runtime/base/xalloc.h"

typedef struct { uint64_t data, size, cap; } xvec_t;

static cx_class_t *CLS(node_t *c) { return ((builtin_t *)c->p)->data; }
static type_t *ELT(cx_class_t *k) { return k->targ[0]; }
/* a vector's header as its methods find it: storage that holds its capacity, a size within it
 * (anything else was written over through a cast, and is an error, not a crash) */
static void vec_valid(cx_class_t *k, xvec_t *v, node_t *at) {
    type_t *t = k->targ[0];
    uint64_t cap;
    if (!v->data) { if (!v->size && !v->cap) return; }
    else if (ptr_valid(v->data) && g_bufs[ptr_slot(v->data)].place == PLACE_LIB && ptr_off(v->data) == 0 && v->size <= v->cap &&
             !__builtin_mul_overflow(v->cap, t->size, &cap) && cap <= g_bufs[ptr_slot(v->data)].size)
        return;
    if (v->data && !ptr_valid(v->data)) mem_fail(v->data, 1, 0, at);
    rt_error(at, "a %s was damaged: its size, capacity or storage was overwritten (through a pointer or a cast)", k->name);
}
static xvec_t *V(val_t *a, int i, node_t *c) {
    xvec_t *v = (xvec_t *)cx_obj(a, i, sizeof(xvec_t), c);
    vec_valid(((builtin_t *)c->p)->data, v, c);
    return v;
}
static bool elt_plain(type_t *t) { cx_class_t *c = cx_class_of(t); return !c || (!c->nontrivial && !c->default_ctor); }
static uint64_t at_word(xvec_t *v, type_t *t, uint64_t i) { return ptr_add(v->data, (int64_t)(i * t->size)); }

static const char *vname(node_t *c, char *b, size_t n) { return loc_text(&c->list[0]->loc, b, n); }

/* new storage of cap elements; the old elements move there (bytes: nothing points into them) */
static void regrow(cx_class_t *k, xvec_t *v, uint64_t cap, node_t *at) {
    type_t *t = ELT(k);
    uint64_t bytes;
    if (__builtin_mul_overflow(cap, t->size, &bytes) || bytes > ((uint64_t)1 << 36))
        rt_error(at, "%s cannot hold %" PRIu64 " elements (std::length_error)", k->name, cap);
    uint64_t w = cx_store_alloc(bytes, k->name, at);
    char *d = mem_at(w, bytes, 1, at);
    memset(d, 0, bytes);
    if (v->size) memcpy(d, mem_at(v->data, v->size * t->size, 0, at), v->size * t->size);
    cx_store_free(v->data, k->name, at);
    v->data = w;
    v->cap = cap;
}
static void reserve(cx_class_t *k, xvec_t *v, uint64_t need, node_t *at) {
    if (need <= v->cap && v->data) return;
    uint64_t nc = v->cap ? v->cap * 2 : 1;
    if (nc < need) nc = need;
    regrow(k, v, nc, at);
}

static void elt_default(type_t *t, uint64_t w, node_t *at) {
    if (elt_plain(t)) memset(mem_at(w, t->size, 1, at), 0, t->size);
    else cx_rt_default(t, w, at);
}
static void elt_destroy(type_t *t, uint64_t w, node_t *at) { if (cx_nontrivial(t)) cx_rt_destroy(t, w, at); }
/* a value as the builtin received it: scalars by value, objects by their word, aggregates by address */
static void elt_put(type_t *t, uint64_t w, val_t v, node_t *at) {
    char *d = mem_at(w, t->size, 1, at);
    if (cx_class_of(t)) {
        if (cx_class_of(t)->nontrivial) { memset(d, 0, t->size); cx_rt_copy(t, w, v.u, at); }
        else memmove(d, mem_at(v.u, t->size, 0, at), t->size);
    } else if (ty_is_aggr(t)) memmove(d, v.p, t->size);
    else store_code(tcode(t), d, v);
}

static void resize_to(cx_class_t *k, xvec_t *v, uint64_t n, val_t *fill, node_t *at) {
    type_t *t = ELT(k);
    while (v->size > n) { v->size--; elt_destroy(t, at_word(v, t, v->size), at); }
    if (n > v->size) {
        if (n > v->cap || !v->data) regrow(k, v, n > v->cap * 2 ? n : (v->cap * 2 > n ? (v->size ? v->cap * 2 : n) : n), at);
        while (v->size < n) {
            uint64_t w = at_word(v, t, v->size);
            if (fill) elt_put(t, w, *fill, at);
            else elt_default(t, w, at);
            v->size++;
        }
    }
}

static void vec_destroy(cx_class_t *k, char *obj, node_t *at) {
    xvec_t *v = (xvec_t *)obj;
    vec_valid(k, v, at);
    type_t *t = ELT(k);
    if (cx_nontrivial(t))
        while (v->size) { v->size--; cx_rt_destroy(t, at_word(v, t, v->size), at); }
    uint64_t w = v->data;
    memset(v, 0, sizeof *v);
    cx_store_free(w, k->name, at);
}
static void vec_copy(cx_class_t *k, char *dst, const char *src, node_t *at) {
    xvec_t s = *(const xvec_t *)src, *d = (xvec_t *)dst;
    type_t *t = ELT(k);
    vec_valid(k, &s, at);
    memset(d, 0, sizeof *d);
    if (!s.size) return;
    regrow(k, d, s.size, at);
    if (!cx_nontrivial(t)) {
        memcpy(mem_at(d->data, s.size * t->size, 1, at), mem_at(s.data, s.size * t->size, 0, at), s.size * t->size);
        d->size = s.size;
        return;
    }
    for (uint64_t i = 0; i < s.size; i++) {
        cx_rt_copy(t, at_word(d, t, i), at_word(&s, t, i), at);
        d->size = i + 1;
    }
}
static char *vec_show(cx_class_t *k, const char *obj) {
    xvec_t *v = (xvec_t *)obj;
    type_t *t = ELT(k);
    char *r = xmalloc(64);
    size_t n = 0, cap = 64;
    int64_t off;
    buf_t *b = v->data ? ptr_live_buf(v->data, &off) : NULL;
    if (v->data && (!b || (uint64_t)off > b->size || v->size > (b->size - (uint64_t)off) / (t->size ? t->size : 1))) {
        strcpy(r, "(a damaged std::vector)");
        return r;
    }
    if (!v->data && v->size) { strcpy(r, "(a damaged std::vector)"); return r; }
    r[n++] = '{';
    char tn[160];
    size_t skip = strlen(ty_name(ty_unqual(t), tn, sizeof tn)) + 3; /* display_text's "(type) " */
    for (uint64_t i = 0; i < v->size; i++) {
        if (v->size > 10 && i == 3) { n += (size_t)sprintf(r + n, ", …"); i = v->size - 3; }
        char *e;
        cx_class_t *ec = cx_class_of(t);
        if (ec && ec->ops && ec->ops->show) e = ec->ops->show(ec, b->base + off + i * t->size);
        else if (ty_is_scalar(t)) {
            val_t x = load_code(tcode(t), b->base + off + i * t->size);
            char *d = display_text(t, x, false);
            e = xstrdup(strlen(d) >= skip ? d + skip : d);
            free(d);
        } else e = xstrdup("{…}");
        size_t el = strlen(e);
        if (n + el + 16 > cap) { cap = (n + el + 16) * 2; r = xrealloc(r, cap); }
        n += (size_t)sprintf(r + n, "%s%s", i ? ", " : "", e);
        free(e);
    }
    r[n++] = '}';
    r[n] = 0;
    return r;
}
static const cx_libops_t vec_ops = {vec_destroy, vec_copy, vec_show};

/* ---- methods (args[0] is `this`) ---- */
static val_t v_size(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = V(a, 0, c)->size}; }
static val_t v_capacity(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = V(a, 0, c)->cap}; }
static val_t v_empty(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = V(a, 0, c)->size == 0}; }
static val_t v_data(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = V(a, 0, c)->data}; }
static val_t v_end(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    return (val_t){.u = v->data ? at_word(v, ELT(CLS(c)), v->size) : 0};
}
/* An index past the size but within the capacity: storage that reserve()
 * (or a shrunk size) left without elements, which writes through data()
 * do not make. */
static const char *reserved_hint(xvec_t *v, uint64_t i, char *b, size_t n) {
    if (i < v->size || i >= v->cap) return "";
    snprintf(b, n, "; its capacity is %" PRIu64 ", but capacity is no elements: reserve() makes none, nor do writes "
             "through data(), so size() is still %" PRIu64 "; resize() makes them", v->cap, v->size);
    return b;
}

static val_t v_index(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    int64_t i = a[1].i;
    if ((uint64_t)i >= v->size) {
        char b[120], h[240];
        rt_error(c, "out-of-bounds index: %s[%" PRId64 "] but %s has %" PRIu64 " element%s (%s, valid indexes 0 to %" PRId64 ")%s",
                 vname(c, b, sizeof b), i, b, v->size, v->size == 1 ? "" : "s", CLS(c)->name, (int64_t)v->size - 1,
                 reserved_hint(v, (uint64_t)i, h, sizeof h));
    }
    return (val_t){.u = at_word(v, ELT(CLS(c)), (uint64_t)i)};
}
static val_t v_at(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    char h[240];
    if (a[1].u >= v->size)
        rt_error(c, "std::out_of_range: vector::_M_range_check: __n (which is %" PRIu64 ") >= this->size() (which is %" PRIu64 ")%s",
                 a[1].u, v->size, reserved_hint(v, a[1].u, h, sizeof h));
    return (val_t){.u = at_word(v, ELT(CLS(c)), a[1].u)};
}
static val_t v_front(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    char b[120];
    if (!v->size) rt_error(c, "front() of an empty vector: %s has no elements", vname(c, b, sizeof b));
    return (val_t){.u = v->data};
}
static val_t v_back(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    char b[120];
    if (!v->size) rt_error(c, "back() of an empty vector: %s has no elements", vname(c, b, sizeof b));
    return (val_t){.u = at_word(v, ELT(CLS(c)), v->size - 1)};
}
static val_t v_push_back(node_t *c, val_t *a, int n, frame_t *f) {
    cx_class_t *k = CLS(c);
    type_t *t = ELT(k);
    xvec_t *v = V(a, 0, c);
    if (v->size == v->cap || !v->data) {
        /* the value may live in this vector (v.push_back(v[0])): put it in the new storage first */
        uint64_t nc = v->cap ? v->cap * 2 : 1;
        uint64_t bytes = nc * t->size;
        if (nc > ((uint64_t)1 << 36) / (t->size ? t->size : 1)) rt_error(c, "%s cannot grow further (std::length_error)", k->name);
        uint64_t w = cx_store_alloc(bytes, k->name, c);
        memset(mem_at(w, bytes, 1, c), 0, bytes);
        elt_put(t, ptr_add(w, (int64_t)(v->size * t->size)), a[1], c);
        if (v->size) memcpy(mem_at(w, v->size * t->size, 1, c), mem_at(v->data, v->size * t->size, 0, c), v->size * t->size);
        cx_store_free(v->data, k->name, c);
        v->data = w;
        v->cap = nc;
    } else elt_put(t, at_word(v, t, v->size), a[1], c);
    v->size++;
    return (val_t){.u = 0};
}
static val_t v_pop_back(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    char b[120];
    if (!v->size) rt_error(c, "pop_back() of an empty vector: %s has no elements", vname(c, b, sizeof b));
    v->size--;
    elt_destroy(ELT(CLS(c)), at_word(v, ELT(CLS(c)), v->size), c);
    return (val_t){.u = 0};
}
static val_t v_resize(node_t *c, val_t *a, int n, frame_t *f) {
    if ((int64_t)a[1].i < 0) rt_error(c, "resize to a negative size (%" PRId64 ")", a[1].i);
    resize_to(CLS(c), V(a, 0, c), a[1].u, n > 2 ? &a[2] : NULL, c);
    return (val_t){.u = 0};
}
static val_t v_reserve(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    if ((int64_t)a[1].i < 0) rt_error(c, "reserve of a negative size (std::length_error)");
    if (a[1].u > v->cap) regrow(CLS(c), v, a[1].u, c);
    return (val_t){.u = 0};
}
static val_t v_clear(node_t *c, val_t *a, int n, frame_t *f) { resize_to(CLS(c), V(a, 0, c), 0, NULL, c); return (val_t){.u = 0}; }
static val_t v_shrink(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    if (v->cap > v->size) {
        if (!v->size) { cx_store_free(v->data, CLS(c)->name, c); v->data = 0; v->cap = 0; }
        else regrow(CLS(c), v, v->size, c);
    }
    return (val_t){.u = 0};
}
static val_t v_assign(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    if ((int64_t)a[1].i < 0) rt_error(c, "assign of a negative count");
    resize_to(CLS(c), v, 0, NULL, c);
    resize_to(CLS(c), v, a[1].u, &a[2], c);
    return (val_t){.u = 0};
}
static val_t v_swap(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *x = V(a, 0, c), *y = V(a, 1, c), t = *x;
    *x = *y;
    *y = t;
    return (val_t){.u = 0};
}
/* the element index a pointer into this vector is at (begin() + i) */
static uint64_t pos_of(xvec_t *v, type_t *t, uint64_t p, bool allow_end, node_t *c) {
    char b[120];
    if (p == v->data && !v->data) return 0;
    if (!v->data || ptr_slot(p) != ptr_slot(v->data) || (p >> PTR_OFF_BITS) != (v->data >> PTR_OFF_BITS))
        rt_error(c, "the position is not a pointer into %s (use %s.begin() + i)", vname(c, b, sizeof b), b);
    int64_t off = ptr_off(p) - ptr_off(v->data);
    if (off < 0 || off % (int64_t)t->size) rt_error(c, "the position is not an element of %s", vname(c, b, sizeof b));
    uint64_t i = (uint64_t)off / t->size;
    if (i > v->size || (i == v->size && !allow_end))
        rt_error(c, "the position (element %" PRIu64 ") is past the end of %s (%" PRIu64 " elements)", i, vname(c, b, sizeof b), v->size);
    return i;
}
static val_t v_erase(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    type_t *t = ELT(CLS(c));
    uint64_t i = pos_of(v, t, a[1].u, false, c), j = n > 2 ? pos_of(v, t, a[2].u, true, c) : i + 1;
    if (j < i) rt_error(c, "erase(first, last) with last before first");
    for (uint64_t k = i; k < j; k++) elt_destroy(t, at_word(v, t, k), c);
    if (j > i) {
        char *base = mem_at(v->data, v->size * t->size, 1, c);
        memmove(base + i * t->size, base + j * t->size, (v->size - j) * t->size);
        memset(base + (v->size - (j - i)) * t->size, 0, (j - i) * t->size);
        v->size -= j - i;
    }
    return (val_t){.u = at_word(v, t, i)};
}
static val_t v_insert(node_t *c, val_t *a, int n, frame_t *f) {
    xvec_t *v = V(a, 0, c);
    cx_class_t *k = CLS(c);
    type_t *t = ELT(k);
    uint64_t i = pos_of(v, t, a[1].u, true, c);
    /* the value first, in a scratch element at the end (it may live in this vector) */
    val_t x = a[2];
    reserve(k, v, v->size + 1, c);
    uint64_t end = at_word(v, t, v->size);
    elt_put(t, end, x, c);
    char *base = mem_at(v->data, (v->size + 1) * t->size, 1, c);
    char *tmp = malloc(t->size ? t->size : 1);
    if (!tmp) rt_error(c, "out of memory");
    memcpy(tmp, base + v->size * t->size, t->size);
    memmove(base + (i + 1) * t->size, base + i * t->size, (v->size - i) * t->size);
    memcpy(base + i * t->size, tmp, t->size);
    free(tmp);
    v->size++;
    return (val_t){.u = at_word(v, t, i)};
}
/* vector(n), vector(n, v), vector(first, last), vector{a, b, c} */
static val_t v_ctor_n(node_t *c, val_t *a, int n, frame_t *f) {
    if ((int64_t)a[1].i < 0) rt_error(c, "cannot create a vector of negative size (%" PRId64 ") (std::length_error)", a[1].i);
    resize_to(CLS(c), V(a, 0, c), a[1].u, n > 2 ? &a[2] : NULL, c);
    return (val_t){.u = 0};
}
static val_t v_ctor_range(node_t *c, val_t *a, int n, frame_t *f) {
    type_t *t = ELT(CLS(c));
    uint64_t p = a[1].u, q = a[2].u;
    if (p == q) return (val_t){.u = 0};
    if (!p || !q || ptr_slot(p) != ptr_slot(q) || ptr_off(q) < ptr_off(p) || (ptr_off(q) - ptr_off(p)) % (int64_t)t->size)
        rt_error(c, "vector(first, last): first and last must point into one array, first not after last");
    uint64_t cnt = (uint64_t)(ptr_off(q) - ptr_off(p)) / t->size;
    mem_at(p, cnt * t->size, 0, c->list[1]); /* all readable */
    xvec_t *v = V(a, 0, c);
    regrow(CLS(c), v, cnt, c);
    for (uint64_t i = 0; i < cnt; i++) {
        val_t x;
        uint64_t src = ptr_add(p, (int64_t)(i * t->size));
        if (cx_class_of(t)) x.u = src;
        else if (ty_is_aggr(t)) x.p = mem_at(src, t->size, 0, c);
        else x = load_code(tcode(t), mem_at(src, t->size, 0, c));
        elt_put(t, at_word(v, t, i), x, c);
        v->size = i + 1;
    }
    return (val_t){.u = 0};
}

/* std::copy(first, last, std::back_inserter(v)): the range's elements
 * pushed back, converted as an assignment converts numbers. */
typedef struct { cx_class_t *cls; type_t *src; } append_t;
static val_t v_append(node_t *c, val_t *a, int n, frame_t *f) {
    append_t *ap = ((builtin_t *)c->p)->data;
    cx_class_t *k = ap->cls;
    type_t *t = ELT(k), *s = ap->src;
    uint64_t p = a[1].u, q = a[2].u;
    if (p == q) return (val_t){.u = 0};
    if (!p || !q || ptr_slot(p) != ptr_slot(q) || ptr_off(q) < ptr_off(p) || (ptr_off(q) - ptr_off(p)) % (int64_t)s->size)
        rt_error(c, "std::copy(first, last, ...): first and last must point into one array, first not after last");
    uint64_t cnt = (uint64_t)(ptr_off(q) - ptr_off(p)) / s->size;
    mem_at(p, cnt * s->size, 0, c->list[1]); /* all readable */
    xvec_t *v = (xvec_t *)cx_obj(a, 0, sizeof(xvec_t), c);
    vec_valid(k, v, c);
    /* the range may be this vector's own elements, which growing moves */
    bool own = v->data && ptr_slot(p) == ptr_slot(v->data);
    int64_t rel = own ? ptr_off(p) - ptr_off(v->data) : 0;
    reserve(k, v, v->size + cnt, c);
    if (own) p = ptr_add(v->data, rel);
    for (uint64_t i = 0; i < cnt; i++) {
        val_t x;
        uint64_t src = ptr_add(p, (int64_t)(i * s->size));
        if (cx_class_of(t)) x.u = src;
        else if (ty_is_aggr(t)) x.p = mem_at(src, t->size, 0, c);
        else {
            x = load_code(tcode(s), mem_at(src, s->size, 0, c));
            if (t->kind == T_BOOL) x.i = ty_is_float(s) ? x.d != 0 : x.u != 0;
            else if (ty_is_float(s) && !ty_is_float(t)) x.i = t->is_unsigned ? (int64_t)(uint64_t)x.d : (int64_t)x.d;
            else if (!ty_is_float(s) && ty_is_float(t)) x.d = s->is_unsigned ? (double)x.u : (double)x.i;
        }
        elt_put(t, at_word(v, t, v->size), x, c);
        v->size++;
    }
    return (val_t){.u = 0};
}

node_t *cx_vector_append(P *p, node_t *vec, node_t *first, node_t *last, loc_t *l) {
    cx_class_t *k = cx_class_of(vec->ty);
    if (!k || k->lib != LIB_VECTOR || !vec->is_place)
        type_error(l, "std::back_inserter takes a std::vector variable here, not %s", tyname(vec->ty));
    first = rvalue(p, first);
    last = rvalue(p, last);
    if (first->ty->kind != T_PTR || last->ty->kind != T_PTR || !ty_same(ty_unqual(first->ty->base), ty_unqual(last->ty->base)))
        type_error(l, "std::copy's first and last are pointers into one array (or a vector's begin() and end()), "
                   "not %s and %s", tyname(first->ty), tyname(last->ty));
    type_t *s = ty_unqual(first->ty->base), *t = ELT(k);
    if (!ty_same(s, t) && !(ty_is_arith(s) && ty_is_arith(t)))
        type_error(l, "std::copy of %s elements into %s", tyname(s), k->name);
    if (s->kind == T_VOID || !s->size) type_error(l, "std::copy of a range of %s", tyname(first->ty));
    append_t *ap = palloc(p, sizeof *ap);
    ap->cls = k;
    ap->src = s;
    builtin_t *b = palloc(p, sizeof *b);
    b->name = "std::copy";
    b->fn = v_append;
    b->data = ap;
    node_t **av = palloc(p, sizeof(node_t *) * 3);
    av[0] = cx_this_word(p, vec);
    av[1] = first;
    av[2] = last;
    return mk_builtin(l, b, &ty_void, av, 3);
}

static node_t *vec_ctor(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    cx_class_t *k = m->cls;
    type_t *t = ELT(k);
    cx_parse_t *cx = cx_parse(p);
    bool braced = cx->braced;
    cx->braced = false;
    node_t **v = palloc(p, sizeof(node_t *) * 4);
    v[0] = cx_this_word(p, obj);
    builtin_t *bi = m->bi;
    char what[200];
    snprintf(what, sizeof what, "an element of %s", k->name);
    if (braced && !(n == 1 && cx_class_of(args[0]->ty) == k)) { /* an initializer list: reserve, then push each */
        node_t **rv = palloc(p, sizeof(node_t *) * 2);
        rv[0] = cx_this_word(p, obj);
        rv[1] = mk_int(l, &ty_ulong, n);
        node_t *r = mk_builtin(l, cx_find_method(k, "reserve")->bi, &ty_void, rv, 2);
        cx_method_t *pb = cx_find_method(k, "push_back");
        for (int i = 0; i < n; i++) {
            node_t *pa[1] = {args[i]};
            r = mk_comma(l, r, cx_call(p, pb, obj, pa, 1, l));
        }
        return r;
    }
    if (n == 0) return mk_int(l, &ty_int, 0);
    if (n == 2 && args[0]->ty->kind != T_STRUCT && args[1]->ty->kind != T_STRUCT) {
        node_t *a0 = rvalue(p, args[0]), *a1 = rvalue(p, args[1]);
        if (a0->ty->kind == T_PTR && a1->ty->kind == T_PTR) { /* vector(first, last) */
            node_t *q0 = conv_assign(p, a0, ty_ptr(ty_const(t)), what), *q1 = conv_assign(p, a1, ty_ptr(ty_const(t)), what);
            v[1] = q0;
            v[2] = q1;
            builtin_t *rb = cx_find_method(k, "#range")->bi;
            return mk_builtin(l, rb, &ty_void, v, 3);
        }
    }
    if (n > 2) type_error(l, "%s(...) takes a size and a value, or first and last pointers; for a list of elements use braces: %s{...}", k->name, k->name);
    node_t *cnt = rvalue(p, args[0]);
    if (!ty_is_int(cnt->ty)) {
        if (n == 1 && !braced) type_error(&cnt->loc, "%s(n) needs a number of elements, not %s", k->name, tyname(cnt->ty));
        type_error(&cnt->loc, "cannot make %s from %s", k->name, tyname(cnt->ty));
    }
    v[1] = mk_cast(cnt, &ty_ulong);
    int na = 2;
    if (n == 2) {
        char w2[240];
        snprintf(w2, sizeof w2, "the value of %s(n, value)", k->name);
        v[2] = cx_lib_arg(p, args[1], t, w2);
        na = 3;
    }
    return mk_builtin(l, bi, &ty_void, v, na);
}

static node_t *vec_emplace(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    cx_class_t *k = m->cls;
    type_t *t = ELT(k);
    cx_method_t *pb = cx_find_method(k, "push_back");
    if (cx_class_of(t) && !(n == 1 && cx_class_of(args[0]->ty) == cx_class_of(t))) {
        int life;
        node_t *tmp = cx_temp(p, t, l, &life);
        node_t *mk = cx_construct(p, tmp, t, args, n, false, l);
        node_t *w = cx_life_wrap(p, life, mk, tmp);
        node_t *a[1] = {pl_deref(l, t, w, 0)};
        return cx_call(p, pb, obj, a, 1, l);
    }
    if (n != 1) type_error(l, "emplace_back on %s takes one value", k->name);
    return cx_call(p, pb, obj, args, 1, l);
}

static type_t *vec_instantiate(P *p, type_t **targs, int nt, int64_t *iargs, int ni, loc_t *l) {
    if (nt < 1 || ni) type_error(l, "std::vector takes one type: std::vector<float>");
    if (nt > 1) cxx_not_interpreted(l, "std::vector with an allocator");
    type_t *t = targs[0];
    if (t->kind == T_VOID || t->kind == T_FUNC || t->kind == T_ARRAY || t->is_const)
        type_error(l, "std::vector<%s> is not a valid vector type", tyname(t));
    if (ty_is_aggr(t) && !t->sd->complete) type_error(l, "std::vector of an incomplete type %s", tyname(t));
    interp_t *in = p->in;
    char nm[300], key[340];
    char tb[200];
    ty_name(t, tb, sizeof tb);
    snprintf(nm, sizeof nm, "std::vector<%s>", tb);
    snprintf(key, sizeof key, "%s@%p", nm, (void *)(t->sd ? (void *)t->sd : (void *)(uintptr_t)t->kind));
    type_t *have = cx_instance_get(in, key);
    if (have) return have;
    cx_class_t *k;
    char *name = pool_strndup(&in->pool, nm, strlen(nm));
    type_t *vt = cx_lib_class(in, name, sizeof(xvec_t), 8, LIB_VECTOR, &k);
    k->targ[0] = t;
    k->ops = &vec_ops;
    k->nontrivial = true;
    k->has_dtor = true;
    type_t *pt = ty_ptr(t), *sz = &ty_ulong, *ref = cx_class_of(t) ? t : t;
    cx_method_t *m;
#define M(name, fty, fn) (m = cx_lib_method(in, k, name, fty, fn, k))
    M("#ctor", cx_fty(&ty_void, 1, sz), v_ctor_n);
    m->special = vec_ctor;
    m->is_explicit = true;
    M("#range", cx_fty(&ty_void, 2, pt, pt), v_ctor_range);
    m->is_ctor = false;
    M("size", cx_fty(sz, 0), v_size);
    M("capacity", cx_fty(sz, 0), v_capacity);
    M("empty", cx_fty(&ty_bool, 0), v_empty);
    M("data", cx_fty(pt, 0), v_data);
    M("begin", cx_fty(pt, 0), v_data);
    M("end", cx_fty(pt, 0), v_end);
    M("cbegin", cx_fty(pt, 0), v_data);
    M("cend", cx_fty(pt, 0), v_end);
    M("operator[]", cx_fty(t, 1, &ty_long), v_index);
    m->ret_ref = true;
    M("at", cx_fty(t, 1, sz), v_at);
    m->ret_ref = true;
    M("front", cx_fty(t, 0), v_front);
    m->ret_ref = true;
    M("back", cx_fty(t, 0), v_back);
    m->ret_ref = true;
    M("push_back", cx_fty(&ty_void, 1, ref), v_push_back);
    M("emplace_back", cx_fty(&ty_void, 1, ref), v_push_back);
    m->special = vec_emplace;
    M("pop_back", cx_fty(&ty_void, 0), v_pop_back);
    M("resize", cx_fty(&ty_void, 1, sz), v_resize);
    M("resize", cx_fty(&ty_void, 2, sz, ref), v_resize);
    M("reserve", cx_fty(&ty_void, 1, sz), v_reserve);
    M("clear", cx_fty(&ty_void, 0), v_clear);
    M("shrink_to_fit", cx_fty(&ty_void, 0), v_shrink);
    M("assign", cx_fty(&ty_void, 2, sz, ref), v_assign);
    M("swap", cx_fty(&ty_void, 1, vt), v_swap);
    M("erase", cx_fty(pt, 1, pt), v_erase);
    M("erase", cx_fty(pt, 2, pt, pt), v_erase);
    M("insert", cx_fty(pt, 2, pt, ref), v_insert);
#undef M
    cx_nested_type(in, k, "iterator", pt);
    cx_nested_type(in, k, "const_iterator", ty_ptr(ty_const(t)));
    cx_nested_type(in, k, "value_type", t);
    cx_nested_type(in, k, "size_type", &ty_ulong);
    cx_nested_type(in, k, "difference_type", &ty_long);
    cx_instance_put(in, pool_strndup(&in->pool, key, strlen(key)), vt);
    return vt;
}

void cxx_vector_register(interp_t *in) { cx_register_template(in, "std::vector", vec_instantiate); }
