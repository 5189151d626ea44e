/* What a native C++ cell sees of the rest of the session (native_links.h):
 * the host's constants and macros and what device cells defined, as a
 * device cell sees them. */
#include "native_links.h"

#include <stdio.h>
#include <string.h>

#include "runtime/cuda/cuda_session.h"
#include "runtime/native/native_items.h"

#include "runtime/lang/interp.h"
#include "session.h"

/* What device cells defined: types, macros, includes, __device__
 * functions, templates, and kernels with the __device__ and __constant__
 * variables they use. A native cell compiles its own copy of a device
 * cell's kernel, to launch it with <<<>>>; a __device__ variable is a copy
 * of its own too (a limit docs/native-cells.md states). */
static void device_side(void *ctx, strbuf_t *b) {
    engine_t *e = ctx;
    char *consts = interp_device_constants(e->interp);
    if (consts && *consts) {
        sb_puts(b, "#line 1 \"<session constants>\"\n");
        sb_puts(b, consts);
        sb_putc(b, '\n');
    }
    free(consts);
    for (int i = 0; i < e->dev.nprelude; i++) {
        const prelude_item_t *p = &e->dev.prelude[i];
        sb_printf(b, "#line %d \"%s\"\n", p->first_line, p->cell);
        sb_puts(b, p->text);
        sb_putc(b, '\n');
    }
}

void native_remember_host(native_session_t *ns, const char *code, const cell_split_t *sp, size_t from, size_t to,
                          const char *cell) {
    /* one item at a time: a cell of short statements has millions (224
     * bytes each, all at once, were 450 MB of a 10 MB cell) */
    for (size_t i = from; i < to && i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (it->kind != ITEM_HOST) continue;
        native_item_t ni;
        native_item_of(code, it, &ni);
        if (ni.kind == NI_PP && it->is_include)
            native_session_add_host(ns, code + it->start, it->end - it->start, NULL, NULL, true, it->first_line, cell);
        else if (ni.kind == NI_REPEAT && strncmp(ni.key, "var:", 4))
            native_session_add_host(ns, code + it->start, it->end - it->start, ni.key,
                                    it->is_function ? it->name : NULL, false, it->first_line, cell);
        native_item_free(&ni);
    }
}

/* An interpreter's variable a native cell names (interp_native_var). Its
 * constants are the device side's already. */
static bool bind(void *ctx, const char *name, native_binding_t *out) {
    engine_t *e = ctx;
    interp_native_var_t v;
    /* a device cell's __managed__ variable: the native cell compiles its own
     * copy with the device cell's kernels, and its host code and those
     * kernels use that one copy */
    if (cuda_session_is_managed_var(e->cuda, name)) return false;
    if (!interp_native_var(e->interp, name, &v)) return false;
    if (v.handle) { /* a stream or event of interpreted cells: the worker's own handle */
        bool stream = !strcmp(v.type, "cudaStream_t") || strstr(v.type, "CUstream_st");
        bool event = !strcmp(v.type, "cudaEvent_t") || strstr(v.type, "CUevent_st");
        uint64_t raw = 0;
        if (!(stream || event) || (v.raw && cuda_session_raw_handle(e->cuda, stream, v.raw, &raw) != 0)) return false;
        snprintf(out->type, sizeof out->type, "%s", stream ? "cudaStream_t" : "cudaEvent_t");
        /* none made yet (0), or the worker's own already: the variable
         * itself, so that the native cell's cudaEventCreate(&start) is seen
         * by the cells after it */
        out->pointer = raw != v.raw;
        out->value = out->pointer ? raw : (uint64_t)(uintptr_t)v.storage;
        return true;
    }
    if (!v.pointer && !strncmp(v.type, "const ", 6) && !strchr(v.type, '*')) return false;
    snprintf(out->type, sizeof out->type, "%s", v.type);
    out->pointer = v.pointer;
    out->value = v.pointer ? v.raw : (uint64_t)(uintptr_t)v.storage;
    return true;
}

/* A native cell's declaration of numbers, held by the interpreter: run as
 * a cell of its own, silently. */
static void quiet(void *ctx, const char *name, const char *text, size_t len) {}

static bool share(void *ctx, const char *decl, const char *cell) {
    engine_t *e = ctx;
    static const cell_io_t silent = {.stream = quiet};
    cell_error_t err = {0};
    json_t *value = NULL;
    int rc = interp_run(e->interp, decl, cell, &silent, &value, &err);
    json_decref(value);
    cell_error_clear(&err);
    return rc == 0;
}

void engine_native_links(engine_t *e) {
    e->native.links.ctx = e;
    e->native.links.device = device_side;
    e->native.links.bind = bind;
    e->native.links.share = share;
}
