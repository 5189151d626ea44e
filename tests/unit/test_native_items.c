/* Native C++ cells: what each top-level item is for later cells, told from
 * its tokens (runtime/native/native_items.c). */
#include <stdlib.h>

#include "check.h"
#include "runtime/native/native_items.h"

/* A cell's items, and their end. */
static void items_of(const char *code, cell_split_t *sp, native_items_t *it) {
    split_cell(code, sp);
    native_items(code, sp, it);
}
static void items_done(cell_split_t *sp, native_items_t *it) {
    native_items_free(it);
    split_free(sp);
}

static const char *const kind_names[] = {"pp", "repeat", "kernel", "device_var", "variable", "shared", "statement"};

/* The kinds of a cell's items, as "kind kind ...", and the names of its
 * variables as "name,name|name". */
static void expect(const char *code, const char *kinds, const char *names) {
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t it;
    native_items(code, &sp, &it);
    char got[1024] = "", gn[1024] = "";
    for (size_t i = 0; i < it.n; i++) {
        strcat(got, i ? " " : "");
        strcat(got, kind_names[it.v[i].kind]);
        if (it.v[i].kind == NI_VARIABLE || it.v[i].kind == NI_DEVICE_VAR) {
            if (gn[0]) strcat(gn, "|");
            for (int k = 0; k < it.v[i].nnames; k++) {
                if (k) strcat(gn, ",");
                strcat(gn, it.v[i].names[k]);
            }
        }
    }
    CHECK_STR(got, kinds);
    if (names) CHECK_STR(gn, names);
    if (strcmp(got, kinds)) fprintf(stderr, "  in: %s\n", code);
    native_items_free(&it);
    split_free(&sp);
}

static void declarations_and_statements(void) {
    expect("int n = 1 << 20;", "variable", "n");
    /* a #pragma before a statement stays with it (omp parallel for); #pragma once is the cell's */
    expect("#pragma omp parallel for schedule(dynamic)\nfor (int i = 0; i < 4; i++) s += i;", "statement statement", "");
    expect("#pragma once\nf();", "pp statement", "");
    expect("#pragma pack(1)\nint packed;", "pp variable", "packed");
    expect("float *x, *y;", "variable", "x,y");
    expect("thrust::device_vector<float> d(n);", "variable", "d");
    expect("std::vector<std::vector<int>> grid(4, std::vector<int>(4));", "variable", "grid");
    expect("auto start = std::chrono::high_resolution_clock::now();", "variable", "start");
    expect("unsigned long long seed = 1234ULL;", "variable", "seed");
    expect("dim3 grid(16, 16), block(32, 8);", "variable", "grid,block");
    expect("int a[10] = {1, 2, 3}, b[2][3];", "variable", "a,b");
    expect("static int counter;", "variable", "counter");
    expect("struct P p = {1, 2};", "variable", "p");
    expect("double (*fp)(double) = sin;", "variable", "fp");
    expect("auto [lo, hi] = std::minmax(3, 4);", "variable", "lo,hi");
    expect("cudaMalloc(&d_x, n * sizeof(float));", "statement", "");
    expect("x = 5;", "statement", "");
    expect("std::cout << total << std::endl;", "statement", "");
    expect("printf(\"%d\\n\", n);", "statement", "");
    expect("thrust::sort(d.begin(), d.end());", "statement", "");
    expect("v.push_back(3);", "statement", "");
    expect("a[i] = b < c;", "statement", "");
    expect("for (int i = 0; i < n; i++) x[i] = 1.0f;", "statement", "");
    expect("if (n > 3) { return 1; }", "statement", "");
    expect("return 0;", "statement", "");
    expect("delete[] h;", "statement", "");
    expect("kernel<<<grid, block>>>(d_x, n);", "statement", "");
    expect("max_val = std::max<float>(a, b);", "statement", "");
}

