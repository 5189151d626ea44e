/* nvcc's steps run by icuda (nvcc_steps.h) against nvcc itself, on small
 * units: the same output and exit status for a host syntax error, an error
 * only in device code, a warning and a link error; a built object with the
 * module id icuda wrote and no intermediates left beside it; the fallback
 * when asked for; and an interrupt during the front ends leaves no step of
 * the build running. The front ends run side by side (ICUDA_NVCC_STEPS=1)
 * but in one check, where the machine's spare CPUs decide. Skipped where
 * there is no nvcc. */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "runtime/base/file_read.h"
#include "runtime/base/interrupt.h"
#include "runtime/program/cuda_tools.h"
#include "runtime/program/nvcc_steps.h"
#include "runtime/program/program_build.h"

#define ID "0123456789abcdef0123"

static char *nvcc;

static void write_unit(const char *dir, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cell.cu", dir);
    FILE *f = fopen(path, "w");
    if (!f) abort();
    fputs(text, f);
    fclose(f);
}

static char *new_dir(void) {
    char tmpl[] = "/tmp/icuda-nvcc-steps-XXXXXX";
    if (!mkdtemp(tmpl)) abort();
    return strdup(tmpl);
}

/* argv for a shared object, as a native cell's build has it, plus extra */
static void argv_for(char **argv, const char *extra) {
    int n = 0;
    argv[n++] = nvcc;
    static char *const opts[] = {"-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "-std=c++17"};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) argv[n++] = opts[i];
    if (extra) argv[n++] = (char *)extra;
    argv[n++] = "-o";
    argv[n++] = "cell.so";
    argv[n++] = "cell.cu";
    argv[n] = NULL;
}

/* The unit built both ways: the steps' result must read as nvcc's. */
static void same_as_nvcc(const char *what, const char *unit, const char *extra, int want_status, const char *want,
                         bool temp_names) {
    char *argv[16];
    argv_for(argv, extra);
    char *plain_dir = new_dir(), *steps_dir = new_dir();
    write_unit(plain_dir, unit);
    write_unit(steps_dir, unit);
    proc_opts_t o = {.cwd = plain_dir};
    proc_result_t plain, steps;
    CHECK(proc_run(argv, &o, &plain) == 0);
    char why[256] = "";
    nvcc_steps_status_t st = nvcc_steps_run(argv, steps_dir, ID, NULL, &steps, why, sizeof why);
    CHECK(st == NVCC_STEPS_RAN);
    if (st != NVCC_STEPS_RAN) fprintf(stderr, "  %s: not run: %s\n", what, why);
    CHECK(plain.exited && steps.exited && !steps.interrupted);
    CHECK(plain.exit_status == want_status);
    CHECK(steps.exit_status == plain.exit_status);
    CHECK(strstr(steps.output ? steps.output : "", want) != NULL);
    if (!temp_names) { /* no temporary file's name in it: the same text */
        CHECK_STR(steps.output, plain.output);
    } else {
        const char *first = strstr(steps.output ? steps.output : "", want);
        CHECK(first && !strstr(first + 1, want)); /* once */
    }
    if (steps.exit_status != plain.exit_status || !strstr(steps.output ? steps.output : "", want))
        fprintf(stderr, "  %s: nvcc %d:\n%s\n  steps %d:\n%s\n", what, plain.exit_status, plain.output,
                steps.exit_status, steps.output);
    proc_result_free(&plain);
    proc_result_free(&steps);
    program_remove_tree(plain_dir);
    program_remove_tree(steps_dir);
    free(plain_dir);
    free(steps_dir);
}

static void test_logs(void) {
    same_as_nvcc("syntax error", "__global__ void k(int *p) { p[0] = 1 }\n", NULL, 2, "error: expected a \";\"", false);
    same_as_nvcc("device only", "__global__ void k(int *p) { p[0] = 1; }\n#ifdef __CUDA_ARCH__\n#error on the device\n#endif\n",
                 NULL, 1, "error: #error on the device", false);
    same_as_nvcc("device call", "__global__ void k() { __builtin_trap(); }\n__device__ int g() { }\n", NULL, 1,
                 "calling a __host__ function", false);
    same_as_nvcc("link error", "void f();\nextern \"C\" void h() { f(); }\n", "-Xlinker=--no-undefined", 1,
                 "undefined reference to `f()'", true);
}

static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) n += de->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static void test_built(void) {
    char *argv[16];
    argv_for(argv, NULL);
    char *dir = new_dir();
    write_unit(dir, "__global__ void k(int *p) { p[threadIdx.x] = 1; }\n__device__ int g() { }\n"
                    "namespace { __attribute__((used, noinline)) int helper(int x) { return x + 1; } }\n"
                    "extern \"C\" void go(int *p) { k<<<1, 1>>>(p); }\n");
    proc_result_t r;
    char why[256] = "";
    CHECK(nvcc_steps_run(argv, dir, ID, NULL, &r, why, sizeof why) == NVCC_STEPS_RAN);
    CHECK(r.exited && r.exit_status == 0 && !r.interrupted);
    CHECK(r.output && strstr(r.output, "warning #940-D: missing return statement"));
    proc_result_free(&r);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cell.so", dir);
    size_t n = 0;
    cell_error_t e = {0};
    char *so = file_read_all(path, 64 << 20, false, &n, &e);
    cell_error_clear(&e);
    CHECK(so != NULL);
    bool has_id = false;
    for (size_t i = 0; so && i + 38 <= n && !has_id; i++) has_id = !memcmp(so + i, "_GLOBAL__N__0123456789abcdef_7_cell_cu", 38);
    CHECK(has_id); /* the module id icuda wrote names the unit's anonymous namespace */
    free(so);
    CHECK(count_files(dir) == 2); /* cell.cu and cell.so: no intermediates */
    program_remove_tree(dir);
    free(dir);
}

