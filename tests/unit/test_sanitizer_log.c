/* runtime/cuda/sanitizer_log.c on sample reports written after the formats
 * compute-sanitizer's documentation and users' posted logs show (memcheck,
 * racecheck, initcheck, synccheck, an older "file:line:function" form),
 * with lines it must keep as text rather than lose. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime/cuda/sanitizer_log.h"

static const char memcheck_log[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at oob(int *, int)+0x70 in cell.cu:7\n"
    "=========     by thread (8,0,0) in block (3,0,0)\n"
    "=========     Address 0x7f5c92600fa0 is out of bounds\n"
    "=========     and is 0 bytes after the nearest allocation at 0x7f5c92600000 of size 4000 bytes\n"
    "=========     Device Frame: oob(int *, int)+0x70 in cell.cu:7\n"
    "=========\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at oob(int *, int)+0x70 in cell.cu:7\n"
    "=========     by thread (9,0,0) in block (3,0,0)\n"
    "=========     Address 0x7f5c92600fa4 is out of bounds\n"
    "=========     and is 4 bytes after the nearest allocation at 0x7f5c92600000 of size 4000 bytes\n"
    "=========\n"
    "========= Invalid __global__ read of size 8 bytes\n"
    "=========     at void scale<double>(double *, double, int)+0x60 in cell.cu:12\n"
    "=========     by thread (0, 0, 0) in block (0, 0, 0)\n"
    "=========     Access at 0x7f5c923ffff8 is out of bounds\n"
    "=========     and is 8 bytes before the nearest allocation at 0x7f5c92400000 of size 1,024 bytes\n"
    "=========     Some line the parser has never seen\n"
    "=========\n"
    "hello from the program\n"
    "========= Warning: something the tool wants to say\n"
    "=========\n"
    "========= Program hit CUDA_ERROR_LAUNCH_FAILED (error 719) due to \"unspecified launch failure\" on CUDA API "
    "call to cuCtxSynchronize.\n"
    "=========\n"
    "========= ERROR SUMMARY: 4 errors\n"
    "========= ERROR SUMMARY: 7 errors were not printed. Use --print-limit option to adjust the number of printed "
    "errors\n";

static const char racecheck_log[] =
    "========= COMPUTE-SANITIZER\n"
    "========= Error: Race reported between Write access at reverse(float *)+0x150 in cell.cu:5\n"
    "=========     and Read access at reverse(float *)+0x160 in cell.cu:6 [4064 hazards]\n"
    "=========     and Read access at reverse(float *)+0x170 in cell.cu:6 [32 hazards]\n"
    "=========\n"
    "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";

static const char other_forms[] =
    "========= CUDA-MEMCHECK\n"
    "========= Invalid __global__ read of size 8\n"
    "=========     at 0x000000c8 in /home/u/src/my_helper.cuh:75:void vector_projection<double>(double*, int)\n"
    "=========     by thread (9,0,0) in block (0,0,0)\n"
    "=========     Address 0x000370e8 is out of bounds\n"
    "=========\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at 0x90 in IncrementTwice(unsigned int*)\n"
    "=========     by thread (0,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f6f67000000 is not writable\n"
    "=========\n"
    "========= Invalid __global__ write of size 4 bytes\n"
    "=========     at unaligned_kernel():0x160 in memcheck_demo.cu:6\n"
    "=========     by thread (0,0,0) in block (0,0,0)\n"
    "=========     Address 0x7f6510c00001 is misaligned\n"
    "=========\n"
    "========= Uninitialized __global__ memory read of size 4 bytes\n"
    "=========     at vector_add(float const *, float const *, float *, unsigned long)+0x130 in /input/kernel.cu:8\n"
    "=========     by thread (0,0,0) in block (0,0,0)\n"
    "========= Barrier error detected. Divergent thread(s) in warp\n"
    "=========     at divergent(int *)+0x70 in cell.cu:14\n"
    "=========     by thread (37,0,0) in block (0,0,0)\n"
    "========= ERROR SUMMARY: 5 errors\n";

int main(void) {
    san_log_t log;
    san_log_parse(memcheck_log, &log);
    CHECK(log.n == 4);
    CHECK(log.errors == 4 && log.not_printed == 7);
    const san_finding_t *f = &log.findings[0];
    CHECK_STR(f->what, "Invalid __global__ write of size 4 bytes");
    CHECK(f->nsites == 1 && f->sites[0].line == 7 && f->sites[0].have_pc && f->sites[0].pc == 0x70);
    CHECK_STR(f->sites[0].function, "oob(int *, int)");
    CHECK_STR(f->sites[0].file, "cell.cu");
    CHECK(f->have_thread && f->thread[0] == 8 && f->thread[1] == 0 && f->block[0] == 3);
    CHECK(f->have_address && f->address == 0x7f5c92600fa0ull);
    CHECK_STR(f->address_note, "is out of bounds");
    CHECK(f->have_nearest && f->nearest_base == 0x7f5c92600000ull && f->nearest_size == 4000);
    CHECK_STR(f->nearest_rel, "0 bytes after");
    CHECK(f->detail && strstr(f->detail, "Device Frame: oob(int *, int)+0x70 in cell.cu:7"));
    f = &log.findings[2];
    CHECK_STR(f->sites[0].function, "void scale<double>(double *, double, int)");
    CHECK(f->sites[0].line == 12 && f->have_thread && f->thread[0] == 0);
    CHECK(f->nearest_size == 1024 && !strcmp(f->nearest_rel, "8 bytes before"));
    CHECK(f->address == 0x7f5c923ffff8ull);
    CHECK(f->detail && strstr(f->detail, "Some line the parser has never seen"));
    CHECK(log.findings[3].api && strstr(log.findings[3].what, "cuCtxSynchronize"));
    CHECK(log.other && strstr(log.other, "hello from the program") &&
          strstr(log.other, "Warning: something the tool wants to say"));
    san_group_t *g;
    int ng = san_log_group(&log, &g);
    CHECK(ng == 3 && g[0].count == 2 && g[0].first == &log.findings[0] && g[1].count == 1 && g[2].count == 1);
    free(g);
    san_log_free(&log);

    san_log_parse(racecheck_log, &log);
    CHECK(log.n == 1 && log.errors == 1);
    f = &log.findings[0];
    CHECK_STR(f->what, "Race reported");
    CHECK(f->nsites == 3);
    CHECK_STR(f->sites[0].access, "Write access");
    CHECK_STR(f->sites[1].access, "Read access");
    CHECK(f->sites[0].line == 5 && f->sites[1].line == 6 && f->sites[1].hazards == 4064 && f->sites[2].hazards == 32);
    CHECK_STR(f->sites[1].function, "reverse(float *)");
    CHECK(strstr(log.summary, "RACECHECK SUMMARY") != NULL);
    san_log_free(&log);

    san_log_parse(other_forms, &log);
    CHECK(log.n == 5 && log.errors == 5);
    f = &log.findings[0];
    CHECK_STR(f->sites[0].file, "/home/u/src/my_helper.cuh");
    CHECK(f->sites[0].line == 75 && f->sites[0].pc == 0xc8);
    CHECK_STR(f->sites[0].function, "void vector_projection<double>(double*, int)");
    f = &log.findings[1];
    CHECK_STR(f->sites[0].function, "IncrementTwice(unsigned int*)");
    CHECK(f->sites[0].line == 0 && f->sites[0].pc == 0x90 && !strcmp(f->address_note, "is not writable"));
    f = &log.findings[2];
    CHECK_STR(f->sites[0].function, "unaligned_kernel()");
    CHECK(f->sites[0].pc == 0x160 && f->sites[0].line == 6 && !strcmp(f->address_note, "is misaligned"));
    CHECK_STR(log.findings[3].what, "Uninitialized __global__ memory read of size 4 bytes");
    CHECK(log.findings[3].sites[0].line == 8);
    CHECK_STR(log.findings[4].what, "Barrier error detected. Divergent thread(s) in warp");
    CHECK(log.findings[4].thread[0] == 37);
    CHECK(log.other && strstr(log.other, "CUDA-MEMCHECK"));
    san_log_free(&log);

    san_log_parse("", &log); /* nothing at all: no findings, no summary */
    CHECK(log.n == 0 && log.errors == -1 && !log.other);
    san_log_free(&log);
    san_log_parse("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", &log);
    CHECK(log.n == 0 && log.errors == 0);
    san_log_free(&log);
    /* truncated mid-finding, odd bytes: no crash, the headline kept */
    san_log_parse("========= Invalid __shared__ read of size 4 bytes\n=========     at k(\xff\n=========     by thread (1,2", &log);
    CHECK(log.n == 1 && log.findings[0].nsites == 1 && !log.findings[0].have_thread);
    san_log_free(&log);
    return check_report();
}
