/* icuda's language for the protocol layer: the table of kernel/language.h
 * over the cell engine (runtime/engine/engine.h). */
#ifndef ICUDA_CUDA_LANGUAGE_H
#define ICUDA_CUDA_LANGUAGE_H

#include "kernel/language.h"

/* The table and its context (no session yet: the server starts it).
 * Never fails. */
language_t *cuda_language_new(void);
/* Frees what cuda_language_new made; the server has ended the session. */
void cuda_language_free(language_t *lang);

#endif
