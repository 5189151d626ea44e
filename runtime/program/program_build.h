/* Building a %%program: the cell's source and the session's %%header files
 * written into a folder, compiled there with nvcc, and the executable kept
 * in the user's cache (<cache>/programs/<key>/prog), so that an unchanged
 * program is not compiled again. The key is a SHA-256 of everything that
 * decides the build: the source, nvcc's options, the architecture, the
 * headers, and nvcc and the host compiler themselves (path, size, time). */
#ifndef ICUDA_PROGRAM_BUILD_H
#define ICUDA_PROGRAM_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/device/device_session.h"

#define PROGRAM_UNIT "cell.cu"   /* the source's name in the build folder */
#define PROGRAM_CACHE_KEEP 64    /* programs kept in the cache (least recently run go) */

typedef struct {
    const char *source;
    char *const *options;        /* the user's nvcc options */
    int noptions;
    const char *arch;            /* "sm_90" -> -arch=sm_90 unless the options choose; NULL: nvcc's default */
    const header_file_t *headers;
    int nheaders;
    const char *cache_dir;       /* icuda's cache folder; NULL: build in a temporary folder */
    char *const *extra;          /* icuda's own options, before the user's (a shared object's) */
    int nextra;
    const char *output;          /* the file nvcc makes (NULL: "prog", an executable) */
    /* Folders #include looks in (-I DIR each, after the options):
     * program_include_dirs. A file included from them, directly or through
     * another, is part of the key (its path, size and time), so an edited
     * helper header builds anew. */
    char *const *include_dirs;
    int ninclude_dirs;
    /* Link the libraries the source's #includes ask for (program_libs.h:
     * cublas_v2.h -> -lcublas, ...), those the options do not name already. */
    bool link_includes;
    /* nvcc's steps run by icuda, the two front ends side by side
     * (nvcc_steps.h); plain nvcc when they are not what it knows. */
    bool phased;
} program_spec_t;

typedef enum {
    PROGRAM_BUILT,               /* compiled now */
    PROGRAM_CACHED,              /* found compiled */
    PROGRAM_FAILED,              /* nvcc failed: its output in log */
    PROGRAM_INTERRUPTED,
    PROGRAM_NO_NVCC,             /* why says where it was looked for */
    PROGRAM_ERROR,               /* the folder could not be written, nvcc not run: why */
} program_status_t;

typedef struct {
    char *binary;                /* the executable or output (BUILT, CACHED) */
    char *dir;                   /* the folder it was built in */
    bool temporary;              /* dir is removed by program_binary_free */
    char *log;                   /* nvcc's output (BUILT, FAILED) */
    int nvcc_status;             /* nvcc's exit status (FAILED) */
    bool arch_refused;           /* nvcc knew not the arch: built for its default instead */
    char *linked;                /* what link_includes added, "-lcublas -lcufft"; NULL: nothing */
    char *linked_for;            /* the #includes that asked for it, "cublas_v2.h, cufft.h" */
    char why[1024];
} program_binary_t;

program_status_t program_build(const program_spec_t *s, program_binary_t *b);
void program_binary_free(program_binary_t *b);


/* True when nvcc options choose the GPU code themselves (-arch, -gencode, ...). */
bool program_options_choose_arch(char *const *options, int n);

/* The folders a session's programs and native cells #include from, for
 * include_dirs: %include_path's, then the kernel's working directory (the
 * notebook's folder: the build runs elsewhere). NULL-terminated, malloc'd
 * (program_strings_free, program_libs.h); *n gets the count. */
char **program_include_dirs(const device_session_t *ds, int *n);

/* Removes a folder and what it holds. */
void program_remove_tree(const char *dir);

#endif
