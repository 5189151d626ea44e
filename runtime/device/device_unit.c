/* A cell's device translation unit, assembled without compiling it: the
 * session prelude with the cell's definitions in place, host constants, the
 * #line map back to cells; and after a compile, what the prelude keeps
 * (device_cell.c compiles; tests/fuzz/fuzz_device_cell.c drives this alone). */
#include "device_unit.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/lang/interp.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include "runtime/cell/split.h"
static bool is_device_side(const cell_item_t *it) { return it->kind == ITEM_DEVICE || it->kind == ITEM_BOTH; }

/* "vecadd(double *z, const double *x, int n)": from the kernel's name to the
 * ')' that closes its parameters, white space folded. */
char *device_kernel_signature(const char *code, const cell_item_t *it) {
    const char *s = code + it->start, *end = code + it->end;
    size_t nl = strlen(it->name);
    const char *p = s;
    for (; p + nl <= end; p++) {
        if (memcmp(p, it->name, nl) == 0 && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            const char *q = p + nl;
            while (q < end && isspace((unsigned char)*q)) q++;
            if (q < end && *q == '(') break;
        }
    }
    if (p + nl > end) return xstrdup(it->name);
    strbuf_t b = {0};
    int depth = 0;
    bool space = false;
    for (const char *q = p; q < end; q++) {
        char c = *q;
        if (isspace((unsigned char)c)) {
            space = true;
            continue;
        }
        if (space && b.len && b.data[b.len - 1] != '(' && c != ')' && c != ',') sb_putc(&b, ' ');
        space = false;
        sb_putc(&b, c);
        if (c == '(') depth++;
        if (c == ')' && --depth == 0) break;
    }
    return sb_take(&b);
}

