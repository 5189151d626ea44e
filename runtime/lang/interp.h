/* The host-C interpreter as the cell engine sees it.
 * The engine splits a cell; the interpreter gets the cell's host view: the
 * cell text with every device-only item and magic line blanked to spaces
 * (newlines kept), so lines and columns are the cell's own. */
#ifndef ICUDA_INTERP_H
#define ICUDA_INTERP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct cell_io cell_io_t;       /* runtime/base/cell_io.h */
typedef struct cell_error cell_error_t;

typedef struct interp interp_t;

interp_t *interp_new(void);
void interp_free(interp_t *in);
/* %reset: forget every variable, function, type and macro; free host buffers. */
void interp_reset(interp_t *in);

/* Runs a cell's host view. cell_name ("In [3]") labels errors. Output goes to
 * io->stream. On success returns 0 and sets *value to the display of a final
 * expression written without ';' (a MIME bundle, new reference), or NULL.
 * On failure returns -1 with *err filled: ename SyntaxError, TypeError,
 * RuntimeError, AssertionError, KeyboardInterrupt; the traceback points at the
 * cell line with a caret. What ran before the error stays done. */
int interp_run(interp_t *in, const char *host_src, const char *cell_name,
               const cell_io_t *io, json_t **value, cell_error_t *err);

/* A cell's conditionals that begin between its items (#if ... #endif around
 * declarations, functions, statements), decided as one side's preprocessor
 * would before the cell is split (front/pp_cell.c): the host side when cuda_arch
 * is 0, the device side (__CUDA_ARCH__ cuda_arch, e.g. 900) otherwise. The
 * result is the cell with the directive lines and the groups not taken
 * blanked, newlines kept (malloc'd); *decided says whether there was such a
 * conditional (if not, both sides read the same text). #warning goes to
 * io's stderr when io is set. NULL with *err (SyntaxError at its line) for
 * #error, an #if without #endif (or the reverse), a bad #if expression.
 * The session's macros are left as they were. */
char *interp_cell_conditionals(interp_t *in, const char *code, const char *cell, int cuda_arch,
                               const cell_io_t *io, bool *decided, cell_error_t *err);

/* One expression (user_expressions): same rules as a cell's last line. */
int interp_eval(interp_t *in, const char *expr, json_t **value, cell_error_t *err);

/* Host const scalars and #define constants for the device prelude, as C++
 * source ("constexpr int N = 1024;\n..."), malloc'd; "" when none. */
char *interp_device_constants(interp_t *in);
/* Sends what host code printed and the interpreter still holds, so that
 * output from elsewhere (the GPU's printf) comes after it. */
void interp_flush_output(interp_t *in);

/* %who: one row per session variable {name, type, size, place}. */
json_t *interp_who(interp_t *in);

/* The session variables that point into the device, pinned or managed
 * buffer starting at address base, as "x, y" ("" when none); malloc'd. For
 * messages such as the list of device buffers lost to a GPU fault. place is
 * not needed (an address names one buffer) and is ignored. */
char *interp_pointer_names(interp_t *in, int place, uint64_t base);

/* The bytes of session variable name (its type's size in *size), or NULL
 * when there is none: for __managed__ variables, whose host side is a
 * session variable that the CUDA layer copies to and from the GPU. */
void *interp_var_storage(interp_t *in, const char *name, size_t *size);

/* For completion/inspection: names of session variables and functions that
 * start with prefix (new reference, JSON array of strings). */
json_t *interp_names(interp_t *in, const char *prefix);

/* ---- The GPU side's hooks (runtime/cuda installs them). ----
 * The interpreter parses launches and CUDA API calls; what they do is up to
 * these callbacks. Without them, both raise RuntimeError "... need the GPU
 * worker". Pointer arguments arrive as interp_arg_t with their buffer
 * resolved, so the hook never decodes interpreter pointers itself. */
enum {
    INTERP_PLACE_NONE,    /* NULL, freed, or not a pointer */
    INTERP_PLACE_HOST,    /* the interpreter's host memory (malloc, variables) */
    INTERP_PLACE_DEVICE,  /* cudaMalloc */
    INTERP_PLACE_PINNED,  /* cudaMallocHost / cudaHostAlloc: host memory the GPU can map */
    INTERP_PLACE_MANAGED, /* cudaMallocManaged: device memory with a host copy */
    INTERP_PLACE_UNKNOWN, /* an address no allocation of the session made (a kernel's malloc, an integer) */
};

