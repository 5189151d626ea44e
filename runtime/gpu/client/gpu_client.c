/* The kernel-process side of the GPU worker (gpu_client.h): the worker's
 * life, the command channel, devices, modules, launches, events, streams
 * and restarts. Device memory is in gpu_memory.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gpu_client_internal.h"

#include "runtime/gpu/cuda_driver.h"
#include "runtime/hostmem/arena.h"
#include "runtime/base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
double gc_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

const char *gpu_client_error_name(int code) {
    switch (code) {
    case GPU_ERR_WORKER_DIED: return "GPU_ERR_WORKER_DIED";
    case GPU_ERR_INTERRUPTED: return "GPU_ERR_INTERRUPTED";
    case GPU_ERR_NO_WORKER: return "GPU_ERR_NO_WORKER";
    }
    const char *n = cuda_result_name(code);
    return n ? n : "CUDA_ERROR_UNKNOWN";
}

/* ---- output of the worker ---- */

static void forward(gpu_client_t *c, int i) {
    char b[65536];
    while (c->out[i] >= 0) {
        ssize_t n = read(c->out[i], b, sizeof b);
        if (n > 0) {
            if (c->cfg.output) c->cfg.output(c->cfg.ctx, i ? "stderr" : "stdout", b, (size_t)n);
            else {
                ssize_t w = write(i ? 2 : 1, b, (size_t)n);
                (void)w;
            }
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        close(c->out[i]); /* EOF: the worker is gone */
        c->out[i] = -1;
    }
}

void gpu_client_drain_output(gpu_client_t *c) {
    forward(c, 0);
    forward(c, 1);
}

void gpu_client_output_fds(const gpu_client_t *c, int fds[2]) {
    fds[0] = c->out[0];
    fds[1] = c->out[1];
}

/* ---- the worker process ---- */

static void find_worker(gpu_client_t *c) {
    const char *p = c->cfg.worker_path ? c->cfg.worker_path : getenv("ICUDA_WORKER");
    if (p && *p) {
        snprintf(c->worker_path, sizeof c->worker_path, "%s", p);
        return;
    }
    char exe[PATH_MAX - 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(c->worker_path, sizeof c->worker_path, "icuda-worker");
        return;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(c->worker_path, sizeof c->worker_path, "%s/icuda-worker", exe);
    if (access(c->worker_path, X_OK) != 0) {
        char alt[PATH_MAX + 32];
        snprintf(alt, sizeof alt, "%s/../icuda-worker", exe);
        if (access(alt, X_OK) == 0) snprintf(c->worker_path, sizeof c->worker_path, "%s", alt);
    }
}

static void set_fault(gpu_client_t *c, gpu_state_t st, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void set_fault(gpu_client_t *c, gpu_state_t st, int code, const char *fmt, ...) {
    c->state = st;
    c->fault.state = st;
    c->fault.code = code;
    c->fault.name = gpu_client_error_name(code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->fault.message, sizeof c->fault.message, fmt, ap);
    va_end(ap);
    const char *k = gpu_client_function_name(c, c->last_fn);
    snprintf(c->fault.kernel, sizeof c->fault.kernel, "%s", k ? k : "");
}

static void wrapped_argv(gpu_client_t *c, char **worker, char **out, size_t cap);

static int spawn(gpu_client_t *c) {
    int sv[2] = {-1, -1}, po[2] = {-1, -1}, pe[2] = {-1, -1};
    c->sock = c->out[0] = c->out[1] = -1;
    c->state = GPU_STARTING;
    c->used_devs = 0; /* a new worker has run nothing yet */
    memset(&c->fault, 0, sizeof c->fault);
    c->fault.exit_status = -1;
    atomic_store(&c->killed_for_interrupt, 0);
    if (access(c->worker_path, X_OK) != 0) {
        set_fault(c, GPU_CRASHED, GPU_ERR_NO_WORKER, "icuda-worker not found at %s",
                  c->worker_path);
        return GPU_ERR_NO_WORKER;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
        pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        set_fault(c, GPU_CRASHED, GPU_ERR_NO_WORKER, "cannot create the worker's channel: %s",
                  strerror(errno));
        goto fail;
    }
    int big = 4 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    char a_sock[16], a_arena[16], a_size[32], a_addr[32], a_dev[16], a_va[32], a_vasize[32];
    snprintf(a_sock, sizeof a_sock, "%d", sv[1]);
    snprintf(a_arena, sizeof a_arena, "%d", arena_fd());
    snprintf(a_size, sizeof a_size, "%zu", arena_reserved());
    /* the arena's base here: offset(p) = p - base, so base = -offset(NULL) */
    snprintf(a_addr, sizeof a_addr, "%llx", (unsigned long long)(0 - arena_offset(NULL)));
    snprintf(a_dev, sizeof a_dev, "%d", c->dev);
    snprintf(a_va, sizeof a_va, "%llx", (unsigned long long)GPU_VA_BASE);
    snprintf(a_vasize, sizeof a_vasize, "%llu", (unsigned long long)GPU_VA_SIZE);
    char *wargv[] = {c->worker_path, "--sock", a_sock,  "--arena", a_arena, "--arena-size",
                     a_size,         "--arena-addr", a_addr, "--device", a_dev, "--va-base", a_va,
                     "--va-size", a_vasize, NULL};
    char *argv[64 + sizeof wargv / sizeof wargv[0]];
    wrapped_argv(c, wargv, argv, sizeof argv / sizeof argv[0]);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int afd = arena_fd();
    pid_t pid = fork();
    if (pid < 0) {
        if (devnull >= 0) close(devnull);
        set_fault(c, GPU_CRASHED, GPU_ERR_NO_WORKER, "cannot start icuda-worker: %s",
                  strerror(errno));
        goto fail;
    }
    if (pid == 0) { /* only async-signal-safe calls until exec */
        if (devnull >= 0) dup2(devnull, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        fcntl(sv[1], F_SETFD, 0);
        if (afd >= 0) fcntl(afd, F_SETFD, 0);
        if (c->pgroup) setpgid(0, 0); /* a wrapper's whole tree dies with one kill */
        execv(argv[0], argv);
        _exit(127);
    }
    if (devnull >= 0) close(devnull);
    if (c->pgroup) setpgid(pid, pid); /* as the child does: whichever runs first */
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    fcntl(po[0], F_SETFL, O_NONBLOCK);
    fcntl(pe[0], F_SETFL, O_NONBLOCK);
    c->sock = sv[0];
    c->out[0] = po[0];
    c->out[1] = pe[0];
    atomic_store(&c->pid, pid);
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0) close(sv[i]);
        if (po[i] >= 0) close(po[i]);
        if (pe[i] >= 0) close(pe[i]);
    }
    return GPU_ERR_NO_WORKER;
}

/* Reaps the worker after EOF or a kill and records why it is gone. */
static int worker_gone(gpu_client_t *c) {
    pid_t pid = atomic_exchange(&c->pid, -1);
    if (c->sock >= 0) close(c->sock);
    c->sock = -1;
    /* its last output: read until EOF (bounded, in case a grandchild holds it) */
    double t0 = gc_now_ms();
    while ((c->out[0] >= 0 || c->out[1] >= 0) && gc_now_ms() - t0 < 500) {
        struct pollfd p[2] = {{c->out[0], POLLIN, 0}, {c->out[1], POLLIN, 0}};
        if (poll(p, 2, 50) > 0) gpu_client_drain_output(c);
    }
    for (int i = 0; i < 2; i++)
        if (c->out[i] >= 0) {
            close(c->out[i]);
            c->out[i] = -1;
        }
    int st = 0;
    if (pid > 0) {
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    int sig = pid > 0 && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    int ex = pid > 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (c->state == GPU_FAULTED || c->state == GPU_NO_DRIVER) {
        c->fault.signal = sig;
        c->fault.exit_status = ex;
        return c->fault.code;
    }
    if (atomic_load(&c->killed_for_interrupt)) {
        const char *k = gpu_client_function_name(c, c->last_fn);
        set_fault(c, GPU_INTERRUPTED, GPU_ERR_INTERRUPTED,
                  "interrupted: the GPU worker was stopped%s%s", k ? " while running " : "",
                  k ? k : "");
    } else if (c->state == GPU_STARTING && ex == 127) {
        set_fault(c, GPU_CRASHED, GPU_ERR_NO_WORKER, "icuda-worker could not be executed (%s)",
                  c->worker_path);
    } else if (sig) {
        set_fault(c, GPU_CRASHED, GPU_ERR_WORKER_DIED, "the GPU worker crashed (%s)",
                  strsignal(sig));
    } else {
        set_fault(c, GPU_CRASHED, GPU_ERR_WORKER_DIED, "the GPU worker exited (status %d)", ex);
    }
    c->fault.signal = sig;
    c->fault.exit_status = ex;
    return c->fault.code;
}

void gpu_client_kill_for_interrupt(gpu_client_t *c) {
    pid_t p = atomic_load(&c->pid);
    if (p > 0) {
        atomic_store(&c->killed_for_interrupt, 1);
        kill(c->pgroup ? -p : p, SIGKILL);
    }
}

/* Waits for the next record from the worker into c->rx, forwarding output
 * and watching for an interrupt. 0, or the code of the worker's end. */
static int wait_record(gpu_client_t *c, long *len) {
    double since = 0;
    int grace = c->cfg.interrupt_grace_ms > 0 ? c->cfg.interrupt_grace_ms : 300;
    for (;;) {
        struct pollfd p[3] = {
            {c->sock, POLLIN, 0}, {c->out[0], POLLIN, 0}, {c->out[1], POLLIN, 0}};
        int n = poll(p, 3, 20);
        if (n < 0 && errno != EINTR) return worker_gone(c);
        if (p[1].revents) forward(c, 0);
        if (p[2].revents) forward(c, 1);
        if (p[0].revents) {
            long m = ch_recv(c->sock, c->rx, sizeof c->rx);
            if (m >= (long)sizeof(ch_reply_t)) {
                gpu_client_drain_output(c); /* written before the answer */
                *len = m;
                return 0;
            }
            return worker_gone(c);
        }
        /* a restart is recovery from the interrupt (whose flag is still up
         * until the next cell): it must not be cut short by it */
        if (!c->restarting && c->cfg.interrupted && c->cfg.interrupted(c->cfg.ctx)) {
            double t = gc_now_ms();
            if (!since) since = t;
            else if (t - since >= grace) gpu_client_kill_for_interrupt(c);
        } else {
            since = 0;
        }
    }
}

static int read_hello(gpu_client_t *c) {
    long len = 0;
    int r = wait_record(c, &len);
    if (r) return r;
    ch_reply_t *h = (ch_reply_t *)c->rx;
    if (h->op != CH_HELLO) {
        kill(c->pgroup ? -atomic_load(&c->pid) : atomic_load(&c->pid), SIGKILL);
        worker_gone(c);
        set_fault(c, GPU_CRASHED, GPU_ERR_WORKER_DIED, "the GPU worker spoke out of turn");
        return GPU_ERR_WORKER_DIED;
    }
    c->ndev = (int)h->v[0];
    c->drv_version = (int)h->v[1];
    if (h->result) {
        char msg[512];
        size_t n = h->payload < sizeof msg - 1 ? h->payload : sizeof msg - 1;
        memcpy(msg, c->rx + sizeof *h, n);
        msg[n] = 0;
        int code = h->result;
        set_fault(c, GPU_NO_DRIVER, code, "%s", msg);
        c->fault.kernel[0] = 0;
        worker_gone(c);
        return code;
    }
    ch_hello_t hi;
    memset(&hi, 0, sizeof hi);
    if (h->payload >= sizeof hi) memcpy(&hi, c->rx + sizeof *h, sizeof hi);
    c->va_ok = (h->v[2] & CH_HELLO_VA_RESERVED) && hi.va_base == GPU_VA_BASE;
    c->arena_shared = (h->v[2] & CH_HELLO_ARENA_SHARED) != 0;
    c->va_error = c->va_ok ? 0 : hi.va_error ? hi.va_error : CUDA_ERROR_NOT_SUPPORTED;
    c->gran = hi.granularity ? (size_t)hi.granularity : (size_t)2 << 20;
    c->state = GPU_READY;
    return 0;
}

int gpu_client_wait_ready(gpu_client_t *c) {
    if (c->state == GPU_STARTING) return read_hello(c);
    return c->state == GPU_READY ? 0 : c->fault.code;
}

/* ---- commands ---- */

ch_cmd_t *gc_cmd(gpu_client_t *c, uint16_t op, bool async, int dev) {
    ch_cmd_t *m = (ch_cmd_t *)c->tx;
    memset(m, 0, sizeof *m);
    m->op = op;
    m->flags = async ? CH_ASYNC : 0;
    m->dev = (int16_t)(dev < 0 ? c->dev : dev);
    if (m->dev >= 0 && m->dev < 64) c->used_devs |= 1ull << m->dev;
    return m;
}

/* Sends c->tx (len bytes); for a synchronous command waits for the answer
 * (then in c->rx). Returns the command's CUresult or the worker's end. */
int gc_send(gpu_client_t *c, size_t len, ch_reply_t **rep) {
    int r = gpu_client_wait_ready(c);
    if (r) return r;
    ch_cmd_t *m = (ch_cmd_t *)c->tx;
    m->seq = ++c->seq;
    if (ch_send(c->sock, c->tx, len) < 0) return worker_gone(c);
    if (m->flags & CH_ASYNC) return 0;
    long n = 0;
    if ((r = wait_record(c, &n))) return r;
    ch_reply_t *h = (ch_reply_t *)c->rx;
    if (h->async_err && !c->async_err) {
        c->async_err = h->async_err;
        c->async_seq = h->async_seq;
        c->async_op = h->async_op;
    }
    int sticky = cuda_result_is_sticky(h->result) ? h->result
                 : cuda_result_is_sticky(h->async_err) ? h->async_err : 0;
    if (sticky) {
        char txt[256] = "";
        if (h->payload && h->payload < sizeof txt) {
            memcpy(txt, c->rx + sizeof *h, h->payload);
            txt[h->payload] = 0;
        }
        const char *k = gpu_client_function_name(c, c->last_fn);
        set_fault(c, GPU_FAULTED, sticky, "%s: %s%s%s", gpu_client_error_name(sticky), txt,
                  k ? " (kernel " : "", k ? k : "");
        if (k) strncat(c->fault.message, ")", sizeof c->fault.message - strlen(c->fault.message) - 1);
        worker_gone(c); /* it exits after a sticky fault */
    }
    if (rep) *rep = h;
    return h->result;
}

int gpu_client_take_async_error(gpu_client_t *c, uint32_t *seq, int *op) {
    int e = c->async_err;
    if (seq) *seq = c->async_seq;
    if (op) *op = c->async_op;
    c->async_err = 0;
    return e;
}

uint32_t gpu_client_last_seq(const gpu_client_t *c) { return c->seq; }
gpu_state_t gpu_client_state(const gpu_client_t *c) { return c->state; }
int gpu_client_pid(const gpu_client_t *c) { return atomic_load(&c->pid); }
int gpu_client_driver_version(const gpu_client_t *c) { return c->drv_version; }

gpu_state_t gpu_client_fault(const gpu_client_t *c, gpu_fault_t *f) {
    if (f) *f = c->fault;
    return c->state;
}

/* ---- lifetime ---- */

gpu_client_t *gpu_client_new(const gpu_client_config_t *cfg) {
    gpu_client_t *c = xcalloc(1, sizeof *c);
    if (cfg) c->cfg = *cfg;
    c->dev = c->cfg.device;
    c->sock = c->out[0] = c->out[1] = -1;
    atomic_store(&c->pid, -1);
    find_worker(c);
    c->gran = (size_t)2 << 20;
    if (arena_init(c->cfg.arena_reserve ? c->cfg.arena_reserve : (size_t)64 << 30) < 0 &&
        arena_fd() < 0) {
        set_fault(c, GPU_CRASHED, GPU_ERR_NO_WORKER, "cannot create the shared arena: %s",
                  strerror(errno));
        return c;
    }
    spawn(c);
    return c;
}

void gpu_client_free(gpu_client_t *c) {
    if (!c) return;
    pid_t pid = atomic_exchange(&c->pid, -1);
    if (c->sock >= 0) close(c->sock); /* the worker exits on EOF */
    if (pid > 0) {
        int st;
        double t0 = gc_now_ms();
        while (waitpid(pid, &st, WNOHANG) == 0) {
            if (gc_now_ms() - t0 > 1000) {
                kill(c->pgroup ? -pid : pid, SIGKILL);
                waitpid(pid, &st, 0);
                break;
            }
            usleep(2000);
        }
    }
    for (int i = 0; i < 2; i++)
        if (c->out[i] >= 0) close(c->out[i]);
    for (size_t i = 0; i < c->bufs.n; i++) free(c->bufs.v[i].name);
    for (size_t i = 0; i < c->mods.n; i++) free(c->mods.v[i].image);
    for (size_t i = 0; i < c->fns.n; i++) free(c->fns.v[i].name);
    free(c->bufs.v);
    free(c->mods.v);
    free(c->fns.v);
    free(c->evs.v);
    free(c->sts.v);
    free(c->pins.v);
    free(c->chunks.v);
    gpu_client_set_wrapper(c, NULL);
    free(c);
}

/* ---- devices ---- */

int gpu_client_device_count(gpu_client_t *c, int *n) {
    int r = gpu_client_wait_ready(c);
    *n = r ? 0 : c->ndev;
    return r;
}

int gpu_client_device_props(gpu_client_t *c, int dev, gpu_props_t *p) {
    if (dev >= 0 && dev < MAX_DEV && c->props_ok[dev]) {
        *p = c->props[dev];
        return 0;
    }
    ch_cmd_t *m = gc_cmd(c, CH_DEVICE_PROPS, false, -1);
    m->u.device.device = dev;
    ch_reply_t *h;
    int r = gc_send(c, sizeof *m, &h);
    if (r) return r;
    if (h->payload < sizeof *p) return CUDA_ERROR_UNKNOWN;
    memcpy(p, c->rx + sizeof *h, sizeof *p);
    if (dev >= 0 && dev < MAX_DEV) {
        c->props[dev] = *p;
        c->props_ok[dev] = true;
    }
    return 0;
}

int gpu_client_set_device(gpu_client_t *c, int dev) {
    int r = gpu_client_wait_ready(c);
    if (r) return r;
    if (dev < 0 || dev >= c->ndev) return CUDA_ERROR_INVALID_DEVICE;
    ch_cmd_t *m = gc_cmd(c, CH_SET_DEVICE, false, dev);
    m->u.device.device = dev;
    r = gc_send(c, sizeof *m, NULL);
    if (!r) c->dev = dev;
    return r;
}

int gpu_client_get_device(const gpu_client_t *c) { return c->dev; }

int gpu_client_device_attribute(gpu_client_t *c, int dev, int attribute, int *value) {
    ch_cmd_t *m = gc_cmd(c, CH_DEVICE_ATTRIBUTE, false, -1);
    m->u.attribute.device = dev;
    m->u.attribute.attribute = attribute;
    ch_reply_t *h;
    int r = gc_send(c, sizeof *m, &h);
    if (!r) *value = (int)(int64_t)h->v[0];
    return r;
}

int gpu_client_mem_info(gpu_client_t *c, size_t *fr, size_t *total) { return gpu_client_mem_info_on(c, -1, fr, total); }

int gpu_client_mem_info_on(gpu_client_t *c, int dev, size_t *fr, size_t *total) {
    ch_reply_t *h;
    int r = gc_send(c, sizeof(ch_cmd_t), (gc_cmd(c, CH_MEM_INFO, false, dev), &h));
    if (!r) {
        if (fr) *fr = h->v[0];
        if (total) *total = h->v[1];
    }
    return r;
}

int gpu_client_sync(gpu_client_t *c) {
    gc_cmd(c, CH_SYNC, false, -1);
    return gc_send(c, sizeof(ch_cmd_t), NULL);
}

int gpu_client_sync_all(gpu_client_t *c) {
    int r = gpu_client_sync(c);
    uint64_t others = c->used_devs & ~(c->dev >= 0 && c->dev < 64 ? 1ull << c->dev : 0);
    for (int d = 0; d < 64 && !r && others; d++)
        if (others >> d & 1) {
            gc_cmd(c, CH_SYNC, false, d);
            r = gc_send(c, sizeof(ch_cmd_t), NULL);
        }
    return r;
}

/* ---- modules ---- */

static int raw_module_load(gpu_client_t *c, const void *image, size_t n, uint64_t *h,
                           char **log) {
    if (log) *log = NULL;
    void *tmp = arena_alloc(n);
    if (!tmp) return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(tmp, image, n);
    ch_cmd_t *m = gc_cmd(c, CH_MODULE_LOAD, false, -1);
    m->u.module_load.offset = arena_offset(tmp);
    m->u.module_load.size = n;
    ch_reply_t *rep;
    int r = gc_send(c, sizeof *m, &rep);
    arena_free(tmp);
    if (r == 0) *h = rep->v[0];
    /* the driver's log of a refused module, as long as it is: without room the error goes without it */
    else if (r < 0x10000 && log && rep->payload && (*log = malloc(rep->payload + 1))) {
        memcpy(*log, c->rx + sizeof *rep, rep->payload);
        (*log)[rep->payload] = 0;
    }
    return r;
}

int gpu_client_module_load(gpu_client_t *c, const void *image, size_t n, gpu_handle_t *mod,
                           char **log) {
    if (log) *log = NULL;
    if (!image || !n) return CUDA_ERROR_INVALID_VALUE;
    uint64_t h = 0;
    int r = raw_module_load(c, image, n, &h, log);
    if (r) return r;
    module_t md = {.image = malloc(n), .n = n, .h = h, .dev = c->dev, .live = true};
    if (!md.image || !VEC_TRY_PUSH(c->mods, md)) {
        free(md.image);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(md.image, image, n);
    *mod = (gpu_handle_t)c->mods.n;
    return 0;
}

static module_t *get_mod(gpu_client_t *c, gpu_handle_t mod) {
    if (mod == 0 || mod > c->mods.n || !c->mods.v[mod - 1].live) return NULL;
    return &c->mods.v[mod - 1];
}

int gpu_client_module_unload(gpu_client_t *c, gpu_handle_t mod) {
    module_t *md = get_mod(c, mod);
    if (!md) return CUDA_ERROR_INVALID_HANDLE;
    ch_cmd_t *m = gc_cmd(c, CH_MODULE_UNLOAD, false, md->dev);
    m->u.module_unload.module = md->h;
    int r = gc_send(c, sizeof *m, NULL);
    md->live = false;
    free(md->image);
    md->image = NULL;
    for (size_t i = 0; i < c->fns.n; i++)
        if (c->fns.v[i].mod == mod) c->fns.v[i].live = false;
    for (size_t i = 0; i < c->bufs.n;) /* its globals */
        if (c->bufs.v[i].kind == B_GLOBAL && c->bufs.v[i].mod == mod) {
            free(c->bufs.v[i].name);
            memmove(&c->bufs.v[i], &c->bufs.v[i + 1], (c->bufs.n - i - 1) * sizeof(buf_t));
            c->bufs.n--;
        } else {
            i++;
        }
    return r >= 0x10000 ? 0 : r;
}

static int raw_named(gpu_client_t *c, uint16_t op, int dev, uint64_t mod, const char *name,
                     ch_reply_t **rep) {
    size_t nl = strlen(name) + 1;
    if (sizeof(ch_cmd_t) + nl > CH_MAX_RECORD) return CUDA_ERROR_INVALID_VALUE;
    ch_cmd_t *m = gc_cmd(c, op, false, dev);
    m->u.get.module = mod;
    memcpy(c->tx + sizeof *m, name, nl);
    return gc_send(c, sizeof *m + nl, rep);
}

int gpu_client_get_function(gpu_client_t *c, gpu_handle_t mod, const char *name,
                            gpu_handle_t *fn, gpu_func_attrs_t *attrs) {
    module_t *md = get_mod(c, mod);
    if (!md || !name) return CUDA_ERROR_INVALID_HANDLE;
    for (size_t i = 0; i < c->fns.n; i++) /* asked before: the same handle */
        if (c->fns.v[i].live && c->fns.v[i].mod == mod && !strcmp(c->fns.v[i].name, name)) {
            *fn = (gpu_handle_t)(i + 1);
            if (attrs) *attrs = c->fns.v[i].a;
            return 0;
        }
    ch_reply_t *rep;
    int r = raw_named(c, CH_GET_FUNCTION, md->dev, md->h, name, &rep);
    if (r) return r;
    func_t f = {.mod = mod, .name = strdup(name), .h = rep->v[0], .live = true, .cache_config = -1};
    if (rep->payload >= sizeof f.a) memcpy(&f.a, c->rx + sizeof *rep, sizeof f.a);
    if (!f.name || !VEC_TRY_PUSH(c->fns, f)) {
        free(f.name);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *fn = (gpu_handle_t)c->fns.n;
    if (attrs) *attrs = f.a;
    return 0;
}

const char *gpu_client_function_name(const gpu_client_t *c, gpu_handle_t fn) {
    if (fn == 0 || fn > c->fns.n) return NULL;
    return c->fns.v[fn - 1].name;
}

int gpu_client_get_global(gpu_client_t *c, gpu_handle_t mod, const char *name, CUdeviceptr *p,
                          size_t *size) {
    module_t *md = get_mod(c, mod);
    if (!md || !name) return CUDA_ERROR_INVALID_HANDLE;
    for (size_t i = 0; i < c->bufs.n; i++)
        if (c->bufs.v[i].kind == B_GLOBAL && c->bufs.v[i].mod == mod &&
            !strcmp(c->bufs.v[i].name, name)) {
            *p = c->bufs.v[i].va;
            if (size) *size = c->bufs.v[i].size;
            return 0;
        }
    ch_reply_t *rep;
    int r = raw_named(c, CH_GET_GLOBAL, md->dev, md->h, name, &rep);
    if (r) return r;
    /* the driver's own memory, outside the range: it moves when the module
     * is loaded again after a restart */
    buf_t b = {.va = rep->v[0], .size = rep->v[1], .dev = md->dev, .kind = B_GLOBAL,
               .mod = mod, .name = strdup(name), .shadow = SH_NONE};
    if (!b.va || !b.name || gc_buf_insert(c, &b) < 0) {
        free(b.name);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *p = b.va;
    if (size) *size = b.size;
    return 0;
}

/* ---- launches ---- */

static int launch(gpu_client_t *c, bool cooperative, gpu_handle_t fn, const unsigned grid[3],
                  const unsigned block[3], unsigned shmem, gpu_handle_t stream, int nargs, void *const *args,
                  const uint16_t *size, const uint8_t *is_dptr);

int gpu_client_launch(gpu_client_t *c, gpu_handle_t fn, const unsigned grid[3],
                      const unsigned block[3], unsigned shmem, gpu_handle_t stream, int nargs,
                      void *const *args, const uint16_t *size, const uint8_t *is_dptr) {
    return launch(c, false, fn, grid, block, shmem, stream, nargs, args, size, is_dptr);
}

int gpu_client_launch_cooperative(gpu_client_t *c, gpu_handle_t fn, const unsigned grid[3], const unsigned block[3],
                                  unsigned shmem, gpu_handle_t stream, int nargs, void *const *args,
                                  const uint16_t *size, const uint8_t *is_dptr) {
    return launch(c, true, fn, grid, block, shmem, stream, nargs, args, size, is_dptr);
}

static int launch(gpu_client_t *c, bool cooperative, gpu_handle_t fn, const unsigned grid[3],
                  const unsigned block[3], unsigned shmem, gpu_handle_t stream, int nargs, void *const *args,
                  const uint16_t *size, const uint8_t *is_dptr) {
    if (fn == 0 || fn > c->fns.n || !c->fns.v[fn - 1].live) return CUDA_ERROR_INVALID_HANDLE;
    if (nargs < 0 || nargs > CH_MAX_ARGS) return CUDA_ERROR_INVALID_VALUE;
    const func_t *f = &c->fns.v[fn - 1];
    int r;
    if (c->dev >= 0 && c->dev < MAX_DEV && !c->props_ok[c->dev]) {
        gpu_props_t p;
        if ((r = gpu_client_device_props(c, c->dev, &p))) return r;
    }
    if (c->dev >= 0 && c->dev < MAX_DEV) { /* what the driver would refuse */
        const gpu_props_t *p = &c->props[c->dev];
        uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
        for (int i = 0; i < 3; i++)
            if (!grid[i] || !block[i] || grid[i] > (unsigned)p->max_grid_dim[i] ||
                block[i] > (unsigned)p->max_block_dim[i])
                return CUDA_ERROR_INVALID_VALUE;
        if (threads > (uint64_t)p->max_threads_per_block) return CUDA_ERROR_INVALID_VALUE;
        if (f->a.max_threads_per_block && threads > (uint64_t)f->a.max_threads_per_block)
            return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
        if (f->a.max_dynamic_shared_size_bytes && shmem > (unsigned)f->a.max_dynamic_shared_size_bytes)
            return CUDA_ERROR_INVALID_VALUE;
    }
    /* a cooperative launch is answered: its refusal (too large a grid) is the call's */
    ch_cmd_t *m = gc_cmd(c, cooperative ? CH_LAUNCH_COOPERATIVE : CH_LAUNCH, !cooperative, -1);
    m->u.launch.func = f->h;
    m->u.launch.stream = gc_stream_h(c, stream);
    for (int i = 0; i < 3; i++) {
        m->u.launch.grid[i] = grid[i];
        m->u.launch.block[i] = block[i];
    }
    m->u.launch.shmem = shmem;
    m->u.launch.nargs = (uint16_t)nargs;
    uint16_t *sz = (uint16_t *)(c->tx + sizeof *m);
    size_t off = ch_launch_args_offset((unsigned)nargs);
    for (int i = 0; i < nargs; i++) {
        size_t n = size[i], pad = (n + 15) & ~(size_t)15;
        if (off + pad > CH_MAX_RECORD) return CUDA_ERROR_INVALID_VALUE;
        sz[i] = size[i];
        if (is_dptr && is_dptr[i] == GPU_ARG_REACHES) {
            for (size_t k = 0; k < c->bufs.n; k++) gc_touch(&c->bufs.v[k]);
        } else if (is_dptr && is_dptr[i] && n == sizeof(CUdeviceptr)) {
            CUdeviceptr v;
            memcpy(&v, args[i], sizeof v);
            buf_t *b = v ? gc_find_buf(c, v, 0) : NULL;
            if (b && is_dptr[i] != GPU_ARG_CONST_PTR) gc_touch(b); /* a kernel may write through it */
        }
        memcpy(c->tx + off, args[i], n);
        off += pad;
    }
    c->last_fn = fn;
    return gc_send(c, off, NULL);
}

int gpu_client_occupancy(gpu_client_t *c, gpu_handle_t fn, size_t shmem, int block_limit,
                         int *min_grid, int *block) {
    if (fn == 0 || fn > c->fns.n || !c->fns.v[fn - 1].live) return CUDA_ERROR_INVALID_HANDLE;
    ch_cmd_t *m = gc_cmd(c, CH_OCCUPANCY, false, -1);
    m->u.occupancy.func = c->fns.v[fn - 1].h;
    m->u.occupancy.shmem = (uint32_t)shmem;
    m->u.occupancy.limit = (uint32_t)(block_limit > 0 ? block_limit : 0);
    ch_reply_t *rep;
    int r = gc_send(c, sizeof *m, &rep);
    if (!r) {
        if (min_grid) *min_grid = (int)rep->v[0];
        if (block) *block = (int)rep->v[1];
    }
    return r;
}

/* ---- events and streams ---- */

static int obj_create(gpu_client_t *c, uint16_t op, void *vec_, gpu_handle_t *out,
                      unsigned flags, int priority) {
    VEC(obj_t) *vec = vec_;
    ch_cmd_t *m = gc_cmd(c, op, false, -1);
    m->u.create.flags = flags;
    m->u.create.priority = priority;
    ch_reply_t *rep;
    int r = gc_send(c, sizeof *m, &rep);
    if (r) return r;
    obj_t o = {.h = rep->v[0], .flags = flags, .dev = c->dev, .live = true, .priority = priority};
    if (!VEC_TRY_PUSH(*vec, o)) return CUDA_ERROR_OUT_OF_MEMORY;
    *out = (gpu_handle_t)vec->n;
    return 0;
}

static obj_t *obj_get(void *vec_, gpu_handle_t h) {
    VEC(obj_t) *vec = vec_;
    if (h == 0 || h > vec->n || !vec->v[h - 1].live) return NULL;
    return &vec->v[h - 1];
}

static int obj_one(gpu_client_t *c, uint16_t op, bool async, obj_t *o) {
    if (!o) return CUDA_ERROR_INVALID_HANDLE;
    ch_cmd_t *m = gc_cmd(c, op, async, o->dev);
    m->u.one.handle = o->h;
    return gc_send(c, sizeof *m, NULL);
}

int gpu_client_event_create(gpu_client_t *c, gpu_handle_t *ev, unsigned flags) {
    return obj_create(c, CH_EVENT_CREATE, &c->evs, ev, flags, 0);
}

int gpu_client_event_record(gpu_client_t *c, gpu_handle_t ev, gpu_handle_t stream) {
    obj_t *o = obj_get(&c->evs, ev);
    if (!o || (stream && !obj_get(&c->sts, stream))) return CUDA_ERROR_INVALID_HANDLE;
    ch_cmd_t *m = gc_cmd(c, CH_EVENT_RECORD, true, o->dev);
    m->u.record.event = o->h;
    m->u.record.stream = gc_stream_h(c, stream);
    return gc_send(c, sizeof *m, NULL);
}

int gpu_client_event_sync(gpu_client_t *c, gpu_handle_t ev) {
    return obj_one(c, CH_EVENT_SYNC, false, obj_get(&c->evs, ev));
}

int gpu_client_event_query(gpu_client_t *c, gpu_handle_t ev) {
    return obj_one(c, CH_EVENT_QUERY, false, obj_get(&c->evs, ev));
}

int gpu_client_event_elapsed(gpu_client_t *c, float *ms, gpu_handle_t start, gpu_handle_t end) {
    obj_t *a = obj_get(&c->evs, start), *b = obj_get(&c->evs, end);
    if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
    ch_cmd_t *m = gc_cmd(c, CH_EVENT_ELAPSED, false, a->dev);
    m->u.elapsed.start = a->h;
    m->u.elapsed.end = b->h;
    ch_reply_t *rep;
    int r = gc_send(c, sizeof *m, &rep);
    if (!r) memcpy(ms, &rep->v[0], sizeof *ms);
    return r;
}

int gpu_client_event_destroy(gpu_client_t *c, gpu_handle_t ev) {
    obj_t *o = obj_get(&c->evs, ev);
    int r = obj_one(c, CH_EVENT_DESTROY, true, o);
    if (o) o->live = false;
    return r >= 0x10000 ? 0 : r;
}

int gpu_client_stream_create(gpu_client_t *c, gpu_handle_t *s, unsigned flags) {
    return obj_create(c, CH_STREAM_CREATE, &c->sts, s, flags, 0);
}

int gpu_client_stream_create_priority(gpu_client_t *c, gpu_handle_t *s, unsigned flags, int priority) {
    return obj_create(c, CH_STREAM_CREATE, &c->sts, s, flags, priority);
}

int gpu_client_stream_sync(gpu_client_t *c, gpu_handle_t s) {
    if (s == 0) return gpu_client_sync(c);
    return obj_one(c, CH_STREAM_SYNC, false, obj_get(&c->sts, s));
}

int gpu_client_stream_query(gpu_client_t *c, gpu_handle_t s) {
    if (s == 0) {
        obj_t o = {.h = 0, .dev = c->dev, .live = true};
        return obj_one(c, CH_STREAM_QUERY, false, &o);
    }
    return obj_one(c, CH_STREAM_QUERY, false, obj_get(&c->sts, s));
}

int gpu_client_stream_destroy(gpu_client_t *c, gpu_handle_t s) {
    obj_t *o = obj_get(&c->sts, s);
    int r = obj_one(c, CH_STREAM_DESTROY, true, o);
    if (o) o->live = false;
    return r >= 0x10000 ? 0 : r;
}

/* ---- restart ---- */

static int by_va(const void *a, const void *b) {
    CUdeviceptr x = ((const buf_t *)a)->va, y = ((const buf_t *)b)->va;
    return x < y ? -1 : x > y;
}

static int restart(gpu_client_t *c, gpu_restart_report_t *rep);

int gpu_client_restart(gpu_client_t *c, gpu_restart_report_t *rep) {
    c->restarting = true;
    int r = restart(c, rep);
    c->restarting = false;
    return r;
}

static int restart(gpu_client_t *c, gpu_restart_report_t *rep) {
    double t0 = gc_now_ms();
    gpu_restart_report_t R = {0};
    pid_t pid = atomic_load(&c->pid);
    if (pid > 0) {
        atomic_store(&c->killed_for_interrupt, 0);
        kill(c->pgroup ? -pid : pid, SIGKILL);
        worker_gone(c);
    }
    for (int i = 0; i < MAX_DEV; i++) c->props_ok[i] = false;
    c->async_err = 0;
    c->last_fn = 0;
    int r = spawn(c);
    if (!r) r = read_hello(c);
    if (r) goto out;
    int want = c->dev;
    /* modules, then their functions */
    for (size_t i = 0; i < c->mods.n; i++) {
        module_t *md = &c->mods.v[i];
        if (!md->live) continue;
        c->dev = md->dev;
        if ((r = raw_module_load(c, md->image, md->n, &md->h, NULL))) goto out;
        R.modules++;
    }
    for (size_t i = 0; i < c->fns.n; i++) {
        func_t *f = &c->fns.v[i];
        if (!f->live) continue;
        ch_reply_t *h;
        module_t *md = &c->mods.v[f->mod - 1];
        if ((r = raw_named(c, CH_GET_FUNCTION, md->dev, md->h, f->name, &h))) goto out;
        f->h = h->v[0];
        if ((r = gc_func_reapply(c, f, md->dev))) goto out;
    }
    /* streams and events */
    for (int k = 0; k < 2; k++) {
        VEC(obj_t) *vec = k ? (void *)&c->evs : (void *)&c->sts;
        for (size_t i = 0; i < vec->n; i++) {
            obj_t *o = &vec->v[i];
            if (!o->live) continue;
            ch_cmd_t *m = gc_cmd(c, k ? CH_EVENT_CREATE : CH_STREAM_CREATE, false, o->dev);
            m->u.create.flags = o->flags;
            m->u.create.priority = k ? 0 : o->priority;
            ch_reply_t *h;
            if ((r = gc_send(c, sizeof *m, &h))) goto out;
            o->h = h->v[0];
        }
    }
    for (size_t i = 0; i < c->pins.n; i++)
        if ((r = gc_raw_register(c, c->pins.v[i].p, c->pins.v[i].n, c->pins.v[i].flags, NULL))) goto out;
    /* the device memory: the same ranges mapped again, so every address
     * (and every pointer stored in device memory) means what it meant */
    for (size_t i = 0; i < c->chunks.n; i++) {
        chunk_t *ch = &c->chunks.v[i];
        c->dev = ch->dev;
        if ((r = gc_raw_map(c, ch->dev, ch->va, ch->size))) goto out;
    }
    /* globals are the driver's: they are where the reloaded modules put them */
    for (size_t i = 0; i < c->bufs.n; i++) {
        buf_t *b = &c->bufs.v[i];
        if (b->kind != B_GLOBAL) continue;
        ch_reply_t *h;
        module_t *md = &c->mods.v[b->mod - 1];
        if ((r = raw_named(c, CH_GET_GLOBAL, md->dev, md->h, b->name, &h))) goto out;
        b->va = h->v[0];
    }
    qsort(c->bufs.v, c->bufs.n, sizeof(buf_t), by_va);
    /* known contents back */
    for (size_t i = 0; i < c->bufs.n; i++) {
        buf_t *b = &c->bufs.v[i];
        int sh = b->shadow;
        if (sh == SH_HOST && !b->bound && c->cfg.shadow_valid &&
            !c->cfg.shadow_valid(c->cfg.ctx, b->va, b->host, b->size))
            sh = SH_NONE;
        if (sh == SH_HOST && !arena_contains(b->host, b->size)) sh = SH_NONE;
        if (sh == SH_HOST) {
            ch_cmd_t *m = gc_cmd(c, CH_MEMCPY, false, b->dev);
            m->u.copy.kind = CH_H2D;
            m->u.copy.dst = b->va;
            m->u.copy.src = arena_offset(b->host);
            m->u.copy.size = b->size;
            if ((r = gc_send(c, sizeof *m, NULL))) goto out;
            R.restored++;
        } else {
            int fill = sh == SH_FILL ? b->fill : 0;
            if (b->kind == B_ALLOC) {
                ch_cmd_t *m = gc_cmd(c, CH_MEMSET, false, b->dev);
                m->u.memset.dptr = b->va;
                m->u.memset.size = b->size;
                m->u.memset.value = (uint32_t)fill;
                if ((r = gc_send(c, sizeof *m, NULL))) goto out;
            }
            if (sh == SH_FILL) R.restored++;
            else {
                /* a global without shadow is back at its initial value */
                R.lost_ptrs = xreallocarray(R.lost_ptrs, (size_t)R.lost + 1, sizeof *R.lost_ptrs);
                R.lost_ptrs[R.lost++] = b->va;
                b->shadow = SH_NONE;
            }
        }
    }
    c->dev = want;
    {
        ch_cmd_t *m = gc_cmd(c, CH_SET_DEVICE, false, want);
        m->u.device.device = want;
        r = gc_send(c, sizeof *m, NULL);
    }
out:
    R.ms = gc_now_ms() - t0;
    if (rep) *rep = R;
    else free(R.lost_ptrs);
    return r;
}

/* ---- wrappers, buffer lists, graceful stops, occupancy per block size ---- */

static void wrapped_argv(gpu_client_t *c, char **worker, char **out, size_t cap) {
    size_t n = 0;
    c->pgroup = c->wrapper != NULL;
    for (char **w = c->wrapper; w && *w && n + 1 < cap; w++) out[n++] = *w;
    for (char **w = worker; *w && n + 1 < cap; w++) out[n++] = *w;
    out[n] = NULL;
}

int gpu_client_set_wrapper(gpu_client_t *c, const char *const *argv) {
    if (c->wrapper) {
        for (char **w = c->wrapper; *w; w++) free(*w);
        free(c->wrapper);
        c->wrapper = NULL;
    }
    if (!argv || !argv[0]) return 0;
    size_t n = 0;
    while (argv[n]) n++;
    if (n > 64) return CUDA_ERROR_INVALID_VALUE;
    char **w = calloc(n + 1, sizeof *w);
    if (!w) return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++)
        if (!(w[i] = strdup(argv[i]))) {
            for (size_t k = 0; k < i; k++) free(w[k]);
            free(w);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    c->wrapper = w;
    return 0;
}

int gpu_client_stop(gpu_client_t *c, int timeout_ms) {
    pid_t pid = atomic_load(&c->pid);
    if (pid <= 0) return 0;
    int r = 0;
    if (c->state == GPU_READY) {
        gc_cmd(c, CH_SHUTDOWN, false, -1);
        r = gc_send(c, sizeof(ch_cmd_t), NULL);
    }
    pid = atomic_exchange(&c->pid, -1);
    if (pid <= 0) return r; /* send_cmd saw it go */
    if (c->sock >= 0) close(c->sock);
    c->sock = -1;
    int st = 0;
    double t0 = gc_now_ms();
    for (;;) { /* a wrapper may take a while to write its last words */
        gpu_client_drain_output(c);
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) break;
        if (gc_now_ms() - t0 > (timeout_ms > 0 ? timeout_ms : 10000)) {
            kill(c->pgroup ? -pid : pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        usleep(5000);
    }
    gpu_client_drain_output(c);
    for (int i = 0; i < 2; i++)
        if (c->out[i] >= 0) {
            close(c->out[i]);
            c->out[i] = -1;
        }
    set_fault(c, GPU_CRASHED, GPU_ERR_WORKER_DIED, "the GPU worker was stopped");
    c->fault.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    c->fault.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    return r >= 0x10000 ? 0 : r;
}

int gpu_client_active_blocks(gpu_client_t *c, gpu_handle_t fn, int block, size_t shmem, int *blocks) {
    if (fn == 0 || fn > c->fns.n || !c->fns.v[fn - 1].live) return CUDA_ERROR_INVALID_HANDLE;
    if (block <= 0) return CUDA_ERROR_INVALID_VALUE;
    ch_cmd_t *m = gc_cmd(c, CH_OCCUPANCY_BLOCKS, false, -1);
    m->u.occupancy.func = c->fns.v[fn - 1].h;
    m->u.occupancy.shmem = (uint32_t)shmem;
    m->u.occupancy.limit = (uint32_t)block;
    ch_reply_t *rep;
    int r = gc_send(c, sizeof *m, &rep);
    if (!r && blocks) *blocks = (int)rep->v[0];
    return r;
}

/* ---- commands of other rooms (e.g. runtime/gpu/client/gpu_profile.c) ---- */

int gpu_client_command(gpu_client_t *c, uint16_t op, const void *u, size_t ulen, uint64_t v[4], char *text,
                       size_t cap) {
    if (text && cap) text[0] = 0;
    ch_cmd_t *m = gc_cmd(c, op, false, -1);
    if (ulen > sizeof m->u) return CUDA_ERROR_INVALID_VALUE;
    if (u && ulen) memcpy(&m->u, u, ulen);
    ch_reply_t *rep = NULL;
    int r = gc_send(c, sizeof *m, &rep);
    if (rep && r < 0x10000) { /* an answer came (not a dead worker) */
        if (v) memcpy(v, rep->v, sizeof rep->v);
        if (text && cap && rep->payload) {
            size_t n = rep->payload < cap - 1 ? rep->payload : cap - 1;
            memcpy(text, c->rx + sizeof *rep, n);
            text[n] = 0;
        }
    }
    return r;
}
