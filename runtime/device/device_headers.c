#include "device_headers.h"

/* printf, malloc/free, memcpy/memset, clock() and the math functions are
 * NVRTC built-ins, so most stand-ins are empty or add a few macros. */
#define STDINT                                                                  \
    "#pragma once\n#include <cuda/std/cstdint>\n"
#define LIMITS "#pragma once\n#include <cuda/std/climits>\n"
#define FLOATS                                                                  \
    "#pragma once\n#include <cuda/std/cfloat>\n"                                \
    "#ifndef FLT_MAX\n#define FLT_MAX 3.40282347e+38F\n#define FLT_MIN 1.17549435e-38F\n" \
    "#define FLT_EPSILON 1.19209290e-07F\n#define DBL_MAX 1.7976931348623157e+308\n"      \
    "#define DBL_MIN 2.2250738585072014e-308\n#define DBL_EPSILON 2.2204460492503131e-16\n" \
    "#endif\n"
#define MATH                                                                    \
    "#pragma once\n#ifndef M_PI\n#define M_E 2.7182818284590452354\n"          \
    "#define M_LOG2E 1.4426950408889634074\n#define M_LN2 0.69314718055994530942\n"        \
    "#define M_PI 3.14159265358979323846\n#define M_PI_2 1.57079632679489661923\n"         \
    "#define M_SQRT2 1.41421356237309504880\n#endif\n"                                     \
    "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n"                      \
    "#define NAN __int_as_float(0x7fffffff)\n#endif\n"                                    \
    /* std::sqrt and friends, as nvcc's <cmath> gives device code: NVRTC has */            \
    /* the global overloads built in */                                                    \
    "namespace std { using ::sqrt; using ::cbrt; using ::fabs; using ::abs; using ::exp; "  \
    "using ::exp2; using ::expm1; using ::log; using ::log2; using ::log10; using ::log1p; " \
    "using ::pow; using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; "       \
    "using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh; using ::asinh; " \
    "using ::acosh; using ::atanh; using ::floor; using ::ceil; using ::round; "             \
    "using ::trunc; using ::rint; using ::nearbyint; using ::lround; using ::llround; "      \
    "using ::fmin; using ::fmax; using ::fmod; using ::remainder; using ::hypot; "          \
    "using ::erf; using ::erfc; using ::tgamma; using ::lgamma; using ::fma; "               \
    "using ::copysign; using ::fdim; using ::ldexp; using ::frexp; using ::modf; "          \
    "using ::isnan; using ::isinf; using ::isfinite; using ::signbit; using ::min; "       \
    "using ::max; }\n"
#define EMPTY "#pragma once\n"
#define STDDEF "#pragma once\n#include <cuda/std/cstddef>\n"
#define STDBOOL "#pragma once\n"
/* gettimeofday is the host's; device code that declares a struct timeval
 * still compiles */
#define SYS_TIME                                                                \
    "#pragma once\nstruct timeval { long tv_sec; long tv_usec; };\n"           \
    "struct timezone { int tz_minuteswest; int tz_dsttime; };\n"
/* CUB's umbrella header pulls in its device-wide algorithms, which are host
 * code (they launch kernels) and need the C++ host library: under NVRTC it
 * stands for the parts a kernel can use, block, warp and thread level. So
 * do the device-wide algorithms' own headers (cub/device/device_reduce.cuh
 * ...) and the caching allocator's (util_allocator.cuh, which includes
 * <map> and <set>): a cell that includes one for its host code still
 * compiles its kernels, and a kernel that names cub::Device... gets the
 * hint that such code runs with %%program. */
#define CUB_KERNEL_PARTS                                                        \
    "#pragma once\n#include <cub/config.cuh>\n"                                 \
    "#include <cub/block/block_adjacent_difference.cuh>\n#include <cub/block/block_discontinuity.cuh>\n" \
    "#include <cub/block/block_exchange.cuh>\n#include <cub/block/block_histogram.cuh>\n"  \
    "#include <cub/block/block_load.cuh>\n#include <cub/block/block_merge_sort.cuh>\n"     \
    "#include <cub/block/block_radix_rank.cuh>\n#include <cub/block/block_radix_sort.cuh>\n" \
    "#include <cub/block/block_reduce.cuh>\n#include <cub/block/block_scan.cuh>\n"         \
    "#include <cub/block/block_store.cuh>\n#include <cub/thread/thread_load.cuh>\n"        \
    "#include <cub/thread/thread_operators.cuh>\n#include <cub/thread/thread_reduce.cuh>\n" \
    "#include <cub/thread/thread_scan.cuh>\n#include <cub/thread/thread_store.cuh>\n"      \
    "#include <cub/warp/warp_exchange.cuh>\n#include <cub/warp/warp_load.cuh>\n"          \
    "#include <cub/warp/warp_merge_sort.cuh>\n#include <cub/warp/warp_reduce.cuh>\n"      \
    "#include <cub/warp/warp_scan.cuh>\n#include <cub/warp/warp_store.cuh>\n"            \
    "#include <cub/iterator/arg_index_input_iterator.cuh>\n"                             \
    "#include <cub/iterator/cache_modified_input_iterator.cuh>\n"                        \
    "#include <cub/iterator/cache_modified_output_iterator.cuh>\n"                       \
    "#include <cub/util_ptx.cuh>\n#include <cub/util_type.cuh>\n"

const device_header_t device_std_headers[] = {
    {"stdio.h", EMPTY},    {"cstdio", EMPTY},     {"stdlib.h", EMPTY},  {"cstdlib", EMPTY},
    {"string.h", EMPTY},   {"cstring", EMPTY},    {"assert.h", EMPTY},  {"cassert", EMPTY},
    {"time.h", EMPTY},     {"ctime", EMPTY},      {"math.h", MATH},     {"cmath", MATH},
    {"stdint.h", STDINT},  {"cstdint", STDINT},   {"inttypes.h", STDINT}, {"cinttypes", STDINT}, {"limits.h", LIMITS},
    {"climits", LIMITS},   {"float.h", FLOATS},   {"cfloat", FLOATS},   {"stddef.h", STDDEF},
    {"cstddef", STDDEF},   {"stdbool.h", STDBOOL}, {"sys/time.h", SYS_TIME}, {"strings.h", EMPTY},
    {"cub/cub.cuh", CUB_KERNEL_PARTS},
    {"cub/util_allocator.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_adjacent_difference.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_copy.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_for.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_histogram.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_memcpy.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_merge.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_merge_sort.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_partition.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_radix_sort.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_reduce.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_run_length_encode.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_scan.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_segmented_radix_sort.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_segmented_reduce.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_segmented_scan.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_segmented_sort.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_select.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_spmv.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_transform.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_find.cuh", CUB_KERNEL_PARTS},
    {"cub/device/device_topk.cuh", CUB_KERNEL_PARTS},
};
const int device_std_header_count = sizeof device_std_headers / sizeof device_std_headers[0];
