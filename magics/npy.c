/* %save and %load (DESIGN §2): NumPy .npy files, so arrays move between
 * this kernel and Python. Format 1.0 (2.0 when the header needs it),
 * little-endian, C order, the dtype from the C type. A save goes to a
 * temporary file renamed into place, so a failure leaves nothing half
 * written; a load checks the whole header and the data's length first. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arrays.h"
#include "runtime/strbuf.h"

#define MAX_DIMS 8

static const struct dtype {
    char code[4];        /* "f4": kind letter and size */
    const char *ctype;
    int elem, esize;
} dtypes[] = {
    {"f4", "float", INTERP_ELEM_FLOAT, 4},          {"f8", "double", INTERP_ELEM_FLOAT, 8},
    {"i1", "signed char", INTERP_ELEM_INT, 1},      {"i2", "short", INTERP_ELEM_INT, 2},
    {"i4", "int", INTERP_ELEM_INT, 4},              {"i8", "long", INTERP_ELEM_INT, 8},
    {"u1", "unsigned char", INTERP_ELEM_UINT, 1},   {"u2", "unsigned short", INTERP_ELEM_UINT, 2},
    {"u4", "unsigned int", INTERP_ELEM_UINT, 4},    {"u8", "unsigned long", INTERP_ELEM_UINT, 8},
    {"b1", "bool", INTERP_ELEM_BOOL, 1},
};

static const struct dtype *dtype_of(int elem, size_t esize) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].elem == elem && (size_t)dtypes[i].esize == esize) return &dtypes[i];
    return NULL;
}

static int io_error(engine_error_t *err, const char *what, const char *path) {
    engine_error_set(err, "OSError", NULL, "%s %s: %s", what, path, strerror(errno));
    return -1;
}

/* "a,b,c" -> dims; false when it is not a list of whole numbers >= 0. */
static bool parse_shape(const char *s, long *dims, int *nd) {
    *nd = 0;
    while (*s) {
        char *end;
        if (!isdigit((unsigned char)*s) || *nd == MAX_DIMS) return false;
        long v = strtol(s, &end, 10);
        dims[(*nd)++] = v;
        if (*end == ',') end++;
        else if (*end) return false;
        s = end;
    }
    return *nd > 0;
}

static char *npy_header(const struct dtype *d, const long *dims, int nd, size_t *len) {
    strbuf_t h = {0};
    sb_printf(&h, "{'descr': '%c%s', 'fortran_order': False, 'shape': (", d->esize == 1 ? '|' : '<', d->code);
    for (int i = 0; i < nd; i++) sb_printf(&h, "%ld%s", dims[i], nd == 1 ? "," : i + 1 < nd ? ", " : "");
    sb_puts(&h, "), }");
    char *dict = sb_take(&h);
    size_t dl = strlen(dict);
    /* magic, version, length field, dict, spaces, '\n': a multiple of 64 */
    int ver = dl + 1 + 10 <= 65535 ? 1 : 2;
    size_t pre = ver == 1 ? 10 : 12, total = (pre + dl + 1 + 63) / 64 * 64, hl = total - pre;
    char *out = malloc(total);
    if (!out) abort();
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (char)ver;
    out[7] = 0;
    for (size_t i = 0; i < (ver == 1 ? 2u : 4u); i++) out[8 + i] = (char)(hl >> (8 * i));
    memcpy(out + pre, dict, dl);
    memset(out + pre + dl, ' ', hl - dl - 1);
    out[total - 1] = '\n';
    free(dict);
    *len = total;
    return out;
}

static int write_file(const char *path, const void *head, size_t hl, const void *data, size_t n, engine_error_t *err) {
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp-%d", path, (int)getpid()) < 0) abort();
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        io_error(err, "cannot write", path);
        free(tmp);
        return -1;
    }
    bool ok = fwrite(head, 1, hl, f) == hl && (n == 0 || fwrite(data, 1, n, f) == n);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        io_error(err, "cannot write", path);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

