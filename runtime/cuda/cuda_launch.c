/* Launches from host cells, k<<<grid, block, shmem, stream>>>(args): the
 * kernel's parameters are parsed from its signature once, each
 * argument is checked against them before anything reaches the GPU (so the
 * checks work without one), packed as the kernel expects, and launched
 * through the worker. Template kernels (scale<float>) are instantiated on
 * demand from the session prelude, through the compile cache. */
#include "cuda_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include "runtime/device/compile_cache.h"
#include "runtime/device/nvrtc_compile.h"
#include "runtime/device/device_session.h"
struct cs_param {
    char text[160];  /* "const double *x" */
    char name[64];
    char base[64];   /* "double", "unsigned int", "P" (a struct), "" unknown */
    int ptr;         /* levels of pointer */
    bool const_pointee;
    int scalar;      /* bytes of a known scalar, 0 otherwise */
    bool is_float, is_unsigned;
};

/* ---- types as spelled ---- */

static const struct { const char *name; int size; bool fl, un; } scalars[] = {
    {"char", 1, 0, 0}, {"signed char", 1, 0, 0}, {"unsigned char", 1, 0, 1}, {"bool", 1, 0, 1}, {"_Bool", 1, 0, 1},
    {"short", 2, 0, 0}, {"unsigned short", 2, 0, 1}, {"int", 4, 0, 0}, {"unsigned int", 4, 0, 1},
    {"long", 8, 0, 0}, {"unsigned long", 8, 0, 1}, {"float", 4, 1, 0}, {"double", 8, 1, 0},
    {"size_t", 8, 0, 1}, {"ssize_t", 8, 0, 0}, {"ptrdiff_t", 8, 0, 0}, {"int8_t", 1, 0, 0}, {"uint8_t", 1, 0, 1},
    {"int16_t", 2, 0, 0}, {"uint16_t", 2, 0, 1}, {"int32_t", 4, 0, 0}, {"uint32_t", 4, 0, 1},
    {"int64_t", 8, 0, 0}, {"uint64_t", 8, 0, 1}, {"uint", 4, 0, 1}, {"ulong", 8, 0, 1}, {"ushort", 2, 0, 1},
};

/* Folds C's many spellings of one type into one: "unsigned" -> "unsigned
 * int", "long long int" -> "long", "uint64_t" -> "unsigned long". */
static void canon(char *t) {
    static const char *alias[][2] = {
        {"unsigned", "unsigned int"}, {"signed", "int"}, {"signed int", "int"}, {"short int", "short"},
        {"unsigned short int", "unsigned short"}, {"long int", "long"}, {"long long", "long"},
        {"long long int", "long"}, {"unsigned long int", "unsigned long"}, {"unsigned long long", "unsigned long"},
        {"unsigned long long int", "unsigned long"}, {"size_t", "unsigned long"}, {"uint64_t", "unsigned long"},
        {"int64_t", "long"}, {"uint32_t", "unsigned int"}, {"int32_t", "int"}, {"uint16_t", "unsigned short"},
        {"int16_t", "short"}, {"uint8_t", "unsigned char"}, {"int8_t", "signed char"}, {"uint", "unsigned int"},
        {"ulong", "unsigned long"}, {"ushort", "unsigned short"}, {"ssize_t", "long"}, {"ptrdiff_t", "long"},
        {"_Bool", "bool"}, {"long unsigned int", "unsigned long"},
    };
    for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
        if (!strcmp(t, alias[i][0])) {
            strcpy(t, alias[i][1]);
            return;
        }
}

static bool is_type_word(const char *w) {
    static const char *k[] = {"int", "char", "short", "long", "unsigned", "signed", "float", "double", "bool",
                              "_Bool", "void", "size_t"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(w, k[i])) return true;
    return false;
}

/* Parses one declaration "const float * __restrict__ x" or a type "float *". */
static void parse_decl(const char *s, size_t len, cs_param_t *p, bool want_name) {
    memset(p, 0, sizeof *p);
    snprintf(p->text, sizeof p->text, "%.*s", (int)len, s);
    char words[12][64];
    int nw = 0, stars_at = -1;
    const char *e = s + len;
    while (s < e) {
        if (isspace((unsigned char)*s)) { s++; continue; }
        if (*s == '*') {
            if (stars_at < 0) stars_at = nw;
            p->ptr++;
            s++;
            continue;
        }
        if (*s == '&') { s++; continue; }
        if (*s == '[') { /* x[] or x[N]: a pointer */
            p->ptr++;
            while (s < e && *s != ']') s++;
            if (s < e) s++;
            continue;
        }
        if (isalnum((unsigned char)*s) || *s == '_' || *s == ':') {
            const char *w = s;
            while (s < e && (isalnum((unsigned char)*s) || *s == '_' || *s == ':')) s++;
            size_t n = (size_t)(s - w);
            char word[64];
            snprintf(word, sizeof word, "%.*s", (int)(n < 63 ? n : 63), w);
            if (!strcmp(word, "const")) {
                if (stars_at < 0) p->const_pointee = true;
                continue;
            }
            if (!strcmp(word, "volatile") || !strcmp(word, "__restrict__") || !strcmp(word, "restrict") ||
                !strcmp(word, "__restrict") || !strcmp(word, "struct") || !strcmp(word, "union") ||
                !strcmp(word, "enum") || !strcmp(word, "__grid_constant__"))
                continue;
            if (nw < 12) snprintf(words[nw++], 64, "%s", word);
            continue;
        }
        if (*s == '<') { /* a template type: keep it whole as one word */
            int d = 0;
            const char *w = s;
            while (s < e) {
                if (*s == '<') d++;
                if (*s == '>' && --d == 0) { s++; break; }
                s++;
            }
            if (nw > 0) {
                size_t l = strlen(words[nw - 1]);
                snprintf(words[nw - 1] + l, 64 - l, "%.*s", (int)(s - w), w);
            }
            continue;
        }
        s++;
    }
    if (!p->ptr) p->const_pointee = false;
    /* the last word is the name when something else names the type */
    if (want_name && nw >= 2 && !is_type_word(words[nw - 1])) snprintf(p->name, sizeof p->name, "%s", words[--nw]);
    size_t o = 0;
    for (int i = 0; i < nw && o < sizeof p->base - 1; i++)
        o += (size_t)snprintf(p->base + o, sizeof p->base - o, "%s%s", i ? " " : "", words[i]);
    canon(p->base);
    if (!p->ptr)
        for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
            if (!strcmp(p->base, scalars[i].name)) {
                p->scalar = scalars[i].size;
                p->is_float = scalars[i].fl;
                p->is_unsigned = scalars[i].un;
            }
}

