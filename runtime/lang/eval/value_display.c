/* How a cell's value looks (execute_result text/plain), cling-style:
 * "(type) value". Floating values use the shortest text that reads back to
 * the same number; buffers behind pointers are summarised, never dumped. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "eval.h"

#include "runtime/lang/interp.h"
#include "runtime/base/xalloc.h"
typedef struct sb { char *s; size_t n, cap; } sb_t;
static void sbf(sb_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbf(sb_t *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if (b->n + (size_t)k + 1 > b->cap) {
        b->cap = (b->n + (size_t)k + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

/* The shortest text that reads back as d; a whole number below 10^16 is
 * written out ("70", not %g's "7e+01"). */
static void shortest(double d, int maxp, bool is_float, char *buf, size_t n) {
    for (int p = 1; p <= maxp; p++) {
        snprintf(buf, n, "%.*g", p, d);
        if (is_float ? strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d) break;
    }
    if (!isfinite(d) || d == 0) return; /* log10 would be -inf or NaN, which no int holds */
    int e = (int)floor(log10(fabs(d)));
    if (strchr(buf, 'e') && e >= 0 && e < 16 && d == floor(d)) snprintf(buf, n, "%.*g", e + 1, d);
}
void fmt_double(double d, char *buf, size_t n) {
    if (isnan(d)) { snprintf(buf, n, signbit(d) ? "-nan" : "nan"); return; }
    if (isinf(d)) { snprintf(buf, n, d < 0 ? "-inf" : "inf"); return; }
    shortest(d, 17, false, buf, n);
}
void fmt_float(float f, char *buf, size_t n) {
    if (isnan(f)) { snprintf(buf, n, signbit(f) ? "-nan" : "nan"); return; }
    if (isinf(f)) { snprintf(buf, n, f < 0 ? "-inf" : "inf"); return; }
    shortest((double)f, 9, true, buf, n);
}

static void char_lit(sb_t *b, int c, char q) {
    c &= 0xff;
    switch (c) {
    case '\n': sbf(b, "\\n"); return;
    case '\t': sbf(b, "\\t"); return;
    case '\r': sbf(b, "\\r"); return;
    case 0: sbf(b, "\\0"); return;
    case '\\': sbf(b, "\\\\"); return;
    }
    if (c == q) { sbf(b, "\\%c", q); return; }
    if (c < 32 || c >= 127) sbf(b, "\\x%02x", c);
    else sbf(b, "%c", c);
}

static val_t load_mem(type_t *t, const char *a) {
    val_t v = {0};
    if (t->is_enum) { int32_t x; memcpy(&x, a, 4); v.i = x; return v; }
    switch (t->kind) {
    case T_BOOL: v.i = *(const uint8_t *)a != 0; break;
    case T_CHAR: case T_SCHAR: v.i = *(const int8_t *)a; break;
    case T_UCHAR: v.i = *(const uint8_t *)a; break;
    case T_SHORT: { int16_t x; memcpy(&x, a, 2); v.i = x; break; }
    case T_USHORT: { uint16_t x; memcpy(&x, a, 2); v.i = x; break; }
    case T_INT: { int32_t x; memcpy(&x, a, 4); v.i = x; break; }
    case T_UINT: { uint32_t x; memcpy(&x, a, 4); v.i = x; break; }
    case T_FLOAT: { float x; memcpy(&x, a, 4); v.d = x; break; }
    case T_DOUBLE: case T_LDOUBLE: memcpy(&v.d, a, 8); break;
    case T_STRUCT: case T_UNION: case T_ARRAY: v.p = (void *)a; break;
    default: memcpy(&v.u, a, 8); break;
    }
    return v;
}

static void value(sb_t *b, type_t *t, val_t v, int depth);

static void cstring(sb_t *b, const char *s, size_t n) {
    sbf(b, "\"");
    size_t k = n > 200 ? 200 : n;
    for (size_t i = 0; i < k; i++) char_lit(b, s[i], '"');
    sbf(b, n > k ? "\"…" : "\"");
}

static void elems(sb_t *b, type_t *et, const char *base, uint64_t n, int depth, const char *open, const char *close) {
    sbf(b, "%s", open);
    for (uint64_t i = 0; i < n; i++) {
        if (n > 10 && i == 3) { sbf(b, "…, "); i = n - 3; }
        value(b, et, load_mem(et, base + i * et->size), depth + 1);
        if (i + 1 < n) sbf(b, ", ");
    }
    sbf(b, "%s", close);
}

static bool is_charlike(type_t *t) { return t->kind == T_CHAR || t->kind == T_SCHAR || t->kind == T_UCHAR; }

