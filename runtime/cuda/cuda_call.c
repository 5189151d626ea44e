/* The checks every CUDA runtime call shares (cuda_call.h). */
#include "cuda_call.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>



/* Sets a hard error (cudaErrorInvalidValue and a message). */
int call_misuse(cs_call_t *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(c->msg, c->ml, "%s: ", c->name);
    if (k > 0 && (size_t)k < c->ml) vsnprintf(c->msg + k, c->ml - (size_t)k, fmt, ap);
    va_end(ap);
    c->hard = true;
    return CUDA_ERR_INVALID_VALUE;
}

/* A failure with CUDA's code and an explanation. */
int call_fail(cs_call_t *c, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(c->msg, c->ml, "%s: ", c->name);
    if (k > 0 && (size_t)k < c->ml) vsnprintf(c->msg + k, c->ml - (size_t)k, fmt, ap);
    va_end(ap);
    return code;
}

const char *call_arg_name(const interp_arg_t *a) { return a->expr && a->expr[0] ? a->expr : "the argument"; }

int64_t call_ival(const interp_arg_t *a) { return a->is_float ? (int64_t)a->d : (int64_t)a->bits; }

const char *call_place_name(int place) {
    switch (place) {
    case INTERP_PLACE_DEVICE: return "device memory";
    case INTERP_PLACE_PINNED: return "pinned host memory";
    case INTERP_PLACE_MANAGED: return "managed memory";
    case INTERP_PLACE_HOST: return "host memory";
    case INTERP_PLACE_UNKNOWN: return "an address no allocation of this session made (a kernel's malloc?)";
    }
    return "not a live pointer";
}

/* The host address behind out-argument i, with room for need bytes. */
void *call_out_arg(cs_call_t *c, int i, size_t need, const char *what) {
    const interp_arg_t *a = &c->a[i];
    if (!a->is_pointer) {
        call_misuse(c, "argument %d (%s) must be a pointer to %s, e.g. &%s", i + 1, call_arg_name(a), what, what);
        return NULL;
    }
    if (a->place != INTERP_PLACE_HOST && a->place != INTERP_PLACE_PINNED && a->place != INTERP_PLACE_MANAGED) {
        call_misuse(c, "argument %d (%s) must point to a host variable to receive %s (it is %s)", i + 1, call_arg_name(a),
               what, a->bits ? call_place_name(a->place) : "NULL");
        return NULL;
    }
    if (a->avail < need) {
        call_misuse(c, "argument %d (%s) points to %llu bytes, but %s needs %zu", i + 1, call_arg_name(a),
               (unsigned long long)a->avail, what, need);
        return NULL;
    }
    void *h = interp_host_for_write(c->cs->interp, a->bits, need);
    if (!h) call_misuse(c, "argument %d (%s) cannot be written now", i + 1, call_arg_name(a));
    return h;
}

int call_arity(cs_call_t *c, int lo, int hi, const char *params) {
    if (c->n >= lo && c->n <= hi) return 0;
    c->hard = true;
    snprintf(c->msg, c->ml, "%s takes %s%d argument%s (%s), not %d", c->name, lo == hi ? "" : "at least ", lo,
             lo == 1 ? "" : "s", params, c->n);
    return CUDA_ERR_INVALID_VALUE;
}

/* The worker, or the reason there is none. */
int call_ready(cs_call_t *c) {
    char why[600];
    int r = cs_ready(c->cs, why, sizeof why);
    if (r) call_fail(c, r, "%s", why);
    return r;
}

/* A worker call's result: the async error of earlier work if this call
 * succeeded (CUDA reports it at the next call), recovery after a fault. */
int call_done(cs_call_t *c, int r) {
    cuda_session_t *cs = c->cs;
    if (!r) {
        uint32_t seq;
        int op;
        r = gpu_client_take_async_error(cs->gc, &seq, &op);
        if (!r) return 0;
    }
    if (r == GPU_ERR_INTERRUPTED) {
        cs_check(cs, r);
        c->hard = true;
        snprintf(c->msg, c->ml, "interrupted while the GPU ran %s; the worker was stopped. %s",
                 cs->last_kernel[0] ? cs->last_kernel : "its work", cs->recovery_note);
        return -2; /* KeyboardInterrupt */
    }
    int code = cs_check(cs, r);
    char kern[300] = "";
    if (cs->recovery_note[0] && cs->last_kernel[0]) snprintf(kern, sizeof kern, " (in kernel %s)", cs->last_kernel);
    call_fail(c, code, "%s%s%s%s", cuda_error_string(code), kern, cs->recovery_note[0] ? ". " : "", cs->recovery_note);
    return code;
}

gpu_handle_t call_handle_of(uint64_t v) { return v >= CS_HANDLE_BASE ? (gpu_handle_t)(v - CS_HANDLE_BASE) : 0; }

int call_stream_arg(cs_call_t *c, int i, gpu_handle_t *s) {
    *s = 0;
    if (i >= c->n) return 0;
    uint64_t v = c->a[i].bits;
    if (v <= 2) return 0; /* 0, cudaStreamLegacy, cudaStreamPerThread: the default stream */
    if (v < CS_HANDLE_BASE) return call_fail(c, CUDA_ERR_INVALID_RESOURCE_HANDLE, "%s is not a stream", call_arg_name(&c->a[i]));
    *s = call_handle_of(v);
    return 0;
}

/* Checks that n bytes fit at a pointer argument; which: "into"/"from". */
int call_fits(cs_call_t *c, int i, uint64_t n, const char *which) {
    const interp_arg_t *a = &c->a[i];
    if (!a->is_pointer) return call_misuse(c, "argument %d (%s) must be a pointer", i + 1, call_arg_name(a));
    if (a->place == INTERP_PLACE_NONE)
        return call_misuse(c, "%s is %s", call_arg_name(a), a->bits ? "not a live pointer (freed already?)" : "NULL");
    if (n > a->avail) {
        char b1[32], b2[32];
        return call_misuse(c, "%s %s %s %s: %s %s only %s from there to the end of its buffer (%s)",
                      which[0] == 'i' ? "writing" : "reading", cs_bytes(b1, sizeof b1, n), which, call_arg_name(a),
                      call_arg_name(a), a->place == INTERP_PLACE_DEVICE ? "has" : "has", cs_bytes(b2, sizeof b2, a->avail),
                      call_place_name(a->place));
    }
    return 0;
}

