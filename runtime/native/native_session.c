/* What native cells leave for later ones (native_session.h). */
#include "native_session.h"

#include "runtime/program/program_build.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void entry_free(native_entry_t *e) {
    free(e->text);
    for (int i = 0; i < e->nnames; i++) free(e->names[i]);
    free(e->names);
    free(e->params);
    free(e->args);
    native_strv_free(e->defaults);
}

void native_session_init(native_session_t *ns) {
    memset(ns, 0, sizeof *ns);
    const char *tmp = getenv("TMPDIR");
    snprintf(ns->dir, sizeof ns->dir, "%s/icuda-native-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
}

void native_session_forget(native_session_t *ns) {
    for (size_t i = 0; i < ns->prelude.n; i++) entry_free(&ns->prelude.v[i]);
    VEC_FREE(ns->prelude);
    for (size_t i = 0; i < ns->host.n; i++) entry_free(&ns->host.v[i]);
    VEC_FREE(ns->host);
    for (size_t i = 0; i < ns->globals.n; i++) {
        free(ns->globals.v[i].name);
        free(ns->globals.v[i].type);
    }
    VEC_FREE(ns->globals);
    for (size_t i = 0; i < ns->sources.n; i++) free(ns->sources.v[i].code);
    VEC_FREE(ns->sources);
}

void native_session_free(native_session_t *ns) {
    native_session_forget(ns);
    /* the copies loaded: the worker holds them open, the files go */
    if (access(ns->dir, F_OK) == 0) program_remove_tree(ns->dir);
}

static char **copy_names(char *const *names, int n) {
    if (!n) return NULL;
    char **v = xcalloc((size_t)n, sizeof *v);
    for (int i = 0; i < n; i++) v[i] = xstrdup(names[i]);
    return v;
}

/* Drops the entries that key replaces. */
/* A function of the cell's own with another head than the one before
 * (f(int) and f(float)): an overload, which stands beside it. The same head
 * again, or a type or variable defined twice, is one of a conditional's
 * alternatives (#ifdef USE_DP typedef double real; #else ...): the last
 * stands, as later units take no conditional around it. */
static bool overload(const native_entry_t *e, const char *text, size_t n) {
    if (strncmp(e->key, "fn:", 3)) return false;
    size_t a = strcspn(e->text, "{"), b = 0;
    while (b < n && text[b] != '{') b++;
    return a != b || memcmp(e->text, text, a) != 0;
}

/* Drops what entries define under key: an earlier cell's always, one of
 * this cell's (from index old on) when it stands in the same branch of a
 * conditional and text is not its overload ("typedef float real;" under
 * #ifndef and "typedef double real;" under its #else both stay, each where
 * it stands). Returns how many of the first old entries are left. */
static size_t drop_key(native_session_t *ns, const char *key, size_t old, const char *text, size_t n, int branch) {
    if (!key[0]) return old;
    size_t o = 0, left = 0;
    for (size_t i = 0; i < ns->prelude.n; i++) {
        if (!strcmp(ns->prelude.v[i].key, key) &&
            (i < old || (ns->prelude.v[i].branch == branch && !overload(&ns->prelude.v[i], text, n)))) {
            entry_free(&ns->prelude.v[i]);
            continue;
        }
        ns->prelude.v[o++] = ns->prelude.v[i];
        left += i < old;
    }
    ns->prelude.n = o;
    return left;
}

static bool line_is_include(const char *text, size_t n) {
    size_t i = 0;
    while (i < n && (text[i] == ' ' || text[i] == '\t')) i++;
    if (i >= n || text[i] != '#') return false;
    while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '#')) i++;
    return n - i >= 7 && !strncmp(text + i, "include", 7);
}

/* A # item is one line, or a whole #if ... #endif (native_items.c): it
 * includes when one of its lines does. */
static bool is_include(const char *text, size_t n) {
    for (size_t a = 0; a < n;) {
        const char *nl = memchr(text + a, '\n', n - a);
        size_t e = nl ? (size_t)(nl - text) : n;
        if (line_is_include(text + a, e - a)) return true;
        a = e + 1;
    }
    return false;
}

/* How a # line moves the conditional depth: +1 opens (#if, #ifdef,
 * #ifndef), -1 closes (#endif), 0 otherwise (#else and #elif included). */
