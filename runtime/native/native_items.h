/* What each top-level item of a native C++ cell is, for the way it lives
 * on in later cells: repeated whole (types, templates, functions,
 * constants), defined once and reached by reference (global variables),
 * launched through the cell that defined it (kernels), or run once in the
 * cell's order (statements). It reads tokens, it does not parse C++: a
 * declaration is told from an expression by its shape (a type, then a
 * declarator name, then '=', '(', '{', '[', ',' or ';'), as the compiler
 * would take it at block scope. */
#ifndef ICUDA_NATIVE_ITEMS_H
#define ICUDA_NATIVE_ITEMS_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/cell/split.h"

typedef enum {
    NI_PP,         /* a # line: repeated in later cells */
    NI_REPEAT,     /* types, templates, functions, namespaces, using, constants, lambdas: repeated whole */
    NI_KERNEL,     /* a __global__ function (not a template): compiled in its own cell only */
    NI_DEVICE_VAR, /* a __device__, __constant__ or __managed__ variable */
    NI_VARIABLE,   /* a global variable: defined in its cell, bound by reference in later ones */
    NI_SHARED,     /* a variable of numbers the interpreter holds (native_cell.c decides): both kinds of
                    * cell see it; in the unit its initialisers are assignments, run in order */
    NI_STATEMENT,  /* run once, in the cell's order */
} native_kind_t;

typedef struct {
    native_kind_t kind;
    size_t start, end;       /* byte range in the cell */
    int first_line;          /* 1-based */
    char key[128];           /* what a later item of the same key replaces ("" = nothing) */
    char **names;            /* NI_VARIABLE, NI_DEVICE_VAR: the names declared; NI_KERNEL: its name */
    int nnames;
    char *decl;              /* NI_KERNEL: its declaration ("__global__ void k(float *a);") */
    char *params;            /* NI_KERNEL: its parameter list with every parameter named
                              * ("float *a, int icuda_p1"); NULL when it cannot be told */
    char *args;              /* NI_KERNEL: the addresses of those parameters ("(void *)&a, (void *)&icuda_p1") */
    int nparams;             /* NI_KERNEL with params: how many parameters it has */
    char **defaults;         /* NI_KERNEL with params: the default arguments of its last parameters, in
                              * order, NULL-terminated; NULL when none has one */
    char *share_decl;        /* NI_VARIABLE of numbers: its declarations without initialisers ("int n;\n") */
    char *share_init;        /* ... and its initialisations as assignments ("n = 1 << 20;\n"), or NULL */
    size_t capture, capture_end; /* NI_REPEAT of a lambda: its [captures] in the cell (0, 0: none) */
    size_t lambda_init, lambda_init_end; /* NI_VARIABLE of one declarator of a written type (not auto) whose '='
                                          * initialiser holds an extended lambda (__device__): where its '=' and its
                                          * initialiser's end are in the cell (0, 0: none) */
} native_item_t;

typedef struct {
    native_item_t *v;
    size_t n, cap;
} native_items_t;

/* The items of a cell (split by split_cell), magics left out. */
void native_items(const char *code, const cell_split_t *sp, native_items_t *out);
/* One item of them (its magics are none); native_item_free frees what it holds. */
void native_item_of(const char *code, const cell_item_t *ci, native_item_t *it);
void native_item_free(native_item_t *it);
/* The cell's code as its unit has it: the captures of a lambda a variable
 * holds at namespace scope blanked ("[&]" to "[ ]"), where it could capture
 * nothing and every name it uses is a global; offsets and lines unchanged.
 * NULL when nothing changes. */
char *native_items_unit_code(const char *code, const native_items_t *items);
void native_items_free(native_items_t *it);
/* The identifiers the lambdas of a statement name (captures and bodies,
 * not after '.', '->' or '::'), each once, NULL-terminated; NULL when it
 * holds no lambda. Free with native_strv_free. */
char **native_items_lambda_names(const char *code, const native_item_t *it);

/* Whether one of the items declares name (a variable, a kernel) or has the
 * key key (NULL: not asked). */
bool native_items_define(const native_items_t *it, const char *name);
bool native_items_have_key(const native_items_t *it, const char *key);

/* The identifiers a text uses (outside comments, strings and after '.' or
 * '->'), each once, in a malloc'd NULL-terminated array: what a cell may
 * reach of the session. */
char **native_identifiers(const char *text);
void native_strv_free(char **v);

#endif
