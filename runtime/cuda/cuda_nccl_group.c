/* ncclGroupStart / ncclGroupEnd in a session (cuda_nccl.h). The calls of
 * an open group are kept here, their arguments checked and copied, and
 * nothing reaches NCCL until the outermost ncclGroupEnd. Then the group is
 * checked as a whole, for what would make NCCL wait forever in a process
 * that holds every rank:
 *
 *   - every rank of each new communicator (ncclCommInitRank ...) is there,
 *     each on a device of its own;
 *   - each collective (and split) on one rank's communicator is matched, in
 *     order, by the same collective with the same count, datatype,
 *     operation and root on every other rank's;
 *   - each ncclSend from rank i to rank j is matched, in order, by an
 *     ncclRecv on rank j from rank i of the same count and datatype;
 *   - every buffer and out-variable the calls named is still live.
 *
 * A group that fails these is an error of ncclGroupEnd, and is dropped:
 * NCCL saw none of it, and the next ncclGroupStart begins afresh. A group
 * that passes is sent as NCCL's own: ncclGroupStart, each call (an init on
 * the device that was current when it was called), ncclGroupEnd; the
 * communicators it made are then the session's. */
#include "cuda_nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

static void op_free(nccl_op_t *op) {
    for (int i = 0; i < op->n; i++) {
        free((char *)op->a[i].type);
        free((char *)op->a[i].expr);
        free((void *)op->a[i].aggr);
    }
    op->n = 0;
}

void nccl_ops_clear(cs_nccl_t *N) {
    for (int i = 0; i < N->nops; i++) op_free(&N->ops[i]);
    N->nops = 0;
}

void nccl_group_drop(cs_nccl_t *N) {
    nccl_ops_clear(N);
    N->depth = 0;
}

bool cs_nccl_group_forget(cs_libs_t *L) {
    cs_nccl_t *N = L ? L->nccl : NULL;
    if (!N || !N->depth) return false;
    nccl_group_drop(N);
    return true;
}

int nccl_group_start(cs_call_t *c, cs_nccl_t *N) {
    N->depth++;
    return 0;
}

int nccl_group_keep(cs_call_t *c, cs_nccl_t *N, const nccl_op_t *op) {
    if (c->n > NCCL_MAX_ARGS) return nccl_refuse(c, "ncclInvalidArgument", "too many arguments (%d)", c->n);
    ARRAY_GROW(N->ops, N->nops, N->capops);
    nccl_op_t *k = &N->ops[N->nops++];
    *k = *op;
    k->n = c->n;
    for (int i = 0; i < c->n; i++) {
        interp_arg_t *a = &k->a[i];
        *a = c->a[i];
        a->type = c->a[i].type ? xstrdup(c->a[i].type) : NULL;
        a->expr = c->a[i].expr ? xstrdup(c->a[i].expr) : NULL;
        if (c->a[i].aggr) {
            void *b = xmalloc(c->a[i].size ? c->a[i].size : 1);
            memcpy(b, c->a[i].aggr, c->a[i].size);
            a->aggr = b;
        }
    }
    return 0; /* ncclSuccess: NCCL answers for the call at ncclGroupEnd */
}

static const char *fn_name(const nccl_op_t *op) { return clib_fns[op->ix].name; }

static const char *ordinal(int k, char *buf, size_t n) {
    static const char *const sfx[] = {"th", "st", "nd", "rd"};
    int m = k % 100, d = k % 10;
    snprintf(buf, n, "%d%s", k, (m >= 11 && m <= 13) || d > 3 ? "th" : sfx[d]);
    return buf;
}

/* A drop: the group's end refused, the group gone. */
static int drop(cs_call_t *c, cs_nccl_t *N, const char *what) {
    nccl_group_drop(N);
    return nccl_refuse(c, "ncclInvalidUsage", "%s; nothing of the group reached NCCL, and the group is closed", what);
}