/* "vecadd(double *z, const double *x, int n)" -> parameters. */
static int parse_signature(const char *sig, cs_param_t **out) {
    const char *o = strchr(sig, '(');
    *out = NULL;
    if (!o) return 0;
    const char *s = o + 1;
    int n = 0, cap = 0, depth = 0;
    const char *start = s;
    for (; *s; s++) {
        if (*s == '(' || *s == '<' || *s == '[') depth++;
        else if ((*s == ')' || *s == '>' || *s == ']') && depth > 0) depth--;
        else if ((*s == ',' && depth == 0) || (*s == ')' && depth == 0)) {
            const char *a = start, *b = s;
            while (a < b && isspace((unsigned char)*a)) a++;
            while (b > a && isspace((unsigned char)b[-1])) b--;
            bool empty = a == b || ((size_t)(b - a) == 4 && !memcmp(a, "void", 4) && *s == ')' && n == 0);
            if (!empty) {
                ARRAY_GROW(*out, n, cap);
                parse_decl(a, (size_t)(b - a), &(*out)[n++], true);
            }
            start = s + 1;
            if (*s == ')') break;
        }
    }
    return n;
}

/* ---- kernels: resolve, instantiate, load ---- */

int cs_module(cuda_session_t *cs, const char *hex, gpu_handle_t *mod) {
    int dev = gpu_client_get_device(cs->gc);
    for (int i = 0; i < cs->nmods; i++)
        if (cs->mods[i].dev == dev && !strcmp(cs->mods[i].hex, hex)) {
            *mod = cs->mods[i].mod;
            return 0;
        }
    const compiled_module_t *m = compile_cache_get(cs->dev->cache, hex);
    if (!m) return CUDA_ERROR_NOT_FOUND;
    char *log = NULL;
    int r = m->cubin && m->cubin_len ? gpu_client_module_load(cs->gc, m->cubin, m->cubin_len, mod, &log)
                                     : gpu_client_module_load(cs->gc, m->ptx, m->ptx_len + 1, mod, &log);
    free(log);
    if (r) return r;
    ARRAY_GROW(cs->mods, cs->nmods, cs->capmods);
    cs_module_t *e = &cs->mods[cs->nmods++];
    snprintf(e->hex, sizeof e->hex, "%s", hex);
    e->dev = dev;
    e->mod = *mod;
    cs_apply_symbol_writes(cs, *mod);
    return 0;
}

