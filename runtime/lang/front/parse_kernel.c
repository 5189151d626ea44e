/* Kernels of device cells in host code, beyond k<<<...>>>(...) by name: a
 * kernel's name as a value (cudaFuncGetAttributes(&a, k), (void *)k,
 * cudaLaunchKernel((void *)k, ...), a table of kernels launched through
 * table[i]<<<...>>>), and a template kernel launched without its template
 * arguments, which are deduced from the launch's arguments as C++ deduces
 * them. The device side says what is a kernel (interp_set_kernel_source);
 * a kernel's value is its name, a string in the session's literals, which
 * the CUDA calls that take a kernel read and a launch through a value
 * resolves when it runs. */
#include <ctype.h>
#include <stdlib.h>
#include "parse_internal.h"

/* 0 none, 1 a kernel, 2 a template kernel (decl filled). */
static int kernel_kind(P *p, const char *name, char *decl, size_t cap) {
    interp_t *in = p->in;
    decl[0] = 0;
    if (!in->kernel_decl || !name[0] || strchr(name, '<')) return 0;
    return in->kernel_decl(in->kernel_ctx, name, decl, cap);
}

/* The type of a kernel's value: a pointer to a function returning void of
 * unspecified parameters, which a pointer to any such function takes
 * (ty_compat_ptr); the launch checks the arguments against the kernel's
 * own parameters. */
static type_t *kernel_pointer_type(void) {
    type_t *f = ty_func(&ty_void, 0, NULL, false);
    f->oldstyle = true;
    return ty_ptr(f);
}

node_t *kernel_value(P *p, const char *name, loc_t *l) {
    char decl[1024];
    int k = kernel_kind(p, name, decl, sizeof decl);
    if (!k) return NULL;
    if (is_p(p, P_LPAREN))
        type_error(l, "'%s' is a kernel: launch it with %s<<<grid, block>>>(...), not as a host function", name, name);
    if (k == 2)
        type_error(l, "'%s' is a template kernel: name one of its instances as a value, %s<float> say", name, name);
    const char *bytes;
    uint64_t w = strlit_word(p, name, strlen(name), l, &bytes);
    return mk_const(l, kernel_pointer_type(), (val_t){.u = w});
}

/* ---- template arguments deduced from a launch's arguments ---- */

typedef struct {
    char name[64];
    bool is_type;
    bool has_default;
    type_t *deduced;
} tparam_t;

