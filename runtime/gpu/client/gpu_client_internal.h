/* gpu_client's own state, shared by its two files (gpu_client.c: the
 * worker, commands, modules, launches, events, streams, restarts;
 * gpu_memory.c: device memory, its address table and the copies). Nothing
 * outside runtime/gpu includes this. */
#ifndef ICUDA_GPU_CLIENT_INTERNAL_H
#define ICUDA_GPU_CLIENT_INTERNAL_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "gpu_client.h"

#include "runtime/base/vec.h"
#define BUF_ALIGN 256u /* as cudaMalloc aligns */
#define MAX_DEV 64

enum { SH_NONE, SH_HOST, SH_FILL };
enum { B_ALLOC, B_GLOBAL };

typedef struct buf {
    CUdeviceptr va;   /* the real device address */
    size_t size;
    int dev, kind;
    gpu_handle_t mod; /* globals */
    char *name;       /* globals */
    int shadow, fill;
    bool bound;       /* the host shadow is managed memory's host copy: kept whatever runs */
    const void *host;
} buf_t;

/* A mapped piece of the device range: a whole large allocation, or a pool
 * that small allocations share (cudaMalloc of a few bytes must not cost a
 * mapping's granularity each). */
typedef struct chunk {
    CUdeviceptr va;
    size_t size;
    int dev;
    bool pool;
    bool fenced;     /* a small buffer given a mapping of its own (gpu_client_malloc) */
} chunk_t;

typedef struct module {
    void *image;
    size_t n;
    uint64_t h;
    int dev;
    bool live;
} module_t;

typedef struct func {
    gpu_handle_t mod;
    char *name;
    uint64_t h;
    gpu_func_attrs_t a;
    bool live;
    uint32_t set_mask;       /* attributes set with cudaFuncSetAttribute (bit per CU_FUNC_ATTRIBUTE_*), */
    int32_t set_value[16];   /* ... their values, applied again after a restart */
    int cache_config;        /* cudaFuncSetCacheConfig's, -1: never set */
} func_t;

typedef struct obj { /* events and streams */
    uint64_t h;
    unsigned flags;
    int dev;
    bool live;
    int priority;    /* streams: cudaStreamCreateWithPriority's */
} obj_t;

typedef struct pin {
    void *p;
    size_t n;
    unsigned flags;
} pin_t;


struct gpu_client {
    gpu_client_config_t cfg;
    char worker_path[PATH_MAX + 32];
    _Atomic pid_t pid;
    atomic_int killed_for_interrupt;
    int sock, out[2];
    gpu_state_t state;
    gpu_fault_t fault;
    int ndev, drv_version, dev;
    gpu_props_t props[MAX_DEV];
    bool props_ok[MAX_DEV];
    uint32_t seq;
    int async_err, async_op;
    uint32_t async_seq;
    gpu_handle_t last_fn;
    bool restarting;      /* interrupts are not polled while the worker is replaced */
    int nfenced;          /* small buffers with a mapping of their own */
    uint64_t va_next;     /* offset in the device range of the next fresh chunk */
    size_t gran;          /* mapping granularity (from hello) */
    bool va_ok;           /* the worker reserved the range */
    bool arena_shared;    /* the worker mapped the arena at this process's address */
    uint64_t peers_of[MAX_DEV]; /* bit a of peers_of[d]: device a may access device d's memory (peer access) */
    uint64_t used_devs;         /* bit d: a command ran on device d (gpu_client_sync_all waits for each) */
    int va_error;         /* ... or why not */
    VEC(chunk_t) chunks;  /* sorted by va */
    VEC(buf_t) bufs; /* sorted by va */
    VEC(module_t) mods;
    VEC(func_t) fns;
    VEC(obj_t) evs;
    VEC(obj_t) sts;
    VEC(pin_t) pins;
    char **wrapper;   /* gpu_client_set_wrapper: argv put in front of the worker's */
    bool pgroup;      /* the worker runs wrapped, in a process group of its own */
    _Alignas(16) unsigned char tx[CH_MAX_RECORD];
    _Alignas(16) unsigned char rx[CH_MAX_RECORD];
};


/* commands (gpu_client.c) */
double gc_now_ms(void);
/* The command record being built (in c->tx), for op on device dev (-1: current). */
ch_cmd_t *gc_cmd(gpu_client_t *c, uint16_t op, bool async, int dev);
/* Sends c->tx (len bytes); for a synchronous command waits for the answer
 * (then in c->rx, *rep). The command's CUresult or the worker's end. */
int gc_send(gpu_client_t *c, size_t len, ch_reply_t **rep);

/* device memory (gpu_memory.c) */
/* The buffer holding [p, p+n) (n = 0: p may be its end), or NULL. */
buf_t *gc_find_buf(const gpu_client_t *c, CUdeviceptr p, size_t n);
int gc_buf_insert(gpu_client_t *c, const buf_t *b);
/* Backs [va, va+size) with memory of device dev (CH_MAP). */
int gc_raw_map(gpu_client_t *c, int dev, CUdeviceptr va, size_t size);
/* A kernel may have written the buffer: its shadow is gone (unless bound). */
void gc_touch(buf_t *b);
int gc_raw_register(gpu_client_t *c, void *p, size_t n, unsigned flags, CUdeviceptr *dptr);
uint64_t gc_stream_h(const gpu_client_t *c, gpu_handle_t s);
/* Device a's access to [va, va+size) (CH_ACCESS). */
int gc_access(gpu_client_t *c, CUdeviceptr va, size_t size, int a, bool on);
/* After a restart re-made function f: what cudaFuncSetAttribute and
 * cudaFuncSetCacheConfig set, again (gpu_cudart.c). */
int gc_func_reapply(gpu_client_t *c, func_t *f, int dev);

#endif
