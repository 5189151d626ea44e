/* CUDA's runtime types and constants as host cells see them (cuda_runtime.h
 * is built in): cudaError_t with CUDA 13's numbers, cudaMemcpyKind, events,
 * streams, cudaDeviceProp with the fields tutorials read. The calls
 * themselves reach the GPU layer through the interpreter's hooks
 * (gpu_hooks.c); runtime/cuda/cuda_api.c fills these structs, so the field
 * order here and there must agree. */
#include <string.h>
#include "lang.h"
#include "../cuda/cuda_errors.h"
#include "cuda_device_attrs.h"

static const char cuda_protos[] =
    "enum cudaError {\n"
    "cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, \n"
    "cudaErrorInitializationError = 3, cudaErrorCudartUnloading = 4, cudaErrorProfilerDisabled = 5, \n"
    "cudaErrorProfilerNotInitialized = 6, cudaErrorProfilerAlreadyStarted = 7, \n"
    "cudaErrorProfilerAlreadyStopped = 8, cudaErrorInvalidConfiguration = 9, \n"
    "cudaErrorInvalidPitchValue = 12, cudaErrorInvalidSymbol = 13, cudaErrorInvalidHostPointer = 16, \n"
    "cudaErrorInvalidDevicePointer = 17, cudaErrorInvalidTexture = 18, \n"
    "cudaErrorInvalidTextureBinding = 19, cudaErrorInvalidChannelDescriptor = 20, \n"
    "cudaErrorInvalidMemcpyDirection = 21, cudaErrorAddressOfConstant = 22, \n"
    "cudaErrorTextureFetchFailed = 23, cudaErrorTextureNotBound = 24, \n"
    "cudaErrorSynchronizationError = 25, cudaErrorInvalidFilterSetting = 26, \n"
    "cudaErrorInvalidNormSetting = 27, cudaErrorMixedDeviceExecution = 28, \n"
    "cudaErrorNotYetImplemented = 31, cudaErrorMemoryValueTooLarge = 32, cudaErrorStubLibrary = 34, \n"
    "cudaErrorInsufficientDriver = 35, cudaErrorCallRequiresNewerDriver = 36, \n"
    "cudaErrorInvalidSurface = 37, cudaErrorDuplicateVariableName = 43, \n"
    "cudaErrorDuplicateTextureName = 44, cudaErrorDuplicateSurfaceName = 45, \n"
    "cudaErrorDevicesUnavailable = 46, cudaErrorIncompatibleDriverContext = 49, \n"
    "cudaErrorMissingConfiguration = 52, cudaErrorPriorLaunchFailure = 53, \n"
    "cudaErrorLaunchMaxDepthExceeded = 65, cudaErrorLaunchFileScopedTex = 66, \n"
    "cudaErrorLaunchFileScopedSurf = 67, cudaErrorSyncDepthExceeded = 68, \n"
    "cudaErrorLaunchPendingCountExceeded = 69, cudaErrorInvalidDeviceFunction = 98, \n"
    "cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101, cudaErrorDeviceNotLicensed = 102, \n"
    "cudaErrorSoftwareValidityNotEstablished = 103, cudaErrorStartupFailure = 127, \n"
    "cudaErrorInvalidKernelImage = 200, cudaErrorDeviceUninitialized = 201, \n"
    "cudaErrorMapBufferObjectFailed = 205, cudaErrorUnmapBufferObjectFailed = 206, \n"
    "cudaErrorArrayIsMapped = 207, cudaErrorAlreadyMapped = 208, \n"
    "cudaErrorNoKernelImageForDevice = 209, cudaErrorAlreadyAcquired = 210, cudaErrorNotMapped = 211, \n"
    "cudaErrorNotMappedAsArray = 212, cudaErrorNotMappedAsPointer = 213, \n"
    "cudaErrorECCUncorrectable = 214, cudaErrorUnsupportedLimit = 215, \n"
    "cudaErrorDeviceAlreadyInUse = 216, cudaErrorPeerAccessUnsupported = 217, \n"
    "cudaErrorInvalidPtx = 218, cudaErrorInvalidGraphicsContext = 219, \n"
    "cudaErrorNvlinkUncorrectable = 220, cudaErrorJitCompilerNotFound = 221, \n"
    "cudaErrorUnsupportedPtxVersion = 222, cudaErrorJitCompilationDisabled = 223, \n"
    "cudaErrorUnsupportedExecAffinity = 224, cudaErrorUnsupportedDevSideSync = 225, \n"
    "cudaErrorContained = 226, cudaErrorInvalidSource = 300, cudaErrorFileNotFound = 301, \n"
    "cudaErrorSharedObjectSymbolNotFound = 302, cudaErrorSharedObjectInitFailed = 303, \n"
    "cudaErrorOperatingSystem = 304, cudaErrorInvalidResourceHandle = 400, \n"
    "cudaErrorIllegalState = 401, cudaErrorLossyQuery = 402, cudaErrorSymbolNotFound = 500, \n"
    "cudaErrorNotReady = 600, cudaErrorIllegalAddress = 700, cudaErrorLaunchOutOfResources = 701, \n"
    "cudaErrorLaunchTimeout = 702, cudaErrorLaunchIncompatibleTexturing = 703, \n"
    "cudaErrorPeerAccessAlreadyEnabled = 704, cudaErrorPeerAccessNotEnabled = 705, \n"
    "cudaErrorSetOnActiveProcess = 708, cudaErrorContextIsDestroyed = 709, cudaErrorAssert = 710, \n"
    "cudaErrorTooManyPeers = 711, cudaErrorHostMemoryAlreadyRegistered = 712, \n"
    "cudaErrorHostMemoryNotRegistered = 713, cudaErrorHardwareStackError = 714, \n"
    "cudaErrorIllegalInstruction = 715, cudaErrorMisalignedAddress = 716, \n"
    "cudaErrorInvalidAddressSpace = 717, cudaErrorInvalidPc = 718, cudaErrorLaunchFailure = 719, \n"
    "cudaErrorCooperativeLaunchTooLarge = 720, cudaErrorTensorMemoryLeak = 721, \n"
    "cudaErrorNotPermitted = 800, cudaErrorNotSupported = 801, cudaErrorSystemNotReady = 802, \n"
    "cudaErrorSystemDriverMismatch = 803, cudaErrorCompatNotSupportedOnDevice = 804, \n"
    "cudaErrorMpsConnectionFailed = 805, cudaErrorMpsRpcFailure = 806, \n"
    "cudaErrorMpsServerNotReady = 807, cudaErrorMpsMaxClientsReached = 808, \n"
    "cudaErrorMpsMaxConnectionsReached = 809, cudaErrorMpsClientTerminated = 810, \n"
    "cudaErrorCdpNotSupported = 811, cudaErrorCdpVersionMismatch = 812, \n"
    "cudaErrorStreamCaptureUnsupported = 900, cudaErrorStreamCaptureInvalidated = 901, \n"
    "cudaErrorStreamCaptureMerge = 902, cudaErrorStreamCaptureUnmatched = 903, \n"
    "cudaErrorStreamCaptureUnjoined = 904, cudaErrorStreamCaptureIsolation = 905, \n"
    "cudaErrorStreamCaptureImplicit = 906, cudaErrorCapturedEvent = 907, \n"
    "cudaErrorStreamCaptureWrongThread = 908, cudaErrorTimeout = 909, \n"
    "cudaErrorGraphExecUpdateFailure = 910, cudaErrorExternalDevice = 911, \n"
    "cudaErrorInvalidClusterSize = 912, cudaErrorFunctionNotLoaded = 913, \n"
    "cudaErrorInvalidResourceType = 914, cudaErrorInvalidResourceConfiguration = 915, \n"
    "cudaErrorUnknown = 999, cudaErrorApiFailureBase = 10000\n"
    "};\n"
    "typedef enum cudaError cudaError_t;\n"
    "typedef struct CUstream_st *cudaStream_t; typedef struct CUevent_st *cudaEvent_t;\n"
    "enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };\n"
    "struct cudaDeviceProp {\n"
    "    char name[256]; char uuid[16]; size_t totalGlobalMem; size_t sharedMemPerBlock; int regsPerBlock;\n"
    "    int warpSize; size_t memPitch; int maxThreadsPerBlock; int maxThreadsDim[3]; int maxGridSize[3];\n"
    "    int clockRate; size_t totalConstMem; int major; int minor; size_t textureAlignment; int deviceOverlap;\n"
    "    int multiProcessorCount; int kernelExecTimeoutEnabled; int integrated; int canMapHostMemory;\n"
    "    int computeMode; int concurrentKernels; int ECCEnabled; int pciBusID; int pciDeviceID; int pciDomainID;\n"
    "    int asyncEngineCount; int unifiedAddressing; int memoryClockRate; int memoryBusWidth; int l2CacheSize;\n"
    "    int persistingL2CacheMaxSize; int maxThreadsPerMultiProcessor; size_t sharedMemPerMultiprocessor;\n"
    "    int regsPerMultiprocessor; int managedMemory; int maxBlocksPerMultiProcessor;\n"
    "    size_t sharedMemPerBlockOptin; int cooperativeLaunch; int concurrentManagedAccess;\n"
    "};\n"
    "typedef struct cudaDeviceProp cudaDeviceProp;\n"
    "struct cudaFuncAttributes { size_t sharedSizeBytes; size_t constSizeBytes; size_t localSizeBytes;\n"
    "    int maxThreadsPerBlock; int numRegs; int ptxVersion; int binaryVersion; int cacheModeCA;\n"
    "    int maxDynamicSharedSizeBytes; int preferredShmemCarveout; };\n"
    "typedef struct cudaFuncAttributes cudaFuncAttributes;\n"
    "enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,\n"
    "    cudaMemoryTypeManaged = 3 };\n"
    "struct cudaPointerAttributes { enum cudaMemoryType type; int device; void *devicePointer; void *hostPointer;\n"
    "    long reserved[8]; };\n"
    "typedef struct cudaPointerAttributes cudaPointerAttributes;\n"
    "enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1,\n"
    "    cudaMemLocationTypeHost = 2, cudaMemLocationTypeHostNuma = 3, cudaMemLocationTypeHostNumaCurrent = 4 };\n"
    "struct cudaMemLocation { enum cudaMemLocationType type; int id; };\n"
    "enum cudaMemoryAdvise { cudaMemAdviseSetReadMostly = 1, cudaMemAdviseUnsetReadMostly = 2,\n"
    "    cudaMemAdviseSetPreferredLocation = 3, cudaMemAdviseUnsetPreferredLocation = 4,\n"
    "    cudaMemAdviseSetAccessedBy = 5, cudaMemAdviseUnsetAccessedBy = 6 };\n"
    "const char *cudaGetErrorString(cudaError_t); const char *cudaGetErrorName(cudaError_t);\n"
    CUDA_DEVICE_ATTR_ENUM;

