/* CUPTI's activity API in the GPU worker, for %profile (worker_profile.h).
 *
 * libcupti is loaded with dlopen on the first %profile (from the toolkit
 * icuda was built with, then the default search path), so a worker without
 * it still runs everything else and %profile says what is missing. CUPTI is
 * attached only while a profile runs: CH_PROFILE_START registers the buffer
 * callbacks and enables the kernel, memcpy and memset kinds; CH_PROFILE_STOP
 * synchronises every context, flushes, disables and detaches
 * (cuptiFinalize), so cells outside a profile pay nothing.
 *
 * Records are read with the structs of the CUPTI headers icuda is compiled
 * with (CUDA 13: CUpti_ActivityKernel10, CUpti_ActivityMemcpy6,
 * CUpti_ActivityMemset4); CUPTI hands out the newest version of each record,
 * and the fields read here sit in the part that newer versions keep. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "worker_profile.h"

#include "runtime/gpu/profile_wire.h"

#include <cupti_activity.h>
#include <cupti_result.h>
#include <cupti_version.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

#define CUPTI_FUNCS(X)                                                         \
    X(cuptiGetVersion) X(cuptiGetResultString) X(cuptiGetTimestamp)            \
    X(cuptiActivityRegisterCallbacks) X(cuptiActivityEnable)                   \
    X(cuptiActivityDisable) X(cuptiActivityFlushAll)                           \
    X(cuptiActivityGetNextRecord) X(cuptiActivityGetNumDroppedRecords)         \
    X(cuptiGetStreamIdEx) X(cuptiGetDeviceId) X(cuptiFinalize)

static struct {
#define CUPTI_FIELD(f) __typeof__(&f) f;
    CUPTI_FUNCS(CUPTI_FIELD)
#undef CUPTI_FIELD
    void *lib;
} cupti;

#define BUF_SIZE ((size_t)1 << 20) /* one CUPTI activity buffer */
#define NAME_CACHE 256

static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                           CUPTI_ACTIVITY_KIND_MEMSET};

