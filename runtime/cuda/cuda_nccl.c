/* NCCL from host cells: nccl.h's functions are in the library table
 * (tools/gen_cuda_libs.py, where nccl.h was found at build time) and run
 * by the GPU worker's libnccl.so.2 (worker_libs.c); cuda_libs.c hands
 * every call here (cuda_nccl.h says why a session needs groups).
 *
 * Before anything is sent: each ncclComm_t is one this session made, on
 * the worker running now; a collective's buffers are GPU memory on the
 * communicator's device (or one it reaches by peer access) with room for
 * the count in the datatype (times the ranks where the collective says
 * so); its stream is on the communicator's device; the root or peer is a
 * rank of the communicator; ncclCommInitAll's devices exist and differ.
 * A misuse is NCCL's own status (ncclInvalidArgument, ncclInvalidUsage)
 * with a sentence that names the argument. */
#include "cuda_nccl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include "runtime/hostmem/arena.h"

/* ---- what each function is ---- */

static const struct {
    const char *name;
    int kind;
} kinds[] = {
    {"ncclAllReduce", NK_COLL},       {"ncclBroadcast", NK_COLL},         {"ncclBcast", NK_COLL},
    {"ncclReduce", NK_COLL},          {"ncclAllGather", NK_COLL},         {"ncclReduceScatter", NK_COLL},
    {"ncclAlltoAll", NK_COLL},        {"ncclGather", NK_COLL},            {"ncclScatter", NK_COLL},
    {"ncclSend", NK_SEND},            {"ncclRecv", NK_RECV},              {"ncclCommInitRank", NK_INIT},
    {"ncclCommInitRankConfig", NK_INIT}, {"ncclCommInitRankScalable", NK_INIT}, {"ncclCommSplit", NK_SPLIT},
    {"ncclCommShrink", NK_SPLIT},     {"ncclCommInitAll", NK_INIT_ALL},   {"ncclCommDestroy", NK_DESTROY},
    {"ncclCommAbort", NK_DESTROY},    {"ncclGroupStart", NK_GROUP_START}, {"ncclGroupEnd", NK_GROUP_END},
};

int nccl_kind(const char *name) {
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i].name, name)) return kinds[i].kind;
    return NK_OTHER;
}

/* A collective's buffers: how many elements each holds, in counts ('1') or
 * ranks times the count ('n'), and whether only the root's is used. */
static const struct {
    const char *name;
    char send, recv;
    bool send_root, recv_root;
} extents[] = {
    {"ncclAllReduce", '1', '1', false, false}, {"ncclBroadcast", '1', '1', true, false},
    {"ncclBcast", 0, '1', false, false},       {"ncclReduce", '1', '1', false, true},
    {"ncclAllGather", '1', 'n', false, false}, {"ncclReduceScatter", 'n', '1', false, false},
    {"ncclAlltoAll", 'n', 'n', false, false},  {"ncclGather", '1', 'n', false, true},
    {"ncclScatter", 'n', '1', true, false},    {"ncclSend", '1', 0, false, false},
    {"ncclRecv", 0, '1', false, false},
};

int nccl_param(const crt_fn_t *f, const char *name) {
    for (int i = 0; i < f->nparams; i++)
        if (!strcmp(f->params[i].name, name)) return i;
    return -1;
}

static const struct { const char *name; unsigned size; } dtypes[] = {
    {"ncclInt8", 1},    {"ncclUint8", 1},   {"ncclInt32", 4},      {"ncclUint32", 4},
    {"ncclInt64", 8},   {"ncclUint64", 8},  {"ncclFloat16", 2},    {"ncclFloat32", 4},
    {"ncclFloat64", 8}, {"ncclBfloat16", 2}, {"ncclFloat8e4m3", 1}, {"ncclFloat8e5m2", 1},
};

unsigned nccl_dtype_size(long long t) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (clib_const(dtypes[i].name, -1) == t) return dtypes[i].size;
    return 0;
}

const char *nccl_dtype_name(long long t) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (clib_const(dtypes[i].name, -1) == t) return dtypes[i].name;
    return "a datatype NCCL does not have";
}