static const char cuda_macros[] =
    "#define cudaEventDefault 0x00\n#define cudaEventBlockingSync 0x01\n#define cudaEventDisableTiming 0x02\n"
    "#define cudaStreamDefault 0x00\n#define cudaStreamNonBlocking 0x01\n"
    "#define cudaHostAllocDefault 0x00\n#define cudaHostAllocPortable 0x01\n#define cudaHostAllocMapped 0x02\n"
    "#define cudaHostAllocWriteCombined 0x04\n#define cudaHostRegisterDefault 0x00\n"
    "#define cudaMemAttachGlobal 0x01\n#define cudaMemAttachHost 0x02\n#define cudaMemAttachSingle 0x04\n"
    "#define cudaCpuDeviceId ((int)-1)\n#define cudaInvalidDeviceId ((int)-2)\n"
    "#define cudaStreamLegacy ((cudaStream_t)0x1)\n#define cudaStreamPerThread ((cudaStream_t)0x2)\n"
    "#define CUDART_VERSION 13000\n#define __CUDACC__ 1\n";

const char *builtin_cuda_prototypes(void) { return cuda_protos; }

/* cudaGetErrorString/Name return CUDA's static texts: each becomes a
 * read-only string buffer once per session and code, then is reused (a
 * check in a loop must not make a buffer per call). */
