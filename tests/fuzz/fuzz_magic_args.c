/* libFuzzer target: the magics' argument parsing (magics/magic_args.c).
 * Byte 0 picks the parser, the rest is the magic line's arguments: the word
 * splitter, %timeit's options, %plot's and %hist's, %host_tier's and
 * %%program's. Each result is checked to point into its input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "magics/magic_args.h"

#include "runtime/base/cell_io.h"
static const magic_t fm = {"fuzz", "%fuzz [options]", "the fuzzer's magic", "", NULL, NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    if (n == 0) return 0;
    char *args = malloc(n);
    memcpy(args, data + 1, n - 1);
    args[n - 1] = 0;
    size_t len = strlen(args);
    cell_error_t err = {0};
    char **argv;
    int argc = magic_split_args(args, &argv);
    for (int i = 0; i < argc; i++)
        if (!argv[i] || strlen(argv[i]) > len) abort();
    switch (data[0] % 5) {
    case 0: {
        timeit_opts_t o;
        if (timeit_parse_opts(&fm, args, &o, &err) == 0) {
            if (o.rest < args || o.rest > args + len) abort();
            if (o.n < 0 || o.n > TIMEIT_MAX_RUNS || o.r < 0 || o.r > TIMEIT_MAX_REPEATS) abort();
            timeit_opts_free(&o);
        } else if (!err.ename) abort();
        break;
    }
    case 1:
    case 2: {
        plot_opts_t o;
        bool hist = data[0] % 5 == 2;
        if (plot_parse_opts(&fm, argv, argc, hist, &o, &err) == 0) {
            if (o.nargs < 1 || o.nargs > (hist ? 1 : PLOT_MAX_SERIES + 1)) abort();
            if (o.bins < 1 || o.bins > 1000 || o.kind < PLOT_LINE || o.kind > PLOT_BAR) abort();
        } else if (!err.ename) abort();
        break;
    }
    case 3: {
        char buf[256];
        const char *mode;
        int opt;
        if (host_tier_args(&fm, args, buf, sizeof buf, &mode, &opt, &err) == 0) {
            if (mode && (mode < buf || mode >= buf + sizeof buf)) abort();
            if (opt != -1 && opt != 0 && opt != 2) abort();
        } else if (!err.ename) abort();
        break;
    }
    case 4: {
        program_opts_t o;
        if (program_parse_opts(&fm, args, &o, &err) == 0) {
            if (o.nnvcc + o.nargs > o.argc || (o.nargs && o.args != o.argv + o.argc - o.nargs)) abort();
        } else if (!err.ename) abort();
        magic_free_args(o.argv, o.argc);
        break;
    }
    }
    cell_error_clear(&err);
    magic_free_args(argv, argc);
    free(args);
    return 0;
}