/* Every rank of each communicator the group makes. */
static int check_inits(cs_call_t *c, cs_nccl_t *N) {
    char why[700];
    for (int i = 0; i < N->nops; i++) {
        const nccl_op_t *o = &N->ops[i];
        if (o->kind != NK_INIT) continue;
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = N->ops[j].kind != NK_INIT || memcmp(N->ops[j].id, o->id, NCCL_ID_BYTES);
        if (!first) continue;
        char have[64] = {0};
        int n = o->nranks, missing = 0, shown = 0;
        for (int j = i; j < N->nops; j++) {
            const nccl_op_t *p = &N->ops[j];
            if (p->kind != NK_INIT || memcmp(p->id, o->id, NCCL_ID_BYTES)) continue;
            if (p->nranks != n) {
                snprintf(why, sizeof why, "ncclCommInitRank calls of one ncclUniqueId disagree on nranks (%d for rank "
                         "%d, %d for rank %d)", n, o->rank, p->nranks, p->rank);
                return drop(c, N, why);
            }
            if (p->rank < 64) have[p->rank] = 1;
        }
        char list[200] = "";
        size_t k = 0;
        for (int r = 0; r < n; r++)
            if (r >= 64 || !have[r]) {
                missing++;
                if (shown++ < 8 && k < sizeof list)
                    k += (size_t)snprintf(list + k, sizeof list - k, "%s%d", shown > 1 ? ", " : "", r);
            }
        if (missing) {
            snprintf(why, sizeof why, "the group makes a communicator of %d ranks and has no ncclCommInitRank for "
                     "rank%s %s%s: NCCL would wait for %s forever", n, missing == 1 ? "" : "s", list,
                     missing > shown ? ", ..." : "", missing == 1 ? "it" : "them");
            return drop(c, N, why);
        }
    }
    return 0;
}

/* "ncclBroadcast(count 16, ncclFloat32, root 0)" */
static void describe(const nccl_op_t *o, char *buf, size_t n) {
    if (o->kind == NK_SPLIT) {
        snprintf(buf, n, "%s(color %d)", fn_name(o), o->color);
        return;
    }
    int k = snprintf(buf, n, "%s(count %llu, %s", fn_name(o), (unsigned long long)o->count, nccl_dtype_name(o->dtype));
    if (k > 0 && (size_t)k < n && o->redop >= 0 && nccl_param(&clib_fns[o->ix], "op") >= 0)
        k += snprintf(buf + k, n - (size_t)k, ", op %lld", o->redop);
    if (k > 0 && (size_t)k < n && o->peer >= 0) k += snprintf(buf + k, n - (size_t)k, ", root %d", o->peer);
    if (k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, ")");
}

static bool same_call(const nccl_op_t *a, const nccl_op_t *b) {
    return a->ix == b->ix && a->count == b->count && a->dtype == b->dtype && a->redop == b->redop &&
           a->peer == b->peer && a->color == b->color;
}

/* The collectives on each rank's communicator, rank by rank. */
static int check_collectives(cs_call_t *c, cs_nccl_t *N) {
    char why[700], o1[16], o2[16];
    for (int i = 0; i < N->nops; i++) {
        const nccl_op_t *o = &N->ops[i];
        if (o->kind != NK_COLL && o->kind != NK_SPLIT) continue;
        const nccl_comm_t *m = nccl_comm(N, o->comm);
        if (!m || m->nranks <= 1) continue;
        /* the first call on this clique: compare every rank's list with rank 0's */
        bool first = true;
        for (int j = 0; j < i && first; j++) {
            const nccl_comm_t *q = (N->ops[j].kind == NK_COLL || N->ops[j].kind == NK_SPLIT) ? nccl_comm(N, N->ops[j].comm) : NULL;
            first = !q || q->clique != m->clique;
        }
        if (!first) continue;
        int clique = m->clique, n = m->nranks;
        const nccl_op_t *ref[256];
        int nref = 0;
        const nccl_comm_t *r0 = nccl_comm_at(N, clique, 0);
        for (int j = 0; r0 && j < N->nops && nref < 256; j++)
            if ((N->ops[j].kind == NK_COLL || N->ops[j].kind == NK_SPLIT) && N->ops[j].comm == r0->value)
                ref[nref++] = &N->ops[j];
        for (int r = 0; r < n; r++) {
            const nccl_comm_t *mr = nccl_comm_at(N, clique, r);
            if (!mr) {
                snprintf(why, sizeof why, "the group calls %s on a communicator whose rank %d this session no longer "
                         "has (destroyed?): NCCL would wait for it forever", fn_name(o), r);
                return drop(c, N, why);
            }
            int k = 0;
            for (int j = 0; j < N->nops; j++) {
                const nccl_op_t *p = &N->ops[j];
                if ((p->kind != NK_COLL && p->kind != NK_SPLIT) || p->comm != mr->value) continue;
                if (k >= nref) {
                    snprintf(why, sizeof why, "rank %d's communicator has %s as its %s collective in the group, and "
                             "rank 0's has %d: NCCL would wait for rank 0 forever", r, fn_name(p),
                             ordinal(k + 1, o1, sizeof o1), nref);
                    return drop(c, N, why);
                }
                if (!same_call(p, ref[k])) {
                    char a[160], b[160];
                    describe(ref[k], a, sizeof a);
                    describe(p, b, sizeof b);
                    snprintf(why, sizeof why, "the %s collective of the group is %s on rank 0's communicator and %s "
                             "on rank %d's: every rank must make the same call", ordinal(k + 1, o1, sizeof o1), a, b, r);
                    return drop(c, N, why);
                }
                k++;
            }
            if (k < nref) {
                if (!k)
                    snprintf(why, sizeof why, "the group calls %s on rank 0's communicator and nothing on rank %d's: "
                             "NCCL would wait for rank %d forever", fn_name(ref[0]), r, r);
                else
                    snprintf(why, sizeof why, "the group calls %d collectives on rank 0's communicator and %d on rank "
                             "%d's (the %s, %s, is missing there): NCCL would wait for rank %d forever", nref, k, r,
                             ordinal(k + 1, o2, sizeof o2), fn_name(ref[k]), r);
                return drop(c, N, why);
            }
        }
    }
    return 0;
}

