/* Which of the session's things a native cell's unit takes (native_select.h):
 * what the cell names, and what those name in turn. */
#include "native_select.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

/* The name an entry defines, from its names or its key ("type:struct P" ->
 * "P", "macro:N" -> "N"); NULL when it defines none a cell could name (a
 * using-directive names nothing: it changes what unqualified names find,
 * so every later cell takes it). */
static const char *name_of(const native_entry_t *e, char *buf, size_t cap) {
    if (e->nnames) return e->names[0];
    const char *colon = strchr(e->key, ':');
    if (!colon || !colon[1] || !strncmp(e->key, "text:", 5) || !strncmp(e->key, "using:", 6)) return NULL;
    const char *last = strrchr(colon + 1, ' ');
    const char *n = last ? last + 1 : colon + 1;
    size_t len = strcspn(n, "<(");
    if (!len || len >= cap) return NULL;
    memcpy(buf, n, len);
    buf[len] = 0;
    return buf;
}

static bool in(char **ids, const char *name) {
    for (char **p = ids; *p; p++)
        if (!strcmp(*p, name)) return true;
    return false;
}

/* A typedef declares the names outside its braces: typedef struct tag {
 * ... } name_t; is wanted by a cell that names name_t (or the types it
 * builds on, which the selection then takes in turn). */
static bool typedef_named(const char *t, char **ids) {
    static const char *const words[] = {"typedef", "struct", "union", "enum", "class", "const", "volatile",
                                        "unsigned", "signed", "int", "long", "short", "char", "float", "double",
                                        "void", "bool", NULL};
    t += strspn(t, " \t\n");
    if (strncmp(t, "typedef", 7)) return false;
    int depth = 0;
    for (const char *p = t; *p;) {
        if (*p == '{') depth++;
        if (*p == '}') depth--;
        if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
            p++;
            continue;
        }
        const char *a = p;
        while (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) p++;
        char w[128];
        if (depth || (size_t)(p - a) >= sizeof w) continue;
        memcpy(w, a, (size_t)(p - a));
        w[p - a] = 0;
        bool keyword = false;
        for (int k = 0; words[k] && !keyword; k++) keyword = !strcmp(words[k], w);
        if (!keyword && in(ids, w)) return true;
    }
    return false;
}

static bool named(const native_entry_t *e, char **ids) {
    for (int k = 0; k < e->nnames; k++)
        if (in(ids, e->names[k])) return true;
    char buf[128];
    const char *n = e->nnames ? NULL : name_of(e, buf, sizeof buf);
    return (n && in(ids, n)) || (e->kind == NI_REPEAT && e->text && typedef_named(e->text, ids));
}

/* Thrust's and CUB's headers take seconds to compile: a cell gets them only
 * when it names them or takes something of a cell that included them. */
static bool heavy(const native_entry_t *e) {
    const char *t = e->text;
    while (*t == '#' || *t == ' ' || *t == '\t') t++;
    if (strncmp(t, "include", 7)) return false;
    t += 7;
    while (*t == ' ' || *t == '\t' || *t == '<' || *t == '"') t++;
    return !strncmp(t, "thrust/", 7) || !strncmp(t, "cub/", 4);
}

/* Whether the cell names one of Thrust's or CUB's macros (THRUST_VERSION,
 * CUB_PTX_ARCH): only their headers define them. */
static bool names_library_macro(char **ids) {
    for (char **p = ids; *p; p++)
        if (!strncmp(*p, "THRUST_", 7) || !strncmp(*p, "CUB_", 4)) return true;
    return false;
}

/* A cell's label as one identifier: "In [3]" -> "In_3_". */
static const char *cell_word(const char *cell) {
    static _Thread_local char w[48];
    snprintf(w, sizeof w, "%s", cell);
    for (char *p = w; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
    return w;
}

static bool is_macro(const native_entry_t *e) { return !strncmp(e->key, "macro:", 6); }

/* Whether entry e of a prelude is wanted, given the identifiers so far and
 * the cells something was taken from. */
static bool wanted(const native_entry_t *e, char **ids, char **cells) {
    switch (e->kind) {
    case NI_PP:
        if (heavy(e)) return in(ids, "thrust") || in(ids, "cub") || names_library_macro(ids) || in(cells, cell_word(e->cell));
        if (is_macro(e)) return named(e, ids);
        return true;
    case NI_REPEAT: {
        char buf[128];
        return (!e->nnames && !name_of(e, buf, sizeof buf)) || named(e, ids);
    }
    case NI_VARIABLE:
    case NI_DEVICE_VAR:
    case NI_KERNEL: return named(e, ids);
    case NI_STATEMENT:
    case NI_SHARED: return false; /* never kept: the interpreter holds it */
    }
    return false;
}

void native_select(const native_session_t *ns, const char *code, native_selection_t *sel) {
    sel->prelude = xcalloc(ns->prelude.n + 1, sizeof *sel->prelude);
    sel->host = xcalloc(ns->host.n + 1, sizeof *sel->host);
    strbuf_t all = {0}, cells = {0};
    sb_puts(&all, code);
    for (bool grew = true; grew;) {
        grew = false;
        char **ids = native_identifiers(all.data ? all.data : "");
        char **from = native_identifiers(cells.data ? cells.data : "");
        for (size_t i = 0; i < ns->prelude.n; i++) {
            const native_entry_t *e = &ns->prelude.v[i];
            if (sel->prelude[i] || !wanted(e, ids, from)) continue;
            sel->prelude[i] = grew = true;
            sb_printf(&all, "\n%s\n", e->text ? e->text : "");
            for (int k = 0; k < e->nnames; k++) {
                const native_global_t *g = native_session_global(ns, e->names[k]);
                if (g) sb_printf(&all, "\n%s\n", g->type); /* a binding names its type's namespace */
            }
            if (e->kind != NI_PP) sb_printf(&cells, " %s", cell_word(e->cell)); /* its cell's heavy headers come too */
        }
        for (size_t i = 0; i < ns->host.n; i++) {
            const native_entry_t *e = &ns->host.v[i];
            if (sel->host[i] || (e->nnames && !named(e, ids))) continue;
            sel->host[i] = true;
            if (e->nnames) {
                sb_printf(&all, "\n%s\n", e->text);
                grew = true;
            }
        }
        native_strv_free(ids);
        native_strv_free(from);
    }
    free(all.data);
    free(cells.data);
}

void native_selection_free(native_selection_t *sel) {
    free(sel->prelude);
    free(sel->host);
    memset(sel, 0, sizeof *sel);
}
