/* The CUDA driver API, loaded at run time from libcuda.so.1 with dlopen, so
 * that icuda runs (and says clearly that no driver is present) on machines
 * without a GPU. Only the worker process calls into the driver; the kernel
 * process uses the static name table (cuda_result_name) alone.
 *
 * Fields carry the names the CUDA headers give, so code reads
 *   D->cuMemAlloc(&p, n)
 * and cuda.h's macros map both the field and the looked-up symbol to the
 * versioned entry point (cuMemAlloc -> cuMemAlloc_v2, ...). */
#ifndef ICUDA_CUDA_DRIVER_H
#define ICUDA_CUDA_DRIVER_H

#include <cuda.h>

#define CUDA_DRIVER_FUNCS(X)                                                   \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString)      \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)                      \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                                \
    X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                   \
    X(cuDevicePrimaryCtxReset) X(cuCtxSetCurrent) X(cuCtxSynchronize)          \
    X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload)                \
    X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuFuncGetAttribute)          \
    X(cuLaunchKernel) X(cuLaunchCooperativeKernel)                             \
    X(cuOccupancyMaxPotentialBlockSize)                                        \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                             \
    X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo)                                 \
    X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)                            \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)             \
    X(cuMemsetD8) X(cuMemsetD8Async)                                           \
    X(cuMemHostRegister) X(cuMemHostUnregister)                                \
    X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize)                    \
    X(cuEventElapsedTime) X(cuEventQuery) X(cuEventDestroy)                    \
    X(cuStreamCreate) X(cuStreamSynchronize) X(cuStreamQuery)                  \
    X(cuStreamDestroy)                                                         \
    X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemCreate) X(cuMemRelease)  \
    X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess)                                \
    X(cuMemGetAllocationGranularity) X(cuMemHostGetDevicePointer)          \
    X(cuCtxGetCurrent) X(cuStreamCreateWithPriority) X(cuFuncSetAttribute)    \
    X(cuFuncSetCacheConfig) X(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) \
    X(cuOccupancyMaxPotentialBlockSizeWithFlags)                             \
    X(cuOccupancyAvailableDynamicSMemPerBlock)

typedef struct cuda_driver {
#define CUDA_DRIVER_FIELD(f) __typeof__(&f) f;
    CUDA_DRIVER_FUNCS(CUDA_DRIVER_FIELD)
#undef CUDA_DRIVER_FIELD
    void *lib;
} cuda_driver_t;

/* Loads libcuda.so.1 and resolves every function (once; later calls return the
 * same table). NULL on failure, with *why (static text) saying what is
 * missing, e.g. "no CUDA driver: libcuda.so.1 not found". */
const cuda_driver_t *cuda_driver_load(const char **why);

/* "CUDA_ERROR_ILLEGAL_ADDRESS" for 700, from a table built into icuda (no
 * driver needed); NULL for a code the table does not know. */
const char *cuda_result_name(int code);

/* Errors after which the context is unusable (a new process is the cure). */
int cuda_result_is_sticky(int code);

#endif
