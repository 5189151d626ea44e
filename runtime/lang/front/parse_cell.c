/* Parsing and type checking in one pass: C declarations, statements and
 * expressions become typed nodes (the evaluator's builders) with every
 * conversion made explicit and every name resolved to a slot, a frame
 * offset, a session variable or a function box, so nothing is looked up
 * while a cell runs. A whole cell is compiled before any of it runs:
 * undeclared names, wrong argument counts and type mismatches stop it with
 * nothing done. This file holds the cell's top level (its items, the names
 * its references bind, committing what it defined), a template's child
 * parse, and the session's prelude. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_internal.h"
#include "cxx_class.h"
#include "runtime/hostmem/arena.h"
#include "runtime/base/xalloc.h"

/* ---------------- the cell ---------------- */
static void mark_addressed(P *p, token_t *t) { hmap_put(&p->addressed, pstr(p, t), (void *)1); }

static bool tok_punct(token_t *t, int id) { return t->kind == TK_PUNCT && t->id == id; }

/* C++ references bind to variables without an '&' in sight: a whole call
 * argument `f(x)` (unless f is known to take no reference there: builtins,
 * CUDA calls), and the variable after `&r =` or `: ` in a range for. */
static void scan_ref_bindings(P *p) {
    for (int i = 1; i + 1 < p->n; i++) {
        token_t *t = &p->t[i];
        if (t->kind != TK_IDENT) continue;
        token_t *pr = &p->t[i - 1], *nx = &p->t[i + 1];
        if ((tok_punct(pr, P_ASSIGN) || tok_punct(pr, P_COLON)) && (tok_punct(nx, P_SEMI) || tok_punct(nx, P_RPAREN) || tok_punct(nx, P_COMMA))) {
            if (i >= 3 && p->t[i - 2].kind == TK_IDENT && (tok_punct(&p->t[i - 3], P_AMP) || tok_punct(&p->t[i - 3], P_LAND)))
                mark_addressed(p, t);
            continue;
        }
        if (!(tok_punct(pr, P_LPAREN) || tok_punct(pr, P_COMMA)) || !(tok_punct(nx, P_RPAREN) || tok_punct(nx, P_COMMA)))
            continue;
        /* find the callee: the identifier before this argument list's '(' */
        int d = 0, j = i - 1;
        for (; j > 0; j--) {
            token_t *u = &p->t[j];
            if (tok_punct(u, P_RPAREN) || tok_punct(u, P_RBRACK)) d++;
            else if (tok_punct(u, P_LPAREN) || tok_punct(u, P_LBRACK)) {
                if (d == 0) break;
                d--;
            } else if (d == 0 && (tok_punct(u, P_SEMI) || tok_punct(u, P_LBRACE) || tok_punct(u, P_RBRACE))) { j = 0; break; }
        }
        if (j <= 0 || !tok_punct(&p->t[j], P_LPAREN)) continue;
        token_t *callee = &p->t[j - 1];
        if (callee->kind == TK_KW) continue; /* if (x), sizeof(x), while (x) ... */
        if (tok_punct(callee, P_GT) || callee->kind == TK_IDENT) {
            if (callee->kind == TK_IDENT) {
                if (hmap_getn(&p->in->builtins, callee->s, (size_t)callee->n) || !strncmp(callee->s, "cu", 2)) continue;
                sym_t *s = lookup(p, callee);
                if (s && s->kind == S_FUNC && s->ty->kind == T_FUNC) {
                    bool any = false;
                    for (int k = 0; k < s->ty->nparams; k++) any |= s->ty->params[k]->is_ref;
                    if (!any) continue;
                }
                if (s && s->kind != S_FUNC && s->kind != S_TEMPLATE) continue;
            }
            mark_addressed(p, t);
        }
    }
}

/* Does the ')' at index close be a cast's, "(void **)" or "(struct s *)",
 * so that an '&' after it takes an address? Only type-like tokens inside,
 * and no callee or operand ("f(x) & m", "sizeof(int) & m") before its '('.
 * "(a) & b" reads as a cast too: b then lives in memory, which costs only
 * speed. */
static bool closes_cast(P *p, int close) {
    int j = close - 1;
    for (; j >= 0; j--) {
        token_t *u = &p->t[j];
        if (tok_punct(u, P_LPAREN)) break;
        if (u->kind == TK_IDENT || u->kind == TK_KW || tok_punct(u, P_STAR) || tok_punct(u, P_AMP) ||
            tok_punct(u, P_LT) || tok_punct(u, P_GT) || tok_punct(u, P_COMMA) || tok_punct(u, P_SCOPE))
            continue;
        return false;
    }
    if (j < 0 || j == close - 1) return false;
    token_t *before = j ? &p->t[j - 1] : NULL;
    if (!before) return true;
    if (before->kind == TK_KW)
        return !(before->id == KW_SIZEOF || before->id == KW_ALIGNOF || before->id == KW_TYPEOF ||
                 before->id == KW_DECLTYPE || before->id == KW_IF || before->id == KW_WHILE ||
                 before->id == KW_SWITCH || before->id == KW_FOR);
    return !(before->kind == TK_IDENT || tok_punct(before, P_RPAREN) || tok_punct(before, P_RBRACK) ||
             tok_punct(before, P_GT));
}

