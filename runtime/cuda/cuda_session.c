/* The GPU worker's life as the session sees it: started in
 * the background with the session, its output routed to the running cell,
 * a device synchronisation at the end of every cell, and recovery when it
 * dies (a sticky fault, a crash, an interrupt): restart, reload, restore,
 * and say what was lost. */
#include "cuda_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/hostmem/arena.h"
#include "runtime/base/interrupt.h"
#include "runtime/base/xalloc.h"

static void worker_output(void *ctx, const char *stream, const char *data, size_t len) {
    cuda_session_t *cs = ctx;
    if (cs->interp) interp_flush_output(cs->interp); /* host printf before the GPU's */
    if (cs->io && cs->io->stream) cs->io->stream(cs->io->ctx, stream, data, len);
    else if (write(2, data, len) < 0) { /* nowhere else to put it */
    }
}

static bool worker_interrupted(void *ctx) { return interrupt_pending(); }

cuda_session_t *cuda_session_new(struct interp *interp, device_session_t *dev) {
    cuda_session_t *cs = xcalloc(1, sizeof *cs);
    cs->interp = interp;
    cs->dev = dev;
    /* The worker starts now and creates its context while the kernel
     * answers kernel_info: nothing here waits for it. */
    gpu_client_config_t cfg = {0};
    cfg.output = worker_output;
    cfg.interrupted = worker_interrupted;
    cfg.interrupt_grace_ms = 300;
    cfg.ctx = cs;
    cs->gc = gpu_client_new(&cfg);
    interp_hooks_t h = {cs, cuda_launch, cuda_api_call, cs_managed_fetch, cs_read_device};
    interp_set_hooks(interp, &h);
    interp_set_kernel_source(interp, cs_kernel_decl, cs);
    return cs;
}

void cuda_session_free(cuda_session_t *cs) {
    if (!cs) return;
    gpu_client_free(cs->gc);
    cuda_launch_forget(cs);
    free(cs->kernels);
    free(cs->mods);
    for (int i = 0; i < cs->nsyms; i++) {
        free(cs->syms[i].name);
        free(cs->syms[i].data);
    }
    free(cs->syms);
    free(cs->pins);
    free(cs->managed);
    free(cs->capt);
    cs_mvars_free(cs);
    cs_libs_free(cs);
    free(cs);
}

void cuda_session_begin_cell(cuda_session_t *cs, const cell_io_t *io) {
    cs->io = io;
    cs->touched = false;
    cs->warned_unsynced = false;
    cs->recovery_note[0] = 0;
}

const char *cs_bytes(char *buf, size_t n, uint64_t b) {
    if (b < 10 * 1024) snprintf(buf, n, "%llu bytes", (unsigned long long)b);
    else if (b < (10ull << 20)) snprintf(buf, n, "%.1f KiB", b / 1024.0);
    else if (b < (10ull << 30)) snprintf(buf, n, "%.1f MiB", b / 1048576.0);
    else snprintf(buf, n, "%.1f GiB", b / 1073741824.0);
    return buf;
}

int cs_ready(cuda_session_t *cs, char *msg, size_t ml) {
    cs->touched = true;
    if (!cs->gc) {
        snprintf(msg, ml, "the GPU worker could not be created (out of memory)");
        return CUDA_ERR_UNKNOWN;
    }
    gpu_state_t st = gpu_client_state(cs->gc);
    if (st == GPU_READY) return 0;
    int r = st == GPU_STARTING ? gpu_client_wait_ready(cs->gc) : -1;
    if (r == 0) return 0;
    gpu_fault_t f;
    st = gpu_client_fault(cs->gc, &f);
    if (st == GPU_FAULTED || st == GPU_INTERRUPTED || (st == GPU_CRASHED && f.code == GPU_ERR_WORKER_DIED)) {
        /* died between cells (or a restart failed): try once more */
        cs_check(cs, f.code);
        if (gpu_client_state(cs->gc) == GPU_READY) return 0;
        st = gpu_client_fault(cs->gc, &f);
    }
    if (st == GPU_NO_DRIVER && (strstr(f.message, "libcuda") || f.code == CUDA_ERROR_NOT_FOUND)) {
        const char *why = f.message;
        if (!strncmp(why, "no CUDA driver: ", 16)) why += 16;
        snprintf(msg, ml, "this machine has no CUDA driver (%s), so no GPU work can run here; device code still "
                 "compiles (%%ptx shows it)", why);
        return CUDA_ERR_INSUFFICIENT_DRIVER;
    }
    if (st == GPU_NO_DRIVER && f.code == CUDA_ERROR_NO_DEVICE) {
        snprintf(msg, ml, "this machine has no GPU (the CUDA driver found no device: %s); device code still "
                 "compiles (%%ptx shows it), but nothing can run here", f.message);
        return CUDA_ERR_NO_DEVICE;
    }
    if (st == GPU_NO_DRIVER) {
        snprintf(msg, ml, "this machine has no usable CUDA driver (%s); device code still compiles (%%ptx shows "
                 "it), but nothing can run on a GPU here", f.message);
        return CUDA_ERR_INSUFFICIENT_DRIVER;
    }
    snprintf(msg, ml, "the GPU worker is not available: %s", f.message);
    return f.code == GPU_ERR_NO_WORKER ? CUDA_ERR_INSUFFICIENT_DRIVER : cuda_error_from_driver(f.code);
}

