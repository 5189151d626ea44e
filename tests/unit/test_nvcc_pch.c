/* A unit's module id named by its headers (nvcc_pch.h): the #include lines
 * before the marker, in order, each once; #line, macros and the code after
 * the marker do not change it; no marker, no such name. Small host texts
 * are compiled as they are, and a build without a headers' folder makes
 * nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "runtime/program/nvcc_pch.h"

#define M NVCC_PCH_MARKER "\n"

static void hash_of(const char *unit, char hex[17]) {
    memset(hex, 0, 17);
    CHECK(nvcc_pch_module_hash(unit, hex));
    CHECK(strlen(hex) == 16);
}

static void test_module_hash(void) {
    char a[17], b[17], c[17], d[17], e[17];
    hash_of("#line 1 \"<icuda>\"\n#include <cstdio>\n#line 2 \"In [1]\"\n#include <thrust/sort.h>\n" M "int x;\n", a);
    hash_of("#include <cstdio>\n#define CELL 2\n#include <thrust/sort.h>\n#line 2 \"this cell\"\n"
            "  #  include <thrust/sort.h>\n" M "int y = 2;\n",
            b);
    CHECK_STR(a, b);
    hash_of("#include <cstdio>\n#include <thrust/reduce.h>\n" M, c);
    CHECK(strcmp(a, c) != 0);
    hash_of("#include <thrust/sort.h>\n#include <cstdio>\n" M, d); /* another order, another text */
    CHECK(strcmp(a, d) != 0);
    hash_of("#include <cstdio>\n#include <thrust/sort.h>\n" M "#include <thrust/reduce.h>\n", e);
    CHECK_STR(a, e); /* after the marker: the unit's own */
    char untouched[17] = "keep";
    CHECK(!nvcc_pch_module_hash("#include <cstdio>\nint x;\n", untouched));
    CHECK_STR(untouched, "keep");
    CHECK(!nvcc_pch_module_hash("#include <cstdio>\nint x; " NVCC_PCH_MARKER "\n", untouched));
}

static void test_input_word(void) {
    char *cc[] = {"gcc", "-c", "-x", "c++", "./cell.cudafe1.cpp", "-o", "./cell.o", NULL};
    char *link[] = {"gcc", "-c", "link.stub", "-o", "x.o", NULL};
    CHECK(nvcc_pch_input_word(cc) == 4);
    CHECK(nvcc_pch_input_word(link) == -1);
}

static void test_small_text_compiled_as_it_is(void) {
    char dir[] = "/tmp/icuda-pch-test-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[4200], root[4200];
    snprintf(path, sizeof path, "%s/cell.cudafe1.cpp", dir);
    snprintf(root, sizeof root, "%s/pch", dir);
    FILE *f = fopen(path, "w");
    fputs("int a;\n" M "int b;\n", f);
    fclose(f);
    char *cc[] = {"/usr/bin/gcc", "-c", "-x", "c++", "./cell.cudafe1.cpp", "-o", "./cell.o", NULL};
    char *input = (char *)1;
    CHECK(nvcc_pch_prepare(cc, dir, root, true, &input) == NVCC_PCH_NONE);
    CHECK(input == NULL);
    CHECK(access(root, F_OK) != 0); /* nothing made */
    CHECK(nvcc_pch_prepare(cc, dir, NULL, true, &input) == NVCC_PCH_NONE);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    test_module_hash();
    test_input_word();
    test_small_text_compiled_as_it_is();
    return check_report();
}
