/* %profile's trace, client side (gpu_profile.h): an arena range for the
 * worker to write records into, two commands, and the records read back. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_profile.h"

#include "runtime/hostmem/arena.h"

#include "runtime/base/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAMES_BYTES (1u << 20)

typedef __typeof__(((ch_cmd_t *)0)->u.profile) profile_args_t; /* the commands' arena range */

struct gpu_profile {
    prof_blob_t *blob;
    size_t size;
    int pid; /* the worker that traces: another one knows nothing of it */
};

int gpu_profile_start(gpu_client_t *c, unsigned max_records, gpu_profile_t **out, char *msg, size_t ml) {
    *out = NULL;
    msg[0] = 0;
    uint32_t cap = max_records ? max_records : GPU_PROFILE_DEFAULT_RECORDS;
    size_t size = (size_t)prof_blob_size(cap, NAMES_BYTES);
    gpu_profile_t *p = calloc(1, sizeof *p);
    prof_blob_t *b = arena_alloc(size);
    if (!p || !b) {
        free(p);
        if (b) arena_free(b);
        snprintf(msg, ml, "no memory for the profile's records (%zu bytes)", size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    b->magic = PROF_MAGIC;
    b->cap = cap;
    b->names_cap = NAMES_BYTES;
    profile_args_t u = {.offset = arena_offset(b), .size = size};
    uint64_t v[4] = {0, 0, 0, 0};
    int r = gpu_client_command(c, CH_PROFILE_START, &u, sizeof u, v, msg, ml);
    if (r) {
        if (!msg[0]) snprintf(msg, ml, "the GPU worker could not start a profile (%s)", gpu_client_error_name(r));
        arena_free(b);
        free(p);
        return r;
    }
    p->blob = b;
    p->size = size;
    p->pid = gpu_client_pid(c);
    *out = p;
    return 0;
}

static int by_start(const void *a, const void *b) {
    const gpu_prof_activity_t *x = a, *y = b;
    if (x->r.start != y->r.start) return x->r.start < y->r.start ? -1 : 1;
    return x->r.correlation < y->r.correlation ? -1 : x->r.correlation > y->r.correlation;
}

/* Copies the records out of the blob, trusting none of its counts. */
static void collect(const prof_blob_t *b, gpu_profile_result_t *res) {
    uint32_t n = b->n < b->cap ? b->n : b->cap;
    uint32_t nl = b->names_len < b->names_cap ? b->names_len : b->names_cap;
    const prof_record_t *rec = (const prof_record_t *)(b + 1);
    const char *area = (const char *)(rec + b->cap);
    res->acts = xcalloc(n ? n : 1, sizeof *res->acts);
    res->names = xmalloc((size_t)nl + 1);
    memcpy(res->names, area, nl);
    res->names[nl] = 0;
    for (uint32_t i = 0; i < n; i++) {
        gpu_prof_activity_t *a = &res->acts[res->n];
        a->r = rec[i];
        if (a->r.kind < PROF_KERNEL || a->r.kind > PROF_MEMSET) continue;
        if (a->r.kind == PROF_KERNEL)
            a->name = a->r.name < nl && (a->r.name == 0 || !res->names[a->r.name - 1]) ? res->names + a->r.name : "?";
        res->n++;
    }
    qsort(res->acts, res->n, sizeof *res->acts, by_start);
    res->left_out = b->left_out + (b->n > b->cap ? b->n - b->cap : 0);
    res->dropped = b->dropped;
    res->ndefault = b->ndefault < PROF_MAX_DEVICES ? b->ndefault : PROF_MAX_DEVICES;
    memcpy(res->default_stream, b->default_stream, sizeof res->default_stream);
}

int gpu_profile_stop(gpu_client_t *c, gpu_profile_t *p, gpu_profile_result_t *res, char *msg, size_t ml) {
    memset(res, 0, sizeof *res);
    msg[0] = 0;
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    int r = 0;
    if (gpu_client_pid(c) != p->pid || p->pid <= 0) {
        res->worker_died = true; /* and was replaced while the profiled code ran */
    } else {
        profile_args_t u = {.offset = arena_offset(p->blob), .size = p->size};
        uint64_t v[4] = {0, 0, 0, 0};
        r = gpu_client_command(c, CH_PROFILE_STOP, &u, sizeof u, v, msg, ml);
        if (r && gpu_client_pid(c) != p->pid) res->worker_died = true;
        if (!r) res->detached = v[3] != 0;
    }
    /* the worker has answered or is gone: the blob is ours to read */
    collect(p->blob, res);
    arena_free(p->blob);
    free(p);
    return r;
}

void gpu_profile_result_free(gpu_profile_result_t *res) {
    free(res->acts);
    free(res->names);
    memset(res, 0, sizeof *res);
}
