/* The interpreter's public face (interp.h): a session set up from the
 * stages (the library's builtins, the prelude, the upcalls the evaluator
 * makes to the native tier and the C++ library) and torn down; running a
 * cell: lex, compile the whole cell, commit its functions and types, run it,
 * and turn any error into a cell_error_t; a cell's conditionals; the
 * session's variables for %who, the device prelude and completion. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prepared.h"
#include "session_data.h"
#include "runtime/base/xalloc.h"
#include "runtime/lang/native/native.h"
#include "runtime/lang/front/cxx_class.h"
#include "runtime/hostmem/arena.h"

#include "runtime/base/cell_io.h"
static uint32_t next_id = 1;

/* The library's prototypes, then those of the builtins this folder adds
 * (%timeit's result type, its batch and value calls, the array probe). */
static const char *prelude_text(void) {
    static char *all;
    if (!all) all = xasprintf("%s%s", builtin_prototypes(), builtin_prepared_prototypes());
    return all;
}

static void setup(interp_t *in_arg) {
    interp_t *volatile in = in_arg;
    interp_t *volatile saved = g_in;
    lang_use(in);
    /* what the evaluator asks of the native tier and the C++ library */
    in->up = (lang_upcalls_t){.loop_built = native_hook_loop, .loop_tick = native_loop_tick, .hot_call = native_call, .show_object = cxx_show};
    in->setting_up = true; /* an interrupt now (fuzz_gen's timer, a user's click during %reset) stops nothing */
    builtins_register(in);
    builtins_prepared_register(in);
    builtins_session_data_register(in);
    jmp_buf jb;
    cell_error_t err = {0};
    in->jb = &jb;
    in->err = &err;
    lang_budget_start(in);
    if (setjmp(jb) == 0) {
        parse_prelude(in, prelude_text());
        cxx_library_register(in); /* std::vector, std::string, std::cout, ... */
    }
    else fprintf(stderr, "icuda: the interpreter's prelude failed: %s\n", err.evalue ? err.evalue : "?");
    free(err.ename);
    free(err.evalue);
    if (err.traceback) json_decref(err.traceback);
    in->err = NULL;
    in->jb = NULL;
    in->setting_up = false;
    pool_free(&in->scratch);
    rand_seed(in, 1);
    lang_use(saved ? saved : in);
}

interp_t *interp_new(void) {
    interp_t *in = xcalloc(1, sizeof *in);
    in->id = next_id++;
    mem_tables_init(&in->tables);
    setup(in);
    return in;
}

static void teardown(interp_t *in) {
    interp_t *saved = g_in;
    lang_use(in);
    native_stop_jobs(in); /* before the nodes its compiles refer to go */
    frames_free(in);
    mem_tables_free(in);
    hmap_free(&in->globals);
    hmap_free(&in->tags);
    hmap_free(&in->macros);
    hmap_free(&in->builtins);
    hmap_free(&in->fboxes);
    hmap_free(&in->ns_alias);
    cxx_session_free(in);
    free(in->usings);
    in->usings = NULL;
    in->nusings = 0;
    free(in->gvars);
    in->gvars = NULL;
    in->ngvars = in->capgvars = 0;
    free(in->outbuf);
    in->outbuf = NULL;
    in->outlen = in->outcap = 0;
    if (in->value_json) json_decref(in->value_json);
    in->value_json = NULL;
    pool_free(&in->pool);
    pool_free(&in->stmts);
    pool_free(&in->scratch);
    pool_free(&in->keep);
    hmap_free(&in->strlits);
    hmap_free(&in->interned);
    in->defs = 0;
    native_unload(in); /* no node is left to run its code */
    lang_use(saved == in ? NULL : saved);
}

void interp_free(interp_t *in) {
    if (!in) return;
    teardown(in);
    native_free(in);
    mem_tables_forget(in);
    free(in->hooks);
    free(in);
}

void interp_reset(interp_t *in) {
    interp_hooks_t *h = in->hooks; /* the GPU side stays attached */
    interp_kernel_fn kd = in->kernel_decl; /* the GPU layer's, as the hooks are */
    void *kctx = in->kernel_ctx;
    teardown(in);
    uint32_t id = in->id;
    struct native_state *ns = in->native; /* the tier's choice outlives %reset */
    lang_tables_t t = in->tables; /* empty; lang_use's globals are still these */
    memset(in, 0, sizeof *in);
    in->tables = t;
    in->id = id;
    in->hooks = h;
    in->kernel_decl = kd;
    in->kernel_ctx = kctx;
    in->native = ns;
    setup(in);
}

