/* The state a session keeps between cells, shared by the engine and the
 * magics: the device prelude, %%header files, NVRTC options, the kernels
 * compiled so far, and the host interpreter. */
#ifndef ICUDA_SESSION_H
#define ICUDA_SESSION_H

#include <stdbool.h>

#include "runtime/device/compile_cache.h"
#include "engine.h"
#include "runtime/cell/split.h"


/* One device-side definition kept for later cells (DESIGN §2, the prelude). */
typedef struct {
    char *key;        /* what replaces it ("fn:norm", "type:struct P", ...) */
    char *text;
    char *cell;       /* "In [3]" */
    int first_line;
    bool is_kernel;   /* non-template kernels stay in their own cell's module */
} prelude_item_t;

typedef struct {
    char *name;
    char *signature;  /* "vecadd(double *z, const double *x, const double *y, int n)" */
    char *cell;
    char module_hex[65];
} kernel_entry_t;

typedef struct {
    char *name, *text;
    char *host_view, *device_view; /* what each side reads (session_headers.c) */
} header_file_t;

struct engine {
    compile_cache_t *cache;
    prelude_item_t *prelude;
    int nprelude, cap_prelude;
    kernel_entry_t *kernels;
    int nkernels, cap_kernels;
    header_file_t *headers;
    int nheaders, cap_headers;
    char **user_options;   /* %nvrtc */
    int nuser_options;
    char arch[32];         /* "sm_90"; empty until first needed */
    bool arch_from_gpu;
    char arch_note[160];   /* how the arch was chosen */
    struct interp *interp;
    struct cuda_session *cuda;
    struct device_lines *lines; /* per module: unit lines -> cells (device_lines.h) */
    struct measure_state *measure; /* %timeit's peaks and measurements (magics/measure.h) */
};

/* What a magic gets: the session (e), the cell's output (io) and name, and
 * a way to run code as a cell body without calling up into the engine. */
typedef struct magic_ctx {
    engine_t *e;
    const cell_io_t *io;
    const char *cell_name;
    /* Runs code as the engine runs a cell (device items compile, host items
     * run in order, magics where they stand), with this cell's name and
     * output; for cell magics that wrap code (%%timeit, %%profile). The GPU
     * work is not synchronised at its end: the caller decides. 0 or -1. */
    int (*run)(struct magic_ctx *mc, const char *code, cell_error_t *err);
    /* The whole cell as typed, magic line included (NULL where unknown):
     * where a cell magic's body starts in it gives the body's lines. */
    const char *cell_code;
} magic_ctx_t;

/* The architecture compiles target, resolved on first use. */
const char *engine_arch(engine_t *e);

/* Compiles the device items of a cell (items kept by want), registers its
 * kernels and updates the prelude. Reports resources on io. */
int device_compile_cell(engine_t *e, const char *code, const cell_split_t *sp, const char *cell_name,
                        const cell_io_t *io, cell_error_t *err);

/* Checks the cell's #includes before anything of it runs: a header that is
 * neither the host's nor the device's (include_routes.h), nor a %%header
 * file, nor in the toolkit is an UnsupportedError naming it. 0 or -1. */
int device_check_includes(engine_t *e, const char *code, const cell_split_t *sp, const char *cell_name,
                          cell_error_t *err);

/* The cell with its conditionals between items decided for the device
 * side (interp_cell_conditionals with __CUDA_ARCH__), malloc'd; NULL with
 * *err. device_pp_carried: whether a # item may join the session's prelude
 * (definitions, includes, pragmas; never a conditional or #error). */
char *device_conditionals(engine_t *e, const char *code, const char *cell, cell_error_t *err);
bool device_pp_carried(const char *code, const cell_item_t *it);
/* Whether a relabelled compile log has a diagnostic of kind what ("error",
 * "warning") at lines first..last of cell ("In [3](5): warning #..."). */
bool device_log_names(const char *log, const char *cell, const char *what, int first, int last);
/* Which parts of the device libraries a device cell can use (%help, and
 * the hint after a compile error that names a host-only part). */
#define DEVICE_LIBRARIES_NOTE                                                                          \
    "Device cells #include the toolkit's device libraries (cub, cuda/std, cuda/atomic, cuda/barrier, "  \
    "cuda/pipeline, cuda_fp16.h, cuda_bf16.h, mma.h, cooperative_groups, curand_kernel.h). "            \
    "<cub/cub.cuh> gives CUB's block, warp and thread level (BlockReduce, BlockScan, WarpReduce, ...); "  \
    "its device-wide algorithms (cub::DeviceReduce, DeviceScan, DeviceRadixSort, ...) are host code "    \
    "that launches kernels: run them with %%program."
/* A hint appended to a compile error whose log names a host-only part of a
 * device library (cub::Device...). */
void device_library_hint(const char *log, cell_error_t *err);
/* Takes NVRTC's precompiled-header messages out of a compile log (in place). */
void device_log_drop_pch(char *log);

/* The full option list for a compile (defaults + %nvrtc), malloc'd array of
 * borrowed/owned strings; free with options_free. */
int engine_options(engine_t *e, char ***out);
void options_free(char **opts, int n);

/* Compiles (or finds in the cache) one translation unit with the session's
 * options and headers. Returns a compile_status_t; *out is owned by the cache,
 * *log is malloc'd. */
int engine_compile_unit(engine_t *e, const char *source, const char *const *kernel_names, int nkernels,
                        const compiled_module_t **out, char **log);

/* The session's device prelude as one translation unit (host constants,
 * macros, types, __device__ functions, templates): what a template kernel
 * instantiated on demand (scale<float>) is compiled from. malloc'd. */
char *engine_prelude_source(engine_t *e);

const kernel_entry_t *engine_find_kernel(engine_t *e, const char *name);
/* Signature, where it was defined and its resources, for inspect and
 * %resources. malloc'd. */
char *engine_kernel_description(engine_t *e, const kernel_entry_t *k);

/* A line of a compiled module's unit (as -lineinfo names it, "cell.cu:12")
 * as the notebook knows it: the cell's label ("In [3]"), its line there
 * and the line's text. false when the module or line is unknown. */
bool engine_unit_line(engine_t *e, const char *hex, int unit_line, char *cell, size_t cell_cap, int *cell_line,
                      char *text, size_t text_cap);

/* Compiles a translation unit with no kernels to check options (the %nvrtc
 * magic). Returns 0 or -1 with the compiler's message in *msg (malloc'd). */
int engine_try_options(engine_t *e, char **opts, int nopts, char **msg);

/* %reset (runtime/engine/session_reset.c): the prelude and kernels forgotten
 * (session_forget_device_items, also for engine_free), the CUDA layer's
 * modules unloaded, the interpreter as new; %%header files, %nvrtc options
 * and the compile cache stay. Buffers are the caller's to free first. */
void session_forget_device_items(engine_t *e);
void session_reset(engine_t *e);

#endif
