/* The evaluator, as the stages above it see it: running a compiled cell,
 * calls and frames, the builders that turn typed pieces into nodes with
 * their specialised evaluators, output, value display, undefined behaviour
 * as errors, launches and CUDA calls. Its memory model is eval/mem.h. */
#ifndef ICUDA_LANG_EVAL_H
#define ICUDA_LANG_EVAL_H

#include "runtime/lang/core/core.h"
#include "interrupt_poll.h"
#include "mem.h"
#include "ub_checks.h"

/* ---------- running (exec_stmt.c, calls.c) ---------- */
val_t call_func(func_t *fn, val_t *args, node_t *site, frame_t *caller, char *retbuf);
void run_cell(interp_t *in, cell_code_t *cc);
void exec_unwind(interp_t *in, frame_t *to);
void frame_enter_check(node_t *at);

/* ---------- builders: typed pieces -> evaluators (exec.c; calls: calls.c) ---------- */
node_t *node_new(loc_t *loc);
val_t eval_const(node_t *n);                 /* a constant node's value */
node_t *mk_const(loc_t *l, type_t *t, val_t v);
node_t *mk_int(loc_t *l, type_t *t, int64_t v);
node_t *mk_cast(node_t *e, type_t *to);      /* conversion as by assignment/cast */
node_t *mk_test(node_t *e);                  /* scalar -> int 0/1 */
node_t *mk_load(node_t *place);              /* place -> value (aggregates: raw address) */
node_t *mk_addr(node_t *place);              /* place -> encoded pointer */
node_t *pl_slot(loc_t *l, type_t *t, int slot);
node_t *pl_frame(loc_t *l, type_t *t, int64_t off, int hidx);
node_t *pl_global(loc_t *l, gvar_t *g);
node_t *pl_deref(loc_t *l, type_t *t, node_t *ptr, int64_t off);
node_t *pl_index(loc_t *l, type_t *t, node_t *base, node_t *idx); /* base: pointer value or array place */
node_t *pl_member(loc_t *l, type_t *t, node_t *base, int64_t off);
node_t *pl_temp(loc_t *l, type_t *t, node_t *val);
node_t *pl_vla(loc_t *l, type_t *t, int slot);
node_t *mk_binop(loc_t *l, int op, type_t *t, node_t *a, node_t *b); /* t: the operating type */
node_t *mk_cmp(loc_t *l, int op, type_t *t, node_t *a, node_t *b);
node_t *mk_ptradd(loc_t *l, node_t *p, node_t *i, int64_t esz, int sign);
node_t *mk_ptrdiff(loc_t *l, node_t *a, node_t *b, int64_t esz);
node_t *mk_unop(loc_t *l, int op, type_t *t, node_t *a); /* -, ~ on promoted type */
node_t *mk_logic(loc_t *l, int op, node_t *a, node_t *b); /* && || (tests) */
node_t *mk_not(loc_t *l, node_t *a);
node_t *mk_cond(loc_t *l, type_t *t, node_t *c, node_t *a, node_t *b);
node_t *mk_comma(loc_t *l, node_t *a, node_t *b);
node_t *mk_assign(loc_t *l, node_t *place, node_t *rhs);  /* rhs already converted */
node_t *mk_compound(loc_t *l, int op, node_t *place, node_t *rhs, type_t *optype);
node_t *mk_incdec(loc_t *l, node_t *place, int delta, bool post); /* pointers: delta in elements */
node_t *mk_call(loc_t *l, fbox_t *box, type_t *fty, node_t **args, int n, int64_t tempoff);
node_t *mk_callptr(loc_t *l, node_t *fp, type_t *fty, node_t **args, int n, int64_t tempoff);
node_t *mk_builtin(loc_t *l, builtin_t *b, type_t *ret, node_t **args, int n);
node_t *mk_memset0(loc_t *l, node_t *place, int64_t size); /* zero an object */
node_t *mk_memcpy_init(loc_t *l, node_t *place, const char *bytes, int64_t n);
/* statements (exec_stmt.c) */
node_t *st_expr(node_t *e);
/* The same statement as e itself, with no node of its own, where e has no
 * statement role already: for a cell's own code outside loops, where a
 * node a statement counts (a cell of short statements holds one every few
 * bytes). Loops and function bodies keep st_expr, which the native tier
 * reads. */
