/* %memcheck's worker switch (cuda_memcheck.h), through the public
 * gpu_client API: snapshot buffers, restart under a wrapper, count the
 * statement's launches, restart plain, give the buffers their shadows back,
 * collect the sanitizer's log files. */
#include "runtime/cuda/cuda_memcheck.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cuda_internal.h"
#include "runtime/program/cuda_tools.h"
#include "runtime/hostmem/arena.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
/* A buffer's contents kept in the arena across a switch, and the shadow
 * (what the session knew of its contents) to give back afterwards. */
typedef struct {
    CUdeviceptr base;
    size_t size;
    void *copy;
    const void *host;
    int fill;
    bool bound; /* the shadow was managed memory's host copy */
} snap_t;

struct cuda_memcheck {
    cuda_session_t *cs;
    char tool[16];
    char dir[256];      /* the sanitizer's log files */
    snap_t *snap;       /* before the statement */
    int nsnap;
    int pid;            /* the sanitized worker (its wrapper's pid) */
    int launches;
    cuda_memcheck_kernel_t *kernels;
    int nkernels;
    double ms;
};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

char *cuda_sanitizer_find(char *where, size_t where_cap) { return cuda_tool_find("compute-sanitizer", where, where_cap); }

static void snaps_free(snap_t *s, int n) {
    for (int i = 0; i < n; i++)
        if (s[i].copy) arena_free(s[i].copy);
    free(s);
}

static const snap_t *snap_of(const snap_t *s, int n, const void *copy) {
    for (int i = 0; copy && i < n; i++)
        if (s[i].copy == copy) return &s[i];
    return NULL;
}

static const snap_t *snap_at(const snap_t *s, int n, CUdeviceptr base) {
    for (int i = 0; i < n; i++)
        if (s[i].base == base) return &s[i];
    return NULL;
}

/* Reads every live buffer into the arena and makes the copy its shadow.
 * A shadow that is a copy of `older` stands for the shadow that copy
 * replaced. 0, or -1 with msg (then the shadows are as they were). */
static int snapshot(gpu_client_t *gc, const snap_t *older, int nolder, snap_t **out, int *nout, char *msg,
                    size_t ml) {
    int n = gpu_client_buffers(gc, NULL, 0);
    gpu_buffer_info_t *info = xcalloc((size_t)n + 1, sizeof *info);
    snap_t *s = xcalloc((size_t)n + 1, sizeof *s);
    n = gpu_client_buffers(gc, info, n);
    int k = 0, rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        snap_t *e = &s[k];
        e->base = info[i].base;
        e->size = info[i].size;
        e->host = info[i].shadow_host;
        e->fill = info[i].shadow_fill;
        e->bound = info[i].shadow_bound;
        const snap_t *o = snap_of(older, nolder, e->host);
        if (o) {
            e->host = o->host;
            e->fill = o->fill;
            e->bound = o->bound;
        }
        if (!e->size) continue;
        if (!(e->copy = arena_alloc(e->size))) {
            char b[32];
            snprintf(msg, ml, "not enough host memory to keep the device buffers across the switch of workers "
                     "(a buffer of %s)", cs_bytes(b, sizeof b, e->size));
            rc = -1;
            break;
        }
        int r = gpu_client_memcpy_dtoh(gc, e->copy, e->base, e->size, 0, false);
        k++;
        if (r) {
            snprintf(msg, ml, "reading the device buffers back failed: %s", gpu_client_error_name(r));
            rc = r >= 0x10000 ? -2 : -1; /* -2: the worker is gone */
        }
    }
    free(info);
    if (rc) {
        snaps_free(s, k);
        return rc;
    }
    for (int i = 0; i < k; i++) gpu_client_set_shadow(gc, s[i].base, s[i].copy, -1);
    *out = s;
    *nout = k;
    return 0;
}

/* After a restart: every buffer whose shadow is one of the copies gets the
 * shadow that copy stood for. */