static int save_line(magic_ctx_t *mc, const char *args, engine_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    const char *pos[3] = {0};
    int npos = 0, nd = 0, rc = 0;
    long dims[MAX_DIMS];
    bool shaped = false;
    for (int i = 0; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--shape")) {
            if (i + 1 >= argc || !parse_shape(argv[++i], dims, &nd))
                rc = magic_usage_error(&magic_save, err, "--shape takes whole numbers separated by commas (--shape 64,128)");
            shaped = true;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') rc = magic_usage_error(&magic_save, err, "unknown option %s", argv[i]);
        else if (npos == 3) rc = magic_usage_error(&magic_save, err, "too many arguments: %s", argv[i]);
        else pos[npos++] = argv[i];
    }
    if (!rc && npos < 2) rc = magic_usage_error(&magic_save, err, "a file name and an array, please");
    interp_array_t a;
    void *data = NULL;
    if (!rc) {
        char *arg = NULL;
        if (asprintf(&arg, "%s%s%s", pos[1], pos[2] ? ":" : "", pos[2] ? pos[2] : "") < 0) abort();
        rc = magic_array(mc, "%save", arg, &a, err);
        free(arg);
    }
    const struct dtype *d = rc ? NULL : dtype_of(a.elem, a.esize);
    if (!rc && !d) {
        engine_error_set(err, "TypeError", NULL, "%%save: .npy has no dtype for %s", a.ctype);
        rc = -1;
    }
    if (!rc && shaped) {
        unsigned long long prod = 1;
        for (int i = 0; i < nd; i++) prod *= (unsigned long long)dims[i];
        if (!pos[2] && prod <= a.count) a.count = prod;
        else if (prod != a.count)
            rc = magic_usage_error(&magic_save, err, "--shape %s holds %llu elements, but %llu are saved%s",
                                   argv[argc - 1], prod, (unsigned long long)a.count,
                                   pos[2] ? "" : " (all that the array holds)");
    }
    if (!rc && !shaped) {
        nd = 1;
        dims[0] = (long)a.count;
    }
    if (!rc && !(data = magic_array_bytes(mc, &a, a.count, err))) rc = -1;
    if (!rc) {
        size_t hl;
        char *head = npy_header(d, dims, nd, &hl);
        rc = write_file(pos[0], head, hl, data, a.count * a.esize, err);
        free(head);
        if (!rc) {
            char sz[32];
            magic_fmt_bytes((double)(hl + a.count * a.esize), sz, sizeof sz);
            strbuf_t s = {0};
            for (int i = 0; i < nd; i++) sb_printf(&s, "%s%ld", i ? ", " : "", dims[i]);
            char *shape = sb_take(&s);
            io_printf(mc->io, "stdout", "saved %s (%s, shape (%s%s), %s) to %s\n", pos[1], d->code[0] == 'b' ? "bool" : d->code,
                      shape, nd == 1 ? "," : "", sz, pos[0]);
            free(shape);
        }
    }
    free(data);
    magic_free_args(argv, argc);
    return rc;
}

/* ---- reading ---- */

static int bad_file(engine_error_t *err, const char *path, const char *why) {
    engine_error_set(err, "ValueError", NULL, "%s is not a .npy file icuda can read: %s", path, why);
    return -1;
}

/* The value of 'key' in the header's dict: points just past "'key':". */
static const char *dict_value(const char *dict, const char *key) {
    char k[32];
    snprintf(k, sizeof k, "'%s'", key);
    const char *p = strstr(dict, k);
    if (!p) return NULL;
    p += strlen(k);
    while (*p == ' ') p++;
    if (*p != ':') return NULL;
    for (p++; *p == ' ';) p++;
    return p;
}

typedef struct npy {
    const struct dtype *d;
    bool swap;
    long dims[MAX_DIMS];
    int nd;
    uint64_t count;
    size_t data_off;
} npy_t;

static int parse_header(const char *path, const unsigned char *buf, size_t len, npy_t *o, engine_error_t *err) {
    memset(o, 0, sizeof *o);
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6)) return bad_file(err, path, "it does not start with \\x93NUMPY");
    int ver = buf[6];
    if (ver < 1 || ver > 3) return bad_file(err, path, "an unknown format version");
    size_t pre = ver == 1 ? 10 : 12;
    if (len < pre) return bad_file(err, path, "the file ends inside its header");
    size_t hl = buf[8] | (size_t)buf[9] << 8;
    if (ver > 1) hl |= (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    if (len < pre + hl) return bad_file(err, path, "the file ends inside its header");
    char *dict = strndup((const char *)buf + pre, hl);
    if (!dict) abort();
    int rc = 0;
    const char *v = dict_value(dict, "descr"), *f = dict_value(dict, "fortran_order"), *s = dict_value(dict, "shape");
    if (v && *v == '[') {
        engine_error_set(err, "TypeError", NULL, "%s holds a structured dtype (fields), which icuda cannot hold", path);
        rc = -1;
    } else if (!v || !f || !s || *v != '\'' || *s != '(')
        rc = bad_file(err, path, "its header lacks descr, fortran_order or shape");
    if (!rc) {
        char code[16] = "";
        size_t l = strcspn(v + 1, "'");
        snprintf(code, sizeof code, "%.*s", (int)(l < 15 ? l : 15), v + 1);
        char order = code[0];
        const char *c = (order == '<' || order == '>' || order == '|' || order == '=') ? code + 1 : code;
        for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
            if (!strcmp(dtypes[i].code, c)) o->d = &dtypes[i];
        if (!strcmp(c, "?")) o->d = dtype_of(INTERP_ELEM_BOOL, 1);
        if (!o->d) {
            engine_error_set(err, "TypeError", NULL, "%s holds dtype %s, which icuda cannot hold (it takes f4, f8, i1-i8, u1-u8, b1)",
                             path, code);
            rc = -1;
        }
        o->swap = order == '>' && o->d && o->d->esize > 1;
    }
    if (!rc) {
        o->count = 1;
        const char *p = s + 1;
        while (!rc) {
            while (*p == ' ' || *p == ',') p++;
            if (*p == ')') break;
            char *end;
            long x = strtol(p, &end, 10);
            if (end == p || x < 0 || o->nd == MAX_DIMS) rc = bad_file(err, path, "its shape is not a tuple of sizes");
            else if (__builtin_mul_overflow(o->count, (uint64_t)x, &o->count) ||
                     o->count > ((uint64_t)1 << 40) / (uint64_t)o->d->esize)
                rc = bad_file(err, path, "its shape holds more data than a host buffer can (1 TiB)");
            else {
                o->dims[o->nd++] = x;
                p = end;
            }
        }
    }
    if (!rc && !strncmp(f, "True", 4) && o->nd > 1)
        rc = bad_file(err, path, "it is in Fortran order (save it with numpy.ascontiguousarray first)");
    free(dict);
    o->data_off = pre + hl;
    if (!rc && (len - o->data_off) / (size_t)o->d->esize < o->count) {
        char msg[200];
        snprintf(msg, sizeof msg, "it is truncated: its shape needs %llu bytes of data, it has %zu",
                 (unsigned long long)(o->count * (uint64_t)o->d->esize), len - o->data_off);
        rc = bad_file(err, path, msg);
    }
    return rc;
}