/* The session's view after a restart: modules and functions have new
 * worker handles inside gpu_client (stable on our side), so nothing here
 * changes; only the list of lost buffers needs telling. */
static void recover(cuda_session_t *cs, const gpu_fault_t *f) {
    gpu_restart_report_t rep = {0};
    int r = gpu_client_restart(cs->gc, &rep);
    char *p = cs->recovery_note;
    size_t n = sizeof cs->recovery_note;
    if (r) {
        gpu_fault_t g;
        gpu_client_fault(cs->gc, &g);
        snprintf(p, n, "The GPU worker could not be restarted (%s); the next GPU call tries again.", g.message);
        free(rep.lost_ptrs);
        return;
    }
    cs_managed_restored(cs);
    cs_mvars_restarted(cs);
    cs->unsynced = false;
    cs->ncapt = 0; /* captures end with their worker */
    int k = snprintf(p, n, "The GPU worker was restarted in %.0f ms: %d module%s reloaded, %d device buffer%s "
                     "restored", rep.ms, rep.modules, rep.modules == 1 ? "" : "s", rep.restored,
                     rep.restored == 1 ? "" : "s");
    if (cs->nmanaged && k > 0 && (size_t)k < n)
        k += snprintf(p + k, n - (size_t)k, " (%d of them managed memory, as the host last saw it)", cs->nmanaged);
    if (rep.lost > 0 && k > 0 && (size_t)k < n) {
        k += snprintf(p + k, n - (size_t)k, "; %d lost (a kernel had written them; they now hold zeros):", rep.lost);
        for (int i = 0; i < rep.lost && k > 0 && (size_t)k < n - 64; i++) {
            CUdeviceptr base;
            size_t size = 0;
            int dev = 0;
            char b[32];
            gpu_client_buffer(cs->gc, rep.lost_ptrs[i], &base, &size, &dev);
            /* by the variables that point at it, which is what the notebook knows */
            char *names = interp_pointer_names(cs->interp, INTERP_PLACE_DEVICE, rep.lost_ptrs[i]);
            if (*names)
                k += snprintf(p + k, n - (size_t)k, "%s %s (%s)", i ? "," : "", names, cs_bytes(b, sizeof b, size));
            else
                k += snprintf(p + k, n - (size_t)k, "%s %#llx (%s)", i ? "," : "", (unsigned long long)rep.lost_ptrs[i],
                              cs_bytes(b, sizeof b, size));
            free(names);
        }
    }
    if (cs->runtime_objects && k > 0 && (size_t)k < n)
        k += snprintf(p + k, n - (size_t)k, ". Objects the CUDA runtime and its libraries made (graphs, arrays, memory pools, cuRAND generators, cuBLAS handles, cuFFT plans, ...) are "
                      "gone with the old worker: make them again");
    cs->runtime_objects = false;
    cs->restarts++;
    if (k > 0 && (size_t)k < n) snprintf(p + k, n - (size_t)k, ". Host variables are untouched.");
    if (cs->on_restart) cs->on_restart(cs->on_restart_ctx, gpu_client_pid(cs->gc), p, n);
    free(rep.lost_ptrs);
    (void)f;
}

int cs_check(cuda_session_t *cs, int r) {
    if (!r) return 0;
    gpu_fault_t f;
    gpu_state_t st = gpu_client_fault(cs->gc, &f);
    if (st == GPU_FAULTED || st == GPU_CRASHED || st == GPU_INTERRUPTED) {
        if (f.kernel[0]) snprintf(cs->last_kernel, sizeof cs->last_kernel, "%s", f.kernel);
        if (f.code != GPU_ERR_NO_WORKER) recover(cs, &f);
        if (st == GPU_INTERRUPTED) return CUDA_ERR_LAUNCH_FAILURE;
        return cuda_error_from_driver(f.code ? f.code : r);
    }
    return cuda_error_from_driver(r);
}

const char *cuda_session_recovery_note(const cuda_session_t *cs) { return cs->recovery_note; }

void cuda_session_on_restart(cuda_session_t *cs, void (*fn)(void *ctx, int pid, char *note, size_t cap), void *ctx) {
    cs->on_restart = fn;
    cs->on_restart_ctx = ctx;
}

struct gpu_client *cuda_session_client(cuda_session_t *cs, char *msg, size_t ml) {
    int r = cs_ready(cs, msg, ml);
    return r ? NULL : cs->gc;
}

