/* Statements: blocks, conditions, loops, switch, jumps. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse_internal.h"
#include "cxx_class.h"

/* ---------------- statements ---------------- */
node_t *block(P *p, loc_t *l0) {
    /* after '{' */
    cxx_scope_open(p); /* C++: what this block constructs, it destroys */
    scope_push(p);
    p->f->blockdepth++;
    ilist_t o = {0};
    while (!accept(p, P_RBRACE)) {
        if (TOK->kind == TK_EOF) syntax_error(&TOK->loc, "expected '}' at the end of the cell (a '{' is not closed)");
        if (is_type_start(p, TOK) && !(is_typedef_name(p, TOK) && PEEK(1)->kind == TK_PUNCT &&
                                        (PEEK(1)->id == P_LPAREN && is_dim3(lookup(p, TOK)->ty))) &&
            !cxx_functional_cast_ahead(p, p->i, true)) {
            int st;
            bool skip;
            type_t *b = decl_specs(p, &st, &skip);
            if (skip) { skip_item(p); continue; }
            if (accept(p, P_SEMI)) continue;
            declaration(p, b, st, false, &o);
            p_tokens_done(p);
            continue;
        }
        iadd(&o, stmt(p));
        p_tokens_done(p);
    }
    p->f->blockdepth--;
    scope_pop(p);
    return cxx_scope_close(p, st_block(l0, o.v, o.n));
}

static node_t *cond_of(P *p) {
    expect(p, P_LPAREN, "'('");
    node_t *c = rvalue(p, expression(p));
    expect(p, P_RPAREN, "')'");
    need_scalar(c, "a condition");
    return c;
}

node_t *loop_body(P *p) {
    p->f->loops++;
    swctx_t *sw = p->f->sw;
    node_t *b = stmt(p);
    p->f->sw = sw;
    p->f->loops--;
    return b;
}

static node_t *switch_stmt(P *p, loc_t *l0) {
    node_t *c = cond_of(p);
    if (!ty_is_int(c->ty)) type_error(&c->loc, "switch needs an integer, not %s", tyname(c->ty));
    c = mk_cast(c, ty_promote(c->ty));
    swctx_t sw = {0};
    sw.def = -1;
    swctx_t *outer = p->f->sw;
    p->f->sw = &sw;
    if (!is_p(p, P_LBRACE)) syntax_error(&TOK->loc, "the body of a switch must be a { block }");
    loc_t bl = TOK->loc;
    p->i++;
    scope_push(p);
    p->f->blockdepth++;
    sw.depth = p->f->blockdepth;
    ilist_t o = {0};
    p->f->loops += 1000; /* break is allowed */
    while (!accept(p, P_RBRACE)) {
        if (TOK->kind == TK_EOF) syntax_error(&TOK->loc, "expected '}'");
        if (is_type_start(p, TOK) && !cxx_functional_cast_ahead(p, p->i, true)) {
            int st;
            bool skip;
            type_t *b = decl_specs(p, &st, &skip);
            if (accept(p, P_SEMI)) continue;
            declaration(p, b, st, false, &o);
            continue;
        }
        while (is_kw(p, KW_CASE) || is_kw(p, KW_DEFAULT)) {
            loc_t cl = TOK->loc;
            if (accept(p, KW_DEFAULT)) {
                if (sw.def >= 0) syntax_error(&cl, "multiple default labels in one switch");
                sw.def = o.n;
            } else {
                p->i++;
                node_t *v = mk_cast(const_expr(p), c->ty);
                int64_t cv = const_int(p, v, "a case label");
                for (int i = 0; i < sw.n; i++)
                    if (sw.vals[i] == cv) type_error(&v->loc, "duplicate case value %" PRId64, cv);
                if (sw.n == sw.cap) { /* in the cell's scratch pool: an error in the body leaks nothing */
                    sw.cap = sw.cap ? sw.cap * 2 : 16;
                    int64_t *v = pool_alloc(&p->in->scratch, sizeof(int64_t) * (size_t)sw.cap);
                    int *x = pool_alloc(&p->in->scratch, sizeof(int) * (size_t)sw.cap);
                    if (sw.n) memcpy(v, sw.vals, sizeof(int64_t) * (size_t)sw.n);
                    if (sw.n) memcpy(x, sw.idx, sizeof(int) * (size_t)sw.n);
                    sw.vals = v;
                    sw.idx = x;
                }
                sw.vals[sw.n] = cv;
                sw.idx[sw.n++] = o.n;
            }
            expect(p, P_COLON, "':'");
        }
        if (is_p(p, P_RBRACE)) continue;
        iadd(&o, stmt(p));
    }
    p->f->loops -= 1000;
    p->f->blockdepth--;
    scope_pop(p);
    p->f->sw = outer;
    node_t *body = st_block(&bl, o.v, o.n);
    body->sfn = NULL;
    return st_switch(l0, c, body, sw.vals, sw.idx, sw.n, sw.def);
}