/* The namespace a `using namespace X;` or `namespace a = X;` item names. */
static bool namespace_target(const char *code, const cell_item_t *it, char *out, size_t cap) {
    if (strncmp(it->key, "using:", 6) && strncmp(it->key, "nsalias:", 8)) return false;
    const char *p = code + it->start, *end = code + it->end;
    if (it->key[0] == 'u') p += strlen("using");
    else if (!(p = memchr(p, '=', (size_t)(end - p)))) return false;
    else p++;
    if (it->key[0] == 'u') {
        while (p < end && isspace((unsigned char)*p)) p++;
        p += strlen("namespace");
    }
    size_t n = 0;
    for (; p < end && *p != ';' && n + 1 < cap; p++)
        if (!isspace((unsigned char)*p)) out[n++] = *p;
    out[n] = 0;
    return n > 0 && strspn(out, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:") == n;
}

static void add_item_text(strbuf_t *tu, const char *code, const cell_item_t *it, const char *cell) {
    sb_printf(tu, "#line %d \"%s\"\n", it->first_line, cell);
    char ns[96];
    /* the namespace declared first, so that a cell naming one it never
     * included fails at its use, not in every later cell's prelude */
    if (namespace_target(code, it, ns, sizeof ns)) { /* a::b as namespace a { namespace b {} } (C++14 too) */
        int depth = 0;
        char *save = NULL;
        for (char *part = strtok_r(ns, ":", &save); part; part = strtok_r(NULL, ":", &save), depth++)
            sb_printf(tu, "namespace %s { ", part);
        while (depth--) sb_puts(tu, "} ");
    }
    if (it->device_end > it->start && it->device_end <= it->end) { /* "union U {...} u;": the type alone */
        sb_append(tu, code + it->start, it->device_end - it->start);
        sb_putc(tu, ';');
    } else {
        sb_append(tu, code + it->start, it->end - it->start);
    }
    sb_putc(tu, '\n');
}

/* The text kept in the prelude for one key: all of the cell's items with
 * that key (overloads), each with its #line. */
static char *group_text(const char *code, const cell_split_t *sp, const char *key, const char *cell) {
    strbuf_t b = {0};
    for (size_t i = 0; i < sp->n; i++)
        if (is_device_side(&sp->items[i]) && !strcmp(sp->items[i].key, key)) add_item_text(&b, code, &sp->items[i], cell);
    return sb_take(&b);
}

static bool cell_defines(const cell_split_t *sp, const char *key) {
    for (size_t i = 0; i < sp->n; i++)
        if (is_device_side(&sp->items[i]) && sp->items[i].key[0] && !strcmp(sp->items[i].key, key)) return true;
    return false;
}

/* A host item "const int BLOCK = 256;" or "constexpr int BINS = 64;"
 * (static or not): a scalar that device code may use as a compile-time
 * constant. Returns where "const" or "constexpr" starts. */
static const char *host_const_decl(const char *code, const cell_item_t *it) {
    if (it->kind != ITEM_HOST || it->is_function || !it->name[0]) return NULL;
    const char *p = code + it->start, *end = code + it->end;
    for (bool more = true; more;) {
        more = false;
        static const char *const lead[] = {"static ", "inline ", NULL};
        for (int k = 0; lead[k]; k++)
            if (!strncmp(p, lead[k], strlen(lead[k]))) {
                p += strlen(lead[k]);
                while (p < end && isspace((unsigned char)*p)) p++;
                more = true;
            }
    }
    if (strncmp(p, "const ", 6) != 0 && strncmp(p, "constexpr ", 10) != 0) return NULL;
    const char *eq = memchr(p, '=', (size_t)(end - p));
    if (!eq || memchr(p, '*', (size_t)(eq - p)) || memchr(p, '[', (size_t)(eq - p))) return NULL; /* scalars only */
    return p;
}

static bool word_in(const char *s, size_t n, const char *word) {
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (!memcmp(s + i, word, w) && (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) &&
            (i + w == n || !(isalnum((unsigned char)s[i + w]) || s[i + w] == '_')))
            return true;
    return false;
}

static bool cell_device_uses(const char *code, const cell_split_t *sp, const char *name) {
    for (size_t i = 0; i < sp->n; i++)
        if (is_device_side(&sp->items[i]) && word_in(code + sp->items[i].start, sp->items[i].end - sp->items[i].start, name))
            return true;
    return false;
}

/* Host constants as the device sees them: the interpreter's constexpr lines
 * for earlier cells (macros come through the prelude instead), less the
 * ones this cell declares again, plus this cell's own const scalars that its
 * device code uses (they run only after the compile). */
static void add_host_constants(device_session_t *ds, strbuf_t *tu, const char *code, const cell_split_t *sp, const char *cell) {
    char *consts = ds->interp ? interp_device_constants(ds->interp) : NULL;
    bool header = false;
    for (const char *line = consts; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        const char *eq = memchr(line, '=', n);
        bool keep = line[0] != '#' && eq;
        if (keep) {
            const char *q = eq;
            while (q > line && q[-1] == ' ') q--;
            const char *a = q;
            while (a > line && (isalnum((unsigned char)a[-1]) || a[-1] == '_')) a--;
            for (size_t i = 0; i < sp->n && keep; i++)
                if (host_const_decl(code, &sp->items[i]) && strlen(sp->items[i].name) == (size_t)(q - a) &&
                    !memcmp(sp->items[i].name, a, (size_t)(q - a)))
                    keep = false;
        }
        if (keep) {
            /* a constant this unit does not use is no warning of the cell's; _Pragma, as
             * a directive here would change the unit's precompiled-header prefix */
            if (!header) sb_puts(tu, "#line 0 \"session constants\"\n_Pragma(\"nv_diag_suppress 177\")\n");
            header = true;
            sb_append(tu, line, n);
            sb_putc(tu, '\n');
        }
        line = eol ? eol + 1 : line + n;
    }
    if (header) sb_puts(tu, "_Pragma(\"nv_diag_default 177\")\n");
    free(consts);
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        const char *decl = host_const_decl(code, it);
        if (!decl || !cell_device_uses(code, sp, it->name)) continue;
        sb_printf(tu, "#line %d \"%s\"\n%.*s", it->first_line, cell, (int)(decl - (code + it->start)), code + it->start);
        if (!strncmp(decl, "constexpr ", 10)) sb_printf(tu, "%.*s\n", (int)(code + it->end - decl), decl);
        else sb_printf(tu, "constexpr %.*s\n", (int)(code + it->end - (decl + 6)), decl + 6);
    }
}