/* The template's text in the prelude: "template <typename T> __global__ void scale(T *x, ...)". */
static const prelude_item_t *template_item(device_session_t *e, const char *base) {
    size_t bl = strlen(base);
    for (int i = e->nprelude - 1; i >= 0; i--) {
        const char *t = e->prelude[i].text;
        if (!strstr(t, "template") || !strstr(t, "__global__")) continue;
        for (const char *p = strstr(t, base); p; p = strstr(p + 1, base)) {
            const char *q = p + bl;
            while (isspace((unsigned char)*q)) q++;
            if (*q == '(' && (p == t || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) return &e->prelude[i];
        }
    }
    return NULL;
}

/* Replaces whole words from[i] by to[i] in s. */
static char *subst_words(const char *s, char **from, char **to, int n) {
    strbuf_t b = {0};
    while (*s) {
        if (isalpha((unsigned char)*s) || *s == '_') {
            const char *w = s;
            while (isalnum((unsigned char)*s) || *s == '_') s++;
            size_t l = (size_t)(s - w);
            int k = -1;
            for (int i = 0; i < n; i++)
                if (strlen(from[i]) == l && !memcmp(from[i], w, l)) k = i;
            if (k >= 0) sb_append(&b, to[k], strlen(to[k]));
            else sb_append(&b, w, l);
        } else sb_putc(&b, *s++);
    }
    return sb_take(&b);
}

/* Splits "a, b<c, d>, e" at top-level commas into trimmed pieces. */
static int split_list(const char *s, size_t len, char **out, int cap) {
    int n = 0, d = 0;
    const char *st = s, *e = s + len;
    for (const char *p = s; p <= e && n < cap; p++) {
        if (p < e && (*p == '<' || *p == '(')) d++;
        else if (p < e && (*p == '>' || *p == ')')) d--;
        else if (p == e || (*p == ',' && d == 0)) {
            const char *a = st, *b = p;
            while (a < b && isspace((unsigned char)*a)) a++;
            while (b > a && isspace((unsigned char)b[-1])) b--;
            out[n++] = xstrndup(a, (size_t)(b - a));
            st = p + 1;
        }
    }
    return n;
}

/* The signature of scale<float> from "template <typename T> __global__ void
 * scale(T *x, T a, int n)": "scale<float>(float *x, float a, int n)". */
static char *template_signature(const char *text, const char *inst) {
    const char *lt = strchr(inst, '<');
    size_t bl = (size_t)(lt - inst);
    char *targs[16], *tparams[16];
    int na = split_list(lt + 1, strlen(lt + 1) - 1, targs, 16);
    const char *tp = strstr(text, "template");
    const char *a = tp ? strchr(tp, '<') : NULL;
    int np = 0;
    if (a) {
        int d = 0;
        const char *b = a;
        for (; *b; b++) {
            if (*b == '<') d++;
            if (*b == '>' && --d == 0) break;
        }
        char *raw[16];
        int nr = split_list(a + 1, (size_t)(b - a - 1), raw, 16);
        for (int i = 0; i < nr; i++) { /* "typename T", "int B = 128": the name */
            char *eq = strchr(raw[i], '=');
            if (eq) *eq = 0;
            char *end = raw[i] + strlen(raw[i]);
            while (end > raw[i] && isspace((unsigned char)end[-1])) *--end = 0;
            char *w = end;
            while (w > raw[i] && (isalnum((unsigned char)w[-1]) || w[-1] == '_')) w--;
            tparams[np++] = xstrdup(w);
            free(raw[i]);
        }
    }
    /* the parameter list after the kernel's name */
    char base[128];
    snprintf(base, sizeof base, "%.*s", (int)bl, inst);
    const char *p = strstr(text, base), *open = NULL;
    for (; p; p = strstr(p + 1, base)) {
        const char *q = p + bl;
        while (isspace((unsigned char)*q)) q++;
        if (*q == '(') { open = q; break; }
    }
    char *sig;
    if (!open) sig = xstrdup(inst);
    else {
        int d = 0;
        const char *c = open;
        for (; *c; c++) {
            if (*c == '(') d++;
            if (*c == ')' && --d == 0) break;
        }
        char *params = xstrndup(open, (size_t)(c - open + (*c ? 1 : 0)));
        char *sub = subst_words(params, tparams, targs, np < na ? np : na);
        strbuf_t b = {0};
        sb_printf(&b, "%s", inst);
        bool space = false;
        for (const char *s = sub; *s; s++) { /* fold white space */
            if (isspace((unsigned char)*s)) { space = true; continue; }
            if (space && b.len && b.data[b.len - 1] != '(' && *s != ')' && *s != ',') sb_putc(&b, ' ');
            space = false;
            sb_putc(&b, *s);
        }
        sig = sb_take(&b);
        free(params);
        free(sub);
    }
    for (int i = 0; i < na; i++) free(targs[i]);
    for (int i = 0; i < np; i++) free(tparams[i]);
    return sig;
}

/* The kernel named as launched, with its parameters parsed; compiles a
 * template instance if needed. No GPU work. 0, or -1 with msg/ename. */
static cs_kernel_t *resolve(cuda_session_t *cs, const char *name, char *ename, char *msg, size_t ml) {
    device_session_t *e = cs->dev;
    const kernel_entry_t *ke = strchr(name, '<') ? NULL : device_find_kernel(e, name);
    for (int i = 0; i < cs->nkernels; i++) {
        cs_kernel_t *k = &cs->kernels[i];
        if (strcmp(k->name, name)) continue;
        if (ke && strcmp(k->hex, ke->module_hex)) { /* redefined by a later cell */
            free(k->lowered);
            free(k->params);
            free(k->signature);
            free(k->name);
            cs->kernels[i] = cs->kernels[--cs->nkernels];
            break;
        }
        if (!ke && !strchr(name, '<')) break;
        return k;
    }
    char hex[65], *sig = NULL, *lowered = NULL;
    const compiled_module_t *m = NULL;
    if (ke) {
        snprintf(hex, sizeof hex, "%s", ke->module_hex);
        m = compile_cache_get(e->cache, hex);
        sig = xstrdup(ke->signature);
    } else if (strchr(name, '<')) {
        char base[128];
        snprintf(base, sizeof base, "%.*s", (int)(strchr(name, '<') - name), name);
        const prelude_item_t *it = template_item(e, base);
        if (!it) {
            snprintf(ename, INTERP_ENAME_MAX, "NameError");
            snprintf(msg, ml, "no template kernel named %s has been defined (a device cell with "
                     "template <typename T> __global__ void %s(...))", base, base);
            return NULL;
        }
        char *src = device_prelude_source(e);
        char *log = NULL;
        const char *names[1] = {name};
        int st = device_compile_unit(e, src, names, 1, &m, &log);
        free(src);
        if (st != COMPILE_OK) {
            snprintf(ename, INTERP_ENAME_MAX, st == COMPILE_INTERRUPTED ? "KeyboardInterrupt" : "CompileError");
            snprintf(msg, ml, "instantiating %s failed:\n%s", name, log ? log : "");
            free(log);
            return NULL;
        }
        free(log);
        snprintf(hex, sizeof hex, "%s", m->hex);
        sig = template_signature(it->text, name);
    } else {
        snprintf(ename, INTERP_ENAME_MAX, "NameError");
        snprintf(msg, ml, "no kernel named %s has been defined; define it in a device cell: __global__ void %s(...) "
                 "{ ... }", name, name);
        return NULL;
    }
    const compiled_kernel_t *ck = m ? module_kernel(m, name) : NULL;
    if (!ck || !ck->lowered) {
        free(sig);
        snprintf(ename, INTERP_ENAME_MAX, "RuntimeError");
        snprintf(msg, ml, "the compiled module of %s is missing (the compile cache lost it); re-run its cell", name);
        return NULL;
    }
    lowered = xstrdup(ck->lowered);
    ARRAY_GROW(cs->kernels, cs->nkernels, cs->capkernels);
    cs_kernel_t *k = &cs->kernels[cs->nkernels++];
    memset(k, 0, sizeof *k);
    k->name = xstrdup(name);
    k->signature = sig;
    snprintf(k->hex, sizeof k->hex, "%s", hex);
    k->lowered = lowered;
    k->nparams = parse_signature(sig, &k->params);
    k->dev = -1;
    return k;
}

/* Loads the kernel's module and function on the current device. */
static int load(cuda_session_t *cs, cs_kernel_t *k) {
    int dev = gpu_client_get_device(cs->gc);
    if (k->dev == dev) return 0;
    gpu_handle_t mod;
    int r = cs_module(cs, k->hex, &mod);
    if (!r) r = gpu_client_get_function(cs->gc, mod, k->lowered, &k->fn, &k->attrs);
    if (!r) k->dev = dev;
    return r;
}

/* What host code may know of kernel name (interp_set_kernel_source): 1 and
 * its signature, 2 and a template kernel's header and signature
 * ("template <typename T> scale(T *p, T a, int n)"), 0 none. */
int cs_kernel_decl(void *ctx, const char *name, char *decl, size_t cap) {
    cuda_session_t *cs = ctx;
    const kernel_entry_t *ke = device_find_kernel(cs->dev, name);
    if (ke) {
        snprintf(decl, cap, "%s", ke->signature);
        return 1;
    }
    const prelude_item_t *it = template_item(cs->dev, name);
    if (!it) return 0;
    const char *t = strstr(it->text, "template"), *lt = t ? strchr(t, '<') : NULL;
    if (!lt) return 0;
    const char *gt = lt;
    for (int d = 0; *gt; gt++) {
        if (*gt == '<') d++;
        if (*gt == '>' && --d == 0) break;
    }
    size_t bl = strlen(name);
    const char *open = NULL;
    for (const char *p = strstr(gt, name); p && !open; p = strstr(p + 1, name)) {
        const char *q = p + bl;
        while (isspace((unsigned char)*q)) q++;
        if (*q == '(' && !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) open = q;
    }
    if (!*gt || !open) return 0;
    const char *close = open;
    for (int d = 0; *close; close++) {
        if (*close == '(') d++;
        if (*close == ')' && --d == 0) break;
    }
    if (!*close) return 0;
    snprintf(decl, cap, "template %.*s %s%.*s", (int)(gt - lt + 1), lt, name, (int)(close - open + 1), open);
    return 2;
}

int cs_kernel_function(cuda_session_t *cs, const char *name, cs_kernel_t **out, char *msg, size_t ml) {
    char ename[INTERP_ENAME_MAX];
    cs_kernel_t *k = resolve(cs, name, ename, msg, ml);
    if (!k) return CUDA_ERR_INVALID_VALUE;
    int r = load(cs, k);
    if (r) {
        snprintf(msg, ml, "cannot load %s: %s", name, gpu_client_error_name(r));
        return cs_check(cs, r);
    }
    *out = k;
    return 0;
}

void cuda_launch_forget(cuda_session_t *cs) {
    for (int i = 0; i < cs->nkernels; i++) {
        free(cs->kernels[i].name);
        free(cs->kernels[i].signature);
        free(cs->kernels[i].lowered);
        free(cs->kernels[i].params);
    }
    cs->nkernels = 0;
}

/* ---- arguments ---- */

static bool same_element(const char *a, const char *b) {
    if (!strcmp(a, "void") || !strcmp(b, "void") || !a[0] || !b[0]) return true;
    if (!strcmp(a, b)) return true;
    /* char and signed char are one thing to a kernel's pointer */
    if ((!strcmp(a, "char") && !strcmp(b, "signed char")) || (!strcmp(b, "char") && !strcmp(a, "signed char")))
        return true;
    bool ka = false, kb = false;
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++) {
        ka |= !strcmp(a, scalars[i].name);
        kb |= !strcmp(b, scalars[i].name);
    }
    /* typedef names the host spells differently from the device: trust them */
    return !(ka && kb);
}