static node_t *stmt_inner(P *p);
node_t *stmt(P *p) {
    nest_enter(p);
    node_t *r = stmt_inner(p);
    nest_leave(p);
    return r;
}

static node_t *stmt_inner(P *p) {
    token_t *t = TOK;
    loc_t l0 = t->loc;
    if (t->kind == TK_PUNCT && t->id == P_LBRACE) { p->i++; return block(p, &l0); }
    if (t->kind == TK_PUNCT && t->id == P_SEMI) { p->i++; return st_nop(&l0); }
    if (t->kind == TK_KW) {
        cxx_check_unsupported(p);
        if (t->id == KW_USING || t->id == KW_NAMESPACE) {
            /* false: a namespace block, which only a cell's top level reads;
             * going on without consuming it would loop for ever (fuzz_interp) */
            if (!cxx_using_item(p)) syntax_error(&l0, "a namespace is opened at a cell's top level, not inside a block");
            return st_nop(&l0);
        }
        switch (t->id) {
        case KW_IF: {
            p->i++;
            node_t *c = cond_of(p);
            node_t *a = stmt(p);
            node_t *b = accept(p, KW_ELSE) ? stmt(p) : NULL;
            return st_if(&l0, c, a, b);
        }
        case KW_WHILE: {
            p->i++;
            node_t *c = cond_of(p);
            return st_while(&l0, c, loop_body(p));
        }
        case KW_DO: {
            p->i++;
            node_t *b = loop_body(p);
            if (!accept(p, KW_WHILE)) expected(p, "'while'");
            node_t *c = cond_of(p);
            expect(p, P_SEMI, "';'");
            return st_do(&l0, b, c);
        }
        case KW_FOR: {
            p->i++;
            expect(p, P_LPAREN, "'('");
            if (cxx_is_range_for(p)) return cxx_range_for(p, &l0);
            scope_push(p);
            node_t *init = NULL;
            if (is_type_start(p, TOK) && !cxx_functional_cast_ahead(p, p->i, true)) {
                int st;
                bool skip;
                type_t *b = decl_specs(p, &st, &skip);
                ilist_t o = {0};
                declaration(p, b, st, false, &o);
                init = st_block(&l0, o.v, o.n);
            } else if (!accept(p, P_SEMI)) {
                init = st_expr(rvalue(p, expression(p)));
                expect(p, P_SEMI, "';'");
            }
            node_t *c = NULL, *step = NULL;
            if (!is_p(p, P_SEMI)) { c = rvalue(p, expression(p)); need_scalar(c, "a loop condition"); }
            expect(p, P_SEMI, "';'");
            if (!is_p(p, P_RPAREN)) step = rvalue(p, expression(p)); /* a bare name too: `for (i = 0; i < n; i)` */
            expect(p, P_RPAREN, "')'");
            node_t *body = loop_body(p);
            scope_pop(p);
            return st_for(&l0, init, c, step, body);
        }
        case KW_SWITCH: p->i++; return switch_stmt(p, &l0);
        case KW_BREAK:
            p->i++;
            if (!p->f->loops) syntax_error(&l0, "break statement not within a loop or switch");
            expect(p, P_SEMI, "';'");
            return st_jump(&l0, X_BREAK);
        case KW_CONTINUE:
            p->i++;
            if (p->f->loops % 1000 == 0) syntax_error(&l0, "continue statement not within a loop");
            expect(p, P_SEMI, "';'");
            return st_jump(&l0, X_CONTINUE);
        case KW_RETURN: {
            p->i++;
            node_t *e = NULL;
            type_t *rt = p->f->ret;
            if (p->f->is_cell) { /* main's body as a cell: return N ends it as main's end would */
                node_t *v = is_p(p, P_SEMI) ? mk_int(&l0, &ty_int, 0) : rvalue(p, expression(p));
                expect(p, P_SEMI, "';'");
                return st_expr(cxx_cell_return(p, v, &l0));
            }
            if (!is_p(p, P_SEMI)) {
                e = cxx_return_value(p, expression(p), rt); /* C++: moved or copied out */
                loc_t el = e->loc;
                if (rt->kind == T_VOID) {
                    if (e->ty->kind != T_VOID) type_error(&el, "a void function cannot return a value");
                    e = rvalue(p, e);
                } else if (rt->is_ref) {
                    e = cxx_ref_target(p, rt, e, "return value");
                } else {
                    node_t *c = conv_assign(p, (e->ty->kind == T_FUNC && e->op == FD_USER) ? e : rvalue(p, e), rt, "return value");
                    if (!c) { node_t *v[1] = {rvalue(p, e)}; c = mk_load(dim3_literal(p, &el, v, 1)); }
                    e = c;
                }
            } else if (rt->kind != T_VOID && !p->f->is_cell)
                type_error(&l0, "a function returning %s must return a value", tyname(rt));
            expect(p, P_SEMI, "';'");
            loc_t l = from(p, &l0);
            return st_return(&l, e, rt);
        }
        case KW_CASE: case KW_DEFAULT:
            syntax_error(&l0, "case label not directly inside a switch body");
        case KW_GOTO: {
            p->i++;
            if (TOK->kind != TK_IDENT) expected(p, "a label");
            char *nm = pstr(p, TOK);
            p->i++;
            expect(p, P_SEMI, "';'");
            loc_t l = from(p, &l0);
            node_t *g = st_goto(&l, nm);
            cxx_note_goto(p, g);
            return g;
        }
        case KW_ELSE:
            syntax_error(&l0, "'else' without a previous 'if'");
        case KW_STATIC_ASSERT: {
            p->i++;
            expect(p, P_LPAREN, "'('");
            node_t *c = const_expr(p);
            int64_t v = const_int(p, c, "static_assert");
            if (accept(p, P_COMMA)) str_literal(p);
            expect(p, P_RPAREN, "')'");
            expect(p, P_SEMI, "';'");
            if (!v) type_error(&l0, "static assertion failed");
            return st_nop(&l0);
        }
        }
    }
    if (t->kind == TK_IDENT && PEEK(1)->kind == TK_PUNCT && PEEK(1)->id == P_COLON) { /* a label */
        char *nm = pstr(p, t);
        p->i += 2;
        cxx_note_label(p, nm, &l0);
        return st_label(&l0, nm, is_p(p, P_RBRACE) ? st_nop(&l0) : stmt(p));
    }
    cxx_scope_open(p); /* C++: the statement's temporaries end with it */
    node_t *e = expression(p);
    if (!is_p(p, P_SEMI)) expected(p, "';'");
    p->i++;
    if (e->ty->kind == T_FUNC && !e->is_place) {
        char b[100];
        type_error(&e->loc, "'%s' is a function; call it with ()", loc_text(&e->loc, b, sizeof b));
    }
    /* a CUDA call whose cudaError_t is thrown away: a failure would go unseen,
     * so it is raised as the cell's error */
    gpu_call_mark_discarded(e);
    node_t *x = e->is_place ? rvalue(p, e) : e;
    /* outside loops and functions nothing compiles natively: the lean
     * form, with no node of its own (eval.h st_expr_lean) */
    return cxx_scope_close(p, p->f->is_cell && !p->f->loops ? st_expr_lean(x) : st_expr(x));
}
