/* program_libs: the #includes of a program, the libraries they ask for, where those are; program_build's -I and -l. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"
#include "runtime/program/program_build.h"
#include "runtime/program/program_libs.h"

static void collect(void *ctx, const char *name, bool angled) {
    strbuf_t *b = ctx;
    sb_printf(b, "%s%c%s%c", b->len ? " " : "", angled ? '<' : '"', name, angled ? '>' : '"');
}

/* The includes scan finds, as "<a.h> \"b.h\"" (malloc'd). */
static char *includes(const char *text) {
    strbuf_t b = {0};
    program_scan_includes(text, collect, &b);
    return b.len ? sb_take(&b) : xstrdup("");
}

#define CHECK_INCLUDES(text, want)           \
    do {                                     \
        char *got_ = includes(text);         \
        CHECK_STR(got_, want);               \
        free(got_);                          \
    } while (0)

/* The options joined by spaces, "" for none (malloc'd); frees them. */
static char *joined(char **v) {
    strbuf_t b = {0};
    for (int i = 0; v && v[i]; i++) sb_printf(&b, "%s%s", i ? " " : "", v[i]);
    program_strings_free(v);
    return b.len ? sb_take(&b) : xstrdup("");
}

static char *libs_str(const char *const *libs) {
    strbuf_t b = {0};
    for (int i = 0; libs && libs[i]; i++) sb_printf(&b, "%s%s", i ? " " : "", libs[i]);
    return b.len ? sb_take(&b) : xstrdup("");
}

#define CHECK_HEADER(name, want)                                    \
    do {                                                            \
        char *got_ = libs_str(program_header_libraries(name));      \
        CHECK_STR(got_, want);                                      \
        free(got_);                                                 \
    } while (0)

static void touch(const char *dir, const char *name, const char *text) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static char *sub(const char *dir, const char *name) {
    char *p = xasprintf("%s/%s", dir, name);
    mkdir(p, 0700);
    return p;
}

static bool opt_named(char *const *o, int n, const char *lib) { return program_options_name_library(o, n, lib); }

static void test_scan(void) {
    CHECK_INCLUDES("#include <cublas_v2.h>\n#include \"cufft.h\"\nint main() {}", "<cublas_v2.h> \"cufft.h\"");
    CHECK_INCLUDES("  #  include   <a.h>\n\t#include<b.h>\n/* c */ #include <c.h>\n#include_next <d.h>",
                   "<a.h> <b.h> <c.h> <d.h>");
    /* comments */
    CHECK_INCLUDES("// #include <cufft.h>\n/* #include <curand.h> */\n/*\n#include <x.h>\n*/\n", "");
    CHECK_INCLUDES("// a comment that goes on \\\n#include <continued.h>\n#include <after.h>", "<after.h>");
    CHECK_INCLUDES("#include <a.h> // and <b.h>\n#include /* which */ <c.h>", "<a.h> <c.h>");
    /* literals */
    CHECK_INCLUDES("const char *s = \"#include <no.h>\";\n#include <yes.h>", "<yes.h>");
    CHECK_INCLUDES("auto s = R\"(\n#include <raw.h>\n)\";\n#include <after_raw.h>", "<after_raw.h>");
    CHECK_INCLUDES("auto s = u8R\"xy(\n)\"\n#include <raw2.h>\n)xy\";\n#include <ok.h>", "<ok.h>");
    CHECK_INCLUDES("char c = '\"';\n#include <after_char.h>", "<after_char.h>");
    CHECK_INCLUDES("int n = 1'000'000;\n#include <after_number.h>", "<after_number.h>");
    CHECK_INCLUDES("wchar_t c = L'\"';\n#include <after_wide.h>", "<after_wide.h>");
    /* other directives, and a # that starts no line */
    CHECK_INCLUDES("#define S \"#include <no.h>\"\n#define T \\\n#include <continued.h>\n#include <yes.h>", "<yes.h>");
    CHECK_INCLUDES("#if __has_include(<cublas_v2.h>)\n#endif\n#includes <x.h>\nint a; # include <no.h>", "");
    CHECK_INCLUDES("#error don't\n#include <after_error.h>", "<after_error.h>");
    /* conditionals are not evaluated */
    CHECK_INCLUDES("#if 0\n#include <cufft.h>\n#endif", "<cufft.h>");
    /* the end of the text anywhere */
    CHECK_INCLUDES("#include <unclosed.h", "");
    CHECK_INCLUDES("#include \"", "");
    CHECK_INCLUDES("/* open", "");
    CHECK_INCLUDES("R\"(open", "");
    CHECK_INCLUDES("#", "");
    CHECK_INCLUDES("", "");
    program_scan_includes(NULL, collect, NULL); /* nothing to scan, nothing called */
    CHECK(1);
}

