/* CUDA runtime error codes (and NCCL's results): names and strings as CUDA's own. */
#ifndef ICUDA_CUDA_ERRORS_H
#define ICUDA_CUDA_ERRORS_H

#include <stdbool.h>

/* The cudaError_t values this layer returns itself (driver_types.h). */
enum {
    CUDA_ERR_INVALID_VALUE = 1,
    CUDA_ERR_MEMORY_ALLOCATION = 2,
    CUDA_ERR_INVALID_CONFIGURATION = 9,
    CUDA_ERR_INVALID_SYMBOL = 13,
    CUDA_ERR_INVALID_DEVICE_POINTER = 17,
    CUDA_ERR_INVALID_MEMCPY_DIRECTION = 21,
    CUDA_ERR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERR_NO_DEVICE = 100,
    CUDA_ERR_NOT_SUPPORTED = 801,
    CUDA_ERR_INVALID_DEVICE = 101,
    CUDA_ERR_INVALID_KERNEL_IMAGE = 200,
    CUDA_ERR_INVALID_RESOURCE_HANDLE = 400,
    CUDA_ERR_NOT_READY = 600,
    CUDA_ERR_ILLEGAL_ADDRESS = 700,
    CUDA_ERR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERR_LAUNCH_FAILURE = 719,
    CUDA_ERR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERR_UNKNOWN = 999,
};

const char *cuda_error_name(int code);   /* "cudaErrorInvalidValue" */
const char *cuda_error_string(int code); /* "invalid argument" */
bool cuda_error_known(int code);
/* ncclGetErrorString's text for an ncclResult_t, as NCCL's own. */
const char *nccl_result_string(int result);

#endif
