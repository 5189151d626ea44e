#include "compile_errors.h"

#include "runtime/base/xalloc.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A diagnostic line looks like  In [3](5): error: identifier "q" is undefined
 * (the file name is the cell label, set by #line), followed by the source
 * line indented by two spaces and a caret line. */
static int parse_diag(const char *line, char *file, size_t fcap, int *lineno, const char **rest) {
    const char *p = strstr(line, "): ");
    if (!p) return 0;
    const char *open = p;
    while (open > line && *open != '(') open--;
    if (*open != '(' || open == line) return 0;
    for (const char *d = open + 1; d < p; d++)
        if (*d < '0' || *d > '9') return 0;
    size_t n = (size_t)(open - line);
    if (n >= fcap) n = fcap - 1;
    memcpy(file, line, n);
    file[n] = 0;
    *lineno = atoi(open + 1);
    *rest = p + 3;
    return 1;
}

static char *line_at(const char *s, const char **next) {
    const char *e = strchr(s, '\n');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    char *out = xmalloc(n + 1);
    memcpy(out, s, n);
    out[n] = 0;
    *next = e ? e + 1 : s + n;
    return out;
}

static bool only_caret(const char *s) {
    bool caret = false;
    for (; *s; s++) {
        if (*s == '^') caret = true;
        else if (*s != ' ') return false;
    }
    return caret;
}

int compile_log_format(const char *log, json_t *lines, char **first_error) {
    int errors = 0;
    *first_error = NULL;
    const char *p = log;
    while (p && *p) {
        const char *next;
        char *line = line_at(p, &next);
        char file[256];
        int lineno = 0;
        const char *rest = NULL;
        if (!parse_diag(line, file, sizeof file, &lineno, &rest)) {
            /* ptxas's own errors ("ptxas error   : File uses too much global constant
             * data", "ptxas application ptx input, line 22; fatal   : Parsing error ...") */
            const char *pm = !strncmp(line, "ptxas", 5) ? strstr(line, "error   : ") : NULL;
            if (!pm && !strncmp(line, "ptxas", 5)) pm = strstr(line, "fatal   : ");
            if (pm && !strstr(line, "aborted due to errors")) {
                errors++;
                if (!*first_error) {
                    *first_error = xstrdup(pm + 10);
                }
            }
            /* summary lines ("1 error detected in ...") and blank ones add nothing */
            if (line[0] && !strstr(line, "detected in the compilation of") &&
                strcmp(line, "Compilation terminated.") != 0)
                json_array_append_new(lines, json_string(line));
            free(line);
            p = next;
            continue;
        }
        bool is_error = strncmp(rest, "error", 5) == 0 || strncmp(rest, "catastrophic error", 18) == 0;
        if (is_error) {
            errors++;
            if (!*first_error) {
                const char *msg = strstr(rest, ": ");
                msg = msg ? msg + 2 : rest;
                size_t n = strlen(msg) + strlen(file) + 32;
                *first_error = xmalloc(n);
                snprintf(*first_error, n, "%s (%s, line %d)", msg, file, lineno);
            }
        }
        char head[1400];
        snprintf(head, sizeof head, "%s, line %d: %s", file, lineno, rest);
        json_array_append_new(lines, json_string(head));
        /* the echoed source line and its caret */
        const char *after;
        char *src = line_at(next, &after);
        const char *after2;
        char *caret = line_at(after, &after2);
        if (src[0] && only_caret(caret)) {
            const char *code = strncmp(src, "  ", 2) == 0 ? src + 2 : src;
            const char *mark = strlen(caret) >= 2 ? caret + 2 : caret;
            char buf[2048];
            snprintf(buf, sizeof buf, "%6d | %s", lineno, code);
            json_array_append_new(lines, json_string(buf));
            snprintf(buf, sizeof buf, "%6s | %s", "", mark);
            json_array_append_new(lines, json_string(buf));
            next = after2;
        }
        free(src);
        free(caret);
        free(line);
        p = next;
    }
    return errors;
}
