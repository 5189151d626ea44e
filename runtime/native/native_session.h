/* Native C++ cells: C++ the interpreter does not take (Thrust, lambdas,
 * classes with inheritance, headers it has no interpreter for) compiled by
 * nvcc into a shared object and run inside the GPU worker, beside the
 * interpreter.
 *
 * What a native cell defines lives on for later native cells in two ways:
 * its types, templates, functions, constants and #lines are repeated
 * whole in every later cell's translation unit (the "native prelude"),
 * while its global variables, __device__/__constant__ variables and kernels
 * are made once, in the worker, and later cells reach them through the
 * worker's registry: a variable by reference (typed as its own cell's
 * compiler spelled the type), a kernel as a pointer to the defining cell's
 * registered host stub, so that there is one copy of each object and of
 * each kernel's device state. Objects live as long as the worker: after it
 * is replaced, the cells that made them must run again, and this session
 * knows which. */
#ifndef ICUDA_NATIVE_SESSION_H
#define ICUDA_NATIVE_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "native_items.h"
#include "runtime/base/cell_io.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"

/* One item kept for later cells. */
typedef struct {
    native_kind_t kind;
    char *text;        /* NI_PP, NI_REPEAT: the item as written; NI_KERNEL: its declaration */
    char key[128];
    char cell[32];     /* "In [3]" */
    int first_line;
    char **names;      /* NI_VARIABLE, NI_DEVICE_VAR, NI_KERNEL (its name) */
    int nnames;
    char *params, *args; /* NI_KERNEL: see native_items.h */
    int nparams;
    char **defaults;   /* NI_KERNEL: see native_items.h */
    int pp_rank;       /* NI_PP: where it goes in a later unit (native_pp_rank) */
    int branch;        /* which branch of a conditional of its cell it stands in (0: none) */
} native_entry_t;

/* An object a native cell made in the worker. */
typedef struct {
    char *name;        /* a variable's name; a kernel's registry key */
    char *type;        /* the C++ type; a kernel: the mangled name of its host stub */
    bool is_const, is_kernel;
    char cell[32];
    int worker;        /* the pid of the worker that holds it */
} native_global_t;

/* An interpreter's variable as a native cell binds it: its C++ type, and
 * the address of its storage (shared with the worker) or, for a pointer,
 * the address it holds. The unit names no address: the worker's registry
 * gets them as the cell is loaded, so that the unit, and its cached object,
 * stay the same when a variable is made anew. */
typedef struct {
    char type[256];
    uint64_t value;
    bool pointer;
} native_binding_t;

/* How a native cell reaches the rest of the session (set by the engine):
 * bind says how the interpreter's variable name is bound, false when there
 * is none it can bind; device appends what device cells defined that a
 * native cell needs to see (types, macros, __device__ functions). */
typedef struct {
    void *ctx;
    bool (*bind)(void *ctx, const char *name, native_binding_t *out);
    void (*device)(void *ctx, strbuf_t *b);
    /* share declares decl (numbers only, no initialisers) in the
     * interpreter, for a native cell's variables both kinds of cell see;
     * false when the interpreter refuses it */
    bool (*share)(void *ctx, const char *decl, const char *cell);
} native_links_t;

/* What a unit binds through the registry: name -> value, sent with the run. */
typedef struct {
    char *name;
    uint64_t value;
} native_bound_t;
typedef VEC(native_bound_t) native_bounds_t;
void native_bounds_free(native_bounds_t *b);

typedef struct {
    char cell[32];
    char *code;
} native_source_t;

typedef struct native_session {
    VEC(native_entry_t) prelude;
    VEC(native_entry_t) host;   /* interpreted cells' host functions, types and #includes, for native cells */
    VEC(native_global_t) globals;
    VEC(native_source_t) sources; /* each native cell's code, the last run of each label */
    native_links_t links;
    unsigned runs;              /* native cells run in this session */
    char dir[512];              /* where this session's objects are copied to be loaded */
} native_session_t;

void native_session_init(native_session_t *ns);
void native_session_free(native_session_t *ns);
/* %reset: every native cell forgotten. */
void native_session_forget(native_session_t *ns);

/* Where a # line of a cell goes in a unit: an #include (1) comes before
 * everything the session defines, so that no macro of the session's (N,
 * T) reaches a library's headers; a # line before an #include of its own
 * cell (a configuration macro) comes before that (0); every other one (2)
 * where it stood. */
int native_pp_rank(const char *code, const native_items_t *items, size_t i);
/* Every item's, at once (items->n of them; free() it). */
int *native_pp_ranks(const char *code, const native_items_t *items);

/* The prelude takes a cell's items (what a later item of the same key
 * replaces goes). */
void native_session_add_items(native_session_t *ns, const char *code, const native_items_t *items, const char *cell);
/* An item an interpreted cell ran (a function, a type, an #include of a
 * host header, a using-directive): native cells see it too. name: a
 * function's (a native cell takes a function only if it uses it, directly
 * or through another); key: what replaces it. */
void native_session_add_host(native_session_t *ns, const char *text, size_t len, const char *key, const char *name,
                             bool is_include, int first_line, const char *cell);

/* The worker registered name (a report line); worker: its pid. */
void native_session_add_global(native_session_t *ns, const char *name, const char *type, bool is_const,
                               bool is_kernel, const char *cell, int worker);
/* The object a variable or kernel name stands for, or NULL. */
const native_global_t *native_session_global(const native_session_t *ns, const char *name);
/* Whether name is something a native cell defined (a type, a function, a
 * variable, a kernel, a macro): a cell that uses it must run natively. */
bool native_session_defines(const native_session_t *ns, const char *name);
/* No native cell has defined anything (nothing above can answer true). */
bool native_session_empty(const native_session_t *ns);
/* The latest #include a native cell made (the native prelude's), or NULL. */
const native_entry_t *native_session_last_include(const native_session_t *ns);
/* Remembers the code a native cell ran (for %rerun); the code of cell, or NULL. */
void native_session_keep_source(native_session_t *ns, const char *cell, const char *code);
const char *native_session_source(const native_session_t *ns, const char *cell);
/* The cells whose objects lived in a worker other than live (its pid: the
 * worker was replaced), each once, in order, as "In [2], In [5]"; NULL
 * when none. malloc'd. */
char *native_session_lost_cells(const native_session_t *ns, int live);

#endif