/* Each send by its receive, pair by pair in order. */
static int check_p2p(cs_call_t *c, cs_nccl_t *N) {
    char why[700];
    unsigned char *used = xcalloc((size_t)N->nops + 1, 1);
    int rc = 0;
    for (int pass = 0; pass < 2 && !rc; pass++) /* sends, then the receives left over */
        for (int i = 0; i < N->nops && !rc; i++) {
            const nccl_op_t *s = &N->ops[i];
            if (s->kind != (pass ? NK_RECV : NK_SEND) || used[i]) continue;
            const nccl_comm_t *m = nccl_comm(N, s->comm);
            if (!m || m->nranks <= 0) continue;
            const nccl_comm_t *pm = nccl_comm_at(N, m->clique, s->peer);
            int j = -1;
            for (int k = 0; pm && k < N->nops && j < 0 && !pass; k++) {
                const nccl_op_t *t = &N->ops[k];
                if (t->kind == NK_RECV && !used[k] && t->comm == pm->value && t->peer == m->rank) j = k;
            }
            if (j >= 0 && (N->ops[j].count != s->count || N->ops[j].dtype != s->dtype)) {
                snprintf(why, sizeof why, "rank %d sends %llu elements of %s to rank %d, and rank %d receives %llu of "
                         "%s from rank %d: the two must agree", m->rank, (unsigned long long)s->count,
                         nccl_dtype_name(s->dtype), s->peer, s->peer, (unsigned long long)N->ops[j].count,
                         nccl_dtype_name(N->ops[j].dtype), m->rank);
                rc = drop(c, N, why);
            } else if (j < 0) {
                if (pass)
                    snprintf(why, sizeof why, "rank %d receives %llu elements from rank %d, and the group has no "
                             "ncclSend from rank %d to rank %d for it: NCCL would wait forever", m->rank,
                             (unsigned long long)s->count, s->peer, s->peer, m->rank);
                else
                    snprintf(why, sizeof why, "rank %d sends %llu elements to rank %d, and the group has no ncclRecv "
                             "on rank %d from rank %d for them: NCCL would wait forever", m->rank,
                             (unsigned long long)s->count, s->peer, s->peer, m->rank);
                rc = drop(c, N, why);
            } else {
                used[i] = used[j] = 1;
            }
        }
    free(used);
    return rc;
}

int nccl_group_check(cs_call_t *c, cs_nccl_t *N) {
    int r = check_inits(c, N);
    if (!r) r = check_collectives(c, N);
    if (!r) r = check_p2p(c, N);
    return r;
}

