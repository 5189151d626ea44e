/* %profile through the CUDA session (cuda_profile.h). */
#include "runtime/cuda/cuda_profile.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/cuda_internal.h"
#include "runtime/gpu/cuda_driver.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
struct cuda_profile {
    gpu_profile_t *p;
};

/* A fault that a synchronisation of the profile found: the worker is
 * restarted (cs_check) and the message says what was lost. */
static void fault(cuda_session_t *cs, int r, const char *when, char *ename, size_t el, char *msg, size_t ml) {
    int code = cs_check(cs, r);
    if (r == GPU_ERR_INTERRUPTED) {
        snprintf(ename, el, "KeyboardInterrupt");
        snprintf(msg, ml, "interrupted while the GPU ran %s; the worker was stopped. %s",
                 cs->last_kernel[0] ? cs->last_kernel : "its work", cs->recovery_note);
        return;
    }
    char kern[300] = "";
    if (cs->recovery_note[0] && cs->last_kernel[0]) snprintf(kern, sizeof kern, " in kernel %s", cs->last_kernel);
    snprintf(ename, el, "%s", cuda_error_name(code));
    snprintf(msg, ml, "%s%s (%s)%s%s", cuda_error_string(code), kern, when, cs->recovery_note[0] ? ". " : "",
             cs->recovery_note);
}

int cuda_profile_begin(cuda_session_t *cs, cuda_profile_t **out, char *ename, size_t el, char *msg, size_t ml) {
    *out = NULL;
    int code = cs_ready(cs, msg, ml);
    if (code) {
        snprintf(ename, el, "%s", cuda_error_name(code));
        return -1;
    }
    /* earlier work finishes first: it is not this profile's */
    int r = gpu_client_sync(cs->gc);
    if (r) {
        fault(cs, r, "found before the profile started", ename, el, msg, ml);
        return -1;
    }
    gpu_profile_t *p = NULL;
    char why[1024];
    r = gpu_profile_start(cs->gc, 0, &p, why, sizeof why);
    if (r >= 0x10000 || cuda_result_is_sticky(r)) {
        fault(cs, r, "when the profile started", ename, el, msg, ml);
        return -1;
    }
    if (r) {
        snprintf(ename, el, "ProfilerUnavailable");
        snprintf(msg, ml, "%s", why);
        return -1;
    }
    cuda_profile_t *cp = xcalloc(1, sizeof *cp);
    cp->p = p;
    *out = cp;
    return 0;
}

const char *cuda_profile_kernel_name(cuda_session_t *cs, const char *lowered, char *buf, size_t n) {
    for (int i = 0; cs && i < cs->nkernels; i++)
        if (cs->kernels[i].lowered && !strcmp(cs->kernels[i].lowered, lowered)) {
            snprintf(buf, n, "%s", cs->kernels[i].name);
            return buf;
        }
    /* _Z6vecaddPdPKdS1_i: the identifier after the length */
    if (!strncmp(lowered, "_Z", 2) && isdigit((unsigned char)lowered[2])) {
        char *end;
        long len = strtol(lowered + 2, &end, 10);
        if (len > 0 && (size_t)len <= strlen(end)) {
            snprintf(buf, n, "%.*s", (int)len, end);
            return buf;
        }
    }
    snprintf(buf, n, "%s", lowered);
    return buf;
}

/* Kernel names as written: a new name storage, every activity pointing into it. */
static void rename_kernels(cuda_session_t *cs, gpu_profile_result_t *res) {
    strbuf_t b = {0};
    size_t *off = xcalloc(res->n, sizeof *off);
    const char **seen = xcalloc(res->n, sizeof *seen);
    size_t *seen_off = xcalloc(res->n, sizeof *seen_off);
    size_t nseen = 0;
    sb_putc(&b, 0); /* offset 0: "" */
    for (size_t i = 0; i < res->n; i++) {
        const char *ln = res->acts[i].name;
        if (!ln) continue;
        size_t j = 0;
        while (j < nseen && seen[j] != ln && strcmp(seen[j], ln)) j++;
        if (j == nseen) {
            char buf[1024];
            seen[nseen] = ln;
            seen_off[nseen++] = b.len;
            sb_puts(&b, cuda_profile_kernel_name(cs, ln, buf, sizeof buf));
            sb_putc(&b, 0);
        }
        off[i] = seen_off[j];
    }
    char *names = b.data ? b.data : xcalloc(1, 1);
    for (size_t i = 0; i < res->n; i++)
        if (res->acts[i].name) res->acts[i].name = names + off[i];
    free(res->names);
    res->names = names;
    free(off);
    free(seen);
    free(seen_off);
}

int cuda_profile_end(cuda_session_t *cs, cuda_profile_t *cp, gpu_profile_result_t *res, char *ename, size_t el,
                     char *msg, size_t ml) {
    char why[1024];
    int r = gpu_profile_stop(cs->gc, cp->p, res, why, sizeof why);
    free(cp);
    rename_kernels(cs, res);
    if (r && (r >= 0x10000 || cuda_result_is_sticky(r) || res->worker_died)) {
        res->worker_died = true;
        fault(cs, r, "found when the profile synchronised at its end", ename, el, msg, ml);
        return -1;
    }
    if (r) { /* not a fault: the trace is complete, the error is the work's */
        snprintf(ename, el, "%s", cuda_error_name(cuda_error_from_driver(r)));
        snprintf(msg, ml, "%s (found when the profile synchronised at its end)%s%s",
                 cuda_error_string(cuda_error_from_driver(r)), why[0] ? ": " : "", why);
        return -1;
    }
    return 0;
}
