#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

static const magic_t *const all[] = {&magic_lsmagic, &magic_help, &magic_who, &magic_nvrtc, &magic_ptx, &magic_resources,
                                     &magic_sass, &magic_memcheck, &magic_devices, &magic_device, &magic_header,
                                     &magic_timeit, &magic_roofline, &magic_profile, &magic_program,
                                     &magic_plot, &magic_hist, &magic_heap, &magic_free, &magic_reset, &magic_save, &magic_load, &magic_env, &magic_time, &magic_host_tier, &magic_host, &magic_cxx, &magic_rerun, &magic_include_path};
static magic_t table[sizeof all / sizeof all[0]];

const magic_t *magic_table(int *count) {
    *count = (int)(sizeof all / sizeof all[0]);
    if (!table[0].name)
        for (int i = 0; i < *count; i++) table[i] = *all[i];
    return table;
}

const magic_t *magic_find(const char *name) {
    int n;
    const magic_t *t = magic_table(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(t[i].name, name)) return &t[i];
    return NULL;
}

char *magic_help_text(const magic_t *m) {
    strbuf_t b = {0};
    sb_printf(&b, "%s\n    %s\n", m->usage, m->summary);
    if (m->help && *m->help) sb_printf(&b, "\n%s\n", m->help);
    return sb_take(&b);
}

static int unknown(const char *name, bool cell, cell_error_t *err) {
    json_t *tb = json_array();
    json_array_append_new(tb, json_sprintf("\x1b[1;31mUsageError\x1b[0m: %s%s is not a magic; %%lsmagic lists them", cell ? "%%" : "%", name));
    cell_error_set(err, "UsageError", tb, "%s%s is not a magic; %%lsmagic lists them", cell ? "%%" : "%", name);
    return -1;
}

/* "%name rest" -> name (without a trailing '?') and rest. */
static void parse_head(const char *s, char *name, size_t cap, const char **rest, bool *question) {
    size_t n = 0;
    while (*s && !isspace((unsigned char)*s) && n + 1 < cap) name[n++] = *s++;
    name[n] = 0;
    *question = n > 0 && name[n - 1] == '?';
    if (*question) name[n - 1] = 0;
    while (*s == ' ' || *s == '\t') s++;
    *rest = s;
}

int magic_run_line(magic_ctx_t *mc, const char *line, cell_error_t *err) {
    char name[64];
    const char *rest;
    bool question;
    parse_head(line + 1, name, sizeof name, &rest, &question);
    const magic_t *m = magic_find(name);
    if (!m) return unknown(name, false, err);
    if (question) {
        char *h = magic_help_text(m);
        io_page(mc->io, h, NULL);
        free(h);
        return 0;
    }
    if (!m->line) return magic_usage_error(m, err, "%%%s is a cell magic: write %%%%%s on the cell's first line", name, name);
    return m->line(mc, rest, err);
}

int magic_run_cell(magic_ctx_t *mc, const char *code, cell_error_t *err) {
    while (*code == ' ' || *code == '\t' || *code == '\n') code++;
    const char *eol = strchr(code, '\n');
    size_t hl = eol ? (size_t)(eol - code) : strlen(code);
    char *head = xstrndup(code, hl);
    const char *body = eol ? eol + 1 : "";
    char name[64];
    const char *rest;
    bool question;
    parse_head(head + 2, name, sizeof name, &rest, &question);
    const magic_t *m = magic_find(name);
    int rc;
    if (!m) rc = unknown(name, true, err);
    else if (question) { /* %%name? explains, as %name? does */
        char *h = magic_help_text(m);
        io_page(mc->io, h, NULL);
        free(h);
        rc = 0;
    } else if (!m->cell) rc = magic_usage_error(m, err, "%%%s is a line magic, not a cell magic", name);
    else rc = m->cell(mc, rest, body, err);
    free(head);
    return rc;
}
