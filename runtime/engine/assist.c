/* What an editor asks of the kernel without running anything: is a cell
 * complete (jupyter console), and completions (inspection: inspect.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assist.h"
#include "runtime/toolkit/cuda_rt_table.h"
#include "runtime/device/cuda_docs.h"
#include "runtime/lang/interp.h"
#include "magics/magics.h"
#include "session.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
const char *engine_is_complete(engine_t *e, const char *code, char **indent) {
    *indent = NULL;
    int depth = 0;
    const char *p = code;
    size_t n = strlen(code);
    /* a cell magic ends at an empty line, as in IPython's console */
    const char *s = code;
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (s[0] == '%' && s[1] == '%') {
        if (n >= 1 && code[n - 1] == '\n' && (n < 2 || code[n - 2] == '\n')) return "complete";
        *indent = xstrdup("");
        return "incomplete";
    }
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '/' && p[i + 1] == '/') {
            while (i < n && p[i] != '\n') i++;
        } else if (c == '/' && p[i + 1] == '*') {
            const char *end = strstr(p + i + 2, "*/");
            if (!end) {
                *indent = xstrdup("");
                return "incomplete";
            }
            i = (size_t)(end - p) + 1;
        } else if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < n && p[j] != c && p[j] != '\n') {
                if (p[j] == '\\') j++;
                j++;
            }
            if (j >= n || p[j] != c) return "invalid";
            i = j;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0) return "invalid";
        }
    }
    size_t end = n;
    while (end > 0 && isspace((unsigned char)code[end - 1])) end--;
    if (depth > 0 || (end > 0 && code[end - 1] == '\\')) {
        strbuf_t b = {0};
        for (int d = 0; d < (depth > 0 ? depth : 0) && d < 16; d++) sb_puts(&b, "    "); /* not 400 KB of spaces */
        *indent = sb_take(&b);
        return "incomplete";
    }
    return "complete";
}

/* ---- offsets: the protocol counts code points, the code is UTF-8 ---- */

int assist_byte_offset(const char *s, int cp) {
    int b = 0;
    for (int k = 0; s[b] && k < cp; k++) {
        b++;
        while ((s[b] & 0xc0) == 0x80) b++;
    }
    return b;
}

static int code_points(const char *s, int bytes) {
    int n = 0;
    for (int i = 0; i < bytes && s[i]; i++)
        if ((s[i] & 0xc0) != 0x80) n++;
    return n;
}

/* ---- the matches: deduplicated, sorted, each with its type ---- */

typedef struct {
    char *text, *type, *sig;
} match_t;

typedef struct {
    match_t *m;
    int n, cap;
    json_t *seen; /* text -> true */
    const char *prefix;
    size_t plen;
} matches_t;

static void add(matches_t *ms, const char *text, const char *type, const char *sig) {
    if (strncmp(text, ms->prefix, ms->plen) || json_object_get(ms->seen, text)) return;
    json_object_set_new(ms->seen, text, json_true());
    ARRAY_GROW(ms->m, ms->n, ms->cap);
    ms->m[ms->n++] = (match_t){xstrdup(text), xstrdup(type), xstrdup(sig ? sig : "")};
}

static void add_list(matches_t *ms, json_t *list) {
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) add(ms, json_string_value(json_object_get(v, "text")),
                                       json_string_value(json_object_get(v, "type")),
                                       json_string_value(json_object_get(v, "signature")));
    json_decref(list);
}

static int by_text(const void *a, const void *b) {
    const match_t *x = a, *y = b;
    /* names starting with '_' after the others, as editors list them */
    bool ux = x->text[0] == '_', uy = y->text[0] == '_';
    if (ux != uy) return ux - uy;
    return strcmp(x->text, y->text);
}