static int line_cond_step(const char *text, size_t n) {
    size_t i = 0;
    while (i < n && (text[i] == ' ' || text[i] == '\t')) i++;
    if (i >= n || text[i] != '#') return 0;
    while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '#')) i++;
    const char *w = text + i;
    size_t wl = 0;
    while (i + wl < n && w[wl] >= 'a' && w[wl] <= 'z') wl++;
    if ((wl == 2 && !strncmp(w, "if", 2)) || (wl == 5 && !strncmp(w, "ifdef", 5)) || (wl == 6 && !strncmp(w, "ifndef", 6)))
        return 1;
    return wl == 5 && !strncmp(w, "endif", 5) ? -1 : 0;
}

/* ... of a # item: a whole #if ... #endif moves it by nothing. */
static int cond_step(const char *text, size_t n) {
    int step = 0;
    for (size_t a = 0; a < n;) {
        const char *nl = memchr(text + a, '\n', n - a);
        size_t e = nl ? (size_t)(nl - text) : n;
        step += line_cond_step(text + a, e - a);
        a = e + 1;
    }
    return step;
}

static bool is_cond(const char *text, size_t n) {
    size_t i = 0;
    while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '#')) i++;
    return cond_step(text, n) != 0 || (n - i >= 2 && text[i] == 'e' && text[i + 1] == 'l');
}

static bool pp_include(const char *code, const native_item_t *it) {
    return it->kind == NI_PP && is_include(code + it->start, it->end - it->start);
}

/* For every item, the # lines [from, to] of the outermost #if ... #endif
 * it stands in (an #if without its #endif runs to the cell's end), or
 * from = SIZE_MAX: one pass over the cell. */
typedef struct {
    size_t from, to;
} cond_span_t;

static cond_span_t *cond_groups(const char *code, const native_items_t *items) {
    cond_span_t *g = xcalloc(items->n + 1, sizeof *g);
    for (size_t k = 0; k < items->n; k++) g[k].from = SIZE_MAX;
    int depth = 0;
    size_t start = 0;
    for (size_t k = 0; k < items->n; k++) {
        const native_item_t *it = &items->v[k];
        if (it->kind != NI_PP) continue;
        int step = cond_step(code + it->start, it->end - it->start);
        if (step > 0 && depth++ == 0) start = k;
        if (step < 0 && depth > 0 && --depth == 0)
            for (size_t j = start; j <= k; j++) g[j] = (cond_span_t){start, k};
    }
    if (depth > 0)
        for (size_t j = start; j < items->n; j++) g[j] = (cond_span_t){start, items->n - 1};
    return g;
}

int *native_pp_ranks(const char *code, const native_items_t *items) {
    size_t n = items->n;
    cond_span_t *g = cond_groups(code, items);
    /* after[k]: an #include among items [k, n); in_group[k]: among the
     * # lines of the group that starts at k */
    bool *after = xcalloc(n + 1, sizeof *after), *in_group = xcalloc(n + 1, sizeof *in_group);
    for (size_t k = n; k-- > 0;) after[k] = after[k + 1] || pp_include(code, &items->v[k]);
    for (size_t k = 0; k < n; k++)
        if (g[k].from != SIZE_MAX && pp_include(code, &items->v[k])) in_group[g[k].from] = true;
    int *rank = xcalloc(n + 1, sizeof *rank);
    for (size_t i = 0; i < n; i++) {
        /* a conditional moves whole: with the includes if it holds one */
        bool group = g[i].from != SIZE_MAX;
        size_t to = group ? g[i].to : i;
        if (group ? in_group[g[i].from] : pp_include(code, &items->v[i])) rank[i] = 1;
        else rank[i] = after[to + 1] ? 0 : 2;
    }
    free(g);
    free(after);
    free(in_group);
    return rank;
}

int native_pp_rank(const char *code, const native_items_t *items, size_t i) {
    int *ranks = native_pp_ranks(code, items);
    int r = i < items->n ? ranks[i] : 2;
    free(ranks);
    return r;
}

/* A repeated item of a conditional's branch, as a later unit takes it: the
 * conditional's lines that lead to the branch, the item at its own line,
 * an #endif for each, so that its condition is the same there.
 * guard[k] holds level k's #if line and the #elif/#else lines after it. */
#define GUARD_DEPTH 16
static void sb_reset(strbuf_t *b) {
    b->len = 0;
    if (b->data) b->data[0] = 0;
}
static char *guarded(strbuf_t *guard, int depth, const char *text, size_t n, int first_line, const char *cell) {
    strbuf_t b = {0};
    for (int k = 0; k < depth; k++) sb_printf(&b, "%s", guard[k].data ? guard[k].data : "");
    sb_printf(&b, "#line %d \"%s\"\n%.*s\n", first_line, cell, (int)n, text);
    for (int k = 0; k < depth; k++) sb_puts(&b, "#endif\n");
    return b.data;
}

