/* The parser's bookkeeping, which every part of it uses: scopes and name
 * lookup (through C++'s namespace blocks, aliases and using-directives),
 * the slots and frame memory of the function being built, function boxes,
 * the declarations a cell makes, pending until it commits, and the bounds
 * on nesting and on a function's frame. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_internal.h"
#include "cxx_class.h"
#include "runtime/hostmem/arena.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

/* ---------------- scopes ---------------- */
void scope_push(P *p) {
    ARRAY_GROW(p->marks, p->nmarks, p->capmarks);
    p->marks[p->nmarks++] = p->nscope;
}
void scope_pop(P *p) { p->nscope = p->marks[--p->nmarks]; }
void scope_add(P *p, sym_t *s) {
    ARRAY_GROW(p->scope, p->nscope, p->capscope);
    p->scope[p->nscope++] = s;
}

/* Where a name may be found, in order: as written (its first part through a
 * namespace alias), in each `using namespace` in force, and std:: names also
 * bare (std::sqrt is the C sqrt). out[k] is buf[k] or, for a longer name,
 * the session's pool: a name is never cut. */
int cxx_name_candidates(interp_t *in, const char *name, char buf[][256], const char **out, int max) {
    int n = 0;
#define ADD(...) do { if (n < max) { out[n] = lang_name_fmt(in, buf[n], 256, __VA_ARGS__); n++; } } while (0)
    if (!strncmp(name, "::", 2)) { /* ::x is the global x and nothing else */
        ADD("%s", name + 2);
        return n;
    }
    const char *sep = strstr(name, "::");
    size_t head = sep ? (size_t)(sep - name) : strlen(name);
    const char *al = hmap_getn(&in->ns_alias, name, head);
    if (al) ADD("%s%s", al, name + head);
    else ADD("%s", name);
    /* using namespace std; chrono::milliseconds is std::chrono::milliseconds too */
    for (int i = in->nusings - 1; i >= 0; i--) ADD("%s::%s", in->usings[i], name);
    int k = n;
    for (int i = 0; i < k; i++)
        if (!strncmp(out[i], "std::", 5) && !strchr(out[i] + 5, ':')) ADD("%s", out[i] + 5);
#undef ADD
    return n;
}

static sym_t *lookup_n(P *p, const char *s, int n) {
    char nbuf[256];
    const char *nb = lang_name(p->in, nbuf, sizeof nbuf, s, (size_t)n);
    for (int i = p->nscope - 1; i >= 0; i--)
        if (strcmp(p->scope[i]->name, nb) == 0) return p->scope[i];
    char outer[512], qb[800];
    char *up_ns = NULL; /* a copy of the namespace, cut at each level up */
    for (const char *ns = strncmp(nb, "::", 2) ? p->ns : NULL; ns;) { /* inside a namespace block: its names first */
        const char *q = lang_name_fmt(p->in, qb, sizeof qb, "%s::%s", ns, nb);
        sym_t *r = hmap_get(&p->cell, q);
        if (!r) r = hmap_get(&p->in->globals, q);
        if (r) return r;
        const char *up = NULL;
        for (const char *c = ns; (c = strstr(c, "::")); c += 2) up = c;
        if (!up) break;
        if (!up_ns) up_ns = lang_name_fmt(p->in, outer, sizeof outer, "%.*s", (int)(up - ns), ns);
        else up_ns[up - ns] = 0;
        ns = up_ns; /* the enclosing namespace */
    }
    char cb[8][256];
    const char *cand[8];
    int nc = cxx_name_candidates(p->in, nb, cb, cand, 8);
    for (int k = 0; k < nc; k++) {
        for (P *q = p; q; q = q->parent) {
            sym_t *r = hmap_get(&q->cell, cand[k]);
            if (r) return r;
        }
        sym_t *r = hmap_get(&p->in->globals, cand[k]);
        if (r) return r;
    }
    return NULL;
}
sym_t *lookup(P *p, token_t *t) { return lookup_n(p, t->s, t->n); }
sym_t *lookup_name(P *p, const char *name) {
    token_t t = {0};
    t.kind = TK_IDENT;
    t.s = name;
    t.n = (int)strlen(name);
    return lookup(p, &t);
}