/* ---- the session's communicators ---- */

static cs_nccl_t *state(cs_libs_t *L) {
    if (!L->nccl) L->nccl = xcalloc(1, sizeof *L->nccl);
    return L->nccl;
}

void cs_nccl_free(cs_libs_t *L) {
    cs_nccl_t *N = L->nccl;
    if (!N) return;
    nccl_ops_clear(N);
    free(N->ops);
    free(N->comms);
    free(N->ids);
    free(N);
    L->nccl = NULL;
}

nccl_comm_t *nccl_comm(cs_nccl_t *N, uint64_t value) {
    for (int i = 0; value && i < N->ncomms; i++)
        if (N->comms[i].value == value) return &N->comms[i];
    return NULL;
}

nccl_comm_t *nccl_comm_at(cs_nccl_t *N, int clique, int rank) {
    for (int i = 0; i < N->ncomms; i++)
        if (N->comms[i].clique == clique && N->comms[i].rank == rank) return &N->comms[i];
    return NULL;
}

void nccl_add_comm(cs_nccl_t *N, const nccl_comm_t *m) {
    nccl_comm_t *old = nccl_comm(N, m->value); /* NCCL may reuse a destroyed one's address */
    if (!old) {
        ARRAY_GROW(N->comms, N->ncomms, N->capcomms);
        old = &N->comms[N->ncomms++];
    }
    *old = *m;
}

static int find_id(const cs_nccl_t *N, const unsigned char *id) {
    for (int i = 0; i < N->nids; i++)
        if (!memcmp(N->ids[i].id, id, NCCL_ID_BYTES)) return i;
    return -1;
}

int nccl_clique_of(cs_nccl_t *N, const unsigned char *id, bool *made) {
    int i = find_id(N, id);
    if (made) *made = i >= 0;
    if (i >= 0) return N->ids[i].clique;
    ARRAY_GROW(N->ids, N->nids, N->capids);
    memcpy(N->ids[N->nids].id, id, NCCL_ID_BYTES);
    N->ids[N->nids].clique = ++N->next_clique;
    return N->ids[N->nids++].clique;
}

/* ---- refusals, forwarding ---- */

int nccl_refuse(cs_call_t *c, const char *status, const char *fmt, ...) {
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    c->lib_status = (int)clib_const(status, 4);
    c->hard = true;
    return call_fail(c, CUDA_ERR_INVALID_VALUE, "%s", text);
}

int nccl_forward(cs_call_t *c, int ix) {
    return cs_forward_fn(c, &clib_fns[ix], clib_ptrfields, (unsigned)CLIB_NCCL << 24 | (unsigned)ix, CLIB_NCCL);
}

static long long ival_named(cs_call_t *c, const crt_fn_t *f, const char *name, long long dflt) {
    int i = nccl_param(f, name);
    return i < 0 || i >= c->n ? dflt : (long long)call_ival(&c->a[i]);
}

/* The communicator arguments: NULL, or one this session made on the
 * worker running now. */
static int check_comms(cs_call_t *c, const crt_fn_t *f, cs_nccl_t *N, nccl_comm_t **comm) {
    *comm = NULL;
    for (int i = 0; i < f->nparams && i < c->n; i++) {
        const crt_param_t *p = &f->params[i];
        if (p->kind != CRT_HANDLE || !strstr(p->type, "ncclComm_t") || !c->a[i].bits) continue;
        nccl_comm_t *m = nccl_comm(N, c->a[i].bits);
        if (!m)
            return nccl_refuse(c, "ncclInvalidArgument", "%s is not a communicator this session made (ncclCommInitAll, "
                               "or ncclCommInitRank between ncclGroupStart and ncclGroupEnd, makes them)%s",
                               call_arg_name(&c->a[i]), N->depth ? "; one that the open group makes exists only "
                               "after its ncclGroupEnd" : "");
        if (m->restarts != c->cs->restarts)
            return nccl_refuse(c, "ncclInvalidArgument", "%s was made by a GPU worker that has since restarted, and "
                               "the communicator went with it: make it again", call_arg_name(&c->a[i]));
        if (!strcmp(p->name, "comm")) *comm = m;
    }
    return 0;
}

