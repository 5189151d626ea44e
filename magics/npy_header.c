/* The .npy format's header (magics/npy.c's %save and %load): the dtypes
 * icuda holds, the header a save writes, and the checks of a header a load
 * reads. Apart from the files, so that the fuzzer (tests/fuzz/fuzz_npy.c)
 * links it alone. */
#include "npy_header.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
static const npy_dtype_t dtypes[] = {
    {"f4", "float", INTERP_ELEM_FLOAT, 4},          {"f8", "double", INTERP_ELEM_FLOAT, 8},
    {"i1", "signed char", INTERP_ELEM_INT, 1},      {"i2", "short", INTERP_ELEM_INT, 2},
    {"i4", "int", INTERP_ELEM_INT, 4},              {"i8", "long", INTERP_ELEM_INT, 8},
    {"u1", "unsigned char", INTERP_ELEM_UINT, 1},   {"u2", "unsigned short", INTERP_ELEM_UINT, 2},
    {"u4", "unsigned int", INTERP_ELEM_UINT, 4},    {"u8", "unsigned long", INTERP_ELEM_UINT, 8},
    {"b1", "bool", INTERP_ELEM_BOOL, 1},
};

const npy_dtype_t *npy_dtype_of(int elem, size_t esize) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].elem == elem && (size_t)dtypes[i].esize == esize) return &dtypes[i];
    return NULL;
}

bool npy_parse_shape(const char *s, long *dims, int *nd) {
    *nd = 0;
    while (*s) {
        char *end;
        if (!isdigit((unsigned char)*s) || *nd == NPY_MAX_DIMS) return false;
        long v = strtol(s, &end, 10);
        dims[(*nd)++] = v;
        if (*end == ',') end++;
        else if (*end) return false;
        s = end;
    }
    return *nd > 0;
}

char *npy_header(const npy_dtype_t *d, const long *dims, int nd, size_t *len) {
    strbuf_t h = {0};
    sb_printf(&h, "{'descr': '%c%s', 'fortran_order': False, 'shape': (", d->esize == 1 ? '|' : '<', d->code);
    for (int i = 0; i < nd; i++) sb_printf(&h, "%ld%s", dims[i], nd == 1 ? "," : i + 1 < nd ? ", " : "");
    sb_puts(&h, "), }");
    char *dict = sb_take(&h);
    size_t dl = strlen(dict);
    /* magic, version, length field, dict, spaces, '\n': a multiple of 64 */
    int ver = dl + 1 + 10 <= 65535 ? 1 : 2;
    size_t pre = ver == 1 ? 10 : 12, total = (pre + dl + 1 + 63) / 64 * 64, hl = total - pre;
    char *out = xmalloc(total);
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

static int bad_file(cell_error_t *err, const char *path, const char *why) {
    cell_error_set(err, "ValueError", NULL, "%s is not a .npy file icuda can read: %s", path, why);
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

int npy_parse_header(const char *path, const unsigned char *buf, size_t len, uint64_t file_size, npy_t *o,
                     cell_error_t *err) {
    memset(o, 0, sizeof *o);
    if (file_size < len) file_size = len;
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6)) return bad_file(err, path, "it does not start with \\x93NUMPY");
    int ver = buf[6];
    if (ver < 1 || ver > 3) return bad_file(err, path, "an unknown format version");
    size_t pre = ver == 1 ? 10 : 12;
    if (len < pre) return bad_file(err, path, "the file ends inside its header");
    size_t hl = buf[8] | (size_t)buf[9] << 8;
    if (ver > 1) hl |= (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    if (len < pre + hl) {
        if (file_size < pre + hl) return bad_file(err, path, "the file ends inside its header");
        char msg[120];
        snprintf(msg, sizeof msg, "its header is %zu bytes, more than the %zu read to find it", pre + hl, len);
        return bad_file(err, path, msg);
    }
    char *dict = xstrndup((const char *)buf + pre, hl);
    int rc = 0;
    const char *v = dict_value(dict, "descr"), *f = dict_value(dict, "fortran_order"), *s = dict_value(dict, "shape");
    if (v && *v == '[') {
        cell_error_set(err, "TypeError", NULL, "%s holds a structured dtype (fields), which icuda cannot hold", path);
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
        if (!strcmp(c, "?")) o->d = npy_dtype_of(INTERP_ELEM_BOOL, 1);
        if (!o->d) {
            cell_error_set(err, "TypeError", NULL, "%s holds dtype %s, which icuda cannot hold (it takes f4, f8, i1-i8, u1-u8, b1)",
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
            if (end == p || x < 0 || o->nd == NPY_MAX_DIMS) rc = bad_file(err, path, "its shape is not a tuple of sizes");
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
    if (!rc && (file_size - o->data_off) / (uint64_t)o->d->esize < o->count) {
        char msg[200];
        snprintf(msg, sizeof msg, "it is truncated: its shape needs %llu bytes of data, it has %llu",
                 (unsigned long long)(o->count * (uint64_t)o->d->esize),
                 (unsigned long long)(file_size - o->data_off));
        rc = bad_file(err, path, msg);
    }
    return rc;
}