void native_session_add_items(native_session_t *ns, const char *code, const native_items_t *items, const char *cell) {
    size_t old = ns->prelude.n;
    int depth = 0, branches = 0, branch = 0;
    cond_span_t *groups = cond_groups(code, items);
    int *ranks = native_pp_ranks(code, items);
    strbuf_t guard[GUARD_DEPTH] = {{0}};
    for (size_t i = 0; i < items->n; i++) {
        const native_item_t *it = &items->v[i];
        if (it->kind == NI_PP && is_cond(code + it->start, it->end - it->start)) { /* #if, #else, #endif: a new branch */
            int step = cond_step(code + it->start, it->end - it->start);
            if (step < 0 && depth > 0 && depth <= GUARD_DEPTH) sb_reset(&guard[depth - 1]);
            depth += step;
            if (depth < 0) depth = 0;
            if (step >= 0 && depth > 0 && depth <= GUARD_DEPTH) {
                if (step > 0) sb_reset(&guard[depth - 1]);
                sb_printf(&guard[depth - 1], "%.*s\n", (int)(it->end - it->start), code + it->start);
            }
            branch = depth > 0 ? ++branches : 0;
        }
        if (it->kind == NI_STATEMENT || it->kind == NI_SHARED) continue;
        if (it->kind == NI_KERNEL && !it->decl) continue; /* no declaration could be made of it */
        native_entry_t e;
        memset(&e, 0, sizeof e);
        e.kind = it->kind;
        snprintf(e.key, sizeof e.key, "%s", it->key);
        if (it->kind == NI_PP) {
            /* a # line stays where it first came (what follows it may need
             * it); the same line again adds nothing, another (a macro
             * defined anew) comes after it. A conditional's own lines
             * (#if, #else, #endif) always come, or it would not close. */
            bool whole = is_cond(code + it->start, it->end - it->start) || groups[i].from != SIZE_MAX;
            bool same = false;
            size_t len = it->end - it->start;
            whole |= memchr(code + it->start, 0, len) != NULL; /* strncmp below stops there */
            for (size_t k = 0; k < ns->prelude.n && !same && !whole; k++)
                same = ns->prelude.v[k].kind == NI_PP && !strncmp(ns->prelude.v[k].text, code + it->start, len) &&
                       !ns->prelude.v[k].text[len];
            if (same) continue;
        } else {
            old = drop_key(ns, e.key, old, code + it->start, it->end - it->start, branch);
        }
        e.branch = branch;
        snprintf(e.cell, sizeof e.cell, "%s", cell);
        e.first_line = it->first_line;
        if (it->kind == NI_KERNEL) e.text = xstrdup(it->decl);
        else if (it->kind == NI_REPEAT && depth > 0 && depth <= GUARD_DEPTH)
            e.text = guarded(guard, depth, code + it->start, it->end - it->start, it->first_line, cell);
        else e.text = xstrndup(code + it->start, it->end - it->start);
        e.names = copy_names(it->names, it->nnames);
        e.nnames = it->nnames;
        e.params = it->params ? xstrdup(it->params) : NULL;
        e.args = it->args ? xstrdup(it->args) : NULL;
        e.nparams = it->nparams;
        for (size_t d = 0; it->defaults && it->defaults[d]; d++) {
            e.defaults = xreallocarray(e.defaults, d + 2, sizeof *e.defaults);
            e.defaults[d] = xstrdup(it->defaults[d]);
            e.defaults[d + 1] = NULL;
        }
        if (it->kind == NI_PP) e.pp_rank = ranks[i];
        VEC_PUSH(ns->prelude, e);
    }
    for (int k = 0; k < GUARD_DEPTH; k++) free(guard[k].data);
    free(groups);
    free(ranks);
}