static void test_fallback(void) {
    char *argv[16];
    argv_for(argv, NULL);
    char *dir = new_dir();
    write_unit(dir, "__global__ void k() {}\n");
    setenv(NVCC_STEPS_ENV, "0", 1);
    proc_result_t r;
    char why[256] = "";
    CHECK(nvcc_steps_run(argv, dir, ID, NULL, &r, why, sizeof why) == NVCC_STEPS_UNRECOGNISED);
    CHECK(strstr(why, NVCC_STEPS_ENV) != NULL);
    CHECK(count_files(dir) == 1); /* nothing run */
    setenv(NVCC_STEPS_ENV, "1", 1);
    argv_for(argv, "-E"); /* a plan without the front ends: nvcc's own */
    CHECK(nvcc_steps_run(argv, dir, ID, NULL, &r, why, sizeof why) == NVCC_STEPS_UNRECOGNISED);
    program_remove_tree(dir);
    free(dir);
}

/* processes whose working folder is dir: the build's steps */
static int steps_in(const char *dir) {
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
        char link[300], cwd[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%s/cwd", de->d_name);
        ssize_t k = readlink(link, cwd, sizeof cwd - 1);
        if (k > 0) {
            cwd[k] = 0;
            n += !strcmp(cwd, dir);
        }
    }
    if (d) closedir(d);
    return n;
}

static bool has_file(const char *dir, const char *name) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Interrupts once both front ends have started (their outputs appear). */
static void *interrupt_in_front_ends(void *arg) {
    const char *dir = arg;
    for (int i = 0; i < 6000 && !(has_file(dir, "cell.cudafe1.cpp") || has_file(dir, "cell.cpp1.ii")); i++)
        usleep(10 * 1000);
    interrupt_raise();
    return NULL;
}

static void test_interrupt(void) {
    char *argv[16];
    argv_for(argv, NULL);
    char *dir = new_dir();
    write_unit(dir, "#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n"
                    "extern \"C\" void go() { thrust::device_vector<double> v(10); thrust::sort(v.begin(), v.end()); }\n");
    pthread_t th;
    pthread_create(&th, NULL, interrupt_in_front_ends, dir);
    proc_result_t r;
    char why[256] = "";
    CHECK(nvcc_steps_run(argv, dir, ID, NULL, &r, why, sizeof why) == NVCC_STEPS_RAN);
    pthread_join(th, NULL);
    CHECK(r.interrupted);
    CHECK(!has_file(dir, "cell.so"));
    proc_result_free(&r);
    int left = 1;
    for (int i = 0; i < 3000 && (left = steps_in(dir)) > 0; i++) usleep(10 * 1000); /* up to 30 s, not asserted */
    CHECK(left == 0);
    interrupt_clear();
    program_remove_tree(dir);
    free(dir);
}

int main(void) {
    nvcc = program_find_nvcc(NULL, 0);
    if (!nvcc) {
        CHECK_SKIP(1, "no nvcc");
        return check_report();
    }
    setenv(NVCC_STEPS_ENV, "1", 1); /* side by side, however busy the machine is */
    test_logs();
    setenv(NVCC_STEPS_ENV, "", 1); /* as the machine's spare CPUs decide: the same results either way */
    same_as_nvcc("syntax error, either way", "__global__ void k(int *p) { p[0] = 1 }\n", NULL, 2,
                 "error: expected a \";\"", false);
    setenv(NVCC_STEPS_ENV, "1", 1);
    test_built();
    test_fallback();
    test_interrupt();
    free(nvcc);
    return check_report();
}
