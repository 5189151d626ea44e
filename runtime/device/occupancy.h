/* Theoretical occupancy of a kernel: how many of its blocks an SM holds at
 * a block size, and which resource runs out first (registers, shared
 * memory, warp slots, block slots). %resources --block uses it without a
 * GPU (limits from a table by compute capability) and on one (limits from
 * the device, to name the limiting resource beside the driver's figure). */
#ifndef ICUDA_OCCUPANCY_H
#define ICUDA_OCCUPANCY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct occ_arch {
    int major, minor;
    int warp_size;
    int max_threads_per_block;
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int regs_per_sm, regs_per_block, max_regs_per_thread;
    int reg_unit;           /* registers are given to a warp in units of this many */
    int sub_partitions;     /* an SM's register file is split between these */
    int smem_per_sm;        /* bytes of shared memory blocks may share (largest carve-out) */
    int smem_per_block;     /* without opting in (48 KiB) */
    int smem_per_block_optin;
    int smem_reserved;      /* the driver's own shared memory per block */
    int smem_unit;          /* shared memory is given to a block in units of this many */
} occ_arch_t;

/* The limits of compute capability major.minor from icuda's table; false
 * when the table does not know it (then out holds the nearest older one). */
bool occ_arch_for(int major, int minor, occ_arch_t *out);
/* "sm_90" -> 9, 0; false when arch is not of that form. */
bool occ_parse_arch(const char *arch, int *major, int *minor);

typedef struct occ_kernel {
    int regs;             /* per thread */
    int static_smem;      /* bytes */
    size_t dynamic_smem;  /* bytes, per launch */
} occ_kernel_t;

enum { OCC_BY_WARPS = 1, OCC_BY_REGS = 2, OCC_BY_SMEM = 4, OCC_BY_BLOCKS = 8 };

typedef struct occ_result {
    int block;             /* threads per block asked about */
    int blocks;            /* resident blocks per SM */
    int warps, max_warps;  /* resident warps per SM, and the most an SM holds */
    double fraction;       /* warps / max_warps */
    /* blocks per SM each resource allows on its own */
    int by_warps, by_regs, by_smem, by_blocks;
    unsigned limited_by;   /* OCC_BY_* of those equal to blocks */
    char why_none[160];    /* when blocks == 0: why no block fits */
} occ_result_t;

/* Occupancy at block threads per block. 0, or -1 for a block size that is
 * not positive. */
int occ_compute(const occ_arch_t *a, const occ_kernel_t *k, int block, occ_result_t *r);
/* The largest block size (a multiple of the warp size) that fits at all. */
int occ_max_block(const occ_arch_t *a, const occ_kernel_t *k);
/* The block size with the highest occupancy (the largest such, as the
 * driver's cuOccupancyMaxPotentialBlockSize picks), with its result. 0 when
 * no block size fits. */
int occ_best_block(const occ_arch_t *a, const occ_kernel_t *k, occ_result_t *best);
/* "registers", "shared memory and warps", ...: the limiters of r, in words. */
const char *occ_limit_words(unsigned limited_by, char *buf, size_t n);

#endif
