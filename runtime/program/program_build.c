/* A %%program's build and its cache (program_build.h). */
#include "program_build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuda_tools.h"
#include "nvcc_steps.h"
#include "program_libs.h"
#include "program_run.h"
#include "runtime/base/make_dirs.h"
#include "runtime/base/cache_evict.h"
#include "runtime/base/file_read.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

#define STALE_BUILD_S (24 * 3600) /* a build folder a crashed kernel left */

bool program_options_choose_arch(char *const *options, int n) {
    static const char *const words[] = {"-arch", "--gpu-architecture", "-gencode", "--generate-code",
                                        "-code", "--gpu-code"};
    for (int i = 0; i < n; i++)
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            size_t k = strlen(words[w]);
            if (!strncmp(options[i], words[w], k) && (options[i][k] == 0 || options[i][k] == '=')) return true;
        }
    return false;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)ftw;
    if (flag == FTW_DP) rmdir(path);
    else unlink(path);
    return 0;
}

void program_remove_tree(const char *dir) {
    if (dir && *dir) nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void hash_str(EVP_MD_CTX *md, const char *s) {
    if (!s) s = "";
    EVP_DigestUpdate(md, s, strlen(s) + 1);
}

/* A file's identity: a new toolkit or compiler changes it. */
static void hash_file(EVP_MD_CTX *md, const char *path) {
    char real[PATH_MAX], id[PATH_MAX + 96];
    struct stat st;
    if (!path || !realpath(path, real) || stat(real, &st) != 0) {
        hash_str(md, "-");
        return;
    }
    snprintf(id, sizeof id, "%s %lld %lld.%09ld", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec);
    hash_str(md, id);
}

#define KEY_INCLUDES_MAX 2000        /* files followed at most: an include folder as big as a toolkit's stays cheap */
#define KEY_INCLUDE_BYTES (4 << 20)  /* of each, the part scanned for its own #includes */

/* The files a program includes from its include folders (or by an absolute
 * path), followed through their own #includes: each one's identity joins
 * the key, as the build reads them from where they are. */
typedef struct {
    EVP_MD_CTX *md;
    char *const *dirs;
    int ndirs;
    const char *from; /* the folder of the file being scanned; NULL: the build folder */
    VEC(char *) seen; /* real paths scanned already */
} key_includes_t;

static bool regular(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void key_include(void *ctx, const char *name, bool angled) {
    key_includes_t *x = ctx;
    char path[PATH_MAX], real[PATH_MAX];
    bool found = name[0] == '/' && snprintf(path, sizeof path, "%s", name) < (int)sizeof path && regular(path);
    if (!found && name[0] != '/' && !angled && x->from) /* "name" looks beside its includer first */
        found = snprintf(path, sizeof path, "%s/%s", x->from, name) < (int)sizeof path && regular(path);
    for (int i = 0; !found && name[0] != '/' && i < x->ndirs; i++)
        found = snprintf(path, sizeof path, "%s/%s", x->dirs[i], name) < (int)sizeof path && regular(path);
    if (!found || !realpath(path, real)) return;
    hash_str(x->md, name);
    hash_file(x->md, real);
    for (size_t i = 0; i < x->seen.n; i++)
        if (!strcmp(x->seen.v[i], real)) return;
    if (x->seen.n >= KEY_INCLUDES_MAX) return;
    VEC_PUSH(x->seen, xstrdup(real));
    char *text = file_read_text(real, KEY_INCLUDE_BYTES, true, NULL);
    if (!text) return;
    *strrchr(real, '/') = 0;
    const char *outer = x->from;
    x->from = real;
    program_scan_includes(text, key_include, x);
    x->from = outer;
    free(text);
}

/* opts: every option but -arch, in the order nvcc gets them. */
static void key_of(const program_spec_t *s, char *const *opts, int nopts, const char *nvcc, bool add_arch,
                   char hex[65]) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md) abort();
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    hash_str(md, "icuda-program-1");
    hash_str(md, s->source);
    for (int i = 0; i < nopts; i++) hash_str(md, opts[i]);
    hash_str(md, add_arch ? s->arch : "");
    hash_str(md, s->output);
    for (int i = 0; i < s->nheaders; i++) {
        hash_str(md, s->headers[i].name);
        hash_str(md, s->headers[i].text);
    }
    key_includes_t inc = {.md = md, .dirs = s->include_dirs, .ndirs = s->ninclude_dirs};
    program_scan_includes(s->source, key_include, &inc);
    for (int i = 0; i < s->nheaders; i++) program_scan_includes(s->headers[i].text, key_include, &inc);
    for (size_t i = 0; i < inc.seen.n; i++) free(inc.seen.v[i]);
    VEC_FREE(inc.seen);
    hash_file(md, nvcc);
    const char *const compilers[] = {"gcc", "g++"};
    for (int i = 0; i < 2; i++) {
        char *c = proc_on_path(NULL, compilers[i]);
        hash_file(md, c);
        free(c);
    }
    hash_str(md, getenv("NVCC_PREPEND_FLAGS"));
    hash_str(md, getenv("NVCC_APPEND_FLAGS"));
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(md, d, &len);
    EVP_MD_CTX_free(md);
    for (unsigned i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static int write_file(const char *dir, const char *name, const char *text) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *slash = strrchr(path, '/');
    *slash = 0;
    if (make_dirs(path) != 0) return -1;
    *slash = '/';
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    if (n && text[n - 1] != '\n') ok = fputc('\n', f) != EOF && ok;
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* A header name that stays inside the build folder. */
static bool safe_name(const char *name) {
    if (!*name || name[0] == '/') return false;
    for (const char *p = name; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : p + strlen(p))
        if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2])) return false;
    return true;
}

