/* program_log_format: nvcc's diagnostics (as nvcc 13 writes them) at the
 * cell's lines, with the cell's own text and a caret under the right
 * character. */
#include <stdlib.h>

#include "check.h"
#include "runtime/program/program_log.h"

static json_t *lines;
static char *first;
static int nerr;

static void format(const char *log, const program_log_src_t *s) {
    json_decref(lines);
    free(first);
    lines = json_array();
    nerr = program_log_format(log, s, lines, &first);
}

static const char *at(size_t i) { return i < json_array_size(lines) ? json_string_value(json_array_get(lines, i)) : "(none)"; }

static bool has(const char *want) {
    for (size_t i = 0; i < json_array_size(lines); i++)
        if (strstr(at(i), want)) return true;
    return false;
}

int main(void) {
    const char *source = "#include <cstdio>\n"
                         "#include \"my.cuh\"\n"
                         "\t__global__ void k(float *x) { int z; x[0] = 1; }\n"
                         "int main() {\n"
                         "\tint y = q;\n"
                         "}\n";
    header_file_t hdr = {.name = "my.cuh", .text = "#pragma once\nint hdr() { return 1 }\n"};
    program_log_src_t s = {.unit = "cell.cu", .build_dir = "/tmp/icuda-build", .source = source, .cell = "In [7]",
                           .line_offset = 1, .headers = &hdr, .nheaders = 1};

    /* cudafe++'s errors: in the cell (tab shown as a space in its echo) and in a header */
    format("my.cuh(2): error: expected a \";\"\n"
           "  int hdr() { return 1 }\n"
           "                       ^\n"
           "\n"
           "cell.cu(5): error: identifier \"q\" is undefined\n"
           "   int y = q;\n"
           "           ^\n"
           "\n"
           "2 errors detected in the compilation of \"cell.cu\".\n", &s);
    CHECK(nerr == 2);
    CHECK_STR(at(0), "my.cuh, line 2: error: expected a \";\"");
    CHECK_STR(at(1), "     2 | int hdr() { return 1 }");
    CHECK_STR(at(2), "       |                      ^");
    CHECK_STR(at(3), "In [7], line 6: error: identifier \"q\" is undefined");
    CHECK_STR(at(4), "     6 |     int y = q;");
    CHECK_STR(at(5), "       |             ^");
    CHECK(json_array_size(lines) == 6);
    CHECK_STR(first, "expected a \";\" (my.cuh, line 2)");

    /* a warning whose echo has the macros expanded: the caret goes under
     * the same token of the cell's own line; paths under the build folder */
    format("/tmp/icuda-build/cell.cu(3): warning #177-D: variable \"z\" was declared but never referenced\n"
           "   __attribute__((global)) void k(float *x) { int z; x[0] = 1; }\n"
           "                                                  ^\n"
           "\n"
           "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n", &s);
    CHECK(nerr == 0 && first == NULL);
    CHECK_STR(at(0), "In [7], line 4: warning #177-D: variable \"z\" was declared but never referenced");
    CHECK_STR(at(1), "     4 |     __global__ void k(float *x) { int z; x[0] = 1; }");
    CHECK_STR(at(2), "       |                                       ^");
    CHECK(has("Remark: The warnings can be suppressed"));

    /* the host compiler's form, its own echo left out */
    format("cell.cu:2:10: fatal error: nope.cuh: No such file or directory\n"
           "    2 | #include \"nope.cuh\"\n"
           "      |          ^~~~~~~~~~\n"
           "compilation terminated.\n", &s);
    CHECK(nerr == 1);
    CHECK_STR(at(0), "In [7], line 3: error: nope.cuh: No such file or directory");
    CHECK_STR(at(1), "     3 | #include \"my.cuh\"");
    CHECK_STR(at(2), "       |          ^");
    CHECK_STR(at(3), "compilation terminated.");
    CHECK(json_array_size(lines) == 4);
    CHECK_STR(first, "nope.cuh: No such file or directory (In [7], line 3)");

    /* gcc's column with a tab before it */
    format("cell.cu:5:13: warning: unused variable 'y' [-Wunused-variable]\n", &s);
    CHECK_STR(at(2), "       |         ^");
    /* "In file included from": the cell's line */
    format("In file included from cell.cu:2:\nmy.cuh:2:22: error: expected ';' before '}' token\n", &s);
    CHECK_STR(at(0), "In file included from In [7], line 3:");
    CHECK_STR(at(1), "my.cuh, line 2: error: expected ';' before '}' token");
    CHECK_STR(at(3), "       |                      ^");

    /* the linker: no line to show, its words are the error */
    format("/usr/bin/ld: /tmp/tmpxft_00005b5d_00000000-11_cell.o: in function `main':\n"
           "tmpxft_00005b5d_00000000-6_cell.cudafe1.cpp:(.text+0xb0): undefined reference to `f()'\n"
           "collect2: error: ld returned 1 exit status\n", &s);
    CHECK(nerr == 0);
    CHECK(first && strstr(first, "undefined reference to `f()'"));
    CHECK(json_array_size(lines) == 3);

    /* nvcc itself */
    format("nvcc fatal   : Unknown option '-bogus'\n", &s);
    CHECK_STR(first, "nvcc fatal   : Unknown option '-bogus'");

    /* a line past the end, a file icuda does not know: no crash, no line shown */
    format("cell.cu(99): error: something\n/usr/include/x.h(3): error: other\n", &s);
    CHECK(nerr == 2);
    CHECK_STR(at(0), "In [7], line 100: error: something");
    CHECK_STR(at(1), "/usr/include/x.h, line 3: error: other");
    format("", &s);
    CHECK(nerr == 0 && first == NULL && json_array_size(lines) == 0);

    json_decref(lines);
    free(first);
    return check_report();
}