static void scan_addressed(P *p) {
    scan_ref_bindings(p);
    for (int i = 0; i + 1 < p->n; i++) {
        token_t *t = &p->t[i];
        if (t->kind != TK_PUNCT || t->id != P_AMP) continue;
        token_t *pr = i ? &p->t[i - 1] : NULL;
        bool binary = pr && (pr->kind == TK_IDENT || pr->kind == TK_INT || pr->kind == TK_FLOAT ||
                             pr->kind == TK_CHAR || pr->kind == TK_STR || tok_punct(pr, P_RBRACK) ||
                             (tok_punct(pr, P_RPAREN) && !closes_cast(p, i - 1)));
        if (binary) continue;
        int j = i + 1;
        while (j < p->n && p->t[j].kind == TK_PUNCT && p->t[j].id == P_LPAREN) j++;
        if (p->t[j].kind == TK_IDENT) {
            char *nm = pstr(p, &p->t[j]);
            hmap_put(&p->addressed, nm, (void *)1);
        }
    }
}

static void commit(P *p) {
    interp_t *in = p->in;
    for (int i = 0; i < p->npend; i++) {
        pending_t *q = &p->pend[i];
        switch (q->kind) {
        case PEND_TAG: hmap_put(&in->tags, q->name, q->a); break;
        case PEND_TYPEDEF: case PEND_ENUMC: hmap_put(&in->globals, q->name, q->a); break;
        case PEND_FUNC: {
            fbox_t *b = fbox_get(p, ((func_t *)q->a)->name);
            b->cur = q->a;
            hmap_put(&in->globals, q->name, q->b);
            break;
        }
        case PEND_PROTO: {
            sym_t *old = hmap_get(&in->globals, q->name);
            sym_t *cur = hmap_get(&p->cell, q->name);
            if (cur && cur != q->a) break; /* defined in this cell too */
            if (!old || old->kind != S_FUNC || !ty_same(old->ty, ((sym_t *)q->a)->ty)) hmap_put(&in->globals, q->name, q->a);
            break;
        }
        }
    }
}

unsigned long parse_lasting(interp_t *in) {
    unsigned long n = in->globals.puts + in->tags.puts + in->macros.puts + in->builtins.puts + in->fboxes.puts +
                      in->ns_alias.puts + (unsigned)in->ngvars + (unsigned)in->nusings + (unsigned)g_nfboxes +
                      in->defs;
    if (in->cxx) n += in->cxx->instances.puts + in->cxx->gconstructed.puts + in->cxx->libfns.puts + 1;
    return n;
}

/* what the session and this parse have defined so far: a statement that
 * changes it made something lasting */
static unsigned long parse_made(P *p) {
    return parse_lasting(p->in) + (unsigned)p->npend + (unsigned)p->nnewg + p->cell.puts + p->ctags.puts;
}

/* A top-level statement's syntax goes to in->stmts (struct interp): the
 * two pools trade places while it is parsed. */
static void stmts_swap(interp_t *in) {
    pool_t t = in->pool;
    in->pool = in->stmts;
    in->stmts = t;
    in->stmts_swapped = !in->stmts_swapped;
}

static void top_statement(P *p, token_t *t);

static void top_item(P *p) {
    token_t *t = TOK;
    if (accept(p, P_SEMI)) return;
    if (cxx_using_item(p)) return;
    if (cxx_outofclass_def(p)) return; /* Timer::Timer() {...} */
    if (t->kind == TK_KW && t->id == KW_NAMESPACE && PEEK(1)->kind == TK_IDENT && PEEK(2)->kind == TK_PUNCT &&
        PEEK(2)->id == P_LBRACE) { /* namespace a { ... }: its names are a::x */
        loc_t l0 = t->loc;
        p->i++;
        const char *outer = p->ns;
        p->ns = cxx_decl_name(p, TOK);
        p->i += 2;
        while (!accept(p, P_RBRACE)) {
            if (TOK->kind == TK_EOF) syntax_error(&l0, "the namespace block is not closed");
            top_item(p);
        }
        p->ns = outer;
        return;
    }
    cxx_check_unsupported(p);
    if (t->kind == TK_KW && t->id == KW_TEMPLATE) {
        cxx_template_def(p);
        return;
    }
    if (is_type_start(p, t) && !(is_typedef_name(p, t) && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_LPAREN &&
                                 is_dim3(lookup(p, t)->ty)) && !cxx_functional_cast_ahead(p, p->i, true)) {
        int st;
        bool skip;
        type_t *b = decl_specs(p, &st, &skip);
        if (skip) { skip_item(p); return; }
        if (accept(p, P_SEMI)) return;
        ilist_t o = {0};
        declaration(p, b, st, true, &o);
        for (int i = 0; i < o.n; i++) vadd(&p->top, &p->ntop, &p->captop, o.v[i]);
        return;
    }
    if (!p->split_stmts || p->f != p->cellf || p->ns) {
        top_statement(p, t);
        return;
    }
    unsigned long made = parse_made(p);
    stmts_swap(p->in);
    top_statement(p, t);
    stmts_swap(p->in);
    if (parse_made(p) != made) p->in->stmts_escaped = true;
}

