/* Editor help that the engine gives beside running cells (assist.c,
 * inspect.c): the rest is in engine.h. */
#ifndef ICUDA_ASSIST_H
#define ICUDA_ASSIST_H

#include <stdbool.h>
#include "engine.h"

/* A cell that is only "NAME?" or "NAME??": its inspection goes to the pager
 * (io_page) and true is returned; false for any other cell. */
/* The byte offset of code point cp in UTF-8 text s (its length past the end). */
int assist_byte_offset(const char *s, int cp);

bool engine_question(engine_t *e, const char *code, const cell_io_t *io);

#endif
