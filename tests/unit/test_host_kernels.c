/* Kernels of device cells in host code, with a stand-in for the device side
 * (interp_set_kernel_source) and for the CUDA layer (hooks that record what
 * they were asked): a kernel's name as a value, tables of kernels launched
 * through their elements, template kernels launched with their template
 * arguments deduced from the launch's arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/lang/interp.h"
#include "runtime/base/cell_io.h"

static char launched[16][64];
static int nlaunched;
static char called[128];

static int kernel_source(void *ctx, const char *name, char *decl, size_t cap) {
    static const char *const plain[][2] = {
        {"deriv_x", "deriv_x(float *f, float *df)"},
        {"deriv_y", "deriv_y(float *f, float *df)"},
        {"square", "square(float *p, int n)"},
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (!strcmp(name, plain[i][0])) {
            snprintf(decl, cap, "%s", plain[i][1]);
            return 1;
        }
    if (!strcmp(name, "scale")) {
        snprintf(decl, cap, "template <typename T> scale(T *p, T a, int n)");
        return 2;
    }
    if (!strcmp(name, "fill")) {
        snprintf(decl, cap, "template <typename T, int B = 128> fill(const T *__restrict__ in, T *out, T v)");
        return 2;
    }
    if (!strcmp(name, "conv")) {
        snprintf(decl, cap, "template <class Out, class In> conv(Out *o, const In *i, int n)");
        return 2;
    }
    return 0;
}

static int launch(void *ctx, const char *kernel, const unsigned grid[3], const unsigned block[3], uint64_t shmem,
                  uint64_t stream, const interp_arg_t *args, int nargs, char *ename, char *msg, size_t ml) {
    if (nlaunched < 16) snprintf(launched[nlaunched++], 64, "%s", kernel);
    return 0;
}

/* a CUDA call: records its name and the kernel an argument names */
static int call(void *ctx, const char *name, const interp_arg_t *args, int nargs, int discarded, int64_t *ret,
                char *ename, char *msg, size_t ml) {
    const char *k = "?";
    char decl[256];
    for (int i = 0; i < nargs && !strcmp(k, "?"); i++)
        if (args[i].is_pointer && args[i].place == INTERP_PLACE_HOST && args[i].host &&
            memchr(args[i].host, 0, args[i].avail) && kernel_source(NULL, args[i].host, decl, sizeof decl))
            k = args[i].host;
    snprintf(called, sizeof called, "%s %s", name, k);
    *ret = 0;
    return 0;
}

static interp_t *session(void) {
    interp_t *in = interp_new();
    interp_hooks_t h = {NULL, launch, call, NULL, NULL};
    interp_set_hooks(in, &h);
    interp_set_kernel_source(in, kernel_source, NULL);
    nlaunched = 0;
    called[0] = 0;
    return in;
}

/* Runs code; its error's ename and evalue ("" when it ran), its stdout in out. */
typedef struct { char out[512]; size_t n; } out_t;
static void io_stream(void *ctx, const char *name, const char *text, size_t len) {
    out_t *o = ctx;
    if (o->n + len < sizeof o->out) {
        memcpy(o->out + o->n, text, len);
        o->n += len;
        o->out[o->n] = 0;
    }
}
static void io_display(void *ctx, json_t *data, json_t *md, bool res) {}

static char last_error[1024];
static out_t last_out;
static int run(interp_t *in, const char *code) {
    memset(&last_out, 0, sizeof last_out);
    cell_io_t io = {&last_out, io_stream, io_display, NULL, NULL};
    cell_error_t err = {0};
    json_t *v = NULL;
    int rc = interp_run(in, code, "In [1]", &io, &v, &err);
    interp_flush_output(in);
    snprintf(last_error, sizeof last_error, "%s: %s", err.ename ? err.ename : "", err.evalue ? err.evalue : "");
    if (rc) fprintf(stderr, "  (%s)\n", last_error);
    if (v) json_decref(v);
    free(err.ename);
    free(err.evalue);
    if (err.traceback) json_decref(err.traceback);
    return rc;
}

