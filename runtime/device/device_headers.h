/* The C standard headers a CUDA programmer includes out of habit, which
 * NVRTC does not ship (stdio.h, math.h, ...): small stand-ins given to every
 * device compile as in-memory headers, so such cells compile as with nvcc. */
#ifndef ICUDA_DEVICE_HEADERS_H
#define ICUDA_DEVICE_HEADERS_H

typedef struct {
    const char *name;
    const char *text;
} device_header_t;

extern const device_header_t device_std_headers[];
extern const int device_std_header_count;

#endif
