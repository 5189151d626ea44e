/* The memory one cell may take in the session's pools (its tokens, its
 * syntax tree) and what happens when there is none: without a bound, a cell
 * too big for the memory left had an allocation fail inside the lexer or
 * the parser, and the process abort (under an address-space limit, where
 * the last-resort guard then discarded the session) or the OOM killer end
 * it. Now such a cell is a MemoryError and the session goes on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core.h"
#include "runtime/hostmem/arena.h"

/* growth below this needs no look at the system's figures */
#define BUDGET_FREE ((size_t)64 << 20)

/* Address space left under RLIMIT_AS, or SIZE_MAX without a limit. */
static size_t address_space_left(void) {
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
    unsigned long long vsize = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu", &vsize) != 1) vsize = 0;
        fclose(f);
    }
    vsize *= (unsigned long long)sysconf(_SC_PAGESIZE);
    return vsize < r.rlim_cur ? (size_t)(r.rlim_cur - vsize) : 0;
}

/* A quarter of the memory, and at most half the address space left when
 * the cell began: the rest is for the cell's text, its items, the session
 * and what the cell then allocates. */
size_t lang_cell_budget(void) {
    size_t mem = host_memory_size(), b = mem ? mem / 4 : (size_t)4 << 30;
    size_t as = address_space_left();
    if (as != SIZE_MAX && as / 2 < b) b = as / 2;
    return b < BUDGET_FREE ? BUDGET_FREE : b;
}

void lang_budget_start(interp_t *in) {
    in->budget_base = g_pool_bytes;
    in->budget = 0;
}

void lang_budget_check(size_t more) {
    interp_t *in = g_in;
    if (!in || !in->jb || g_pool_bytes + more <= in->budget_base + BUDGET_FREE) return;
    if (!in->budget) in->budget = lang_cell_budget();
    if (g_pool_bytes + more - in->budget_base > in->budget)
        lang_raise("MemoryError", NULL,
                   "this cell needs more than %zu MiB to compile (its tokens and syntax tree; a cell may take a quarter "
                   "of the memory, and half the address space left under the kernel's limit): split it into smaller "
                   "cells",
                   in->budget >> 20);
}

_Noreturn void lang_out_of_memory(size_t n, const char *what) {
    if (g_in && g_in->jb)
        lang_raise("MemoryError", NULL, "no memory left for %s (%zu bytes more)", what, n);
    char msg[160];
    int len = snprintf(msg, sizeof msg, "icuda: out of memory for %s (%zu bytes)\n", what, n);
    if (len > 0) (void)!write(2, msg, (size_t)len);
    abort();
}