static char *path_in(const char *dir, const char *name) {
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0) abort();
    return p;
}

static void drop_stale_build(void *ctx, const char *name, const char *path, long long mtime) {
    (void)ctx;
    if (!strncmp(name, ".build-", 7) && (long long)time(NULL) - mtime > STALE_BUILD_S) program_remove_tree(path);
}

/* Keeps the PROGRAM_CACHE_KEEP programs run last; drops stale build folders. */
static void prune(const char *root) {
    cache_folders_t how = {.remove = program_remove_tree, .temporary = drop_stale_build};
    cache_keep_recent_folders(root, PROGRAM_CACHE_KEEP, &how);
}

static const char *output_of(const program_spec_t *s) { return s->output ? s->output : "prog"; }

/* nvcc in the build folder (opts: all but -arch), or its steps
 * (s->phased; hex: the build's key); its output into b->log. */
static program_status_t run_nvcc(char *nvcc, const char *arch, const program_spec_t *s, char *const *opts, int nopts,
                                 const char *hex, program_binary_t *b) {
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", arch ? arch : "");
    char **argv = xcalloc((size_t)nopts + 8, sizeof *argv);
    int n = 0;
    argv[n++] = nvcc;
    if (arch) argv[n++] = arch_opt;
    for (int i = 0; i < nopts; i++) argv[n++] = opts[i];
    argv[n++] = "-o";
    argv[n++] = (char *)output_of(s);
    argv[n++] = PROGRAM_UNIT;
    proc_opts_t o = {.cwd = b->dir};
    proc_result_t r;
    char why[256];
    char *pch = s->cache_dir ? path_in(s->cache_dir, "pch") : NULL;
    int rc = s->phased && nvcc_steps_run(argv, b->dir, hex, pch, &r, why, sizeof why) == NVCC_STEPS_RAN
                 ? 0
                 : proc_run(argv, &o, &r);
    free(argv);
    free(pch);
    program_status_t st;
    if (rc != 0) {
        snprintf(b->why, sizeof b->why, "%s", r.why);
        st = PROGRAM_ERROR;
    } else if (r.interrupted) {
        st = PROGRAM_INTERRUPTED;
    } else if (!r.exited || r.exit_status != 0) {
        b->nvcc_status = r.exited ? r.exit_status : 128 + r.signal;
        st = PROGRAM_FAILED;
    } else {
        st = PROGRAM_BUILT;
    }
    b->log = r.output;
    return st;
}

/* whether the options already say how device code is compiled for linking */
static bool chooses_rdc(char *const *opts, int n) {
    for (int i = 0; i < n; i++)
        if (!strncmp(opts[i], "-rdc", 4) || !strncmp(opts[i], "--relocatable-device-code", 25) ||
            !strcmp(opts[i], "-dc") || !strcmp(opts[i], "--device-c"))
            return true;
    return false;
}