static void test_headers(void) {
    CHECK_HEADER("cublas_v2.h", "cublas");
    CHECK_HEADER("cublas.h", "cublas");
    CHECK_HEADER("cublasXt.h", "cublas");
    CHECK_HEADER("cublasLt.h", "cublasLt");
    CHECK_HEADER("cufft.h", "cufft");
    CHECK_HEADER("cufftXt.h", "cufft");
    CHECK_HEADER("curand.h", "curand");
    CHECK_HEADER("curand_kernel.h", "");
    CHECK_HEADER("cusparse.h", "cusparse");
    CHECK_HEADER("cusolverDn.h", "cusolver");
    CHECK_HEADER("cusolverSp.h", "cusolver");
    CHECK_HEADER("cusolverMg.h", "cusolverMg");
    CHECK_HEADER("nvToolsExt.h", "nvToolsExt");
    CHECK_HEADER("nvtx3/nvToolsExt.h", "");
    CHECK_HEADER("nvtx3/nvtx3.hpp", "");
    CHECK_HEADER("nccl.h", "nccl");
    CHECK_HEADER("cuda.h", "cuda");
    CHECK_HEADER("npp.h", "nppc nppial nppicc nppidei nppif nppig nppim nppist nppisu nppitc npps");
    CHECK_HEADER("nppi_filtering_functions.h", "nppc nppif");
    CHECK_HEADER("npps_arithmetic_and_logical_operations.h", "nppc npps");
    CHECK_HEADER("nppdefs.h", "");
    CHECK_HEADER("nvrtc.h", "nvrtc");
    CHECK_HEADER("nvjpeg.h", "nvjpeg");
    CHECK_HEADER("cudnn.h", "cudnn");
    CHECK_HEADER("cuda_runtime.h", "");
    CHECK_HEADER("cuda_runtime_api.h", "");
    CHECK_HEADER("thrust/device_vector.h", "");
    CHECK_HEADER("mine/cublas_v2.h", "");
    CHECK_HEADER("cudnn/other.h", "");
}

static void test_named(void) {
    char *a[] = {"-O3", "-lcublas"};
    CHECK(opt_named(a, 2, "cublas") && !opt_named(a, 2, "cufft") && !opt_named(a, 2, "cublasLt"));
    char *b[] = {"-l", "cublas", "--library", "cufft,curand"};
    CHECK(opt_named(b, 4, "cublas") && opt_named(b, 4, "cufft") && opt_named(b, 4, "curand"));
    char *c[] = {"--library=cusparse,nccl", "-lcublas_static"};
    CHECK(opt_named(c, 2, "cusparse") && opt_named(c, 2, "nccl") && opt_named(c, 2, "cublas"));
    char *d[] = {"-Xlinker", "-lcufft,-rpath,/x", "-Xlinker=-lcurand", "--linker-options=-l:libnccl.so.2"};
    CHECK(opt_named(d, 4, "cufft") && opt_named(d, 4, "curand") && opt_named(d, 4, "nccl"));
    char *e[] = {"/opt/x/libcublas.so.13", "libcufft_static.a", "-l:libcurand.so", "lib/libnvidia-ml.so"};
    CHECK(opt_named(e, 4, "cublas") && opt_named(e, 4, "cufft") && opt_named(e, 4, "curand") &&
          opt_named(e, 4, "nvidia-ml"));
    char *f[] = {"-lineinfo", "-lcublasLt", "libcublasLt.so", "cublas.cu", "-I/x/libcublas.so", "-l"};
    CHECK(!opt_named(f, 6, "cublas") && opt_named(f, 6, "cublasLt"));
    CHECK(!opt_named(NULL, 0, "cublas"));
}