/* The running profile. CUPTI may call buffer_done from a thread of its own,
 * so everything it touches is under mu. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static prof_blob_t *blob;
static int active;
static struct { const char *p; uint32_t off; } names[NAME_CACHE];
static int nnames;

static const char *result_text(CUptiResult r) {
    const char *s = NULL;
    if (cupti.cuptiGetResultString && cupti.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "unknown CUPTI error";
}

/* Loads libcupti once: 0, or -1 with msg saying what is missing. */
static int load(char *msg, size_t ml) {
    if (cupti.lib) return 0;
    const char *env = getenv("ICUDA_CUPTI");
    const char *tries[] = {ICUDA_CUDA_HOME "/lib64/libcupti.so.13",
                           ICUDA_CUDA_HOME "/extras/CUPTI/lib64/libcupti.so.13",
                           ICUDA_CUDA_HOME "/lib64/libcupti.so",
                           ICUDA_CUDA_HOME "/extras/CUPTI/lib64/libcupti.so",
                           "libcupti.so.13",
                           "libcupti.so"};
    int n = (int)(sizeof tries / sizeof *tries);
    void *h = NULL;
    const char *last = "";
    if (env && *env) { /* ICUDA_CUPTI names the one library to use */
        tries[0] = env;
        n = 1;
    }
    for (int i = 0; i < n && !h; i++) {
        h = dlopen(tries[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) last = dlerror();
    }
    if (!h) {
        snprintf(msg, ml, "CUPTI (libcupti.so.13), which %%profile needs, was not found: tried %s%s (%s)",
                 env && *env ? "ICUDA_CUPTI=" : ICUDA_CUDA_HOME "/lib64, " ICUDA_CUDA_HOME
                                                "/extras/CUPTI/lib64 and the library search path",
                 env && *env ? env : "", last ? last : "");
        return -1;
    }
#define CUPTI_SYM(f)                                                           \
    if (!(*(void **)&cupti.f = dlsym(h, #f))) {                                \
        snprintf(msg, ml, "the CUPTI library found is too old for %%profile: it lacks " #f); \
        dlclose(h);                                                            \
        memset(&cupti, 0, sizeof cupti);                                       \
        return -1;                                                             \
    }
    CUPTI_FUNCS(CUPTI_SYM)
#undef CUPTI_SYM
    cupti.lib = h;
    return 0;
}

/* Why CUPTI refused, in words a notebook user can act on. */
static void cupti_failed(const char *call, CUptiResult r, char *msg, size_t ml) {
    const char *hint = "";
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        hint = "; GPU profiling is restricted to administrators on this machine (the driver's "
               "NVreg_RestrictProfilingToAdminUsers)";
        break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        hint = "; another profiler or tool (nsys, ncu, compute-sanitizer) is attached to the GPU worker";
        break;
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        hint = "; this device or configuration does not support activity tracing";
        break;
    default:
        break;
    }
    snprintf(msg, ml, "CUPTI cannot trace GPU activity: %s failed with %s (CUPTI error %d)%s", call, result_text(r),
             (int)r, hint);
}

/* ---- records into the blob (under mu) ---- */

static uint32_t name_of(const char *p) {
    if (!p) p = "?";
    for (int i = 0; i < nnames; i++)
        if (names[i].p == p) return names[i].off;
    char *area = prof_names(blob);
    size_t n = strnlen(p, 4095);
    uint32_t off = UINT32_MAX;
    for (uint32_t o = 0; o < blob->names_len; o += (uint32_t)strlen(area + o) + 1) /* the same text elsewhere */
        if (strlen(area + o) == n && !memcmp(area + o, p, n)) {
            off = o;
            break;
        }
    if (off == UINT32_MAX && blob->names_len + n + 1 <= blob->names_cap) {
        off = blob->names_len;
        memcpy(area + off, p, n);
        area[off + n] = 0;
        blob->names_len += (uint32_t)n + 1;
    }
    if (off != UINT32_MAX && nnames < NAME_CACHE) {
        names[nnames].p = p;
        names[nnames++].off = off;
    }
    return off;
}

static uint8_t copy_dir(uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return PROF_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return PROF_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return PROF_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return PROF_HTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return PROF_PTOP;
    default: return PROF_COPY_OTHER;
    }
}

/* The fields read below sit where they have since CUpti_ActivityKernel4,
 * Memcpy4 and Memset3, so a CUPTI newer than these headers reads the same. */
_Static_assert(offsetof(CUpti_ActivityKernel10, start) == 16 && offsetof(CUpti_ActivityKernel10, deviceId) == 40 &&
                   offsetof(CUpti_ActivityKernel10, gridX) == 52 && offsetof(CUpti_ActivityKernel10, name) == 104,
               "CUPTI kernel record layout");
_Static_assert(offsetof(CUpti_ActivityMemcpy6, bytes) == 8 && offsetof(CUpti_ActivityMemcpy6, correlationId) == 44,
               "CUPTI memcpy record layout");
_Static_assert(offsetof(CUpti_ActivityMemset4, bytes) == 8 && offsetof(CUpti_ActivityMemset4, correlationId) == 44,
               "CUPTI memset record layout");

static void take(const CUpti_Activity *a) {
    if (a->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && a->kind != CUPTI_ACTIVITY_KIND_KERNEL &&
        a->kind != CUPTI_ACTIVITY_KIND_MEMCPY && a->kind != CUPTI_ACTIVITY_KIND_MEMSET)
        return;
    if (blob->n >= blob->cap) {
        blob->left_out++;
        return;
    }
    prof_record_t *r = &prof_records(blob)[blob->n];
    memset(r, 0, sizeof *r);
    r->name = UINT32_MAX;
    if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
        r->kind = PROF_COPY;
        r->copy = copy_dir(m->copyKind);
        r->bytes = m->bytes;
        r->start = m->start;
        r->end = m->end;
        r->device = m->deviceId;
        r->stream = m->streamId;
        r->correlation = m->correlationId;
    } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)a;
        r->kind = PROF_MEMSET;
        r->value = m->value;
        r->bytes = m->bytes;
        r->start = m->start;
        r->end = m->end;
        r->device = m->deviceId;
        r->stream = m->streamId;
        r->correlation = m->correlationId;
    } else {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)a;
        r->kind = PROF_KERNEL;
        r->start = k->start;
        r->end = k->end;
        r->device = k->deviceId;
        r->stream = k->streamId;
        r->correlation = k->correlationId;
        r->grid[0] = k->gridX;
        r->grid[1] = k->gridY;
        r->grid[2] = k->gridZ;
        r->block[0] = k->blockX;
        r->block[1] = k->blockY;
        r->block[2] = k->blockZ;
        r->registers = k->registersPerThread;
        r->static_shared = k->staticSharedMemory;
        r->dynamic_shared = k->dynamicSharedMemory;
        r->name = name_of(k->name);
    }
    blob->n++;
}

static void CUPTIAPI buffer_wanted(uint8_t **buffer, size_t *size, size_t *max_records) {
    void *p = NULL;
    if (posix_memalign(&p, ACTIVITY_RECORD_ALIGNMENT, BUF_SIZE)) p = NULL;
    *buffer = p;
    *size = p ? BUF_SIZE : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_done(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    (void)ctx;
    (void)stream;
    (void)size;
    pthread_mutex_lock(&mu);
    CUpti_Activity *a = NULL;
    while (blob && valid && cupti.cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) take(a);
    pthread_mutex_unlock(&mu);
    free(buffer);
}

/* ---- start and stop ---- */

static CUptiResult detach(void) {
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) cupti.cuptiActivityDisable(kinds[i]);
    return cupti.cuptiFinalize();
}

