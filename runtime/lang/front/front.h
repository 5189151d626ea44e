/* The front end, as the stages above it see it: the lexer and its
 * preprocessor (lex.c), a cell's conditionals between items (pp_cell.c),
 * and the parser, which type-checks as it goes and builds the evaluator's
 * nodes (parse*.c). */
#ifndef ICUDA_LANG_FRONT_H
#define ICUDA_LANG_FRONT_H

#include "runtime/lang/eval/eval.h"

/* ---------- lexer (lex.c) ---------- */
typedef struct tokvec { token_t *v; int n, cap; } tokvec_t;
void lex_cell(interp_t *in, src_t *src, tokvec_t *out); /* raises SyntaxError */
void lex_define_text(interp_t *in, const char *text);    /* prelude macros */
/* The preprocessor's parts for a cell's conditionals (pp_cell.c): the tokens
 * of text p (line `line` of src) to its end; #if's value; defined(name);
 * #define of v[0..n) (the name first). */
void lex_span(interp_t *in, src_t *src, const char *p, int line, tokvec_t *out);
bool lex_pp_if(interp_t *in, token_t *v, int n);
bool lex_pp_defined(interp_t *in, token_t *name);
void lex_pp_define(interp_t *in, token_t *v, int n);
int binary_precedence(const token_t *t);                  /* 10 = * / %, 1 = ||; -1 otherwise */
const char *tok_str(token_t *t, char *buf, size_t n);

/* ---------- a cell's conditionals between items (pp_cell.c) ----------
 * interp_cell_conditionals (interp.h) in parts, which the session runs as
 * it runs a cell (an error jumps to its setjmp): begin puts the session's
 * macros aside (the cell's #defines go to a copy); run decides the cell's
 * conditionals, as the device side (__CUDA_ARCH__ cuda_arch) or, when 0,
 * the host; end puts the macros back and returns the text (malloc'd) when
 * ok, or NULL. */
typedef struct pp_cell pp_cell_t;
bool pp_cell_has_directive(const char *code);
pp_cell_t *pp_cell_begin(interp_t *in, const char *code, const char *cell, const cell_io_t *io);
void pp_cell_run(pp_cell_t *p, int cuda_arch);
char *pp_cell_end(pp_cell_t *p, bool ok, bool *decided);
/* What nvcc defines for host code (pp_cell.c). */
void pp_predefine(interp_t *in);

/* ---------- parser (parse*.c) ---------- */
void parse_cell(interp_t *in, tokvec_t *toks, src_t *src, cell_code_t *out, bool expr_only);
/* the session's prelude: the builtins' prototypes (each names a builtin
 * already registered) and the library's types, then the C++ library */
void parse_prelude(interp_t *in, const char *protos);
/* A count that every lasting definition of the session raises (a function,
 * type, variable, macro, template instance, ...: each goes through one of
 * the session's maps or counts): equal before and after a cell, the cell
 * defined nothing that outlives it. */
unsigned long parse_lasting(interp_t *in);
/* frees what a parse that an error stopped had made */
void parse_abort_cleanup(void);
void lex_abort_cleanup(void);             /* after an error: forget the cell being lexed */

#endif
