/* A mock language for the protocol's tests: the table of kernel/language.h
 * over a tiny fixed language of one command a line, with no compiler, CUDA
 * or GPU (mock_language.c lists the commands). */
#ifndef ICUDA_MOCK_LANGUAGE_H
#define ICUDA_MOCK_LANGUAGE_H

#include "kernel/language.h"

language_t *mock_language_new(void);
void mock_language_free(language_t *lang);

#endif