static void settle(gpu_client_t *gc, const snap_t *a, int na, const snap_t *b, int nb) {
    int n = gpu_client_buffers(gc, NULL, 0);
    gpu_buffer_info_t *info = xcalloc((size_t)n + 1, sizeof *info);
    n = gpu_client_buffers(gc, info, n);
    for (int i = 0; i < n; i++) {
        const snap_t *s = snap_of(a, na, info[i].shadow_host);
        if (!s) s = snap_of(b, nb, info[i].shadow_host);
        if (s && s->bound) gpu_client_bind_shadow(gc, info[i].base, s->host);
        else if (s) gpu_client_set_shadow(gc, info[i].base, s->host, s->fill);
    }
    free(info);
}

/* After the sanitized worker died: buffers whose contents the restart did
 * not know (the statement's kernels were writing them) get their contents
 * from before the statement. Returns how many. */
static int roll_back(gpu_client_t *gc, const snap_t *s, int ns) {
    int n = gpu_client_buffers(gc, NULL, 0), done = 0;
    gpu_buffer_info_t *info = xcalloc((size_t)n + 1, sizeof *info);
    n = gpu_client_buffers(gc, info, n);
    for (int i = 0; i < n; i++) {
        if (info[i].shadow_host || info[i].shadow_fill >= 0) continue;
        const snap_t *e = snap_at(s, ns, info[i].base);
        if (!e || !e->copy || e->size != info[i].size) continue;
        if (gpu_client_memcpy_htod(gc, e->base, e->copy, e->size, 0, false) == 0) {
            if (e->bound) gpu_client_bind_shadow(gc, e->base, e->host);
            else gpu_client_set_shadow(gc, e->base, e->host, e->fill);
            done++;
        }
    }
    free(info);
    return done;
}

/* ---- the statement's launches ---- */

static void remember(cuda_memcheck_t *m, const char *name) {
    for (int i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].name, name)) return;
    cs_kernel_t *k;
    char ename[INTERP_ENAME_MAX], msg[512];
    if (cs_kernel_resolve(m->cs, name, &k, ename, msg, sizeof msg)) return;
    m->kernels = xrealloc(m->kernels, (size_t)(m->nkernels + 1) * sizeof *m->kernels);
    cuda_memcheck_kernel_t *e = &m->kernels[m->nkernels++];
    snprintf(e->name, sizeof e->name, "%s", name);
    snprintf(e->hex, sizeof e->hex, "%s", k->hex);
    snprintf(e->lowered, sizeof e->lowered, "%s", k->lowered ? k->lowered : "");
}

static int counting_launch(void *ctx, const char *kernel, const unsigned grid[3], const unsigned block[3],
                           uint64_t shmem, uint64_t stream, const interp_arg_t *args, int nargs, char *ename,
                           char *msg, size_t msglen) {
    cuda_memcheck_t *m = ctx;
    int r = cuda_launch(m->cs, kernel, grid, block, shmem, stream, args, nargs, ename, msg, msglen);
    if (r == 0) {
        m->launches++;
        remember(m, kernel);
    }
    return r;
}

static int passing_call(void *ctx, const char *name, const interp_arg_t *args, int nargs, int discarded,
                        int64_t *ret, char *ename, char *msg, size_t msglen) {
    cuda_memcheck_t *m = ctx;
    return cuda_api_call(m->cs, name, args, nargs, discarded, ret, ename, msg, msglen);
}

static int passing_fetch(void *ctx, uint64_t addr, void *host, uint64_t n, char *msg, size_t ml) {
    cuda_memcheck_t *m = ctx;
    return cs_managed_fetch(m->cs, addr, host, n, msg, ml);
}

static int passing_read(void *ctx, uint64_t addr, void *dst, uint64_t n) {
    cuda_memcheck_t *m = ctx;
    return cs_read_device(m->cs, addr, dst, n);
}

static void set_hooks(cuda_memcheck_t *m, bool counting) {
    interp_hooks_t h = {m->cs, cuda_launch, cuda_api_call, cs_managed_fetch, cs_read_device};
    if (counting) h = (interp_hooks_t){m, counting_launch, passing_call, passing_fetch, passing_read};
    interp_set_hooks(m->cs->interp, &h);
}

