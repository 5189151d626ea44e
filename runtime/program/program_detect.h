/* Does a cell hold a whole program? A cell that defines main() is run as
 * %%program (magics/program.c) rather than interpreted: people paste
 * programs. */
#ifndef ICUDA_PROGRAM_DETECT_H
#define ICUDA_PROGRAM_DETECT_H

#include <stdbool.h>

/* True when code defines main at file scope: "int main(...) {", also
 * "void main()", "auto main() -> int {", a type on the line before.
 * Comments, strings, character literals and preprocessor lines are
 * skipped; a declaration without a body, a call, or a main inside a
 * namespace, struct or function does not count. */
bool program_defines_main(const char *code);

#endif