/* A collective's buffer argument i with room for bytes, on the
 * communicator's device. */
static int check_buffer(cs_call_t *c, const crt_fn_t *f, int i, uint64_t bytes, uint64_t elems, unsigned es,
                        const nccl_comm_t *m) {
    const interp_arg_t *a = &c->a[i];
    const char *pn = f->params[i].name;
    if (!a->is_pointer || !a->bits)
        return nccl_refuse(c, "ncclInvalidArgument", "%s (%s) is NULL", pn, call_arg_name(a));
    switch (a->place) {
    case INTERP_PLACE_HOST:
        return nccl_refuse(c, "ncclInvalidArgument", "%s (%s) is host memory (malloc or a variable); NCCL moves GPU "
                           "memory: cudaMalloc it on device %d, the communicator's", pn, call_arg_name(a), m->dev);
    case INTERP_PLACE_NONE:
        return nccl_refuse(c, "ncclInvalidArgument", "%s (%s) is not a live pointer (freed already?)", pn,
                           call_arg_name(a));
    case INTERP_PLACE_UNKNOWN: return 0; /* memory the session did not allocate (ncclMemAlloc's) */
    }
    int bdev = -1;
    if (a->place == INTERP_PLACE_DEVICE && gpu_client_buffer(c->cs->gc, a->device, NULL, NULL, &bdev) &&
        bdev != m->dev && !gpu_client_peer_enabled(c->cs->gc, m->dev, bdev))
        return nccl_refuse(c, "ncclInvalidArgument", "%s (%s) lives on device %d, and the communicator is rank %d on "
                           "device %d (which has no peer access to device %d)", pn, call_arg_name(a), bdev, m->rank,
                           m->dev, bdev);
    if (bytes > a->avail)
        return nccl_refuse(c, "ncclInvalidArgument", "%s (%s) has room for %llu bytes, and %s moves %llu elements of "
                           "%u bytes there", pn, call_arg_name(a), (unsigned long long)a->avail, c->name,
                           (unsigned long long)elems, es);
    return 0;
}

/* ---- collectives, sends and receives ---- */