static void what_is_repeated(void) {
    expect("#include <thrust/device_vector.h>\n#define N 1024", "pp pp", NULL);
    expect("const int N = 1024;", "repeat", "");
    expect("constexpr float PI = 3.14159f;", "repeat", "");
    expect("const char *msg = \"hi\";", "variable", "msg");
    expect("int square(int x) { return x * x; }", "repeat", "");
    expect("int square(int x);", "repeat", "");
    expect("struct saxpy { float a; __host__ __device__ float operator()(float x, float y) const { return a * x + y; } };",
           "repeat", "");
    expect("class Base { public: virtual ~Base() {} };\nclass D : public Base {};", "repeat repeat", "");
    expect("template <typename T> T twice(T x) { return 2 * x; }", "repeat", "");
    expect("typedef float real;\nusing vec = std::vector<real>;\nusing namespace std;", "repeat repeat repeat", "");
    expect("namespace util { int k = 3; }", "repeat", "");
    expect("auto op = [] __device__ (float x) { return 2 * x; };", "repeat", "");
    expect("enum class Color { Red, Green };", "repeat", "");
    expect("__device__ float sq(float x) { return x * x; }", "repeat", "");
}

static void kernels_and_device_variables(void) {
    /* prototypes are declarations every later cell repeats, whatever their
     * specifiers or the names of their parameters' types */
    expect("static __global__ void scale(Complex *, const Complex *, int, float);", "repeat", NULL);
    expect("__global__ void __launch_bounds__(256) fill(float *p);", "repeat", NULL);
    expect("Complex twice(Complex a);\nint pad(Complex *, int);\nint count(Complex &);", "repeat repeat repeat", NULL);
    expect("Widget w(size);\nWidget v(a * b);", "variable variable", "w|v");
    /* no object is void: a void declarator with parentheses is a function */
    expect("void timing(real *h_x, real *d_x, const int method);", "repeat", NULL);
    expect("static void report(Stats &s);", "repeat", NULL);
    expect("void *buffer(pool);", "variable", "buffer");
    /* __host__ or inline: a function's, though its parameters are bare type names */
    expect("static __device__ __host__ inline Complex ComplexMul(Complex, Complex);", "repeat", NULL);
    expect("inline Vec3 cross_of(Vec3, Vec3);", "repeat", NULL);
    expect("__device__ Counter hits(0);", "device_var", "hits");
    const char *code = "__global__ void add(int n, float *x, float *y) { }";
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t it;
    native_items(code, &sp, &it);
    CHECK(it.n == 1 && it.v[0].kind == NI_KERNEL);
    if (it.n == 1) {
        CHECK_STR(it.v[0].names ? it.v[0].names[0] : NULL, "add");
        CHECK_STR(it.v[0].decl, "__global__ void add(int n, float *x, float *y);");
        CHECK_STR(it.v[0].params, "int n, float *x, float *y");
        CHECK_STR(it.v[0].args, "(void *)&n, (void *)&x, (void *)&y");
    }
    native_items_free(&it);
    split_free(&sp);

    code = "__global__ void __launch_bounds__(256) scale(float *, const int, float a[]) { }";
    split_cell(code, &sp);
    native_items(code, &sp, &it);
    CHECK(it.n == 1 && it.v[0].kind == NI_KERNEL);
    if (it.n == 1) {
        CHECK_STR(it.v[0].names ? it.v[0].names[0] : NULL, "scale");
        CHECK_STR(it.v[0].params, "float * icuda_p0, const int icuda_p1, float a[]");
        CHECK_STR(it.v[0].args, "(void *)&icuda_p0, (void *)&icuda_p1, (void *)&a");
    }
    native_items_free(&it);
    split_free(&sp);

    code = "__global__ void none(void) { }";
    split_cell(code, &sp);
    native_items(code, &sp, &it);
    CHECK(it.n == 1 && it.v[0].params && !strcmp(it.v[0].params, "") && !strcmp(it.v[0].args, ""));
    native_items_free(&it);
    split_free(&sp);

    expect("__constant__ float M[9];\n__device__ int counter = 0;", "device_var device_var", "M|counter");
    expect("template <typename T> __global__ void fill(T *p, T v) { }", "repeat", "");
}

