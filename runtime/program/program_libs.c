/* Which libraries a program's #includes ask for, and where they are (program_libs.h). */
#include "program_libs.h"

#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cuda_tools.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

/* ---- the #include scanner ---- */

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '$'; }

/* Past a quoted literal at p (p at the quote); an unterminated one ends at
 * the end of its line. */
static const char *skip_quoted(const char *p) {
    char q = *p++;
    while (*p && *p != q && *p != '\n') {
        if (*p == '\\' && p[1]) p++;
        p++;
    }
    return *p == q ? p + 1 : p;
}

/* Past a raw string R"d( ... )d" (p at its '"'). */
static const char *skip_raw(const char *p) {
    const char *open = p + 1;
    size_t dn = strcspn(open, "( )\\\t\n\"");
    if (open[dn] != '(' || dn > 16) return skip_quoted(p);
    char close[20];
    close[0] = ')';
    memcpy(close + 1, open, dn);
    close[dn + 1] = '"';
    close[dn + 2] = 0;
    const char *end = strstr(open + dn + 1, close);
    return end ? end + dn + 2 : p + strlen(p);
}

/* Past a comment at p, "//" (to the end of its line, continuations too) or
 * a block comment. */
static const char *skip_comment(const char *p) {
    if (p[1] == '*') {
        const char *e = strstr(p + 2, "*/");
        return e ? e + 2 : p + strlen(p);
    }
    while (*p && *p != '\n') {
        if (*p == '\\' && p[1] == '\n') p++;
        p++;
    }
    return p;
}

static bool comment_at(const char *p) { return p[0] == '/' && (p[1] == '/' || p[1] == '*'); }

/* Past spaces, block comments and continuations within a directive's line. */
static const char *skip_blanks(const char *p) {
    for (;;) {
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') p++;
        else if (p[0] == '\\' && p[1] == '\n') p += 2;
        else if (p[0] == '/' && p[1] == '*') p = skip_comment(p);
        else return p;
    }
}

/* A directive, p just past its '#': an #include is reported. Returns its
 * end (the newline that ends it, or the end of text). */
static const char *directive(const char *p, program_include_fn *fn, void *ctx) {
    p = skip_blanks(p);
    const char *w = p;
    while (ident_char(*p)) p++;
    size_t wn = (size_t)(p - w);
    if ((wn == 7 && !strncmp(w, "include", 7)) || (wn == 12 && !strncmp(w, "include_next", 12))) {
        p = skip_blanks(p);
        if (*p == '<' || *p == '"') {
            char close = *p == '<' ? '>' : '"';
            const char *q = p + 1, *e = q;
            while (*e && *e != close && *e != '\n') e++;
            if (*e == close && e > q) {
                char *name = xstrndup(q, (size_t)(e - q));
                fn(ctx, name, close == '>');
                free(name);
                p = e + 1;
            }
        }
    }
    while (*p && *p != '\n') {
        if (p[0] == '\\' && p[1] == '\n') p += 2;
        else if (comment_at(p)) p = skip_comment(p);
        else if (*p == '"' || *p == '\'') p = skip_quoted(p);
        else p++;
    }
    return p;
}

void program_scan_includes(const char *text, program_include_fn *fn, void *ctx) {
    const char *p = text ? text : "";
    bool bol = true; /* only blanks and comments since the line began: a '#' here starts a directive */
    while (*p) {
        char c = *p;
        if (c == '\n') {
            bol = true;
            p++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            p++;
        } else if (c == '\\' && p[1] == '\n') {
            p += 2;
        } else if (comment_at(p)) {
            p = skip_comment(p);
        } else if (c == '#' && bol) {
            p = directive(p + 1, fn, ctx);
        } else {
            bol = false;
            if (c == '"' || c == '\'') {
                p = skip_quoted(p);
            } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p[1]))) {
                /* a number, its digit separators (1'000) included */
                for (p++; ident_char(*p) || *p == '.' || (*p == '\'' && ident_char(p[1])) ||
                          ((*p == '+' || *p == '-') && strchr("eEpP", p[-1]));
                     p++) {}
            } else if (ident_char(c)) {
                const char *s = p;
                while (ident_char(*p)) p++;
                size_t n = (size_t)(p - s);
                bool prefix = n == 1 ? strchr("uUL", *s) != NULL : n == 2 && s[0] == 'u' && s[1] == '8';
                bool raw_prefix = s[n - 1] == 'R' && (n == 1 || (n == 2 && strchr("uUL", *s)) ||
                                                      (n == 3 && s[0] == 'u' && s[1] == '8'));
                if (*p == '"' && raw_prefix) p = skip_raw(p);
                else if ((*p == '"' || *p == '\'') && prefix) p = skip_quoted(p);
            } else {
                p++;
            }
        }
    }
}