static int collective(cs_call_t *c, const crt_fn_t *f, int ix, cs_nccl_t *N, int kind, nccl_comm_t *m) {
    int ci = nccl_param(f, "comm");
    if (!m)
        return nccl_refuse(c, "ncclInvalidArgument", "comm%s%s%s is NULL: %s needs a communicator",
                           ci >= 0 && ci < c->n ? " (" : "", ci >= 0 && ci < c->n ? call_arg_name(&c->a[ci]) : "",
                           ci >= 0 && ci < c->n ? ")" : "", c->name);
    long long count = ival_named(c, f, "count", -1);
    if (count < 0) count = ival_named(c, f, "sendcount", -1);
    if (count < 0) count = ival_named(c, f, "recvcount", 0);
    long long dtype = ival_named(c, f, "datatype", -1), redop = ival_named(c, f, "op", -1);
    unsigned es = nccl_dtype_size(dtype);
    if (!es) return nccl_refuse(c, "ncclInvalidArgument", "datatype %lld is not an ncclDataType_t", dtype);
    int pi = nccl_param(f, "peer") >= 0 ? nccl_param(f, "peer") : nccl_param(f, "root");
    long long peer = pi >= 0 ? (long long)call_ival(&c->a[pi]) : -1;
    if (pi >= 0 && (peer < 0 || (m->nranks > 0 && peer >= m->nranks)))
        return nccl_refuse(c, "ncclInvalidArgument", "%s is %lld, and the communicator has ranks 0 to %d",
                           f->params[pi].name, peer, m->nranks - 1);
    size_t e;
    for (e = 0; e < sizeof extents / sizeof extents[0]; e++)
        if (!strcmp(extents[e].name, c->name)) break;
    bool root = pi >= 0 && kind == NK_COLL && m->nranks > 0 && m->rank == peer;
    for (int side = 0; e < sizeof extents / sizeof extents[0] && side < 2; side++) {
        char how = side ? extents[e].recv : extents[e].send;
        bool root_only = side ? extents[e].recv_root : extents[e].send_root;
        int bi = nccl_param(f, side ? (how && nccl_param(f, "buff") >= 0 ? "buff" : "recvbuff") : "sendbuff");
        if (!how || bi < 0 || (root_only && !root) || (how == 'n' && m->nranks <= 0)) continue;
        uint64_t elems = (uint64_t)count * (how == 'n' ? (uint64_t)m->nranks : 1);
        int r = check_buffer(c, f, bi, elems * es, elems, es, m);
        if (r) return r;
    }
    int si = nccl_param(f, "stream");
    uint64_t sv = si >= 0 && si < c->n ? c->a[si].bits : 0;
    int sdev = -1;
    if (sv >= CS_HANDLE_BASE && !gpu_client_stream_device(c->cs->gc, call_handle_of(sv), &sdev) && sdev != m->dev)
        return nccl_refuse(c, "ncclInvalidArgument", "the stream %s was made on device %d, and the communicator is "
                           "rank %d on device %d: make its stream after cudaSetDevice(%d)", call_arg_name(&c->a[si]),
                           sdev, m->rank, m->dev, m->dev);
    if (!N->depth) {
        if (m->nranks > 1)
            return nccl_refuse(c, "ncclInvalidUsage", "a %s on one rank waits for the other %d rank%s of its "
                               "communicator, and in one session they are all here: call %s for every rank's "
                               "communicator between ncclGroupStart() and ncclGroupEnd()",
                               kind == NK_COLL ? "collective" : kind == NK_SEND ? "send" : "receive", m->nranks - 1,
                               m->nranks == 2 ? "" : "s", c->name);
        return nccl_forward(c, ix);
    }
    nccl_op_t op = {.ix = ix, .kind = kind, .dev = gpu_client_get_device(c->cs->gc), .comm = m->value,
                    .peer = (int)peer, .count = (uint64_t)count, .dtype = dtype, .redop = redop, .out = -1};
    return nccl_group_keep(c, N, &op);
}

/* ---- making and ending communicators ---- */

/* The new communicator written through argument out: room for n of them. */
static int check_out(cs_call_t *c, int out, int n) {
    if (out < 0 || out >= c->n) return 0;
    const interp_arg_t *a = &c->a[out];
    bool host = a->place == INTERP_PLACE_HOST || a->place == INTERP_PLACE_PINNED || a->place == INTERP_PLACE_MANAGED;
    if (!a->is_pointer || !a->bits || !host)
        return nccl_refuse(c, "ncclInvalidArgument", "%s must point to a host variable of type ncclComm_t (&comm)",
                           call_arg_name(a));
    if (a->avail < (uint64_t)n * 8)
        return nccl_refuse(c, "ncclInvalidArgument", "%s has room for %llu communicator%s, and %s makes %d",
                           call_arg_name(a), (unsigned long long)(a->avail / 8), a->avail / 8 == 1 ? "" : "s", c->name,
                           n);
    return 0;
}

static uint64_t read_out(cs_call_t *c, int out, int k) {
    uint64_t avail = 0, v = 0;
    const void *h = interp_host_pointer(c->cs->interp, c->a[out].bits, &avail);
    if (!h) h = c->a[out].host, avail = c->a[out].avail;
    if (h && avail >= (uint64_t)(k + 1) * 8) memcpy(&v, (const char *)h + 8 * k, 8);
    return v;
}