static void drop_uncommitted(cell_code_t *cc) {
    for (int i = 0; i < cc->nnewg; i++) {
        gvar_t *g = cc->newg[i];
        if (!g->committed && g->addr) {
            arena_free(g->addr);
            buf_kill(g->bslot, BUF_FREED);
            g->addr = NULL;
        }
    }
    free(cc->newg);
    cc->newg = NULL;
    cc->nnewg = 0;
}

/* ---- a cell's share of the pool ----
 * A cell's source, tokens' names and syntax tree go into in->pool after a
 * mark, its top-level statements' syntax into in->stmts; when the cell
 * defined nothing that lasts (parse_lasting), both go when it ends. When it
 * did, its statements' syntax still goes, unless making them made
 * something lasting too (in->stmts_escaped) or running the cell did (a
 * definition made while it ran may point anywhere into it). What must
 * outlive the cell in any case is elsewhere: string literal bytes and cell
 * names in in->keep, and the names buffer records keep are copied there
 * below. */

/* buffer records outlive the cell (a freed block's "allocated at", a dead
 * local's name): their names in the statements' pool, and in the session's
 * pool since m when it goes back there too (rolled), move to in->keep */
static bool going(interp_t *in, pool_mark_t m, bool rolled, const char *x) {
    return x && (pool_since(&in->stmts, (pool_mark_t){0}, x) || (rolled && pool_since(&in->pool, m, x)));
}
static void keep_buffer_names(interp_t *in, pool_mark_t m, bool rolled) {
    for (uint32_t i = SLOT_FIRST_BUF; i < g_nbufs; i++) {
        buf_t *b = &g_bufs[i];
        if (b->state == BUF_FREE_SLOT) continue;
        if (going(in, m, rolled, b->what)) b->what = lang_intern(in, b->what);
        if (going(in, m, rolled, b->fname)) b->fname = lang_intern(in, b->fname);
        if (going(in, m, rolled, b->cell)) b->cell = lang_intern(in, b->cell);
    }
}

/* before: parse_lasting when the cell began; parsed: after its parse, or
 * ULONG_MAX when the parse did not end; gdecls: in->gdecl_puts then (the
 * cell's own variables joining the session as it runs make nothing that
 * points into its statements) */
static void cell_end(interp_t *in, pool_mark_t m, unsigned long before, unsigned long parsed, unsigned long gdecls) {
    unsigned long now = parse_lasting(in);
    in->stmts_split = false;
    bool ran_defs = parsed == ULONG_MAX || now - (in->gdecl_puts - gdecls) != parsed;
    if (now != before && (in->stmts_escaped || ran_defs)) {
        pool_splice(&in->pool, &in->stmts);
        return;
    }
    bool rolled = now == before;
    keep_buffer_names(in, m, rolled);
    native_stop_jobs_in(in, &in->stmts);
    pool_free(&in->stmts);
    if (!rolled) return;
    native_stop_jobs_since(in, m);
    pool_rollback(&in->pool, m);
}

static int run(interp_t *in_arg, const char *text, const char *name, const cell_io_t *io, json_t **value,
               cell_error_t *err, bool expr_only) {
    interp_t *volatile in = in_arg;
    interp_t *volatile saved = g_in;
    if (value) *value = NULL;
    jmp_buf jb;
    lang_enter(in, io, err, &jb, STACK_HERE());
    const pool_mark_t mark = pool_mark(&in->pool);
    const unsigned long before = parse_lasting(in);
    volatile unsigned long parsed = ULONG_MAX, gdecls = ULONG_MAX;
    /* a nested run (none today) would find the statements' pool in use */
    in->stmts_split = !in->stmts.head && !in->stmts_swapped;
    in->stmts_escaped = false;
    cell_code_t cc;
    memset(&cc, 0, sizeof cc);
    cell_code_t *volatile ccp = &cc;
    int rc = 0;
    if (setjmp(jb)) {
        lang_recover(in);
        drop_uncommitted(ccp);
        rc = -1;
        if (in->exited && err && err->ename && strcmp(err->ename, "__exit__") == 0) {
            if (in->exit_code == 0) {
                cell_error_clear(err);
                rc = 0;
            } else {
                /* a failure status is the cell's error, as SystemExit is in
                 * IPython: a failed CHECK(...) that calls exit(1) must not
                 * pass a notebook run as a test */
                free(err->ename);
                err->ename = xstrdup("SystemExit");
                free(err->evalue);
                if (asprintf(&err->evalue, "exit(%d): the cell stopped here; the session goes on",
                             in->exit_code) < 0)
                    err->evalue = NULL;
                if (err->traceback && json_array_size(err->traceback)) {
                    size_t last = json_array_size(err->traceback) - 1;
                    char *line = NULL;
                    if (asprintf(&line, "SystemExit: %s", err->evalue ? err->evalue : "") >= 0) {
                        json_array_set_new(err->traceback, last, json_string(line));
                        free(line);
                    }
                }
            }
        }
        in->jb = NULL;
        in->err = NULL;
        cell_end(in, mark, before, parsed, gdecls);
        lang_use(saved ? saved : in);
        return rc;
    }
    src_t *src = src_new(in, name, text);
    tokvec_t tv = {0};
    lex_cell(in, src, &tv);
    parse_cell(in, &tv, src, &cc, expr_only);
    parsed = parse_lasting(in);
    gdecls = in->gdecl_puts;
    pool_free(&in->scratch);
    /* a cell runs once: compiling it whole as a function (the native tier
     * does for %timeit's repeats) would be a compile nothing uses, left
     * running after the cell ends; its loops still compile */
    cc.fn->hot = INT32_MIN;
    run_cell(in, &cc);
    drop_uncommitted(&cc);
    out_flush();
    if (value) *value = in->value_json;
    else if (in->value_json) json_decref(in->value_json);
    in->value_json = NULL;
    in->jb = NULL;
    in->err = NULL;
    cell_end(in, mark, before, parsed, gdecls);
    lang_use(saved ? saved : in);
    return 0;
}

