/* The cell splitter: where each top-level item goes, and what it defines. */
#include <stdlib.h>

#include "check.h"
#include "runtime/cell/split.h"

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

/* The kind of each item of code, in order; prints the ones that differ. */
static void expect_kinds(const char *code, const item_kind_t *want, size_t n) {
    char buf[512];
    split(code);
    CHECK(sp.n == n);
    if (sp.n != n) fprintf(stderr, "  %zu items, not %zu, in:\n%s\n", sp.n, n, code);
    for (size_t i = 0; i < n && i < sp.n; i++) {
        if (sp.items[i].kind != want[i]) fprintf(stderr, "  item %zu (%s): kind %d, not %d\n", i, text(code, (int)i, buf),
                                                 sp.items[i].kind, want[i]);
        CHECK(sp.items[i].kind == want[i]);
    }
}

/* Where each #include goes: host headers never reach NVRTC, C headers go to
 * both (NVRTC gets icuda's stand-ins), device libraries to NVRTC, the rest
 * to the engine's check. */
static void routes(void) {
    static const struct { const char *name; include_route_t route; } table[] = {
        {"iostream", INC_HOST}, {"algorithm", INC_HOST}, {"vector", INC_HOST}, {"chrono", INC_HOST},
        {"iomanip", INC_HOST}, {"numeric", INC_HOST}, {"memory", INC_HOST}, {"string", INC_HOST},
        {"random", INC_HOST}, {"utility", INC_HOST}, {"functional", INC_HOST}, {"cctype", INC_HOST},
        {"cuda_runtime.h", INC_HOST}, {"cuda_runtime_api.h", INC_HOST}, {"cuda.h", INC_HOST},
        {"cuda_profiler_api.h", INC_HOST}, {"curand.h", INC_HOST}, {"cublas_v2.h", INC_HOST}, {"cufft.h", INC_HOST},
        {"nvtx3/nvToolsExt.h", INC_HOST}, {"device_launch_parameters.h", INC_HOST},
        {"cstdio", INC_BOTH}, {"stdio.h", INC_BOTH}, {"cstdlib", INC_BOTH}, {"stdlib.h", INC_BOTH},
        {"cmath", INC_BOTH}, {"math.h", INC_BOTH}, {"cstring", INC_BOTH}, {"string.h", INC_BOTH},
        {"cstdint", INC_BOTH}, {"stdint.h", INC_BOTH}, {"cassert", INC_BOTH}, {"assert.h", INC_BOTH},
        {"climits", INC_BOTH}, {"limits.h", INC_BOTH}, {"cfloat", INC_BOTH}, {"float.h", INC_BOTH},
        {"ctime", INC_BOTH}, {"time.h", INC_BOTH}, {"stddef.h", INC_BOTH}, {"sys/time.h", INC_BOTH},
        {"strings.h", INC_BOTH}, {"iterator", INC_HOST},
        {"cooperative_groups.h", INC_DEVICE}, {"cooperative_groups/reduce.h", INC_DEVICE},
        {"curand_kernel.h", INC_DEVICE}, {"cuda/std/cstdint", INC_DEVICE}, {"cub/cub.cuh", INC_DEVICE},
        {"mma.h", INC_DEVICE}, {"cuda_fp16.h", INC_DEVICE}, {"cuda_bf16.h", INC_DEVICE},
        {"thrust/device_vector.h", INC_HOST_LIBRARY}, {"cusparse.h", INC_HOST_LIBRARY},
        {"boost/foo.hpp", INC_UNKNOWN}, {"fstream", INC_UNKNOWN}, {"helper.cuh", INC_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (include_route(table[i].name) != table[i].route)
            fprintf(stderr, "  %s: route %d, not %d\n", table[i].name, include_route(table[i].name), table[i].route);
        CHECK(include_route(table[i].name) == table[i].route);
    }

    const char *c = "#include <iostream>\n#include \"cuda_runtime.h\"\n#include <cmath>\n"
                    "#include <cooperative_groups.h>\n#include <boost/foo.hpp>\n#include \"ops.cuh\"  // mine\n"
                    "#ifdef _WIN32\n#include <windows.h>\n#endif\n#include MY_HEADER\n";
    item_kind_t want[] = {ITEM_HOST, ITEM_HOST, ITEM_BOTH, ITEM_DEVICE, ITEM_DEVICE, ITEM_DEVICE,
                          ITEM_DEVICE, ITEM_DEVICE, ITEM_DEVICE, ITEM_DEVICE};
    expect_kinds(c, want, sizeof want / sizeof want[0]);
    if (sp.n == 10) {
        CHECK(sp.items[0].is_include && sp.items[0].include_angle);
        CHECK_STR(sp.items[0].name, "iostream");
        CHECK(!sp.items[1].include_angle);
        CHECK_STR(sp.items[1].name, "cuda_runtime.h");
        CHECK(sp.items[4].include_route == INC_UNKNOWN && !sp.items[4].in_conditional);
        CHECK_STR(sp.items[4].name, "boost/foo.hpp");
        CHECK_STR(sp.items[5].name, "ops.cuh");
        CHECK_STR(sp.items[5].key, "include:\"ops.cuh\"  // mine");
        CHECK(!sp.items[6].in_conditional && sp.items[7].in_conditional && !sp.items[8].in_conditional);
        CHECK_STR(sp.items[7].name, "windows.h");
        CHECK(sp.items[9].is_include && sp.items[9].name[0] == 0);
    }
}

/* The C++ that CUDA host code uses at the top of a cell. */
static void cxx_items(void) {
    char buf[512];
    const char *c =
        "using namespace std;\n"                                                    /* 0 both */
        "namespace cg = cooperative_groups;\n"                                      /* 1 both */
        "using real = float;\n"                                                     /* 2 both */
        "using std::cout;\n"                                                        /* 3 host */
        "template <typename T> void host_helper(T &p, size_t n) { p = n; }\n"        /* 4 host */
        "template <typename T> __global__ void scale(T *x, T a) { x[0] *= a; }\n"   /* 5 device */
        "template <typename T> __device__ T twice(T a) { return 2 * a; }\n"         /* 6 device */
        "template <typename T> __host__ __device__ T sq(T a) { return a * a; }\n"   /* 7 both */
        "template <typename T> struct Vec { T x, y; };\n"                           /* 8 device */
        "struct Timer { cudaEvent_t start, stop; void begin() { cudaEventRecord(start); }\n"
        "  float ms() const { float t; cudaEventElapsedTime(&t, start, stop); return t; } };\n" /* 9 host */
        "struct Pt { float x, y; __device__ float norm() const { return x * x + y * y; } };\n" /* 10 device */
        "struct Cb { int n; void (*fn)(int); __align__(8) float w; };\n"            /* 11 both */
        "union U { int i; float f; } u;\n"                                          /* 12 both, type to device */
        "typedef struct { int a; } pair_t;\n"                                       /* 13 both */
        "struct Q { int a; } q1, *q2;\n"                                            /* 14 both */
        "auto x = 3.0;\n"                                                           /* 15 host */
        "int *p = new int[10];\n"                                                   /* 16 host */
        "delete[] p;\n"                                                             /* 17 host */
        "std::cout << \"x = \" << x << std::endl;\n"                                 /* 18 host */
        "constexpr int BINS = 256;\n"                                               /* 19 host */
        "class Matrix { public: int w, h; Matrix(int w, int h) : w(w), h(h) {} };\n" /* 20 host */
        "enum Color { RED, GREEN } paint = RED;\n"                                  /* 21 both */
        "k<< <1, 1>> >();\n";                                                       /* 22 host */
    item_kind_t want[] = {ITEM_BOTH, ITEM_BOTH, ITEM_BOTH,   ITEM_HOST, ITEM_HOST, ITEM_DEVICE, ITEM_DEVICE, ITEM_BOTH,
                          ITEM_DEVICE, ITEM_HOST, ITEM_DEVICE, ITEM_BOTH, ITEM_BOTH, ITEM_BOTH, ITEM_BOTH, ITEM_HOST,
                          ITEM_HOST, ITEM_HOST, ITEM_HOST, ITEM_HOST, ITEM_HOST, ITEM_BOTH, ITEM_HOST};
    expect_kinds(c, want, sizeof want / sizeof want[0]);
    if (sp.n != sizeof want / sizeof want[0]) return;
    CHECK_STR(sp.items[0].key, "using:std");
    CHECK_STR(sp.items[1].key, "nsalias:cg");
    CHECK_STR(sp.items[2].key, "type:real");
    CHECK(sp.items[4].is_function && sp.items[4].is_template && !sp.items[4].is_kernel);
    CHECK_STR(sp.items[4].name, "host_helper");
    CHECK(sp.items[5].is_kernel && sp.items[5].is_template);
    CHECK_STR(sp.items[9].key, "type:struct Timer");
    CHECK_STR(text(c, 9, buf), "struct Timer { cudaEvent_t start, stop; void begin() { cudaEventRecord(start); }\n"
                               "  float ms() const { float t; cudaEventElapsedTime(&t, start, stop); return t; } };");
    /* the device side of a type with declarators is the type alone */
    CHECK(sp.items[11].device_end == 0 && sp.items[13].device_end == 0);
    CHECK(sp.items[12].device_end > sp.items[12].start);
    CHECK(sp.items[12].device_end && !strncmp(c + sp.items[12].device_end - 1, "} u;", 4));
    CHECK_STR(sp.items[12].key, "type:union U");
    CHECK(sp.items[14].device_end && !strncmp(c + sp.items[14].device_end - 1, "} q1", 4));
    CHECK(sp.items[21].device_end && !strncmp(c + sp.items[21].device_end - 1, "} paint", 7));
    CHECK_STR(text(c, 22, buf), "k<< <1, 1>> >();");

    /* CUDA's words after a declaration's '=' are a lambda's: the variable
     * is main's, on the host; before it they are the declaration's */
    {
        const char *c2 = "auto sq = [] __device__ (int x) { return x * x; };\n"
                         "__device__ int dv = 3;\n"
                         "__device__ __managed__ float m[2] = {1, 2};\n"
                         "bool same = a == b;\n"
                         "int lim = n <= 3 ? 1 : 2;\n"
                         "__device__ float g(float x) { return x == 1 ? 0 : x; }\n";
        item_kind_t want[] = {ITEM_HOST, ITEM_DEVICE, ITEM_DEVICE, ITEM_HOST, ITEM_HOST, ITEM_DEVICE};
        expect_kinds(c2, want, sizeof want / sizeof *want);
    }

    /* operator overloading is a member function too */
    split("struct V { float x; bool operator==(const V &o) const { return x == o.x; } };\n"
          "struct W { float w; __host__ __device__ W operator+(W o) const { return W{w + o.w}; } };\n");
    CHECK(sp.n == 2 && sp.items[0].kind == ITEM_HOST && sp.items[1].kind == ITEM_BOTH);

    /* attributes after a type's body are the type's; enum class is a type */
    split("struct __align__(8) A { float x, y; } __attribute__((aligned(16)));\n"
          "struct B { int b; } __attribute__((packed)) bee;\n"
          "enum class Color { RED, GREEN };\n");
    CHECK(sp.n == 3);
    if (sp.n == 3) {
        CHECK(sp.items[0].kind == ITEM_BOTH && sp.items[0].device_end == 0);
        CHECK_STR(sp.items[0].key, "type:struct A");
        CHECK(sp.items[1].kind == ITEM_BOTH && sp.items[1].device_end > 0);
        CHECK(sp.items[2].kind == ITEM_BOTH);
        CHECK_STR(sp.items[2].key, "type:enum Color");
    }

    /* host classes with constructors and destructors, class templates with
     * member functions and function templates' prototypes are the host's;
     * a plain class template and a variable template stay the device's */
    {
        const char *h =
            "struct Timer { Timer() { t = 0; } ~Timer() { printf(\"%f\\n\", t); } double t; };\n" /* 0 host */
            "struct Clock { Clock(); ~Clock(); double t; };\n"                                       /* 1 host */
            "template <typename T> void fill(T *p, int n);\n"                                        /* 2 host */
            "template <class T>\ninline T *alloc_n(int n);\n"                                         /* 3 host */
            "template <typename T> struct Buf { T *p; Buf(int n) { p = new T[n]; } ~Buf() { delete[] p; } };\n" /* 4 host */
            "template <typename T> struct Vec2 { T x, y; };\n"                                       /* 5 device */
            "template <typename T> T pi = T(3.14);\n"                                                /* 6 device */
            "template <typename T> __global__ void k(T *p);\n"                                       /* 7 device */
            "template <typename T> __host__ __device__ T sq(T a);\n"                                 /* 8 both */
            "template <typename T> void fill(T *p, int n) { for (int i = 0; i < n; i++) p[i] = T(i); }\n"; /* 9 host */
        item_kind_t want_h[] = {ITEM_HOST, ITEM_HOST, ITEM_HOST, ITEM_HOST, ITEM_HOST,
                                ITEM_DEVICE, ITEM_DEVICE, ITEM_DEVICE, ITEM_BOTH, ITEM_HOST};
        expect_kinds(h, want_h, sizeof want_h / sizeof want_h[0]);
        if (sp.n == sizeof want_h / sizeof want_h[0]) {
            CHECK_STR(sp.items[2].name, "fill");
            CHECK_STR(sp.items[4].key, "type:struct Buf");
        }
    }

    /* a namespace qualified deeper, a using-directive with spaces */
    split("using  namespace  cuda :: std ;");
    CHECK(sp.n == 1 && sp.items[0].kind == ITEM_BOTH);
    if (sp.n) CHECK_STR(sp.items[0].key, "using:cuda::std");
}

/* Names longer than an item's key holds still make distinct keys: two
 * kernels whose names differ only in their last character are two
 * definitions, not one replacing the other. */
static void long_names(void) {
    char code[2048], a[301];
    memset(a, 'k', 300);
    a[300] = 0;
    snprintf(code, sizeof code, "__global__ void %s1(int *p) { }\n__global__ void %s2(int *p) { }\n"
                                "struct %s1 { int x; };\nstruct %s2 { int y; };\n", a, a, a, a);
    split(code);
    CHECK(sp.n == 4);
    if (sp.n == 4) {
        CHECK(strcmp(sp.items[0].key, sp.items[1].key) != 0);
        CHECK(strcmp(sp.items[2].key, sp.items[3].key) != 0);
        CHECK(!strncmp(sp.items[0].key, "fn:kkkk", 7) && !strncmp(sp.items[2].key, "type:struct kkkk", 16));
    }
    split(code); /* the same names, the same keys */
    if (sp.n == 4) {
        cell_split_t again = {0};
        split_cell(code, &again);
        for (size_t i = 0; i < 4 && i < again.n; i++) CHECK_STR(sp.items[i].key, again.items[i].key);
        split_free(&again);
    }
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
    item_kind_t want[] = {ITEM_BOTH,   ITEM_BOTH, ITEM_BOTH, ITEM_BOTH, ITEM_DEVICE, ITEM_DEVICE, ITEM_HOST,
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

    /* a try block and its handlers are one statement */
    const char *c3 = "try { f(); }\ncatch (const std::exception &e) { g(e); }\ncatch (...) { h(); }\nint z = 1;\n";
    split(c3);
    CHECK(sp.n == 2);
    if (sp.n == 2)
        CHECK_STR(text(c3, 0, buf), "try { f(); }\ncatch (const std::exception &e) { g(e); }\ncatch (...) { h(); }");

    /* a function returning a struct is a function, not a type */
    split("struct P make(int x) { struct P p = {x, x}; return p; }\nstruct P q;");
    CHECK(sp.n == 2 && sp.items[0].kind == ITEM_HOST && sp.items[0].is_function && sp.items[1].kind == ITEM_HOST);

    /* __launch_bounds__ does not hide the kernel's name */
    split("__global__ void __launch_bounds__(256, 2) k2(float *x) { x[0] = 1; }");
    CHECK(sp.n == 1 && sp.items[0].is_kernel);
    if (sp.n) CHECK_STR(sp.items[0].name, "k2");

    /* an aligned anonymous type goes on past its '}' to the name and ';' */
    const char *al = "typedef struct __align__(8) { unsigned a, b; } pair8;\n"
                     "struct alignas(16) { float v[4]; } q4;\nint after = 1;\n";
    split(al);
    CHECK(sp.n == 3);
    if (sp.n == 3) {
        CHECK_STR(text(al, 0, buf), "typedef struct __align__(8) { unsigned a, b; } pair8;");
        CHECK_STR(text(al, 1, buf), "struct alignas(16) { float v[4]; } q4;");
    }
    /* ... while a function still ends at its '}' */
    split("struct P make2(int x) __attribute__((unused));\nstruct P make3(int x) { struct P p = {x, x}; return p; }\nint z;");
    CHECK(sp.n == 3);

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
    routes();
    cxx_items();
    long_names();
    split_free(&sp);
    return check_report();
}

bool keep_host(const cell_item_t *it) { return it->kind == ITEM_HOST; }