static int init_rank(cs_call_t *c, const crt_fn_t *f, int ix, cs_nccl_t *N) {
    long long nranks = ival_named(c, f, "nranks", 0);
    long long rank = ival_named(c, f, "rank", ival_named(c, f, "myrank", -1));
    if (nranks < 1) return nccl_refuse(c, "ncclInvalidArgument", "nranks is %lld; a communicator has 1 or more", nranks);
    if (rank < 0 || rank >= nranks)
        return nccl_refuse(c, "ncclInvalidArgument", "rank is %lld, and the communicator has ranks 0 to %lld", rank,
                           nranks - 1);
    unsigned char id[NCCL_ID_BYTES];
    int ii = nccl_param(f, "commId"), iis = nccl_param(f, "commIds");
    if (ii >= 0) {
        const interp_arg_t *a = &c->a[ii];
        if (!a->aggr || a->size != NCCL_ID_BYTES)
            return nccl_refuse(c, "ncclInvalidArgument", "commId (%s) must be an ncclUniqueId (from ncclGetUniqueId)",
                               call_arg_name(a));
        memcpy(id, a->aggr, NCCL_ID_BYTES);
    } else if (iis >= 0) {
        uint64_t avail = 0;
        const void *h = interp_host_pointer(c->cs->interp, c->a[iis].bits, &avail);
        if (!h || avail < NCCL_ID_BYTES)
            return nccl_refuse(c, "ncclInvalidArgument", "commIds (%s) must point to ncclUniqueIds in host memory",
                               call_arg_name(&c->a[iis]));
        memcpy(id, h, NCCL_ID_BYTES);
    } else {
        return nccl_forward(c, ix);
    }
    int out = nccl_param(f, "comm") >= 0 ? nccl_param(f, "comm") : nccl_param(f, "newcomm");
    int r = check_out(c, out, 1);
    if (r) return r;
    if (find_id(N, id) >= 0)
        return nccl_refuse(c, "ncclInvalidUsage", "this ncclUniqueId made communicators already, and an id is good for "
                           "one communicator: get a new one with ncclGetUniqueId");
    int dev = c->cs->gc ? gpu_client_get_device(c->cs->gc) : 0;
    for (int k = 0; k < N->nops; k++) {
        const nccl_op_t *o = &N->ops[k];
        if (o->kind != NK_INIT || memcmp(o->id, id, NCCL_ID_BYTES)) continue;
        if (o->rank == rank)
            return nccl_refuse(c, "ncclInvalidUsage", "rank %lld of this ncclUniqueId is in the open group already",
                               rank);
        if (o->dev == dev)
            return nccl_refuse(c, "ncclInvalidUsage", "ranks %d and %lld of this ncclUniqueId would both be on device %d:"
                               " NCCL needs a GPU of its own for each rank in one process (cudaSetDevice before each "
                               "ncclCommInitRank)", o->rank, rank, dev);
    }
    if (!N->depth) {
        if (nranks > 1)
            return nccl_refuse(c, "ncclInvalidUsage", "ncclCommInitRank waits until all %lld ranks have joined, and in "
                               "one session they are all here: call it for every rank (each after cudaSetDevice of "
                               "its GPU) between ncclGroupStart() and ncclGroupEnd(), or make them all at once with "
                               "ncclCommInitAll", nranks);
        if ((r = nccl_forward(c, ix))) return r;
        nccl_comm_t m = {read_out(c, out, 0), c->cs->restarts, dev, 0, 1, nccl_clique_of(N, id, NULL)};
        if (m.value) nccl_add_comm(N, &m);
        return 0;
    }
    nccl_op_t op = {.ix = ix, .kind = NK_INIT, .dev = dev, .peer = -1, .rank = (int)rank, .nranks = (int)nranks,
                    .out = out};
    memcpy(op.id, id, NCCL_ID_BYTES);
    return nccl_group_keep(c, N, &op);
}

