#!/bin/sh
# Host interpreter loop benchmark: builds bench/host_loop (the interpreter,
# runtime/lang + runtime/hostmem, built -O2 like the Makefile) and the plain C
# loops with gcc -O0 and -O2, then prints iterations per second for each.
# Usage: sh bench/host_loop.sh [N]   (run from the repository root)
set -e
N=${1:-10000000}
OUT=build/bench
mkdir -p $OUT
CC=${CC:-gcc}
FLAGS="-O2 -g -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -pthread -I. -I${CUDA:-/usr/local/cuda}/include"
# what the interpreter links (the Makefile's FUZZ_LANG): runtime/lang at any
# depth, runtime/base's pieces it uses, and CUDA's error codes and generated
# declarations (runtime/toolkit/cuda_errors.c, build/gen: no GPU needed)
$CC $FLAGS bench/host_loop.c $(find runtime/lang -name "*.c") runtime/base/utf8.c runtime/base/cache_evict.c \
    runtime/base/cell_io.c runtime/base/xalloc.c runtime/base/strbuf.c runtime/hostmem/arena.c \
    $(ls runtime/toolkit/cuda_errors.c build/gen/crt_decls.c build/gen/clib_decls.c 2>/dev/null) \
    -o $OUT/host_loop -ljansson -lm -ldl
$CC -O0 bench/loop_native.c -o $OUT/loop_O0
$CC -O2 bench/loop_native.c -o $OUT/loop_O2
$OUT/host_loop $N
echo "gcc -O0: $($OUT/loop_O0 $N | awk '{print "dot " $1 " M/s, rand " $2 " M/s"}')"
echo "gcc -O2: $($OUT/loop_O2 $N | awk '{print "dot " $1 " M/s, rand " $2 " M/s"}')"