/* ---- headers and their libraries ---- */

/* OpenMP is no library of the toolkit but the host compiler's option */
#define OPENMP "(openmp)"
#define NPPI_ALL "nppial", "nppicc", "nppidei", "nppif", "nppig", "nppim", "nppist", "nppisu", "nppitc"

static const struct {
    const char *header;  /* the name as #included; ending in '*': a prefix */
    const char *libs[13];
} header_libs[] = {
    {"cublas.h", {"cublas"}},
    {"cublas_v2.h", {"cublas"}},
    {"cublas_api.h", {"cublas"}},
    {"cublasXt.h", {"cublas"}},
    {"cublasLt.h", {"cublasLt"}},
    {"cufft.h", {"cufft"}},
    {"cufftXt.h", {"cufft"}},
    {"cufftw.h", {"cufftw", "cufft"}},
    {"curand.h", {"curand"}}, /* not curand_kernel.h: the device API is all in headers */
    {"cusparse.h", {"cusparse"}},
    {"cusparse_v2.h", {"cusparse"}},
    {"cusparseLt.h", {"cusparseLt"}},
    {"cusolverMg.h", {"cusolverMg"}},
    {"cusolver*", {"cusolver"}}, /* cusolverDn.h, cusolverSp.h, cusolverRf.h, cusolver_common.h */
    /* the old NVTX: a library until CUDA 12; nvtx3/ is headers only and needs none */
    {"nvToolsExt.h", {"nvToolsExt"}},
    {"nvToolsExtCuda.h", {"nvToolsExt"}},
    {"nvToolsExtCudaRt.h", {"nvToolsExt"}},
    {"nvToolsExtSync.h", {"nvToolsExt"}},
    {"nccl.h", {"nccl"}},
    {"omp.h", {OPENMP}},
    {"cuda.h", {"cuda"}}, /* the driver API */
    {"cudaProfiler.h", {"cuda"}},
    {"cudaGL.h", {"cuda"}},
    {"cudaEGL.h", {"cuda"}},
    {"npp.h", {"nppc", NPPI_ALL, "npps"}},
    {"nppi.h", {"nppc", NPPI_ALL}},
    {"nppcore.h", {"nppc"}},
    {"nppi_arithmetic_and_logical_operations.h", {"nppc", "nppial"}},
    {"nppi_color_conversion.h", {"nppc", "nppicc"}},
    {"nppi_data_exchange_and_initialization.h", {"nppc", "nppidei"}},
    {"nppi_filtering_functions.h", {"nppc", "nppif"}},
    {"nppi_geometry_transforms.h", {"nppc", "nppig"}},
    {"nppi_morphological_operations.h", {"nppc", "nppim"}},
    {"nppi_statistics_functions.h", {"nppc", "nppist"}},
    {"nppi_support_functions.h", {"nppc", "nppisu"}},
    {"nppi_threshold_and_compare_operations.h", {"nppc", "nppitc"}},
    {"npps.h", {"nppc", "npps"}},
    {"npps_*", {"nppc", "npps"}},
    {"nvrtc.h", {"nvrtc"}},
    {"nvJitLink.h", {"nvJitLink"}},
    {"nvjpeg.h", {"nvjpeg"}},
    {"cudnn*", {"cudnn"}}, /* cudnn.h, cudnn_ops.h, ... */
    {"cufile.h", {"cufile"}},
    {"nvml.h", {"nvidia-ml"}},
    {"cupti.h", {"cupti"}},
    {"cupti_*", {"cupti"}},
    {"cutensor.h", {"cutensor"}},
};

const char *const *program_header_libraries(const char *name) {
    for (size_t i = 0; i < sizeof header_libs / sizeof header_libs[0]; i++) {
        const char *h = header_libs[i].header;
        size_t n = strlen(h);
        if (h[n - 1] == '*' ? !strncmp(name, h, n - 1) && !strchr(name, '/') : !strcmp(name, h))
            return header_libs[i].libs;
    }
    return NULL;
}

/* ---- libraries the options name ---- */

