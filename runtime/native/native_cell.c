/* A native C++ cell from its text to its objects in the worker
 * (native_cell.h): items, translation unit, nvcc (cached by content), a
 * fresh copy of the object loaded by the worker, and the worker's report
 * read back into the session. */
#include "native_cell.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native_unit.h"
#include "runtime/base/progress.h"
#include "runtime/base/strbuf.h"
#include "runtime/cuda/cuda_session.h"
#include "runtime/gpu/client/gpu_client.h"
#include "runtime/gpu/channel.h"
#include "runtime/program/program_build.h"
#include "runtime/program/program_libs.h"
#include "runtime/program/program_report.h"

#include "runtime/device/compile_cache.h"
#define WHAT "the native C++ cell"

/* nvcc's options for a cell's object: a shared object on the shared CUDA
 * runtime (the worker's own, so one runtime owns the context), lambdas
 * that run on the device, and the object's names bound to its own
 * definitions: a cell's global named as something of the C library (err,
 * index, y1) would otherwise be the library's, and a store to it a store
 * into the library's code. */
static char *const native_flags[] = {"-shared", "-Xcompiler", "-fPIC", "-cudart", "shared", "--extended-lambda",
                                     "-Xlinker", "-Bsymbolic"};
#define NFLAGS ((int)(sizeof native_flags / sizeof native_flags[0]))

static bool chooses_std(char *const *opts, int n) {
    for (int i = 0; i < n; i++)
        if (!strncmp(opts[i], "-std", 4) || !strncmp(opts[i], "--std", 5)) return true;
    return false;
}

typedef struct {
    const native_session_t *ns;
    const char *cell, *code;
} labels_t;

/* The text under a #line label of the unit: this cell, or an earlier one. */
static const char *text_of(void *ctx, const char *label) {
    const labels_t *l = ctx;
    if (!strcmp(label, l->cell)) return l->code;
    return native_session_source(l->ns, label);
}

static int copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    if (out < 0) {
        close(in);
        return -1;
    }
    char buf[1 << 16];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -1;
            break;
        }
    if (n < 0) rc = -1;
    close(in);
    if (close(out) != 0) rc = -1;
    return rc;
}

static char *replace_all(const char *s, const char *from, const char *to) {
    strbuf_t b = {0};
    size_t n = strlen(from);
    for (const char *hit; (hit = strstr(s, from)) != NULL; s = hit + n) {
        sb_append(&b, s, (size_t)(hit - s));
        sb_puts(&b, to);
    }
    sb_puts(&b, s);
    return sb_take(&b);
}

/* The names the cell uses whose objects went with a worker that is gone
 * (the ones it makes itself aside). */
static char *lost_names(const native_session_t *ns, int live, const char *code, const native_items_t *items,
                        char *cells, size_t cap) {
    char **ids = native_identifiers(code);
    strbuf_t b = {0};
    cells[0] = 0;
    for (char **p = ids; *p; p++) {
        const native_global_t *g = native_session_global(ns, *p);
        if (!g || g->worker == live || native_items_define(items, *p)) continue;
        sb_printf(&b, "%s%s", b.len ? ", " : "", g->name);
        if (!strstr(cells, g->cell) && strlen(cells) + strlen(g->cell) + 3 < cap)
            snprintf(cells + strlen(cells), cap - strlen(cells), "%s%s", cells[0] ? " " : "", g->cell);
    }
    native_strv_free(ids);
    return b.len ? sb_take(&b) : NULL;
}

/* A buffer of the session's that the cell gave back, a device one by
 * cudaFree or host memory from an interpreted cell's malloc by free() (the
 * worker's own cudaFree and free note them): freed here, as interpreted
 * code frees it; one that is not a buffer's start any more is said, as the
 * call's error would have been. */
