/* The libraries a program's #includes name: nvcc links the CUDA runtime
 * only, so a program that includes cublas_v2.h needs -lcublas, cufft.h
 * -lcufft, and so on; icuda adds them (program_libs.c). */
#ifndef ICUDA_PROGRAM_LIBS_H
#define ICUDA_PROGRAM_LIBS_H

#include <stdbool.h>

#include "runtime/device/device_session.h"

/* Calls fn for each #include of text, with the name between <> or "" as
 * written. Comments, string and character literals (raw strings too) are
 * skipped; only a '#' that starts a line begins a directive. Conditionals
 * are not evaluated: an #include under #if 0 counts. */
typedef void program_include_fn(void *ctx, const char *name, bool angled);
void program_scan_includes(const char *text, program_include_fn *fn, void *ctx);

/* The libraries (without "lib" and ".so": "cublas", "cublasLt") that an
 * #include of name asks for, NULL-terminated (static), or NULL for a header
 * that needs none (curand_kernel.h, nvtx3/..., cuda_runtime.h). */
const char *const *program_header_libraries(const char *name);

/* Whether nvcc options name library lib already: -llib, -l lib,
 * --library=lib,..., -Xlinker -llib, a path to liblib.so / liblib.a; a
 * static variant (lib_static) counts as lib. */
bool program_options_name_library(char *const *options, int n, const char *lib);

/* A folder libraries are looked for in, and whether the linker that nvcc
 * runs searches it by itself (the toolkit's, $LIBRARY_PATH, the linker's
 * own) or needs -L (the dynamic loader's: /etc/ld.so.conf, $LD_LIBRARY_PATH). */
typedef struct {
    char *path;
    bool searched;
} program_lib_dir_t;

/* The folders, in the order looked in: the toolkit's (beside the nvcc that
 * program_find_nvcc finds: lib64, lib, their stubs, targets/<arch>/lib),
 * $LIBRARY_PATH, the linker's defaults, /etc/ld.so.conf, $LD_LIBRARY_PATH.
 * Free with program_library_dirs_free. */
program_lib_dir_t *program_library_dirs(int *n);
void program_library_dirs_free(program_lib_dir_t *dirs, int n);

/* The options that link what source's #includes ask for: those of source
 * itself and of the %%header files (headers) it includes, directly or
 * through another; less the libraries user_options already name; only those
 * whose file (liblib.so or liblib.a) is in one of dirs ("-L dir" before a
 * library found where the linker would not look). NULL-terminated, malloc'd
 * (free with program_strings_free), or NULL when none is added. *why (when
 * why is not NULL) gets the headers that asked, "cublas_v2.h, cufft.h"
 * (malloc'd), or NULL. */
char **program_libraries_among(const char *source, const header_file_t *headers, int nheaders,
                               char *const *user_options, int nuser, const program_lib_dir_t *dirs, int ndirs,
                               char **why);

/* The same, looked for in program_library_dirs(): what a build adds. */
char **program_libraries_for(const char *source, const header_file_t *headers, int nheaders,
                             char *const *user_options, int nuser, char **why);

/* Frees a NULL-terminated array of malloc'd strings (and the array). */
void program_strings_free(char **v);

#endif
