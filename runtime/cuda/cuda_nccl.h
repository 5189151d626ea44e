/* NCCL from host cells (cuda_nccl.c: communicators and each call's checks;
 * cuda_nccl_group.c: ncclGroupStart/ncclGroupEnd). What the two share.
 *
 * One session holds every rank of the communicators it makes (one GPU
 * worker, one thread), so a call NCCL would have wait for other ranks
 * (ncclCommInitRank of one rank of several, a collective on one rank's
 * communicator) can only complete inside a group that has the other
 * ranks' calls too: outside a group such a call is refused, and a group is
 * sent to NCCL at its ncclGroupEnd, after icuda has checked that every
 * rank is there and that the calls match (a group NCCL would wait on
 * forever is an error, and nothing of it reaches NCCL). */
#ifndef ICUDA_CUDA_NCCL_H
#define ICUDA_CUDA_NCCL_H

#include "cuda_libs.h"

#define NCCL_ID_BYTES 128 /* sizeof(ncclUniqueId) */
#define NCCL_MAX_ARGS 8   /* the most a grouped function takes (ncclReduce) */

/* What a function of nccl.h does, for icuda's checks. */
enum {
    NK_OTHER,  /* forwarded as it is (ncclGetVersion, ncclCommCount, ...) */
    NK_COLL,   /* a collective: every rank of the communicator calls it alike */
    NK_SEND,
    NK_RECV,
    NK_INIT,   /* ncclCommInitRank, ...Config, ...Scalable: one rank of a new communicator */
    NK_SPLIT,  /* ncclCommSplit, ncclCommShrink: a collective that makes a communicator */
    NK_INIT_ALL,
    NK_DESTROY, /* ncclCommDestroy, ncclCommAbort */
    NK_GROUP_START,
    NK_GROUP_END,
};

/* A communicator this session made. */
typedef struct {
    uint64_t value;     /* the worker's ncclComm_t */
    unsigned restarts;  /* the session's restart count when it was made */
    int dev, rank;
    int nranks;         /* 0: not known */
    int clique;         /* the communicators of one NCCL communicator (its ranks) share it */
} nccl_comm_t;

/* A call of an open group, kept until ncclGroupEnd sends the group. */
typedef struct {
    int ix;             /* in clib_fns */
    int kind;           /* NK_* */
    int dev;            /* the current device when it was called */
    uint64_t comm;      /* the communicator it runs on (the parent of a split) */
    int peer;           /* send, recv: the other rank; rooted collectives: the root; -1 */
    uint64_t count;
    long long dtype, redop;
    int rank, nranks, color; /* inits: the new rank; splits: the color */
    unsigned char id[NCCL_ID_BYTES]; /* inits: the ncclUniqueId */
    int out;            /* inits, splits: the argument the new ncclComm_t is written through */
    int n;
    interp_arg_t a[NCCL_MAX_ARGS]; /* the arguments, copied (their strings and struct bytes owned) */
} nccl_op_t;

typedef struct {
    unsigned char id[NCCL_ID_BYTES];
    int clique;
} nccl_id_t;

typedef struct cs_nccl {
    nccl_comm_t *comms;
    int ncomms, capcomms;
    nccl_op_t *ops;     /* the open group's calls */
    int nops, capops;
    int depth;          /* ncclGroupStart nesting */
    nccl_id_t *ids;     /* ids (and splits) that made communicators, with their cliques */
    int nids, capids;
    int next_clique;
} cs_nccl_t;

/* The function's kind (NK_*), by name. */
int nccl_kind(const char *name);
/* Argument index of the parameter called name, or -1. */
int nccl_param(const crt_fn_t *f, const char *name);
/* Bytes of an element of ncclDataType_t t, 0 when t is none. */
unsigned nccl_dtype_size(long long t);
const char *nccl_dtype_name(long long t); /* "ncclFloat32" */
nccl_comm_t *nccl_comm(cs_nccl_t *N, uint64_t value);
/* The live communicator of clique at rank, or NULL. */
nccl_comm_t *nccl_comm_at(cs_nccl_t *N, int clique, int rank);
/* The clique of an id (made: its communicators were made already), new or known. */
int nccl_clique_of(cs_nccl_t *N, const unsigned char *id, bool *made);
void nccl_add_comm(cs_nccl_t *N, const nccl_comm_t *m);

/* Refuses the call with NCCL's status (ncclInvalidArgument, ncclInvalidUsage). */
int nccl_refuse(cs_call_t *c, const char *status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Forwards one call (clib_fns[ix]) with these arguments to the worker. */
int nccl_forward(cs_call_t *c, int ix);

/* ncclGroupStart, a call of an open group (kept), ncclGroupEnd (the group
 * checked and sent) (cuda_nccl_group.c). */
int nccl_group_start(cs_call_t *c, cs_nccl_t *N);
int nccl_group_keep(cs_call_t *c, cs_nccl_t *N, const nccl_op_t *op);
int nccl_group_end(cs_call_t *c, cs_nccl_t *N);
void nccl_ops_clear(cs_nccl_t *N);
/* The open group forgotten, whole (nothing of it reached NCCL). */
void nccl_group_drop(cs_nccl_t *N);
/* The open group's calls against each other (every rank there, calls that
 * match); a refusal drops the group. */
int nccl_group_check(cs_call_t *c, cs_nccl_t *N);
/* A communicator a split made (value, made on dev): its rank, size and
 * device asked of NCCL, its clique the parent's with that color. */
void nccl_add_split(cs_call_t *c, cs_nccl_t *N, uint64_t value, const nccl_comm_t *parent, int color);

#endif