/* Elements of a device buffer: the first and last few, copied from the GPU. */
static void device_elems(sb_t *b, type_t *et, uint64_t addr, uint64_t n) {
    interp_t *in = g_in;
    uint64_t esz = et->size, k = n > 10 ? 6 : n;
    unsigned char tmp[10 * 64];
    bool ok = esz <= 64 && in && in->hooks && in->hooks->read_device;
    if (ok && n > 10)
        ok = in->hooks->read_device(in->hooks->ctx, addr, tmp, 3 * esz) == 0 &&
             in->hooks->read_device(in->hooks->ctx, addr + (n - 3) * esz, tmp + 3 * esz, 3 * esz) == 0;
    else if (ok)
        ok = in->hooks->read_device(in->hooks->ctx, addr, tmp, n * esz) == 0;
    if (!ok) {
        sbf(b, "%" PRIu64 " bytes", n * esz);
        return;
    }
    sbf(b, "[");
    for (uint64_t i = 0; i < k; i++) {
        if (n > 10 && i == 3) sbf(b, "…, ");
        value(b, et, load_mem(et, (const char *)tmp + i * esz), 1);
        if (i + 1 < k) sbf(b, ", ");
    }
    sbf(b, "]");
}

static void pointer(sb_t *b, type_t *t, uint64_t p, int depth, bool top) {
    if (p == 0) { sbf(b, "NULL"); return; }
    uint32_t s = ptr_slot(p);
    if (!ptr_is_raw(p) && s == SLOT_FUNC) {
        int64_t id = ptr_off(p);
        sbf(b, "%s", id >= 0 && id < g_nfboxes ? g_fboxes[id]->name : "?");
        return;
    }
    if (!ptr_is_raw(p) && s == SLOT_FILE) { sbf(b, ptr_off(p) == 1 ? "stdout" : "stderr"); return; }
    int64_t off;
    buf_t *bf = ptr_buf(p, &off);
    if (!bf && ptr_is_raw(p)) { sbf(b, "0x%" PRIx64 " (no buffer of this session)", p); return; }
    if (!bf) { sbf(b, "0x%" PRIx64 " (not a valid pointer)", p); return; }
    if ((!ptr_is_raw(p) && bf->gen != ((p >> PTR_OFF_BITS) & PTR_GEN_MASK)) || bf->state == BUF_FREED) {
        sbf(b, "freed");
        return;
    }
    if (bf->state != BUF_LIVE) { sbf(b, "dangling"); return; }
    if (t->base->kind == T_FUNC && bf->place == PLACE_STRLIT && off == 0 && bf->base && memchr(bf->base, 0, bf->size)) {
        sbf(b, "kernel %s", bf->base); /* a kernel's value is its name (front/parse_kernel.c) */
        return;
    }
    const char *where = bf->place == PLACE_DEVICE ? "device" : bf->place == PLACE_PINNED ? "pinned"
                      : bf->place == PLACE_MANAGED ? "managed" : "host";
    if (!top || depth > 0) {
        if (bf->addr) sbf(b, "%s 0x%" PRIx64, where, p); /* a real address: as the GPU sees it */
        else sbf(b, "%s+%" PRId64, where, off);
        return;
    }
    type_t *et = t->base;
    if (off < 0 || (uint64_t)off > bf->size) { sbf(b, "%s, out of bounds (byte %" PRId64 " of %" PRIu64 ")", where, off, bf->size); return; }
    uint64_t rest = bf->size - (uint64_t)off;
    bool sized = !(et->kind == T_VOID || et->kind == T_FUNC || !et->size || (et->kind == T_STRUCT && !et->sd->complete));
    if (bf->place == PLACE_DEVICE) {
        if (!sized || (uint64_t)off % et->size) { sbf(b, "device, %" PRIu64 " bytes", rest); return; }
        uint64_t n = rest / et->size;
        sbf(b, "device, %" PRIu64 " element%s: ", n, n == 1 ? "" : "s");
        device_elems(b, et, p, n);
        return;
    }
    char why[256];
    if (bf->place == PLACE_MANAGED && mem_managed_fetch(bf, why, sizeof why) < 0) {
        sbf(b, "managed, %" PRIu64 " bytes (%s)", rest, why);
        return;
    }
    const char *a = bf->base + off;
    if (is_charlike(et)) {
        const char *z = memchr(a, 0, rest);
        if (z) { cstring(b, a, (size_t)(z - a)); return; }
    }
    if (et->kind == T_VOID || et->kind == T_FUNC || !et->size || (et->kind == T_STRUCT && !et->sd->complete)) {
        sbf(b, "%s, %" PRIu64 " bytes", where, rest);
        return;
    }
    uint64_t esz = et->size, n = rest / esz, total = bf->size / esz;
    if (off == 0) sbf(b, "%s, %" PRIu64 " element%s: ", where, n, n == 1 ? "" : "s");
    else if ((uint64_t)off % esz == 0) sbf(b, "%s, element %" PRIu64 " of %" PRIu64 ": ", where, (uint64_t)off / esz, total);
    else sbf(b, "%s, byte %" PRId64 " of %" PRIu64 ": ", where, off, bf->size);
    elems(b, et, a, n, 0, "[", "]");
}