int interp_run(interp_t *in, const char *host_src, const char *cell_name, const cell_io_t *io,
               json_t **value, cell_error_t *err) {
    in->ncells++;
    return run(in, host_src, cell_name ? cell_name : "In [?]", io, value, err, false);
}

char *interp_cell_conditionals(interp_t *in_arg, const char *code, const char *cell, int cuda_arch,
                               const cell_io_t *io, bool *decided, cell_error_t *err) {
    *decided = false;
    /* a copy of the cell, any size: NULL is the caller's MemoryError for the cell */
    if (!pp_cell_has_directive(code)) return strdup(code);
    interp_t *volatile in = in_arg;
    interp_t *volatile saved = g_in;
    pp_cell_t *volatile p = pp_cell_begin(in, code, cell, io);
    jmp_buf jb;
    lang_enter(in, NULL, err, &jb, STACK_HERE());
    bool ok = setjmp(jb) == 0;
    if (ok) pp_cell_run(p, cuda_arch);
    else lang_recover(in);
    char *out = pp_cell_end(p, ok, decided);
    in->jb = NULL;
    in->err = NULL;
    lang_use(saved ? saved : in);
    return out;
}

int interp_eval(interp_t *in, const char *expr, json_t **value, cell_error_t *err) {
    return run(in, expr, "<expression>", NULL, value, err, true);
}

void interp_flush_output(interp_t *in) {
    if (!in || !in->outlen) return;
    interp_t *saved = g_in;
    lang_use(in);
    out_flush();
    lang_use(saved);
}

char *interp_device_constants(interp_t *in) {
    lang_use(in);
    size_t cap = 256, n = 0;
    char *o = xmalloc(cap);
    o[0] = 0;
    for (int i = 0; i < in->macros.cap; i++) {
        const char *k = in->macros.keys ? in->macros.keys[i] : NULL;
        if (!k || k == (const char *)1) continue;
        macro_t *m = in->macros.vals[i];
        if (!m || m->builtin || !m->text) continue;
        size_t l = strlen(m->text) + 2;
        while (n + l + 1 > cap) o = xrealloc(o, cap *= 2);
        /* one line per macro: a definition continued with '\' is joined, so
         * no line of its body can pass for a constant of its own */
        for (const char *c = m->text; *c; c++) {
            if (c[0] == '\\' && c[1] == '\n') { o[n++] = ' '; c++; }
            else if (*c == '\n') o[n++] = ' ';
            else o[n++] = *c;
        }
        o[n++] = '\n';
        o[n] = 0;
    }
    for (int i = 0; i < in->globals.cap; i++) {
        const char *k = in->globals.keys ? in->globals.keys[i] : NULL;
        if (!k || k == (const char *)1) continue;
        sym_t *s = in->globals.vals[i];
        if (!s || s->kind != S_VAR_GLOBAL || !s->gv->committed || !s->ty->is_const || !ty_is_arith(s->ty)) continue;
        if (strstr(k, "::")) continue; /* std::string::npos, ns::N: no such declaration compiles on its own */
        char v[64];
        type_t *t = s->ty;
        val_t x;
        memset(&x, 0, sizeof x);
        memcpy(&x, s->gv->addr, t->size > 8 ? 8 : t->size);
        if (t->kind == T_FLOAT) { float fv; memcpy(&fv, s->gv->addr, 4); fmt_float(fv, v, sizeof v); strcat(v, "f"); }
        else if (ty_is_float(t)) { double dv; memcpy(&dv, s->gv->addr, 8); fmt_double(dv, v, sizeof v); if (!strpbrk(v, ".en")) strcat(v, ".0"); }
        else {
            char *d = display_text(ty_unqual(t), (val_t){.i = 0}, true);
            free(d);
            int64_t iv = 0;
            switch (t->size) {
            case 1: iv = t->is_unsigned ? *(uint8_t *)s->gv->addr : *(int8_t *)s->gv->addr; break;
            case 2: iv = t->is_unsigned ? *(uint16_t *)s->gv->addr : *(int16_t *)s->gv->addr; break;
            case 4: iv = t->is_unsigned ? (int64_t)*(uint32_t *)s->gv->addr : *(int32_t *)s->gv->addr; break;
            default: memcpy(&iv, s->gv->addr, 8); break;
            }
            if (t->kind == T_BOOL) snprintf(v, sizeof v, "%s", iv ? "true" : "false");
            else if (t->is_unsigned) snprintf(v, sizeof v, "%lluu", (unsigned long long)iv);
            else snprintf(v, sizeof v, "%lld", (long long)iv);
        }
        char *decl = ty_decl_alloc(ty_unqual(t), s->name); /* whole: the device code names it */
        size_t l = strlen(decl) + strlen(v) + 16;
        while (n + l + 1 > cap) o = xrealloc(o, cap *= 2);
        n += (size_t)snprintf(o + n, cap - n, "constexpr %s = %s;\n", decl, v);
        free(decl);
    }
    return o;
}

