/* What compiled host code and the interpreter share (native.h): the table of
 * interpreter routines the code calls, and the per-access caches it keeps.
 * NATIVE_RT_DEFS is both compiled here and pasted, as text, at the head of
 * every generated file (native_gen.c), so the two cannot drift apart. */
#ifndef ICUDA_NATIVE_RT_H
#define ICUDA_NATIVE_RT_H

#include <stdint.h>

#define NATIVE_RT_DEFS                                                                              \
    typedef union nval { int64_t i; uint64_t u; double d; void *p; } nval_t;                        \
    /* p[i] through pointer word p: valid for lo <= i < lo + span at addr + i * size */             \
    typedef struct nic { uint64_t p; uintptr_t addr; int64_t lo; uint64_t span; } nic_t;           \
    /* *(p + off): the buffer whose slot and generation are key holds lim + size bytes at base */   \
    typedef struct ndc { uint64_t key; char *base; uint64_t lim; } ndc_t;                           \
    typedef struct nrt {                                                                            \
        char *(*idx)(void *node, uint64_t p, int64_t i, int wr, nic_t *c);                          \
        char *(*deref)(void *node, uint64_t p, int wr, ndc_t *c);                                   \
        __attribute__((noreturn)) void (*index_fail)(void *node, int64_t i, int wr);                \
        __attribute__((noreturn)) void (*div0)(void *node);                                         \
        __attribute__((noreturn)) void (*divovf)(void *node);                                       \
        __attribute__((noreturn)) void (*interrupt)(void *node);                                    \
        uint64_t (*ptr_add)(uint64_t p, int64_t d);                                                 \
        int32_t (*rand)(void);                                                                      \
        volatile int *iflag;                                                                        \
        /* the interpreter's undefined-behaviour errors (ub_checks.c), raised at the same node */   \
        __attribute__((noreturn)) void (*ovf)(void *node, int op, int64_t a, int64_t b);            \
        /* ++/-- of a place: res the wrapped result, b the step */                                 \
        __attribute__((noreturn)) void (*ovf_place)(void *node, int op, int64_t res, int64_t b);    \
        __attribute__((noreturn)) void (*shift)(void *node, int op, int k, int64_t x, int64_t count); \
        __attribute__((noreturn)) void (*f2i)(void *node, double d, int to); /* called to raise */  \
        __attribute__((noreturn)) void (*neg)(void *node, int64_t a);                               \
        __attribute__((noreturn)) void (*pwrap)(void *node, uint64_t p, int64_t d);                 \
        /* the elements of esz bytes p may reach (wr: and write), without raising: 0 none */          \
        int (*range)(uint64_t p, int64_t esz, int wr, nic_t *c);                                    \
        long *clean_runs; /* [2]: how many times a loop's, a nest's clean copy ran (native_stats_t) */             \
        /* calls of pure functions from a loop (native_func.c): the interpreter's call when the     \
         * compiled one gives up; the lowest stack address compiled calls may reach */               \
        nval_t (*call)(void *node, nval_t *args);                                                   \
        char *stack_lo;                                                                             \
        /* what compiled functions test their frame against: stack_lo, or past every stack when  \
         * the interrupt was raised (interrupt.h) */                                                 \
        char *volatile *guard;                                                                      \
        /* p - q of pointers into different buffers (exec.c's error, at the same node) */           \
        __attribute__((noreturn)) void (*ptrdiff)(void *node);                                      \
    } nrt_t;

NATIVE_RT_DEFS

#define NATIVE_STR_(...) #__VA_ARGS__
#define NATIVE_STR(...) NATIVE_STR_(__VA_ARGS__)

#endif
