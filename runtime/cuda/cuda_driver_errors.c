/* Driver and worker results as the runtime API reports them
 * (cuda_internal.h). */
#include "cuda_internal.h"

int cuda_error_from_driver(int cu) {
    switch (cu) {
    case CUDA_SUCCESS: return 0;
    case GPU_ERR_WORKER_DIED: return CUDA_ERR_LAUNCH_FAILURE;
    case GPU_ERR_INTERRUPTED: return CUDA_ERR_LAUNCH_FAILURE;
    case GPU_ERR_NO_WORKER: return CUDA_ERR_INSUFFICIENT_DRIVER;
    case CUDA_ERROR_NOT_FOUND: return 500; /* cudaErrorSymbolNotFound */
    case CUDA_ERROR_INVALID_HANDLE: return 400;
    case CUDA_ERROR_INVALID_IMAGE: return 200;
    default:
        /* the runtime's codes repeat the driver's numbers for everything
         * these calls can meet (700 illegal address, 710 assert, ...) */
        return cuda_error_known(cu) ? cu : 999;
    }
}
