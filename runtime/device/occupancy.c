/* Theoretical occupancy (occupancy.h). The model is the one NVIDIA's
 * occupancy calculator describes: registers are handed to warps in units of
 * 256 and split between the SM's four sub-partitions; shared memory is
 * handed to blocks in units of 128 bytes (256 before Ampere) with 1 KiB the
 * driver keeps per block (from Ampere on); an SM also has a fixed number of
 * warp slots and block slots. */
#include "occupancy.h"

#include <stdio.h>
#include <string.h>

/* Per-SM limits by compute capability, as the CUDA C++ Programming Guide's
 * table "Technical Specifications per Compute Capability" gives them
 * (threads and blocks per SM, shared memory per SM and per block with
 * opt-in), and the allocation units of the CUDA Occupancy Calculator
 * (the toolkit's include/cuda_occupancy.h). Every one of these has 64 Ki
 * 32-bit registers per SM and per block, at most 255 per thread, and at
 * most 1024 threads per block. */
static const struct {
    int major, minor, threads_sm, blocks_sm, smem_sm_kib, smem_optin_kib;
} table[] = {
    {7, 0, 2048, 32, 96, 96},   /* V100 */
    {7, 2, 2048, 32, 96, 96},   /* Xavier */
    {7, 5, 1024, 16, 64, 64},   /* Turing */
    {8, 0, 2048, 32, 164, 163}, /* A100 */
    {8, 6, 1536, 16, 100, 99},  /* RTX 30 */
    {8, 7, 2048, 16, 164, 163}, /* Orin */
    {8, 9, 1536, 24, 100, 99},  /* Ada */
    {9, 0, 2048, 32, 228, 227}, /* H100, H200 */
    {10, 0, 2048, 32, 228, 227}, /* B200 */
    {10, 3, 2048, 32, 228, 227}, /* B300 */
    {11, 0, 1536, 24, 228, 227}, /* Thor */
    {12, 0, 1536, 24, 100, 99}, /* RTX 50 */
    {12, 1, 1536, 24, 100, 99}, /* GB10 */
};

bool occ_parse_arch(const char *arch, int *major, int *minor) {
    int v = 0, n = 0;
    if (!arch || (strncmp(arch, "sm_", 3) && strncmp(arch, "compute_", 8))) return false;
    const char *p = arch[0] == 's' ? arch + 3 : arch + 8;
    if (sscanf(p, "%d%n", &v, &n) != 1 || v < 10) return false;
    *major = v / 10;
    *minor = v % 10;
    return true;
}

bool occ_arch_for(int major, int minor, occ_arch_t *a) {
    int pick = 0;
    bool exact = false;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int v = table[i].major * 10 + table[i].minor;
        if (v <= major * 10 + minor) pick = (int)i;
        if (table[i].major == major && table[i].minor == minor) exact = true;
    }
    memset(a, 0, sizeof *a);
    a->major = table[pick].major;
    a->minor = table[pick].minor;
    a->warp_size = 32;
    a->max_threads_per_block = 1024;
    a->max_threads_per_sm = table[pick].threads_sm;
    a->max_blocks_per_sm = table[pick].blocks_sm;
    a->regs_per_sm = a->regs_per_block = 65536;
    a->max_regs_per_thread = 255;
    a->reg_unit = 256;
    a->sub_partitions = 4;
    a->smem_per_sm = table[pick].smem_sm_kib * 1024;
    a->smem_per_block = 48 * 1024;
    a->smem_per_block_optin = table[pick].smem_optin_kib * 1024;
    a->smem_reserved = a->major >= 8 ? 1024 : 0;
    a->smem_unit = a->major >= 8 ? 128 : 256;
    return exact;
}

static int round_up(long x, int unit) { return unit > 0 ? (int)((x + unit - 1) / unit * unit) : (int)x; }

/* Blocks per SM the registers allow, 0 when one block does not fit. */
static int regs_limit(const occ_arch_t *a, const occ_kernel_t *k, int warps, char *why, size_t wn) {
    if (k->regs <= 0) return a->max_blocks_per_sm * 64; /* no registers: never the limit */
    if (k->regs > a->max_regs_per_thread) {
        snprintf(why, wn, "%d registers per thread is more than the %d a thread can have", k->regs,
                 a->max_regs_per_thread);
        return 0;
    }
    int per_warp = round_up((long)k->regs * a->warp_size, a->reg_unit);
    int parts = a->sub_partitions > 0 ? a->sub_partitions : 1;
    /* the hardware checks a block as if its warps filled every sub-partition */
    long assumed = (long)per_warp * round_up(warps, parts);
    if (assumed > a->regs_per_block) {
        snprintf(why, wn, "%d threads of %d registers need %ld registers, more than the %d a block can have",
                 warps * a->warp_size, k->regs, assumed, a->regs_per_block);
        return 0;
    }
    int warps_per_part = (a->regs_per_sm / parts) / per_warp;
    return warps_per_part * parts / warps;
}