static int init_all(cs_call_t *c, const crt_fn_t *f, int ix, cs_nccl_t *N) {
    long long n = ival_named(c, f, "ndev", 0);
    if (n < 1) return nccl_refuse(c, "ncclInvalidArgument", "ndev is %lld; a communicator has 1 or more ranks", n);
    if (n > 64) return nccl_refuse(c, "ncclInvalidArgument", "ndev is %lld; icuda makes at most 64 at once", n);
    int r = check_out(c, 0, (int)n);
    if (r || (r = call_ready(c))) return r;
    int ndev = 0;
    gpu_client_device_count(c->cs->gc, &ndev);
    int di = nccl_param(f, "devlist");
    int devs[64];
    if (di < 0 || !c->a[di].bits) {
        if (n > ndev)
            return nccl_refuse(c, "ncclInvalidArgument", "ncclCommInitAll with ndev %lld and no devlist puts rank i on "
                               "GPU i, and this machine has %d GPU%s", n, ndev, ndev == 1 ? "" : "s");
        for (int k = 0; k < n; k++) devs[k] = k;
    } else {
        uint64_t avail = 0;
        const int *dl = interp_host_pointer(c->cs->interp, c->a[di].bits, &avail);
        if (!dl || avail < (uint64_t)n * sizeof(int))
            return nccl_refuse(c, "ncclInvalidArgument", "devlist (%s) must point to %lld ints in host memory",
                               call_arg_name(&c->a[di]), n);
        for (int k = 0; k < n; k++) {
            devs[k] = dl[k];
            if (devs[k] < 0 || devs[k] >= ndev)
                return nccl_refuse(c, "ncclInvalidArgument", "devlist[%d] is %d, and this machine has GPUs 0 to %d", k,
                                   devs[k], ndev - 1);
            for (int j = 0; j < k; j++)
                if (devs[j] == devs[k])
                    return nccl_refuse(c, "ncclInvalidUsage", "devlist has device %d twice (ranks %d and %d): NCCL "
                                       "needs a GPU of its own for each rank in one process", devs[k], j, k);
        }
    }
    if ((r = nccl_forward(c, ix))) return r;
    int clique = ++N->next_clique;
    for (int k = 0; k < n; k++) {
        nccl_comm_t m = {read_out(c, 0, k), c->cs->restarts, devs[k], k, (int)n, clique};
        if (m.value) nccl_add_comm(N, &m);
    }
    return 0;
}

/* ncclCommCount, ncclCommUserRank, ncclCommCuDevice: one int of NCCL's. */
static int query(cs_call_t *c, const char *name, uint64_t comm, int *out) {
    int ix = clib_find(name);
    int *tmp = arena_alloc(sizeof *tmp);
    if (ix < 0 || !tmp) return -1;
    *tmp = -1;
    interp_arg_t a[2];
    memset(a, 0, sizeof a);
    a[0].type = "ncclComm_t";
    a[0].bits = comm;
    a[0].size = 8;
    a[0].expr = "comm";
    a[1].type = "int *";
    a[1].is_pointer = 1;
    a[1].bits = (uint64_t)(uintptr_t)tmp;
    a[1].place = INTERP_PLACE_HOST;
    a[1].host = tmp;
    a[1].avail = sizeof *tmp;
    a[1].size = 8;
    a[1].expr = "&value";
    char msg[600];
    cs_call_t q = {c->cs, name, a, 2, msg, sizeof msg, false, 0};
    int r = nccl_forward(&q, ix);
    *out = *tmp;
    arena_free(tmp);
    return r;
}

void nccl_add_split(cs_call_t *c, cs_nccl_t *N, uint64_t value, const nccl_comm_t *parent, int color) {
    nccl_comm_t m = {value, c->cs->restarts, -1, -1, 0, 0};
    if (query(c, "ncclCommCount", value, &m.nranks) || query(c, "ncclCommUserRank", value, &m.rank) ||
        query(c, "ncclCommCuDevice", value, &m.dev))
        m.nranks = 0; /* not known: the group checks pass it by */
    /* the children of one parent with one color are one communicator */
    unsigned char key[NCCL_ID_BYTES];
    memset(key, 0, sizeof key);
    memcpy(key, "icuda split", 11);
    memcpy(key + 16, &parent->clique, sizeof parent->clique);
    memcpy(key + 24, &color, sizeof color);
    m.clique = nccl_clique_of(N, key, NULL);
    nccl_add_comm(N, &m);
}

