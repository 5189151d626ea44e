/* %resources: a kernel's registers, shared and local memory, and with
 * --block its theoretical occupancy at that block size: the driver's figure
 * on a GPU, icuda's occupancy model (runtime/device/occupancy.c) without one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "magics.h"
#include "runtime/toolkit/cuda_errors.h"
#include "runtime/cuda/cuda_inspect.h"
#include "runtime/device/occupancy.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
#include "runtime/device/compile_cache.h"
#include "runtime/device/nvrtc_compile.h"
#include "runtime/device/device_session.h"
typedef struct {
    char name[256];
    char desc[2048];   /* signature line, where it was defined */
    int regs, static_smem;
    bool have_resources;
} kinfo_t;

/* A kernel of a cell, or a template instance (compiled now if need be). */
static int lookup(magic_ctx_t *mc, const char *name, kinfo_t *ki, cell_error_t *err) {
    memset(ki, 0, sizeof *ki);
    snprintf(ki->name, sizeof ki->name, "%s", name);
    const kernel_entry_t *k = device_find_kernel(mc->dev, name);
    const compiled_module_t *m = NULL;
    if (k) {
        char *d = device_kernel_description(mc->dev, k);
        snprintf(ki->desc, sizeof ki->desc, "%s", d);
        free(d);
        m = compile_cache_get(mc->dev->cache, k->module_hex);
    } else if (strchr(name, '<')) {
        cuda_kernel_ref_t ref;
        char ename[64], msg[1024];
        if (cuda_kernel_ref(mc->cuda, name, &ref, ename, msg, sizeof msg)) {
            cell_error_set(err, ename[0] ? ename : "RuntimeError", NULL, "%s", msg);
            return -1;
        }
        m = compile_cache_get(mc->dev->cache, ref.hex);
        const compiled_kernel_t *ck = m ? module_kernel(m, name) : NULL;
        if (ck && ck->have_resources)
            snprintf(ki->desc, sizeof ki->desc, "__global__ %s: %d registers, %d B shared, %d B local\n"
                     "an instance of a template kernel, compiled for %s", ref.signature, ck->registers,
                     ck->shared_bytes, ck->stack_bytes, device_arch(mc->dev));
        else
            snprintf(ki->desc, sizeof ki->desc, "__global__ %s\nan instance of a template kernel, compiled for %s",
                     ref.signature, device_arch(mc->dev));
    } else {
        strbuf_t b = {0};
        for (int i = 0; i < mc->dev->nkernels; i++) sb_printf(&b, "%s%s", i ? ", " : "", mc->dev->kernels[i].name);
        char *known = sb_take(&b);
        if (*known) magic_usage_error(&magic_resources, err, "no kernel named '%s'; compiled so far: %s", name, known);
        else magic_usage_error(&magic_resources, err, "no kernel named '%s'; no kernel has been compiled yet", name);
        free(known);
        return -1;
    }
    const compiled_kernel_t *ck = m ? module_kernel(m, name) : NULL;
    if (ck && ck->have_resources) {
        ki->regs = ck->registers;
        ki->static_smem = ck->shared_bytes;
        ki->have_resources = true;
    }
    return 0;
}

static void pct(char *b, size_t n, double f) { snprintf(b, n, "%.0f%%", f * 100); }

/* Occupancy from icuda's model: the limits of the architecture compiled for. */
static int computed(magic_ctx_t *mc, const kinfo_t *ki, int block, size_t dyn, strbuf_t *b, cell_error_t *err) {
    const char *arch = device_arch(mc->dev);
    int major, minor;
    if (!ki->have_resources) {
        cell_error_set(err, "RuntimeError", NULL, "the compiler reported no registers for %s, so its occupancy "
                         "cannot be computed without a GPU", ki->name);
        return -1;
    }
    if (!occ_parse_arch(arch, &major, &minor)) {
        cell_error_set(err, "RuntimeError", NULL, "cannot compute occupancy for %s without a GPU: not an "
                         "architecture of the form sm_XY", arch);
        return -1;
    }
    occ_arch_t a;
    bool known = occ_arch_for(major, minor, &a);
    occ_kernel_t k = {ki->regs, ki->static_smem, dyn};
    occ_result_t r, best;
    occ_compute(&a, &k, block, &r);
    char p[16], words[96];
    sb_printf(b, "max threads per block: %d\n", occ_max_block(&a, &k));
    if (r.blocks > 0) {
        pct(p, sizeof p, r.fraction);
        sb_printf(b, "at %d threads per block: %d blocks (%d warps) per SM of %d warps, occupancy %s, limited by %s\n",
                  block, r.blocks, r.warps, r.max_warps, p, occ_limit_words(r.limited_by, words, sizeof words));
        sb_printf(b, "  each alone would allow: registers %d blocks, shared memory %d, warp slots %d, block slots %d\n",
                  r.by_regs, r.by_smem, r.by_warps, r.by_blocks);
    } else {
        sb_printf(b, "at %d threads per block: no block fits on an SM (%s)\n", block, r.why_none);
    }
    int bb = occ_best_block(&a, &k, &best);
    if (bb) {
        pct(p, sizeof p, best.fraction);
        sb_printf(b, "block size with the highest occupancy: %d threads, %s (%d blocks per SM)\n", bb, p, best.blocks);
    }
    sb_printf(b, "computed for %s without a GPU, from the kernel's %d registers and %d B of static shared memory and "
              "the per-SM limits of compute capability %d.%d in icuda's table", arch, ki->regs, ki->static_smem,
              a.major, a.minor);
    if (!known) sb_printf(b, " (the newest it has before %d.%d)", major, minor);
    sb_puts(b, "\n");
    return 0;
}