#define ERR_CACHE 64
static struct { uint32_t owner; int code, which; uint64_t word; } err_cache[ERR_CACHE];

static val_t err_text(node_t *c, int code, int which) {
    const char *s = which ? cuda_error_name(code) : cuda_error_string(code);
    unsigned h = ((unsigned)code * 2u + (unsigned)which) % ERR_CACHE;
    if (err_cache[h].owner == g_in->id && err_cache[h].code == code && err_cache[h].which == which &&
        ptr_valid(err_cache[h].word) && g_bufs[ptr_slot(err_cache[h].word)].base == s)
        return (val_t){.u = err_cache[h].word};
    uint32_t slot = buf_new((char *)s, strlen(s) + 1, PLACE_STRLIT, NULL, NULL);
    if (!slot) rt_error(c, "too many buffers");
    g_bufs[slot].owner = g_in->id;
    uint64_t w = ptr_make(slot, 0);
    err_cache[h].owner = g_in->id;
    err_cache[h].code = code;
    err_cache[h].which = which;
    err_cache[h].word = w;
    return (val_t){.u = w};
}

static val_t b_error_string(node_t *c, val_t *a, int n, frame_t *f) { return err_text(c, (int)a[0].i, 0); }
static val_t b_error_name(node_t *c, val_t *a, int n, frame_t *f) { return err_text(c, (int)a[0].i, 1); }

void builtins_cuda_register(interp_t *in) {
    builtin_add(in, "cudaGetErrorString", b_error_string, 0);
    builtin_add(in, "cudaGetErrorName", b_error_name, 0);
    lex_define_text(in, cuda_macros);
}