/* Is a prelude text (after its #line) a preprocessor item? */
static bool pp_text(const char *text) {
    const char *nl = strchr(text, '\n');
    return nl && nl[1] == '#';
}

static void strip_line_markers(const char *marked, device_unit_t *u) {
    strbuf_t b = {0};
    int tu_line = 1;
    line_span_t *cur = NULL;
    for (const char *line = marked; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line + 1) : strlen(line);
        int at;
        char label[48];
        if (!strncmp(line, "#line ", 6) && sscanf(line, "#line %d \"%47[^\"]\"", &at, label) == 2) {
            ARRAY_GROW(u->map, u->nmap, u->cap);
            cur = &u->map[u->nmap++];
            *cur = (line_span_t){tu_line, 0, at, ""};
            snprintf(cur->label, sizeof cur->label, "%s", label);
        } else {
            sb_append(&b, line, n);
            tu_line++;
            if (cur) cur->n++;
        }
        line += n;
    }
    u->text = sb_take(&b);
}

/* Prelude in order, the cell's definitions standing in place of the ones they
 * replace (so what came after them still sees them), then the cell's new
 * items. Preprocessor items (#include, #define) go first, host constants
 * right after them: the unit then starts with the same run of #includes from
 * cell to cell, which NVRTC's automatic precompiled header reuses, so a
 * heavy header (curand_kernel.h, CUB) is parsed once per session. */
void device_unit_build(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell, device_unit_t *u) {
    memset(u, 0, sizeof *u);
    strbuf_t tu = {0};
    bool *placed = xcalloc(sp->n + 1, sizeof *placed);
    for (int pass = 0; pass < 2; pass++) {
        bool want_pp = pass == 0;
        for (int p = 0; p < ds->nprelude; p++) {
            prelude_item_t *pi = &ds->prelude[p];
            if (pp_text(pi->text) != want_pp) continue;
            if (cell_defines(sp, pi->key)) {
                for (size_t i = 0; i < sp->n; i++)
                    if (!placed[i] && is_device_side(&sp->items[i]) && !strcmp(sp->items[i].key, pi->key)) {
                        add_item_text(&tu, code, &sp->items[i], cell);
                        placed[i] = true;
                    }
            } else if (!pi->is_kernel) {
                sb_append(&tu, pi->text, strlen(pi->text));
            }
        }
        for (size_t i = 0; i < sp->n; i++)
            if (!placed[i] && is_device_side(&sp->items[i]) && (code[sp->items[i].start] == '#') == want_pp) {
                add_item_text(&tu, code, &sp->items[i], cell);
                placed[i] = true;
            }
        if (pass == 0) add_host_constants(ds, &tu, code, sp, cell);
    }
    free(placed);
    strip_line_markers(tu.data ? tu.data : "", u);
    free(tu.data);
}

void device_unit_free(device_unit_t *u) {
    free(u->text);
    free(u->map);
}

char *device_prelude_source(device_session_t *ds) {
    cell_split_t none = {0};
    device_unit_t u;
    device_unit_build(ds, "", &none, "prelude", &u);
    device_lines_pending(&ds->lines, u.text, u.map, u.nmap); /* a template instance is compiled from it */
    free(u.map);
    return u.text;
}

static void prelude_set(device_session_t *ds, const char *key, char *text, const char *cell, int line, bool is_kernel) {
    for (int p = 0; p < ds->nprelude; p++)
        if (!strcmp(ds->prelude[p].key, key)) {
            free(ds->prelude[p].text);
            free(ds->prelude[p].cell);
            ds->prelude[p].text = text;
            ds->prelude[p].cell = xstrdup(cell);
            ds->prelude[p].first_line = line;
            ds->prelude[p].is_kernel = is_kernel;
            return;
        }
    ARRAY_GROW(ds->prelude, ds->nprelude, ds->cap_prelude);
    ds->prelude[ds->nprelude++] = (prelude_item_t){xstrdup(key), text, xstrdup(cell), line, is_kernel};
}

/* log: the cell's compile log; a # line NVRTC warned about is not carried
 * (it would warn again in every later cell). */