/* The live buffer a pointer-typed session variable points into, or NULL. */
static const buf_t *pointee(const sym_t *s) {
    if (s->ty->kind != T_PTR) return NULL;
    uint64_t w;
    memcpy(&w, s->gv->addr, sizeof w);
    int64_t off;
    return ptr_live_buf(w, &off);
}

static const char *place_name(const buf_t *b) {
    if (!b) return "host";
    switch (b->place) {
    case PLACE_DEVICE: return "device";
    case PLACE_PINNED: return "pinned";
    case PLACE_MANAGED: return "managed";
    default: return "host";
    }
}

json_t *interp_who(interp_t *in) {
    lang_use(in);
    json_t *a = json_array();
    FOR_SESSION_VARS(in, s) {
        char tn[200];
        json_t *r = json_object();
        json_object_set_new(r, "name", json_string(s->name));
        json_object_set_new(r, "type", json_string(ty_name(s->ty, tn, sizeof tn)));
        json_object_set_new(r, "size", json_integer((json_int_t)s->ty->size));
        /* for a pointer, where its buffer lives */
        json_object_set_new(r, "place", json_string(place_name(pointee(s))));
        json_array_append_new(a, r);
    }
    return a;
}

typedef struct { char *o; size_t n, cap; uint64_t base; } ptr_names_t;
static void ptr_names_add(void *ctx, const char *name, uint64_t w) {
    ptr_names_t *pn = ctx;
    int64_t off;
    const buf_t *b = ptr_live_buf(w, &off);
    if (!b || !b->addr || b->addr != pn->base) return; /* an address names one buffer, whatever its place */
    size_t l = strlen(name) + 2;
    while (pn->n + l + 1 > pn->cap) pn->o = xrealloc(pn->o, pn->cap *= 2);
    pn->n += (size_t)sprintf(pn->o + pn->n, "%s%s", pn->n ? ", " : "", name);
}

char *interp_pointer_names(interp_t *in, int place, uint64_t base) {
    lang_use(in);
    (void)place;
    ptr_names_t pn = {.o = xmalloc(64), .cap = 64, .base = base};
    pn.o[0] = 0;
    session_pointers_each(in, ptr_names_add, &pn);
    return pn.o;
}

json_t *interp_names(interp_t *in, const char *prefix) {
    json_t *a = json_array();
    size_t pl = strlen(prefix);
    hmap_t *maps[3] = {&in->globals, &in->builtins, &in->macros};
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < maps[m]->cap; i++) {
            const char *k = maps[m]->keys ? maps[m]->keys[i] : NULL;
            if (!k || k == (const char *)1 || strncmp(k, prefix, pl) != 0 || !strncmp(k, "__", 2)) continue;
            json_array_append_new(a, json_string(k));
        }
    return a;
}

void *interp_var_storage(interp_t *in, const char *name, size_t *size) {
    sym_t *s = hmap_get(&in->globals, name);
    if (!s || s->kind != S_VAR_GLOBAL || !s->gv || !s->gv->committed || !s->gv->addr) return NULL;
    if (size) *size = s->ty->size;
    return s->gv->addr;
}
