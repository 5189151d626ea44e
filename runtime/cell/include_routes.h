/* Where an #include goes: the headers host code is written
 * against stay with the host interpreter, the device libraries go to NVRTC,
 * the C headers that both sides use go to both (NVRTC gets icuda's small
 * stand-ins, device_headers.c). A pure table: the splitter asks it by name;
 * whether an unknown name exists somewhere (a %%header, the toolkit) is the
 * engine's question (device_cell.c). */
#ifndef ICUDA_INCLUDE_ROUTES_H
#define ICUDA_INCLUDE_ROUTES_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    INC_DEVICE,       /* a device library (cooperative_groups.h, cub/..., cuda_fp16.h) */
    INC_HOST,         /* host code's header: <iostream>, <vector>, cuda_runtime.h, ... */
    INC_BOTH,         /* a C header both sides use: <cmath>, <cstdint>, <stdio.h>, ... */
    INC_HOST_LIBRARY, /* a host library of the toolkit icuda does not interpret (Thrust, cuSPARSE, ...) */
    INC_UNKNOWN,      /* none of the above: a %%header, another toolkit header, or nothing icuda has */
} include_route_t;

/* The route of a header spelled name ("iostream", "cub/cub.cuh"), written
 * with <> (angle) or "" — the same for both spellings where icuda knows it. */
include_route_t include_route(const char *name);

/* Splits the text after "#include" into the header's name: "<a/b.h>" or
 * "\"x.cuh\"" (a trailing comment allowed). false when it is neither (a
 * macro, a malformed line). */
bool include_name(const char *text, size_t len, char *name, size_t cap, bool *angle);

#endif