/* The buffers and variables the kept calls named are still there. */
static int check_live(cs_call_t *c, cs_nccl_t *N) {
    char why[700];
    for (int i = 0; i < N->nops; i++) {
        nccl_op_t *o = &N->ops[i];
        const crt_fn_t *f = &clib_fns[o->ix];
        for (int k = 0; k < o->n; k++) {
            interp_arg_t *a = &o->a[k];
            if (f->params[k].kind != CRT_PTR || !a->is_pointer || !a->bits) continue;
            bool live = true;
            if (a->place == INTERP_PLACE_HOST) {
                uint64_t avail = 0;
                void *h = interp_host_pointer(c->cs->interp, a->bits, &avail);
                live = h != NULL;
                if (live) a->host = h, a->avail = avail;
            } else if (a->place == INTERP_PLACE_DEVICE || a->place == INTERP_PLACE_MANAGED) {
                CUdeviceptr base = 0;
                size_t size = 0;
                live = gpu_client_buffer(c->cs->gc, a->device, &base, &size, NULL) && base == a->base;
            } else if (a->place == INTERP_PLACE_PINNED) {
                live = gpu_client_host_is_registered(c->cs->gc, a->host, 1);
            }
            if (!live) {
                snprintf(why, sizeof why, "%s (%s) of the group's %s was freed before ncclGroupEnd", f->params[k].name,
                         call_arg_name(a), f->name);
                return drop(c, N, why);
            }
        }
    }
    return 0;
}

/* The group as NCCL's own: start, each call, end; the first failure named. */
static int send_group(cs_call_t *c, cs_nccl_t *N) {
    gpu_client_t *g = c->cs->gc;
    int start = clib_find("ncclGroupStart"), end = clib_find("ncclGroupEnd");
    int cur = gpu_client_get_device(g), dev = cur;
    char msg[900] = "", first[1100] = "";
    int status = 0, r;
    cs_call_t q = {c->cs, "ncclGroupStart", NULL, 0, msg, sizeof msg, false, 0};
    if ((r = nccl_forward(&q, start))) {
        snprintf(c->msg, c->ml, "%s", msg);
        c->lib_status = q.lib_status;
        return r;
    }
    for (int i = 0; i < N->nops; i++) {
        nccl_op_t *o = &N->ops[i];
        if (o->kind == NK_INIT && o->dev != dev) {
            if ((r = gpu_client_set_device(g, o->dev))) return call_done(c, r);
            dev = o->dev;
        }
        cs_call_t k = {c->cs, fn_name(o), o->a, o->n, msg, sizeof msg, false, 0};
        r = nccl_forward(&k, o->ix);
        if (r && !k.lib_status) { /* the worker is gone, or an interrupt: nothing more can be said */
            snprintf(c->msg, c->ml, "%s", msg);
            return r;
        }
        if (r && !status) {
            status = k.lib_status;
            const nccl_comm_t *m = nccl_comm(N, o->comm);
            if (m) snprintf(first, sizeof first, "%s (rank %d, device %d) in the group: %s", fn_name(o), m->rank, m->dev, msg);
            else snprintf(first, sizeof first, "%s (rank %d, device %d) in the group: %s", fn_name(o), o->rank, o->dev, msg);
        }
    }
    if (dev != cur && (r = gpu_client_set_device(g, cur))) return call_done(c, r);
    q.name = "ncclGroupEnd";
    r = nccl_forward(&q, end);
    if (r && !q.lib_status) {
        snprintf(c->msg, c->ml, "%s", msg);
        return r;
    }
    if (r && !status) {
        status = q.lib_status;
        snprintf(first, sizeof first, "%s", msg);
    }
    if (status) {
        c->lib_status = status;
        return call_fail(c, CUDA_ERR_UNKNOWN, "%s", first);
    }
    /* what the group made */
    for (int i = 0; i < N->nops; i++) {
        nccl_op_t *o = &N->ops[i];
        if (o->out < 0) continue;
        uint64_t v = 0;
        if (o->a[o->out].host && o->a[o->out].avail >= 8) memcpy(&v, o->a[o->out].host, 8);
        if (!v) continue;
        if (o->kind == NK_INIT) {
            nccl_comm_t m = {v, c->cs->restarts, o->dev, o->rank, o->nranks, nccl_clique_of(N, o->id, NULL)};
            nccl_add_comm(N, &m);
        } else if (o->kind == NK_SPLIT) {
            const nccl_comm_t *p = nccl_comm(N, o->comm);
            if (p) {
                nccl_comm_t parent = *p;
                nccl_add_split(c, N, v, &parent, o->color);
            }
        }
    }
    return 0;
}

int nccl_group_end(cs_call_t *c, cs_nccl_t *N) {
    if (!N->depth) return nccl_refuse(c, "ncclInvalidUsage", "no group is open (ncclGroupStart starts one)");
    if (--N->depth) return 0;
    if (!N->nops) return 0;
    int r = call_ready(c);
    if (!r) r = nccl_group_check(c, N);
    if (!r) r = check_live(c, N);
    if (!r) r = send_group(c, N);
    nccl_ops_clear(N);
    return r;
}