static void statements_replace_nothing(void) {
    cell_split_t sp;
    native_items_t it;
    items_of("int counter = 0;\ncounter++;\nn = 3;\nf(n);", &sp, &it);
    CHECK(it.n == 4);
    if (it.n == 4) {
        CHECK_STR(it.v[0].key, "var:counter");
        CHECK(!it.v[1].key[0] && !it.v[2].key[0] && !it.v[3].key[0]);
        CHECK(native_items_have_key(&it, "var:counter") && !native_items_have_key(&it, "var:n"));
        CHECK(native_items_define(&it, "counter") && !native_items_define(&it, "n"));
    }
    items_done(&sp, &it);
}

static void identifiers(void) {
    char **ids = native_identifiers("total = a.size + p->n + std::max(b, /* c */ d); // e\n s = \"f\";");
    const char *want[] = {"total", "a", "p", "std", "b", "d", "s", NULL};
    int i = 0;
    for (; ids[i] && want[i]; i++) CHECK_STR(ids[i], want[i]);
    CHECK(!ids[i] && !want[i]);
    native_strv_free(ids);
}

/* The cell as its unit has it: captures blanked in a lambda a variable holds. */
static void unit_code(const char *code, const char *want) {
    cell_split_t sp;
    native_items_t it;
    items_of(code, &sp, &it);
    char *got = native_items_unit_code(code, &it);
    CHECK_STR(got ? got : "(unchanged)", want);
    free(got);
    items_done(&sp, &it);
}

static void lambdas_at_namespace_scope(void) {
    /* main's locals are globals of the unit, where a lambda captures nothing
     * and reaches them as globals: its captures go, lines and offsets stay */
    unit_code("int n = 4;\nauto at = [&](int i, int j) { return i * n + j; };\nf(at(1, 2));",
              "int n = 4;\nauto at = [ ](int i, int j) { return i * n + j; };\nf(at(1, 2));");
    unit_code("auto g = [=, &n]\n(int i) { return i + n; };", "auto g = [     ]\n(int i) { return i + n; };");
    unit_code("int n = 3;\nauto add = [=, &v](int a) { return a + n; };\n",
              "int n = 3;\nauto add = [     ](int a) { return a + n; };\n");
    unit_code("auto h = [a, &b](int i) { return a + b + i; };", "auto h = [     ](int i) { return a + b + i; };");
    /* a lambda in the body of one at namespace scope is a local one: its captures stand */
    unit_code("int total = apply([&](int i) { auto g = [&] { return i; }; return g(); });",
              "int total = apply([ ](int i) { auto g = [&] { return i; }; return g(); });");
    /* nothing to blank, or what a global cannot stand for: left to nvcc */
    unit_code("auto k = [](int i) { return i; };", "(unchanged)");
    unit_code("auto m = [x = 2](int i) { return x + i; };", "(unchanged)");
    unit_code("auto t = [this] { return 1; };", "(unchanged)");
    /* a lambda inside a statement is a local one: left as it is */
    unit_code("std::sort(v.begin(), v.end(), [&](int a, int b) { return a > b; });", "(unchanged)");
}

/* The names a statement's lambdas use, as "a,b". */
static void lambda_names(const char *code, const char *want) {
    cell_split_t sp;
    native_items_t it;
    items_of(code, &sp, &it);
    char got[256] = "";
    char **names = it.n == 1 ? native_items_lambda_names(code, &it.v[0]) : NULL;
    for (char **p = names; p && *p; p++) {
        if (p != names) strcat(got, ",");
        strcat(got, *p);
    }
    CHECK_STR(names ? got : "(none)", want);
    native_strv_free(names);
    items_done(&sp, &it);
}

