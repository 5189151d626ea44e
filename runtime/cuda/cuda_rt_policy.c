/* Which functions of cuda_runtime_api.h icuda refuses, and why; and the
 * coverage docs/cuda-api-coverage.md reports (a test checks the page
 * against cs_api_coverage). Everything not refused runs: by icuda's own
 * code (cuda_api.c and the files it dispatches to), by the interpreter
 * (cudaGetErrorName/String, cudaCreateChannelDesc), or forwarded to the
 * worker's libcudart (cuda_forward.c). */
#include "cuda_call.h"

#include <string.h>

#include "runtime/toolkit/cuda_rt_table.h"

typedef struct {
    const char *family;
    const char *why;
    const char *names; /* space-separated; a trailing '*' matches a prefix */
    bool native;       /* what a native C++ cell can call: it has host stubs and C function pointers */
} refusal_t;

static const refusal_t refusals[] = {
    {"graphics interop",
     "graphics interop (OpenGL, Direct3D, Vulkan, EGL, VDPAU) needs a graphics context and a window, which a notebook's "
     "GPU worker does not have",
     "cudaGraphics*", false},
    {"external memory and semaphores",
     "importing memory and semaphores from Vulkan, Direct3D or NvSci needs OS handles from another graphics or "
     "compute API, which icuda's host code has no way to make",
     "cudaImportExternal* cudaExternalMemory* cudaDestroyExternal* cudaSignalExternalSemaphoresAsync "
     "cudaWaitExternalSemaphoresAsync cudaGraphAddExternalSemaphores* cudaGraphExternalSemaphores* "
     "cudaGraphExecExternalSemaphores* cudaDeviceGetNvSciSyncAttributes", false},
    {"inter-process sharing",
     "inter-process handles share memory and events with another process; a session's GPU memory lives in one "
     "worker process and there is no other process to share it with",
     "cudaIpc* cudaMemPoolExportToShareableHandle cudaMemPoolImportFromShareableHandle cudaMemPoolExportPointer "
     "cudaMemPoolImportPointer", false},
    {"host callbacks run by the driver",
     "the driver would call a host function in the GPU worker process, which cannot run a cell's interpreted "
     "code (cudaLaunchHostFunc and cudaStreamAddCallback do work: icuda runs them itself, in order)",
     "cudaDeviceRegisterAsyncNotification cudaDeviceUnregisterAsyncNotification cudaLogsRegisterCallback "
     "cudaLogsUnregisterCallback cudaUserObjectCreate cudaGraphAddHostNode cudaGraphHostNode* "
     "cudaGraphExecHostNodeSetParams", true},
    {"driver entry points",
     "it hands out C function pointers into the driver or the runtime's private tables, which interpreted host "
     "code cannot call",
     "cudaGetDriverEntryPoint* cudaGetExportTable", true},
    {"separately loaded kernels",
     "icuda's kernels come from device cells, compiled with NVRTC and named by their name; libraries, kernel "
     "handles and host-stub addresses of separately compiled code do not exist in a session",
     "cudaLibrary* cudaKernelSetAttributeForDevice cudaGetKernel cudaGetFuncBySymbol", true},
    {"kernel nodes built by hand",
     "a kernel node needs the kernel's host-stub address, which icuda's kernels (named by their name) do not have: "
     "capture a launch into a graph instead (cudaStreamBeginCapture, kernel<<<..., stream>>>, cudaStreamEndCapture)",
     "cudaGraphAddKernelNode cudaGraphKernelNodeSetParams cudaGraphExecKernelNodeSetParams", true},
    {"graph copies to and from symbols",
     "graph nodes cannot name a __device__ variable by its host shadow in icuda: take its address with "
     "cudaGetSymbolAddress and use cudaGraphAddMemcpyNode1D (or the matching SetParams1D)",
     "cudaGraphAddMemcpyNodeToSymbol cudaGraphAddMemcpyNodeFromSymbol cudaGraphMemcpyNodeSetParamsToSymbol "
     "cudaGraphMemcpyNodeSetParamsFromSymbol cudaGraphExecMemcpyNodeSetParamsToSymbol "
     "cudaGraphExecMemcpyNodeSetParamsFromSymbol", true},
    {"extended launches",
     "launches with attributes are not in icuda yet: launch with <<<grid, block, shared memory, stream>>>",
     "cudaLaunchKernelExC cudaLaunchKernel cudaLaunchCooperativeKernel", true},
};

static bool matches(const char *names, const char *name) {
    size_t nl = strlen(name);
    for (const char *p = names; *p;) {
        while (*p == ' ') p++;
        const char *e = p;
        while (*e && *e != ' ') e++;
        size_t k = (size_t)(e - p);
        if (k && p[k - 1] == '*' ? (nl >= k - 1 && !strncmp(name, p, k - 1)) : (k == nl && !strncmp(name, p, k)))
            return true;
        p = e;
    }
    return false;
}

static const refusal_t *refusal_of(const char *name) {
    if (cs_api_own(name)) return NULL;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
        if (matches(refusals[i].names, name)) return &refusals[i];
    const crt_fn_t *f = crt_find(name);
    for (int i = 0; f && i < f->nparams; i++)
        if (f->params[i].kind == CRT_FNPTR) return &refusals[3];
    return NULL;
}

const char *cs_refusal(const char *name, const char **family) {
    const refusal_t *r = refusal_of(name);
    if (r && family) *family = r->family;
    return r ? r->why : NULL;
}

bool cuda_native_only(const char *name, const char **family) {
    const refusal_t *r = refusal_of(name);
    if (r && r->native && family) *family = r->family;
    return r && r->native;
}

/* What the interpreter answers itself (builtins_cuda.c). */
static bool interpreted(const char *name) {
    return !strcmp(name, "cudaGetErrorName") || !strcmp(name, "cudaGetErrorString") ||
           !strcmp(name, "cudaCreateChannelDesc");
}

void cs_api_coverage(cs_coverage_t *cv) {
    memset(cv, 0, sizeof *cv);
    cv->nfamilies = (int)(sizeof refusals / sizeof refusals[0]);
    for (int i = 0; i < cv->nfamilies && i < CS_MAX_FAMILIES; i++) cv->family[i] = refusals[i].family;
    for (int i = 0; i < crt_nfns; i++) {
        const char *name = crt_fns[i].name, *fam = NULL;
        cv->total++;
        if (interpreted(name)) cv->interpreted++;
        else if (cs_api_own(name)) cv->own++;
        else if (cs_refusal(name, &fam)) {
            cv->refused++;
            for (int k = 0; k < cv->nfamilies && k < CS_MAX_FAMILIES; k++)
                if (fam == refusals[k].family) cv->refused_in[k]++;
        } else cv->forwarded++;
    }
}
