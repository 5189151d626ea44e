/* A precompiled header for the host compile of nvcc's steps (nvcc_pch.h). */
#include "nvcc_pch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "program_run.h"
#include "runtime/base/cache_evict.h"
#include "runtime/base/file_read.h"
#include "runtime/base/make_dirs.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

#define PCH_HEADER "prefix.h"
#define PCH_FILE "prefix.h.gch"
#define BUILD_PREFIX ".build-"
#define TEXT_MAX ((size_t)1 << 30) /* cudafe++'s host text of a unit: a Thrust one is about 10 MB */
/* a temporary folder is a build under way while the kernel that named
 * itself in it lives, and for no longer than this */
#define STALE_BUILD_S 900

/* Where the line NVCC_PCH_MARKER ends (past its newline), or 0. */
static size_t marker_end(const char *text, size_t len) {
    size_t m = strlen(NVCC_PCH_MARKER);
    for (size_t i = 0; i + m <= len; i++) {
        if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, NVCC_PCH_MARKER, m)) {
            size_t j = i + m;
            while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) j++;
            if (j < len && text[j] == '\n') return j + 1;
        }
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl) break;
        i = (size_t)(nl - text);
    }
    return 0;
}

static void digest_hex(EVP_MD_CTX *md, char *hex, size_t ndigits) {
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(md, d, &n);
    EVP_MD_CTX_free(md);
    for (size_t i = 0; i < ndigits / 2 && i < n; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static EVP_MD_CTX *digest_start(const char *what) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!md) abort();
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    EVP_DigestUpdate(md, what, strlen(what) + 1);
    return md;
}

