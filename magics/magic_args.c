/* The magics' argument parsing, kept apart from the magics themselves so
 * that it links alone (tests/fuzz/fuzz_magic_args.c): the word splitter
 * every magic uses, and the option parsers of %timeit, %plot/%hist,
 * %host_tier/%%host and %%program. Pure: no session, no GPU. */
#include "magic_args.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
int magic_usage_error(const magic_t *m, cell_error_t *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0) msg = NULL;
    va_end(ap);
    json_t *tb = json_array();
    json_array_append_new(tb, json_sprintf("\x1b[1;31mUsageError\x1b[0m: %s", msg ? msg : ""));
    json_array_append_new(tb, json_sprintf("usage: %s", m->usage));
    cell_error_set(err, "UsageError", tb, "%s", msg ? msg : "");
    free(msg);
    return -1;
}

/* appends w to the word vector *v of *n words, room for *cap */
static void push_word(char ***v, int *n, int *cap, char *w) {
    if (*n == *cap) {
        *cap *= 2;
        *v = xrealloc(*v, (size_t)*cap * sizeof **v);
    }
    (*v)[(*n)++] = w;
}

int magic_split_args(const char *args, char ***argv) {
    int n = 0, cap = 8;
    char **v = xmalloc(cap * sizeof *v);
    const char *p = args;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        strbuf_t b = {0};
        bool quoted = false;
        for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
            if (*p == '"') quoted = !quoted;
            else sb_putc(&b, *p);
        }
        push_word(&v, &n, &cap, sb_take(&b));
    }
    *argv = v;
    return n;
}

void magic_free_args(char **argv, int argc) {
    for (int i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

void timeit_opts_free(timeit_opts_t *o) {
    free(o->out);
    free(o->bytes);
    free(o->flops);
}

/* An option's value: up to white space outside brackets and quotes; a value
 * wholly in double quotes loses them. NULL when there is none. */
static char *value_token(const char **pp) {
    const char *p = *pp;
    while (*p == ' ' || *p == '\t') p++;
    const char *s = p;
    int depth = 0;
    char q = 0;
    for (; *p; p++) {
        if (q) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == q) q = 0;
        } else if (*p == '"' || *p == '\'') q = *p;
        else if (*p == '(' || *p == '[' || *p == '{') depth++;
        else if ((*p == ')' || *p == ']' || *p == '}') && depth > 0) depth--;
        else if (isspace((unsigned char)*p) && depth == 0) break;
    }
    *pp = p;
    size_t n = (size_t)(p - s);
    if (!n) return NULL;
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"') s++, n -= 2;
    char *v = xstrndup(s, n);
    return v;
}

static bool is_c_name(const char *s) {
    static const char *const kw[] = {"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
                                     "else", "enum", "extern", "float", "for", "goto", "if", "int", "long",
                                     "register", "return", "short", "signed", "sizeof", "static", "struct",
                                     "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
                                     "true", "false", "inline", "restrict", "dim3", "timeit_result", NULL};
    if (!s || !(isalpha((unsigned char)*s) || *s == '_') || strlen(s) > 63) return false;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') return false;
    for (int i = 0; kw[i]; i++)
        if (!strcmp(s, kw[i])) return false;
    return true;
}

static bool parse_count(const char *v, long max, long *out) {
    if (!v || !*v) return false;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < 1 || x > max) return false;
    *out = x;
    return true;
}

