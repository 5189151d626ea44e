/* %%header name.cuh: a cell kept as an in-memory header for #include. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/device/session_headers.h"

static int header_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    if (argc != 1) {
        magic_free_args(argv, argc);
        return magic_usage_error(&magic_header, err, "%%%%header takes one file name, e.g. %%%%header kernels.cuh");
    }
    const char *name = argv[0];
    bool replaced;
    session_header_save(mc->dev, name, body, &replaced);
    if (!replaced)
        io_printf(mc->io, "stdout", "header %s saved (%zu bytes): #include \"%s\" in later cells\n", name, strlen(body), name);
    else
        io_printf(mc->io, "stdout", "header %s replaced (%zu bytes)\n", name, strlen(body));
    magic_free_args(argv, argc);
    return 0;
}

const magic_t magic_header = {
    "header", "%%header NAME.cuh", "save the cell as a header for #include \"NAME.cuh\"",
    "The cell's text is kept in memory, so #include \"NAME.cuh\" in a later cell\n"
    "finds it, on both sides: device code reads its types, macros, kernels and\n"
    "__device__ functions; host code its types, macros and host functions\n"
    "(each side skips what belongs to the other, as in a cell). %%program cells\n"
    "get it whole. Running the cell again replaces the header.",
    NULL, header_cell};
