/* The CUDA toolkit's command-line tools that magics use (nvdisasm,
 * cuobjdump, compute-sanitizer): where they are, and running one as a
 * subprocess (no shell) with a time limit and its output captured.
 *
 * Where: $ICUDA_TOOLS_PATH (directories, ':'-separated) when set, and
 * nothing else; otherwise $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit icuda
 * was built with (ICUDA_CUDA_HOME/bin), then $PATH. */
#ifndef ICUDA_CUDA_TOOLS_H
#define ICUDA_CUDA_TOOLS_H

#include <stdbool.h>
#include <stddef.h>

/* The tool's path (malloc'd), or NULL; where (may be NULL) gets the places
 * looked in, for a message. */
char *cuda_tool_find(const char *name, char *where, size_t where_cap);

typedef struct tool_run {
    int status;        /* exit status, or 128 + signal */
    bool timed_out, interrupted;
    char *out, *err;   /* what it wrote (NUL-terminated, malloc'd) */
} tool_run_t;

/* Runs argv (argv[0] a path) with stdin from /dev/null, at most timeout_ms
 * (then it is killed), stopping early on an interrupt. 0 when it ran (see
 * status), -1 when it could not be started (the reason in r->err). */
int cuda_tool_run(char *const argv[], int timeout_ms, tool_run_t *r);
void tool_run_free(tool_run_t *r);

/* nvcc's path (malloc'd) or NULL. $ICUDA_NVCC when set (and nothing else);
 * else as the toolkit's tools are found (cuda_tools.h): $ICUDA_TOOLS_PATH,
 * or $CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit icuda was built with, PATH.
 * where gets the places looked in. */
char *program_find_nvcc(char *where, size_t cap);

#endif