static int start(CUcontext *ctxs, int nctx, void *mem, size_t size, uint64_t v[4], char *msg, size_t ml) {
    if (load(msg, ml)) return CUDA_ERROR_NOT_FOUND;
    prof_blob_t *b = mem;
    if (!b || size < sizeof *b || b->magic != PROF_MAGIC || prof_blob_size(b->cap, b->names_cap) > size) {
        snprintf(msg, ml, "the profile's record buffer is not a valid arena range");
        return CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_lock(&mu);
    b->n = 0;
    b->left_out = b->dropped = 0;
    b->names_len = 0;
    b->ndefault = 0;
    blob = b;
    nnames = 0;
    pthread_mutex_unlock(&mu);
    const char *call = "cuptiActivityRegisterCallbacks";
    CUptiResult r = cupti.cuptiActivityRegisterCallbacks(buffer_wanted, buffer_done);
    size_t enabled = 0;
    for (; !r && enabled < sizeof kinds / sizeof *kinds; enabled++) {
        call = "cuptiActivityEnable";
        r = cupti.cuptiActivityEnable(kinds[enabled]);
        if (r) break;
    }
    if (r) {
        cupti_failed(call, r, msg, ml);
        for (size_t i = 0; i < enabled; i++) cupti.cuptiActivityDisable(kinds[i]);
        cupti.cuptiFinalize();
        pthread_mutex_lock(&mu);
        blob = NULL;
        pthread_mutex_unlock(&mu);
        v[1] = (uint64_t)r;
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    /* each device's NULL stream, so the report can name it */
    for (int d = 0; d < nctx && b->ndefault < PROF_MAX_DEVICES; d++) {
        uint32_t dev = 0, sid = 0;
        if (!ctxs[d] || cupti.cuptiGetDeviceId(ctxs[d], &dev) || cupti.cuptiGetStreamIdEx(ctxs[d], NULL, 0, &sid)) continue;
        b->default_stream[b->ndefault].device = dev;
        b->default_stream[b->ndefault++].stream = sid;
    }
    uint32_t ver = 0;
    cupti.cuptiGetVersion(&ver);
    b->cupti_version = ver;
    cupti.cuptiGetTimestamp(&b->t_start);
    active = 1;
    v[0] = ver;
    return CUDA_SUCCESS;
}

static int stop(const cuda_driver_t *D, CUcontext *ctxs, int nctx, int cur, uint64_t v[4], char *msg, size_t ml) {
    if (!active) {
        snprintf(msg, ml, "no profile is running in this GPU worker");
        return CUDA_ERROR_INVALID_HANDLE;
    }
    /* every context's work done, so every record is complete */
    CUresult first = CUDA_SUCCESS;
    for (int d = 0; d < nctx; d++) {
        if (!ctxs[d] || D->cuCtxSetCurrent(ctxs[d])) continue;
        CUresult r = D->cuCtxSynchronize();
        if (r && !first) first = r;
    }
    if (cur >= 0 && cur < nctx && ctxs[cur]) D->cuCtxSetCurrent(ctxs[cur]);
    if (cuda_result_is_sticky(first)) alarm(2); /* the process ends after this answer: never hang here */
    cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t dropped = 0;
    cupti.cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
    pthread_mutex_lock(&mu);
    blob->dropped += dropped;
    cupti.cuptiGetTimestamp(&blob->t_stop);
    pthread_mutex_unlock(&mu);
    CUptiResult fin = cuda_result_is_sticky(first) ? CUPTI_ERROR_UNKNOWN : detach();
    pthread_mutex_lock(&mu);
    v[0] = blob->n;
    v[1] = blob->left_out;
    v[2] = blob->dropped;
    v[3] = fin == CUPTI_SUCCESS; /* detached: later commands run without CUPTI */
    blob = NULL;
    active = 0;
    pthread_mutex_unlock(&mu);
    (void)msg;
    (void)ml;
    return first;
}

int worker_profile_serve(const ch_cmd_t *c, const cuda_driver_t *D, CUcontext *ctxs, int nctx, int cur,
                         void *mem, size_t size, uint64_t v[4], char *msg, size_t ml) {
    msg[0] = 0;
    if (c->op == CH_PROFILE_START) {
        if (active) { /* the running one keeps its records */
            snprintf(msg, ml, "a profile is already running: %%profile cannot be nested");
            return CUDA_ERROR_NOT_PERMITTED;
        }
        return start(ctxs, nctx, mem, size, v, msg, ml);
    }
    return stop(D, ctxs, nctx, cur, v, msg, ml);
}

void worker_profile_abort(void) {
    if (!active) return;
    alarm(2);
    cupti.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}
