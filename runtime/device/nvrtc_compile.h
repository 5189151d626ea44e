/* One NVRTC compile of a device translation unit, run on its own thread so
 * that an interrupt ends the wait at once (the abandoned compile finishes
 * in the background and is thrown away). */
#ifndef ICUDA_NVRTC_COMPILE_H
#define ICUDA_NVRTC_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

/* A kernel as compiled: its source name, the lowered (mangled) name the
 * module knows it by, and ptxas's resource report. */
typedef struct {
    char *name;
    char *lowered;
    int registers, shared_bytes, stack_bytes, spill_stores, spill_loads, const_bytes;
    bool have_resources;
} compiled_kernel_t;

typedef struct compiled_module {
    char hex[65];           /* cache key */
    char *ptx;
    size_t ptx_len;
    char *cubin;
    size_t cubin_len;
    char *log;              /* the compiler's log (warnings, ptxas report) */
    compiled_kernel_t *kernels;
    int nkernels;
} compiled_module_t;

typedef struct {
    const char *source;
    const char *program_name;
    const char *const *options;
    int noptions;
    const char *const *header_names;
    const char *const *header_texts;
    int nheaders;
    const char *const *kernel_names; /* each becomes a name expression "&name" */
    int nkernels;
} compile_request_t;

typedef enum { COMPILE_OK, COMPILE_FAILED, COMPILE_INTERRUPTED, COMPILE_NO_NVRTC } compile_status_t;

/* The hash that keys the cache: NVRTC version, options, headers, source and
 * kernel names. */
void compile_request_key(const compile_request_t *req, char hex[65]);

/* Compiles req. On COMPILE_OK *out is the module (free with module_free) and
 * *log its log; on COMPILE_FAILED *log holds the diagnostics. Both malloc'd. */
compile_status_t nvrtc_compile(const compile_request_t *req, compiled_module_t **out, char **log);

/* A compile (perhaps an interrupted one, abandoned) is still running: the
 * process must not run NVRTC's exit-time clean-up under it (_exit instead). */
bool nvrtc_compile_busy(void);

void module_free(compiled_module_t *m);
const compiled_kernel_t *module_kernel(const compiled_module_t *m, const char *name);

/* "13.0" */
const char *nvrtc_version_string(void);
/* The newest real architecture this NVRTC compiles for, e.g. 121. */
int nvrtc_newest_arch(void);

#endif
