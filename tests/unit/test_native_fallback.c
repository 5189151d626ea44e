/* A cell the interpreter refuses for a name it does not know runs as
 * native C++ when it includes a device library itself, or a native cell
 * included a header the name may come from (runtime/engine/native_route.c
 * engine_native_fallback). */
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

/* Whether the cell code, refused with ename: evalue, falls back. */
static bool cell_falls_back(const native_session_t *ns, const char *code, const char *ename, const char *evalue,
                            char *why, size_t cap) {
    cell_split_t sp;
    split_cell(code, &sp);
    cell_error_t err = {0};
    cell_error_set(&err, ename, NULL, "%s", evalue);
    bool r = engine_native_fallback(ns, &sp, &err, why, cap);
    cell_error_clear(&err);
    split_free(&sp);
    return r;
}

static bool falls_back(const native_session_t *ns, const char *ename, const char *evalue, char *why, size_t cap) {
    return cell_falls_back(ns, "f();\n", ename, evalue, why, cap);
}

int main(void) {
    native_session_t ns;
    native_session_init(&ns);
    char why[300] = "";
    /* no native cell yet: an unknown name is the interpreter's error */
    CHECK(!falls_back(&ns, "TypeError", "'findCudaDevice' is undeclared", why, sizeof why));
    /* the cell includes a device library: the name may be its host side */
    const char *alloc = "#include <cstdio>\n#include <cub/util_allocator.cuh>\ncub::CachingDeviceAllocator a(true);\n";
    CHECK(cell_falls_back(&ns, alloc, "TypeError", "'CachingDeviceAllocator' is undeclared", why, sizeof why));
    CHECK_STR(why, "it uses CachingDeviceAllocator, which host cells do not know and <cub/util_allocator.cuh>, which "
                   "it includes, may declare");
    CHECK(!cell_falls_back(&ns, alloc, "SyntaxError", "expected ';'", why, sizeof why));
    /* a host header the interpreter has declares nothing it lacks */
    CHECK(!cell_falls_back(&ns, "#include <vector>\nfoo(1);\n", "TypeError", "'foo' is undeclared", why, sizeof why));
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