int timeit_parse_opts(const magic_t *m, const char *args, timeit_opts_t *o, cell_error_t *err) {
    memset(o, 0, sizeof *o);
    const char *p = args;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p != '-') break;
        const char *s = p;
        while (*p && !isspace((unsigned char)*p) && *p != '=') p++;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(p - s), s);
        if (!strcmp(name, "--")) break;
        /* -n10 and --bytes=EXPR as well as -n 10 and --bytes EXPR */
        const char *glued = NULL;
        if (s[1] != '-' && (s[1] == 'n' || s[1] == 'r' || s[1] == 'o') && p - s > 2) {
            glued = s + 2;
            name[2] = 0;
        } else if (*p == '=') {
            glued = ++p;
        }
        bool flag = !strcmp(name, "-q");
        bool known = flag || !strcmp(name, "-n") || !strcmp(name, "-r") || !strcmp(name, "-o") ||
                     !strcmp(name, "--bytes") || !strcmp(name, "--flops");
        if (!known) {
            timeit_opts_free(o);
            return magic_usage_error(m, err, "unknown option %s (write -- before a statement that starts with -)",
                                     name);
        }
        if (flag) {
            o->quiet = true;
            continue;
        }
        char *v;
        if (glued) {
            p = glued;
            v = value_token(&p);
        } else v = value_token(&p);
        if (!v) {
            timeit_opts_free(o);
            return magic_usage_error(m, err, "%s needs a value", name);
        }
        bool ok = true;
        if (!strcmp(name, "-n")) ok = parse_count(v, TIMEIT_MAX_RUNS, &o->n);
        else if (!strcmp(name, "-r")) ok = parse_count(v, TIMEIT_MAX_REPEATS, &o->r);
        if (!ok) {
            magic_usage_error(m, err, "%s takes a whole number from 1 to %ld, not %s", name,
                              name[1] == 'n' ? TIMEIT_MAX_RUNS : (long)TIMEIT_MAX_REPEATS, v);
            free(v);
            timeit_opts_free(o);
            return -1;
        }
        if (!strcmp(name, "-o")) {
            if (!is_c_name(v)) {
                magic_usage_error(m, err, "-o takes the name of a variable to store the result in, not %s", v);
                free(v);
                timeit_opts_free(o);
                return -1;
            }
            free(o->out);
            o->out = v;
        } else if (!strcmp(name, "--bytes")) {
            free(o->bytes);
            o->bytes = v;
        } else if (!strcmp(name, "--flops")) {
            free(o->flops);
            o->flops = v;
        } else free(v);
    }
    if (!strncmp(p, "--", 2) && (p[2] == 0 || isspace((unsigned char)p[2]))) p += 2;
    while (*p == ' ' || *p == '\t') p++;
    o->rest = p;
    return 0;
}

int plot_parse_opts(const magic_t *m, char **argv, int argc, bool hist, plot_opts_t *o, cell_error_t *err) {
    memset(o, 0, sizeof *o);
    o->bins = 10;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char **val = NULL;
        if (!strcmp(a, "--loglog")) o->xlog = o->ylog = true;
        else if (!strcmp(a, "--logx")) o->xlog = true;
        else if (!strcmp(a, "--logy")) o->ylog = true;
        else if (!strcmp(a, "--title")) val = &o->title;
        else if (!strcmp(a, "--xlabel")) val = &o->xlabel;
        else if (!strcmp(a, "--ylabel")) val = &o->ylabel;
        else if (!strcmp(a, "--labels") && !hist) val = &o->labels;
        else if ((!strcmp(a, "--kind") && !hist) || (!strcmp(a, "--bins") && hist)) {
            if (i + 1 >= argc) return magic_usage_error(m, err, "%s needs a value", a);
            const char *v = argv[++i];
            if (hist) {
                char *end;
                o->bins = strtol(v, &end, 10);
                if (*end || o->bins < 1 || o->bins > 1000)
                    return magic_usage_error(m, err, "--bins takes a whole number from 1 to 1000, not %s", v);
            } else if (!strcmp(v, "line")) o->kind = PLOT_LINE;
            else if (!strcmp(v, "scatter")) o->kind = PLOT_SCATTER;
            else if (!strcmp(v, "bar")) o->kind = PLOT_BAR;
            else return magic_usage_error(m, err, "--kind is line, scatter or bar, not %s", v);
        } else if (a[0] == '-' && a[1] == '-') return magic_usage_error(m, err, "unknown option %s", a);
        else {
            if (o->nargs == (hist ? 1 : PLOT_MAX_SERIES + 1))
                return magic_usage_error(m, err, hist ? "one array, please" : "at most %d series", PLOT_MAX_SERIES);
            o->args[o->nargs++] = a;
        }
        if (val) {
            if (i + 1 >= argc) return magic_usage_error(m, err, "%s needs a value", a);
            *val = argv[++i];
        }
    }
    if (o->nargs == 0) return magic_usage_error(m, err, "which array%s?", hist ? "" : "s");
    return 0;
}

int host_tier_args(const magic_t *m, const char *args, char *buf, size_t cap, const char **mode, int *opt,
                     cell_error_t *err) {
    snprintf(buf, cap, "%s", args ? args : "");
    *mode = NULL;
    *opt = -1;
    for (char *save = NULL, *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        if (!strcmp(w, "-O0")) *opt = 0;
        else if (!strcmp(w, "-O2")) *opt = 2;
        else if (!strcmp(w, "off") || !strcmp(w, "auto") || !strcmp(w, "always")) *mode = w;
        else return magic_usage_error(m, err, "unknown argument '%s'", w);
    }
    return 0;
}

