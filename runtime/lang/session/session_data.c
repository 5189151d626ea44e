/* The session's data as the magics see it (interp.h, "for magics"): the
 * numbers an expression points at (%plot, %hist, %save), and the live
 * buffers with the variables that point at them (%heap, %free, %reset). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session_data.h"
#include "prepared.h"
#include "runtime/base/xalloc.h"

#include "runtime/base/cell_io.h"
#include "runtime/lang/interp.h"
static interp_array_t *g_probe; /* set only while interp_array runs */
static const char *g_probe_text; /* ... and the expression as written, for its errors */

static int elem_kind(type_t *t) {
    if (t->kind == T_BOOL) return INTERP_ELEM_BOOL;
    if (t->kind == T_FLOAT || t->kind == T_DOUBLE) return INTERP_ELEM_FLOAT;
    if (ty_is_int(t)) return t->is_unsigned ? INTERP_ELEM_UINT : INTERP_ELEM_INT;
    return -1;
}

static int place_of(const buf_t *b) {
    switch (b->place) {
    case PLACE_DEVICE: return INTERP_PLACE_DEVICE;
    case PLACE_PINNED: return INTERP_PLACE_PINNED;
    case PLACE_MANAGED: return INTERP_PLACE_MANAGED;
    default: return INTERP_PLACE_HOST;
    }
}

/* __icuda_array(sizeof(e), e): e's element type from its node, where its
 * elements are from its buffer. */
static val_t b_array(node_t *c, val_t *a, int n, frame_t *f) {
    if (!g_probe || n != 2) rt_error(c, "__icuda_array belongs to the magics; it cannot be called here");
    node_t *e = c->list[1];
    char tn[120];
    const char *ex = g_probe_text;
    if (e->ty->kind != T_PTR)
        lang_raise("TypeError", NULL, "%s is not an array or a pointer: its type is %s", ex, ty_name(e->ty, tn, sizeof tn));
    type_t *el = ty_unqual(e->ty->base);
    int kind = elem_kind(el);
    if (kind < 0 || el->size > 8)
        lang_raise("TypeError", NULL, "%s points to %s: only numbers (integers, float, double, bool) can be used here", ex,
                   ty_name(el, tn, sizeof tn));
    int64_t off;
    buf_t *b = ptr_live_buf(a[1].u, &off);
    if (!b || off < 0 || (uint64_t)off > b->size)
        lang_raise("RuntimeError", NULL, "%s does not point into a live buffer (NULL, freed, or an address icuda did not allocate)",
                   ex);
    interp_array_t *o = g_probe;
    ty_name(el, o->ctype, sizeof o->ctype);
    o->elem = kind;
    o->esize = el->size;
    o->place = place_of(b);
    o->count = (b->size - (uint64_t)off) / el->size;
    /* an array (a struct's member, say) has its own length, which may end before its buffer */
    if (a[0].u != sizeof(void *) && a[0].u / el->size < o->count) o->count = a[0].u / el->size;
    o->host = NULL;
    o->device = 0;
    if (o->place == INTERP_PLACE_DEVICE) o->device = b->addr + (uint64_t)off;
    else {
        char msg[512] = "";
        if (b->place == PLACE_MANAGED && mem_managed_fetch(b, msg, sizeof msg) < 0)
            rt_error(c, "managed memory cannot be brought to the host: %s", msg);
        o->host = b->base + off;
    }
    return (val_t){.i = 0};
}

void builtins_session_data_register(interp_t *in) { builtin_add(in, "__icuda_array", b_array, 0); }

static const char *const array_glue[3] = {"{ __icuda_array(sizeof(\n", "\n), (\n", "\n)); }\n"};

int interp_array(interp_t *in, const interp_text_t *expr, interp_array_t *out, cell_error_t *err) {
    memset(out, 0, sizeof *out);
    interp_array_t *saved = g_probe;
    const char *saved_text = g_probe_text;
    g_probe = out;
    g_probe_text = expr->text + expr->start;
    out->esize = 0;
    int rc = prepared_run_glued(in, expr, expr, array_glue, err);
    g_probe = saved;
    g_probe_text = saved_text;
    if (rc == 0 && !out->esize) {
        cell_error_set(err, "RuntimeError", NULL, "%s gave no array", expr->text + expr->start);
        return -1;
    }
    return rc;
}

