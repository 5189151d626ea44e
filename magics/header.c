/* %%header name.cuh: a cell kept as an in-memory header for #include. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"

static int header_cell(magic_ctx_t *mc, const char *args, const char *body, engine_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    if (argc != 1) {
        magic_free_args(argv, argc);
        return magic_usage_error(&magic_header, err, "%%%%header takes one file name, e.g. %%%%header kernels.cuh");
    }
    engine_t *e = mc->e;
    const char *name = argv[0];
    int i = 0;
    for (; i < e->nheaders; i++)
        if (!strcmp(e->headers[i].name, name)) break;
    if (i == e->nheaders) {
        if (e->nheaders == e->cap_headers) {
            e->cap_headers = e->cap_headers ? 2 * e->cap_headers : 8;
            e->headers = realloc(e->headers, e->cap_headers * sizeof *e->headers);
            if (!e->headers) abort();
        }
        e->headers[e->nheaders++] = (header_file_t){strdup(name), strdup(body)};
        io_printf(mc->io, "stdout", "header %s saved (%zu bytes): #include \"%s\" in later cells\n", name, strlen(body), name);
    } else {
        free(e->headers[i].text);
        e->headers[i].text = strdup(body);
        io_printf(mc->io, "stdout", "header %s replaced (%zu bytes)\n", name, strlen(body));
    }
    magic_free_args(argv, argc);
    return 0;
}

const magic_t magic_header = {
    "header", "%%header NAME.cuh", "save the cell as a header for #include \"NAME.cuh\"",
    "The cell's text is kept in memory and given to every later device compile\n"
    "(and to %%program cells), so #include \"NAME.cuh\" finds it. Running the cell\n"
    "again replaces the header.",
    NULL, header_cell};
