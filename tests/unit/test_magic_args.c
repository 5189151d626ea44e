/* The magics' argument parsing (magics/magic_args.c), with the cases the
 * fuzzer found (tests/fuzz/fuzz_magic_args.c). */
#include <stdlib.h>

#include "check.h"
#include "magics/magic_args.h"

#include "runtime/base/cell_io.h"
static const magic_t m = {"t", "%t", "", "", NULL, NULL};

static void program(void) {
    cell_error_t err = {0};
    program_opts_t o;
    /* --profile between nvcc options: each word owned once (was a double free) */
    CHECK(program_parse_opts(&m, "-O3 --profile=nsys -std=c++17 -- a b", &o, &err) == 0);
    CHECK(o.nnvcc == 2 && o.nargs == 2);
    CHECK_STR(o.nvcc[0], "-O3");
    CHECK_STR(o.nvcc[1], "-std=c++17");
    CHECK_STR(o.profile, "nsys");
    CHECK_STR(o.args[0], "a");
    for (int i = 0; i < o.argc; i++)
        for (int j = i + 1; j < o.argc; j++) CHECK(o.argv[i] != o.argv[j]);
    magic_free_args(o.argv, o.argc);
    CHECK(program_parse_opts(&m, "--profile -DX=\"a b\" 'c d'", &o, &err) == 0);
    CHECK(o.nnvcc == 2 && o.nargs == 0);
    CHECK_STR(o.nvcc[0], "-DX=a b");
    CHECK_STR(o.nvcc[1], "c d");
    CHECK_STR(o.profile, "");
    magic_free_args(o.argv, o.argc);
    CHECK(program_parse_opts(&m, "--profile=gdb -O2", &o, &err) == -1);
    CHECK_STR(err.ename, "UsageError");
    cell_error_clear(&err);
    magic_free_args(o.argv, o.argc);
    CHECK(program_parse_opts(&m, "-O2 -c", &o, &err) == -1);
    cell_error_clear(&err);
    magic_free_args(o.argv, o.argc);
}

static void others(void) {
    cell_error_t err = {0};
    char **argv;
    int argc = magic_split_args("  a \"b c\"d  ", &argv);
    CHECK(argc == 2);
    CHECK_STR(argv[1], "b cd");
    magic_free_args(argv, argc);

    timeit_opts_t t;
    CHECK(timeit_parse_opts(&m, "-n10 -r 2 -o res --bytes=\"4*N\" -q f(x, y)", &t, &err) == 0);
    CHECK(t.n == 10 && t.r == 2 && t.quiet);
    CHECK_STR(t.out, "res");
    CHECK_STR(t.bytes, "4*N");
    CHECK_STR(t.rest, "f(x, y)");
    timeit_opts_free(&t);
    CHECK(timeit_parse_opts(&m, "-n 0 x", &t, &err) == -1);
    cell_error_clear(&err);

    plot_opts_t p;
    argc = magic_split_args("--kind bar --logy xs ys", &argv);
    CHECK(plot_parse_opts(&m, argv, argc, false, &p, &err) == 0);
    CHECK(p.kind == PLOT_BAR && p.ylog && p.nargs == 2);
    magic_free_args(argv, argc);
    argc = magic_split_args("--bins", &argv);
    CHECK(plot_parse_opts(&m, argv, argc, true, &p, &err) == -1);
    cell_error_clear(&err);
    magic_free_args(argv, argc);

    char buf[64];
    const char *mode;
    int opt;
    CHECK(host_tier_args(&m, " always\t-O0", buf, sizeof buf, &mode, &opt, &err) == 0);
    CHECK_STR(mode, "always");
    CHECK(opt == 0);
    CHECK(host_tier_args(&m, "fast", buf, sizeof buf, &mode, &opt, &err) == -1);
    cell_error_clear(&err);
}

int main(void) {
    program();
    others();
    return check_report();
}
