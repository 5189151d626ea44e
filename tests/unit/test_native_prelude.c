/* What later native cells repeat of earlier ones: a conditional (#if ...
 * #endif) comes whole, with the includes when it holds one, and a cell of
 * conditionals run twice still closes every #if; an earlier cell's kernel
 * is the host stub it registered (runtime/native/native_session.c,
 * native_unit.c). */
#include <stdlib.h>

#include "check.h"
#include "runtime/native/native_launch.h"
#include "runtime/native/native_session.h"
#include "runtime/native/native_unit.h"

static bool no_binding(void *ctx, const char *name, native_binding_t *out) { return false; }

/* The interpreter holds total, a number a native cell defined. */
static bool bind_total(void *ctx, const char *name, native_binding_t *out) {
    if (strcmp(name, "total")) return false;
    snprintf(out->type, sizeof out->type, "int");
    out->value = 0x1000;
    out->pointer = false;
    return true;
}

static void add_cell(native_session_t *ns, const char *code, const char *cell) {
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t it;
    native_items(code, &sp, &it);
    native_session_add_items(ns, code, &it, cell);
    native_items_free(&it);
    split_free(&sp);
}

/* The unit of a cell run after what ns holds, its worker 42. */
static char *unit_of(native_session_t *ns, const char *code, const char *cell, native_bounds_t *bounds) {
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t items;
    native_items(code, &sp, &items);
    char *unit = native_unit(ns, 42, code, &items, cell, bounds);
    native_items_free(&items);
    split_free(&sp);
    return unit;
}

/* Shows the unit once a check failed, and frees it. */
static void done(char *unit, native_bounds_t *bounds) {
    if (check_failed && unit) fputs(unit, stderr);
    free(unit);
    native_bounds_free(bounds);
}

static int rank_of(const char *code, const char *line) {
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t it;
    native_items(code, &sp, &it);
    int r = -1;
    for (size_t i = 0; i < it.n; i++)
        if (it.v[i].kind == NI_PP && !strncmp(code + it.v[i].start, line, strlen(line))) r = native_pp_rank(code, &it, i);
    native_items_free(&it);
    split_free(&sp);
    return r;
}

/* #if-like lines minus #endif lines of a unit: 0 when every one closes. */
static int open_conditionals(const char *unit) {
    int depth = 0;
    for (const char *p = unit; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        const char *q = p + strspn(p, " \t");
        if (*q != '#') continue;
        q += 1 + strspn(q + 1, " \t");
        if (!strncmp(q, "ifdef", 5) || !strncmp(q, "ifndef", 6) || !strncmp(q, "if ", 3) || !strncmp(q, "if(", 3)) depth++;
        else if (!strncmp(q, "endif", 5)) depth--;
    }
    return depth;
}

static const char *const CELL =
    "#include <cstdio>\n"
    "#ifndef _WIN32\n#include <sys/mman.h>\n#endif\n"
    "#define ALIGN 4096\n"
    "#if defined(__APPLE__)\n#define PINNED false\n#else\n#define PINNED true\n#endif\n"
    "int pinned() { return PINNED; }\n";