__attribute__((format(printf, 5, 6))) static int arg_error(const cs_kernel_t *k, int i, char *msg, size_t ml,
                                                          const char *fmt, ...) {
    int o = 0;
    if (i >= 0) {
        const cs_param_t *p = &k->params[i];
        o = snprintf(msg, ml, "argument %d%s%s%s of %s: ", i + 1, p->name[0] ? " (" : "", p->name,
                     p->name[0] ? ")" : "", k->name);
    }
    va_list ap;
    va_start(ap, fmt);
    if (o >= 0 && (size_t)o < ml) o += vsnprintf(msg + o, ml - (size_t)o, fmt, ap);
    va_end(ap);
    if (o >= 0 && (size_t)o < ml) snprintf(msg + o, ml - (size_t)o, "\n    the kernel: __global__ void %s", k->signature);
    return -1;
}

/* Stores an arithmetic value in the parameter's C type, as C converts. */
static void convert(const cs_param_t *p, const interp_arg_t *a, unsigned char *dst) {
    bool a_unsigned = strstr(a->type, "unsigned") != NULL || strstr(a->type, "size_t") != NULL;
    if (p->is_float) {
        double v = a->is_float ? a->d : a_unsigned ? (double)a->bits : (double)(int64_t)a->bits;
        if (p->scalar == 4) {
            float f = (float)v;
            memcpy(dst, &f, 4);
        } else memcpy(dst, &v, 8);
        return;
    }
    uint64_t v;
    if (a->is_float) v = p->is_unsigned && a->d >= 0 ? (uint64_t)a->d : (uint64_t)(int64_t)a->d;
    else v = a->bits;
    if (!strcmp(p->base, "bool")) v = a->is_float ? a->d != 0 : a->bits != 0;
    memcpy(dst, &v, (size_t)p->scalar); /* little-endian: the low bytes */
}

