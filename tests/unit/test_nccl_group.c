/* The rules an NCCL group of one session must meet at ncclGroupEnd
 * (runtime/cuda/cuda_nccl_group.c), without a GPU: groups built by hand
 * from communicators and kept calls, as the session keeps them, and the
 * check that decides whether NCCL gets the group or it is dropped with a
 * message that says what would have waited forever. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/cuda/cuda_nccl.h"

static char msg[1200];

static cs_call_t call(void) {
    cs_call_t c = {NULL, "ncclGroupEnd", NULL, 0, msg, sizeof msg, false, 0};
    msg[0] = 0;
    return c;
}

/* Two communicators of one clique (ranks 0 and 1 on devices 0 and 1) and
 * one of a clique of its own. */
static void comms(cs_nccl_t *N) {
    memset(N, 0, sizeof *N);
    nccl_comm_t a = {0x1000, 0, 0, 0, 2, 7}, b = {0x2000, 0, 1, 1, 2, 7}, solo = {0x3000, 0, 0, 0, 1, 8};
    nccl_add_comm(N, &a);
    nccl_add_comm(N, &b);
    nccl_add_comm(N, &solo);
    N->depth = 1;
}

static nccl_op_t coll(const char *name, uint64_t comm, uint64_t count, long long dtype, int root) {
    nccl_op_t o = {.ix = clib_find(name), .kind = NK_COLL, .comm = comm, .peer = root, .count = count,
                   .dtype = dtype, .redop = 0, .out = -1};
    return o;
}

static nccl_op_t p2p(int kind, uint64_t comm, int peer, uint64_t count) {
    nccl_op_t o = {.ix = clib_find(kind == NK_SEND ? "ncclSend" : "ncclRecv"), .kind = kind, .comm = comm,
                   .peer = peer, .count = count, .dtype = 7, .out = -1};
    return o;
}

static nccl_op_t init(int rank, int nranks, int dev, unsigned char idbyte) {
    nccl_op_t o = {.ix = clib_find("ncclCommInitRank"), .kind = NK_INIT, .dev = dev, .peer = -1, .rank = rank,
                   .nranks = nranks, .out = 0};
    memset(o.id, idbyte, sizeof o.id);
    return o;
}

static void keep(cs_nccl_t *N, nccl_op_t o) {
    cs_call_t c = call();
    CHECK(nccl_group_keep(&c, N, &o) == 0);
}

/* The check's verdict: 0 (NCCL gets the group) or the refusal, msg set. */
static int check(cs_nccl_t *N) {
    cs_call_t c = call();
    int r = nccl_group_check(&c, N);
    if (r) CHECK(c.lib_status == 5 /* ncclInvalidUsage */ && c.hard);
    if (r && getenv("SHOW")) fprintf(stderr, "%s\n", msg);
    return r;
}

static void done(cs_nccl_t *N) {
    nccl_ops_clear(N);
    free(N->ops);
    free(N->comms);
    free(N->ids);
}

static void collectives(void) {
    cs_nccl_t N;
    /* both ranks all-reduce alike: sent */
    comms(&N);
    keep(&N, coll("ncclAllReduce", 0x1000, 1024, 7, -1));
    keep(&N, coll("ncclAllReduce", 0x2000, 1024, 7, -1));
    CHECK(check(&N) == 0);
    done(&N);
    /* rank 1 missing: dropped, saying whom NCCL would wait for */
    comms(&N);
    keep(&N, coll("ncclAllReduce", 0x1000, 1024, 7, -1));
    CHECK(check(&N) != 0);
    CHECK(strstr(msg, "nothing on rank 1's") && strstr(msg, "wait for rank 1 forever"));
    CHECK(strstr(msg, "nothing of the group reached NCCL"));
    CHECK(N.nops == 0); /* dropped */
    done(&N);
    /* counts differ */
    comms(&N);
    keep(&N, coll("ncclAllReduce", 0x1000, 1024, 7, -1));
    keep(&N, coll("ncclAllReduce", 0x2000, 512, 7, -1));
    CHECK(check(&N) != 0);
    CHECK(strstr(msg, "ncclAllReduce(count 1024, ncclFloat32, op 0)") && strstr(msg, "count 512") &&
          strstr(msg, "same call"));
    done(&N);
    /* two collectives, in the same order on both ranks: sent; in other orders: refused */
    comms(&N);
    keep(&N, coll("ncclAllReduce", 0x1000, 16, 7, -1));
    keep(&N, coll("ncclBroadcast", 0x1000, 16, 7, 0));
    keep(&N, coll("ncclAllReduce", 0x2000, 16, 7, -1));
    keep(&N, coll("ncclBroadcast", 0x2000, 16, 7, 0));
    CHECK(check(&N) == 0);
    done(&N);
    comms(&N);
    keep(&N, coll("ncclAllReduce", 0x1000, 16, 7, -1));
    keep(&N, coll("ncclBroadcast", 0x1000, 16, 7, 0));
    keep(&N, coll("ncclBroadcast", 0x2000, 16, 7, 0));
    keep(&N, coll("ncclAllReduce", 0x2000, 16, 7, -1));
    CHECK(check(&N) != 0 && strstr(msg, "1st collective"));
    done(&N);
    /* roots differ */
    comms(&N);
    keep(&N, coll("ncclBroadcast", 0x1000, 16, 7, 0));
    keep(&N, coll("ncclBroadcast", 0x2000, 16, 7, 1));
    CHECK(check(&N) != 0 && strstr(msg, "root 0") && strstr(msg, "root 1"));
    done(&N);
    /* one rank has an extra collective */
    comms(&N);
    keep(&N, coll("ncclAllReduce", 0x1000, 16, 7, -1));
    keep(&N, coll("ncclAllReduce", 0x2000, 16, 7, -1));
    keep(&N, coll("ncclAllGather", 0x2000, 16, 7, -1));
    CHECK(check(&N) != 0 && strstr(msg, "rank 1's communicator has ncclAllGather"));
    done(&N);
    /* a communicator of one rank needs nobody */
    comms(&N);
    keep(&N, coll("ncclAllReduce", 0x3000, 16, 7, -1));
    CHECK(check(&N) == 0);
    done(&N);
}