/* "cublas" or "cublas_static" names cublas. */
static bool same_library(const char *name, size_t n, const char *lib) {
    size_t k = strlen(lib);
    return (n == k || (n == k + 7 && !strncmp(name + k, "_static", 7))) && !strncmp(name, lib, k);
}

/* A list "cublas,cufft" of library names. */
static bool list_names(const char *v, const char *lib) {
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        if (same_library(p, n, lib)) return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* A file: /x/libcublas.so.13, libcublas_static.a, :libcublas.so (-l:). */
static bool file_names(const char *path, size_t len, const char *lib) {
    const char *base = path;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/' || path[i] == ':') base = path + i + 1;
    size_t n = len - (size_t)(base - path);
    if (n < 4 || strncmp(base, "lib", 3)) return false;
    const char *end = NULL;
    for (const char *q = base + 3; q < base + n; q++)
        if (!strncmp(q, ".so", 3) && (q + 3 == base + n || q[3] == '.')) {
            end = q;
            break;
        }
    if (!end && n > 5 && !strncmp(base + n - 2, ".a", 2)) end = base + n - 2;
    return end && same_library(base + 3, (size_t)(end - base - 3), lib);
}

/* What the linker is given: "-lcublas,-rpath,/x" (-Xlinker, -Wl,). */
static bool linker_names(const char *v, const char *lib) {
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        if (n > 2 && p[0] == '-' && p[1] == 'l') {
            if (p[2] == ':' ? file_names(p + 3, n - 3, lib) : same_library(p + 2, n - 2, lib)) return true;
        } else if (n && p[0] != '-' && file_names(p, n, lib)) {
            return true;
        }
        p += n + (p[n] == ',');
    }
    return false;
}

static const char *after(const char *s, const char *prefix) {
    size_t n = strlen(prefix);
    return strncmp(s, prefix, n) ? NULL : s + n;
}

bool program_options_name_library(char *const *options, int n, const char *lib) {
    for (int i = 0; i < n; i++) {
        const char *o = options[i], *v;
        bool next = i + 1 < n;
        if (!strcmp(o, "-l") || !strcmp(o, "--library")) {
            if (next && list_names(options[++i], lib)) return true;
        } else if (!strcmp(o, "-Xlinker") || !strcmp(o, "--linker-options")) {
            if (next && linker_names(options[++i], lib)) return true;
        } else if ((v = after(o, "--library=")) || (v = after(o, "-l="))) {
            if (list_names(v, lib)) return true;
        } else if ((v = after(o, "-Xlinker=")) || (v = after(o, "--linker-options=")) || (v = after(o, "-Wl,"))) {
            if (linker_names(v, lib)) return true;
        } else if ((v = after(o, "-l:"))) {
            if (file_names(v, strlen(v), lib)) return true;
        } else if ((v = after(o, "-l"))) {
            if (list_names(v, lib)) return true;
        } else if (o[0] != '-' && file_names(o, strlen(o), lib)) {
            return true;
        }
    }
    return false;
}

/* ---- where libraries are ---- */

typedef VEC(program_lib_dir_t) dirs_t;

static void add_dir(dirs_t *d, const char *path, bool searched) {
    char real[PATH_MAX];
    struct stat st;
    if (!path || !*path || !realpath(path, real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) return;
    for (size_t i = 0; i < d->n; i++) { /* a folder met again (a link to it) keeps its first place */
        char seen[PATH_MAX];
        if (realpath(d->v[i].path, seen) && !strcmp(seen, real)) return;
    }
    VEC_PUSH(*d, ((program_lib_dir_t){xstrdup(path), searched}));
}

static void add_path_list(dirs_t *d, const char *list, bool searched) {
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ":");
        char *one = xstrndup(p, n);
        add_dir(d, one, searched);
        free(one);
        p += n + (p[n] == ':');
    }
}

/* The toolkit's folders beside nvcc (bin/nvcc -> the toolkit's top):
 * targets/<arch>/lib and its stubs are the ones nvcc passes to the linker
 * (nvcc.profile); lib64 and lib are searched where they are those same
 * folders (links to them, as a toolkit installs them), else need -L. */
