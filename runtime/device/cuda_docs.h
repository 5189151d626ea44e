/* What inspection and completion say about CUDA names that are not the
 * session's own: device built-ins and intrinsics, and the runtime API's
 * functions (their error codes come from the toolkit's headers through
 * tools/gen_cuda_docs.py; the descriptions are icuda's own words). */
#ifndef ICUDA_CUDA_DOCS_H
#define ICUDA_CUDA_DOCS_H

typedef struct {
    const char *name;
    const char *codes; /* "cudaSuccess, cudaErrorInvalidValue" ("" when none listed) */
} crt_errors_t;

extern const crt_errors_t crt_errors[];
extern const int crt_nerrors;

typedef struct {
    const char *name;
    const char *kind;      /* "variable", "function", "keyword", "type" */
    const char *signature; /* "unsigned int atomicAdd(unsigned int *address, unsigned int val)" */
    const char *doc;       /* one line */
} cuda_builtin_t;

/* Device code's built-ins (threadIdx, __syncthreads, atomicAdd, ...): a
 * table ending with a NULL name. */
extern const cuda_builtin_t cuda_builtins[];
const cuda_builtin_t *cuda_builtin_find(const char *name);

/* A one-line description of a common runtime API function, or NULL. */
const char *cuda_runtime_brief(const char *name);
/* The error codes the toolkit documents for a runtime function, or NULL. */
const char *cuda_runtime_errors(const char *name);

#endif