static const char *skip_space(const char *s) {
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

/* The end of the bracketed list that starts at s ('<' or '('), at its closing bracket. */
static const char *list_end(const char *s) {
    int d = 0;
    for (; *s; s++) {
        if (*s == '<' || *s == '(' || *s == '[') d++;
        else if ((*s == '>' || *s == ')' || *s == ']') && --d == 0) return s;
    }
    return s;
}

/* Splits [s, e) at its top-level commas into trimmed pieces (at most max). */
static int split_top(const char *s, const char *e, char out[][160], int max) {
    int n = 0, d = 0;
    const char *st = s;
    for (const char *q = s; q <= e && n < max; q++) {
        if (q < e && (*q == '<' || *q == '(' || *q == '[')) d++;
        else if (q < e && (*q == '>' || *q == ')' || *q == ']')) d--;
        else if (q == e || (*q == ',' && d == 0)) {
            const char *a = skip_space(st), *b = q;
            while (b > a && isspace((unsigned char)b[-1])) b--;
            if (b > a) snprintf(out[n++], 160, "%.*s", (int)(b - a), a);
            st = q + 1;
        }
    }
    return n;
}

/* "typename T", "class U = float", "int B = 128": its name and kind. */
static void read_tparam(const char *text, tparam_t *t) {
    memset(t, 0, sizeof *t);
    char buf[160];
    snprintf(buf, sizeof buf, "%.159s", text);
    char *eq = strchr(buf, '=');
    if (eq) {
        *eq = 0;
        t->has_default = true;
    }
    char *end = buf + strlen(buf);
    while (end > buf && isspace((unsigned char)end[-1])) *--end = 0;
    char *w = end;
    while (w > buf && (isalnum((unsigned char)w[-1]) || w[-1] == '_')) w--;
    snprintf(t->name, sizeof t->name, "%.63s", w);
    const char *s = skip_space(buf);
    t->is_type = !strncmp(s, "typename", 8) || !strncmp(s, "class", 5);
}

/* A kernel parameter "const T *__restrict__ p": the template parameter it
 * is made of (its index, -1 none) and how many pointer levels over it. */
static int param_over(const char *text, const tparam_t *tp, int ntp, int *levels) {
    char words[8][64];
    int nw = 0;
    *levels = 0;
    for (const char *s = text; *s;) {
        if (*s == '*' || *s == '[') {
            (*levels)++;
            if (*s == '[') s = list_end(s);
            if (*s) s++;
            continue;
        }
        if (*s == '<') return -1; /* a template type over T: not deduced here */
        if (isalpha((unsigned char)*s) || *s == '_') {
            const char *w = s;
            while (isalnum((unsigned char)*s) || *s == '_') s++;
            size_t n = (size_t)(s - w);
            static const char *const quals[] = {"const", "volatile", "__restrict__", "__restrict", "restrict",
                                                "__grid_constant__", NULL};
            bool q = false;
            for (int k = 0; quals[k]; k++) q |= strlen(quals[k]) == n && !memcmp(quals[k], w, n);
            if (!q && nw < 8) snprintf(words[nw++], 64, "%.*s", (int)n, w);
            continue;
        }
        s++;
    }
    if (nw < 1 || nw > 2) return -1; /* "T", "T p"; "unsigned int n" is no template parameter */
    for (int i = 0; i < ntp; i++)
        if (tp[i].is_type && !strcmp(words[0], tp[i].name)) return i;
    return -1;
}

/* An argument's type as deduction sees it: arrays and functions decay,
 * qualifiers go. */
static type_t *arg_type(node_t *a) {
    type_t *t = a->ty;
    if (t->kind == T_ARRAY) t = ty_ptr(t->base);
    return ty_unqual(t);
}

/* Is decl's kernel launched with args a template whose arguments are
 * deduced: its instance's name ("scale<float>"), or a TypeError that says
 * which argument could not be. The first ngiven template arguments are
 * given (sort<512, 8> of template <int B, int N, typename T>); the rest
 * are deduced. as_launched is the name as the launch wrote it. */
static const char *deduce(P *p, const char *name, const char *as_launched, char given[][160], int ngiven,
                          const char *decl, node_t **args, int nargs, loc_t *l) {
    const char *lt = strchr(decl, '<');
    if (!lt) return as_launched;
    const char *gt = list_end(lt);
    char raw[16][160];
    int ntp = split_top(lt + 1, gt, raw, 16);
    tparam_t tp[16];
    for (int i = 0; i < ntp; i++) read_tparam(raw[i], &tp[i]);
    if (ngiven >= ntp) return as_launched;
    const char *open = strchr(gt, '(');
    if (!open) return as_launched;
    char prm[32][160];
    int np = split_top(open + 1, list_end(open), prm, 32);
    if (np == 1 && !strcmp(prm[0], "void")) np = 0;
    if (nargs != np)
        type_error(l, "%s takes %d argument%s, not %d (its template arguments are deduced from them)", name, np,
                   np == 1 ? "" : "s", nargs);
    for (int i = 0; i < np; i++) {
        int levels, k = param_over(prm[i], tp, ntp, &levels);
        if (k < ngiven) continue; /* none, or given: the argument converts to it */
        type_t *t = arg_type(args[i]);
        for (int j = 0; j < levels; j++) {
            if (t->kind != T_PTR)
                type_error(&args[i]->loc, "argument %d of %s (%s) must be a pointer, as its parameter '%s' is, to "
                           "deduce %s", i + 1, name, tyname(args[i]->ty), prm[i], tp[k].name);
            t = ty_unqual(t->base);
        }
        if (t->kind == T_VOID || t->kind == T_FUNC)
            type_error(&args[i]->loc, "%s cannot be deduced from argument %d of %s (%s)", tp[k].name, i + 1, name,
                       tyname(args[i]->ty));
        if (tp[k].deduced && !ty_same(tp[k].deduced, t)) {
            char lead[400] = "";
            for (int g = 0, o = 0; g < ngiven && o < (int)sizeof lead; g++)
                o += snprintf(lead + o, sizeof lead - (size_t)o, "%s, ", given[g]);
            type_error(&args[i]->loc, "%s of %s is deduced as both %s and %s: say which, %s<%s%s><<<...>>>", tp[k].name,
                       name, tyname(tp[k].deduced), tyname(t), name, lead, tyname(tp[k].deduced));
        }
        tp[k].deduced = t;
    }
    /* the instance's name: deduced arguments up to the first one a default gives */
    size_t cap = strlen(name) + 4 + (size_t)ntp * 200, o = 0;
    char *inst = palloc(p, cap);
    o += (size_t)snprintf(inst + o, cap - o, "%s<", name);
    int used = 0;
    for (int i = 0; i < ntp; i++) {
        if (i < ngiven) {
            o += (size_t)snprintf(inst + o, cap - o, "%s%s", used++ ? ", " : "", given[i]);
            continue;
        }
        if (!tp[i].deduced) {
            if (tp[i].has_default) break;
            type_error(l, "the template argument %s of %s cannot be deduced from the launch's arguments: give it, "
                       "%s<...><<<grid, block>>>(...)", tp[i].name, name, name);
        }
        char tb[200];
        type_t plain = *tp[i].deduced;
        if (ty_is_arith(&plain) && !plain.is_enum) plain.name = NULL; /* uint32_t: the device may not have the typedef */
        ty_name(&plain, tb, sizeof tb);
        o += (size_t)snprintf(inst + o, cap - o, "%s%s", used++ ? ", " : "", tb);
    }
    if (used == ngiven) return as_launched;
    snprintf(inst + o, cap - o, "%s>", inst[o - 1] == '>' ? " " : "");
    return inst;
}

const char *kernel_launch_name(P *p, const char *name, node_t **args, int nargs, loc_t *l) {
    char decl[1024], base[128], given[16][160];
    const char *lt = strchr(name, '<');
    size_t bl = lt ? (size_t)(lt - name) : strlen(name);
    while (bl && isspace((unsigned char)name[bl - 1])) bl--;
    if (bl >= sizeof base) return name;
    snprintf(base, sizeof base, "%.*s", (int)bl, name);
    if (kernel_kind(p, base, decl, sizeof decl) != 2) return name;
    int ngiven = lt ? split_top(lt + 1, list_end(lt), given, 16) : 0;
    return deduce(p, base, name, given, ngiven, decl, args, nargs, l);
}