static json_t *reply(matches_t *ms, const char *code, int start, int end) {
    if (ms->n) qsort(ms->m, (size_t)ms->n, sizeof *ms->m, by_text);
    int cs = code_points(code, start), ce = code_points(code, end);
    json_t *matches = json_array(), *types = json_array();
    for (int i = 0; i < ms->n; i++) {
        json_array_append_new(matches, json_string(ms->m[i].text));
        json_array_append_new(types, json_pack("{s:i, s:i, s:s, s:s, s:s}", "start", cs, "end", ce, "text",
                                               ms->m[i].text, "type", ms->m[i].type, "signature", ms->m[i].sig));
        free(ms->m[i].text);
        free(ms->m[i].type);
        free(ms->m[i].sig);
    }
    free(ms->m);
    json_decref(ms->seen);
    return json_pack("{s:o, s:i, s:i, s:{s:o}}", "matches", matches, "cursor_start", cs, "cursor_end", ce,
                     "metadata", "_jupyter_types_experimental", types);
}

static const char *const keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "return", "short", "signed", "sizeof", "static",
    "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
    "template", "typename", "namespace", "class", "constexpr", "nullptr", "#include", "#define", "#pragma",
    NULL};

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Is byte offset pos inside the body of a __global__ or __device__
 * function? Top-level brace blocks are matched; a block's header is the
 * text since the previous top-level ';' or '}'. */
static bool in_device_code(const char *code, int pos) {
    int depth = 0, header = 0;
    bool device = false;
    for (int i = 0; i < pos && code[i]; i++) {
        char c = code[i];
        if (c == '/' && code[i + 1] == '/') {
            while (i < pos && code[i] && code[i] != '\n') i++;
        } else if (c == '"' || c == '\'') {
            for (i++; i < pos && code[i] && code[i] != c && code[i] != '\n'; i++)
                if (code[i] == '\\' && code[i + 1]) i++;
        } else if (c == '{') {
            if (depth++ == 0) {
                char *h = xstrndup(code + header, (size_t)(i - header));
                device = strstr(h, "__global__") || strstr(h, "__device__");
                free(h);
            }
        } else if (c == '}') {
            if (depth > 0 && --depth == 0) header = i + 1, device = false;
        } else if (c == ';' && depth == 0) {
            header = i + 1;
        }
    }
    return depth > 0 && device;
}

/* "%name ... -": the options of magic name, read from its usage and help. */
static void magic_options(matches_t *ms, const magic_t *m) {
    const char *texts[2] = {m->usage, m->help};
    for (int t = 0; t < 2; t++) {
        const char *p = texts[t];
        if (!p) continue;
        for (; *p; p++) {
            if (*p != '-' || (p > texts[t] && !strchr(" [|(", p[-1]))) continue;
            const char *q = p + 1;
            if (*q == '-') q++;
            if (!isalpha((unsigned char)*q)) continue;
            while (isalnum((unsigned char)*q) || *q == '-') q++;
            char opt[64];
            snprintf(opt, sizeof opt, "%.*s", (int)(q - p), p);
            add(ms, opt, "option", m->usage);
            p = q - 1;
        }
    }
}

