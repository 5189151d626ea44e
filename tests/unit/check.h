/* A few macros for the C unit tests. Each test binary ends with the line
 * "N passed, N failed, N skipped" that tests/run.py adds to the total. */
#ifndef ICUDA_CHECK_H
#define ICUDA_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed, check_failed, check_skipped;

#if defined(__SANITIZE_ADDRESS__)
/* Fake stacks on, as newer ASan (gcc 13's) has them by default: locals then
 * live off the stack, and code that measures the stack by a local's address
 * is wrong (the recursion-depth checks were, on the GPU machine). */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_stack_use_after_return=1"; }
#endif

/* One named check: counts a pass, or prints where it failed. */
#define CHECK(cond)                                                              \
    do {                                                                         \
        if (cond) check_passed++;                                                \
        else {                                                                   \
            check_failed++;                                                      \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
        }                                                                        \
    } while (0)

#define CHECK_STR(got, want)                                                     \
    do {                                                                         \
        const char *g_ = (got), *w_ = (want);                                    \
        if (g_ && w_ && strcmp(g_, w_) == 0) check_passed++;                     \
        else {                                                                   \
            check_failed++;                                                      \
            fprintf(stderr, "FAIL %s:%d: %s\n  got:  %s\n  want: %s\n", __FILE__, \
                    __LINE__, #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)");     \
        }                                                                        \
    } while (0)

#define CHECK_SKIP(n, why)                                                       \
    do {                                                                         \
        check_skipped += (n);                                                    \
        fprintf(stderr, "skip %d: %s\n", (int)(n), why);                         \
    } while (0)

static inline int check_report(void) {
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    return check_failed ? 1 : 0;
}

#endif
