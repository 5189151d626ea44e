/* A header's text for the tests that scan it apart from the generators
 * (test_cuda_api.c, test_cuda_libs.c): the whole file, comments blanked,
 * and preprocessor lines too where asked. NULL when it cannot be read. */
#ifndef ICUDA_TEST_HEADER_TEXT_H
#define ICUDA_TEST_HEADER_TEXT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline char *header_text(const char *path, bool blank_directives) {
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    for (char *p = s; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            if (!e) e = p + strlen(p) - 2;
            memset(p, ' ', (size_t)(e + 2 - p));
            p = e + 1;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') *p++ = ' ';
        } else if (blank_directives && *p == '#' && (p == s || p[-1] == '\n')) {
            while (*p && *p != '\n') {
                if (*p == '\\' && p[1] == '\n') *p++ = ' ';
                *p++ = ' ';
            }
        }
    }
    return s;
}

#endif
