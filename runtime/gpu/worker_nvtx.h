/* The worker's allocations as compute-sanitizer sees them (worker_nvtx.c):
 * chunks of the device range as heaps, buffers as regions in them. Each
 * call does nothing when no tool listens. */
#ifndef ICUDA_WORKER_NVTX_H
#define ICUDA_WORKER_NVTX_H

#include <stdint.h>

void nvtx_heap_add(uint64_t va, uint64_t size);
void nvtx_heap_remove(uint64_t va);
/* add: a buffer [va, va+size) in use; otherwise the buffer at va is free again. */
void nvtx_region(uint64_t va, uint64_t size, int add);

#endif