bool is_typedef_name(P *p, token_t *t) {
    if (t->kind != TK_IDENT) return false;
    sym_t *s = lookup(p, t);
    return s && s->kind == S_TYPEDEF;
}

bool is_type_start(P *p, token_t *t) {
    if (t->kind == TK_KW) {
        switch (t->id) {
        case KW_VOID: case KW_CHAR: case KW_SHORT: case KW_INT: case KW_LONG: case KW_FLOAT:
        case KW_DOUBLE: case KW_SIGNED: case KW_UNSIGNED: case KW_BOOL: case KW_STRUCT:
        case KW_UNION: case KW_ENUM: case KW_TYPEDEF: case KW_STATIC: case KW_EXTERN:
        case KW_CONST: case KW_VOLATILE: case KW_RESTRICT: case KW_INLINE: case KW_REGISTER:
        case KW_HOST: case KW_DEVICE: case KW_GLOBAL: case KW_FORCEINLINE: case KW_NOINLINE:
        case KW_SHARED: case KW_CONSTANT: case KW_TYPEOF: case KW_AUTO: case KW_CONSTEXPR:
        case KW_EXPLICIT: case KW_MUTABLE:
            return true;
        }
        return false;
    }
    if (t->kind == TK_IDENT && t->n == 13 && memcmp(t->s, "__attribute__", 13) == 0) return true;
    return is_typedef_name(p, t);
}

/* ---------------- function context ---------------- */
int new_slot(P *p) { return p->f->nslots++; }
int64_t new_mem(P *p, type_t *t, int64_t size) {
    int64_t al = t && t->align ? (int64_t)t->align : 8;
    if (al > 16) al = 16;
    p->f->memsize = (p->f->memsize + al - 1) / al * al;
    int64_t off = p->f->memsize;
    p->f->memsize += size ? size : 1;
    frame_size_check(p, p->f->memsize);
    return off;
}
int new_handle(P *p, int64_t off, int64_t size, const char *name) {
    fctx_t *f = p->f;
    if (f->nmem == f->capmem) {
        int nc = f->capmem ? f->capmem * 2 : 8;
        lvar_mem_t *nm = palloc(p, sizeof(lvar_mem_t) * (size_t)nc);
        if (f->nmem) memcpy(nm, f->mem, sizeof(lvar_mem_t) * (size_t)f->nmem);
        f->mem = nm;
        f->capmem = nc;
    }
    f->mem[f->nmem] = (lvar_mem_t){off, size, name, f->nmem};
    return f->nmem++;
}

fbox_t *fbox_get(P *p, const char *name) {
    fbox_t *b = hmap_get(&p->in->fboxes, name);
    if (b) return b;
    b = palloc(p, sizeof *b);
    b->name = pool_strndup(&p->in->pool, name, strlen(name));
    b->owner = p->in->id;
    b->id = g_nfboxes;
    g_fboxes = xreallocarray(g_fboxes, (size_t)g_nfboxes + 1, sizeof *g_fboxes);
    g_fboxes[g_nfboxes++] = b;
    hmap_put(&p->in->fboxes, b->name, b);
    return b;
}

void pend(P *p, int kind, const char *name, void *a, void *b) {
    ARRAY_GROW(p->pend, p->npend, p->cappend);
    p->pend[p->npend++] = (pending_t){kind, name, a, b};
}

/* ---------------- bounds (LANG_MAX_NEST, LANG_MAX_FRAME) ----------------
 * The parser and the evaluator recurse as deeply as the code nests, so
 * nesting past the bound is a SyntaxError at the token where it happens,
 * whatever the C stack would allow. The stack is checked too, as a guard
 * for a thread with a small stack. */
void nest_enter(P *p) {
    interp_t *in = p->in;
    bool stack_low = in->stack_base && (size_t)(in->stack_base - STACK_HERE()) > in->stack_limit / 2;
    if (++p->nest > LANG_MAX_NEST || stack_low) syntax_error(&TOK->loc, "expression nested too deeply");
}

void frame_size_check(P *p, int64_t memsize) {
    if (memsize <= LANG_MAX_FRAME) return;
    loc_t at = prevloc(p);
    type_error(&at, "the local variables here need %" PRId64 " bytes, more than the %" PRId64
               " MiB one function's frame may hold: allocate it with malloc, or declare it at the top of the cell",
               memsize, LANG_MAX_FRAME >> 20);
}