node_t *st_expr_lean(node_t *e);
node_t *st_block(loc_t *l, node_t **v, int n);
node_t *st_if(loc_t *l, node_t *c, node_t *a, node_t *b);
node_t *st_while(loc_t *l, node_t *c, node_t *body);
node_t *st_do(loc_t *l, node_t *body, node_t *c);
node_t *st_for(loc_t *l, node_t *init, node_t *c, node_t *step, node_t *body);
node_t *st_switch(loc_t *l, node_t *c, node_t *body, int64_t *vals, int *idx, int ncase, int defidx);
node_t *st_jump(loc_t *l, int code);
node_t *st_return(loc_t *l, node_t *e, type_t *rt);
node_t *st_gdecl(loc_t *l, gvar_t *g);
node_t *st_vla(loc_t *l, int slot, node_t *count, int64_t esz, int countslot, const char *name);
node_t *st_launch(loc_t *l, const char *kernel);
node_t *st_nop(loc_t *l);
node_t *st_label(loc_t *l, const char *name, node_t *body);
node_t *st_goto(loc_t *l, const char *name);
node_t *st_once(loc_t *l, node_t *body); /* static local initialisers */
int64_t node_line(node_t *n);

void frames_free(interp_t *in);      /* the session's frame records (teardown) */
builtin_t *builtin_add(interp_t *in, const char *name, bfn_t fn, int flags);

/* ---------- output (output.c) ---------- */
void out_write(const char *stream, const char *s, size_t n);
void out_flush(void);

/* ---------- display (value_display.c) ---------- */
json_t *display_value(node_t *n, val_t v);
void fmt_double(double d, char *buf, size_t n);
void fmt_float(float f, char *buf, size_t n);
char *display_text(type_t *t, val_t v, bool top);
node_t *st_value(node_t *e);

/* ---------- what an evaluator computes, for the native tier ----------
 * The kind of work a node's evaluator does, whichever specialised form the
 * builders chose (exec.c, exec_stmt.c, calls.c know their own evaluators);
 * the native tier compiles a loop only when it knows every kind in it. */
enum {
    NK_NONE = 0,   /* anything the native tier does not compile */
    /* expressions */
    NK_CONST, NK_SLOT, NK_LOAD, NK_CAST, NK_ARITH, NK_CMP, NK_PTRADD, NK_PTRSUB, NK_PTRADDK,
    NK_NEG, NK_BNOT, NK_LAND, NK_LOR, NK_NOT, NK_COND, NK_COMMA,
    NK_ASSIGN, NK_COMPOUND, NK_INCDEC, NK_BUILTIN,
    NK_PTRDIFF, /* a - b of two pointers: esz the element's size */
    /* statements */
    NK_S_EXPR, NK_S_BLOCK, NK_S_NOP, NK_S_IF, NK_S_WHILE, NK_S_DO, NK_S_FOR, NK_S_JUMP, NK_S_RETURN,
    NK_S_SWITCH, /* a: the value; b: the body (its list); p: k.i case values, then their statements' indexes; slot: default's, or -1 */
};
int eval_expr_kind(node_t *n);   /* of n->fn */
int eval_stmt_kind(sfn_t s);     /* of a statement evaluator */
/* Is place pl addressed by exec.c's own pa_* routine? 0 no; PL_INDEX: 1
 * through a pointer, 2 into an array. */
int eval_place_kind(node_t *pl);
/* the function direct call n runs now, and its fbox; NULL when n is no
 * direct call or would fail (calls.c) */
func_t *eval_call_target(node_t *n, void **box);
/* the evaluator's own errors, for compiled code's failed checks */
_Noreturn void eval_index_fail(node_t *n, int64_t i, int wr);
_Noreturn void eval_div0(node_t *n);
_Noreturn void eval_ptrdiff_error(node_t *n); /* p - q, p and q in different buffers */
_Noreturn void eval_divovf(node_t *n);

/* ---------- launches and CUDA calls (gpu_hooks.c) ---------- */
node_t *mk_gpu_call(loc_t *l, const char *name, node_t **args, int n);
node_t *mk_launch(loc_t *l, const char *name, node_t **cfg, int nc, node_t **args, int n);
/* n->slot marks a call whose value an expression statement throws away. */
void gpu_call_mark_discarded(node_t *n);

#endif