static void test_among(const char *tmp) {
    char *a = sub(tmp, "a"), *b = sub(tmp, "b"), *empty = sub(tmp, "empty");
    touch(a, "libcublas.so", "");
    touch(a, "libcublasLt.so", "");
    touch(a, "libcufft.a", "");
    touch(a, "libcurand.so.10", "");
    char *lnk = xasprintf("%s/libcurand.so", a), *dangling = xasprintf("%s/libcusparse.so", a);
    CHECK(symlink("libcurand.so.10", lnk) == 0);
    CHECK(symlink("libcusparse.so.12", dangling) == 0);
    touch(b, "libnccl.so", "");
    touch(b, "libnvrtc.so", "");
    program_lib_dir_t dirs[] = {{empty, true}, {a, true}, {b, false}};
    char *why = NULL;
    const char *src = "#include <cstdio>\n#include <cublas_v2.h>\n#include \"cufft.h\"\n#include <curand.h>\n"
                      "#include <curand_kernel.h>\n#include <cusparse.h>\n#include <nccl.h>\n#include <nvrtc.h>\n"
                      "#include <nvjpeg.h>\n#include <cublas.h>\n// #include <cublasLt.h>\nint main() {}\n";
    char *got = joined(program_libraries_among(src, NULL, 0, NULL, 0, dirs, 3, &why));
    /* cusparse is a dangling link, nvjpeg is nowhere: not added; b needs -L, once */
    char *want = xasprintf("-lcublas -lcufft -lcurand -L%s -lnccl -lnvrtc", b);
    CHECK_STR(got, want);
    CHECK_STR(why, "cublas_v2.h, cufft.h, curand.h, nccl.h, nvrtc.h");
    free(got), free(want), free(why);

    /* what the options name already is not added */
    char *user[] = {"-O2", "-lcufft", "--library=nccl"};
    got = joined(program_libraries_among(src, NULL, 0, user, 3, dirs, 3, &why));
    want = xasprintf("-lcublas -lcurand -L%s -lnvrtc", b);
    CHECK_STR(got, want);
    CHECK_STR(why, "cublas_v2.h, curand.h, nvrtc.h");
    free(got), free(want), free(why);

    /* <omp.h> is the host compiler's OpenMP: its option, once, unless given */
    got = joined(program_libraries_among("#include <omp.h>\n#include <omp.h>\n#include <cublas_v2.h>\n", NULL, 0, NULL, 0,
                                         dirs, 3, &why));
    CHECK_STR(got, "-Xcompiler -fopenmp -lcublas");
    CHECK_STR(why, "omp.h, cublas_v2.h");
    free(got), free(why);
    char *omp_user[] = {"-Xcompiler", "-fopenmp,-O2"};
    CHECK(program_libraries_among("#include <omp.h>\n", NULL, 0, omp_user, 2, dirs, 3, NULL) == NULL);

    /* nothing asked for, or nothing found: NULL */
    why = (char *)"untouched";
    CHECK(program_libraries_among("#include <cstdio>\nint main() {}", NULL, 0, NULL, 0, dirs, 3, &why) == NULL);
    CHECK(why == NULL);
    CHECK(program_libraries_among("#include <cublas_v2.h>", NULL, 0, NULL, 0, dirs, 1, NULL) == NULL);
    CHECK(program_libraries_among(NULL, NULL, 0, NULL, 0, dirs, 3, NULL) == NULL);

    /* %%header files the source includes, through one another (a cycle
     * too; beside the including header first); one it does not include
     * counts for nothing */
    header_file_t h[] = {
        {.name = "mylib.cuh", .text = "#pragma once\n#include <cublasLt.h>\n#include \"sub/inner.cuh\"\n"},
        {.name = "sub/inner.cuh", .text = "#include \"deeper.cuh\"\n#include \"mylib.cuh\"\n"},
        {.name = "sub/deeper.cuh", .text = "#include <cufft.h>\n#include \"sub/inner.cuh\"\n"},
        {.name = "deeper.cuh", .text = "#include <nccl.h>\n"},
        {.name = "unused.cuh", .text = "#include <curand.h>\n"},
    };
    got = joined(program_libraries_among("#include \"mylib.cuh\"\n#include <cublas_v2.h>\nint main() {}", h, 5,
                                         NULL, 0, dirs, 3, &why));
    CHECK_STR(got, "-lcublasLt -lcufft -lcublas");
    CHECK_STR(why, "cublasLt.h, cufft.h, cublas_v2.h");
    free(got), free(why);
    /* <> finds a %%header file too (the build folder is on the include path) */
    got = joined(program_libraries_among("#include <deeper.cuh>", h, 5, NULL, 0, dirs, 3, NULL));
    want = xasprintf("-L%s -lnccl", b);
    CHECK_STR(got, want);
    free(got), free(want);
    free(lnk), free(dangling), free(a), free(b), free(empty);
}