static void kernel_values(void) {
    interp_t *in = session();
    CHECK(run(in, "cudaFuncAttributes attr;\n"
                  "cudaFuncGetAttributes(&attr, square);") == 0);
    CHECK_STR(called, "cudaFuncGetAttributes square");
    CHECK(run(in, "void *f = (void *)square;\n"
                  "const void *g = reinterpret_cast<const void *>(deriv_y);\n"
                  "printf(\"%d %d %d\\n\", f != NULL, f == (void *)square, g == f);") == 0);
    CHECK_STR(last_out.out, "1 1 0\n");
    CHECK(run(in, "cudaFuncGetAttributes(&attr, &deriv_x);") == 0); /* &k is k, as for a function */
    CHECK_STR(called, "cudaFuncGetAttributes deriv_x");
    CHECK(run(in, "int minGrid, block;\n"
                  "cudaOccupancyMaxPotentialBlockSize(&minGrid, &block, square, 0, 100);") == 0);
    CHECK_STR(called, "cudaOccupancyMaxPotentialBlockSize square");
    CHECK(run(in, "cudaFuncGetAttributes(&attr, f);") == 0); /* through a variable */
    CHECK_STR(called, "cudaFuncGetAttributes square");
    CHECK(run(in, "float *d = NULL; int n = 4; void *args[] = {&d, &n};\n"
                  "cudaLaunchKernel(g, dim3(1), dim3(4), args, 0, 0);") == 0);
    CHECK_STR(called, "cudaLaunchKernel deriv_y");
    /* a kernel is launched, never called; a name that is no kernel stays undeclared */
    CHECK(run(in, "square(d, n);") != 0 && strstr(last_error, "is a kernel: launch it with"));
    CHECK(run(in, "void *h = (void *)no_such_kernel;") != 0 && strstr(last_error, "'no_such_kernel' is undeclared"));
    interp_free(in);
}

static void kernel_tables(void) {
    interp_t *in = session();
    CHECK(run(in, "typedef void (*kfn)(float *, float *);\n"
                  "kfn table[2] = {deriv_x, deriv_y};\n"
                  "float *f = NULL, *df = NULL;\n"
                  "for (int i = 0; i < 2; i++) table[i]<<<1, 32>>>(f, df);\n"
                  "kfn k = table[1];\n"
                  "k<<<dim3(2), dim3(16)>>>(f, df);\n"
                  "void (*direct)(float *, float *) = deriv_x;\n"
                  "direct<<<1, 1>>>(f, df);") == 0);
    CHECK(nlaunched == 4);
    CHECK_STR(launched[0], "deriv_x");
    CHECK_STR(launched[1], "deriv_y");
    CHECK_STR(launched[2], "deriv_y");
    CHECK_STR(launched[3], "deriv_x");
    /* in a later cell, and from a struct of kernels */
    CHECK(run(in, "struct ops { kfn dx, dy; } o = {deriv_x, deriv_y};\n"
                  "o.dy<<<1, 1>>>(f, df);") == 0);
    CHECK(nlaunched == 5 && !strcmp(launched[4], "deriv_y"));
    /* what holds no kernel says so */
    CHECK(run(in, "kfn z = NULL; z<<<1, 1>>>(f, df);") != 0 && strstr(last_error, "z, which is NULL"));
    CHECK(run(in, "void host_fn(float *a, float *b) {}\n"
                  "kfn hf = host_fn; hf<<<1, 1>>>(f, df);") != 0 && strstr(last_error, "holds a host function"));
    CHECK(run(in, "table[0](f, df);") != 0 && strstr(last_error, "holds the kernel deriv_x"));
    interp_free(in);
}

static void template_deduction(void) {
    interp_t *in = session();
    CHECK(run(in, "float *d_float = NULL; double *d_double = NULL; int n = 8;\n"
                  "scale<<<1, 32>>>(d_float, 2.0f, n);\n"
                  "scale<<<1, 32>>>(d_double, 0.5, n);\n"
                  "scale<float><<<1, 32>>>(d_float, 2, n);\n"
                  "fill<<<1, 32>>>(d_float, d_float, 1.0f);\n"
                  "conv<<<1, 32>>>(d_double, d_float, n);\n"
                  "unsigned int *d_u = NULL; uint32_t three = 3;\n"
                  "scale<<<1, 1>>>(d_u, three, n);") == 0);
    CHECK(nlaunched == 6);
    CHECK_STR(launched[0], "scale<float>");
    CHECK_STR(launched[1], "scale<double>");
    CHECK_STR(launched[2], "scale<float>");
    CHECK_STR(launched[3], "fill<float>");
    CHECK_STR(launched[4], "conv<double, float>");
    CHECK_STR(launched[5], "scale<unsigned int>");
    /* inside a host function template: T is the instance's */
    CHECK(run(in, "template <typename T> void run_scale(T *p, int n) { scale<<<1, n>>>(p, (T)3, n); }\n"
                  "run_scale(d_double, 4);") == 0);
    CHECK(nlaunched == 7 && !strcmp(launched[6], "scale<double>"));
    /* what C++ cannot deduce, said before anything runs */
    CHECK(run(in, "scale<<<1, 32>>>(d_float, 2.0, n);") != 0 && strstr(last_error, "deduced as both float and double"));
    CHECK(run(in, "scale<<<1, 32>>>(n, 2, n);") != 0 && strstr(last_error, "must be a pointer"));
    CHECK(run(in, "scale<<<1, 32>>>(d_float, 2.0f);") != 0 && strstr(last_error, "takes 3 arguments, not 2"));
    CHECK(nlaunched == 7);
    interp_free(in);
}

int main(void) {
    kernel_values();
    kernel_tables();
    template_deduction();
    return check_report();
}