/* program_build once the options and the key are known. */
static program_status_t build_in(const program_spec_t *s, char *const *opts, int nopts, char *nvcc, bool add_arch,
                                 const char *hex, program_binary_t *b) {
    char root[PATH_MAX] = "";
    if (s->cache_dir) {
        snprintf(root, sizeof root, "%s/programs", s->cache_dir);
        if (make_dirs(root) != 0) root[0] = 0; /* no cache then, but a build all the same */
    }
    if (root[0]) {
        b->dir = path_in(root, hex);
        b->binary = path_in(b->dir, output_of(s));
        if (access(b->binary, R_OK) == 0) {
            utimensat(AT_FDCWD, b->dir, NULL, 0); /* recently used: pruned last */
            return PROGRAM_CACHED;
        }
        free(b->dir);
        free(b->binary);
        b->dir = b->binary = NULL;
    }

    char tmpl[PATH_MAX + 32];
    if (root[0]) {
        snprintf(tmpl, sizeof tmpl, "%s/.build-XXXXXX", root);
    } else {
        const char *t = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/icuda-program-XXXXXX", t && *t ? t : "/tmp");
    }
    if (!mkdtemp(tmpl)) {
        snprintf(b->why, sizeof b->why, "cannot make a build folder %.900s: %s", tmpl, strerror(errno));
        return PROGRAM_ERROR;
    }
    b->dir = xstrdup(tmpl);
    int werr = write_file(b->dir, PROGRAM_UNIT, s->source);
    for (int i = 0; i < s->nheaders && !werr; i++)
        if (safe_name(s->headers[i].name)) werr = write_file(b->dir, s->headers[i].name, s->headers[i].text);
    if (werr) {
        snprintf(b->why, sizeof b->why, "cannot write the program into %s: %s", b->dir, strerror(errno));
        program_remove_tree(b->dir);
        return PROGRAM_ERROR;
    }

    program_status_t st = run_nvcc(nvcc, add_arch ? s->arch : NULL, s, opts, nopts, hex, b);
    if (st == PROGRAM_FAILED && add_arch && b->log && strstr(b->log, "Unsupported gpu architecture")) {
        /* a GPU newer than this nvcc: its default architecture's PTX, which the driver compiles */
        free(b->log);
        b->log = NULL;
        b->arch_refused = true;
        st = run_nvcc(nvcc, NULL, s, opts, nopts, hex, b);
    }
    if (st == PROGRAM_FAILED && b->log && strstr(b->log, "requires separate compilation mode") &&
        !chooses_rdc(opts, nopts)) {
        /* a kernel launched from device code (dynamic parallelism) links
         * only as relocatable device code: built so, as its Makefile would */
        free(b->log);
        b->log = NULL;
        char **with = xcalloc((size_t)nopts + 1, sizeof *with);
        for (int i = 0; i < nopts; i++) with[i] = opts[i];
        with[nopts] = "-rdc=true";
        st = run_nvcc(nvcc, add_arch && !b->arch_refused ? s->arch : NULL, s, with, nopts + 1, hex, b);
        free(with);
    }
    if (st != PROGRAM_BUILT) {
        program_remove_tree(b->dir);
        return st;
    }
    if (root[0]) { /* the finished build becomes the cache entry, all at once */
        char *final = path_in(root, hex);
        if (rename(b->dir, final) != 0) program_remove_tree(b->dir); /* another kernel made it first */
        free(b->dir);
        b->dir = final;
        prune(root);
    } else {
        b->temporary = true;
    }
    b->binary = path_in(b->dir, output_of(s));
    if (access(b->binary, R_OK) != 0) {
        snprintf(b->why, sizeof b->why, "nvcc made no %s in %s", s->output ? s->output : "executable", b->dir);
        return PROGRAM_ERROR;
    }
    return st;
}

program_status_t program_build(const program_spec_t *s, program_binary_t *b) {
    memset(b, 0, sizeof *b);
    char where[2048] = "";
    char *nvcc = program_find_nvcc(where, sizeof where);
    if (!nvcc) {
        snprintf(b->why, sizeof b->why, "%.1000s", where);
        return PROGRAM_NO_NVCC;
    }
    bool add_arch = s->arch && *s->arch && !program_options_choose_arch(s->options, s->noptions);
    /* nvcc's options: icuda's, the user's, the include folders, the libraries the #includes ask for */
    char **libs = s->link_includes ? program_libraries_for(s->source, s->headers, s->nheaders, s->options,
                                                           s->noptions, &b->linked_for)
                                   : NULL;
    VEC(char *) opts = {0};
    for (int i = 0; i < s->nextra; i++) VEC_PUSH(opts, s->extra[i]);
    for (int i = 0; i < s->noptions; i++) VEC_PUSH(opts, s->options[i]);
    for (int i = 0; i < s->ninclude_dirs; i++) {
        VEC_PUSH(opts, "-I");
        VEC_PUSH(opts, s->include_dirs[i]);
    }
    if (libs) {
        strbuf_t said = {0};
        for (int i = 0; libs[i]; i++) {
            VEC_PUSH(opts, libs[i]);
            sb_printf(&said, "%s%s", i ? " " : "", libs[i]);
        }
        b->linked = sb_take(&said);
    }
    char hex[65];
    key_of(s, opts.v, (int)opts.n, nvcc, add_arch, hex);
    program_status_t st = build_in(s, opts.v, (int)opts.n, nvcc, add_arch, hex, b);
    VEC_FREE(opts);
    program_strings_free(libs);
    free(nvcc);
    return st;
}

char **program_include_dirs(const device_session_t *ds, int *n) {
    VEC(char *) d = {0};
    for (int i = 0; i < ds->ninclude_dirs; i++) VEC_PUSH(d, xstrdup(ds->include_dirs[i]));
    char cwd[PATH_MAX];
    bool listed = false;
    if (getcwd(cwd, sizeof cwd)) {
        for (size_t i = 0; i < d.n && !listed; i++) listed = !strcmp(d.v[i], cwd);
        if (!listed) VEC_PUSH(d, xstrdup(cwd));
    }
    *n = (int)d.n;
    VEC_PUSH(d, NULL);
    return d.v;
}

void program_binary_free(program_binary_t *b) {
    if (b->temporary) program_remove_tree(b->dir);
    free(b->binary);
    free(b->dir);
    free(b->log);
    free(b->linked);
    free(b->linked_for);
    memset(b, 0, sizeof *b);
}