static void free_given_back(const native_ctx_t *x, bool device, const char *hex, const char *cell,
                            const cell_io_t *io) {
    uint64_t addr = strtoull(hex, NULL, 16);
    int r = device ? cuda_session_free_device(x->cuda, addr) : cuda_session_free_host(x->cuda, (void *)(uintptr_t)addr);
    if (r != 0)
        io_printf(io, "stderr", "%s(0x%llx) in %s: not the start of %s (freed already?); nothing freed\n",
                  device ? "cudaFree" : "free", (unsigned long long)addr, cell,
                  device ? "a device buffer of the session" : "a buffer an interpreted cell allocated with malloc");
}

/* The report's lines into the session; the cell's failure, if any, into err. */
static int read_report(const native_ctx_t *x, native_session_t *ns, char *report, const char *cell, int live,
                       const cell_io_t *io, cell_error_t *err) {
    int rc = 0;
    for (char *line = strtok(report, "\n"); line; line = strtok(NULL, "\n")) {
        char *f[5] = {0};
        int n = 0;
        for (char *p = line; n < 5;) {
            f[n++] = p;
            char *t = strchr(p, '\t');
            if (!t) break;
            *t = 0;
            p = t + 1;
        }
        if ((!strcmp(f[0], "F") || !strcmp(f[0], "H")) && n >= 2) {
            free_given_back(x, f[0][0] == 'F', f[1], cell, io);
        } else if (!strcmp(f[0], "V") && n >= 5) {
            native_session_add_global(ns, f[1], f[2], atoi(f[3]) != 0, atoi(f[4]) != 0, cell, live);
        } else if (!strcmp(f[0], "E") && n >= 3 && !rc) {
            cell_error_set(err, f[1], NULL, "%s (an exception ended the code of %s; what it defined before stays)",
                           f[2][0] ? f[2] : "no message", cell);
            rc = -1;
        } else if (!strcmp(f[0], "R") && n >= 2 && !rc) {
            cell_error_set(err, "SystemExit", NULL, "return %s: the code of %s stopped here; the session goes on",
                           f[1], cell);
            rc = -1;
        } else if (!strcmp(f[0], "L") && n >= 2 && !rc) {
            cell_error_set(err, "LinkError", NULL, "the object of %s could not be loaded in the GPU worker: %s", cell,
                           f[1]);
            rc = -1;
        }
    }
    return rc;
}

/* The worker ended while it ran the cell: a crash, exit() or abort() in
 * the cell's code, or the interrupt that stopped it. The session goes on in
 * a new worker; err says which and what was lost. exit(0) ends the cell as
 * it ends a program, with success (main's body pasted as a cell ends so). */
static int worker_ended(const native_ctx_t *x, gpu_client_t *gc, int r, const char *cell, const cell_io_t *io,
                        cell_error_t *err) {
    gpu_fault_t f;
    memset(&f, 0, sizeof f);
    gpu_client_fault(gc, &f);
    char what[160];
    snprintf(what, sizeof what, "running %s", cell);
    cuda_session_error(x->cuda, r, what, err); /* restarts the worker; KeyboardInterrupt for an interrupt */
    if (r == GPU_ERR_INTERRUPTED) return -1;
    const char *note = cuda_session_recovery_note(x->cuda);
    if (f.exit_status == 0 && f.signal == 0) {
        cell_error_clear(err);
        io_printf(io, "stderr", "icuda: exit(0) in %s ended the GPU worker, as it ends a program. %s\n", cell, note);
        return 0;
    }
    if (f.exit_status > 0 && f.signal == 0) {
        cell_error_set(err, "SystemExit", NULL, "exit(%d) in %s ended the GPU worker. %s", f.exit_status, cell, note);
    } else if (f.signal) {
        char name[80];
        snprintf(name, sizeof name, "%s", strsignal(f.signal));
        cell_error_set(err, f.signal == SIGABRT ? "Aborted" : "NativeCrash", NULL,
                       "%s crashed the GPU worker (%s)%s. %s", cell, name,
                       f.signal == SIGABRT ? ": abort() was called, or an exception left a global's initialiser" : "",
                       note);
    }
    return -1;
}

