/* The CUDA runtime API as read from the toolkit's headers at build time
 * (tools/gen_cuda_api.py writes build/gen/crt_table.c and crt_decls.c):
 * every function of cuda_runtime_api.h with its parameters classified for
 * forwarding to the worker (cuda_forward.c), and the true layouts and
 * values of the toolkit's types and constants, which host cells must agree
 * with (the tests compare them). */
#ifndef ICUDA_CUDA_RT_TABLE_H
#define ICUDA_CUDA_RT_TABLE_H

/* What a parameter is. */
enum {
    CRT_INT,     /* a signed integer or an enum, passed by value */
    CRT_UINT,    /* an unsigned integer (size_t, unsigned int, ...) */
    CRT_FLOAT,
    CRT_DOUBLE,
    CRT_STREAM,  /* cudaStream_t: icuda's handle, the worker's CUstream on the wire */
    CRT_EVENT,   /* cudaEvent_t: likewise */
    CRT_HANDLE,  /* another opaque handle (cudaGraph_t, cudaArray_t, ...): the worker's own value */
    CRT_PTR,     /* a pointer to data (pointee_* says to what) */
    CRT_STRUCT,  /* a struct by value (dim3, cudaExtent, cudaPitchedPtr, ...) */
    CRT_FNPTR,   /* a host function the driver would call */
};

/* What a CRT_PTR parameter points to. */
enum {
    CRT_PT_NONE,
    CRT_PT_VOID,    /* void *: memory on either side, extent unknown */
    CRT_PT_SCALAR,  /* int, size_t, an enum, float ... */
    CRT_PT_STRUCT,  /* a struct of the headers (fields: its pointer fields) */
    CRT_PT_OPAQUE,  /* an incomplete struct */
    CRT_PT_HANDLE,  /* cudaGraphNode_t *: handles, out or in arrays */
    CRT_PT_DATAPTR, /* void **, const void **: pointers (out, or arrays of pointers) */
    CRT_PT_STREAM,  /* cudaStream_t * */
    CRT_PT_EVENT,   /* cudaEvent_t * */
    CRT_PT_CHAR,    /* char *, const char * */
    CRT_PT_FN,
};

typedef struct {
    const char *name;       /* as the header names it: "dpitch" */
    const char *type;       /* "size_t" */
    unsigned char kind;     /* CRT_* */
    unsigned char pointee;  /* CRT_PT_* */
    unsigned char pointee_const;
    unsigned short size;    /* sizeof the parameter */
    unsigned int pointee_size; /* sizeof what it points to (0: void, incomplete) */
    short fields;           /* index in crt_ptrfields (struct pointee or by-value struct), -1 */
    unsigned char has_default; /* C++ code may leave it out (cudaStreamWaitEvent(s, e): flags 0) */
    long long dflt;
} crt_param_t;

enum { CRT_RET_ERROR, CRT_RET_STRING, CRT_RET_OTHER };

typedef struct {
    const char *name;
    const char *proto;      /* the C prototype, for messages */
    unsigned char ret;      /* CRT_RET_* */
    unsigned char nparams;
    unsigned char deprecated;
    const crt_param_t *params;
} crt_fn_t;

/* The offsets of a struct's pointer fields (nested ones included). */
typedef struct {
    const unsigned short *off;
    int n;
} crt_ptrfields_t;

typedef struct {
    const char *type;       /* "struct cudaDeviceProp", or a typedef name */
    unsigned size, align;
} crt_struct_t;

typedef struct {
    const char *type, *field;
    unsigned off;
} crt_field_t;

typedef struct {
    const char *name;
    long long value;
} crt_const_t;

extern const crt_fn_t crt_fns[];
extern const int crt_nfns;
extern const crt_ptrfields_t crt_ptrfields[];
extern const crt_struct_t crt_structs[];
extern const int crt_nstructs;
extern const crt_field_t crt_fields[];
extern const int crt_nfields;
extern const crt_const_t crt_consts[];
extern const int crt_nconsts;
/* The index of the function named name in fns (n of them), or -1; *index
 * is the table's index by name, built on first use (cuda_forward.c). */
int crt_lookup(const crt_fn_t *fns, int n, int **index, const char *name);
/* The function named name, or NULL (runtime/cuda/cuda_forward.c). */
const crt_fn_t *crt_find(const char *name);
/* crt_decls.c: the declarations and macros host cells see. */
extern const char crt_decl_text[];
extern const char crt_macro_text[];

#endif