static bool is_dim3ish(const char *t) { return strstr(t, "dim3") != NULL; }

/* Whether a kernel may reach other buffers through this pointer parameter
 * (a table of pointers, a struct that may hold them, an untyped pointer):
 * then no buffer's known contents survive the launch for certain. */
static bool reaches_further(const cs_param_t *p) {
    if (p->ptr >= 2 || !p->base[0] || !strcmp(p->base, "void")) return true;
    for (size_t i = 0; i < sizeof scalars / sizeof scalars[0]; i++)
        if (!strcmp(p->base, scalars[i].name)) return false;
    return true;
}

/* Pinned memory a kernel can use as it is (zero-copy): its device address
 * is its host address. */
static bool zero_copy(cuda_session_t *cs, const interp_arg_t *a) {
    for (int i = 0; i < cs->npins; i++) {
        const cs_pinned_t *pin = &cs->pins[i];
        if ((uint64_t)(uintptr_t)pin->p == a->base) return pin->dptr == a->base;
    }
    return false;
}

static int launch_kernel(cuda_session_t *cs, cs_kernel_t *k, const unsigned grid[3], const unsigned block[3],
                         uint64_t shmem, uint64_t stream, const interp_arg_t *args, int nargs, bool cooperative,
                         char *ename, char *msg, size_t ml);

/* A cooperative launch needs every block resident at once (grid.sync()
 * waits for all of them): what the driver would refuse, said with the
 * numbers. 0, or cudaErrorNotSupported / cudaErrorCooperativeLaunchTooLarge
 * with msg. */
static int cooperative_fits(cuda_session_t *cs, const cs_kernel_t *k, const unsigned grid[3], const unsigned block[3],
                            uint64_t shmem, char *msg, size_t ml) {
    gpu_props_t pr;
    int dev = gpu_client_get_device(cs->gc);
    if (gpu_client_device_props(cs->gc, dev, &pr)) return 0; /* the driver will say */
    if (!pr.cooperative_launch) {
        snprintf(msg, ml, "cooperative launch of %s: %s: device %d (%s) does not support cooperative launches "
                 "(cudaDevAttrCooperativeLaunch is 0)", k->name, cuda_error_string(CUDA_ERR_NOT_SUPPORTED), dev, pr.name);
        return CUDA_ERR_NOT_SUPPORTED;
    }
    unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    unsigned long long blocks = (unsigned long long)grid[0] * grid[1] * grid[2];
    int per_sm = 0;
    if (gpu_client_active_blocks(cs->gc, k->fn, (int)threads, (size_t)shmem, &per_sm)) return 0;
    unsigned long long most = (unsigned long long)per_sm * (unsigned long long)pr.multiprocessor_count;
    if (blocks <= most) return 0;
    snprintf(msg, ml, "cooperative launch of %s: %s: %llu blocks, but at most %llu can be resident at once (%d per SM "
             "with %llu threads and %llu B of dynamic shared memory, %d SMs), and grid.sync() needs all of them; "
             "size the grid with cudaOccupancyMaxActiveBlocksPerMultiprocessor", k->name,
             cuda_error_string(CUDA_ERR_COOPERATIVE_LAUNCH_TOO_LARGE), blocks, most, per_sm, threads,
             (unsigned long long)shmem, pr.multiprocessor_count);
    return CUDA_ERR_COOPERATIVE_LAUNCH_TOO_LARGE;
}

int cuda_launch(void *ctx, const char *kname, const unsigned grid[3], const unsigned block[3], uint64_t shmem,
                uint64_t stream, const interp_arg_t *args, int nargs, char *ename, char *msg, size_t ml) {
    cuda_session_t *cs = ctx;
    cs_kernel_t *k = resolve(cs, kname, ename, msg, ml);
    if (!k) return -1;
    return launch_kernel(cs, k, grid, block, shmem, stream, args, nargs, false, ename, msg, ml);
}

/* Checks the arguments against the kernel's parameters, packs them, checks
 * the configuration against the device and launches (cooperative: with
 * cuLaunchCooperativeKernel, for a grid-wide sync). 0, or -1 with ename and
 * msg (cs->last_error set for CUDA's errors). */