static void lambdas_in_statements(void) {
    /* a statement's lambdas are local ones: their captures stay, and the
     * unit shadows main's locals they name with local references */
    unit_code("std::mutex m;\nint k = 0;\nfor (auto &t : ts)\n  t = std::thread([&m, &k] { k++; });", "(unchanged)");
    lambda_names("for (auto &t : ts) t = std::thread([&m, &k] { std::lock_guard<std::mutex> g(m); k++; });",
                 "m,k,std,g");
    lambda_names("launch<<<1, 32>>>(n, [=] __device__ (int i) { d[i] = s.x * i; });",
                 "__device__,int,i,d,s");
    lambda_names("f(g(1), v[2]);", "(none)");
    /* a variable's initialiser is at namespace scope: no captures at all */
    unit_code("std::thread t([&] { work(n); });", "std::thread t([ ] { work(n); });");
    unit_code("std::function<int(int)> f([&n, m = 2](int i) { return i + n + m; });",
              "std::function<int(int)> f([    m = 2](int i) { return i + n + m; });");
}

/* The names of a cell's only item, as "name,name". */
static void item_names(const char *code, const char *names) {
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t it;
    native_items(code, &sp, &it);
    char got[512] = "";
    for (int k = 0; it.n == 1 && k < it.v[0].nnames; k++) {
        if (k) strcat(got, ",");
        strcat(got, it.v[0].names[k]);
    }
    CHECK(it.n == 1 && it.v[0].kind == NI_REPEAT);
    CHECK_STR(got, names);
    native_items_free(&it);
    split_free(&sp);
}

static void enums_name_their_enumerators(void) {
    /* a later cell that names only an enumerator takes the enum */
    item_names("enum { No = 0, Yes = 1 };", "No,Yes");
    item_names("enum Colour { Red = 5, Green = (1 << 2), Blue };", "Colour,Red,Green,Blue");
    item_names("enum class Mode : unsigned char { Fast, Slow = f(1, 2) };", "Mode,Fast,Slow");
    item_names("typedef enum { Up, Down } dir_t;", "Up,Down");
    /* other types name nothing this way */
    item_names("struct Pair { int a, b; };", "");
}

static void conditionals_with_includes_stay_whole(void) {
    /* an #if that holds an #include and a template of its types is one # item:
     * the unit moves #includes first, and its template must move with it */
    expect("#include <cstdio>\n#if VER < 5000\n#include <old.h>\ntemplate <class T> void g(T *a, old_t x) { }\n"
           "#endif\nint n = 1;", "pp pp variable", "n");
    expect("#ifdef USE_OLD\n#include <old.h>\ntypedef old_t handle_t;\n#else\n#include <new.h>\n"
           "typedef new_t handle_t;\n#endif", "pp", "");
    /* one that holds what runs or is defined once, or no #include, keeps its lines apart */
    expect("#ifdef USE_OLD\n#include <old.h>\nint m = 2;\n#endif", "pp pp variable pp", "m");
    expect("#if VER > 2\ntemplate <class T> T twice(T a) { return a + a; }\n#endif", "pp repeat pp", "");
    expect("#if VER > 2\n#include <x.h>\nstruct S { int a; };", "pp pp repeat", "");
}

/* Which variables the interpreter may hold for both kinds of cell: numbers,
 * pointers to numbers, arrays of numbers; not pointers to pointers nor
 * arrays of pointers, which it cannot hand to native code. */
static void shared_variables(void) {
    cell_split_t sp;
    native_items_t it;
    items_of("int *p = NULL;\nchar **pp = NULL;\nfloat *arr[4];\ndouble grid[2][3];\nint n = 4, *q;\n", &sp, &it);
    CHECK(it.n == 5);
    if (it.n == 5) {
        CHECK(it.v[0].share_decl != NULL && it.v[3].share_decl != NULL && it.v[4].share_decl != NULL);
        CHECK(it.v[1].share_decl == NULL && it.v[2].share_decl == NULL);
    }
    items_done(&sp, &it);
}

int main(void) {
    shared_variables();
    conditionals_with_includes_stay_whole();
    enums_name_their_enumerators();
    lambdas_at_namespace_scope();
    lambdas_in_statements();
    declarations_and_statements();
    what_is_repeated();
    kernels_and_device_variables();
    statements_replace_nothing();
    identifiers();
    return check_report();
}