/* ---- the sanitizer's log files ---- */

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every file of the log folder, in name order, then the folder goes. */
static char *take_logs(const char *dir) {
    strbuf_t b = {0};
    DIR *d = opendir(dir);
    char **names = NULL;
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.') continue;
        names = xreallocarray(names, (size_t)n + 1, sizeof *names);
        names[n++] = xstrdup(de->d_name);
    }
    if (d) closedir(d);
    if (n) qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "r");
        if (f) {
            char buf[65536];
            size_t k;
            while ((k = fread(buf, 1, sizeof buf, f)) > 0 && b.len < ((size_t)32 << 20)) sb_append(&b, buf, k);
            fclose(f);
        }
        unlink(path);
        free(names[i]);
    }
    free(names);
    rmdir(dir);
    return sb_take(&b);
}

/* ---- the switch ---- */

int cuda_memcheck_begin(cuda_session_t *cs, const char *tool, cuda_memcheck_t **out, char *ename, char *msg,
                        size_t ml) {
    *out = NULL;
    ename[0] = 0;
    char why[600];
    int r = cs_ready(cs, why, sizeof why);
    if (r) {
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(r));
        snprintf(msg, ml, "%%memcheck runs the statement's GPU work under compute-sanitizer, and there is no GPU "
                 "here: %s", why);
        return -1;
    }
    char where[1024];
    char *path = cuda_sanitizer_find(where, sizeof where);
    if (!path) {
        snprintf(ename, INTERP_ENAME_MAX, "RuntimeError");
        snprintf(msg, ml, "%%memcheck needs compute-sanitizer from the CUDA toolkit, and it was not found (looked "
                 "in: %s); install it (Debian/Ubuntu: cuda-sanitizer-13-0), or set ICUDA_TOOLS_PATH to its "
                 "folder", where);
        return -1;
    }
    gpu_client_t *gc = cs->gc;
    /* what ran before is not the sanitizer's to report */
    r = gpu_client_sync(gc);
    if (r) {
        int code = cs_check(cs, r);
        snprintf(ename, INTERP_ENAME_MAX, "%s", cuda_error_name(code));
        snprintf(msg, ml, "the GPU had an error before %%memcheck started: %s. %s", cuda_error_string(code),
                 cs->recovery_note);
        free(path);
        return -1;
    }
    cuda_memcheck_t *m = xcalloc(1, sizeof *m);
    m->cs = cs;
    snprintf(m->tool, sizeof m->tool, "%s", tool);
    const char *tmp = getenv("TMPDIR");
    snprintf(m->dir, sizeof m->dir, "%s/icuda-memcheck-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(m->dir)) {
        snprintf(ename, INTERP_ENAME_MAX, "RuntimeError");
        snprintf(msg, ml, "cannot make a folder for compute-sanitizer's report: %s", strerror(errno));
        free(path);
        free(m);
        return -1;
    }
    double t0 = now_ms();
    int s = snapshot(gc, NULL, 0, &m->snap, &m->nsnap, msg, ml);
    if (s) {
        snprintf(ename, INTERP_ENAME_MAX, "RuntimeError");
        if (s == -2) cs_check(cs, GPU_ERR_WORKER_DIED);
        free(take_logs(m->dir));
        free(path);
        free(m);
        return -1;
    }
    char log[320];
    snprintf(log, sizeof log, "%s/sanitizer.%%p.log", m->dir);
    /* --destroy-on-device-error kernel: an error ends the kernel, not the
     * context, so the statement goes on and the worker stays usable;
     * device backtraces only (the host side is icuda-worker's own) */
    const char *argv[] = {path, "--tool", tool, "--log-file", log, "--print-limit", "1000", "--show-backtrace",
                          "device", "--destroy-on-device-error", "kernel", "--report-api-errors", "no", NULL};
    gpu_client_set_wrapper(gc, argv);
    free(path);
    gpu_restart_report_t rep = {0};
    r = gpu_client_restart(gc, &rep);
    gpu_client_set_wrapper(gc, NULL); /* a later restart (after a fault) is a plain worker */
    free(rep.lost_ptrs);
    if (r) {
        gpu_fault_t f;
        gpu_client_fault(gc, &f);
        char *text = take_logs(m->dir);
        snprintf(ename, INTERP_ENAME_MAX, r == GPU_ERR_INTERRUPTED ? "KeyboardInterrupt" : "RuntimeError");
        snprintf(msg, ml, "compute-sanitizer could not start the GPU worker (%s)%s%.600s", f.message,
                 *text ? "; it said:\n" : "", text);
        free(text);
        gpu_client_restart(gc, NULL);
        settle(gc, m->snap, m->nsnap, NULL, 0);
        snaps_free(m->snap, m->nsnap);
        free(m);
        return -1;
    }
    m->pid = gpu_client_pid(gc);
    m->ms = now_ms() - t0;
    set_hooks(m, true);
    *out = m;
    return 0;
}