void native_session_add_host(native_session_t *ns, const char *text, size_t len, const char *key, const char *name,
                             bool is_include, int first_line, const char *cell) {
    if (key && key[0]) {
        size_t o = 0;
        for (size_t i = 0; i < ns->host.n; i++) {
            if (!strcmp(ns->host.v[i].key, key)) entry_free(&ns->host.v[i]);
            else ns->host.v[o++] = ns->host.v[i];
        }
        ns->host.n = o;
    }
    for (size_t i = 0; i < ns->host.n; i++) /* the same text again (an #include): once */
        if (strlen(ns->host.v[i].text) == len && !memcmp(ns->host.v[i].text, text, len)) return;
    native_entry_t e;
    memset(&e, 0, sizeof e);
    e.kind = is_include ? NI_PP : NI_REPEAT;
    e.pp_rank = 1;
    e.text = xstrndup(text, len);
    snprintf(e.key, sizeof e.key, "%s", key ? key : "");
    snprintf(e.cell, sizeof e.cell, "%s", cell);
    e.first_line = first_line;
    if (name && name[0]) {
        e.names = xcalloc(1, sizeof *e.names);
        e.names[0] = xstrdup(name);
        e.nnames = 1;
    }
    VEC_PUSH(ns->host, e);
}

void native_session_add_global(native_session_t *ns, const char *name, const char *type, bool is_const,
                               bool is_kernel, const char *cell, int worker) {
    for (size_t i = 0; i < ns->globals.n; i++) {
        native_global_t *g = &ns->globals.v[i];
        if (strcmp(g->name, name)) continue;
        free(g->type);
        g->type = xstrdup(type);
        g->is_const = is_const;
        g->is_kernel = is_kernel;
        snprintf(g->cell, sizeof g->cell, "%s", cell);
        g->worker = worker;
        return;
    }
    native_global_t g = {xstrdup(name), xstrdup(type), is_const, is_kernel, "", worker};
    snprintf(g.cell, sizeof g.cell, "%s", cell);
    VEC_PUSH(ns->globals, g);
}

const native_global_t *native_session_global(const native_session_t *ns, const char *name) {
    for (size_t i = 0; i < ns->globals.n; i++)
        if (!strcmp(ns->globals.v[i].name, name)) return &ns->globals.v[i];
    return NULL;
}

bool native_session_empty(const native_session_t *ns) { return !ns->prelude.n && !ns->globals.n; }

bool native_session_defines(const native_session_t *ns, const char *name) {
    for (size_t i = 0; i < ns->prelude.n; i++) {
        const native_entry_t *e = &ns->prelude.v[i];
        for (int k = 0; k < e->nnames; k++)
            if (!strcmp(e->names[k], name)) return true;
        const char *colon = strchr(e->key, ':');
        if (!colon) continue;
        const char *last = strrchr(colon + 1, ' ');
        const char *n = last ? last + 1 : colon + 1;
        if (!strcmp(n, name)) return true;
    }
    return false;
}

void native_session_keep_source(native_session_t *ns, const char *cell, const char *code) {
    for (size_t i = 0; i < ns->sources.n; i++)
        if (!strcmp(ns->sources.v[i].cell, cell)) {
            free(ns->sources.v[i].code);
            ns->sources.v[i].code = xstrdup(code);
            return;
        }
    native_source_t s = {"", xstrdup(code)};
    snprintf(s.cell, sizeof s.cell, "%s", cell);
    VEC_PUSH(ns->sources, s);
}

const char *native_session_source(const native_session_t *ns, const char *cell) {
    for (size_t i = 0; i < ns->sources.n; i++)
        if (!strcmp(ns->sources.v[i].cell, cell)) return ns->sources.v[i].code;
    return NULL;
}

char *native_session_lost_cells(const native_session_t *ns, int live) {
    strbuf_t b = {0};
    for (size_t i = 0; i < ns->globals.n; i++) {
        const native_global_t *g = &ns->globals.v[i];
        if (g->worker == live) continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = ns->globals.v[j].worker != live && !strcmp(ns->globals.v[j].cell, g->cell);
        if (!seen) sb_printf(&b, "%s%s", b.len ? ", " : "", g->cell);
    }
    return b.len ? sb_take(&b) : NULL;
}

void native_bounds_free(native_bounds_t *b) {
    for (size_t i = 0; i < b->n; i++) free(b->v[i].name);
    VEC_FREE(*b);
}

const native_entry_t *native_session_last_include(const native_session_t *ns) {
    for (size_t i = ns->prelude.n; i-- > 0;) {
        const native_entry_t *e = &ns->prelude.v[i];
        const char *t = e->text + strspn(e->text, " \t");
        if (e->kind == NI_PP && *t == '#' && !strncmp(t + 1 + strspn(t + 1, " \t"), "include", 7)) return e;
    }
    return NULL;
}