static int launch_kernel(cuda_session_t *cs, cs_kernel_t *k, const unsigned grid[3], const unsigned block[3],
                         uint64_t shmem, uint64_t stream, const interp_arg_t *args, int nargs, bool cooperative,
                         char *ename, char *msg, size_t ml) {
    snprintf(ename, INTERP_ENAME_MAX, "TypeError");
    if (nargs != k->nparams)
        return arg_error(k, -1, msg, ml, "%s takes %d argument%s, but the launch passes %d", k->name, k->nparams,
                         k->nparams == 1 ? "" : "s", nargs);
    /* each argument in a 16-byte aligned slot; structs may need more */
    size_t total = 0;
    for (int i = 0; i < nargs; i++) total += (args[i].size + 15) / 16 * 16 + 16;
    unsigned char small[1024], *store = total <= sizeof small ? small : xmalloc(total);
    void *ptrs[CH_MAX_ARGS];
    uint16_t sizes[CH_MAX_ARGS];
    uint8_t is_dptr[CH_MAX_ARGS];
    int rc = -1;
    size_t off = 0;
    if (nargs > CH_MAX_ARGS) {
        arg_error(k, -1, msg, ml, "too many arguments (%d; at most %d)", nargs, CH_MAX_ARGS);
        goto out;
    }
    for (int i = 0; i < nargs; i++) {
        const cs_param_t *p = &k->params[i];
        const interp_arg_t *a = &args[i];
        unsigned char *slot = store + off;
        ptrs[i] = slot;
        is_dptr[i] = 0;
        if (p->ptr) {
            uint64_t v = 0;
            if (!a->is_pointer) {
                if (!a->is_float && !a->aggr && a->bits == 0) v = 0; /* 0 / NULL */
                else {
                    arg_error(k, i, msg, ml, "the parameter is a pointer (%s), but %s is %s", p->text, a->expr, a->type);
                    goto out;
                }
            } else if (a->bits == 0) {
                v = 0;
            } else if (a->place == INTERP_PLACE_DEVICE || a->place == INTERP_PLACE_MANAGED ||
                       a->place == INTERP_PLACE_PINNED || a->place == INTERP_PLACE_UNKNOWN) {
                cs_param_t at;
                parse_decl(a->type, strlen(a->type), &at, false);
                if (at.ptr == p->ptr && !same_element(at.base, p->base)) {
                    arg_error(k, i, msg, ml, "%s is %s, but the parameter is %s", a->expr, a->type, p->text);
                    goto out;
                }
                if (at.ptr != p->ptr && strcmp(at.base, "void") && strcmp(p->base, "void")) {
                    arg_error(k, i, msg, ml, "%s is %s, but the parameter is %s", a->expr, a->type, p->text);
                    goto out;
                }
                if (a->place == INTERP_PLACE_PINNED && !zero_copy(cs, a)) {
                    arg_error(k, i, msg, ml, "%s is pinned host memory that this GPU cannot map into kernels", a->expr);
                    goto out;
                }
                v = a->device; /* the address the GPU uses, whatever kind of memory it is */
                if (a->place == INTERP_PLACE_DEVICE || a->place == INTERP_PLACE_MANAGED)
                    is_dptr[i] = p->const_pointee ? GPU_ARG_CONST_PTR : GPU_ARG_PTR;
                if (reaches_further(p)) is_dptr[i] = GPU_ARG_REACHES;
            } else if (a->place == INTERP_PLACE_HOST) {
                arg_error(k, i, msg, ml, "%s points to host memory (malloc or a variable), which a kernel cannot "
                          "read; pass device memory from cudaMalloc (copy the data there with cudaMemcpy), managed "
                          "memory from cudaMallocManaged, or pinned memory from cudaMallocHost", a->expr);
                goto out;
            } else {
                arg_error(k, i, msg, ml, "%s is not a live pointer (freed already?)", a->expr);
                goto out;
            }
            memcpy(slot, &v, 8);
            sizes[i] = 8;
        } else if (p->scalar) {
            if (a->is_pointer || a->aggr) {
                arg_error(k, i, msg, ml, "the parameter is %s, but %s is %s", p->text, a->expr, a->type);
                goto out;
            }
            convert(p, a, slot);
            sizes[i] = (uint16_t)p->scalar;
        } else { /* a struct (or a type the host does not know): its bytes */
            if (a->aggr) {
                cs_param_t at;
                parse_decl(a->type, strlen(a->type), &at, false);
                if (strcmp(at.base, p->base) && !(is_dim3ish(at.base) && is_dim3ish(p->base))) {
                    arg_error(k, i, msg, ml, "the parameter is %s, but %s is %s", p->text, a->expr, a->type);
                    goto out;
                }
                if (a->host_field[0]) {
                    arg_error(k, i, msg, ml, "%s.%s points to host memory (malloc or a variable), which the kernel "
                              "cannot read; store device memory (cudaMalloc), managed or pinned memory in it",
                              a->expr, a->host_field);
                    goto out;
                }
                memcpy(slot, a->aggr, a->size);
                sizes[i] = (uint16_t)a->size;
                if (a->has_pointers) is_dptr[i] = GPU_ARG_REACHES; /* the kernel can write through them */
            } else if (a->is_pointer) {
                arg_error(k, i, msg, ml, "the parameter is %s, but %s is %s", p->text, a->expr, a->type);
                goto out;
            } else { /* an enum or a typedef'd scalar the host cannot see: as C's int or the value's size */
                uint64_t v = a->is_float ? (uint64_t)(int64_t)a->d : a->bits;
                if (a->is_float && a->size == 8) memcpy(slot, &a->d, 8);
                else if (a->is_float) {
                    float f = (float)a->d;
                    memcpy(slot, &f, 4);
                } else memcpy(slot, &v, 8);
                sizes[i] = (uint16_t)(a->size ? a->size : 4);
            }
        }
        off += (sizes[i] + 15u) / 16 * 16;
    }
    /* the GPU from here on */
    char why[600];
    int r = cs_ready(cs, why, sizeof why);
    if (r) {
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(r));
        snprintf(msg, ml, "cannot launch %s: %s", k->name, why);
        cs->last_error = r;
        goto out;
    }
    /* every pointer argument must live on the current device */
    int dev = gpu_client_get_device(cs->gc);
    for (int i = 0; i < nargs; i++) {
        if (!is_dptr[i]) continue;
        CUdeviceptr base;
        size_t size;
        int bdev = 0;
        if (gpu_client_buffer(cs->gc, args[i].device, &base, &size, &bdev) && bdev != dev &&
            !gpu_client_peer_enabled(cs->gc, dev, bdev)) {
            snprintf(ename, INTERP_ENAME_MAX, "cudaErrorInvalidDevicePointer");
            arg_error(k, i, msg, ml, "%s lives on device %d, but device %d is current (cudaSetDevice), and device %d "
                      "has no peer access to device %d's memory (cudaDeviceEnablePeerAccess(%d, 0) while device %d is "
                      "current gives it, where the GPUs allow it: %%devices shows which do)", args[i].expr, bdev, dev,
                      dev, bdev, bdev, dev);
            goto out;
        }
    }
    gpu_props_t pr;
    if (!gpu_client_device_props(cs->gc, dev, &pr)) {
        unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
        const char *bad = NULL;
        char detail[300];
        for (int d = 0; d < 3 && !bad; d++) {
            if (!grid[d] || !block[d]) {
                bad = "a zero dimension";
                snprintf(detail, sizeof detail, "grid (%u, %u, %u) and block (%u, %u, %u) must be at least 1 in every "
                         "dimension", grid[0], grid[1], grid[2], block[0], block[1], block[2]);
            } else if (block[d] > (unsigned)pr.max_block_dim[d]) {
                bad = "block";
                snprintf(detail, sizeof detail, "block dimension %c is %u; this GPU allows at most (%d, %d, %d)",
                         "xyz"[d], block[d], pr.max_block_dim[0], pr.max_block_dim[1], pr.max_block_dim[2]);
            } else if (grid[d] > (unsigned)pr.max_grid_dim[d]) {
                bad = "grid";
                snprintf(detail, sizeof detail, "grid dimension %c is %u; this GPU allows at most (%d, %d, %d)",
                         "xyz"[d], grid[d], pr.max_grid_dim[0], pr.max_grid_dim[1], pr.max_grid_dim[2]);
            }
        }
        if (!bad && threads > (unsigned long long)pr.max_threads_per_block) {
            bad = "threads";
            snprintf(detail, sizeof detail, "a block of %llu threads; this GPU allows at most %d threads per block",
                     threads, pr.max_threads_per_block);
        }
        if (bad) {
            snprintf(ename, INTERP_ENAME_MAX, "cudaErrorInvalidConfiguration");
            snprintf(msg, ml, "launch of %s<<<(%u, %u, %u), (%u, %u, %u)>>>: %s: %s", k->name, grid[0], grid[1],
                     grid[2], block[0], block[1], block[2], cuda_error_string(CUDA_ERR_INVALID_CONFIGURATION), detail);
            cs->last_error = CUDA_ERR_INVALID_CONFIGURATION;
            goto out;
        }
    }
    if ((r = load(cs, k))) {
        int code = cs_check(cs, r);
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(code));
        snprintf(msg, ml, "cannot load %s on device %d: %s (%s)", k->name, dev, cuda_error_string(code),
                 gpu_client_error_name(r));
        goto out;
    }
    unsigned long long threads = (unsigned long long)block[0] * block[1] * block[2];
    if (threads > (unsigned long long)k->attrs.max_threads_per_block) {
        snprintf(ename, INTERP_ENAME_MAX, "cudaErrorLaunchOutOfResources");
        snprintf(msg, ml, "launch of %s with %llu threads per block: %s: the kernel uses %d registers per thread, "
                 "so at most %d threads fit in a block", k->name, threads,
                 cuda_error_string(CUDA_ERR_LAUNCH_OUT_OF_RESOURCES), k->attrs.num_regs, k->attrs.max_threads_per_block);
        cs->last_error = CUDA_ERR_LAUNCH_OUT_OF_RESOURCES;
        goto out;
    }
    unsigned long long smem = (unsigned long long)shmem + (unsigned long long)k->attrs.shared_size_bytes;
    /* beyond 48 KB a kernel opts in: cudaFuncSetAttribute(MaxDynamicSharedMemorySize) raised its limit */
    unsigned long long smem_limit = (unsigned long long)pr.shared_mem_per_block, opted =
        (unsigned long long)k->attrs.max_dynamic_shared_size_bytes + (unsigned long long)k->attrs.shared_size_bytes;
    if (opted > smem_limit) smem_limit = opted;
    if (smem > smem_limit) {
        snprintf(ename, INTERP_ENAME_MAX, "cudaErrorInvalidValue");
        snprintf(msg, ml, "launch of %s: %s: %llu bytes of shared memory per block (%d static + %llu dynamic); "
                 "the kernel may use %llu bytes (up to %d after cudaFuncSetAttribute(%s, "
                 "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))", k->name,
                 cuda_error_string(CUDA_ERR_INVALID_VALUE), smem, k->attrs.shared_size_bytes,
                 (unsigned long long)shmem, smem_limit, pr.shared_mem_per_block_optin, k->name);
        cs->last_error = CUDA_ERR_INVALID_VALUE;
        goto out;
    }
    gpu_handle_t s = stream <= 2 ? 0 : stream >= CS_HANDLE_BASE ? (gpu_handle_t)(stream - CS_HANDLE_BASE) : 0;
    if ((r = cs_managed_before_gpu(cs, msg, ml))) { /* what the host wrote into managed memory, to the GPU */
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(r));
        cs->last_error = r;
        goto out;
    }
    gpu_handle_t mod;
    if (cs->nmvars && !cs_module(cs, k->hex, &mod) && (r = cs_mvars_before_launch(cs, mod))) {
        int code = cs_check(cs, r);
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(code));
        snprintf(msg, ml, "launch of %s: bringing its __managed__ variables up to date failed: %s", k->name,
                 cuda_error_string(code));
        cs->last_error = code;
        goto out;
    }
    if (cooperative && (r = cooperative_fits(cs, k, grid, block, shmem, msg, ml))) {
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(r));
        cs->last_error = r;
        goto out;
    }
    snprintf(cs->last_kernel, sizeof cs->last_kernel, "%s", k->signature);
    cs->work_count++;
    r = cooperative ? gpu_client_launch_cooperative(cs->gc, k->fn, grid, block, (unsigned)shmem, s, nargs, ptrs, sizes,
                                                    is_dptr)
                    : gpu_client_launch(cs->gc, k->fn, grid, block, (unsigned)shmem, s, nargs, ptrs, sizes, is_dptr);
    cs_managed_after_gpu(cs, 0);
    if (r) {
        bool intr = r == GPU_ERR_INTERRUPTED;
        int code = cs_check(cs, r);
        cs->last_error = code;
        snprintf(ename, INTERP_ENAME_MAX, "%s", intr ? "KeyboardInterrupt" : cuda_error_name(code));
        snprintf(msg, ml, "launch of %s: %s%s%s", k->name, cuda_error_string(code), cs->recovery_note[0] ? ". " : "",
                 cs->recovery_note);
        goto out;
    }
    rc = 0;