static bool c_name(const char *s) {
    if (!(isalpha((unsigned char)*s) || *s == '_') || strlen(s) > 60) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

static unsigned char *read_all(const char *path, size_t *len, engine_error_t *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        io_error(err, "cannot read", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    for (size_t k; b && (k = fread(b + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    bool bad = ferror(f);
    fclose(f);
    if (!b) abort();
    if (bad) {
        free(b);
        io_error(err, "cannot read", path);
        return NULL;
    }
    *len = n;
    return b;
}

static int load_line(magic_ctx_t *mc, const char *args, engine_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    int rc = 0;
    unsigned char *buf = NULL;
    size_t len = 0;
    npy_t h;
    if (argc != 2) rc = magic_usage_error(&magic_load, err, "a variable name and a .npy file, please");
    else if (!c_name(argv[0])) rc = magic_usage_error(&magic_load, err, "%s is not a C variable name", argv[0]);
    if (!rc && !(buf = read_all(argv[1], &len, err))) rc = -1;
    if (!rc) rc = parse_header(argv[1], buf, len, &h, err);
    if (!rc) {
        /* the variable and its shape, declared as a cell would declare them */
        strbuf_t c = {0};
        uint64_t bytes = h.count * (uint64_t)h.d->esize;
        sb_printf(&c, "%s *%s = (%s *)malloc(%llu);\nlong %s_shape[%d] = {", h.d->ctype, argv[0], h.d->ctype,
                  (unsigned long long)(bytes ? bytes : 1), argv[0], h.nd ? h.nd : 1);
        for (int i = 0; i < h.nd; i++) sb_printf(&c, "%s%ld", i ? ", " : "", h.dims[i]);
        sb_puts(&c, h.nd ? "};\n" : "1};\n");
        char *code = sb_take(&c);
        rc = mc->run(mc, code, err);
        free(code);
    }
    interp_array_t a;
    if (!rc) {
        char *t = NULL;
        if (asprintf(&t, "%%load %s", argv[0]) < 0) abort();
        interp_text_t it = {t, 6, "%load"};
        rc = interp_array(mc->e->interp, &it, &a, err);
        free(t);
    }
    if (!rc) {
        unsigned char *dst = a.host, *src = buf + h.data_off;
        size_t es = (size_t)h.d->esize;
        for (uint64_t i = 0; i < h.count; i++)
            for (size_t k = 0; k < es; k++) dst[i * es + k] = src[i * es + (h.swap ? es - 1 - k : k)];
        strbuf_t s = {0};
        for (int i = 0; i < h.nd; i++) sb_printf(&s, "%s%ld", i ? ", " : "", h.dims[i]);
        char *shape = sb_take(&s);
        io_printf(mc->io, "stdout", "%s: %s[%llu] on the host, shape (%s%s) in %s_shape\n", argv[0], h.d->ctype,
                  (unsigned long long)h.count, shape, h.nd == 1 ? "," : "", argv[0]);
        free(shape);
    }
    free(buf);
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_save = {
    "save", "%save FILE.npy EXPR [COUNT] [--shape a,b,...]", "save an array (host or device) as a NumPy .npy file",
    "EXPR is an array or a pointer to numbers (a device buffer is copied from the GPU); COUNT elements are\n"
    "saved (all the array or buffer holds unless told), with the dtype of the C type (float <f4, double <f8,\n"
    "int <i4, long <i8, unsigned char |u1, bool |b1, ...) and shape (COUNT,) or --shape. The file is written\n"
    "whole or not at all. numpy.load(FILE) reads it.\n"
    "  %save results.npy times 16\n  %save image.npy d_img --shape 480,640",
    save_line, NULL};

const magic_t magic_load = {
    "load", "%load NAME FILE.npy", "load a NumPy .npy file into a new host array NAME",
    "Declares NAME as a host buffer of the file's dtype (float for <f4, double for <f8, int for <i4, ...)\n"
    "holding its data in C order, and long NAME_shape[ndim] with its shape. Format versions 1.0 to 3.0;\n"
    "big-endian files are converted; Fortran-ordered arrays of two or more dimensions are refused.",
    load_line, NULL};