typedef struct interp_arg {
    const char *type;   /* C spelling of the argument's type, e.g. "float *" */
    int is_pointer, is_float;
    uint64_t bits;      /* integer value, or the interpreter's pointer word */
    double d;           /* floating value */
    /* pointers: where they point, resolved and checked to be live */
    int place;          /* INTERP_PLACE_* (NONE for NULL or invalid) */
    void *host;         /* host address (host, pinned; managed: its host copy), NULL otherwise */
    uint64_t device;    /* the address the GPU uses (device, pinned, managed, unknown), 0 otherwise */
    uint64_t base;      /* device, pinned, managed: the buffer's start */
    uint64_t avail;     /* bytes from the pointer to the end of its buffer */
    const void *aggr;   /* structs passed by value: their bytes */
    int has_pointers;   /* ... and whether they hold pointers */
    char host_field[64]; /* ... the first field holding a host pointer ("elements"), or "" */
    size_t size;        /* sizeof the argument's type */
    const char *expr;   /* the argument as written in the cell ("d_x"), for messages */
} interp_arg_t;

#define INTERP_ENAME_MAX 64

typedef struct interp_hooks {
    void *ctx;
    /* k<<<grid, block, shmem, stream>>>(args); kernel may name a template
     * instance ("scale<float>"). Returns 0, or -1 with msg and ename (the
     * error's name, INTERP_ENAME_MAX bytes; left "" for RuntimeError). */
    int (*launch)(void *ctx, const char *kernel, const unsigned grid[3], const unsigned block[3],
                  uint64_t shmem, uint64_t stream, const interp_arg_t *args, int nargs,
                  char *ename, char *msg, size_t msglen);
    /* a call to a cuda... or cu... function the interpreter does not define itself.
     * discarded: the call is an expression statement, its value thrown away.
     * A bare name the host does not know (a __constant__ variable, a kernel)
     * arrives as a `const char *` string of that name.
     * Returns 0 with *ret set (the C return value), or -1 with msg and ename. */
    int (*call)(void *ctx, const char *name, const interp_arg_t *args, int nargs, int discarded,
                int64_t *ret, char *ename, char *msg, size_t msglen);
    /* Managed memory at addr is about to be used by the host while the GPU
     * may have written it: copy its n bytes to host (after the GPU's work is
     * done). 0, or -1 with msg. */
    int (*managed_fetch)(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t msglen);
    /* n bytes of device memory at addr into dst, for showing a value. 0 or -1. */
    int (*read_device)(void *ctx, uint64_t addr, void *dst, uint64_t n);
} interp_hooks_t;

void interp_set_hooks(interp_t *in, const interp_hooks_t *hooks);

/* #include "name" in host code reads fn(ctx, name) when it is not NULL (a
 * %%header's host view); other headers are built in or the device side's. */
typedef const char *(*interp_header_fn)(void *ctx, const char *name);
void interp_set_header_source(interp_t *in, interp_header_fn fn, void *ctx);

/* The kernels of device cells, for host code that names one as a value
 * (cudaFuncGetAttributes(&a, k), (void *)k, a table of kernels) or launches
 * a template kernel without its template arguments: fn(ctx, name, decl,
 * cap) is asked of a name the interpreter does not know. 0: no kernel;
 * 1: a kernel, decl its signature "square(float *p, int n)"; 2: a template
 * kernel, decl its template header and signature "template <typename T>
 * scale(T *p, T a, int n)". A kernel's value in host code is its name (a
 * string), which the CUDA calls that take a kernel read. */
typedef int (*interp_kernel_fn)(void *ctx, const char *name, char *decl, size_t cap);
void interp_set_kernel_source(interp_t *in, interp_kernel_fn fn, void *ctx);

/* A kernel argument that host code passes by address, as cudaLaunchKernel's
 * void **args does: the size bytes at pointer word ptr, read as a pointer
 * (resolved as a launch's pointer argument), a float/double, or an integer
 * (bits; more than 8 bytes, e.g. a dim3: aggr too). -1 when ptr does not
 * point to that many live host bytes. */
int interp_arg_at(interp_t *in, uint64_t ptr, size_t size, int is_pointer, int is_float, interp_arg_t *out);

/* Buffers the CUDA layer makes: place DEVICE, PINNED or MANAGED, named by
 * their real address addr (which is also the pointer word host code holds);
 * host: the bytes the host reads and writes (pinned: addr itself; managed:
 * its host copy; device: NULL). Returns the pointer word (addr), 0 if full. */
