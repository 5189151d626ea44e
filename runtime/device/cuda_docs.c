/* Descriptions of CUDA's device built-ins and common runtime functions, in
 * icuda's own words, for Shift-Tab and completion (cuda_docs.h). */
#include "cuda_docs.h"

#include <stddef.h>
#include <string.h>

#define V(n, sig, doc) {n, "variable", sig, doc}
#define F(n, sig, doc) {n, "function", sig, doc}
#define K(n, sig, doc) {n, "keyword", sig, doc}
#define T(n, sig, doc) {n, "type", sig, doc}

const cuda_builtin_t cuda_builtins[] = {
    V("threadIdx", "uint3 threadIdx", "This thread's index inside its block (.x, .y, .z), from 0 to blockDim-1."),
    V("blockIdx", "uint3 blockIdx", "This block's index inside the grid (.x, .y, .z), from 0 to gridDim-1."),
    V("blockDim", "dim3 blockDim", "How many threads each block has in x, y and z (the launch's second <<<>>> argument)."),
    V("gridDim", "dim3 gridDim", "How many blocks the grid has in x, y and z (the launch's first <<<>>> argument)."),
    V("warpSize", "int warpSize", "Threads per warp: 32 on every GPU so far."),
    K("__global__", "__global__ void name(params)", "Marks a kernel: a function that runs on the GPU and is launched from the host with <<<grid, block>>>."),
    K("__device__", "__device__ T name(params)", "A function or variable that lives on the GPU, callable or usable only from device code."),
    K("__host__", "__host__ T name(params)", "A function compiled for the CPU; with __device__ too, for both sides."),
    K("__constant__", "__constant__ T name", "A read-only (for kernels) variable in the GPU's cached constant memory; set it with cudaMemcpyToSymbol."),
    K("__shared__", "__shared__ T name[N]", "Memory shared by the threads of one block, fast and on chip; it lasts as long as the block."),
    K("__managed__", "__managed__ T name", "A variable that host and device code both use directly (unified memory)."),
    K("__restrict__", "T *__restrict__ p", "Promises the compiler that this pointer does not alias another, so loads can be cached and reordered."),
    K("__launch_bounds__", "__launch_bounds__(maxThreads, minBlocks)", "Tells the compiler a kernel's largest block size (and blocks per SM wanted), so it can budget registers."),
    K("__forceinline__", "__forceinline__", "Asks the compiler to always inline this device function."),
    K("__noinline__", "__noinline__", "Asks the compiler never to inline this device function."),
    F("__syncthreads", "void __syncthreads()", "Waits until every thread of the block reaches this point, and makes their shared and global writes visible to one another."),
    F("__syncthreads_count", "int __syncthreads_count(int predicate)", "Like __syncthreads; returns how many threads of the block passed a true predicate."),
    F("__syncthreads_and", "int __syncthreads_and(int predicate)", "Like __syncthreads; returns non-zero when the predicate was true in every thread of the block."),
    F("__syncthreads_or", "int __syncthreads_or(int predicate)", "Like __syncthreads; returns non-zero when the predicate was true in any thread of the block."),
    F("__syncwarp", "void __syncwarp(unsigned mask = 0xffffffff)", "Waits for the threads of the warp named in mask, ordering their memory accesses."),
    F("__threadfence", "void __threadfence()", "Makes this thread's earlier writes visible to the whole device before its later ones."),
    F("__threadfence_block", "void __threadfence_block()", "Orders this thread's writes as seen by the other threads of its block."),
    F("__threadfence_system", "void __threadfence_system()", "Orders this thread's writes as seen by the whole system, host and peer GPUs included."),
    F("__shfl_sync", "T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize)", "Reads var from lane srcLane of the warp, without going through memory."),
    F("__shfl_up_sync", "T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize)", "Reads var from the lane delta below this one (lanes below delta keep their own)."),
    F("__shfl_down_sync", "T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize)", "Reads var from the lane delta above this one: the step of a warp-level reduction."),
    F("__shfl_xor_sync", "T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize)", "Reads var from the lane whose index is this one's XOR laneMask: a butterfly exchange."),
    F("__ballot_sync", "unsigned __ballot_sync(unsigned mask, int predicate)", "A bit mask with bit i set where lane i's predicate is true."),
    F("__any_sync", "int __any_sync(unsigned mask, int predicate)", "Non-zero when the predicate is true in any lane of mask."),
    F("__all_sync", "int __all_sync(unsigned mask, int predicate)", "Non-zero when the predicate is true in every lane of mask."),
    F("__activemask", "unsigned __activemask()", "The mask of lanes of the warp that are running this instruction now."),
    F("__match_any_sync", "unsigned __match_any_sync(unsigned mask, T value)", "The lanes of mask holding the same value as this one."),
    F("__reduce_add_sync", "unsigned __reduce_add_sync(unsigned mask, unsigned value)", "The sum of value over the lanes of mask, in one instruction (sm_80 and later)."),
    F("__popc", "int __popc(unsigned int x)", "How many bits of x are set."),
    F("__popcll", "int __popcll(unsigned long long x)", "How many bits of a 64-bit x are set."),
    F("__clz", "int __clz(int x)", "How many leading zero bits x has."),
    F("__ffs", "int __ffs(int x)", "The position (from 1) of x's lowest set bit, 0 when x is 0."),
    F("__brev", "unsigned int __brev(unsigned int x)", "x with its bits in reverse order."),
    F("__ldg", "T __ldg(const T *address)", "Loads through the read-only data cache."),
    F("__fmaf_rn", "float __fmaf_rn(float x, float y, float z)", "x*y+z with a single rounding, to nearest."),
    F("__fdividef", "float __fdividef(float x, float y)", "A fast, less exact x/y."),
    F("__expf", "float __expf(float x)", "A fast, less exact exp(x) in hardware."),
    F("__logf", "float __logf(float x)", "A fast, less exact natural logarithm in hardware."),
    F("__sinf", "float __sinf(float x)", "A fast, less exact sine in hardware."),
    F("__cosf", "float __cosf(float x)", "A fast, less exact cosine in hardware."),
    F("__float2int_rn", "int __float2int_rn(float x)", "x converted to int, rounding to nearest even."),
    F("__float2half", "__half __float2half(float x)", "x converted to half precision (cuda_fp16.h)."),
    F("__half2float", "float __half2float(__half x)", "A half-precision value widened to float (cuda_fp16.h)."),
    F("__saturatef", "float __saturatef(float x)", "x clamped to [0, 1]."),
    F("rsqrtf", "float rsqrtf(float x)", "1/sqrt(x), computed directly."),
    F("atomicAdd", "T atomicAdd(T *address, T val)", "Adds val to *address as one indivisible step and returns the old value (int, unsigned, float, double, ...)."),
    F("atomicSub", "int atomicSub(int *address, int val)", "Subtracts val from *address atomically; returns the old value."),
    F("atomicExch", "T atomicExch(T *address, T val)", "Stores val in *address atomically; returns the old value."),
    F("atomicMin", "T atomicMin(T *address, T val)", "Stores the smaller of *address and val atomically; returns the old value."),
    F("atomicMax", "T atomicMax(T *address, T val)", "Stores the larger of *address and val atomically; returns the old value."),
    F("atomicInc", "unsigned atomicInc(unsigned *address, unsigned val)", "Adds 1 to *address, wrapping to 0 past val, atomically; returns the old value."),
    F("atomicDec", "unsigned atomicDec(unsigned *address, unsigned val)", "Subtracts 1 from *address, wrapping to val below 0, atomically; returns the old value."),
    F("atomicCAS", "T atomicCAS(T *address, T compare, T val)", "Stores val in *address if it equals compare, atomically; returns the old value (compare-and-swap)."),
    F("atomicAnd", "T atomicAnd(T *address, T val)", "*address &= val atomically; returns the old value."),
    F("atomicOr", "T atomicOr(T *address, T val)", "*address |= val atomically; returns the old value."),
    F("atomicXor", "T atomicXor(T *address, T val)", "*address ^= val atomically; returns the old value."),
    F("clock", "clock_t clock()", "The SM's cycle counter (32 bits), to time code inside a kernel."),
    F("clock64", "long long clock64()", "The SM's 64-bit cycle counter, to time code inside a kernel."),
    F("__nanosleep", "void __nanosleep(unsigned ns)", "Sleeps the thread for about ns nanoseconds (sm_70 and later)."),
    F("printf", "int printf(const char *format, ...)", "Prints formatted text: from host code to the cell's output; from device code through the GPU's buffer, shown when the kernel ends."),
    F("malloc", "void *malloc(size_t size)", "Allocates memory: in host code from the session's heap; in device code from the GPU's heap."),
    F("assert", "void assert(expression)", "Stops with an error when expression is false (in device code: the kernel traps)."),
    T("dim3", "struct dim3 { unsigned x, y, z; }", "Three sizes for a grid or a block; the ones not given are 1."),
    T("uint3", "struct uint3 { unsigned x, y, z; }", "Three unsigned ints (threadIdx and blockIdx are uint3)."),
    T("float4", "struct float4 { float x, y, z, w; }", "Four floats, aligned to 16 bytes for one vector load."),
    T("float2", "struct float2 { float x, y; }", "Two floats, aligned to 8 bytes."),
    T("int4", "struct int4 { int x, y, z, w; }", "Four ints, aligned to 16 bytes."),
    T("cudaError_t", "enum cudaError", "The status every runtime API function returns; cudaSuccess is 0."),
    T("cudaStream_t", "struct CUstream_st *", "A stream: a queue of GPU work that runs in order; 0 is the default stream."),
    T("cudaEvent_t", "struct CUevent_st *", "An event: a marker recorded into a stream, to time or order work."),
    {NULL, NULL, NULL, NULL},
};

