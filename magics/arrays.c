/* The session's arrays for the magics (arrays.h). */
#include "arrays.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"

#include "runtime/base/xalloc.h"
/* The ':' of "EXPR:COUNT": the last one outside brackets and quotes that is
 * not half of "::" (nor the ':' of a ?: inside EXPR, which needs a '?'). */
static const char *count_colon(const char *s) {
    const char *found = NULL;
    int depth = 0, questions = 0;
    char q = 0;
    for (const char *p = s; *p; p++) {
        if (q) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == q) q = 0;
        } else if (*p == '"' || *p == '\'') q = *p;
        else if (*p == '(' || *p == '[' || *p == '{') depth++;
        else if (*p == ')' || *p == ']' || *p == '}') depth--;
        else if (*p == '?' && depth == 0) questions++;
        else if (*p == ':' && depth == 0) {
            if (p[1] == ':') { p++; continue; }
            if (p > s && p[-1] == ':') continue;
            if (questions > 0) { questions--; continue; }
            found = p;
        }
    }
    return found;
}

int magic_array(magic_ctx_t *mc, const char *label, const char *arg, interp_array_t *a, cell_error_t *err) {
    const char *colon = count_colon(arg);
    size_t el = colon ? (size_t)(colon - arg) : strlen(arg);
    char *text = NULL;
    if (asprintf(&text, "%s %.*s", label, (int)el, arg) < 0) abort();
    interp_text_t t = {text, strlen(label) + 1, label};
    int rc = interp_array(mc->interp, &t, a, err);
    free(text);
    if (rc || !colon) return rc;
    if (asprintf(&text, "%s %s", label, arg) < 0) abort();
    interp_text_t ct = {text, strlen(label) + 1 + el + 1, label};
    double n = 0;
    rc = interp_eval_number(mc->interp, &ct, &n, err);
    free(text);
    if (rc) return rc;
    if (!(n >= 0) || n != (double)(uint64_t)n) {
        cell_error_set(err, "ValueError", NULL, "%s: the count after ':' in %s must be a whole number, not %g", label,
                         arg, n);
        return -1;
    }
    if ((uint64_t)n > a->count) {
        cell_error_set(err, "ValueError", NULL, "%s: %s asks for %.0f elements, but %.*s has room for only %llu", label,
                         arg, n, (int)el, arg, (unsigned long long)a->count);
        return -1;
    }
    a->count = (uint64_t)n;
    return 0;
}

void *magic_array_bytes(magic_ctx_t *mc, const interp_array_t *a, uint64_t count, cell_error_t *err) {
    size_t n = (size_t)(count * a->esize);
    void *out = malloc(n ? n : 1);
    if (!out) {
        cell_error_set(err, "MemoryError", NULL, "no host memory for %zu bytes", n);
        return NULL;
    }
    char why[600] = "";
    gpu_client_t *g = a->place == INTERP_PLACE_HOST ? NULL : cuda_session_client(mc->cuda, why, sizeof why);
    /* the GPU's work on pinned or device memory (on any stream) is done first */
    int r = g ? gpu_client_sync(g) : 0;
    if (!r && a->host) {
        memcpy(out, a->host, n);
        return out;
    }
    if (!g && !r) {
        free(out);
        cell_error_set(err, "cudaErrorNoDevice", NULL, "%s", why);
        return NULL;
    }
    if (!r) r = gpu_client_memcpy_dtoh(g, out, a->device, n, 0, false);
    if (r) {
        free(out);
        cuda_session_error(mc->cuda, r, "copying a device buffer to the host for display", err);
        return NULL;
    }
    return out;
}

double magic_elem_double(const interp_array_t *a, const void *bytes, uint64_t i) {
    const char *p = (const char *)bytes + i * a->esize;
    switch (a->elem) {
    case INTERP_ELEM_FLOAT:
        if (a->esize == 4) { float f; memcpy(&f, p, 4); return f; }
        { double d; memcpy(&d, p, 8); return d; }
    case INTERP_ELEM_UINT:
    case INTERP_ELEM_BOOL:
        switch (a->esize) {
        case 1: return *(const uint8_t *)p;
        case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
        case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
        default: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
        }
    default:
        switch (a->esize) {
        case 1: return *(const int8_t *)p;
        case 2: { int16_t v; memcpy(&v, p, 2); return v; }
        case 4: { int32_t v; memcpy(&v, p, 4); return v; }
        default: { int64_t v; memcpy(&v, p, 8); return (double)v; }
        }
    }
}

double *magic_array_doubles(magic_ctx_t *mc, const interp_array_t *a, uint64_t count, cell_error_t *err) {
    void *raw = magic_array_bytes(mc, a, count, err);
    if (!raw) return NULL;
    double *d = xmalloc((count ? count : 1) * sizeof *d);
    for (uint64_t i = 0; i < count; i++) d[i] = magic_elem_double(a, raw, i);
    free(raw);
    return d;
}

const char *magic_place_name(int place) {
    switch (place) {
    case INTERP_PLACE_DEVICE: return "device";
    case INTERP_PLACE_PINNED: return "pinned";
    case INTERP_PLACE_MANAGED: return "managed";
    default: return "host";
    }
}

void magic_fmt_bytes(double b, char *buf, size_t n) {
    static const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (b >= 1024 && k < 4) b /= 1024, k++;
    if (k == 0) snprintf(buf, n, "%.0f B", b);
    else snprintf(buf, n, "%.1f %s", b, u[k]);
}
