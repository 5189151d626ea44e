/* Reading `nvcc --dryrun` (nvcc_dryrun.h). */
#include "nvcc_dryrun.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

typedef VEC(char *) words_t;

static void words_free(words_t *w) {
    for (size_t i = 0; i < w->n; i++) free(w->v[i]);
    VEC_FREE(*w);
}

const char *nvcc_plan_var(const nvcc_plan_t *p, const char *name) {
    size_t n = strlen(name);
    for (int i = p->nenv - 1; i >= 0; i--)
        if (!strncmp(p->env[i], name, n) && p->env[i][n] == '=') return p->env[i] + n + 1;
    return NULL;
}

static bool name_char(char c, bool first) { return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c)); }

/* $NAME or ${NAME} at *s (just past the '$'): appends its value. */
static int expand(const char **s, const nvcc_plan_t *p, bool quoted, strbuf_t *out, char *why, size_t cap) {
    const char *q = *s;
    bool brace = *q == '{';
    if (brace) q++;
    const char *start = q;
    while (name_char(*q, q == start)) q++;
    size_t n = (size_t)(q - start);
    if (!n || (brace && *q != '}')) {
        snprintf(why, cap, "a '$' nvcc's dry run does not name a variable with");
        return -1;
    }
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)(n < 127 ? n : 127), start);
    const char *v = nvcc_plan_var(p, name);
    if (!v) {
        snprintf(why, cap, "$%s, which nvcc's dry run did not set", name);
        return -1;
    }
    if (!quoted && strpbrk(v, " \t")) {
        snprintf(why, cap, "$%s unquoted, whose value a shell would split", name);
        return -1;
    }
    sb_puts(out, v);
    *s = q + brace;
    return 0;
}

/* Splits one line into words as sh would (quotes, backslashes, $NAME). */
static int split(const char *s, const nvcc_plan_t *p, words_t *w, char *why, size_t cap) {
    for (;;) {
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) return 0;
        strbuf_t word = {0};
        sb_puts(&word, ""); /* "" is a word too */
        while (*s && *s != ' ' && *s != '\t') {
            if (*s == '\'') {
                const char *e = strchr(s + 1, '\'');
                if (!e) goto open_quote;
                sb_append(&word, s + 1, (size_t)(e - s - 1));
                s = e + 1;
            } else if (*s == '"') {
                s++;
                while (*s && *s != '"') {
                    if (*s == '\\' && s[1] && strchr("\"\\$`", s[1])) {
                        sb_append(&word, s + 1, 1);
                        s += 2;
                    } else if (*s == '$') {
                        s++;
                        if (expand(&s, p, true, &word, why, cap)) goto fail;
                    } else {
                        sb_append(&word, s++, 1);
                    }
                }
                if (!*s) goto open_quote;
                s++;
            } else if (*s == '\\') {
                if (!s[1]) goto open_quote;
                sb_append(&word, s + 1, 1);
                s += 2;
            } else if (*s == '$') {
                s++;
                if (expand(&s, p, false, &word, why, cap)) goto fail;
            } else if (strchr("|&;<>()`*?[", *s)) {
                snprintf(why, cap, "'%c' in a command of nvcc's dry run, which only a shell would read", *s);
                goto fail;
            } else {
                sb_append(&word, s++, 1);
            }
        }
        VEC_PUSH(*w, sb_take(&word));
        continue;
    open_quote:
        snprintf(why, cap, "a quote left open in nvcc's dry run");
    fail:
        free(sb_take(&word));
        return -1;
    }
}

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool host_compiler(const char *name) {
    return !strncmp(name, "gcc", 3) || !strncmp(name, "g++", 3) || !strcmp(name, "cc") || !strcmp(name, "c++") ||
           !strncmp(name, "clang", 5) || !strncmp(name, "x86_64-linux-gnu-g", 18);
}

