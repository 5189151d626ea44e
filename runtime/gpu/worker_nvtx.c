/* What compute-sanitizer needs to know about icuda's allocator, told through
 * NVTX's memory API (a header-only library that does nothing unless a tool
 * injected itself, as compute-sanitizer --nvtx yes does). Each mapped chunk
 * of the device range is a heap, each buffer in it a region; without this,
 * the sanitizer sees a 2 MiB pool as one allocation and an overrun of one
 * small buffer into its neighbour goes unseen (docs/memcheck.md). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/gpu/worker_nvtx.h"

#include <nvtx3/nvToolsExtMem.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t va, size;
    nvtxMemHeapHandle_t heap;
} heap_t;

static nvtxDomainHandle_t domain;
static heap_t *heaps;
static size_t nheaps, capheaps;

static nvtxDomainHandle_t dom(void) {
    if (!domain) domain = nvtxDomainCreateA("icuda");
    return domain;
}

void nvtx_heap_add(uint64_t va, uint64_t size) {
    nvtxMemVirtualRangeDesc_t range;
    memset(&range, 0, sizeof range);
    range.ptr = (void *)(uintptr_t)va;
    range.size = size;
    nvtxMemHeapDesc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.extCompatID = NVTX_EXT_COMPATID_MEM;
    desc.structSize = sizeof desc;
    desc.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
    desc.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    desc.typeSpecificDescSize = sizeof range;
    desc.typeSpecificDesc = &range;
    nvtxMemHeapHandle_t h = nvtxMemHeapRegister(dom(), &desc);
    if (!h) return; /* no tool listening */
    if (nheaps == capheaps) {
        size_t nc = capheaps ? 2 * capheaps : 64;
        heap_t *nv = realloc(heaps, nc * sizeof *nv);
        if (!nv) return;
        heaps = nv;
        capheaps = nc;
    }
    heaps[nheaps++] = (heap_t){va, size, h};
}

static heap_t *heap_of(uint64_t va) {
    for (size_t i = 0; i < nheaps; i++)
        if (va >= heaps[i].va && va - heaps[i].va < heaps[i].size) return &heaps[i];
    return NULL;
}

void nvtx_heap_remove(uint64_t va) {
    heap_t *h = heap_of(va);
    if (!h) return;
    nvtxMemHeapUnregister(dom(), h->heap);
    *h = heaps[--nheaps];
}

void nvtx_region(uint64_t va, uint64_t size, int add) {
    heap_t *h = heap_of(va);
    if (!h) return;
    if (add) {
        nvtxMemVirtualRangeDesc_t range;
        memset(&range, 0, sizeof range);
        range.ptr = (void *)(uintptr_t)va;
        range.size = size;
        nvtxMemRegionsRegisterBatch_t b;
        memset(&b, 0, sizeof b);
        b.extCompatID = NVTX_EXT_COMPATID_MEM;
        b.structSize = sizeof b;
        b.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
        b.heap = h->heap;
        b.regionCount = 1;
        b.regionDescElementSize = sizeof range;
        b.regionDescElements = &range;
        nvtxMemRegionsRegister(dom(), &b);
    } else {
        nvtxMemRegionRef_t ref;
        ref.pointer = (void *)(uintptr_t)va;
        nvtxMemRegionsUnregisterBatch_t b;
        memset(&b, 0, sizeof b);
        b.extCompatID = NVTX_EXT_COMPATID_MEM;
        b.structSize = sizeof b;
        b.refType = NVTX_MEM_REGION_REF_TYPE_POINTER;
        b.refCount = 1;
        b.refElementSize = sizeof ref;
        b.refElements = &ref;
        nvtxMemRegionsUnregister(dom(), &b);
    }
}
