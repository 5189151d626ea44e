/* The native tier of host code (docs/native-tier.md): loops that run long are
 * compiled from the interpreter's typed nodes to C with every check written
 * in, built with the system's C compiler into a shared object, and entered at
 * a loop head with the interpreter's current variables. Failed checks call
 * the interpreter's own error routines, so errors are the interpreter's.
 * Pieces: the evaluator's classification of its own evaluators (eval.h
 * NK_*), native_gen.c (nodes -> C), native_cc.c (C -> code, cached by
 * content), native_tier.c (hotness, entry, the runtime the code calls). */
#ifndef ICUDA_NATIVE_H
#define ICUDA_NATIVE_H

#include <stdint.h>
#include "runtime/lang/eval/eval.h"

/* The tier's record of a loop statement (n->native, native_tier.c) begins
 * with what the loop was built as: its own evaluator and its kind (NK_S_FOR,
 * NK_S_WHILE, NK_S_DO). */
typedef struct native_loop_head { sfn_t orig; int kind; } native_loop_head_t;
/* n's kind (eval.h NK_*); a loop the tier took (which keeps its record
 * whether or not its evaluator was given back): the kind it was built as
 * (native_gen.c) */
int native_stmt_kind(node_t *n);

/* Tier choice: off (never compile), auto (compile what runs long), always
 * (compile every loop the tier can on its first run: the parity tests). */
enum { NATIVE_OFF, NATIVE_AUTO, NATIVE_ALWAYS };
void native_set_mode(interp_t *in, int mode);
int native_mode(interp_t *in);
/* C compiler optimisation level for compiled host code (0 or 2). */
void native_set_opt(interp_t *in, int level);
int native_opt(interp_t *in);
/* Compile hot loops in the foreground (the default is the background, the
 * loop going on interpreted meanwhile): %timeit's timed runs, and tests
 * that count entries. Returns the previous choice. */
bool native_set_sync(interp_t *in, bool sync);
/* Statistics since the last reset: loops entered compiled, compiles, cache
 * hits, compile time. %timeit reports the tier from them. */
typedef struct native_stats {
    long entries, compiles, mem_hits, disk_hits, failures;
    long clean_runs[2]; /* clean copies run: [0] of single loops, [1] of whole nests */
    long gave_up; /* compiled calls of pure functions that gave up (run again interpreted) */
    long lean_misses; /* lean code whose nest's entry test failed (NT_LEAN): made whole */
    long refused; /* code not loaded: the session holds NATIVE_MAX_LOADED objects (since it began) */
    long abandoned; /* compiles the interpreter waited for, stopped by an interrupt (the loop or call went on interpreted) */
    long ticks; /* polls of loops the tier waits on, run by the interpreter's own evaluator (native_loop_tick) */
    double compile_s;
} native_stats_t;
native_stats_t native_stats(interp_t *in);
void native_stats_reset(interp_t *in);
void native_free(interp_t *in);
/* the session's nodes are gone (teardown, %reset): its compiles stopped, its code closed */
void native_unload(interp_t *in);
void native_stop_jobs(interp_t *in); /* cancels background compiles (teardown, %reset) */
/* cancels those of loops allocated after m (a cell whose pool goes back to m) */
void native_stop_jobs_since(interp_t *in, pool_mark_t m);
/* ... and those of loops whose syntax is in pool nodes (a cell's statements, going) */
void native_stop_jobs_in(interp_t *in, pool_t *nodes);

/* the loop statement n was just built (for, while, do): the evaluator
 * calls it through the session's upcalls (core.h lang_upcalls_t) */
void native_hook_loop(node_t *n, int kind);
/* a loop's poll (lang_upcalls_t.loop_tick): its compiled code run from
 * here (the loop's result), or -1 */
int native_loop_tick(node_t *n, frame_t *f);

/* ---- native_gen.c ---- */
/* The C source of a function compiling loop statement n, and its constants
 * (node addresses, session variable addresses, libm entry points) in *k /
 * *nk; NULL (and nothing allocated) when n holds something not compiled.
 * The source names no address, so equal loops give equal text. loops[i]:
 * the loop statement the code enters at the head of when called with osr
 * i + 1 (loops[0] is n). */
