/* Checked allocation: the kernel's own bookkeeping (not memory a cell asks
 * for, which the host arena accounts) cannot go on without its memory, so
 * every allocation here either succeeds or ends the process with a message.
 * One place decides that, instead of a test after each call. */
#ifndef ICUDA_XALLOC_H
#define ICUDA_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc to count elements of size bytes, the product checked for overflow */
void *xreallocarray(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* a formatted string, malloc'd */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
