/* The cell splitter: where each top-level item goes, and what it defines. */
#include <stdlib.h>

#include "check.h"
#include "runtime/split.h"

static cell_split_t sp;

static void split(const char *code) {
    split_free(&sp);
    split_cell(code, &sp);
}

static const char *text(const char *code, int i, char *buf) {
    size_t n = sp.items[i].end - sp.items[i].start;
    memcpy(buf, code + sp.items[i].start, n);
    buf[n] = 0;
    return buf;
}

int main(void) {
    char buf[512];
    const char *c1 =
        "#include <stdio.h>\n"
        "#define N 1024\n"
        "struct P { float x, y; };\n"
        "typedef struct { int a; } pair_t;\n"
        "__device__ float sq(float x) { return x * x; }\n"
        "__global__ void vecadd(double *z, const double *x,\n"
        "                       const double *y, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) z[i] = x[i] + y[i];\n"
        "}\n"
        "int count = 0;\n"
        "for (int i = 0; i < 3; i++) { count += i; }\n"
        "if (count) { count++; } else { count--; }\n"
        "do { count++; } while (count < 10);\n"
        "int sum(int a, int b) { return a + b; }\n"
        "__host__ __device__ int twice(int a) { return 2 * a; }\n"
        "template <typename T> __global__ void scale(T *x, T a) { x[threadIdx.x] *= a; }\n"
        "__constant__ float coef[4] = {1, 2, 3, 4};\n"
        "%timeit vecadd<<<1, 1>>>(z, x, y, 1)\n"
        "int arr[3] = {1, 2, 3};\n"
        "count";
    split(c1);
    CHECK(sp.n == 17);
    item_kind_t want[] = {ITEM_DEVICE, ITEM_BOTH, ITEM_BOTH, ITEM_BOTH, ITEM_DEVICE, ITEM_DEVICE, ITEM_HOST,
                          ITEM_HOST,   ITEM_HOST, ITEM_HOST, ITEM_HOST, ITEM_BOTH,   ITEM_DEVICE, ITEM_DEVICE,
                          ITEM_MAGIC,  ITEM_HOST, ITEM_HOST};
    for (int i = 0; i < (int)(sizeof want / sizeof want[0]) && i < (int)sp.n; i++) {
        if (sp.items[i].kind != want[i]) fprintf(stderr, "item %d: %s\n", i, text(c1, i, buf));
        CHECK(sp.items[i].kind == want[i]);
    }
    if (sp.n >= 17) {
        CHECK_STR(sp.items[1].key, "macro:N");
        CHECK_STR(sp.items[2].key, "type:struct P");
        CHECK_STR(sp.items[3].key, "type:pair_t");
        CHECK_STR(sp.items[4].key, "fn:sq");
        CHECK(sp.items[5].is_kernel && !sp.items[5].is_template);
        CHECK_STR(sp.items[5].name, "vecadd");
        CHECK(sp.items[5].first_line == 6 && sp.items[5].last_line == 10);
        CHECK_STR(text(c1, 8, buf), "if (count) { count++; } else { count--; }");
        CHECK_STR(text(c1, 9, buf), "do { count++; } while (count < 10);");
        CHECK(sp.items[10].is_function);
        CHECK(sp.items[12].is_kernel && sp.items[12].is_template);
        CHECK_STR(sp.items[12].name, "scale");
        CHECK_STR(sp.items[13].key, "devvar:coef");
        CHECK_STR(text(c1, 15, buf), "int arr[3] = {1, 2, 3};");
        CHECK_STR(text(c1, 16, buf), "count");
    }

    /* comments, strings with braces, statements without braces */
    const char *c2 = "// a { comment\nconst char *s = \"}{;\"; /* ; */ int y = 2;\nif (y) y = 1; else y = 3;\n";
    split(c2);
    CHECK(sp.n == 3);
    if (sp.n == 3) CHECK_STR(text(c2, 2, buf), "if (y) y = 1; else y = 3;");

    /* a function returning a struct is a function, not a type */
    split("struct P make(int x) { struct P p = {x, x}; return p; }\nstruct P q;");
    CHECK(sp.n == 2 && sp.items[0].kind == ITEM_HOST && sp.items[0].is_function && sp.items[1].kind == ITEM_HOST);

    /* __launch_bounds__ does not hide the kernel's name */
    split("__global__ void __launch_bounds__(256, 2) k2(float *x) { x[0] = 1; }");
    CHECK(sp.n == 1 && sp.items[0].is_kernel);
    if (sp.n) CHECK_STR(sp.items[0].name, "k2");

    /* unbalanced: the rest is one item, no crash */
    split("__global__ void k(int *p) { p[0] = 1;\n");
    CHECK(sp.n == 1);

    /* a % inside a statement is no magic; a %% first line is a cell magic */
    split("int r = 7\n  % 3;");
    CHECK(sp.n == 1 && sp.items[0].kind == ITEM_HOST);
    CHECK(split_is_cell_magic("\n  %%header x.cuh\n#define A 1\n"));
    CHECK(!split_is_cell_magic("%ptx k\n"));

    /* the host view keeps lines and columns */
    split("__global__ void k(int *p) { p[0] = 1; }\nint x = 1;\n");
    bool keep_host(const cell_item_t *it);
    char *v = split_view("__global__ void k(int *p) { p[0] = 1; }\nint x = 1;\n", &sp, 0, sp.n, keep_host);
    CHECK(strlen(v) == strlen("__global__ void k(int *p) { p[0] = 1; }\nint x = 1;\n"));
    CHECK(strstr(v, "\nint x = 1;\n") != NULL && strstr(v, "__global__") == NULL);
    free(v);
    split_free(&sp);
    return check_report();
}

bool keep_host(const cell_item_t *it) { return it->kind == ITEM_HOST; }
