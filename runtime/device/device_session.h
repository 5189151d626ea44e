/* The device side of a session: what later cells' device code builds on
 * (the prelude of types, functions and templates, the kernels compiled so
 * far, %%header files, %nvrtc options, the architecture compiled for) and
 * the compile cache. The device compiler, the CUDA layer and the magics get
 * this handle, never the whole engine. */
#ifndef ICUDA_DEVICE_SESSION_H
#define ICUDA_DEVICE_SESSION_H

#include <stdbool.h>

#include <jansson.h>

/* what these prototypes name, declared where they are defined */
typedef struct cell_io cell_io_t;                 /* runtime/base/cell_io.h */
typedef struct cell_error cell_error_t;
typedef struct cell_item cell_item_t;             /* runtime/cell/split.h */
typedef struct cell_split cell_split_t;
typedef struct compile_cache compile_cache_t;     /* runtime/device/compile_cache.h */
typedef struct compiled_module compiled_module_t; /* runtime/device/nvrtc_compile.h */

struct interp;
struct device_lines;

/* One device-side definition kept for later cells (the prelude: what later cells' device units start from). */
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

typedef struct device_session {
    compile_cache_t *cache;
    prelude_item_t *prelude;
    int nprelude, cap_prelude;
    kernel_entry_t *kernels;
    int nkernels, cap_kernels;
    header_file_t *headers;
    int nheaders, cap_headers;
    char **user_options;   /* %nvrtc */
    int nuser_options;
    char **include_dirs;   /* %include_path: absolute folders, -I for %%program and native cells */
    int ninclude_dirs;
    char arch[32];         /* "sm_90"; empty until first needed */
    bool arch_from_gpu;
    char arch_note[160];   /* how the arch was chosen */
    struct interp *interp; /* the host side (borrowed): its constants and macros reach device units */
    struct device_lines *lines; /* per module: unit lines -> cells (device_lines.h) */
} device_session_t;

/* A device session over cache (taken over) and interp (borrowed). */
void device_session_init(device_session_t *ds, compile_cache_t *cache, struct interp *interp);
/* Frees everything, the cache included. */
void device_session_free(device_session_t *ds);

/* The architecture compiles target, resolved on first use. */
const char *device_arch(device_session_t *ds);

/* Compiles the device items of a cell (items kept by want), registers its
 * kernels and updates the prelude. Reports resources on io. */
int device_compile_cell(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell_name,
                        const cell_io_t *io, cell_error_t *err);

/* Checks the cell's #includes before anything of it runs: a header that is
 * neither the host's nor the device's (include_routes.h), nor a %%header
 * file, nor in the toolkit is an UnsupportedError naming it. 0 or -1. */
/* Whether the header an #include item names is one neither host cells nor
 * device cells take (not the interpreter's, not a %%header file, not in the
 * toolkit for NVRTC, or a host library of the toolkit): what only a whole
 * compiler (nvcc) takes. */
bool device_include_refused(device_session_t *ds, const cell_item_t *it);
int device_check_includes(device_session_t *ds, const char *code, const cell_split_t *sp, const char *cell_name,
                          cell_error_t *err);

/* The cell with its conditionals between items decided for the device
 * side (interp_cell_conditionals with __CUDA_ARCH__), malloc'd; NULL with
 * *err. device_pp_carried: whether a # item may join the session's prelude
 * (definitions, includes, pragmas; never a conditional or #error). */
char *device_conditionals(device_session_t *ds, const char *code, const char *cell, cell_error_t *err);
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
/* A kernel that launches kernels needs relocatable device code and the
 * device runtime linked in, which a whole program gets and a device cell's
 * module does not. */
#define DEVICE_LAUNCH_NOTE                                                                             \
    "A kernel that launches kernels (dynamic parallelism) runs in a whole program: put it in a cell "   \
    "with main() (or %%program), which nvcc builds with -rdc=true."
/* A hint appended to a compile error whose log names a host-only part of a
 * device library (cub::Device...) or launches a kernel from device code. */
void device_library_hint(const char *log, cell_error_t *err);
/* Takes NVRTC's precompiled-header messages out of a compile log (in place). */
void device_log_drop_pch(char *log);

/* The full option list for a compile (defaults + %nvrtc), malloc'd array of
 * borrowed/owned strings; free with options_free. */
int device_options(device_session_t *ds, char ***out);
void options_free(char **opts, int n);

/* Compiles (or finds in the cache) one translation unit with the session's
 * options and headers. Returns a compile_status_t; *out is owned by the cache,
 * *log is malloc'd. */
int device_compile_unit(device_session_t *ds, const char *source, const char *const *kernel_names, int nkernels,
                        const compiled_module_t **out, char **log);

/* The session's device prelude as one translation unit (host constants,
 * macros, types, __device__ functions, templates): what a template kernel
 * instantiated on demand (scale<float>) is compiled from. malloc'd. */
char *device_prelude_source(device_session_t *ds);

const kernel_entry_t *device_find_kernel(device_session_t *ds, const char *name);
/* Signature, where it was defined and its resources, for inspect and
 * %resources. malloc'd. */
char *device_kernel_description(device_session_t *ds, const kernel_entry_t *k);

/* A line of a compiled module's unit (as -lineinfo names it, "cell.cu:12")
 * as the notebook knows it: the cell's label ("In [3]"), its line there
 * and the line's text. false when the module or line is unknown. */
bool device_unit_line(device_session_t *ds, const char *hex, int unit_line, char *cell, size_t cell_cap, int *cell_line,
                      char *text, size_t text_cap);

/* Compiles a translation unit with no kernels to check options (the %nvrtc
 * magic). Returns 0 or -1 with the compiler's message in *msg (malloc'd). */
int device_try_options(device_session_t *ds, char **opts, int nopts, char **msg);

/* %reset: the prelude and kernels forgotten; %%header files, %nvrtc
 * options, %include_path and the compile cache stay. */
void device_session_forget(device_session_t *ds);

#endif