int native_cell_run(const native_ctx_t *x, const char *code, const char *cell, char *const *opts, int nopts,
                    const cell_io_t *io, cell_error_t *err) {
    native_session_t *ns = x->ns;
    cell_split_t sp;
    split_cell(code, &sp);
    for (size_t i = 0; i < sp.n; i++)
        if (sp.items[i].kind == ITEM_MAGIC) {
            cell_error_set(err, "UsageError", NULL, "a native C++ cell holds C++ only: the magic on line %d of %s "
                           "goes in a cell of its own", sp.items[i].first_line, cell);
            split_free(&sp);
            return -1;
        }
    native_items_t items;
    native_items(code, &sp, &items);
    split_free(&sp);
    /* the unit's text of the cell; errors and %rerun show the cell's own */
    const char *shown = code;
    char *unit_code = native_items_unit_code(code, &items);
    if (unit_code) code = unit_code;

    char msg[1024] = "";
    gpu_client_t *gc = cuda_session_client(x->cuda, msg, sizeof msg);
    int live = gc ? gpu_client_pid(gc) : -1;
    int rc = 0;
    if (gc) {
        char cells[256];
        char *lost = lost_names(ns, live, code, &items, cells, sizeof cells);
        if (lost) {
            cell_error_set(err, "NameError", NULL, "%s lived in the GPU worker that was replaced: run %s again first "
                           "(%%rerun %s), then this cell", lost, cells, cells);
            free(lost);
            native_items_free(&items);
            free(unit_code);
            return -1;
        }
    }

    /* the unit names this cell NATIVE_THIS_CELL, not "In [7]": an unchanged
     * cell run again under another number is the same unit, found compiled */
    /* a variable of numbers is the interpreter's: both kinds of cell see it */
    for (size_t i = 0; i < items.n && ns->links.share && gc; i++) {
        native_item_t *it = &items.v[i];
        if (it->kind == NI_VARIABLE && it->share_decl && ns->links.share(ns->links.ctx, it->share_decl, cell))
            it->kind = NI_SHARED;
    }
    native_bounds_t bounds = {0};
    char *unit = native_unit(ns, live, code, &items, NATIVE_THIS_CELL, &bounds);
    char *extra[NFLAGS + 1];
    int nextra = 0;
    for (int i = 0; i < NFLAGS; i++) extra[nextra++] = native_flags[i];
    if (!chooses_std(opts, nopts)) extra[nextra++] = "-std=c++17";
    const char *forced = getenv("ICUDA_ARCH");
    const char *arch = device_arch(x->dev);
    bool gpu_arch = x->dev->arch_from_gpu || (forced && *forced);
    int ninc = 0;
    char **inc = program_include_dirs(x->dev, &ninc);
    program_spec_t spec = {.source = unit,
                           .options = opts,
                           .noptions = nopts,
                           .arch = gpu_arch ? arch : NULL,
                           .headers = x->dev->headers,
                           .nheaders = x->dev->nheaders,
                           .cache_dir = compile_cache_dir(x->dev->cache),
                           .extra = extra,
                           .nextra = nextra,
                           .output = "cell.so",
                           .include_dirs = inc,
                           .ninclude_dirs = ninc,
                           .link_includes = true,
                           .phased = true};
    program_binary_t b;
    progress_t *pg = progress_start(io, true, "compiling %s with nvcc ...", cell);
    program_status_t st = program_build(&spec, &b);
    progress_done(pg, "%s %s with nvcc in %.1f s", st == PROGRAM_BUILT || st == PROGRAM_CACHED ? "compiled" : "tried to compile",
                  cell, progress_elapsed(pg));
    if (b.log) { /* nvcc's messages at the notebook's label */
        char *relabeled = replace_all(b.log, NATIVE_THIS_CELL, cell);
        free(b.log);
        b.log = relabeled;
    }
    labels_t labels = {ns, cell, shown};
    program_log_src_t src = {.unit = PROGRAM_UNIT, .build_dir = b.dir, .source = unit, .cell = cell,
                             .headers = x->dev->headers, .nheaders = x->dev->nheaders, .text_of = text_of,
                             .ctx = &labels};
    switch (st) {
    case PROGRAM_NO_NVCC: rc = program_error_no_nvcc("a native C++ cell", b.why, err); break;
    case PROGRAM_ERROR:
        cell_error_set(err, "RuntimeError", NULL, "%s: %s", cell, b.why);
        rc = -1;
        break;
    case PROGRAM_INTERRUPTED:
        cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted while nvcc compiled %s", cell);
        rc = -1;
        break;
    case PROGRAM_FAILED: rc = program_error_compile(&b, &src, WHAT, err); break;
    case PROGRAM_BUILT:
        if (b.arch_refused)
            io_printf(io, "stderr", "icuda: this nvcc cannot compile for %s: built for its default architecture\n", arch);
        program_show_linked(io, &b, cell);
        program_show_warnings(io, &b, &src);
        break;
    case PROGRAM_CACHED: break;
    }
    free(unit);
    program_strings_free(inc);
    if (rc == 0 && !gc) {
        /* no GPU: what the cell declares still stands, so that later cells
         * compile against it (and fail only where they would run); no
         * worker holds its objects, so each later unit repeats them whole */
        cell_error_set(err, "cudaErrorNoDevice", NULL, "%s compiled, but cannot run: %s", cell, msg);
        for (size_t i = 0; i < items.n; i++)
            if (items.v[i].kind == NI_KERNEL || items.v[i].kind == NI_VARIABLE || items.v[i].kind == NI_DEVICE_VAR)
                items.v[i].kind = NI_REPEAT;
        native_session_add_items(ns, code, &items, cell);
        native_session_keep_source(ns, cell, shown);
        rc = -1;
    }

    char path[600];
    if (rc == 0) {
        mkdir(ns->dir, 0700);
        snprintf(path, sizeof path, "%s/run-%u.so", ns->dir, ++ns->runs);
        if (copy_file(b.binary, path) != 0) {
            cell_error_set(err, "RuntimeError", NULL, "cannot copy the object of %s to %s: %s", cell, path,
                           strerror(errno));
            rc = -1;
        }
    }
    program_binary_free(&b);
    if (rc == 0) {
        int outcome = 0;
        char *report = NULL;
        VEC(gpu_native_binding_t) binds = {0};
        for (size_t i = 0; i < bounds.n; i++) VEC_PUSH(binds, ((gpu_native_binding_t){bounds.v[i].name, bounds.v[i].value}));
        int r = gpu_client_native_run(gc, path, binds.v, (int)binds.n, &outcome, &report);
        VEC_FREE(binds);
        if (r && !report) {
            rc = worker_ended(x, gc, r, cell, io, err);
            if (rc == 0) native_session_add_items(ns, code, &items, cell); /* exit(0): what it declared stands */
        } else {
            rc = read_report(x, ns, report ? report : "", cell, live, io, err);
            if (outcome != CH_NATIVE_LOAD_FAILED) native_session_add_items(ns, code, &items, cell);
        }
        free(report);
        native_session_keep_source(ns, cell, shown);
    }
    native_items_free(&items);
    native_bounds_free(&bounds);
    free(unit_code);
    return rc;
}

/* After a restart: the native cells whose objects the old worker held. */
static void restarted(void *ctx, int pid, char *note, size_t cap) {
    char *lost = native_session_lost_cells(ctx, pid);
    if (!lost) return;
    size_t k = strlen(note);
    snprintf(note + k, cap - k, " Native C++ cells made objects in the old worker that are gone: run %s again "
             "(%%rerun %s).", lost, lost);
    free(lost);
}

void native_cell_attach(const native_ctx_t *x) { cuda_session_on_restart(x->cuda, restarted, x->ns); }
