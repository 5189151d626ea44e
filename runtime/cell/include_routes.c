#include "include_routes.h"

#include <ctype.h>
#include <string.h>

/* NVRTC 13 opens none of the C or C++ standard headers itself (checked:
 * every one is "cannot open source file"); the C ones that device code meets
 * have stand-ins (device_headers.c), so they go to both sides. */
static const char *const both[] = {
    "stdio.h",  "cstdio",   "stdlib.h", "cstdlib", "string.h", "cstring", "math.h",    "cmath",
    "stdint.h", "cstdint",  "inttypes.h", "cinttypes", "assert.h", "cassert", "limits.h", "climits",
    "float.h",  "cfloat",   "time.h",   "ctime",   "stddef.h", "cstddef", "stdbool.h", "sys/time.h",
    "strings.h", NULL,
};

/* What host code is written against and the interpreter provides (or its
 * C++ part will): never NVRTC's business. cuda_runtime.h and friends
 * compile under NVRTC but add nothing a kernel lacks there (NVRTC has the
 * vector types, dim3, the intrinsics built in); cuda.h, cufft.h,
 * cublas_v2.h, nccl.h, nvToolsExt.h and cuda_profiler_api.h do not compile there. */
static const char *const host[] = {
    "iostream", "algorithm", "vector", "chrono", "iomanip", "numeric", "memory", "string", "random", "limits",
    "utility", "functional", "ctype.h", "cctype", "iterator",
    "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "cuda_profiler_api.h", "curand.h", "cublas_v2.h",
    "cufft.h", "nvtx3/nvToolsExt.h", "nvToolsExt.h", "device_launch_parameters.h", "nccl.h", NULL,
};

/* Host libraries of the toolkit icuda does not interpret (prefixes): they
 * exist under the toolkit's include folder, and NVRTC refuses them. */
static const char *const host_libraries[] = {
    "thrust/", "cusparse", "cusolver", "cublasLt", "cublasXt", "cublas.h", "cublas_api.h", "cufftXt", "cufftw",
    "cudnn", "npp", "nvml", "nvrtc", "nvjpeg", "nvJitLink", "nvPTXCompiler", "cupti", "cudaGL", "cudaEGL",
    "cudaVDPAU", "cuda_gl_interop", "cuda_egl_interop", "cuda_vdpau_interop", "cudaProfiler", "cudaTypedefs",
    "cuda_occupancy.h", "cufile", "cudla", "nvtx3/", "nvToolsExt", "curand_mtgp32_host.h", NULL,
};

/* Device libraries (prefixes), known without looking at the disk. */
static const char *const device[] = {
    "cooperative_groups", "curand_kernel.h", "curand_", "cuda/", "cub/", "mma.h", "cuda_fp16", "cuda_bf16",
    "cuda_fp8", "cuda_fp6", "cuda_fp4", "cuda_pipeline", "cuda_awbarrier", "sm_", "crt/", "vector_types.h",
    "vector_functions.h", "builtin_types.h", "driver_types.h", "cuComplex.h", "cuda_device_runtime_api.h",
    "texture_types.h", "surface_types.h", "math_constants.h", "device_functions.h", "device_atomic_functions.h",
    NULL,
};

static bool in_list(const char *const *list, const char *name, bool prefix) {
    for (int i = 0; list[i]; i++)
        if (prefix ? !strncmp(name, list[i], strlen(list[i])) : !strcmp(name, list[i])) return true;
    return false;
}

include_route_t include_route(const char *name) {
    if (in_list(both, name, false)) return INC_BOTH;
    if (in_list(host, name, false)) return INC_HOST;
    if (in_list(host_libraries, name, true)) return INC_HOST_LIBRARY;
    if (in_list(device, name, true)) return INC_DEVICE;
    return INC_UNKNOWN;
}

bool include_name(const char *text, size_t len, char *name, size_t cap, bool *angle) {
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i])) i++;
    if (i >= len || (text[i] != '<' && text[i] != '"')) return false;
    char close = text[i] == '<' ? '>' : '"';
    *angle = close == '>';
    size_t a = ++i;
    while (i < len && text[i] != close && text[i] != '\n') i++;
    if (i >= len || text[i] != close || i == a || i - a >= cap) return false;
    memcpy(name, text + a, i - a);
    name[i - a] = 0;
    return true;
}
