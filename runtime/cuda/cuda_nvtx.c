/* NVTX from host cells (cuda_nvtx.h): ranges pushed and popped, started
 * and ended by id, and marks, with host timestamps, in the session. */
#include "runtime/cuda/cuda_nvtx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_libs.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static cs_nvtx_range_t *add(cs_libs_t *L, const char *name) {
    ARRAY_GROW(L->r, L->nr, L->capr);
    cs_nvtx_range_t *r = &L->r[L->nr++];
    memset(r, 0, sizeof *r);
    r->name = xstrdup(name);
    r->start_ms = r->end_ms = now_ms();
    return r;
}

void cs_nvtx_free(cs_libs_t *L) {
    for (int i = 0; i < L->nr; i++) free(L->r[i].name);
    free(L->r);
}

/* The message argument: a C string in host memory. */
static const char *text_arg(const interp_arg_t *a, char *buf, size_t n) {
    const char *p = a->is_pointer ? a->host : NULL;
    size_t avail = a->avail;
    if (!p || !avail || strnlen(p, avail) == avail) return NULL;
    snprintf(buf, n, "%s", p);
    return buf;
}

int cs_nvtx_call(cuda_session_t *cs, const char *name, const interp_arg_t *args, int nargs, int64_t *ret, char *ename,
                 char *msg, size_t msglen) {
    cs_libs_t *L = clib_state(cs);
    char text[256];
    bool takes_text = !strcmp(name, "nvtxRangePushA") || !strcmp(name, "nvtxMarkA") || !strcmp(name, "nvtxRangeStartA");
    bool takes_id = !strcmp(name, "nvtxRangeEnd");
    bool none = !strcmp(name, "nvtxRangePop");
    *ret = 0;
    if (!takes_text && !takes_id && !none) {
        snprintf(ename, INTERP_ENAME_MAX, "NotImplementedError");
        snprintf(msg, msglen, "%s: icuda implements NVTX's nvtxRangePushA, nvtxRangePop, nvtxRangeStartA, "
                 "nvtxRangeEnd and nvtxMarkA (their ASCII forms, without event attributes)", name);
        return -1;
    }
    int want = none ? 0 : 1;
    if (nargs != want) {
        snprintf(ename, INTERP_ENAME_MAX, "TypeError");
        snprintf(msg, msglen, "%s takes %d argument%s, not %d", name, want, want == 1 ? "" : "s", nargs);
        return -1;
    }
    if (takes_text && !text_arg(&args[0], text, sizeof text)) {
        snprintf(ename, INTERP_ENAME_MAX, "TypeError");
        snprintf(msg, msglen, "%s: the argument must be a string (const char *)", name);
        return -1;
    }
    if (!strcmp(name, "nvtxMarkA")) {
        add(L, text)->depth = L->depth;
    } else if (!strcmp(name, "nvtxRangePushA")) {
        cs_nvtx_range_t *r = add(L, text);
        r->open = true;
        r->depth = L->depth++;
        *ret = r->depth; /* the level of the range pushed, from 0 */
    } else if (none) {
        *ret = -1; /* NVTX's answer when no range is open */
        for (int i = L->nr - 1; i >= 0; i--)
            if (L->r[i].open && !L->r[i].id) {
                L->r[i].open = false;
                L->r[i].end_ms = now_ms();
                *ret = --L->depth;
                break;
            }
    } else if (takes_text) {
        cs_nvtx_range_t *r = add(L, text);
        r->open = true;
        r->id = ++L->next_id;
        *ret = (int64_t)r->id;
    } else {
        uint64_t id = args[0].bits;
        for (int i = L->nr - 1; i >= 0; i--)
            if (L->r[i].open && L->r[i].id == id) {
                L->r[i].open = false;
                L->r[i].end_ms = now_ms();
                break;
            }
    }
    return 0;
}

int cuda_nvtx_count(cuda_session_t *cs) { return cs->libs ? cs->libs->nr : 0; }

typedef struct {
    const char *name;
    long calls;
    double total, first;
} group_t;

char *cuda_nvtx_report(cuda_session_t *cs, int from, bool html) {
    cs_libs_t *L = cs->libs;
    if (!L || from >= L->nr) return NULL;
    group_t *g = xcalloc((size_t)(L->nr - from), sizeof *g);
    int ng = 0;
    for (int i = from < 0 ? 0 : from; i < L->nr; i++) {
        const cs_nvtx_range_t *r = &L->r[i];
        if (r->open) continue;
        /* a mark counts as a call of no time */
        int k = 0;
        while (k < ng && strcmp(g[k].name, r->name)) k++;
        if (k == ng) g[ng++] = (group_t){r->name, 0, 0, r->start_ms};
        g[k].calls++;
        g[k].total += r->end_ms - r->start_ms;
    }
    if (!ng) {
        free(g);
        return NULL;
    }
    strbuf_t b = {0};
    if (html) {
        sb_printf(&b, "<table><caption>NVTX ranges (host time)</caption><tr><th>range</th><th>calls</th>"
                  "<th>total (ms)</th><th>mean (ms)</th></tr>");
        for (int k = 0; k < ng; k++) {
            sb_puts(&b, "<tr><td>");
            for (const char *p = g[k].name; *p; p++)
                if (*p == '<') sb_puts(&b, "&lt;");
                else if (*p == '&') sb_puts(&b, "&amp;");
                else sb_putc(&b, *p);
            sb_printf(&b, "</td><td>%ld</td><td>%.3f</td><td>%.3f</td></tr>", g[k].calls, g[k].total,
                      g[k].total / (double)g[k].calls);
        }
        sb_puts(&b, "</table>");
    } else {
        sb_printf(&b, "NVTX ranges (host time):\n%-32s %8s %12s %12s\n", "range", "calls", "total (ms)", "mean (ms)");
        for (int k = 0; k < ng; k++)
            sb_printf(&b, "%-32s %8ld %12.3f %12.3f\n", g[k].name, g[k].calls, g[k].total, g[k].total / (double)g[k].calls);
    }
    free(g);
    return sb_take(&b);
}