void device_remember_items(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell, const char *log) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (!is_device_side(it) || !device_pp_carried(code, it)) continue;
        if (code[it->start] == '#' && device_log_names(log, cell, "warning", it->first_line, it->last_line)) continue;
        char anon[96];
        const char *key = it->key;
        if (!key[0]) { /* no name (a #pragma, an odd declaration): keep it once, by text */
            snprintf(anon, sizeof anon, "text:%.*s", (int)((it->end - it->start) < 80 ? it->end - it->start : 80),
                     code + it->start);
            key = anon;
        }
        bool first_of_key = true;
        for (size_t k = 0; k < i; k++)
            if (is_device_side(&sp->items[k]) && sp->items[k].key[0] && !strcmp(sp->items[k].key, it->key))
                first_of_key = false;
        if (!first_of_key) continue;
        char *text;
        if (it->key[0]) text = group_text(code, sp, it->key, cell);
        else {
            strbuf_t b = {0};
            add_item_text(&b, code, it, cell);
            text = sb_take(&b);
        }
        prelude_set(ds, key, text, cell, it->first_line, it->is_kernel && !it->is_template);
    }
}


/* The text of a prelude entry without its #line markers, which name the
 * cell it came from: a cell run again under a new number changes nothing. */
static bool same_definition(const char *a, const char *b) {
    for (;;) {
        while (!strncmp(a, "#line ", 6)) a = strchr(a, '\n') ? strchr(a, '\n') + 1 : a + strlen(a);
        while (!strncmp(b, "#line ", 6)) b = strchr(b, '\n') ? strchr(b, '\n') + 1 : b + strlen(b);
        if (!*a || !*b) return !*a && !*b;
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        size_t na = ea ? (size_t)(ea - a + 1) : strlen(a), nb = eb ? (size_t)(eb - b + 1) : strlen(b);
        if (na != nb || memcmp(a, b, na)) return false;
        a += na;
        b += nb;
    }
}

/* Would the cell's device-side items change the session's prelude in a way
 * NVRTC might refuse? The C headers' stand-ins are known to compile, and so
 * are plain C types; # lines and types naming a namespace's types
 * (std::string members) are checked. */
bool device_prelude_changes(device_session_t *ds, const char *code, const cell_split_t *sp) {
    for (size_t i = 0; i < sp->n; i++) {
        const cell_item_t *it = &sp->items[i];
        if (!is_device_side(it) || !device_pp_carried(code, it) || (it->is_include && it->include_route == INC_BOTH))
            continue;
        if (code[it->start] != '#' && !memmem(code + it->start, it->end - it->start, "::", 2)) continue;
        if (!it->key[0]) return true;
        const prelude_item_t *have = NULL;
        for (int p = 0; p < ds->nprelude; p++)
            if (!strcmp(ds->prelude[p].key, it->key)) have = &ds->prelude[p];
        if (!have) return true;
        char *text = group_text(code, sp, it->key, "cell");
        bool same = same_definition(text, have->text);
        free(text);
        if (!same) return true;
    }
    return false;
}


/* The log with every diagnostic under the label and line a person knows:
 * "cell.cu(N)" (see device_unit_t) becomes the cell and line it came from, the
 * current cell (DEVICE_THIS_CELL) under its own label. Takes log. */
char *device_unit_relabel(char *log, const char *cell, const device_unit_t *u) {
    strbuf_t b = {0};
    const char *p = log, *hit;
    while ((hit = strstr(p, "cell.cu(")) != NULL) {
        sb_append(&b, p, (size_t)(hit - p));
        int n = atoi(hit + 8);
        const line_span_t *span = NULL;
        for (int i = 0; i < u->nmap; i++)
            if (n >= u->map[i].tu_first && n < u->map[i].tu_first + u->map[i].n) span = &u->map[i];
        const char *close = strchr(hit + 8, ')');
        if (!span || !close) {
            sb_puts(&b, "cell.cu(");
            p = hit + 8;
            continue;
        }
        sb_printf(&b, "%s(%d)", strcmp(span->label, DEVICE_THIS_CELL) ? span->label : cell, span->cell_first + n - span->tu_first);
        p = close + 1;
    }
    sb_puts(&b, p);
    free(log);
    return sb_take(&b);
}
