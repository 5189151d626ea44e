/* A cell the interpreter refuses for a name it does not know runs as
 * native C++ when a native cell included a header the name may come from
 * (runtime/engine/native_route.c engine_native_fallback). */
#include <stdlib.h>

#include "check.h"
#include "runtime/engine/native_route.h"

static void add_cell(native_session_t *ns, const char *code, const char *cell) {
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t it;
    native_items(code, &sp, &it);
    native_session_add_items(ns, code, &it, cell);
    native_items_free(&it);
    split_free(&sp);
}

static bool falls_back(const native_session_t *ns, const char *ename, const char *evalue, char *why, size_t cap) {
    cell_error_t err = {0};
    cell_error_set(&err, ename, NULL, "%s", evalue);
    bool r = engine_native_fallback(ns, &err, why, cap);
    cell_error_clear(&err);
    return r;
}

int main(void) {
    native_session_t ns;
    native_session_init(&ns);
    char why[300] = "";
    /* no native cell yet: an unknown name is the interpreter's error */
    CHECK(!falls_back(&ns, "TypeError", "'findCudaDevice' is undeclared", why, sizeof why));
    /* a native cell of functions and types only: nothing it included */
    add_cell(&ns, "struct Base { virtual ~Base() {} };\nint twice(int x) { return 2 * x; }", "In [1]");
    CHECK(!falls_back(&ns, "TypeError", "'findCudaDevice' is undeclared", why, sizeof why));
    add_cell(&ns, "#include <cstdio>\n#include  \"helper_cuda.h\"\n__global__ void k(int *p) { *p = 1; }", "In [2]");
    CHECK(falls_back(&ns, "TypeError", "'findCudaDevice' is undeclared", why, sizeof why));
    CHECK_STR(why, "it uses findCudaDevice, which host cells do not know and a header a native cell included may "
                   "declare (\"helper_cuda.h\", In [2])");
    CHECK(falls_back(&ns, "TypeError", "'std::map' is undeclared", why, sizeof why));
    CHECK(strstr(why, "it uses std::map,") != NULL);
    /* any other error stays the interpreter's */
    CHECK(!falls_back(&ns, "TypeError", "cannot convert 'int *' to 'float'", why, sizeof why));
    CHECK(!falls_back(&ns, "RuntimeError", "'x' is undeclared", why, sizeof why));
    CHECK(!falls_back(&ns, "SyntaxError", "expected ';'", why, sizeof why));
    CHECK(!falls_back(&ns, "TypeError", "' is undeclared", why, sizeof why));
    native_session_forget(&ns);
    CHECK(!falls_back(&ns, "TypeError", "'findCudaDevice' is undeclared", why, sizeof why));
    native_session_free(&ns);
    return check_report();
}