static void value(sb_t *b, type_t *t, val_t v, int depth) {
    char nb[64];
    if (t->is_enum) { sbf(b, "%" PRId64, v.i); return; }
    switch (t->kind) {
    case T_BOOL: sbf(b, v.i ? "true" : "false"); return;
    case T_CHAR: case T_SCHAR: case T_UCHAR:
        sbf(b, "'");
        char_lit(b, (int)v.i, '\'');
        sbf(b, "'");
        return;
    case T_SHORT: case T_INT: case T_LONG: case T_LLONG: sbf(b, "%" PRId64, v.i); return;
    case T_USHORT: case T_UINT: case T_ULONG: case T_ULLONG: sbf(b, "%" PRIu64, v.u); return;
    case T_FLOAT: fmt_float((float)v.d, nb, sizeof nb); sbf(b, "%s", nb); return;
    case T_DOUBLE: case T_LDOUBLE: fmt_double(v.d, nb, sizeof nb); sbf(b, "%s", nb); return;
    case T_PTR: pointer(b, t, v.u, depth, depth == 0); return;
    case T_ARRAY: {
        if (is_charlike(t->base) && t->count >= 0) {
            const char *z = memchr(v.p, 0, (size_t)t->count);
            if (z) { cstring(b, v.p, (size_t)(z - (const char *)v.p)); return; }
        }
        if (depth > 4) { sbf(b, "{…}"); return; }
        elems(b, t->base, v.p, t->count < 0 ? 0 : (uint64_t)t->count, depth, "{", "}");
        return;
    }
    case T_STRUCT: case T_UNION: {
        if (depth > 4) { sbf(b, "{…}"); return; }
        {
            char *x = g_in->up.show_object ? g_in->up.show_object(t, v.p) : NULL; /* C++ library objects */
            if (x) { sbf(b, "%s", x); free(x); return; }
        }
        sdef_t *sd = t->sd;
        sbf(b, "{");
        int k = 0;
        for (int i = 0; i < sd->nfields; i++) {
            field_t *f = &sd->fields[i];
            if (k++) sbf(b, ", ");
            if (f->name) sbf(b, "%s = ", f->name);
            value(b, f->ty, load_mem(f->ty, (const char *)v.p + f->off), depth + 1);
        }
        sbf(b, "}");
        return;
    }
    default: sbf(b, "?"); return;
    }
}

char *display_text(type_t *t, val_t v, bool top) {
    sb_t b = {0};
    char tn[256];
    ty_name(ty_unqual(t), tn, sizeof tn);
    sbf(&b, "(%s) ", tn);
    value(&b, t, v, top ? 0 : 1);
    return b.s;
}

json_t *display_value(node_t *n, val_t v) {
    type_t *t = n->ty;
    if (t->kind == T_VOID) return NULL;
    char *s;
    if (n->str && (n->p == (void *)1 || n->p == (void *)2)) { /* a string literal */
        sb_t b = {0};
        sbf(&b, "(const char *) ");
        cstring(&b, n->str, strlen(n->str));
        s = b.s;
    } else s = display_text(t, v, true);
    json_t *j = json_object();
    json_object_set_new(j, "text/plain", json_string(s));
    free(s);
    return j;
}

static int sx_value(node_t *n, frame_t *f) {
    node_t *e = n->a;
    val_t v = e->is_place ? (ty_is_aggr(e->ty) ? (val_t){.p = e->afn(e, f, 0)} : mk_load(e)->fn(mk_load(e), f)) : e->fn(e, f);
    if (g_in->value_json) json_decref(g_in->value_json);
    g_in->value_json = display_value(e, v);
    return X_NORMAL;
}

node_t *st_value(node_t *e) {
    node_t *n = node_new(&e->loc);
    if (e->is_place && !ty_is_aggr(e->ty) && e->place == PL_SLOT) e = mk_load(e);
    else if (e->is_place && !ty_is_aggr(e->ty)) {
        node_t *l = mk_load(e);
        l->loc = e->loc;
        e = l;
    }
    n->a = e;
    n->sfn = sx_value;
    return n;
}