/* A stand-in for nvcc: records its arguments, makes the -o file. */
static const char *fake_nvcc = "#!/bin/sh\n"
                               "printf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args\"\n"
                               "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && : > \"$2\"; shift; done\n";

static char *read_all(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return xstrdup("");
    char *t = xcalloc(1, 65536);
    size_t n = fread(t, 1, 65535, f);
    t[n] = 0;
    fclose(f);
    return t;
}

static void test_toolkit_and_build(char *tmp) {
    /* a toolkit as it installs: bin/nvcc, targets/<arch>/lib, lib64 a link to it */
    char *tk = sub(tmp, "toolkit"), *bin = sub(tk, "bin"), *targets = sub(tk, "targets"),
         *arch = sub(targets, "x86_64-linux"), *lib = sub(arch, "lib"), *stubs = sub(lib, "stubs"),
         *extras = sub(tk, "extras"), *cupti = sub(extras, "CUPTI"), *cupti_lib = sub(cupti, "lib64");
    char *lib64 = xasprintf("%s/lib64", tk);
    CHECK(symlink("targets/x86_64-linux/lib", lib64) == 0);
    touch(lib, "libnvjpeg.so", "");
    touch(stubs, "libcuda.so", "");
    touch(cupti_lib, "libcupti.so", "");
    touch(bin, "nvcc", fake_nvcc);
    char *nvcc = xasprintf("%s/nvcc", bin);
    chmod(nvcc, 0755);
    setenv("ICUDA_NVCC", nvcc, 1);
    char *ld = sub(tmp, "ld"), *lp = sub(tmp, "lp");
    setenv("LD_LIBRARY_PATH", ld, 1);
    setenv("LIBRARY_PATH", lp, 1);

    int n = 0;
    program_lib_dir_t *d = program_library_dirs(&n);
    char real_lib[4096], real_ld[4096], real_lp[4096], real_cupti[4096];
    CHECK(realpath(lib, real_lib) && realpath(ld, real_ld) && realpath(lp, real_lp) && realpath(cupti_lib, real_cupti));
    CHECK(n >= 4 && !strcmp(d[0].path, real_lib) && d[0].searched); /* the toolkit's first, once (lib64 is it) */
    int at_ld = -1, at_lp = -1, at_cupti = -1, at_lib64 = -1;
    for (int i = 0; i < n; i++) {
        char r[4096];
        if (!realpath(d[i].path, r)) continue;
        if (!strcmp(r, real_ld)) at_ld = i;
        if (!strcmp(r, real_lp)) at_lp = i;
        if (!strcmp(r, real_cupti)) at_cupti = i;
        if (i && !strcmp(r, real_lib)) at_lib64 = i;
    }
    CHECK(at_lib64 < 0);
    CHECK(at_lp > 0 && d[at_lp].searched);
    CHECK(at_ld > at_lp && !d[at_ld].searched);
    CHECK(at_cupti > 0 && !d[at_cupti].searched);
    program_library_dirs_free(d, n);

    char *why = NULL;
    char *got = joined(program_libraries_for("#include <nvjpeg.h>\n#include <cuda.h>\n#include <cupti.h>\n", NULL, 0,
                                             NULL, 0, &why));
    char *want = xasprintf("-lnvjpeg -lcuda -L%s -lcupti", real_cupti);
    CHECK_STR(got, want);
    CHECK_STR(why, "nvjpeg.h, cuda.h, cupti.h");
    free(got), free(want), free(why);

    /* program_build: -I for each folder after the user's options, the
     * libraries last; the key follows a header included from the folders */
    char *inc = sub(tmp, "inc"), *cache = sub(tmp, "cache");
    touch(inc, "helper.h", "#include \"helper_more.h\"\n");
    touch(inc, "helper_more.h", "int answer() { return 42; }\n");
    char *dirs[] = {inc, NULL};
    char *opts[] = {"-O2"};
    const char *src = "#include \"helper.h\"\n#include <nvjpeg.h>\nint main() { return answer(); }\n";
    program_spec_t spec = {.source = src, .options = opts, .noptions = 1, .cache_dir = cache,
                           .include_dirs = dirs, .ninclude_dirs = 1, .link_includes = true};
    program_binary_t b;
    CHECK(program_build(&spec, &b) == PROGRAM_BUILT);
    CHECK_STR(b.linked, "-lnvjpeg");
    CHECK_STR(b.linked_for, "nvjpeg.h");
    char *args_path = xasprintf("%s/args", bin);
    char *args = read_all(args_path);
    want = xasprintf("-O2\n-I\n%s\n-lnvjpeg\n-o\nprog\ncell.cu\n", inc);
    CHECK_STR(args, want);
    free(args), free(want);
    program_binary_free(&b);
    CHECK(program_build(&spec, &b) == PROGRAM_CACHED);
    program_binary_free(&b);
    /* an edit of a header the first one includes: another program */
    sleep(1); /* a new modification time where the file system keeps whole seconds */
    touch(inc, "helper_more.h", "int answer() { return 43; }\n");
    CHECK(program_build(&spec, &b) == PROGRAM_BUILT);
    program_binary_free(&b);
    CHECK(program_build(&spec, &b) == PROGRAM_CACHED);
    program_binary_free(&b);
    /* the user's -lnvjpeg: nothing added, and no line to say */
    char *opts2[] = {"-lnvjpeg"};
    spec.options = opts2;
    CHECK(program_build(&spec, &b) == PROGRAM_BUILT);
    CHECK(b.linked == NULL && b.linked_for == NULL);
    program_binary_free(&b);
    /* without link_includes: nothing added */
    spec.options = opts;
    spec.link_includes = false;
    CHECK(program_build(&spec, &b) == PROGRAM_BUILT);
    CHECK(b.linked == NULL);
    args = read_all(args_path);
    CHECK(strstr(args, "-lnvjpeg") == NULL);
    free(args);
    program_binary_free(&b);

    /* the session's folders, then the working directory (once) */
    device_session_t ds = {0};
    char *mine[] = {inc, tmp};
    ds.include_dirs = mine;
    ds.ninclude_dirs = 2;
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    char **list = program_include_dirs(&ds, &n);
    CHECK(n == 3 && !strcmp(list[0], inc) && !strcmp(list[1], tmp) && !strcmp(list[2], cwd) && list[3] == NULL);
    program_strings_free(list);
    mine[1] = cwd;
    list = program_include_dirs(&ds, &n);
    CHECK(n == 2 && !strcmp(list[1], cwd) && list[2] == NULL);
    program_strings_free(list);

    unsetenv("ICUDA_NVCC");
    free(args_path), free(inc), free(cache), free(ld), free(lp), free(nvcc), free(lib64);
    free(tk), free(bin), free(targets), free(arch), free(lib), free(stubs), free(extras), free(cupti), free(cupti_lib);
}

int main(void) {
    test_scan();
    test_headers();
    test_named();
    char tmpl[] = "/tmp/icuda-test-libs-XXXXXX";
    if (!mkdtemp(tmpl)) {
        perror("mkdtemp");
        return 2;
    }
    test_among(tmpl);
    test_toolkit_and_build(tmpl);
    program_remove_tree(tmpl);
    return check_report();
}