static int split(cs_call_t *c, const crt_fn_t *f, int ix, cs_nccl_t *N, nccl_comm_t *m) {
    if (!m) return nccl_refuse(c, "ncclInvalidArgument", "comm is NULL: %s needs the parent communicator", c->name);
    int out = nccl_param(f, "newcomm");
    int r = check_out(c, out, 1);
    if (r) return r;
    int color = nccl_param(f, "color") >= 0 ? (int)ival_named(c, f, "color", 0) : INT_MIN;
    if (!N->depth) {
        if (m->nranks > 1)
            return nccl_refuse(c, "ncclInvalidUsage", "%s is a collective over the %d ranks of the parent communicator, "
                               "and in one session they are all here: call it for every rank's communicator between "
                               "ncclGroupStart() and ncclGroupEnd()", c->name, m->nranks);
        if ((r = nccl_forward(c, ix))) return r;
        uint64_t v = read_out(c, out, 0);
        if (v) nccl_add_split(c, N, v, m, color);
        return 0;
    }
    nccl_op_t op = {.ix = ix, .kind = NK_SPLIT, .dev = gpu_client_get_device(c->cs->gc), .comm = m->value, .peer = -1,
                    .color = color, .out = out};
    return nccl_group_keep(c, N, &op);
}

static int destroy(cs_call_t *c, int ix, cs_nccl_t *N, nccl_comm_t *m) {
    for (int k = 0; m && k < N->nops; k++)
        if (N->ops[k].comm == m->value)
            return nccl_refuse(c, "ncclInvalidUsage", "the open group has calls on this communicator: end the group "
                               "(ncclGroupEnd) before destroying it");
    uint64_t v = m ? m->value : 0;
    int r = nccl_forward(c, ix);
    if (!r && v && (m = nccl_comm(N, v))) *m = N->comms[--N->ncomms];
    return r;
}

static int call(cs_call_t *c, const crt_fn_t *f, int ix, cs_nccl_t *N, int kind);

int cs_nccl_call(cs_call_t *c, const crt_fn_t *f, int ix, cs_libs_t *L) {
    cs_nccl_t *N = state(L);
    int kind = nccl_kind(c->name);
    if (kind == NK_GROUP_START) return nccl_group_start(c, N);
    if (kind == NK_GROUP_END) return nccl_group_end(c, N);
    int depth = N->depth;
    int r = call(c, f, ix, N, kind);
    if (r && depth && c->hard && c->lib_status) {
        /* a group with a refused call could not complete: it goes whole,
         * so that the cell can be run again from its ncclGroupStart */
        nccl_group_drop(N);
        size_t k = strlen(c->msg);
        snprintf(c->msg + k, c->ml - k, "; the open group was dropped (nothing of it reached NCCL): start it again "
                 "with ncclGroupStart");
    }
    return r;
}

static int call(cs_call_t *c, const crt_fn_t *f, int ix, cs_nccl_t *N, int kind) {
    if (!strcmp(c->name, "ncclGroupSimulateEnd"))
        return nccl_refuse(c, "ncclInvalidUsage", "icuda keeps a group's calls and sends them to NCCL at its "
                           "ncclGroupEnd, so a group cannot be simulated");
    /* what can be checked without the GPU comes first (a worker's absence
     * is the forwarded call's error) */
    nccl_comm_t *m;
    int r = check_comms(c, f, N, &m);
    if (r) return r;
    switch (kind) {
    case NK_COLL:
    case NK_SEND:
    case NK_RECV: return collective(c, f, ix, N, kind, m);
    case NK_INIT: return init_rank(c, f, ix, N);
    case NK_INIT_ALL: return init_all(c, f, ix, N);
    case NK_SPLIT: return split(c, f, ix, N, m);
    case NK_DESTROY: return destroy(c, ix, N, m);
    }
    if (!strcmp(c->name, "ncclMemFree") && c->n == 1 &&
        (c->a[0].place == INTERP_PLACE_DEVICE || c->a[0].place == INTERP_PLACE_MANAGED))
        return nccl_refuse(c, "ncclInvalidUsage", "%s is memory from cudaMalloc: free it with cudaFree (ncclMemFree "
                           "frees what ncclMemAlloc made)", call_arg_name(&c->a[0]));
    return nccl_forward(c, ix);
}