int cuda_session_set_device(cuda_session_t *cs, int dev, char *msg, size_t ml) {
    int r = cs_ready(cs, msg, ml);
    if (r) return r;
    int n = 0;
    gpu_client_device_count(cs->gc, &n);
    if (dev < 0 || dev >= n) {
        snprintf(msg, ml, "device %d does not exist: this machine has %d GPU%s (0 to %d)", dev, n, n == 1 ? "" : "s",
                 n - 1);
        return CUDA_ERR_INVALID_DEVICE;
    }
    r = gpu_client_set_device(cs->gc, dev);
    if (r) {
        snprintf(msg, ml, "cannot make device %d current (%s)", dev, gpu_client_error_name(r));
        return cs_check(cs, r);
    }
    return 0;
}

int cuda_session_current_device(cuda_session_t *cs, int *count) {
    *count = 0;
    if (!cs->gc || gpu_client_device_count(cs->gc, count) != 0) return 0;
    return gpu_client_get_device(cs->gc);
}

/* What a fault message says about the kernel: the last one launched. */
static void fault_error(cuda_session_t *cs, int code, const char *what, cell_error_t *err) {
    char kern[300] = "";
    if (cs->last_kernel[0]) snprintf(kern, sizeof kern, " in kernel %s", cs->last_kernel);
    cell_error_set(err, cuda_error_name(code), NULL, "%s%s (%s). %s", cuda_error_string(code), kern, what,
                     cs->recovery_note);
}

/* A CUDA error that ended the cell was raised and seen: like a caught
 * exception, it is not handed out again by the next cudaGetLastError (an
 * error kept in a variable and not raised stays, as in CUDA). */
static int cell_done(cuda_session_t *cs, int rc, const cell_error_t *err) {
    if (rc && err && err->ename && !strncmp(err->ename, "cuda", 4)) cs->last_error = 0;
    cs->io = NULL;
    return rc;
}

int cuda_session_end_cell(cuda_session_t *cs, const cell_io_t *io, int rc, cell_error_t *err) {
    if (rc && cs_nccl_group_forget(cs->libs))
        io_printf(io, "stderr", "the NCCL group this cell left open was dropped (nothing of it reached NCCL): running "
                  "the cell again starts it afresh\n");
    if (!cs->gc || !cs->touched) return cell_done(cs, rc, err);
    gpu_state_t st = gpu_client_state(cs->gc);
    if (st == GPU_READY && cs->ncapt) {
        /* a stream is being captured into a graph: a synchronisation now
         * would end the capture with an error; the cell that ends it syncs */
        gpu_client_drain_output(cs->gc);
    } else if (st == GPU_READY) {
        /* every cell ends with a synchronisation of each device it may have
         * used: the asynchronous errors of this cell's work are this cell's */
        int r = gpu_client_sync_all(cs->gc);
        if (!r) cs->unsynced = false;
        if (!r) r = cs_mvars_sync_point(cs);
        uint32_t seq = 0;
        int op = 0;
        int a = gpu_client_take_async_error(cs->gc, &seq, &op);
        if (!r && a) r = a;
        gpu_client_drain_output(cs->gc);
        if (r) {
            bool interrupted = r == GPU_ERR_INTERRUPTED;
            int code = cs_check(cs, r);
            cs->last_error = code;
            if (rc == 0) {
                if (interrupted) {
                    cell_error_set(err, "KeyboardInterrupt", NULL,
                                     "interrupted while the GPU ran %s; the worker was stopped. %s",
                                     cs->last_kernel[0] ? cs->last_kernel : "its work", cs->recovery_note);
                } else {
                    fault_error(cs, code, "reported at the end of the cell", err);
                }
                rc = -1;
            } else if (cs->recovery_note[0]) {
                io_printf(io, "stderr", "%s\n", cs->recovery_note);
            }
        }
    } else if (st == GPU_FAULTED || st == GPU_CRASHED || st == GPU_INTERRUPTED) {
        gpu_fault_t f;
        gpu_client_fault(cs->gc, &f);
        if (f.code != GPU_ERR_NO_WORKER && !cs->recovery_note[0]) {
            int code = cs_check(cs, f.code);
            if (rc == 0) {
                fault_error(cs, code, f.message, err);
                rc = -1;
            } else {
                io_printf(io, "stderr", "%s\n", cs->recovery_note);
            }
        }
    }
    return cell_done(cs, rc, err);
}

unsigned long cuda_session_work_count(const cuda_session_t *cs) { return cs ? cs->work_count : 0; }

int cuda_session_error(cuda_session_t *cs, int r, const char *what, cell_error_t *err) {
    bool interrupted = r == GPU_ERR_INTERRUPTED;
    int code = cs->gc ? cs_check(cs, r) : cuda_error_from_driver(r);
    cs->last_error = code;
    if (interrupted)
        cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted while the GPU ran %s; the worker was stopped. %s",
                         cs->last_kernel[0] ? cs->last_kernel : "its work", cs->recovery_note);
    else fault_error(cs, code, what, err);
    return -1;
}