uint64_t interp_buffer_new(interp_t *in, int place, uint64_t addr, void *host, uint64_t size, const char *what);
/* cudaFree / cudaFreeHost: -1 when p is not the start of a live buffer of that place. */
int interp_buffer_free(interp_t *in, uint64_t p, int place);
/* free() by native code of a malloc'd buffer of the interpreter's, named
 * by its host address: freed as the interpreter's free() frees it. -1 when
 * addr is not the start of a live buffer from malloc. */
int interp_free_heap_at(interp_t *in, const void *addr);
/* The interpreter of the cell running now (the one whose hooks are being called). */
interp_t *interp_current(void);
/* The host bytes behind pointer word ptr for a write of n bytes by the CUDA
 * layer (an out-argument), or NULL if they cannot be written; managed memory
 * is brought up to date and marked written first. */
void *interp_host_for_write(interp_t *in, uint64_t ptr, uint64_t n);
/* Writes a pointer word / integer through an out-argument pointer (cudaMalloc(&p, ...)). */
int interp_store_u64(interp_t *in, uint64_t ptr, uint64_t value);

/* For the CUDA layer translating pointers stored in memory it forwards:
 * the host bytes pointer word names and, in *avail, how many there are to
 * the buffer's end; NULL when word is not a live pointer to the
 * interpreter's host memory (NULL, a real address, a freed buffer). */
void *interp_host_pointer(interp_t *in, uint64_t word, uint64_t *avail);
/* From within a CUDA call's hook: calls host function fn (a function
 * pointer value of host code) with n integer or pointer arguments, as CUDA
 * calls a host function (cudaLaunchHostFunc); *ret (may be NULL) gets its
 * value. An error in it is raised in the cell, as if the cell had called
 * it. 0, or -1 with msg when fn is not a host function of n such
 * parameters. */
int interp_call_host_function(interp_t *in, uint64_t fn, const uint64_t *args, int n, int64_t *ret, char *msg,
                              size_t ml);

/* ---- Managed memory (docs/device-memory.md) ----
 * The GPU holds a managed buffer's bytes; the host works on a copy. The
 * interpreter sees every host access: the first one after the GPU may have
 * written the buffer fetches it (hooks.managed_fetch), and a buffer the
 * host used is copied back before the GPU next runs (interp_managed_flush). */
typedef int (*interp_managed_copy_fn)(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t ml);
/* Is there any live managed buffer? */
bool interp_managed_any(interp_t *in);
/* Before GPU work: push each managed buffer the host used since the last
 * flush (push copies its host copy to the device). 0, or push's error. */
int interp_managed_flush(interp_t *in, interp_managed_copy_fn push, void *ctx, char *msg, size_t ml);
/* After GPU work that may have written managed memory: the buffer at addr
 * (0: every managed buffer) is stale on the host until fetched again. */
void interp_managed_device_wrote(interp_t *in, uint64_t addr);
/* The host copy of the managed buffer at addr is current (just fetched, or
 * restored onto the GPU from it). */
void interp_managed_synced(interp_t *in, uint64_t addr);

/* ---- Host code compiled once, run many times (%timeit; prepared.c) ----
 * The statement (and an optional setup, run once before it) is compiled
 * into one block; setup's variables are visible to the statement, and
 * nothing either declares outlives the run. */
typedef struct interp_prepared interp_prepared_t;

/* Code as the user wrote it: text from its start (e.g. a magic's whole
 * line) so that errors show the user's line and column; the code proper
 * begins at byte start; what precedes it is shown, never run. */
typedef struct interp_text {
    const char *text;
    size_t start;
    const char *name; /* labels errors: "In [3]" */
} interp_text_t;

/* Called before each batch of runs of the statement, and once after the
 * last: returns how many runs come next, 0 to end, or -1 to stop with an
 * error (ename, INTERP_ENAME_MAX bytes, "" for RuntimeError; msg). An
 * interrupt is checked before each call. */
typedef long (*interp_batch_fn)(void *ctx, char *ename, char *msg, size_t msglen);

/* NULL with *err filled (SyntaxError, TypeError) when it does not compile.
 * A statement without a final ';' gets one. setup may be NULL. */
interp_prepared_t *interp_prepare(interp_t *in, const interp_text_t *setup, const interp_text_t *stmt,
                                  cell_error_t *err);
/* Runs setup, then batches of the statement as batch says. 0 when it ran
 * to its end or exit() stopped it (batch then knows it was not told to
 * end), -1 with *err filled (the statement's error, batch's, or
 * KeyboardInterrupt). Output goes to io. */
int interp_run_prepared(interp_t *in, interp_prepared_t *p, const cell_io_t *io, interp_batch_fn batch, void *ctx,
                        cell_error_t *err);
/* Before interp_free/interp_reset of its interpreter. */
void interp_prepared_free(interp_prepared_t *p);

