/* What an nvcc build tells the notebook (program_report.h): nvcc missing,
 * a failed compile at the cell's lines, the warnings of one that built. */
#include "program_report.h"

#include <stdio.h>
#include <stdlib.h>

#define RED "\x1b[1;31m"
#define OFF "\x1b[0m"

int program_error_no_nvcc(const char *who, const char *where, cell_error_t *err) {
    json_t *tb = json_array();
    json_array_append_new(tb, json_sprintf(RED "RuntimeError" OFF ": %s needs nvcc, the CUDA compiler, and it was not found",
                                           who));
    json_array_append_new(tb, json_sprintf("looked in: %s", *where ? where : "(nowhere)"));
    json_array_append_new(tb, json_string("install the CUDA toolkit (it has nvcc), or point CUDA_HOME at one, or "
                                          "set ICUDA_NVCC to nvcc's path"));
    cell_error_set(err, "RuntimeError", tb,
                     "%s needs nvcc, the CUDA compiler, and it was not found (looked in: %s); install the "
                     "CUDA toolkit, or set CUDA_HOME or ICUDA_NVCC", who, *where ? where : "nowhere");
    return -1;
}

int program_error_compile(const program_binary_t *b, const program_log_src_t *src, const char *what, cell_error_t *err) {
    json_t *body = json_array();
    char *first = NULL;
    int n = program_log_format(b->log ? b->log : "", src, body, &first);
    json_t *tb = json_array();
    if (n > 0)
        json_array_append_new(tb, json_sprintf(RED "CompileError" OFF ": %d error%s in %s %s (nvcc)", n,
                                               n == 1 ? "" : "s", what, src->cell));
    else
        json_array_append_new(tb, json_sprintf(RED "CompileError" OFF ": %s %s did not build (nvcc "
                                               "exited with status %d)", what, src->cell, b->nvcc_status));
    json_array_extend(tb, body);
    json_decref(body);
    if (first) cell_error_set(err, "CompileError", tb, "%s", first);
    else cell_error_set(err, "CompileError", tb, "nvcc exited with status %d", b->nvcc_status);
    free(first);
    return -1;
}

void program_show_warnings(const cell_io_t *io, const program_binary_t *b, const program_log_src_t *src) {
    if (!b->log || !*b->log) return;
    json_t *lines = json_array();
    char *first = NULL;
    program_log_format(b->log, src, lines, &first);
    free(first);
    size_t i;
    json_t *v;
    json_array_foreach(lines, i, v) io_printf(io, "stderr", "%s\n", json_string_value(v));
    json_decref(lines);
}

void program_show_linked(const cell_io_t *io, const program_binary_t *b, const char *who) {
    if (b->linked)
        io_printf(io, "stderr", "icuda: linking %s (%s includes %s)\n", b->linked, who,
                  b->linked_for ? b->linked_for : "its headers");
}