typedef struct native_src {
    char *text; void **k; int nk; node_t **loops; int nloops;
    void **deps; int ndeps; /* a function's: (fbox, func) of each function it calls, as compiled */
} native_src_t;
/* lean: a whole nest that is the loop itself gets its clean copy only;
 * where its entry test fails the code returns NT_LEAN before anything ran,
 * and the loop is made again, whole (a third of the compile; docs/native-tier.md) */
int native_gen(node_t *loop, const val_t *slots, bool lean, native_src_t *out);
/* The C source of pure host function fn and those it calls
 * (native_func.c); -1 when it does not qualify. */
int native_gen_func(func_t *fn, native_src_t *out);
/* native_tier.c, from call_func once fn is hot: 1 the compiled code ran
 * (*r its value); 2 it gave up (run fn interpreted, with nothing compiled
 * inside: in->native_block); 0 run it interpreted */
int native_call(func_t *fn, val_t *args, val_t *r);
enum { NATIVE_FN_HOT = 1000 }; /* calls that make a function hot */
enum { NT_STALE = -7 };         /* a loop's code: a function it calls was redefined, nothing ran */
enum { NT_LEAN = -8 };          /* a lean loop's code: its nest's entry test failed, nothing ran */
void native_src_free(native_src_t *s);

/* ---- native_cc.c ---- */
/* FNV-1a of s's bytes, going on from h (start: NATIVE_FNV_START): the
 * code cache's key and the generator's access-cache keys */
#define NATIVE_FNV_START 1469598103934665603ULL
static inline uint64_t native_fnv(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* osr: 0 runs the loop from its start; i + 1 goes on at the head of loops[i] */
typedef int (*native_fn_t)(const void *rt, void *const *k, val_t *slots, char *mem, val_t *ret, int osr);

/* The code a session has loaded (dlopen'd objects, ~40 KB and five
 * mappings each), closed when the session ends or is reset, when no node
 * that runs it is left. At most native_max_loaded(): past it no more code
 * is loaded and loops stay interpreted (counted in refused). */
#define NATIVE_MAX_LOADED 2048
size_t native_max_loaded(void); /* NATIVE_MAX_LOADED, or ICUDA_HOST_MAX_LOADED (tests) */
typedef struct native_lib { uint64_t h; native_fn_t fn; void *handle; } native_lib_t;
typedef struct native_libs { native_lib_t *e; size_t n, cap; long refused; } native_libs_t;
void native_libs_close(native_libs_t *libs);

/* The compiled entry of src for a session's libs (compiled, or from its
 * loaded code or the disk cache); NULL when the compiler fails, or was
 * stopped by an interrupt (*how -1). *how: 0 compiled, 1 memory, 2 disk. */
native_fn_t native_compile(native_libs_t *libs, const char *src, int opt, int *how, double *secs);
/* The same, only from the session's loaded code or the disk cache: NULL
 * when not there. */
native_fn_t native_lookup(native_libs_t *libs, const char *src, int opt, int *how);
/* A compile in the background: NULL with *ready set when the code is
 * cached (*how 1 or 2), or NULL when it cannot start; else a job. */
typedef struct native_job native_job_t;
native_job_t *native_compile_start(native_libs_t *libs, const char *src, int opt, native_fn_t *ready, int *how);
/* 0: still compiling (only when !wait); 1: done, *fn the code or NULL
 * when the compiler failed; -1: interrupted while waiting. The job is
 * gone unless 0 was returned. */
int native_compile_poll(native_job_t *j, bool wait, native_fn_t *fn, double *secs);
/* stops the compiler; the job is gone */
void native_compile_cancel(native_job_t *j);
/* the cache key of src's code, and of the code a job makes */
uint64_t native_code_hash(const char *src, int opt);
uint64_t native_job_hash(const native_job_t *j);

#endif