/* The per-SM limits of the device as the worker read them, with the
 * allocation units of its compute capability. */
static void occupancy_arch_of(const cuda_occupancy_t *o, occ_arch_t *a) {
    occ_arch_for(o->props.major, o->props.minor, a);
    a->warp_size = o->props.warp_size ? o->props.warp_size : 32;
    if (o->props.max_threads_per_block) a->max_threads_per_block = o->props.max_threads_per_block;
    if (o->props.max_threads_per_multiprocessor) a->max_threads_per_sm = o->props.max_threads_per_multiprocessor;
    if (o->props.max_blocks_per_multiprocessor) a->max_blocks_per_sm = o->props.max_blocks_per_multiprocessor;
    if (o->props.regs_per_multiprocessor) a->regs_per_sm = o->props.regs_per_multiprocessor;
    if (o->props.regs_per_block) a->regs_per_block = o->props.regs_per_block;
    if (o->props.shared_mem_per_multiprocessor) a->smem_per_sm = o->props.shared_mem_per_multiprocessor;
    if (o->props.shared_mem_per_block) a->smem_per_block = o->props.shared_mem_per_block;
}

static void measured(const kinfo_t *ki, int block, size_t dyn, const cuda_occupancy_t *o, const cuda_occupancy_t *ob,
                     strbuf_t *b) {
    occ_arch_t a;
    occupancy_arch_of(o, &a);
    occ_kernel_t k = {o->attrs.num_regs, o->attrs.shared_size_bytes, dyn};
    occ_result_t r;
    occ_compute(&a, &k, block, &r);
    int ws = a.warp_size, max_warps = a.max_threads_per_sm / ws, warps = o->blocks * ((block + ws - 1) / ws);
    char p[16], words[96];
    sb_printf(b, "max threads per block: %d\n", o->attrs.max_threads_per_block);
    if (o->blocks > 0) {
        pct(p, sizeof p, max_warps ? (double)warps / max_warps : 0);
        sb_printf(b, "at %d threads per block: %d blocks (%d warps) per SM of %d warps, occupancy %s", block, o->blocks,
                  warps, max_warps, p);
        if (r.blocks == o->blocks) sb_printf(b, ", limited by %s\n", occ_limit_words(r.limited_by, words, sizeof words));
        else sb_printf(b, " (icuda's model says %d blocks; the driver's figure is shown)\n", r.blocks);
        if (r.blocks == o->blocks)
            sb_printf(b, "  each alone would allow: registers %d blocks, shared memory %d, warp slots %d, block slots %d\n",
                      r.by_regs, r.by_smem, r.by_warps, r.by_blocks);
    } else {
        sb_printf(b, "at %d threads per block: no block fits on an SM%s%s%s\n", block, r.why_none[0] ? " (" : "",
                  r.why_none, r.why_none[0] ? ")" : "");
    }
    if (o->best_block > 0) {
        int bw = ob->blocks * ((o->best_block + ws - 1) / ws);
        pct(p, sizeof p, max_warps ? (double)bw / max_warps : 0);
        sb_printf(b, "block size with the highest occupancy: %d threads, %s (%d blocks per SM)\n", o->best_block, p,
                  ob->blocks);
    }
    sb_printf(b, "on %s (device %d, compute capability %d.%d), from the driver: "
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor and cudaOccupancyMaxPotentialBlockSize for %s\n",
              o->props.name, o->device, o->props.major, o->props.minor, ki->name);
}

/* A kernel's row of the table that %resources without --block shows. */
static void table_row(const kinfo_t *ki, strbuf_t *plain, strbuf_t *html) {
    char name[600], desc[4200];
    chart_escape(ki->name, name, sizeof name);
    chart_escape(ki->desc, desc, sizeof desc);
    sb_printf(plain, "%s\n", ki->desc);
    sb_printf(html, "<tr><td><code>%s</code></td>", name);
    if (ki->have_resources) sb_printf(html, "<td style=\"text-align:right\">%d</td><td style=\"text-align:right\">%d B</td>",
                                      ki->regs, ki->static_smem);
    else sb_puts(html, "<td></td><td></td>");
    sb_printf(html, "<td><pre style=\"margin:0\">%s</pre></td></tr>", desc);
}