nvcc_tool_t nvcc_tool_of(char *const *argv, int argc) {
    if (argc < 1) return NVCC_UNKNOWN;
    const char *b = base_name(argv[0]);
    if (!strcmp(b, "rm")) return NVCC_RM;
    if (!strcmp(b, "cudafe++")) return NVCC_CUDAFE;
    if (!strcmp(b, "cicc")) return NVCC_CICC;
    if (!strcmp(b, "ptxas")) return NVCC_PTXAS;
    if (!strcmp(b, "fatbinary")) return NVCC_FATBINARY;
    if (!strcmp(b, "nvlink")) return NVCC_NVLINK;
    if (!host_compiler(b)) return NVCC_UNKNOWN;
    bool pre = false, compile = false, device = false;
    for (int i = 1; i < argc; i++) {
        pre |= !strcmp(argv[i], "-E");
        compile |= !strcmp(argv[i], "-c");
        device |= !strncmp(argv[i], "-D__CUDA_ARCH__=", 16);
    }
    if (pre && compile) return NVCC_UNKNOWN;
    if (pre) return device ? NVCC_CPP_DEVICE : NVCC_CPP_HOST;
    return compile ? NVCC_CC : NVCC_LINK;
}

const char *nvcc_step_option(const nvcc_step_t *s, const char *opt) {
    size_t n = strlen(opt);
    for (int i = 1; i < s->argc; i++) {
        if (!strcmp(s->argv[i], opt)) return i + 1 < s->argc ? s->argv[i + 1] : NULL;
        if (!strncmp(s->argv[i], opt, n) && s->argv[i][n] == '=') return s->argv[i] + n + 1;
    }
    return NULL;
}

int nvcc_step_has(const nvcc_step_t *s, const char *w) {
    for (int i = 1; i < s->argc; i++)
        if (!strcmp(s->argv[i], w)) return 1;
    return 0;
}

void nvcc_plan_free(nvcc_plan_t *p) {
    for (int i = 0; i < p->nenv; i++) free(p->env[i]);
    free(p->env);
    for (int i = 0; i < p->nsteps; i++) {
        for (int j = 0; j < p->steps[i].argc; j++) free(p->steps[i].argv[j]);
        free(p->steps[i].argv);
    }
    free(p->steps);
    free(p->said);
    memset(p, 0, sizeof *p);
}

/* NAME= at the start of a line: a variable's length, else 0. */
static size_t assignment(const char *s) {
    size_t n = 0;
    while (name_char(s[n], n == 0)) n++;
    return n && s[n] == '=' ? n : 0;
}

int nvcc_plan_parse(const char *text, nvcc_plan_t *p, char *why, size_t cap) {
    memset(p, 0, sizeof *p);
    VEC(char *) env = {0};
    VEC(nvcc_step_t) steps = {0};
    strbuf_t said = {0};
    int rc = 0;
    for (const char *line = text; line && *line && rc == 0;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = xstrndup(line, len);
        if (len && l[len - 1] == '\r') l[len - 1] = 0;
        line = end ? end + 1 : NULL;
        if (strncmp(l, "#$ ", 3)) {
            if (*l) sb_printf(&said, "%s\n", l);
            free(l);
            continue;
        }
        const char *body = l + 3;
        while (*body == ' ') body++;
        words_t w = {0};
        size_t nl = assignment(body);
        /* the variables so far, for $NAME */
        p->env = env.v, p->nenv = (int)env.n;
        if (split(nl ? body + nl + 1 : body, p, &w, why, cap) != 0) {
            rc = -1;
        } else if (nl) { /* NAME=words: its value, the words as one */
            strbuf_t v = {0};
            sb_printf(&v, "%.*s=", (int)nl, body);
            for (size_t i = 0; i < w.n; i++) sb_printf(&v, "%s%s", i ? " " : "", w.v[i]);
            VEC_PUSH(env, sb_take(&v));
        } else if (w.n) {
            nvcc_step_t st = {.argc = (int)w.n};
            VEC_PUSH(w, NULL);
            st.argv = w.v;
            st.tool = nvcc_tool_of(st.argv, st.argc);
            VEC_PUSH(steps, st);
            w.v = NULL, w.n = 0, w.cap = 0;
        }
        words_free(&w);
        free(l);
    }
    VEC_PUSH(env, NULL);
    p->env = env.v;
    p->nenv = (int)env.n - 1;
    p->steps = steps.v;
    p->nsteps = (int)steps.n;
    p->said = said.len ? sb_take(&said) : (free(sb_take(&said)), NULL);
    if (rc == 0 && !p->nsteps) {
        snprintf(why, cap, "nvcc's dry run named no step");
        rc = -1;
    }
    if (rc) nvcc_plan_free(p);
    return rc;
}