static int smem_limit(const occ_arch_t *a, const occ_kernel_t *k, char *why, size_t wn) {
    long need = (long)k->static_smem + (long)k->dynamic_smem + a->smem_reserved;
    long alloc = round_up(need, a->smem_unit);
    /* more than 48 KiB needs cudaFuncSetAttribute, which a launch here does not make */
    long cap = (long)a->smem_per_block + a->smem_reserved;
    if (alloc > cap) {
        snprintf(why, wn, "%ld bytes of shared memory per block is more than the %d a block can have",
                 need - a->smem_reserved, a->smem_per_block);
        return 0;
    }
    return alloc > 0 ? (int)(a->smem_per_sm / alloc) : a->max_blocks_per_sm * 64;
}

int occ_compute(const occ_arch_t *a, const occ_kernel_t *k, int block, occ_result_t *r) {
    memset(r, 0, sizeof *r);
    if (block <= 0) return -1;
    r->block = block;
    int ws = a->warp_size > 0 ? a->warp_size : 32;
    int warps = (block + ws - 1) / ws;
    r->max_warps = a->max_threads_per_sm / ws;
    if (block > a->max_threads_per_block) {
        snprintf(r->why_none, sizeof r->why_none, "a block holds at most %d threads", a->max_threads_per_block);
        return 0;
    }
    r->by_warps = r->max_warps / warps;
    r->by_blocks = a->max_blocks_per_sm;
    r->by_regs = regs_limit(a, k, warps, r->why_none, sizeof r->why_none);
    char why2[160] = "";
    r->by_smem = smem_limit(a, k, why2, sizeof why2);
    if (!r->why_none[0] && why2[0]) snprintf(r->why_none, sizeof r->why_none, "%s", why2);
    int n = r->by_warps;
    if (r->by_regs < n) n = r->by_regs;
    if (r->by_smem < n) n = r->by_smem;
    if (r->by_blocks < n) n = r->by_blocks;
    r->blocks = n;
    r->warps = n * warps;
    r->fraction = r->max_warps ? (double)r->warps / r->max_warps : 0;
    if (n == r->by_warps) r->limited_by |= OCC_BY_WARPS;
    if (n == r->by_regs) r->limited_by |= OCC_BY_REGS;
    if (n == r->by_smem) r->limited_by |= OCC_BY_SMEM;
    if (n == r->by_blocks) r->limited_by |= OCC_BY_BLOCKS;
    if (n > 0) r->why_none[0] = 0;
    return 0;
}

int occ_max_block(const occ_arch_t *a, const occ_kernel_t *k) {
    int ws = a->warp_size > 0 ? a->warp_size : 32;
    for (int b = a->max_threads_per_block / ws * ws; b >= ws; b -= ws) {
        occ_result_t r;
        occ_compute(a, k, b, &r);
        if (r.by_regs > 0) return b; /* what the kernel's registers allow in one block */
    }
    return 0;
}

int occ_best_block(const occ_arch_t *a, const occ_kernel_t *k, occ_result_t *best) {
    int ws = a->warp_size > 0 ? a->warp_size : 32;
    int pick = 0;
    memset(best, 0, sizeof *best);
    for (int b = a->max_threads_per_block / ws * ws; b >= ws; b -= ws) {
        occ_result_t r;
        occ_compute(a, k, b, &r);
        if (r.blocks > 0 && r.warps > best->warps) {
            *best = r;
            pick = b;
        }
    }
    return pick;
}

const char *occ_limit_words(unsigned by, char *buf, size_t n) {
    const char *w[4] = {NULL, NULL, NULL, NULL};
    int c = 0;
    if (by & OCC_BY_REGS) w[c++] = "registers";
    if (by & OCC_BY_SMEM) w[c++] = "shared memory";
    if (by & OCC_BY_WARPS) w[c++] = "warps per SM";
    if (by & OCC_BY_BLOCKS) w[c++] = "blocks per SM";
    buf[0] = 0;
    size_t o = 0;
    for (int i = 0; i < c && o < n; i++) {
        const char *sep = i == 0 ? "" : i == c - 1 ? " and " : ", ";
        int k = snprintf(buf + o, n - o, "%s%s", sep, w[i]);
        if (k < 0) break;
        o += (size_t)k;
    }
    return buf;
}
