/* The parser's bound on nesting (parse_internal.h, LANG_MAX_NEST): the
 * parser and the evaluator recurse as deeply as the code nests, so nesting
 * past the bound is a SyntaxError at the token where it happens, whatever
 * the C stack would allow. The stack is checked too, as a guard for a
 * thread with a small stack. */
#include <inttypes.h>
#include "parse_internal.h"

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