bool nvcc_pch_module_hash(const char *unit, char hex[17]) {
    size_t end = marker_end(unit, strlen(unit));
    if (!end) return false;
    VEC(char *) seen = {0};
    EVP_MD_CTX *md = digest_start("icuda-module-1");
    for (const char *p = unit; p < unit + end;) {
        const char *nl = memchr(p, '\n', (size_t)(unit + end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(unit + end - p);
        const char *q = p;
        while (q < p + n && (*q == ' ' || *q == '\t')) q++;
        if (q < p + n && *q == '#') {
            q++;
            while (q < p + n && (*q == ' ' || *q == '\t')) q++;
            if ((size_t)(p + n - q) >= 7 && !strncmp(q, "include", 7)) {
                char *line = xstrndup(q, (size_t)(p + n - q));
                bool again = false;
                for (size_t i = 0; i < seen.n && !again; i++) again = !strcmp(seen.v[i], line);
                if (again) {
                    free(line);
                } else {
                    EVP_DigestUpdate(md, line, strlen(line) + 1);
                    VEC_PUSH(seen, line);
                }
            }
        }
        p += n + 1;
    }
    for (size_t i = 0; i < seen.n; i++) free(seen.v[i]);
    VEC_FREE(seen);
    digest_hex(md, hex, 16);
    hex[16] = 0;
    return true;
}

int nvcc_pch_input_word(char *const *argv) {
    static const char suffix[] = ".cudafe1.cpp";
    for (int i = 1; argv[i]; i++) {
        size_t n = strlen(argv[i]);
        if (n > sizeof suffix - 1 && !strcmp(argv[i] + n - (sizeof suffix - 1), suffix)) return i;
    }
    return -1;
}

static int write_text(const char *path, const char *a, size_t na, const char *b, size_t nb) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    bool ok = fwrite(a, 1, na, f) == na && (!nb || fwrite(b, 1, nb, f) == nb);
    return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* The header's name: its text and every word of the compile but the input
 * and the output, and which compiler (a .gch is only good for its own). */
static void key_of(char *const *argv, int input, const char *prefix, size_t n, char hex[65]) {
    EVP_MD_CTX *md = digest_start("icuda-pch-1");
    EVP_DigestUpdate(md, prefix, n);
    for (int i = 0; argv[i]; i++) {
        if (i == input) continue;
        if (!strcmp(argv[i], "-o") && argv[i + 1]) {
            i++;
            continue;
        }
        EVP_DigestUpdate(md, argv[i], strlen(argv[i]) + 1);
    }
    struct stat st;
    if (stat(argv[0], &st) == 0) {
        long long id[3] = {(long long)st.st_size, (long long)st.st_mtime, (long long)st.st_ino};
        EVP_DigestUpdate(md, id, sizeof id);
    }
    digest_hex(md, hex, 64);
    hex[64] = 0;
}

/* dir/name into out; false when it does not fit */
static bool join(char out[PATH_MAX], const char *dir, const char *name) {
    int n = snprintf(out, PATH_MAX, "%s/%s", dir, name);
    return n >= 0 && n < PATH_MAX;
}

static void remove_entry(const char *dir) {
    char path[PATH_MAX];
    static const char *const files[] = {PCH_FILE, PCH_HEADER};
    for (int i = 0; i < 2; i++)
        if (join(path, dir, files[i])) unlink(path);
    rmdir(dir);
}

typedef struct {
    const char *key; /* NULL: any */
    bool pending;
} builds_t;

/* A temporary folder is KEY-PID-XXXXXX: a build under way while that
 * process lives; removed once it has gone, or when stale. */
static void temporary(void *ctx, const char *name, const char *path, long long mtime) {
    builds_t *b = ctx;
    if (strncmp(name, BUILD_PREFIX, strlen(BUILD_PREFIX))) return;
    const char *k = name + strlen(BUILD_PREFIX);
    long pid = strlen(k) > 65 ? strtol(k + 65, NULL, 10) : 0;
    bool alive = pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
    if (!alive || (long long)time(NULL) - mtime > STALE_BUILD_S) remove_entry(path);
    else if (b->key && !strncmp(k, b->key, 64)) b->pending = true;
}

/* Keeps the NVCC_PCH_KEEP most recently used headers; removes temporary
 * folders of builds long dead. Returns whether a build of key is under
 * way. */
static bool tidy(const char *root, const char *key) {
    builds_t b = {.key = key};
    cache_folders_t how = {.remove = remove_entry, .temporary = temporary, .ctx = &b};
    cache_keep_recent_folders(root, NVCC_PCH_KEEP, &how);
    return b.pending;
}

typedef struct {
    char **argv;
    char *tmp, *final, *root;
} job_t;

static void job_free(job_t *j) {
    for (char **p = j->argv; *p; p++) free(*p);
    free(j->argv);
    free(j->tmp);
    free(j->final);
    free(j->root);
    free(j);
}

static void *build(void *arg) {
    job_t *j = arg;
    proc_opts_t o = {.cwd = j->tmp};
    proc_result_t r;
    bool ok = proc_run(j->argv, &o, &r) == 0 && r.exited && r.exit_status == 0 && !r.interrupted;
    proc_result_free(&r);
    char gch[PATH_MAX];
    if (ok && join(gch, j->tmp, PCH_FILE) && access(gch, R_OK) == 0 && rename(j->tmp, j->final) == 0)
        tidy(j->root, NULL);
    else remove_entry(j->tmp);
    job_free(j);
    return NULL;
}

/* The host compile's words, made to write the header: the prefix in, as a
 * header, the .gch out. */
static char **header_argv(char *const *argv, int input) {
    int n = 0;
    while (argv[n]) n++;
    char **v = xcalloc((size_t)n + 1, sizeof *v);
    for (int i = 0; i < n; i++) {
        const char *w = argv[i];
        if (i == input) w = PCH_HEADER;
        else if (i > 0 && !strcmp(argv[i - 1], "-x") && !strcmp(w, "c++")) w = "c++-header";
        else if (i > 0 && !strcmp(argv[i - 1], "-o")) w = PCH_FILE;
        v[i] = xstrdup(w);
    }
    return v;
}

static nvcc_pch_status_t start_build(char *const *argv, int input, const char *root, const char *key,
                                     const char *final, const char *prefix, size_t n) {
    if (make_dirs(root) != 0 || tidy(root, key)) return NVCC_PCH_PENDING;
    char *tmp = xasprintf("%s/%s%s-%ld-XXXXXX", root, BUILD_PREFIX, key, (long)getpid());
    char header[PATH_MAX];
    if (!mkdtemp(tmp) || !join(header, tmp, PCH_HEADER)) {
        free(tmp);
        return NVCC_PCH_NONE;
    }
    job_t *j = xcalloc(1, sizeof *j);
    *j = (job_t){.argv = header_argv(argv, input), .tmp = tmp, .final = xstrdup(final), .root = xstrdup(root)};
    pthread_attr_t at;
    pthread_t th;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    bool started = write_text(header, prefix, n, NULL, 0) == 0 && pthread_create(&th, &at, build, j) == 0;
    pthread_attr_destroy(&at);
    if (started) return NVCC_PCH_BUILDING;
    remove_entry(tmp);
    job_free(j);
    return NVCC_PCH_NONE;
}

nvcc_pch_status_t nvcc_pch_prepare(char *const *argv, const char *dir, const char *root, bool may_build,
                                   char **input) {
    *input = NULL;
    const char *env = getenv(NVCC_PCH_ENV);
    int k = nvcc_pch_input_word(argv);
    if ((env && !strcmp(env, "0")) || !root || k < 0) return NVCC_PCH_NONE;
    char path[PATH_MAX];
    if (!join(path, dir, argv[k])) return NVCC_PCH_NONE;
    size_t len = 0;
    char *text = file_read_text(path, TEXT_MAX, false, &len);
    size_t end = text ? marker_end(text, len) : 0;
    nvcc_pch_status_t st = NVCC_PCH_NONE;
    if (end >= NVCC_PCH_MIN_BYTES) {
        char key[65], final[PATH_MAX], gch[PATH_MAX];
        key_of(argv, k, text, end, key);
        bool fits = join(final, root, key) && join(gch, final, PCH_FILE);
        if (!fits) {
            /* a folder too deep for a path: compiled as it is */
        } else if (access(gch, R_OK) == 0) {
            /* x.cudafe1.cpp -> x.cudafe1.pch.cpp */
            char *name = xasprintf("%.*spch.cpp", (int)(strlen(argv[k]) - strlen("cpp")), argv[k]);
            char *line = xasprintf("#include \"%s/%s\"\n", final, PCH_HEADER);
            char out[PATH_MAX];
            if (join(out, dir, name) && write_text(out, line, strlen(line), text + end, len - end) == 0) {
                utimensat(AT_FDCWD, final, NULL, 0); /* recently used: removed last */
                *input = name;
                st = NVCC_PCH_USED;
            } else {
                free(name);
            }
            free(line);
        } else if (may_build) {
            st = start_build(argv, k, root, key, final, text, end);
        } else {
            st = tidy(root, key) ? NVCC_PCH_PENDING : NVCC_PCH_NONE;
        }
    }
    free(text);
    return st;
}