json_t *engine_complete(engine_t *e, const char *code, int cursor_cp) {
    int n = (int)strlen(code);
    int cur = assist_byte_offset(code, cursor_cp < 0 ? n : cursor_cp);
    int start = cur;
    while (start > 0 && ident_char(code[start - 1])) start--;
    int ls = start;
    while (ls > 0 && code[ls - 1] != '\n') ls--;
    char prefix[256];
    matches_t ms = {.seen = json_object(), .prefix = prefix};

    /* an option of the magic this line starts with */
    int os = start;
    while (os > ls && (ident_char(code[os - 1]) || code[os - 1] == '-')) os--;
    if (code[os] == '-' && (os == ls || code[os - 1] == ' ') && code[ls] == '%') {
        int ne = ls;
        while (code[ne] == '%') ne++;
        int nl = ne;
        while (ident_char(code[nl])) nl++;
        char name[64];
        snprintf(name, sizeof name, "%.*s", nl - ne, code + ne);
        snprintf(prefix, sizeof prefix, "%.*s", cur - os, code + os);
        ms.plen = strlen(prefix);
        const magic_t *m = magic_find(name);
        if (m) magic_options(&ms, m);
        return reply(&ms, code, os, cur);
    }
    if (start > 0 && code[start - 1] == '%') {
        while (start > 0 && code[start - 1] == '%') start--;
        snprintf(prefix, sizeof prefix, "%.*s", cur - start, code + start);
        ms.plen = strlen(prefix);
        int count;
        const magic_t *m = magic_table(&count);
        bool cellm = ms.plen >= 2 && prefix[1] == '%';
        for (int i = 0; i < count; i++) {
            if (cellm ? !m[i].cell : !m[i].line) continue;
            char full[64];
            snprintf(full, sizeof full, "%s%s", cellm ? "%%" : "%", m[i].name);
            add(&ms, full, "magic", m[i].usage);
        }
        return reply(&ms, code, start, cur);
    }
    if (start > 0 && code[start - 1] == '#') start--;
    /* a qualified name (std::vec): the library's names are kept whole */
    while (start >= 2 && code[start - 1] == ':' && code[start - 2] == ':' && start - 2 > ls &&
           ident_char(code[start - 3])) {
        start -= 2;
        while (start > ls && ident_char(code[start - 1])) start--;
    }
    snprintf(prefix, sizeof prefix, "%.*s", cur - start, code + start);
    ms.plen = strlen(prefix);

    /* a member after "." or "->" */
    int op = start;
    while (op > 0 && code[op - 1] == ' ') op--;
    bool arrow = op >= 2 && code[op - 1] == '>' && code[op - 2] == '-';
    if (arrow || (op > 0 && code[op - 1] == '.' && !(op > 1 && isdigit((unsigned char)code[op - 2])))) {
        int ce = op - (arrow ? 2 : 1), cs = ce, depth = 0;
        while (cs > 0) {
            char c = code[cs - 1];
            if (c == ']') depth++;
            else if (c == '[') depth--;
            else if (depth == 0 && !(ident_char(c) || c == '.' || c == ' ' ||
                                     (c == '>' && cs > 1 && code[cs - 2] == '-') || (c == '-' && code[cs] == '>')))
                break;
            cs--;
        }
        char *chain = xstrndup(code + cs, (size_t)(ce - cs));
        json_t *members = e->interp ? interp_members(e->interp, chain, arrow, prefix) : NULL;
        free(chain);
        if (members) add_list(&ms, members);
        return reply(&ms, code, start, cur);
    }
    if (ms.plen == 0) return reply(&ms, code, start, cur);

    bool device = in_device_code(code, cur);
    for (int i = 0; i < e->dev.nkernels; i++) add(&ms, e->dev.kernels[i].name, "kernel", e->dev.kernels[i].signature);
    for (const cuda_builtin_t *b = cuda_builtins; b->name; b++)
        if (device || strcmp(b->kind, "variable")) add(&ms, b->name, b->kind, b->signature);
    if (e->interp) {
        json_t *names = interp_completions(e->interp, prefix);
        if (device) { /* the host's names device code sees too: macros, types, constants */
            json_t *keep = json_array();
            size_t i;
            json_t *v;
            json_array_foreach(names, i, v) {
                const char *t = json_string_value(json_object_get(v, "type"));
                if (!strcmp(t, "macro") || !strcmp(t, "type") || !strcmp(t, "enum value")) json_array_append(keep, v);
            }
            json_decref(names);
            names = keep;
        }
        add_list(&ms, names);
    }
    if (!device && ms.plen >= 2 && !strncmp(prefix, "cu", 2))
        for (int k = 0; k < crt_nfns; k++) add(&ms, crt_fns[k].name, "function", crt_fns[k].proto);
    for (int i = 0; keywords[i]; i++) add(&ms, keywords[i], "keyword", "");
    return reply(&ms, code, start, cur);
}
