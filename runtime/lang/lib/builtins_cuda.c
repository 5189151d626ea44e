/* CUDA's runtime types and constants as host cells see them (cuda_runtime.h
 * is built in): everything cuda_runtime_api.h, driver_types.h and
 * vector_types.h declare, generated from the toolkit's headers. The calls
 * themselves reach the GPU layer through the interpreter's hooks
 * (gpu_hooks.c); runtime/cuda fills these structs with the toolkit's own
 * layouts. */
#include <stdlib.h>
#include <string.h>
#include "lib.h"
#include "runtime/toolkit/cuda_errors.h"
#include "runtime/toolkit/cuda_lib_table.h"
#include "runtime/base/xalloc.h"
#include "cuda_device_attrs.h"

/* What cuda_runtime.h declares beyond the generated text: the calls the
 * interpreter answers itself (and nccl.h's ncclGetErrorString), and the channel descriptor maker, whose
 * struct result a forwarded call cannot return. */
static const char cuda_extra_protos[] =
    "const char *cudaGetErrorString(cudaError_t); const char *cudaGetErrorName(cudaError_t);\n"
    "const char *ncclGetErrorString(int);\n"
    "typedef unsigned long long nvtxRangeId_t;\n"; /* NVTX is icuda's own (runtime/cuda/cuda_nvtx.c) */

static const char cuda_extra_macros[] =
    "#define cudaCreateChannelDesc(x, y, z, w, f) ((struct cudaChannelFormatDesc){(x), (y), (z), (w), (f)})\n"
    "#define __CUDACC__ 1\n#define CUDART_CB\n#define CUDARTAPI\n";

/* The toolkit's own types, enums, structs and constants (crt_decl_text,
 * crt_macro_text), read from its headers at build time
 * (tools/gen_cuda_api.py: build/gen/crt_decls.c), so their layouts are the
 * toolkit's (the tests compare them with gcc's); cuRAND, cuBLAS, cuFFT and
 * the device-library types (curandState, __half, cuComplex, ...:
 * clib_decl_text, clib_macro_text) from tools/gen_cuda_libs.py,
 * build/gen/clib_decls.c. Their declarations are runtime/cuda's tables'. */

const char *builtin_cuda_prototypes(void) {
    static char *all;
    if (!all) {
        all = xasprintf("%s%s%s", crt_decl_text, cuda_extra_protos, clib_decl_text);
    }
    return all;
}

/* cudaGetErrorString/Name (and ncclGetErrorString) return static texts: each becomes a
 * read-only string buffer once per session and code, then is reused (a
 * check in a loop must not make a buffer per call). */
#define ERR_CACHE 64
static struct { uint32_t owner; int code, which; uint64_t word; } err_cache[ERR_CACHE];

static val_t err_text(node_t *c, int code, int which) {
    const char *s = which == 2 ? nccl_result_string(code) : which ? cuda_error_name(code) : cuda_error_string(code);
    unsigned h = ((unsigned)code * 3u + (unsigned)which) % ERR_CACHE;
    if (err_cache[h].owner == g_in->id && err_cache[h].code == code && err_cache[h].which == which &&
        ptr_valid(err_cache[h].word) && g_bufs[ptr_slot(err_cache[h].word)].base == s)
        return (val_t){.u = err_cache[h].word};
    uint32_t slot = buf_new((char *)s, strlen(s) + 1, PLACE_STRLIT, NULL, NULL);
    if (!slot) rt_error(c, "too many buffers");
    g_bufs[slot].owner = g_in->id;
    uint64_t w = ptr_make(slot, 0);
    err_cache[h].owner = g_in->id;
    err_cache[h].code = code;
    err_cache[h].which = which;
    err_cache[h].word = w;
    return (val_t){.u = w};
}

static val_t b_error_string(node_t *c, val_t *a, int n, frame_t *f) { return err_text(c, (int)a[0].i, 0); }
static val_t b_error_name(node_t *c, val_t *a, int n, frame_t *f) { return err_text(c, (int)a[0].i, 1); }
/* ncclGetErrorString is NCCL's table of texts, answered here as CUDA's are */
static val_t b_nccl_error_string(node_t *c, val_t *a, int n, frame_t *f) { return err_text(c, (int)a[0].i, 2); }

void builtins_cuda_register(interp_t *in) {
    builtin_add(in, "cudaGetErrorString", b_error_string, 0);
    builtin_add(in, "cudaGetErrorName", b_error_name, 0);
    builtin_add(in, "ncclGetErrorString", b_nccl_error_string, 0);
    lex_define_text(in, crt_macro_text);
    lex_define_text(in, cuda_extra_macros);
    lex_define_text(in, clib_macro_text);
}