/* ---- live buffers ---- */

static const char *alloc_name(const buf_t *b) {
    if (b->place != PLACE_HEAP) return "cuda";
    switch (b->alloc) {
    case ALLOC_NEW: return "new";
    case ALLOC_NEW_ARRAY: return "new[]";
    default: return "malloc";
    }
}

typedef struct { json_t **by_slot; } heap_names_t;
static void heap_name(void *ctx, const char *name, uint64_t w) {
    heap_names_t *hn = ctx;
    int64_t off;
    buf_t *b = ptr_live_buf(w, &off);
    json_t *r = b ? hn->by_slot[b - g_bufs] : NULL;
    if (!r) return;
    if (off == 0) json_array_append_new(json_object_get(r, "names"), json_string(name));
    else json_array_append_new(json_object_get(r, "inside"), json_sprintf("%s (%+lld B)", name, (long long)off));
}

json_t *interp_heap(interp_t *in) {
    lang_use(in);
    json_t *rows = json_array();
    json_t **by_slot = xcalloc(g_nbufs ? g_nbufs : 1, sizeof *by_slot);
    for (uint32_t s = SLOT_FIRST_BUF; s < g_nbufs; s++) {
        buf_t *b = &g_bufs[s];
        if (b->state != BUF_LIVE || b->owner != in->id) continue;
        if (b->place != PLACE_HEAP && b->place != PLACE_DEVICE && b->place != PLACE_PINNED && b->place != PLACE_MANAGED)
            continue;
        json_t *r = json_object();
        uint64_t word = b->addr ? b->addr : ptr_make(s, 0);
        json_object_set_new(r, "word", json_integer((json_int_t)word));
        json_object_set_new(r, "size", json_integer((json_int_t)b->size));
        json_object_set_new(r, "place", json_integer(place_of(b)));
        json_object_set_new(r, "alloc", json_string(alloc_name(b)));
        json_object_set_new(r, "cell", json_string(b->cell ? b->cell : ""));
        json_object_set_new(r, "line", json_integer(b->line));
        json_object_set_new(r, "names", json_array());
        json_object_set_new(r, "inside", json_array());
        json_array_append_new(rows, r);
        by_slot[s] = r;
    }
    /* which session variables (or their members) point at each */
    heap_names_t hn = {by_slot};
    session_pointers_each(in, heap_name, &hn);
    free(by_slot);
    return rows;
}

/* Every pointer held in a session variable, with the name a user would write
 * for it: the variable itself, a struct's members, an array's first elements.
 * Bounded (depth 3, 16 elements an array) so that %heap of a large array of
 * structs stays fast. */
static void pointers_walk(const type_t *t, const char *addr, const char *name, int depth, session_pointer_fn fn,
                          void *ctx) {
    if (t->kind == T_PTR) {
        uint64_t w;
        memcpy(&w, addr, sizeof w);
        fn(ctx, name, w);
        return;
    }
    if (depth >= 3 || strlen(name) > 200) return;
    char sub[256];
    if ((t->kind == T_STRUCT || t->kind == T_UNION) && t->sd && t->sd->complete) {
        for (int i = 0; i < t->sd->nfields; i++) {
            const field_t *f = &t->sd->fields[i];
            if (!f->name || !f->ty || f->ty->is_ref) continue;
            snprintf(sub, sizeof sub, "%s.%s", name, f->name);
            pointers_walk(f->ty, addr + f->off, sub, depth + 1, fn, ctx);
        }
    } else if (t->kind == T_ARRAY && t->base && t->count > 0 && !t->vla && t->base->size) {
        long n = t->count < 16 ? t->count : 16;
        for (long i = 0; i < n; i++) {
            snprintf(sub, sizeof sub, "%s[%ld]", name, i);
            pointers_walk(t->base, addr + (size_t)i * t->base->size, sub, depth + 1, fn, ctx);
        }
    }
}

void session_pointers_each(interp_t *in, session_pointer_fn fn, void *ctx) {
    FOR_SESSION_VARS(in, s) {
        if (s->gv->addr && !s->ty->is_ref) pointers_walk(s->ty, s->gv->addr, s->name, 0, fn, ctx);
    }
}
