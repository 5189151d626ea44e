/* runtime/device/occupancy.c: blocks and warps per SM, the limiting resource and
 * the best block size, against numbers worked out by hand from the per-SM
 * limits of compute capability 9.0 (H100) and 7.5 (Turing). */
#include <string.h>

#include "check.h"
#include "runtime/device/occupancy.h"

int main(void) {
    occ_arch_t a;
    int major = 0, minor = 0;
    CHECK(occ_parse_arch("sm_90", &major, &minor) && major == 9 && minor == 0);
    CHECK(occ_parse_arch("sm_121", &major, &minor) && major == 12 && minor == 1);
    CHECK(occ_parse_arch("compute_86", &major, &minor) && major == 8 && minor == 6);
    CHECK(!occ_parse_arch("gfx90a", &major, &minor));
    CHECK(occ_arch_for(9, 0, &a));
    CHECK(a.max_threads_per_sm == 2048 && a.max_blocks_per_sm == 32 && a.smem_per_sm == 228 * 1024);
    occ_arch_t b;
    CHECK(!occ_arch_for(13, 5, &b)); /* unknown: the newest the table has */
    CHECK(b.major == 12 && b.minor == 1);

    occ_result_t r;
    occ_kernel_t k = {16, 0, 0};
    CHECK(occ_compute(&a, &k, 256, &r) == 0);
    /* 8 warps a block: 64 warp slots hold 8 blocks; registers would allow 16 */
    CHECK(r.blocks == 8 && r.warps == 64 && r.max_warps == 64 && r.by_warps == 8 && r.by_regs == 16);
    CHECK(r.by_smem == 228 && r.by_blocks == 32 && r.limited_by == OCC_BY_WARPS);
    CHECK(r.fraction == 1.0);

    k.regs = 64; /* 2048 registers a warp: 8 warps in each quarter of the SM */
    occ_compute(&a, &k, 256, &r);
    CHECK(r.blocks == 4 && r.warps == 32 && r.limited_by == OCC_BY_REGS && r.fraction == 0.5);

    occ_kernel_t s = {16, 48 * 1024, 0}; /* 48 KiB + the driver's 1 KiB: 4 blocks in 228 KiB */
    occ_compute(&a, &s, 128, &r);
    CHECK(r.by_smem == 4 && r.blocks == 4 && r.warps == 16 && r.limited_by == OCC_BY_SMEM);
    s.dynamic_smem = 1; /* one byte more than a block may have without opting in */
    occ_compute(&a, &s, 128, &r);
    CHECK(r.blocks == 0 && strstr(r.why_none, "shared memory"));

    occ_kernel_t big = {255, 0, 0};
    occ_compute(&a, &big, 1024, &r);
    CHECK(r.blocks == 0 && strstr(r.why_none, "registers"));
    CHECK(occ_max_block(&a, &big) == 256);
    occ_compute(&a, &big, 256, &r); /* 8 warps of 8192 registers fill the SM */
    CHECK(r.blocks == 1 && r.warps == 8 && r.limited_by == OCC_BY_REGS);
    CHECK(occ_compute(&a, &big, 0, &r) == -1);
    occ_compute(&a, &k, 2048, &r);
    CHECK(r.blocks == 0 && strstr(r.why_none, "1024"));

    occ_kernel_t small = {16, 0, 0};
    CHECK(occ_max_block(&a, &small) == 1024);
    CHECK(occ_best_block(&a, &small, &r) == 1024 && r.warps == 64);
    CHECK(occ_best_block(&a, &k, &r) == 1024 && r.warps == 32); /* 64 registers: half, whatever the size */
    occ_kernel_t odd = {40, 0, 0}; /* 1280 registers a warp: 12 warps a quarter, 48 in all */
    occ_compute(&a, &odd, 1024, &r);
    CHECK(r.blocks == 1 && r.warps == 32);
    CHECK(occ_best_block(&a, &odd, &r) == 768 && r.warps == 48 && r.blocks == 2);

    occ_arch_t t;
    CHECK(occ_arch_for(7, 5, &t) && t.max_threads_per_sm == 1024 && t.smem_reserved == 0 && t.smem_unit == 256);
    occ_kernel_t k32 = {32, 0, 0};
    occ_compute(&t, &k32, 256, &r);
    CHECK(r.blocks == 4 && r.warps == 32 && r.max_warps == 32 && r.limited_by == OCC_BY_WARPS);

    char w[80];
    CHECK_STR(occ_limit_words(OCC_BY_REGS | OCC_BY_SMEM | OCC_BY_WARPS, w, sizeof w),
              "registers, shared memory and warps per SM");
    CHECK_STR(occ_limit_words(OCC_BY_BLOCKS, w, sizeof w), "blocks per SM");
    return check_report();
}
