/* %nvrtc: show or set the options device cells compile with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/base/strbuf.h"

#include "runtime/device/device_session.h"
static void show(magic_ctx_t *mc) {
    char **opts;
    int n = device_options(mc->dev, &opts);
    strbuf_t b = {0};
    sb_puts(&b, "NVRTC options:");
    for (int i = 0; i < n; i++) sb_printf(&b, " %s", opts[i]);
    sb_printf(&b, "\narchitecture: %s (%s)\n", device_arch(mc->dev), mc->dev->arch_note);
    if (!mc->dev->nuser_options) sb_puts(&b, "no options of yours; %nvrtc -O3 -lineinfo ... sets them, %nvrtc --reset clears them\n");
    char *s = sb_take(&b);
    io_printf(mc->io, "stdout", "%s", s);
    free(s);
    options_free(opts, n);
}

static int nvrtc_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    if (argc == 0) {
        magic_free_args(argv, argc);
        show(mc);
        return 0;
    }
    if (argc == 1 && !strcmp(argv[0], "--reset")) {
        magic_free_args(argv, argc);
        options_free(mc->dev->user_options, mc->dev->nuser_options);
        mc->dev->user_options = NULL;
        mc->dev->nuser_options = 0;
        show(mc);
        return 0;
    }
    for (int i = 0; i < argc; i++)
        if (argv[i][0] != '-') {
            int rc = magic_usage_error(&magic_nvrtc, err, "'%s' is not an option (options start with '-')", argv[i]);
            magic_free_args(argv, argc);
            return rc;
        }
    /* Try them on an empty program first: a bad option is refused now, and
     * the options in effect stay as they were. */
    char *msg = NULL;
    if (device_try_options(mc->dev, argv, argc, &msg) != 0) {
        json_t *tb = json_array();
        json_array_append_new(tb, json_string("\x1b[1;31mUsageError\x1b[0m: NVRTC refused these options; the options in effect are unchanged"));
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = 0;
        json_array_append_new(tb, json_string(msg));
        cell_error_set(err, "UsageError", tb, "NVRTC refused the options: %s", msg);
        free(msg);
        magic_free_args(argv, argc);
        return -1;
    }
    options_free(mc->dev->user_options, mc->dev->nuser_options);
    mc->dev->user_options = argv;
    mc->dev->nuser_options = argc;
    show(mc);
    return 0;
}

const magic_t magic_nvrtc = {
    "nvrtc", "%nvrtc [--reset | OPTION ...]", "show or set the NVRTC options of device cells",
    "With no argument, shows the options in effect and the target architecture.\n"
    "With options (e.g. -O3 -lineinfo -std=c++20 -arch=sm_90 -DN=1024 --use_fast_math),\n"
    "they replace your earlier ones for the cells that follow; --reset drops them.\n"
    "Options are checked by compiling an empty program first.",
    nvrtc_line, NULL};