/* True when name is a type of the session (a typedef: size_t, dim3, ...),
 * which a variable of that name would replace (%timeit -o checks). */
bool interp_is_type_name(interp_t *in, const char *name);

/* An arithmetic C expression evaluated in the session ("3 * N * sizeof(double)"),
 * as a double: 0, or -1 with *err filled (errors point into expr). */
int interp_eval_number(interp_t *in, const interp_text_t *expr, double *out, cell_error_t *err);

/* ---- The session's data for magics (%plot, %save, %heap, %free; session_data.c) ---- */
enum { INTERP_ELEM_INT, INTERP_ELEM_UINT, INTERP_ELEM_FLOAT, INTERP_ELEM_BOOL };

/* An array of numbers that an expression of the session points at. */
typedef struct interp_array {
    char ctype[64];      /* the element type as C writes it: "float", "unsigned char" */
    int elem;            /* INTERP_ELEM_* */
    size_t esize;        /* bytes per element: 1, 2, 4 or 8 */
    int place;           /* INTERP_PLACE_HOST, DEVICE, PINNED or MANAGED */
    void *host;          /* its host bytes (managed: brought up to date), NULL on the device */
    uint64_t device;     /* the address on the device (device place), 0 otherwise */
    uint64_t count;      /* elements: an array's own, else up to the end of its buffer */
} interp_array_t;

/* Evaluates expr (an array, or a pointer to numbers) and says where its
 * elements are. 0, or -1 with *err filled (TypeError: not numbers). */
int interp_array(interp_t *in, const interp_text_t *expr, interp_array_t *out, cell_error_t *err);

/* %heap: the session's live allocated buffers (malloc/new, cudaMalloc,
 * cudaMallocHost, cudaMallocManaged), one row each: {word (pointer word),
 * size, place (INTERP_PLACE_*), alloc ("malloc", "new", "new[]", "cuda"),
 * cell, line, names (variables pointing at its start), inside (variables
 * pointing further in, "p (+16 B)")}; new reference. */
json_t *interp_heap(interp_t *in);
/* ---- The native tier of host code (docs/native-tier.md) ----
 * mode "off" (always interpreted), "auto" (loops that run long are
 * compiled) or "always" (every loop the tier compiles, on its first run);
 * opt_level 0 or 2 for the C compiler (-1 keeps it). 0, or -1 for a bad
 * mode name. */
int interp_set_host_tier(interp_t *in, const char *mode, int opt_level);
const char *interp_host_tier(interp_t *in, int *opt_level);
/* How often compiled host code was entered, and how many loops were
 * compiled (cache hits included), since the last call; resets both. */
void interp_host_tier_take(interp_t *in, long *entries, long *compiled, double *compile_s);

/* What a native C++ cell (compiled by nvcc, run in the GPU worker) may see
 * of session variable name (introspect.c): its type as C++ spells it, the
 * variable's own storage (host memory shared with the worker at the same
 * address), and for a pointer the address it holds as a process sees it
 * (a host buffer's bytes, or a device address). False for what C++ cannot
 * take as it is: a C++ object of the interpreter's own (std::vector,
 * std::string, a class with member functions), a struct that holds
 * pointers, a pointer to a buffer that is gone. */
typedef struct {
    char type[256];
    void *storage;
    bool pointer;   /* a pointer to the interpreter's host memory: raw is the address it holds (storage holds
                     * the interpreter's own word for it); a pointer holding a real address (device
                     * memory, NULL) is bound as the variable itself, false here */
    uint64_t raw;
    bool handle;    /* a pointer to a struct this session never completes (a CUDA handle: cudaStream_t,
                     * cudaEvent_t): raw is the word the interpreter holds, for the caller to translate */
} interp_native_var_t;
bool interp_native_var(interp_t *in, const char *name, interp_native_var_t *out);

/* ---- Inspection and completion (introspect.c) ----
 * interp_describe: what a session name is, {name, kind, signature} and for
 * variables type, size, cell, line and, for pointers, buffer {size, place,
 * offset, address, cell, line} or {state}; NULL when unknown.
 * interp_completions: names starting with prefix, [{text, type, signature}].
 * interp_members: the fields starting with prefix of the struct that chain
 * names (a session variable with .f, ->f, [i] steps; arrow: the completion
 * follows "->"), [{text, type, signature}], or NULL. New references. */
json_t *interp_describe(interp_t *in, const char *name);
json_t *interp_completions(interp_t *in, const char *prefix);
json_t *interp_members(interp_t *in, const char *chain, bool arrow, const char *prefix);

#endif
