/* %include_path: the folders %%program and native C++ cells #include from (-I DIR). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "magics.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

#include "runtime/device/device_session.h"
static void show(magic_ctx_t *mc) {
    const device_session_t *ds = mc->dev;
    strbuf_t b = {0};
    if (!ds->ninclude_dirs) {
        sb_puts(&b, "no include folders of yours: %include_path DIR adds one\n");
    } else {
        sb_puts(&b, "include path of %%program and native C++ cells (-I, in this order):\n");
        for (int i = 0; i < ds->ninclude_dirs; i++) sb_printf(&b, "  %s\n", ds->include_dirs[i]);
    }
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) sb_printf(&b, "then the kernel's working directory: %s\n", cwd);
    char *s = sb_take(&b);
    io_printf(mc->io, "stdout", "%s", s);
    free(s);
}

static void clear(device_session_t *ds) {
    for (int i = 0; i < ds->ninclude_dirs; i++) free(ds->include_dirs[i]);
    free(ds->include_dirs);
    ds->include_dirs = NULL;
    ds->ninclude_dirs = 0;
}

/* arg as an absolute folder (malloc'd): "~/" is $HOME's, a relative path
 * the working directory's. NULL with the usage error set. */
static char *folder_of(const char *arg, cell_error_t *err) {
    const char *home = getenv("HOME");
    char *path = (arg[0] == '~' && (arg[1] == '/' || !arg[1]) && home && *home) ? xasprintf("%s%s", home, arg + 1)
                                                                                 : xstrdup(arg);
    char real[PATH_MAX];
    struct stat st;
    char *r = NULL;
    if (!realpath(path, real))
        magic_usage_error(&magic_include_path, err, "%s: %s", arg,
                          errno == ENOENT ? "no such folder" : strerror(errno));
    else if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
        magic_usage_error(&magic_include_path, err, "%s is not a folder", arg);
    else
        r = xstrdup(real);
    free(path);
    return r;
}

static int include_path_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    device_session_t *ds = mc->dev;
    char **argv;
    int argc = magic_split_args(args, &argv);
    int rc = 0;
    if (argc == 1 && !strcmp(argv[0], "--clear")) {
        clear(ds);
    } else {
        /* every folder checked before any is added: a bad one changes nothing */
        char **dirs = xcalloc((size_t)argc + 1, sizeof *dirs);
        for (int i = 0; i < argc && rc == 0; i++) {
            if (argv[i][0] == '-')
                rc = magic_usage_error(&magic_include_path, err, "%s: not an option of %%include_path (--clear "
                                       "empties the list; a folder whose name starts with '-' is ./%s)", argv[i],
                                       argv[i]);
            else if (!(dirs[i] = folder_of(argv[i], err)))
                rc = -1;
        }
        for (int i = 0; i < argc && rc == 0; i++) {
            bool listed = false;
            for (int k = 0; k < ds->ninclude_dirs && !listed; k++) listed = !strcmp(ds->include_dirs[k], dirs[i]);
            if (listed) continue;
            ds->include_dirs = xreallocarray(ds->include_dirs, (size_t)ds->ninclude_dirs + 1, sizeof *ds->include_dirs);
            ds->include_dirs[ds->ninclude_dirs++] = dirs[i];
            dirs[i] = NULL;
        }
        for (int i = 0; i < argc; i++) free(dirs[i]);
        free(dirs);
    }
    magic_free_args(argv, argc);
    if (rc == 0) show(mc);
    return rc;
}

const magic_t magic_include_path = {
    "include_path", "%include_path [DIR ... | --clear]",
    "add folders to the include path of %%program and native C++ cells",
    "Each DIR is given to nvcc as -I DIR when a %%program cell (or a cell that\n"
    "defines main()) or a native C++ cell is compiled, in the order added, after\n"
    "the cell's own options; the kernel's working directory (the notebook's\n"
    "folder) comes last, always. A relative DIR is taken from the kernel's\n"
    "working directory now, and kept as an absolute path; a folder that does not\n"
    "exist is an error, and then nothing is added. Without arguments, lists the\n"
    "folders; --clear empties the list. %reset keeps it.\n"
    "\n"
    "For the CUDA samples' helpers (#include \"helper_cuda.h\", helper_string.h,\n"
    "helper_functions.h, helper_timer.h), add the samples' Common folder:\n"
    "\n"
    "    %include_path ~/cuda-samples/Common\n"
    "\n"
    "A program is compiled again when a header it includes from these folders\n"
    "changes. Device cells (NVRTC) do not use this path: %%header puts a header\n"
    "where every kind of cell finds it. See docs/program.md.",
    include_path_line, NULL};