static void sends(void) {
    cs_nccl_t N;
    /* a halo exchange: each rank sends to and receives from the other */
    comms(&N);
    keep(&N, p2p(NK_SEND, 0x1000, 1, 64));
    keep(&N, p2p(NK_RECV, 0x1000, 1, 64));
    keep(&N, p2p(NK_SEND, 0x2000, 0, 64));
    keep(&N, p2p(NK_RECV, 0x2000, 0, 64));
    CHECK(check(&N) == 0);
    done(&N);
    /* a send with no receive */
    comms(&N);
    keep(&N, p2p(NK_SEND, 0x1000, 1, 64));
    CHECK(check(&N) != 0 && strstr(msg, "rank 0 sends 64 elements to rank 1") && strstr(msg, "no ncclRecv"));
    done(&N);
    /* a receive with no send */
    comms(&N);
    keep(&N, p2p(NK_RECV, 0x2000, 0, 64));
    CHECK(check(&N) != 0 && strstr(msg, "rank 1 receives 64 elements from rank 0") && strstr(msg, "no ncclSend"));
    done(&N);
    /* counts that differ */
    comms(&N);
    keep(&N, p2p(NK_SEND, 0x1000, 1, 64));
    keep(&N, p2p(NK_RECV, 0x2000, 0, 32));
    CHECK(check(&N) != 0 && strstr(msg, "must agree"));
    done(&N);
    /* to itself */
    comms(&N);
    keep(&N, p2p(NK_SEND, 0x3000, 0, 8));
    keep(&N, p2p(NK_RECV, 0x3000, 0, 8));
    CHECK(check(&N) == 0);
    done(&N);
}

static void inits(void) {
    cs_nccl_t N;
    memset(&N, 0, sizeof N);
    N.depth = 1;
    keep(&N, init(0, 2, 0, 0xab));
    keep(&N, init(1, 2, 1, 0xab));
    CHECK(check(&N) == 0);
    done(&N);
    memset(&N, 0, sizeof N);
    N.depth = 1;
    keep(&N, init(0, 3, 0, 0xab));
    keep(&N, init(2, 3, 1, 0xab));
    CHECK(check(&N) != 0 && strstr(msg, "3 ranks") && strstr(msg, "rank 1:") && strstr(msg, "wait for it forever"));
    done(&N);
    memset(&N, 0, sizeof N);
    N.depth = 1;
    keep(&N, init(0, 2, 0, 0xab));
    keep(&N, init(1, 3, 1, 0xab));
    CHECK(check(&N) != 0 && strstr(msg, "disagree on nranks"));
    done(&N);
    /* two ids, two communicators: each complete */
    memset(&N, 0, sizeof N);
    N.depth = 1;
    keep(&N, init(0, 1, 0, 0x01));
    keep(&N, init(0, 1, 1, 0x02));
    CHECK(check(&N) == 0);
    done(&N);
}

static void cliques(void) {
    cs_nccl_t N;
    memset(&N, 0, sizeof N);
    unsigned char a[NCCL_ID_BYTES], b[NCCL_ID_BYTES];
    memset(a, 1, sizeof a);
    memset(b, 2, sizeof b);
    bool made = true;
    int ca = nccl_clique_of(&N, a, &made);
    CHECK(!made);
    int cb = nccl_clique_of(&N, b, &made);
    CHECK(!made && ca != cb);
    CHECK(nccl_clique_of(&N, a, &made) == ca && made);
    CHECK(nccl_dtype_size(7) == 4 && nccl_dtype_size(8) == 8 && nccl_dtype_size(6) == 2 && nccl_dtype_size(0) == 1);
    CHECK(nccl_dtype_size(99) == 0);
    CHECK(nccl_kind("ncclAllReduce") == NK_COLL && nccl_kind("ncclSend") == NK_SEND &&
          nccl_kind("ncclCommInitRank") == NK_INIT && nccl_kind("ncclGetVersion") == NK_OTHER);
    done(&N);
}

int main(void) {
    if (clib_find("ncclAllReduce") < 0) {
        CHECK_SKIP(1, "icuda was built without nccl.h");
        return check_report();
    }
    collectives();
    sends();
    inits();
    cliques();
    return check_report();
}