const cuda_builtin_t *cuda_builtin_find(const char *name) {
    for (const cuda_builtin_t *b = cuda_builtins; b->name; b++)
        if (!strcmp(b->name, name)) return b;
    return NULL;
}

static const struct {
    const char *name, *doc;
} briefs[] = {
    {"cudaMalloc", "Allocates size bytes of device memory and stores its address in *devPtr."},
    {"cudaMallocManaged", "Allocates memory that host and device code both use through one pointer."},
    {"cudaMallocHost", "Allocates pinned (page-locked) host memory: faster copies, usable for async ones."},
    {"cudaHostAlloc", "Allocates pinned host memory with flags (mapped, portable, write-combined)."},
    {"cudaMallocPitch", "Allocates a 2D device array whose rows are padded for alignment; the row pitch comes back in *pitch."},
    {"cudaFree", "Frees device or managed memory from cudaMalloc/cudaMallocManaged."},
    {"cudaFreeHost", "Frees pinned host memory from cudaMallocHost/cudaHostAlloc."},
    {"cudaMemcpy", "Copies count bytes in the direction kind says; waits for earlier work on the default stream."},
    {"cudaMemcpyAsync", "Copies count bytes in stream order and returns at once (pinned host memory to overlap)."},
    {"cudaMemcpy2D", "Copies a 2D block of bytes between buffers with their own row pitches."},
    {"cudaMemcpyToSymbol", "Copies bytes from the host into a __device__ or __constant__ variable."},
    {"cudaMemcpyFromSymbol", "Copies bytes from a __device__ or __constant__ variable to the host."},
    {"cudaMemset", "Sets count bytes of device memory to the byte value."},
    {"cudaMemsetAsync", "Sets device bytes to a value, in stream order."},
    {"cudaMemGetInfo", "The device's free and total memory in bytes."},
    {"cudaMemPrefetchAsync", "Moves managed memory to a device (or the host) ahead of its use."},
    {"cudaDeviceSynchronize", "Waits until all work on the device is done; returns the first error of that work."},
    {"cudaDeviceReset", "Destroys the device's context and everything allocated in it."},
    {"cudaGetLastError", "The last error of a runtime call or launch, which it then clears."},
    {"cudaPeekAtLastError", "The last error of a runtime call or launch, without clearing it."},
    {"cudaGetErrorString", "A sentence describing an error code."},
    {"cudaGetErrorName", "An error code's name, such as \"cudaErrorInvalidValue\"."},
    {"cudaGetDeviceCount", "How many CUDA GPUs this process can use."},
    {"cudaSetDevice", "Chooses the GPU that later calls of this thread use."},
    {"cudaGetDevice", "The GPU that this thread's calls use now."},
    {"cudaGetDeviceProperties", "Fills a cudaDeviceProp with the GPU's name, memory, SM count, limits, ..."},
    {"cudaDeviceGetAttribute", "One attribute of a GPU (SM count, clock, shared memory per block, ...)."},
    {"cudaEventCreate", "Makes an event, to record in a stream for timing or ordering."},
    {"cudaEventCreateWithFlags", "Makes an event with flags (e.g. cudaEventDisableTiming)."},
    {"cudaEventRecord", "Records an event in a stream: it completes when the work before it does."},
    {"cudaEventSynchronize", "Waits until an event has completed."},
    {"cudaEventQuery", "cudaSuccess when an event has completed, cudaErrorNotReady otherwise; never waits."},
    {"cudaEventElapsedTime", "Milliseconds between two completed events."},
    {"cudaEventDestroy", "Frees an event."},
    {"cudaStreamCreate", "Makes a stream: a queue of GPU work that runs in order."},
    {"cudaStreamCreateWithFlags", "Makes a stream with flags (cudaStreamNonBlocking: no ordering with the default stream)."},
    {"cudaStreamSynchronize", "Waits until all work queued in a stream is done."},
    {"cudaStreamQuery", "cudaSuccess when a stream's work is all done, cudaErrorNotReady otherwise."},
    {"cudaStreamWaitEvent", "Makes later work in a stream wait for an event recorded elsewhere."},
    {"cudaStreamDestroy", "Frees a stream once its work is done."},
    {"cudaLaunchKernel", "Launches a kernel with its grid, block, arguments, shared memory and stream: what <<<>>> does."},
    {"cudaFuncGetAttributes", "A kernel's registers, shared, local and constant memory, and largest block size."},
    {"cudaFuncSetAttribute", "Sets an attribute of a kernel (such as its dynamic shared memory limit)."},
    {"cudaOccupancyMaxActiveBlocksPerMultiprocessor", "How many blocks of a kernel fit on one SM at a given block size."},
    {"cudaOccupancyMaxPotentialBlockSize", "The block size that gives a kernel the most occupancy, and the grid size to fill the GPU."},
    {"cudaHostRegister", "Pins an existing host buffer so that the GPU can copy it fast."},
    {"cudaHostUnregister", "Unpins a buffer pinned with cudaHostRegister."},
    {"cudaHostGetDevicePointer", "The device address of mapped pinned host memory."},
    {"cudaPointerGetAttributes", "Where a pointer's memory lives (host, device, managed) and on which device."},
    {"cudaDeviceSetLimit", "Sets a device limit (printf buffer, heap size, stack size)."},
    {"cudaDeviceGetLimit", "Reads a device limit (printf buffer, heap size, stack size)."},
    {"cudaDriverGetVersion", "The CUDA version the installed driver supports, as 1000*major + 10*minor."},
    {"cudaRuntimeGetVersion", "The CUDA runtime's version, as 1000*major + 10*minor."},
    {"cudaLaunchHostFunc", "Queues a host function to run in stream order."},
};

const char *cuda_runtime_brief(const char *name) {
    for (size_t i = 0; i < sizeof briefs / sizeof briefs[0]; i++)
        if (!strcmp(briefs[i].name, name)) return briefs[i].doc;
    return NULL;
}

const char *cuda_runtime_errors(const char *name) {
    for (int i = 0; i < crt_nerrors; i++)
        if (!strcmp(crt_errors[i].name, name)) return crt_errors[i].codes;
    return NULL;
}
