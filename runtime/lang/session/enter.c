/* Entering a run of host code and recovering from an error's jump: what
 * every entry of the session that runs code does around its setjmp
 * (session.c, prepared.c, session_data.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdlib.h>
#include "enter.h"

#include "runtime/base/cell_io.h"
void lang_enter(interp_t *in, const cell_io_t *io, cell_error_t *err, jmp_buf *jb, char *here) {
    lang_use(in);
    in->io = io;
    in->err = err;
    in->exited = false;
    in->top = NULL;
    in->jb = jb;
    in->native_block = 0; /* left raised by an error in an interpreted call */
    lang_budget_start(in);
    lang_stack_bounds(in, here);
}

void lang_recover(interp_t *in) {
    exec_unwind(in, NULL);
    free(in->tmp[0]);
    free(in->tmp[1]);
    in->tmp[0] = in->tmp[1] = NULL;
    free(in->fmt_buf);
    in->fmt_buf = NULL;
    parse_abort_cleanup();
    lex_abort_cleanup();
    pool_free(&in->scratch);
    out_flush();
    if (in->value_json) {
        json_decref(in->value_json);
        in->value_json = NULL;
    }
}

/* The lowest address of this thread's stack, found once a thread: for the
 * main thread glibc reads /proc/self/maps to answer, 60 us of every cell */
static char *thread_stack_low(void) {
    static __thread char *low;
    static __thread bool known;
    if (known) return low;
    pthread_attr_t a;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &addr, &size) != 0) addr = NULL;
        pthread_attr_destroy(&a);
    }
    low = addr;
    known = true;
    return low;
}

void lang_stack_bounds(interp_t *in, char *here) {
    char *low = thread_stack_low();
    in->stack_base = here;
    in->stack_limit = 1 << 20;
    if (low && low < here) {
        size_t left = (size_t)(here - low);
        /* keep a margin for the evaluator's own frames and for libc */
        in->stack_limit = left > (512u << 10) ? left - (384u << 10) : left / 2;
        if (in->stack_limit > (256u << 20)) in->stack_limit = 256u << 20;
    }
}
