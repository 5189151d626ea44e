/* Which architecture device code is compiled for: the GPU's own when a
 * driver and a GPU are present, else the newest NVRTC supports. */
#ifndef ICUDA_GPU_ARCH_H
#define ICUDA_GPU_ARCH_H

#include <stddef.h>

/* Writes "sm_XY" into arch and a short human note ("NVIDIA H200, compute
 * capability 9.0" or why the default was taken). Returns 1 when the arch
 * came from a GPU, 0 for the default. Thread-safe; probes once. */
int gpu_arch_resolve(char *arch, size_t cap, char *note, size_t note_cap);

#endif
