/* program_defines_main: which cells are whole programs. */
#include "check.h"
#include "runtime/program/program_detect.h"

int main(void) {
    /* definitions */
    CHECK(program_defines_main("int main() { return 0; }"));
    CHECK(program_defines_main("#include <cstdio>\nint main(void)\n{\n  puts(\"x\");\n}\n"));
    CHECK(program_defines_main("int main(int argc, char **argv) {}"));
    CHECK(program_defines_main("int\nmain (int argc, char *argv[])\n{ }"));
    CHECK(program_defines_main("void main() {}"));
    CHECK(program_defines_main("auto main() -> int { return 0; }"));
    CHECK(program_defines_main("int main() try { return 0; } catch (...) { return 1; }"));
    CHECK(program_defines_main("__global__ void k(float *x) { x[0] = 1; }\n"
                               "struct S { int main; };\n"
                               "template <typename T> void f(T t) { main_loop(); }\n"
                               "int main() { k<<<1, 1>>>(nullptr); }"));
    CHECK(program_defines_main("static int main(int argc, const char **argv) { (void)argc; }"));
    CHECK(program_defines_main("#define N 4\n#if 0\n#endif\nint main() {\n#ifdef X\n#endif\n}"));
    /* not definitions */
    CHECK(!program_defines_main(""));
    CHECK(!program_defines_main(NULL));
    CHECK(!program_defines_main("int main();"));
    CHECK(!program_defines_main("int main(void);\nint x = 3;"));
    CHECK(!program_defines_main("main();"));
    CHECK(!program_defines_main("int r = main();"));
    CHECK(!program_defines_main("void f() { int main() {} }"));      /* not file scope */
    CHECK(!program_defines_main("namespace app { int main() { return 0; } }"));
    CHECK(!program_defines_main("struct App { int main() { return 0; } };"));
    CHECK(!program_defines_main("int App::main() { return 0; }"));
    CHECK(!program_defines_main("// int main() { }\nint x;"));
    CHECK(!program_defines_main("/* int main() {\n} */ int x;"));
    CHECK(!program_defines_main("const char *s = \"int main() { }\";"));
    CHECK(!program_defines_main("const char *s = R\"(int main() { })\";"));
    CHECK(!program_defines_main("const char *s = R\"xy(\" )\" int main() { })xy\";"));
    CHECK(!program_defines_main("char c = '\"'; const char *s = \"int main() {}\";"));
    CHECK(!program_defines_main("#define M int main() { }\nint x;"));
    CHECK(!program_defines_main("#define M \\\n int main() { }\nint x;"));
    CHECK(!program_defines_main("for (int i = 0; i < n; i++) { main_loop(i); }"));
    CHECK(!program_defines_main("int mainly() { return 1; }"));
    CHECK(!program_defines_main("int main"));
    CHECK(!program_defines_main("int main("));
    CHECK(!program_defines_main("%%program\nint x;"));
    /* a literal before main does not hide it */
    CHECK(program_defines_main("const char *s = \"}\"; char c = '{';\nint main() { return 0; }"));
    CHECK(program_defines_main("auto s = u8\"{\"; auto r = R\"(})\";\nint main() { return 0; }"));
    return check_report();
}