void cuda_memcheck_end(cuda_memcheck_t *m, cuda_memcheck_result_t *res) {
    memset(res, 0, sizeof *res);
    cuda_session_t *cs = m->cs;
    gpu_client_t *gc = cs->gc;
    set_hooks(m, false);
    double t0 = now_ms();
    bool ours = gpu_client_state(gc) == GPU_READY && gpu_client_pid(gc) == m->pid;
    snap_t *after = NULL;
    int nafter = 0;
    char *p = res->note;
    size_t pn = sizeof res->note;
    if (ours) {
        int r = gpu_client_sync(gc);
        int a = gpu_client_take_async_error(gc, NULL, NULL);
        res->gpu_error = r ? r : a;
        ours = gpu_client_state(gc) == GPU_READY;
        char msg[600];
        if (ours && snapshot(gc, m->snap, m->nsnap, &after, &nafter, msg, sizeof msg)) {
            snprintf(p, pn, "The device buffers could not be read back from the sanitized worker (%s); ", msg);
            ours = false; /* then the contents from before the statement are the best there is */
        }
    }
    if (ours) {
        /* the copies from before are no shadow any more: free them now */
        for (int i = 0; i < m->nsnap; i++)
            if (m->snap[i].copy) {
                arena_free(m->snap[i].copy);
                m->snap[i].copy = NULL;
            }
        gpu_client_stop(gc, 30000); /* the sanitizer writes its summary as it ends */
    } else {
        bool alive = gpu_client_pid(gc) == m->pid && gpu_client_state(gc) == GPU_READY;
        res->worker_died = !alive;
        gpu_fault_t f;
        gpu_client_fault(gc, &f);
        size_t k = strlen(p);
        if (gpu_client_state(gc) != GPU_READY && f.message[0])
            snprintf(p + k, pn - k, "The sanitized GPU worker ended: %s. ", f.message);
        else if (!alive)
            snprintf(p + k, pn - k, "The sanitized GPU worker ended during the statement and was replaced. ");
        if (!res->gpu_error && gpu_client_state(gc) != GPU_READY && f.code && f.code < 0x10000)
            res->gpu_error = f.code;
        if (alive) gpu_client_stop(gc, 30000);
    }
    int r = 0;
    if (gpu_client_pid(gc) == m->pid || gpu_client_state(gc) != GPU_READY) {
        gpu_restart_report_t rep = {0};
        r = gpu_client_restart(gc, &rep);
        free(rep.lost_ptrs);
    }
    if (r) {
        gpu_fault_t f;
        gpu_client_fault(gc, &f);
        size_t k = strlen(p);
        snprintf(p + k, pn - k, "The normal GPU worker could not be started again (%s); the next GPU call tries "
                 "again.", f.message);
    } else if (!ours) {
        int back = roll_back(gc, m->snap, m->nsnap);
        size_t k = strlen(p);
        if (back)
            snprintf(p + k, pn - k, "%d device buffer%s the statement was writing %s back to %s contents from "
                     "before it. ", back, back == 1 ? "" : "s", back == 1 ? "is" : "are", back == 1 ? "its" : "their");
    }
    settle(gc, m->snap, m->nsnap, after, nafter);
    snaps_free(after, nafter);
    snaps_free(m->snap, m->nsnap);
    /* the sanitizer has ended (stopped, or killed with the worker) */
    res->log = take_logs(m->dir);
    snprintf(res->tool, sizeof res->tool, "%s", m->tool);
    res->launches = m->launches;
    res->kernels = m->kernels;
    res->nkernels = m->nkernels;
    res->switch_ms = m->ms + now_ms() - t0;
    free(m);
}

void cuda_memcheck_result_free(cuda_memcheck_result_t *res) {
    free(res->log);
    free(res->kernels);
    memset(res, 0, sizeof *res);
}
