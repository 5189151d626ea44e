/* The C++ library's registry: library classes (a struct type with builtins
 * for methods, registered as a type name under its full name, e.g.
 * "std::string"), class templates ("std::vector" -> a function making
 * std::vector<float> on first use, one type per argument list), library
 * functions that parse their own call (std::chrono::duration_cast<T>(d)),
 * and library objects (std::cout). The session's C++ state lives in
 * interp->cxx. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cxx_lib.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

static void global_type(interp_t *in, const char *name, type_t *t) {
    sym_t *s = pool_alloc(&in->pool, sizeof *s);
    s->name = name;
    s->kind = S_TYPEDEF;
    s->ty = t;
    hmap_put(&in->globals, name, s);
}

type_t *cx_lib_class(interp_t *in, const char *name, size_t size, size_t align, int lib, cx_class_t **out) {
    type_t *t = pool_alloc(&in->pool, sizeof *t);
    t->kind = T_STRUCT;
    t->size = size;
    t->align = align;
    t->name = name;
    t->sd = pool_alloc(&in->pool, sizeof(sdef_t));
    t->sd->tag = name;
    t->sd->complete = true;
    cx_class_t *c = cx_class_new(in, t, name);
    c->is_lib = true;
    c->lib = lib;
    if (out) *out = c;
    return t;
}

/* a library type name: also reachable under its full name from the parser */
void cx_lib_type_name(interp_t *in, const char *name, type_t *t) { global_type(in, name, t); }

void cx_nested_type(interp_t *in, cx_class_t *c, const char *name, type_t *t) {
    struct cx_nested *n = pool_alloc(&in->pool, sizeof *n);
    n->name = name;
    n->ty = t;
    n->next = c->nested;
    c->nested = n;
}

cx_method_t *cx_lib_method(interp_t *in, cx_class_t *c, const char *name, type_t *fty, bfn_t fn, void *data) {
    cx_method_t *m = cx_method_add(in, c, name, fty);
    builtin_t *b = pool_alloc(&in->pool, sizeof *b);
    char nb[300];
    snprintf(nb, sizeof nb, "%s::%s", c->name, name[0] == '#' ? "constructor" : name);
    b->name = pool_strndup(&in->pool, nb, strlen(nb));
    b->fn = fn;
    b->data = data;
    b->ty = fty;
    m->bi = b;
    if (!strcmp(name, "#ctor")) {
        m->is_ctor = true;
        c->has_ctor = true;
        if (fty->nparams == 0) c->default_ctor = m; /* std::mt19937 gen; is seeded */
    }
    m->defined = true;
    return m;
}

void cx_register_template(interp_t *in, const char *name, cx_instantiate_fn fn) {
    cx_class_t *c;
    type_t *t = cx_lib_class(in, name, 1, 1, LIB_NONE, &c);
    c->tmpl = fn;
    global_type(in, name, t);
}

void cx_register_libfn(interp_t *in, const char *name, cx_libfn fn) {
    cx_libfn *box = pool_alloc(&in->pool, sizeof *box);
    *box = fn;
    hmap_put(&cx_state(in)->libfns, name, box);
}

gvar_t *cx_lib_global(interp_t *in, const char *name, type_t *t) {
    gvar_t *g = pool_alloc(&in->pool, sizeof *g);
    g->name = name;
    g->ty = t;
    uint64_t ptr = mem_alloc(t->size, PLACE_GLOBAL, name, NULL);
    if (!ptr) return NULL;
    g->bslot = ptr_slot(ptr);
    g->addr = g_bufs[g->bslot].base;
    g->committed = g->defined = true;
    ARRAY_GROW(in->gvars, in->ngvars, in->capgvars);
    in->gvars[in->ngvars++] = g;
    sym_t *s = pool_alloc(&in->pool, sizeof *s);
    s->name = name;
    s->kind = S_VAR_GLOBAL;
    s->ty = t;
    s->gv = g;
    hmap_put(&in->globals, name, s);
    return g;
}

type_t *cx_fty(type_t *ret, int n, ...) {
    type_t **ps = pool_alloc(&g_in->pool, sizeof(type_t *) * (size_t)(n + 1));
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) ps[i] = va_arg(ap, type_t *);
    va_end(ap);
    return ty_func(ret, n, ps, false);
}

char *cx_obj(val_t *args, int i, size_t size, node_t *at) { return mem_at(args[i].u, size, 1, at); }

/* An instance of a template already made for these arguments, by its name. */
type_t *cx_instance_get(interp_t *in, const char *name) { return hmap_get(&cx_state(in)->instances, name); }
void cx_instance_put(interp_t *in, const char *name, type_t *t) {
    hmap_put(&cx_state(in)->instances, name, t);
}

/* a call of builtin fn returning an object of type rt: fn gets where it goes
 * (a temporary, zeroed) first, then args; op tells fn what to do */
node_t *cx_lib_call_ret(P *p, loc_t *l, bfn_t fn, type_t *rt, node_t **args, int n, int op, const char *name) {
    builtin_t *b = pool_alloc(&p->in->pool, sizeof *b);
    b->name = name;
    b->fn = fn;
    int life;
    node_t *tmp = cx_temp(p, rt, l, &life);
    node_t **v = pool_alloc(&p->in->pool, sizeof(node_t *) * (size_t)(n + 1));
    v[0] = mk_addr(tmp);
    if (n) memcpy(v + 1, args, sizeof(node_t *) * (size_t)n);
    node_t *call = mk_builtin(l, b, ty_ptr(rt), v, n + 1);
    call->op = op;
    node_t *w = cx_life_wrap(p, life, call, tmp);
    return pl_deref(l, rt, w, 0);
}

/* a library object's text for value display (NULL: show its fields) */
char *cxx_show(type_t *t, const void *obj) {
    cx_class_t *c = cx_class_of(t);
    if (!c || !c->is_lib) return NULL;
    if (c->ops && c->ops->show) return c->ops->show(c, obj);
    char b[64];
    if (c->lib == LIB_DURATION || c->lib == LIB_TIMEPOINT) {
        type_t *r = c->lib == LIB_DURATION ? c->targ[0] : &ty_long;
        if (r->kind == T_FLOAT) { float f; memcpy(&f, obj, 4); fmt_float(f, b, sizeof b); }
        else if (ty_is_float(r)) { double d; memcpy(&d, obj, 8); fmt_double(d, b, sizeof b); }
        else if (r->size == 8) { int64_t i; memcpy(&i, obj, 8); snprintf(b, sizeof b, "%lld", (long long)i); }
        else { int32_t i; memcpy(&i, obj, 4); snprintf(b, sizeof b, "%d", i); }
        char o[96];
        snprintf(o, sizeof o, c->lib == LIB_DURATION ? "{count = %s}" : "{ns since epoch = %s}", b);
        return xstrdup(o);
    }
    return xstrdup("{…}");
}