int main(void) {
    /* ranks: an include's conditional goes with the includes, a conditional of macros where it stood */
    CHECK(rank_of(CELL, "#ifndef _WIN32") == 1);
    CHECK(rank_of(CELL, "#include <sys/mman.h>") == 1);
    CHECK(rank_of(CELL, "#endif\n#define ALIGN") == 1);
    CHECK(rank_of(CELL, "#if defined(__APPLE__)") == 2);
    CHECK(rank_of(CELL, "#define PINNED true") == 2);
    CHECK(rank_of("#ifndef N\n#define N 64\n#endif\n#include <cstdio>\n", "#ifndef N") == 0);

    native_session_t ns;
    native_session_init(&ns);
    ns.links.bind = no_binding;
    add_cell(&ns, CELL, "In [1]");
    add_cell(&ns, CELL, "In [2]"); /* the same lines again */
    add_cell(&ns, "#ifdef EXTRA\n#define MORE 1\n#endif\nint more() { return 2; }\n"
                  "__global__ void twice(float *v, int n) { v[threadIdx.x] *= 2; }\n", "In [3]");
    native_session_add_global(&ns, "fn:twice", "", false, true, "In [3]", 42);
    native_bounds_t bounds = {0};
    const char *next = "int x = pinned() + more() + PINNED + ALIGN;\ntwice<<<1, 32>>>(nullptr, 0);\n";
    char *unit = unit_of(&ns, next, "In [4]", &bounds);
    CHECK(unit && open_conditionals(unit) == 0);
    /* an earlier cell's kernel is its registered host stub: launches and occupancy take it */
    CHECK(unit && strstr(unit, "static void (&twice)(float *v, int n) = *reinterpret_cast<void (*)(float *v, int n)>("
                               "icuda_native::need(\"fn:twice\", \"In [3]\"));") != NULL);
    CHECK(unit && !strstr(unit, "__global__ void twice"));
    CHECK(unit && strstr(unit, "#include <sys/mman.h>") != NULL);
    done(unit, &bounds);

    /* a using-directive names nothing, yet a later cell's unqualified names need it */
    add_cell(&ns, "#include <chrono>\nusing namespace std::chrono;\n", "In [5]");
    const char *timed = "auto t0 = steady_clock::now();\n";
    unit = unit_of(&ns, timed, "In [6]", &bounds);
    CHECK(unit && strstr(unit, "using namespace std::chrono;") != NULL);
    done(unit, &bounds);

    /* a cell's overloads all stand; a typedef is taken for the name it
     * declares after its braces, through a function that uses it */
    add_cell(&ns, "void show(int x) { printf(\"%d\", x); }\nvoid show(float x) { printf(\"%g\", x); }\n"
                  "typedef struct tagged_s { int n; } tagged_t;\nint count_of(void *p) { return ((tagged_t *)p)->n; }\n",
                  "In [7]");
    const char *uses = "show(1);\nshow(2.0f);\nint c = count_of(nullptr);\n";
    unit = unit_of(&ns, uses, "In [8]", &bounds);
    CHECK(unit && strstr(unit, "void show(int x)") && strstr(unit, "void show(float x)"));
    CHECK(unit && strstr(unit, "} tagged_t;") != NULL);
    done(unit, &bounds);

    /* a conditional's alternatives of one type: each stands under its own
     * condition, whichever came last ("#ifndef" first here) */
    add_cell(&ns, "#ifndef USE_DP\ntypedef float real;\n#else\ntypedef double real;\n#endif\n", "In [9]");
    const char *reals = "real r = 1;\n";
    unit = unit_of(&ns, reals, "In [10]", &bounds);
    CHECK(unit && strstr(unit, "#ifndef USE_DP\n#line 2 \"In [9]\"\ntypedef float real;\n#endif\n"));
    CHECK(unit && strstr(unit, "#ifndef USE_DP\n#else\n#line 4 \"In [9]\"\ntypedef double real;\n#endif\n"));
    done(unit, &bounds);
    native_session_free(&ns);

    /* a program's kernels and functions prototyped before main and defined
     * after it: the first cell launches through the registry, looked up when
     * the launch runs; the second keeps the prototypes above its statements
     * and registers its kernels before they run; a third finds the kernel */
    native_session_init(&ns);
    ns.links.bind = no_binding;
    const char *before = "__global__ void later_k(float *p);\nstatic int helper(int x);\n"
                         "void launch(float *p) { later_k<<<1, 1>>>(p); }\n";
    unit = unit_of(&ns, before, "In [1]", &bounds);
    CHECK(unit && strstr(unit, "#define later_k (reinterpret_cast<decltype(&later_k)>(icuda_native::kernel_later("
                               "\"fn:later_k\", \"later_k\")))") != NULL);
    done(unit, &bounds);
    add_cell(&ns, before, "In [1]");
    const char *after = "launch(nullptr);\nint h = helper(1);\n__global__ void later_k(float *p) { p[0] = 1; }\n"
                        "static int helper(int x) { return x; }\n";
    unit = unit_of(&ns, after, "In [2]", &bounds);
    const char *proto = unit ? strstr(unit, "static int helper(int x);") : NULL;
    CHECK(proto && strstr(unit, "launch(nullptr);") > proto);
    CHECK(unit && !strstr(unit, "#define later_k"));
    const char *reg = unit ? strstr(unit, "__attribute__((constructor(101)))") : NULL;
    CHECK(reg && strstr(reg, "icuda_native::reg_kernel(\"fn:later_k\", (const void *)later_k);") != NULL);
    done(unit, &bounds);
    add_cell(&ns, after, "In [2]");
    native_session_add_global(&ns, "fn:later_k", "", false, true, "In [2]", 42);
    const char *third = "later_k<<<1, 1>>>(nullptr);\n";
    unit = unit_of(&ns, third, "In [3]", &bounds);
    CHECK(unit && strstr(unit, "static void (&later_k)(float *p)") != NULL);
    CHECK(unit && !strstr(unit, "__global__ void later_k(float *p);") && !strstr(unit, "#define later_k"));
    done(unit, &bounds);
    /* the defining cell run again: its prototype stays above its launch */
    const char *again = "__global__ void later_k(float *p);\nlater_k<<<1, 1>>>(nullptr);\n"
                        "__global__ void later_k(float *p) { p[0] = 2; }\n";
    unit = unit_of(&ns, again, "In [4]", &bounds);
    /* a run of statements that ends without a return says so: return 0
     * among them ends the cell's code, which another value would not tell */
    CHECK(unit && strstr(unit, "return icuda_native::ran_on; }") && !strstr(unit, "\nreturn 0; }"));
    proto = unit ? strstr(unit, "__global__ void later_k(float *p);") : NULL;
    CHECK(proto && strstr(unit, "later_k<<<1, 1>>>(nullptr);") > proto);
    CHECK(unit && !strstr(unit, "static void (&later_k)"));
    done(unit, &bounds);
    native_session_free(&ns);

    /* an earlier cell's kernel with default arguments: its host stub takes
     * none, so a later launch that leaves them out gets them written in,
     * in the cell and in a template the earlier cell repeats; a launch that
     * passes them, strings and comments stay as written */
    native_session_init(&ns);
    ns.links.bind = no_binding;
    add_cell(&ns, "#define WIDTH 32\n__global__ void scan(int *data, int n, int *partial = NULL,\n"
                  "                     int step = WIDTH / 2) { data[0] = n + step; }\n"
                  "template <typename T> void twice_scan(T *d) { scan<<<1, 32>>>(d, 2); }\n", "In [1]");
    native_session_add_global(&ns, "fn:scan", "", false, true, "In [1]", 42);
    const char *launches = "int *d = nullptr;\nscan<<<dim3(1, 1), 32, 0>>>(d, f(1, 2));\n"
                           "scan <<< 1, 32 >>> (d, 32, d, 4);\nscan<<<1, 32>>>(d, 1 /* n, step */, d);\n"
                           "puts(\"scan<<<1, 1>>>(d, 1)\");\ntwice_scan(d);\n";
    unit = unit_of(&ns, launches, "In [2]", &bounds);
    CHECK(unit && strstr(unit, "static void (&scan)(int *data, int n, int *partial, int step)") != NULL);
    CHECK(unit && strstr(unit, "scan<<<dim3(1, 1), 32, 0>>>(d, f(1, 2), NULL, WIDTH / 2);\n") != NULL);
    CHECK(unit && strstr(unit, "scan <<< 1, 32 >>> (d, 32, d, 4);\n") != NULL);
    CHECK(unit && strstr(unit, "scan<<<1, 32>>>(d, 1 /* n, step */, d, WIDTH / 2);\n") != NULL);
    CHECK(unit && strstr(unit, "puts(\"scan<<<1, 1>>>(d, 1)\");") != NULL);
    CHECK(unit && strstr(unit, "{ scan<<<1, 32>>>(d, 2, NULL, WIDTH / 2); }") != NULL);
    done(unit, &bounds);
    /* launches left open to the end are nvcc's to report: copied as written */
    native_defaulted_list_t list = {0};
    char *const defaults[] = {"7", NULL};
    VEC_PUSH(list, ((native_defaulted_t){"scan", 2, defaults}));
    strbuf_t b = {0};
    const char *open[] = {"scan<<<1, 1>>>(d", "scan<<<1, (1>>>(d);", "scan<<<1, 1>>>(d, 2) + scan<<<1", "x = scan;"};
    for (size_t i = 0; i < sizeof open / sizeof open[0]; i++) {
        b.len = 0;
        native_launch_append(&b, open[i], strlen(open[i]), &list);
        CHECK(b.len == strlen(open[i]) && !memcmp(b.data, open[i], b.len));
    }
    b.len = 0;
    native_launch_append(&b, "scan<<<1, 1>>>(d); scan<<<2, 2>>>(e, 3);", 40, &list);
    CHECK(b.data && !strcmp(b.data, "scan<<<1, 1>>>(d, 7); scan<<<2, 2>>>(e, 3);"));
    free(b.data);
    VEC_FREE(list);
    native_session_free(&ns);

    /* an earlier cell's device variables named by device code of a later
     * unit (its repeated template, the cell's kernels and __device__
     * lambdas) go through their device address; host code, members, and a
     * body that declares its own of the name keep the name */
    native_session_init(&ns);
    ns.links.bind = no_binding;
    add_cell(&ns, "__device__ float dResult;\n__managed__ float mR;\n"
                  "template <unsigned B> __global__ void red(const float *in) { atomicAdd(&dResult, in[0]); "
                  "mR += dResult; }\n", "In [1]");
    native_session_add_global(&ns, "dResult", "float", false, false, "In [1]", 42);
    native_session_add_global(&ns, "mR", "float", false, false, "In [1]", 42);
    const char *dev_uses = "red<256><<<1, 1>>>(nullptr);\nfloat h; cudaMemcpyFromSymbol(&h, dResult, 4);\n"
                       "struct S { float dResult; };\n"
                       "__global__ void own(float *p, S s) { float dResult = 2; p[0] = dResult + s.dResult; }\n"
                       "__global__ void param(float dResult) { mR = dResult; }\n"
                       "__global__ void reads(float *p) { p[0] = dResult > 0 ? dResult : mR; }\n"
                       "template <class F> void apply(F f) { }\n"
                       "apply([=] __device__ (float x) { return x + dResult; });\n";
    unit = unit_of(&ns, dev_uses, "In [2]", &bounds);
    CHECK(unit && strstr(unit, "__device__ icuda_t_dResult *icuda_dv_dResult;") != NULL);
    CHECK(unit && strstr(unit, "device_alias(icuda_dv_dResult, dResult, false, \"dResult\")") != NULL);
    CHECK(unit && strstr(unit, "device_alias(icuda_dv_mR, mR, true, \"mR\")") != NULL);
    CHECK(unit && strstr(unit, "{ atomicAdd(&icuda_dev_dResult, in[0]); icuda_dev_mR += icuda_dev_dResult; }") != NULL);
    CHECK(unit && strstr(unit, "cudaMemcpyFromSymbol(&h, dResult, 4);") != NULL);
    CHECK(unit && strstr(unit, "{ float dResult = 2; p[0] = dResult + s.dResult; }") != NULL);
    CHECK(unit && strstr(unit, "{ icuda_dev_mR = dResult; }") != NULL);
    CHECK(unit && strstr(unit, "p[0] = icuda_dev_dResult > 0 ? icuda_dev_dResult : icuda_dev_mR;") != NULL);
    CHECK(unit && strstr(unit, "return x + icuda_dev_dResult; }") != NULL);
    done(unit, &bounds);
    native_session_free(&ns);

    /* a __device__ lambda main keeps in a variable is its class: what [=]
     * copies of main's variables, the earlier cell's and the interpreter's
     * are members, the body an operator(); generic parameters a template;
     * a body's own names and functions are no members */
    native_session_init(&ns);
    ns.links.bind = bind_total;
    add_cell(&ns, "int base = 5;\n", "In [1]");
    native_session_add_global(&ns, "base", "int", false, false, "In [1]", 42);
    const char *lambdas = "float a = 2; int n = 8;\n"
                          "auto scale = [=] __device__ (float x) { float a2 = a * x; return a2 + base + total + sqrtf(x) + n; };\n"
                          "auto pick = [n] __host__ __device__ (auto i) mutable -> int { n += i; return n; };\n"
                          "const auto zero = [] __device__ { return 0; };\n"
                          "auto host_only = [=] (int i) { return i * a; };\n";
    unit = unit_of(&ns, lambdas, "In [2]", &bounds);
    CHECK(unit && strstr(unit, "struct icuda_closure_scale {") != NULL);
    CHECK(unit && strstr(unit, "using icuda_cl_scale_0 = std::remove_cv_t<std::remove_reference_t<decltype(a)>>;") != NULL);
    CHECK(unit && strstr(unit, "icuda_closure_scale scale{a, base, total, n};") != NULL);
    CHECK(unit && strstr(unit, "__device__ auto operator()") != NULL && !strstr(unit, "decltype(a2)") &&
          !strstr(unit, "decltype(sqrtf)") && !strstr(unit, "decltype(x)"));
    CHECK(unit && strstr(unit, "template <class icuda_A0>\n__host__ __device__ auto operator()") != NULL);
    CHECK(unit && strstr(unit, "(icuda_A0 i) -> int") != NULL && strstr(unit, "icuda_closure_pick pick{n};") != NULL);
    CHECK(unit && strstr(unit, "const icuda_closure_zero zero{};") != NULL && strstr(unit, "auto operator()() const") != NULL);
    CHECK(unit && !strstr(unit, "icuda_closure_host_only"));
    done(unit, &bounds);
    native_session_free(&ns);

    /* a function of an earlier cell that counts in a number the interpreter
     * holds: a cell that calls it binds the number, though it names it not */
    native_session_init(&ns);
    ns.links.bind = bind_total;
    add_cell(&ns, "void add_one(int key) { total += key; }\n", "In [1]");
    const char *calls = "add_one(4);\n";
    unit = unit_of(&ns, calls, "In [2]", &bounds);
    const char *bind = unit ? strstr(unit, "static icuda_i_total &total = ") : NULL;
    CHECK(bind && strstr(unit, "void add_one(int key)") > bind);
    CHECK(bounds.n == 1);
    done(unit, &bounds);
    native_session_free(&ns);

    /* main's locals that a statement's lambdas name are shadowed in its
     * function by local references, which lambdas capture; what they name
     * that is no variable, and statements without lambdas, are left alone */
    native_session_init(&ns);
    ns.links.bind = no_binding;
    const char *threads = "std::mutex m;\nint *d = nullptr;\nint plain = 2;\nplain++;\n"
                          "run([&m, d](int i) { work(m, d, i); });\n";
    unit = unit_of(&ns, threads, "In [1]", &bounds);
    CHECK(unit && strstr(unit, "auto *icuda_ref_m = __builtin_addressof(m); [[maybe_unused]] auto &m = *icuda_ref_m;"));
    CHECK(unit && strstr(unit, "auto &d = *icuda_ref_d;") && !strstr(unit, "icuda_ref_plain"));
    CHECK(unit && !strstr(unit, "icuda_ref_work") && !strstr(unit, "icuda_ref_i "));
    done(unit, &bounds);
    unit = unit_of(&ns, "int k = 1;\nk += 2;\n", "In [2]", &bounds);
    CHECK(unit && !strstr(unit, "icuda_ref_"));
    done(unit, &bounds);
    native_session_free(&ns);

    /* a variable initialised through an extended lambda: the initialiser
     * goes into a function, the only place nvcc takes such a lambda */
    native_session_init(&ns);
    ns.links.bind = no_binding;
    unit = unit_of(&ns, "float total = thrust::transform_reduce(v.begin(), v.end(),\n"
                        "    [] __device__ (float x) -> float { return x * x; }, 0.0f, thrust::plus<float>());\n",
                   "In [1]", &bounds);
    CHECK(unit && strstr(unit, "extern float total ;\nstatic decltype(total) icuda_init_0() { return ("));
    CHECK(unit && strstr(unit, "float total = icuda_init_0();"));
    /* an '=' in a comment before the initialiser is no declaration's */
    done(unit, &bounds);
    unit = unit_of(&ns, "float sum /* = 0 */ = reduce_with(v, [] __device__ (float x) { return x; });\n", "In [4]", &bounds);
    CHECK(unit && strstr(unit, "extern float sum /* = 0 */ ;\nstatic decltype(sum) icuda_init_0() { return ("));
    done(unit, &bounds);
    /* auto: no function returning its type can come first, left as it is */
    unit = unit_of(&ns, "auto sq = make_op([] __device__ (int x) { return x * x; });\n", "In [3]", &bounds);
    CHECK(unit && !strstr(unit, "icuda_init_"));
    done(unit, &bounds);
    unit = unit_of(&ns, "auto host_only = [](int x) { return x; };\nint twice = host_only(2);\n", "In [2]", &bounds);
    CHECK(unit && !strstr(unit, "icuda_init_"));
    done(unit, &bounds);
    native_session_free(&ns);

    /* Thrust's headers, slow to compile, come to a cell that names thrust
     * or one of its macros, and not to one that names neither */
    native_session_init(&ns);
    ns.links.bind = no_binding;
    add_cell(&ns, "#include <thrust/version.h>\n#include <cstdio>\n", "In [1]");
    unit = unit_of(&ns, "int major = THRUST_MAJOR_VERSION;\nprintf(\"%d\\n\", major);\n", "In [2]", &bounds);
    CHECK(unit && strstr(unit, "#include <thrust/version.h>") && strstr(unit, "#include <cstdio>"));
    done(unit, &bounds);
    unit = unit_of(&ns, "printf(\"%d\\n\", 2);\n", "In [3]", &bounds);
    CHECK(unit && !strstr(unit, "#include <thrust/version.h>") && strstr(unit, "#include <cstdio>"));
    done(unit, &bounds);
    native_session_free(&ns);
    return check_report();
}
