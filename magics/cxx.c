/* %%cxx: a cell as native C++ (compiled by nvcc, run in the GPU worker;
 * runtime/native/), and %rerun: native cells run again, for after the
 * worker that held their objects was replaced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"
#include "runtime/native/native_cell.h"

/* The cell with its magic line (and what precedes the body) blanked, so
 * that the body keeps the cell's line numbers. */
static char *body_in_place(const magic_ctx_t *mc, const char *body) {
    const char *c = mc->cell_code;
    if (!c || body < c || body > c + strlen(c)) return xstrdup(body);
    char *s = xstrdup(c);
    for (size_t i = 0; i < (size_t)(body - c); i++)
        if (s[i] != '\n') s[i] = ' ';
    return s;
}

static int cxx_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    const char *p = body;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    int rc = 0;
    if (!*p) {
        rc = magic_usage_error(&magic_cxx, err, "the cell is empty: write C++ below %%%%cxx");
    } else {
        char *code = body_in_place(mc, body);
        native_ctx_t x = {mc->native, mc->dev, mc->cuda};
        rc = native_cell_run(&x, code, mc->cell_name, argv, argc, mc->io, err);
        free(code);
    }
    magic_free_args(argv, argc);
    return rc;
}

/* "In [3]", "3" or "[3]": the label of a cell. */
static void label_of(const char *word, char *out, size_t cap) {
    const char *d = word;
    while (*d && (*d < '0' || *d > '9')) d++;
    snprintf(out, cap, "In [%d]", atoi(d));
}

static int rerun_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    int rc = 0;
    if (argc == 0) rc = magic_usage_error(&magic_rerun, err, "name the cells to run again: %%rerun In [2] In [3]");
    /* "In [3]" splits into "In" and "[3]": the numbers are what counts */
    for (int i = 0; i < argc && rc == 0; i++) {
        if (!strcmp(argv[i], "In")) continue;
        char cell[32];
        label_of(argv[i], cell, sizeof cell);
        const char *code = mc->native ? native_session_source(mc->native, cell) : NULL;
        if (!code) {
            rc = magic_usage_error(&magic_rerun, err, "%s is not a native C++ cell of this session", cell);
            break;
        }
        char *copy = xstrdup(code); /* running it replaces the kept source */
        io_printf(mc->io, "stderr", "icuda: running %s again\n", cell);
        native_ctx_t x = {mc->native, mc->dev, mc->cuda};
        rc = native_cell_run(&x, copy, cell, NULL, 0, mc->io, err);
        free(copy);
    }
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_cxx = {
    "cxx", "%%cxx [NVCC OPTION ...]", "run the cell as native C++: compiled by nvcc, run in the GPU worker",
    "The cell is C++ as in a .cu file without main(): includes, types, templates,\n"
    "functions, kernels, global objects, and statements, which run in order. It\n"
    "is compiled with the toolkit's nvcc into a shared object (cached: an\n"
    "unchanged cell is not compiled again) and run inside the GPU worker, so\n"
    "Thrust, CUB, lambdas (__device__ ones too), exceptions, classes with\n"
    "inheritance and any header work. A cell the interpreter cannot take runs\n"
    "this way by itself, saying so in one line; %%cxx asks for it.\n"
    "\n"
    "What the cell defines lives on. Its variables of numbers (int n, float *d_x,\n"
    "double total) are the session's: host cells, %who and later native cells\n"
    "see them. Its types, templates, functions and constants are seen again in\n"
    "each later native cell, and its other global objects (a\n"
    "thrust::device_vector<float> d(n)), __device__/__constant__ variables and\n"
    "kernels exist once, in the worker, and later native cells use them by name.\n"
    "A native cell sees the session's variables, functions, macros and device\n"
    "cells' kernels by name; host cells do not launch native kernels.\n"
    "\n"
    "Output (printf, std::cout, device printf) comes as the cell runs. A C++\n"
    "exception that leaves the cell's code is its error; so is a non-zero\n"
    "return. A crash, exit() or abort() ends the GPU worker, not the kernel: the\n"
    "worker is replaced, device buffers restored, and the message names the\n"
    "native cells whose objects were lost (%rerun runs them again). Interrupt\n"
    "stops the cell (the worker is replaced). Options on the magic line go to\n"
    "nvcc (-O3, -std=c++20, -lcublas, -DN=1024, -I DIR).",
    NULL, cxx_cell};

const magic_t magic_rerun = {
    "rerun", "%rerun In [N] ...", "run native C++ cells again (after the GPU worker was replaced)",
    "Runs the named native C++ cells again, in the order given, as they last\n"
    "ran: for when the GPU worker was replaced (a crash, an interrupt) and the\n"
    "objects those cells made were lost with it. The recovery message names\n"
    "them.",
    rerun_line, NULL};