/* a statement; an expression without ';' at the very end is the cell's value */
static void top_statement(P *p, token_t *t) {
    bool exprstart = !(t->kind == TK_KW && t->id != KW_SIZEOF && t->id != KW_TRUE && t->id != KW_FALSE &&
                       t->id != KW_NULLPTR && t->id != KW_ALIGNOF && !cxx_functional_cast_ahead(p, p->i, true)) &&
                     !(t->kind == TK_PUNCT && (t->id == P_LBRACE)) &&
                     !(t->kind == TK_IDENT && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_COLON);
    if (exprstart) {
        cxx_scope_open(p); /* C++: the statement's temporaries end with it */
        node_t *e = expression(p);
        if (TOK->kind == TK_EOF) {
            cxx_scope_merge(p); /* the cell's value: its temporaries live until it is shown */
            if (e->ty->kind == T_FUNC && !e->is_place) {
                char b[100];
                type_error(&e->loc, "'%s' is a function; call it with ()", loc_text(&e->loc, b, sizeof b));
            }
            p->value = e;
            return;
        }
        if (p->expr_only) expected(p, "the end of the expression");
        if (!is_p(p, P_SEMI)) expected(p, "';'");
        p->i++;
        if (e->ty->kind == T_FUNC && !e->is_place) {
            char b[100];
            type_error(&e->loc, "'%s' is a function; call it with ()", loc_text(&e->loc, b, sizeof b));
        }
        gpu_call_mark_discarded(e);
        vadd(&p->top, &p->ntop, &p->captop, cxx_scope_close(p, st_expr_lean(e->is_place ? rvalue(p, e) : e)));
        return;
    }
    if (p->expr_only) expected(p, "an expression");
    vadd(&p->top, &p->ntop, &p->captop, stmt(p));
}

static void p_cleanup(P *p) {
    free(p->scope);
    free(p->marks);
    free(p->pend);
    hmap_free(&p->cell);
    hmap_free(&p->ctags);
    hmap_free(&p->addressed);
}

static P *g_p; /* the parse in progress, for cleanup after a longjmp */

/* A parse of other tokens (a template's) inside this one: it sees the
 * session and this cell's names, and commits what it defines at once. */
P *p_child(P *parent, token_t *t, int n) {
    P *c = xcalloc(1, sizeof *c);
    c->in = parent->in;
    c->t = t;
    c->n = n;
    c->src = t[0].loc.src;
    c->parent = parent;
    c->nest = parent->nest;
    c->f = c->cellf = &c->cellctx;
    parent->child = c;
    scan_addressed(c); /* a template's locals whose address it takes live in frame memory */
    return c;
}

void p_child_finish(P *c) {
    commit(c);
    c->parent->child = NULL;
    free(c->newg);
    p_cleanup(c);
    free(c);
}

static void free_children(P *p) {
    P *c = p->child;
    p->child = NULL;
    if (!c) return;
    free_children(c);
    free(c->newg);
    p_cleanup(c);
    free(c);
}

void parse_abort_cleanup(void) {
    if (g_in && g_in->stmts_swapped) stmts_swap(g_in); /* an error inside a statement */
    if (!g_p) return;
    /* storage of variables this cell would have made */
    for (int i = 0; i < g_p->nnewg; i++) {
        gvar_t *g = g_p->newg[i];
        if (!g->committed && g->addr) {
            arena_free(g->addr);
            buf_kill(g->bslot, BUF_FREED);
            g->addr = NULL;
        }
    }
    free(g_p->newg);
    free_children(g_p);
    p_cleanup(g_p);
    free(g_p);
    g_p = NULL;
}

/* The cell's tokens the parse of its own code is past are never read
 * again (what outlives a statement, a template's body, was copied): a big
 * cell's syntax tree grows while its tokens go. Called between statements
 * (and initialiser elements) of the cell's own code and of its plain
 * functions, not in a class's methods, whose bodies are parsed after the
 * class; a margin stays all the same. */