/* Options that would make nvcc build something other than one executable
 * here, or that icuda sets itself. */
static const char *const refused[] = {"-o", "--output-file", "-c", "--compile", "-ptx", "--ptx", "-cubin", "--cubin",
                                      "-fatbin", "--fatbin", "-E", "--preprocess", "-run", "--run", "-lib", "--lib",
                                      "-shared", "--shared", "-dc", "--device-c", "-M", "--generate-dependencies",
                                      "-odir", "--output-directory"};

/* The magic line split as a shell splits words, since it is a command
 * line (-DNAME=\"text\"): '...' as it stands, "..." with \" and \\ inside,
 * a backslash outside quotes keeps the next character. */
static int split_words(const char *line, char ***out) {
    int n = 0, cap = 8;
    char **v = xmalloc(cap * sizeof *v);
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) break;
        strbuf_t b = {0};
        char q = 0;
        for (; *p && (q || (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')); p++) {
            if (q == '\'') {
                if (*p == '\'') q = 0;
                else sb_putc(&b, *p);
            } else if (*p == '\\' && p[1] && (!q || p[1] == '"' || p[1] == '\\')) {
                sb_putc(&b, *++p);
            } else if (q == '"' && *p == '"') {
                q = 0;
            } else if (!q && (*p == '"' || *p == '\'')) {
                q = *p;
            } else {
                sb_putc(&b, *p);
            }
        }
        push_word(&v, &n, &cap, sb_take(&b));
    }
    *out = v;
    return n;
}

int program_parse_opts(const magic_t *m, const char *line, program_opts_t *o, cell_error_t *err) {
    memset(o, 0, sizeof *o);
    o->argc = split_words(line, &o->argv);
    o->nvcc = o->argv;
    int i = 0;
    for (; i < o->argc && strcmp(o->argv[i], "--"); i++) {
        const char *a = o->argv[i];
        if (!strcmp(a, "--profile") || !strncmp(a, "--profile=", 10)) {
            const char *tool = a[9] ? a + 10 : "";
            if (*tool && strcmp(tool, "nsys") && strcmp(tool, "ncu"))
                return magic_usage_error(m, err, "--profile takes nsys or ncu, not '%s'", tool);
            o->profile = tool;
            continue;
        }
        if (!strcmp(a, "--mpi") || !strncmp(a, "--mpi=", 6)) { /* the number of ranks, next or after '=' */
            const char *num = a[5] ? a + 6 : i + 1 < o->argc && strcmp(o->argv[i + 1], "--") ? o->argv[++i] : "";
            char *end;
            long n = strtol(num, &end, 10);
            if (!*num || *end || n < 1 || n > 4096)
                return magic_usage_error(m, err, "--mpi takes the number of ranks (1 to 4096), not '%s'", num);
            o->mpi = (int)n;
            continue;
        }
        if (!strcmp(a, "--all-gpus") || !strcmp(a, "--share-gpus")) {
            if (a[2] == 'a') o->all_gpus = true;
            else o->share_gpus = true;
            continue;
        }
        for (size_t r = 0; r < sizeof refused / sizeof refused[0]; r++) {
            size_t k = strlen(refused[r]);
            if (!strncmp(a, refused[r], k) && (!a[k] || a[k] == '='))
                return magic_usage_error(m, err,
                                         "%s is not for %%%%program: icuda builds one executable and runs it",
                                         refused[r]);
        }
        /* nvcc's options move to the front of argv by swapping, not
         * copying: argv owns its words, and a copy over a word skipped
         * (--profile) would free one twice and leak the other */
        char *w = o->argv[o->nnvcc];
        o->argv[o->nnvcc++] = o->argv[i];
        o->argv[i] = w;
    }
    if (i < o->argc) {
        o->args = o->argv + i + 1;
        o->nargs = o->argc - i - 1;
    }
    if ((o->all_gpus || o->share_gpus) && !o->mpi)
        return magic_usage_error(m, err, "%s is for MPI jobs: give the ranks with --mpi N",
                                 o->all_gpus ? "--all-gpus" : "--share-gpus");
    if (o->all_gpus && o->share_gpus)
        return magic_usage_error(m, err, "--all-gpus (every rank sees every GPU) and --share-gpus (each rank one, taken "
                                 "in turn) exclude each other");
    if (o->mpi && o->profile)
        return magic_usage_error(m, err, "--profile and --mpi together are not supported: profile the program run "
                                 "without --mpi");
    return 0;
}