static void add_toolkit(dirs_t *d) {
    char *nvcc = program_find_nvcc(NULL, 0);
    if (!nvcc) return;
    char *slash = strrchr(nvcc, '/');
    if (slash) *slash = 0;
    char *up = xasprintf("%s/..", slash ? nvcc : ".");
    free(nvcc);
    char real[PATH_MAX];
    char *top = realpath(up, real) ? xstrdup(real) : xstrdup(up); /* -L /usr/local/cuda-13.0/lib, not .../bin/../lib */
    free(up);
    static const char *const targets[] = {"targets/*/lib", "targets/*/lib64", "targets/*/lib/stubs",
                                          "targets/*/lib64/stubs"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char *pat = xasprintf("%s/%s", top, targets[i]);
        glob_t g;
        if (glob(pat, 0, NULL, &g) == 0)
            for (size_t k = 0; k < g.gl_pathc; k++) add_dir(d, g.gl_pathv[k], true);
        globfree(&g);
        free(pat);
    }
    static const char *const others[] = {"lib64", "lib", "lib64/stubs", "lib/stubs", "extras/CUPTI/lib64"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        char *dir = xasprintf("%s/%s", top, others[i]);
        add_dir(d, dir, false); /* nothing when it is one of the targets' folders */
        free(dir);
    }
    free(top);
}

/* The folders an ld.so.conf file lists ("include" lines followed). */
static void add_ld_conf(dirs_t *d, const char *file, int depth) {
    FILE *f = depth < 4 ? fopen(file, "r") : NULL;
    if (!f) return;
    char line[PATH_MAX];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\r\n")] = 0;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (!strncmp(p, "include", 7) && isspace((unsigned char)p[7])) {
            p += 8;
            while (isspace((unsigned char)*p)) p++;
            p[strcspn(p, " \t")] = 0;
            char *pat = *p == '/' ? xstrdup(p) : xasprintf("/etc/%s", p);
            glob_t g;
            if (*p && glob(pat, 0, NULL, &g) == 0)
                for (size_t k = 0; k < g.gl_pathc; k++) add_ld_conf(d, g.gl_pathv[k], depth + 1);
            if (*p) globfree(&g);
            free(pat);
        } else if (*p == '/') {
            p[strcspn(p, " \t,:=")] = 0;
            add_dir(d, p, false);
        }
    }
    fclose(f);
}

#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MULTIARCH "powerpc64le-linux-gnu"
#else
#define MULTIARCH "unknown"
#endif

program_lib_dir_t *program_library_dirs(int *n) {
    dirs_t d = {0};
    add_toolkit(&d);
    add_path_list(&d, getenv("LIBRARY_PATH"), true); /* gcc gives these to the linker */
    static const char *const linker[] = {"/usr/local/lib/" MULTIARCH, "/lib/" MULTIARCH, "/usr/lib/" MULTIARCH,
                                         "/usr/local/lib", "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
    for (size_t i = 0; i < sizeof linker / sizeof linker[0]; i++) add_dir(&d, linker[i], true);
    add_ld_conf(&d, "/etc/ld.so.conf", 0);
    add_path_list(&d, getenv("LD_LIBRARY_PATH"), false);
    *n = (int)d.n;
    return d.v;
}

void program_library_dirs_free(program_lib_dir_t *dirs, int n) {
    for (int i = 0; i < n; i++) free(dirs[i].path);
    free(dirs);
}

/* ---- what a program asks for ---- */

typedef struct {
    const char *lib;
    const char *header; /* the first #include that asked for it */
} want_t;

typedef struct {
    const header_file_t *headers;
    int nheaders;
    bool *seen;             /* headers scanned already */
    const char *including;  /* the %%header file being scanned (NULL: the source) */
    VEC(want_t) wants;
    VEC(char *) names;      /* the included names the wants point at */
} scan_t;

/* A %%header file that an #include of name from sc->including reaches:
 * beside the including header first, then by its own name. -1: none. */
static int header_of(const scan_t *sc, const char *name) {
    const char *slash = sc->including ? strrchr(sc->including, '/') : NULL;
    for (int pass = slash ? 0 : 1; pass < 2; pass++)
        for (int i = 0; i < sc->nheaders; i++) {
            const char *h = sc->headers[i].name;
            if (pass == 0 ? (!strncmp(h, sc->including, (size_t)(slash + 1 - sc->including)) &&
                             !strcmp(h + (slash + 1 - sc->including), name))
                          : !strcmp(h, name))
                return i;
        }
    return -1;
}

static void on_include(void *ctx, const char *name, bool angled) {
    (void)angled; /* a %%header file is found either way: the build folder is on the include path */
    scan_t *sc = ctx;
    const char *const *libs = program_header_libraries(name);
    for (int i = 0; libs && libs[i]; i++) {
        bool have = false;
        for (size_t k = 0; k < sc->wants.n && !have; k++) have = !strcmp(sc->wants.v[k].lib, libs[i]);
        if (have) continue;
        char *kept = xstrdup(name);
        VEC_PUSH(sc->names, kept);
        VEC_PUSH(sc->wants, ((want_t){libs[i], kept}));
    }
    int h = header_of(sc, name);
    if (h >= 0 && !sc->seen[h]) {
        sc->seen[h] = true;
        const char *outer = sc->including;
        sc->including = sc->headers[h].name;
        program_scan_includes(sc->headers[h].text, on_include, sc);
        sc->including = outer;
    }
}

/* Whether dir holds liblib.so or liblib.a (what -llib links). */
static bool dir_has(const char *dir, const char *lib) {
    static const char *const forms[] = {"%s/lib%s.so", "%s/lib%s.a"};
    for (int i = 0; i < 2; i++) {
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, forms[i], dir, lib) < (int)sizeof path && stat(path, &st) == 0 &&
            S_ISREG(st.st_mode))
            return true;
    }
    return false;
}