#define TOKENS_DISCARD_STEP (1 << 16)
#define TOKENS_DISCARD_MARGIN 1024

void p_tokens_done(P *p) {
    if (!p->f || !(p->f->is_cell || p->f->discards) || p->i - p->tokens_kept <= TOKENS_DISCARD_STEP + TOKENS_DISCARD_MARGIN)
        return;
    p->tokens_kept = p->i - TOKENS_DISCARD_MARGIN;
    pool_discard(&p->in->scratch, p->t, sizeof(token_t) * (size_t)p->tokens_kept);
}

void parse_cell(interp_t *in, tokvec_t *toks, src_t *src, cell_code_t *out, bool expr_only) {
    P *p = xcalloc(1, sizeof *p);
    g_p = p;
    p->in = in;
    p->t = toks->v;
    p->n = toks->n;
    p->src = src;
    p->expr_only = expr_only;
    p->split_stmts = in->stmts_split; /* this parse's own statements only, not a nested one's */
    in->stmts_split = false;
    cxx_join_qualified(in, toks);
    p->n = toks->n;
    scan_addressed(p);
    fctx_t *cf = &p->cellctx;
    func_t *fn = palloc(p, sizeof *fn);
    fn->name = src->name;
    fn->ty = ty_func(&ty_void, 0, NULL, false);
    fn->defined = true;
    cf->fn = fn;
    cf->ret = &ty_void;
    cf->is_cell = true;
    p->f = p->cellf = cf;
    cxx_scope_open(p); /* the cell's C++ temporaries end with it */
    while (TOK->kind != TK_EOF) {
        poll_interrupt(NULL); /* a 10 MB cell takes seconds to parse */
        top_item(p);
        p_tokens_done(p);
    }
    cxx_check_labels(p);
    if (expr_only && !p->value) syntax_error(&TOK->loc, "expected an expression");
    loc_t l0 = {src, 1, 0, 0};
    out->value = p->value;
    if (p->value) {
        vadd(&p->top, &p->ntop, &p->captop, st_value(p->value));
    }
    fn->body = cxx_scope_close(p, st_block(&l0, p->top, p->ntop));
    fn->nslots = cf->nslots;
    fn->memsize = cf->memsize;
    fn->mem = cf->mem;
    fn->nmem = cf->nmem;
    fn->loc = l0;
    out->fn = fn;
    out->newg = p->newg;
    out->nnewg = p->nnewg;
    p->newg = NULL;
    commit(p);
    p_cleanup(p);
    free(p);
    g_p = NULL;
}

/* Builtin prototypes, parsed by the same parser: "double sqrt(double);" */
void parse_prelude(interp_t *in, const char *protos) {
    src_t *src = src_new(in, "<builtin>", protos);
    tokvec_t tv = {0};
    lex_cell(in, src, &tv);
    cxx_join_qualified(in, &tv);
    P pp = {0}, *p = &pp;
    p->in = in;
    p->t = tv.v;
    p->n = tv.n;
    p->src = src;
    fctx_t cf = {0};
    p->f = p->cellf = &cf;
    while (TOK->kind != TK_EOF) {
        int st;
        bool skip;
        type_t *b = decl_specs(p, &st, &skip);
        if (!b) expected(p, "a declaration");
        if (accept(p, P_SEMI)) continue;
        if (st == KW_TYPEDEF) {
            ilist_t o = {0};
            declaration(p, b, st, true, &o);
            continue;
        }
        token_t *nm = NULL;
        type_t *t = declarator(p, b, &nm);
        expect(p, P_SEMI, "';'");
        char nb[64];
        snprintf(nb, sizeof nb, "%.*s", nm->n, nm->s);
        builtin_t *bi = hmap_get(&in->builtins, nb);
        if (!bi) { fprintf(stderr, "icuda: builtin %s has no implementation\n", nb); continue; }
        bi->ty = t;
    }
    /* the prelude's typedefs become session types */
    for (int i = 0; i < p->npend; i++) {
        pending_t *q = &p->pend[i];
        if (q->kind == PEND_TYPEDEF || q->kind == PEND_ENUMC) hmap_put(&in->globals, q->name, q->a);
        if (q->kind == PEND_TAG) hmap_put(&in->tags, q->name, q->a);
    }
    sym_t *d = hmap_get(&in->globals, "dim3");
    if (d) ty_dim3 = d->ty;
    sym_t *f = hmap_get(&in->globals, "FILE");
    if (f) ty_file = f->ty;
    sym_t *sz = hmap_get(&in->globals, "size_t");
    if (sz) ty_size_t = sz->ty;
    p_cleanup(p);
    cxx_library(in);
}