static int one(magic_ctx_t *mc, const char *name, int block, size_t dyn, strbuf_t *table, cell_error_t *err) {
    kinfo_t ki;
    if (lookup(mc, name, &ki, err)) return -1;
    if (table) {
        table_row(&ki, &table[0], &table[1]);
        return 0;
    }
    strbuf_t b = {0};
    sb_printf(&b, "%s\n", ki.desc);
    int rc = 0;
    if (block > 0) {
        cuda_occupancy_t o, ob;
        char msg[1024] = "";
        int r = cuda_kernel_occupancy(mc->cuda, name, block, dyn, &o, msg, sizeof msg);
        if (r == CUDA_ERR_NO_DEVICE || r == CUDA_ERR_INSUFFICIENT_DRIVER) {
            rc = computed(mc, &ki, block, dyn, &b, err);
        } else if (r) {
            cell_error_set(err, cuda_error_name(r), NULL, "%s", msg);
            rc = -1;
        } else {
            ob = o;
            if (o.best_block > 0 && o.best_block != block)
                r = cuda_kernel_occupancy(mc->cuda, name, o.best_block, dyn, &ob, msg, sizeof msg);
            if (r) {
                cell_error_set(err, cuda_error_name(r), NULL, "%s", msg);
                rc = -1;
            } else {
                measured(&ki, block, dyn, &o, &ob, &b);
            }
        }
    }
    if (rc == 0) io_printf(mc->io, "stdout", "%s", b.data ? b.data : "");
    free(b.data);
    return rc;
}

static bool number(const char *s, long lo, long hi, long *out) {
    char *end;
    long v = strtol(s, &end, 0);
    if (!*s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static int resources_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    int rc = 0, nnames = 0;
    long block = 0, smem = 0;
    const char **names = xcalloc((size_t)argc + 1, sizeof *names);
    for (int i = 0; i < argc && rc == 0; i++) {
        if (!strcmp(argv[i], "--block") || !strcmp(argv[i], "--smem")) {
            bool is_block = argv[i][2] == 'b';
            if (i + 1 >= argc || !number(argv[i + 1], is_block ? 1 : 0, is_block ? 1 << 20 : 1L << 30,
                                         is_block ? &block : &smem))
                rc = magic_usage_error(&magic_resources, err, "%s takes a number%s", argv[i],
                                       is_block ? " of threads per block, e.g. --block 256" : " of bytes");
            i++;
        } else if (argv[i][0] == '-') {
            rc = magic_usage_error(&magic_resources, err, "unknown option %s", argv[i]);
        } else {
            names[nnames++] = argv[i];
        }
    }
    if (rc == 0 && smem && !block) rc = magic_usage_error(&magic_resources, err, "--smem goes with --block");
    /* without --block: one table (text/html with a text/plain fallback) */
    strbuf_t table[2] = {{0}, {0}}, *tp = block ? NULL : table;
    sb_puts(&table[1], "<table><thead><tr><th>kernel</th><th>registers</th><th>static shared</th><th>signature, where "
                       "defined, resources</th></tr></thead><tbody>");
    if (rc == 0 && nnames == 0) {
        if (!mc->dev->nkernels) io_printf(mc->io, "stdout", "no kernel has been compiled yet\n"), tp = NULL;
        for (int i = 0; i < mc->dev->nkernels && rc == 0; i++) rc = one(mc, mc->dev->kernels[i].name, (int)block, (size_t)smem, tp, err);
    }
    for (int i = 0; i < nnames && rc == 0; i++) rc = one(mc, names[i], (int)block, (size_t)smem, tp, err);
    sb_puts(&table[1], "</tbody></table>");
    char *plain = sb_take(&table[0]), *html = sb_take(&table[1]);
    if (rc == 0 && tp) io_display_text(mc->io, plain, html);
    free(plain);
    free(html);
    free(names);
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_resources = {
    "resources", "%resources [KERNEL ...] [--block N [--smem BYTES]]",
    "registers, shared and local memory of kernels; occupancy at a block size",
    "From ptxas's report for the architecture compiled for. With no name, every\n"
    "kernel; a template instance (scale<float>) is compiled if need be.\n"
    "--block N adds the kernel's theoretical occupancy at N threads per block:\n"
    "resident blocks and warps per SM, the resource that limits them\n"
    "(registers, shared memory, warp or block slots), the largest block the\n"
    "kernel can have, and the block size with the highest occupancy. --smem\n"
    "adds dynamic shared memory per block. On a GPU the figures are the\n"
    "driver's (cudaOccupancyMaxActiveBlocksPerMultiprocessor); without one they\n"
    "are computed from the kernel's registers and shared memory and the\n"
    "architecture's per-SM limits, and the output says so.",
    resources_line, NULL};