out:
    if (store != small) free(store);
    return rc;
}

/* cudaLaunchKernel / cudaLaunchCooperativeKernel: the arguments as CUDA
 * takes them, args[i] pointing to the i-th argument's value. Each is read as
 * the kernel's parameter says (a pointer, a scalar of its size, a dim3),
 * then checked and launched as k<<<...>>>(...) is. */
int cuda_launch_packed(cuda_session_t *cs, const char *kname, const unsigned grid[3], const unsigned block[3],
                       uint64_t shmem, uint64_t stream, const interp_arg_t *argv, bool cooperative, char *ename,
                       char *msg, size_t ml) {
    cs_kernel_t *k = resolve(cs, kname, ename, msg, ml);
    if (!k) return -1;
    int n = k->nparams;
    snprintf(ename, INTERP_ENAME_MAX, "TypeError");
    if (n > CH_MAX_ARGS) return arg_error(k, -1, msg, ml, "too many arguments (%d; at most %d)", n, CH_MAX_ARGS);
    if (n && (!argv->is_pointer || !argv->host || argv->avail < (uint64_t)n * 8))
        return arg_error(k, -1, msg, ml, "%s must be an array of %d pointer%s in host memory, one to each argument "
                         "(void *args[] = {&x, &n, ...})", argv->expr, n, n == 1 ? "" : "s");
    interp_arg_t *a = xcalloc((size_t)n + 1, sizeof *a);
    char (*expr)[48] = xcalloc((size_t)n + 1, sizeof *expr);
    int rc = -1;
    for (int i = 0; i < n; i++) {
        const cs_param_t *p = &k->params[i];
        size_t size = p->ptr ? 8 : p->scalar ? (size_t)p->scalar : is_dim3ish(p->base) ? 12 : 0;
        if (!size) {
            arg_error(k, i, msg, ml, "%s is passed by value as a struct, whose size icuda cannot read through void **; "
                      "launch with %s<<<grid, block>>>(...) instead", p->text, k->name);
            goto out;
        }
        uint64_t w;
        memcpy(&w, (const char *)argv->host + 8 * i, 8);
        snprintf(expr[i], sizeof expr[i], "%s[%d]", argv->expr, i);
        if (interp_arg_at(interp_current(), w, size, p->ptr != 0, p->is_float, &a[i]) < 0) {
            arg_error(k, i, msg, ml, "%s must point to the argument's value (%zu bytes of host memory, a variable "
                      "such as &x), and does not", expr[i], size);
            goto out;
        }
        a[i].expr = expr[i];
        a[i].type = p->ptr ? "void *" : size == 12 && !p->scalar ? "dim3" : p->base;
    }
    rc = launch_kernel(cs, k, grid, block, shmem, stream, a, n, cooperative, ename, msg, ml);
out:
    free(a);
    free(expr);
    return rc;
}

int cs_kernel_resolve(cuda_session_t *cs, const char *name, cs_kernel_t **out, char *ename, char *msg, size_t ml) {
    ename[0] = 0;
    cs_kernel_t *k = resolve(cs, name, ename, msg, ml);
    if (!k) return -1;
    *out = k;
    return 0;
}