char **program_libraries_among(const char *source, const header_file_t *headers, int nheaders,
                               char *const *user_options, int nuser, const program_lib_dir_t *dirs, int ndirs,
                               char **why) {
    scan_t sc = {.headers = headers, .nheaders = nheaders, .seen = xcalloc((size_t)nheaders + 1, sizeof(bool))};
    program_scan_includes(source, on_include, &sc);
    VEC(char *) out = {0};
    VEC(const char *) asked = {0};
    for (size_t i = 0; i < sc.wants.n; i++) {
        const want_t *w = &sc.wants.v[i];
        if (!strcmp(w->lib, OPENMP)) { /* the host compiler's: its option compiles the pragmas and links the runtime */
            bool given = false;
            for (int k = 0; k < nuser && !given; k++) given = strstr(user_options[k], "fopenmp") != NULL;
            for (size_t k = 0; k < out.n && !given; k++) given = !strcmp(out.v[k], "-fopenmp");
            if (given) continue;
            VEC_PUSH(out, xstrdup("-Xcompiler"));
            VEC_PUSH(out, xstrdup("-fopenmp"));
            VEC_PUSH(asked, w->header);
            continue;
        }
        if (program_options_name_library(user_options, nuser, w->lib)) continue;
        int d = 0;
        while (d < ndirs && !dir_has(dirs[d].path, w->lib)) d++;
        if (d == ndirs) continue; /* not installed: nvcc says what is missing */
        if (!dirs[d].searched) {
            char *opt = xasprintf("-L%s", dirs[d].path);
            bool have = false;
            for (size_t k = 0; k < out.n && !have; k++) have = !strcmp(out.v[k], opt);
            if (have) free(opt);
            else VEC_PUSH(out, opt);
        }
        VEC_PUSH(out, xasprintf("-l%s", w->lib));
        bool have = false;
        for (size_t k = 0; k < asked.n && !have; k++) have = !strcmp(asked.v[k], w->header);
        if (!have) VEC_PUSH(asked, w->header);
    }
    if (why) {
        strbuf_t b = {0};
        for (size_t k = 0; k < asked.n; k++) sb_printf(&b, "%s%s", k ? ", " : "", asked.v[k]);
        *why = asked.n ? sb_take(&b) : NULL;
    }
    VEC_FREE(asked);
    for (size_t i = 0; i < sc.names.n; i++) free(sc.names.v[i]);
    VEC_FREE(sc.names);
    VEC_FREE(sc.wants);
    free(sc.seen);
    if (!out.n) {
        VEC_FREE(out);
        return NULL;
    }
    VEC_PUSH(out, NULL);
    return out.v;
}

char **program_libraries_for(const char *source, const header_file_t *headers, int nheaders,
                             char *const *user_options, int nuser, char **why) {
    int n = 0;
    program_lib_dir_t *dirs = program_library_dirs(&n);
    char **r = program_libraries_among(source, headers, nheaders, user_options, nuser, dirs, n, why);
    program_library_dirs_free(dirs, n);
    return r;
}

void program_strings_free(char **v) {
    for (size_t i = 0; v && v[i]; i++) free(v[i]);
    free(v);
}
