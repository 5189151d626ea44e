/* %lsmagic and %help: what magics there are, and what one does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/base/strbuf.h"

#include "runtime/device/device_session.h"
static int lsmagic_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    int n;
    const magic_t *t = magic_table(&n);
    strbuf_t b = {0};
    sb_puts(&b, "Line magics:\n");
    for (int i = 0; i < n; i++)
        if (t[i].line) sb_printf(&b, "  %%%-12s %s\n", t[i].name, t[i].summary);
    sb_puts(&b, "Cell magics:\n");
    for (int i = 0; i < n; i++)
        if (t[i].cell) sb_printf(&b, "  %%%%%-11s %s\n", t[i].name, t[i].summary);
    sb_puts(&b, "\n%help NAME or %NAME? explains one.\n");
    char *s = sb_take(&b);
    io_printf(mc->io, "stdout", "%s", s);
    free(s);
    return 0;
}

static int help_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    int rc = 0;
    if (argc == 0) {
        io_printf(mc->io, "stdout",
                  "icuda runs CUDA C cell by cell: __global__ kernels are compiled with NVRTC; "
                  "later cells see earlier cells' types, macros and __device__ functions.\n"
                  "%s\n\n", DEVICE_LIBRARIES_NOTE);
        rc = lsmagic_line(mc, "", err);
    } else {
        const char *name = argv[0];
        while (*name == '%') name++;
        const magic_t *m = magic_find(name);
        if (!m) {
            rc = magic_usage_error(&magic_help, err, "no magic named %s; %%lsmagic lists them", argv[0]);
        } else {
            char *h = magic_help_text(m);
            io_page(mc->io, h, NULL);
            free(h);
        }
    }
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_lsmagic = {"lsmagic", "%lsmagic", "list the magics", NULL, lsmagic_line, NULL};
const magic_t magic_help = {"help", "%help [NAME]", "explain a magic (also %NAME?)", NULL, help_line, NULL};
