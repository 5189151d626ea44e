/* Internals shared by the host-C interpreter's files (runtime/lang/).
 * Pipeline per cell: lex.c (tokens + preprocessor) -> parse*.c (parse and
 * type-check in one pass, building typed nodes whose fn is the specialised
 * evaluator) -> exec.c (run the nodes). mem.c owns the buffer table that
 * makes every pointer checkable. */
#ifndef ICUDA_LANG_H
#define ICUDA_LANG_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "runtime/lang/interp.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---------- pool: everything compiled lives until interp_free ----------
 * (or, for a cell that defined nothing lasting, until the cell ends:
 * session.c rolls the pool back to where the cell began) */
typedef struct pool_chunk { struct pool_chunk *next; size_t used, cap; char data[]; } pool_chunk_t;
typedef struct { pool_chunk_t *head; } pool_t;
void *pool_alloc(pool_t *p, size_t n); /* zeroed */
char *pool_strndup(pool_t *p, const char *s, size_t n);
void pool_free(pool_t *p);
typedef struct { pool_chunk_t *head; size_t used; } pool_mark_t;
static inline pool_mark_t pool_mark(pool_t *p) { return (pool_mark_t){p->head, p->head ? p->head->used : 0}; }
/* Frees what was allocated since m; the space is zeroed for reuse (under
 * ASan: poisoned and never reused, so that a stale pointer is caught). */
void pool_rollback(pool_t *p, pool_mark_t m);
/* Was x allocated since m (and not yet rolled back)? */
bool pool_since(pool_t *p, pool_mark_t m, const void *x);

/* ---------- source of one cell: kept for error carets ---------- */
typedef struct src {
    char *name;  /* "In [3]" */
    char *text;
    int nlines;
    const char **lines; int *linelen;
} src_t;

typedef struct loc { src_t *src; int line, col, len; } loc_t; /* 1-based line, 0-based col */

/* ---------- tokens ---------- */
enum {
    TK_EOF = 0, TK_IDENT, TK_INT, TK_FLOAT, TK_CHAR, TK_STR, TK_PUNCT, TK_KW,
};
typedef struct token {
    int kind;
    int id;          /* punctuator/keyword id */
    const char *s; int n; /* spelling (points into src or pool) */
    loc_t loc;
    /* literal payloads */
    uint64_t ival; double fval; int lit_type; /* type kind of literal */
    char *str; int slen; /* decoded string literal (with NUL) */
    bool bol;        /* first on its line (for '#') */
    bool no_expand;
} token_t;

/* punctuators and keywords: ids share one space */
enum {
    P_NONE = 0,
    P_LBRACK, P_RBRACK, P_LPAREN, P_RPAREN, P_LBRACE, P_RBRACE, P_DOT, P_ARROW,
    P_INC, P_DEC, P_AMP, P_STAR, P_PLUS, P_MINUS, P_TILDE, P_NOT, P_DIV, P_MOD,
    P_SHL, P_SHR, P_LT, P_GT, P_LE, P_GE, P_EQ, P_NE, P_XOR, P_OR, P_LAND, P_LOR,
    P_QUEST, P_COLON, P_SEMI, P_ELLIPSIS, P_ASSIGN, P_MULEQ, P_DIVEQ, P_MODEQ,
    P_ADDEQ, P_SUBEQ, P_SHLEQ, P_SHREQ, P_ANDEQ, P_XOREQ, P_OREQ, P_COMMA, P_HASH,
    P_HASHHASH, P_LAUNCH_OPEN, P_LAUNCH_CLOSE, P_SCOPE,
    KW_FIRST,
    KW_VOID = KW_FIRST, KW_CHAR, KW_SHORT, KW_INT, KW_LONG, KW_FLOAT, KW_DOUBLE,
    KW_SIGNED, KW_UNSIGNED, KW_BOOL, KW_STRUCT, KW_UNION, KW_ENUM, KW_TYPEDEF,
    KW_STATIC, KW_EXTERN, KW_CONST, KW_VOLATILE, KW_RESTRICT, KW_INLINE, KW_REGISTER,
    KW_AUTO, KW_IF, KW_ELSE, KW_FOR, KW_WHILE, KW_DO, KW_SWITCH, KW_CASE, KW_DEFAULT,
    KW_BREAK, KW_CONTINUE, KW_RETURN, KW_GOTO, KW_SIZEOF, KW_TRUE, KW_FALSE,
    KW_HOST, KW_DEVICE, KW_GLOBAL, KW_FORCEINLINE, KW_NOINLINE, KW_SHARED, KW_CONSTANT,
    KW_NULLPTR, KW_ALIGNOF, KW_TYPEOF, KW_COMPLEX, KW_STATIC_ASSERT,
    /* C++ */
    KW_NEW, KW_DELETE, KW_TEMPLATE, KW_TYPENAME, KW_NAMESPACE, KW_USING, KW_CONSTEXPR,
    KW_THIS, KW_OPERATOR, KW_PUBLIC, KW_PRIVATE, KW_PROTECTED, KW_VIRTUAL, KW_TRY,
    KW_CATCH, KW_THROW, KW_STATIC_CAST, KW_REINTERPRET_CAST, KW_CONST_CAST,
    KW_DYNAMIC_CAST, KW_EXPLICIT, KW_FRIEND, KW_MUTABLE, KW_NOEXCEPT, KW_DECLTYPE,
    KW_LAST
};

/* ---------- types ---------- */
typedef enum {
    T_VOID, T_BOOL, T_CHAR, T_SCHAR, T_UCHAR, T_SHORT, T_USHORT, T_INT, T_UINT,
    T_LONG, T_ULONG, T_LLONG, T_ULLONG, T_FLOAT, T_DOUBLE, T_LDOUBLE,
    T_PTR, T_ARRAY, T_STRUCT, T_UNION, T_FUNC,
} tkind_t;

typedef struct type type_t;
typedef struct node node_t;

typedef struct field { const char *name; type_t *ty; size_t off; } field_t;
typedef struct sdef {   /* a struct/union definition, shared by its typedef copies */
    const char *tag; bool is_union, complete;
    int nfields; field_t *fields;
    struct cx_class *cls;  /* C++: its member functions and lifetime (cxx_class.h), or NULL */
} sdef_t;

struct type {
    tkind_t kind;
    size_t size, align;
    bool is_const, is_unsigned, is_enum;
    bool is_ref;          /* C++ T &: a pointer that every use dereferences */
    type_t *base;         /* ptr target, array element, function return */
    long count;           /* array: elements; -1 incomplete */
    node_t *vla;          /* array: runtime length expression (VLA) */
    int vla_slot;         /* slot holding the VLA's element count at run time */
    sdef_t *sd;           /* struct/union */
    int nparams; type_t **params; const char **pnames; bool variadic, oldstyle;
    const char *name;     /* typedef / enum name for display */
    const char *enum_tag;
    int tparam;           /* a template's type parameter k+1 while its header is read */
    node_t **defaults;    /* function: C++ default arguments (NULL, or one per parameter) */
};

/* operating kinds of arithmetic after promotions */
enum { K_I32, K_U32, K_I64, K_U64, K_F32, K_F64, K_PTR, K_NONE };

/* ---------- values ---------- */
typedef union val { int64_t i; uint64_t u; double d; void *p; } val_t;

/* ---------- pointers: 64-bit words ----------
 * Two kinds, told apart by value (docs/device-memory.md):
 *   - a word below 2^47 is a real address (what CUDA calls a device pointer:
 *     cudaMalloc, cudaMallocManaged and pinned memory, device-side malloc,
 *     an integer cast to a pointer). It means the same to the GPU, inside a
 *     struct or a table copied to the device, and after a worker restart;
 *     the buffer behind it is found through the raw-address table (mem.c);
 *   - every other word is [slot:22][gen:6][offset:36, two's complement]: a
 *     host buffer of the interpreter's own, checked by slot and generation.
 * Slots below 32 would fall under 2^47, so they are never used. */
#define PTR_OFF_BITS 36
#define PTR_GEN_BITS 6
#define PTR_SLOT_SHIFT (PTR_OFF_BITS + PTR_GEN_BITS)
#define PTR_OFF_MASK ((1ULL << PTR_OFF_BITS) - 1)
#define PTR_GEN_MASK ((1U << PTR_GEN_BITS) - 1)
#define PTR_MAX_SLOTS (1U << 22)
#define PTR_RAW_LIMIT (1ULL << 47)
#define SLOT_FUNC 32          /* function pointers: offset = function id */
#define SLOT_FILE 33          /* FILE *: offset 1 stdout, 2 stderr */
#define SLOT_FIRST_BUF 34

enum { PLACE_NONE, PLACE_HEAP, PLACE_GLOBAL, PLACE_STACK, PLACE_STRLIT, PLACE_DEVICE, PLACE_PINNED, PLACE_MANAGED,
       PLACE_LIB /* a C++ library object's storage (std::vector's elements): its owner frees it */ };
enum { BUF_FREE_SLOT, BUF_LIVE, BUF_FREED, BUF_DEAD_FRAME };

typedef struct buf {
    char *base;             /* host bytes (managed: the host copy; device: NULL) */
    uint64_t size;
    uint8_t gen, state, place, ro;
    uint8_t mtouched;       /* managed: the host copy was used since the last flush */
    uint8_t alloc;          /* heap buffers: ALLOC_MALLOC, ALLOC_NEW or ALLOC_NEW_ARRAY */
    uint32_t owner;         /* interp id, to free at interp_free */
    uint32_t msync;         /* managed: the device epoch the host copy is current for */
    uint64_t addr;          /* real-address buffers: their address (the pointer word) */
    const char *what;       /* "x" (variable), or NULL for malloc */
    const char *cell; int line; /* where it was made */
    const char *fname;      /* function whose frame held it */
} buf_t;

extern buf_t *g_bufs;
extern uint32_t g_nbufs;

static inline bool ptr_is_raw(uint64_t p) { return p < PTR_RAW_LIMIT; }
static inline uint64_t ptr_make(uint32_t slot, int64_t off) {
    return ((uint64_t)slot << PTR_SLOT_SHIFT) | ((uint64_t)g_bufs[slot].gen << PTR_OFF_BITS) |
           ((uint64_t)off & PTR_OFF_MASK);
}
static inline uint32_t ptr_slot(uint64_t p) { return (uint32_t)(p >> PTR_SLOT_SHIFT); }
static inline int64_t ptr_off(uint64_t p) {
    return (int64_t)(p << (64 - PTR_OFF_BITS)) >> (64 - PTR_OFF_BITS);
}
static inline uint64_t ptr_add(uint64_t p, int64_t d) {
    if (ptr_is_raw(p)) return p + (uint64_t)d; /* a real address: plain arithmetic */
    return (p & ~PTR_OFF_MASK) | ((uint64_t)(ptr_off(p) + d) & PTR_OFF_MASK);
}
/* A live host buffer's word (real-address words answer false: see ptr_buf). */
static inline bool ptr_valid(uint64_t p) {
    uint32_t s = ptr_slot(p);
    return s >= SLOT_FIRST_BUF && s < g_nbufs && g_bufs[s].state == BUF_LIVE &&
           g_bufs[s].gen == ((p >> PTR_OFF_BITS) & PTR_GEN_MASK);
}
/* The buffer record behind any pointer word and the offset into it, live or
 * not (check state and, for slot words, the generation); NULL when the word
 * names none. */
buf_t *ptr_buf(uint64_t p, int64_t *off);
/* The same, only for a live buffer (and the right generation). */
buf_t *ptr_live_buf(uint64_t p, int64_t *off);

/* Raises a RuntimeError describing why [p, p+n) cannot be read/written. */
_Noreturn void mem_fail(uint64_t p, uint64_t n, int wr, node_t *at);
/* mem_at's slow path: real-address words (pinned and managed memory are
 * readable from the host; managed memory is brought up to date first), and
 * the errors of everything else. */
char *mem_slow(uint64_t p, uint64_t n, int wr, node_t *at);
/* The host address of n bytes at p, checked; at names the access for errors.
 * Slot words of real-address buffers never pass here (their slots are never
 * below 32), so the fast path is host buffers only. */
static inline char *mem_at(uint64_t p, uint64_t n, int wr, node_t *at) {
    uint32_t s = ptr_slot(p);
    if (LIKELY(s < g_nbufs)) {
        buf_t *b = &g_bufs[s];
        uint64_t off = (uint64_t)ptr_off(p);
        if (LIKELY(b->state == BUF_LIVE && b->gen == ((p >> PTR_OFF_BITS) & PTR_GEN_MASK) &&
                   off <= b->size && n <= b->size - off && !(wr && b->ro) && !b->addr))
            return b->base + off;
    }
    return mem_slow(p, n, wr, at);
}
/* Brings a managed buffer's host copy up to date (a copy from the GPU when
 * it may have written it). 0, or -1 with msg. */
int mem_managed_fetch(buf_t *b, char *msg, size_t ml);
/* ... and marks it written by the host (it goes back before the GPU runs). */
int mem_managed_write(buf_t *b, char *msg, size_t ml);
/* Bumped whenever a buffer dies (buf_kill): every access cache below is then stale. */
extern uint64_t g_buf_epoch;
struct icache;
char *idx_fill(node_t *at, struct icache *c, uint64_t p, int64_t i, int wr);
bool idx_range(uint64_t p, int64_t esz, int wr, uintptr_t *addr, int64_t *lo, uint64_t *span);
uint32_t buf_new(char *base, uint64_t size, int place, const char *what, loc_t *where);
/* A buffer named by its real address (device, pinned, managed memory): the
 * pointer word is addr itself. host: its host bytes, or NULL. 0 when full. */
uint32_t buf_new_raw(uint64_t addr, char *host, uint64_t size, int place, const char *what, loc_t *where);
void buf_kill(uint32_t slot, int state);
uint64_t mem_alloc(uint64_t size, int place, const char *what, loc_t *where); /* arena/malloc */
int mem_free_heap(uint64_t p, node_t *at);   /* free(); raises on misuse */
/* free (ALLOC_MALLOC), delete (ALLOC_NEW) or delete[] (ALLOC_NEW_ARRAY) of p:
 * what made the buffer must match what releases it, as C++ requires. */
enum { ALLOC_MALLOC, ALLOC_NEW, ALLOC_NEW_ARRAY };
int mem_release(uint64_t p, int how, node_t *at);
extern uint32_t g_owner;   /* interp id that new buffers belong to */
/* A session's buffer table, raw-address index, managed-memory list and
 * function boxes while another session is current. The globals (g_bufs,
 * g_nbufs, g_buf_epoch, g_fboxes, ... in mem.c and exec.c) are the current
 * session's own copy, so the hot paths read them without an indirection;
 * lang_use swaps them when a different session is entered. */
typedef struct lang_tables {
    buf_t *bufs; uint32_t nbufs, capbufs;
    uint64_t buf_epoch;
    uint32_t *fifo; uint32_t fifo_cap, fifo_head, fifo_n;
    struct raw *raw; uint32_t nraw, capraw;
    uint32_t managed_epoch;
    uint32_t *touched; uint32_t ntouched, captouched, nmanaged;
    struct fbox **fboxes; int nfboxes;
} lang_tables_t;
/* Makes in the current session (g_in) and its tables the globals' (mem.c);
 * NULL only clears g_in. Every public interp_* entry that touches state
 * calls it; those that run code put the previous session back after. */
void lang_use(interp_t *in);
/* A new session's empty tables. */
void mem_tables_init(lang_tables_t *t);
/* Frees the current session's tables (interp_free, %reset): every buffer,
 * the index and the function boxes; in must be current. */
void mem_tables_free(interp_t *in);
/* in is gone: the globals are nobody's (interp_free). */
void mem_tables_forget(interp_t *in);
uint64_t ptr_from_int(uint64_t v);

/* ---------- nodes ---------- */
/* A checked pointer word remembered: p's buffer was live at epoch, and
 * p[i] is in bounds for lo <= i < lo + span, at address addr + i * size;
 * writes too when wr (managed memory remembers a read as a read, so that
 * the first write through the same place is seen). */
struct icache { uint64_t p, epoch; uintptr_t addr; int64_t lo; uint64_t span; int wr; };
typedef struct frame frame_t;
typedef val_t (*efn_t)(node_t *, frame_t *);
typedef int (*sfn_t)(node_t *, frame_t *);
typedef char *(*afn_t)(node_t *, frame_t *, int wr);

/* X_RETURN and above leave loops; X_NATIVE_DONE: compiled code entered inside
 * an outer loop ran that loop to its end (native_tier.c unwinds to it) */
enum { X_NORMAL = 0, X_BREAK, X_CONTINUE, X_RETURN, X_GOTO, X_NATIVE_DONE };

typedef struct func func_t;
typedef struct gvar gvar_t;

struct node {
    efn_t fn;            /* expression: value */
    sfn_t sfn;           /* statement */
    afn_t afn;           /* place: checked host address */
    type_t *ty;
    loc_t loc;
    int op, kind;        /* operator id, operating kind */
    bool is_const, is_place, is_bitless;
    bool is_decl;        /* a local's own place in its declaration's initialisation */
    int place;           /* PL_* when is_place */
    node_t *a, *b, *c, *d;
    node_t **list; int nlist;
    val_t k;             /* constant, offset, etc. */
    int64_t esz;         /* element size / access size */
    int64_t bound;       /* static array bound for indexing (-1 none) */
    int slot, slot2;
    void *p;             /* gvar_t*, func_t*, builtin, case table ... */
    const char *str;     /* string literal bytes */
    int line_tag;
    /* PL_INDEX through a pointer: the last buffer checked (idx_at) */
    struct icache ic;
    void *native;        /* a loop: the native tier's record (native_tier.c) */
};

/* The host address of element i of pointer p for the PL_INDEX node at, checked.
 * The node remembers the last pointer word it checked (buffer base + offset ->
 * the range of valid indexes), so an access through a pointer that has not
 * changed is one compare of the word, one of the epoch and one of the index;
 * any free, realloc or function return in between moves g_buf_epoch and sends
 * the next access through the full check (idx_fill -> mem_at). Read-only and
 * device buffers are never cached. */
static inline char *idx_at(node_t *at, uint64_t p, int64_t i, int wr) {
    if (LIKELY(p == at->ic.p && at->ic.epoch == g_buf_epoch &&
               (uint64_t)i - (uint64_t)at->ic.lo < at->ic.span && wr <= at->ic.wr))
        return (char *)(at->ic.addr + (uint64_t)i * (uint64_t)at->esz);
    return idx_fill(at, &at->ic, p, i, wr);
}

enum { PL_SLOT = 1, PL_FRAME, PL_GLOBAL, PL_DEREF, PL_INDEX, PL_MEMBER, PL_TEMP, PL_VLA };

/* frame locals that need an address live in frame memory with a buffer */
typedef struct lvar_mem { int64_t off, size; const char *name; int hidx; } lvar_mem_t;

/* A function name's box: calls and function pointers refer to the box, so a
 * redefinition in a later cell is what earlier callers call. */
typedef struct fbox { const char *name; struct func *cur; int id; uint32_t owner; } fbox_t;
extern fbox_t **g_fboxes; extern int g_nfboxes;

struct func {
    const char *name;
    type_t *ty;          /* T_FUNC */
    node_t *body;
    int nslots;
    int64_t memsize;
    int nmem; lvar_mem_t *mem;  /* addressable locals */
    int nparams; int *pslot; int64_t *pmem; /* param i: slot >=0, or frame mem offset */
    int id;              /* function pointer id */
    bool defined, is_builtin;
    struct builtin *bi;
    loc_t loc;
    int nvla;            /* VLA buffer handles kept in slots */
    int hot;             /* calls counted toward the native tier (native_call) */
    void *native;        /* the native tier's record of a pure function (native_tier.c) */
};

typedef struct frame_vla { uint32_t slot; } frame_vla_t;
struct frame {
    val_t *slots;
    char *mem;
    uint32_t *hbuf;      /* buffer slots of addressable locals */
    func_t *fn;
    frame_t *up;
    node_t *call;        /* call site in the caller */
    val_t ret;
    char *retbuf;        /* struct return target */
    node_t *go;          /* the goto being taken (X_GOTO): blocks look for its label */
    uint32_t *vlas; int nvlas, capvlas;
    /* frames are heap records reused through a free list, so that an error's
     * longjmp leaves them readable for the unwinder; capacities are kept */
    int capslots, caphbuf; int64_t capmem;
    frame_t *nextfree;
};

struct gvar {
    const char *name;
    type_t *ty;
    char *addr;
    uint32_t bslot;      /* buffer */
    bool committed, defined;
    loc_t loc;
    int cell_no;
    bool has_cval;       /* C++: a const integer with a constant initialiser, */
    int64_t cval;        /* usable where a constant expression is needed */
};

/* ---------- builtins ---------- */
typedef struct interp_state ist_t;
typedef val_t (*bfn_t)(node_t *call, val_t *args, int nargs, frame_t *f);
typedef struct builtin {
    const char *name; bfn_t fn; int flags;
    type_t *ty;          /* from its prototype (builtin_prototypes) */
    void *data;          /* e.g. the libm function */
} builtin_t;
enum { BF_PRINTF = 1, BF_FPRINTF = 2, BF_SPRINTF = 4, BF_SNPRINTF = 8, BF_NORETURN = 16 };

/* ---------- macros ---------- */
typedef struct macro {
    const char *name; bool fnlike, variadic, builtin;
    int nparams; const char **params;
    token_t *body; int nbody;
    const char *text;    /* the definition as written, for the device prelude */
} macro_t;

/* ---------- symbol tables ---------- */
typedef struct sym {
    const char *name;
    int kind;            /* S_VAR_GLOBAL, S_VAR_LOCAL, S_TYPEDEF, S_FUNC, S_ENUMC */
    type_t *ty;
    gvar_t *gv; func_t *fn;
    int slot; int64_t memoff; bool addressable; int hidx; bool is_vla;
    int64_t ival;
    struct tmpl *tp;     /* S_TEMPLATE: a host function template (parse_template.c) */
    struct sym *ovl;     /* S_FUNC: C++ overloads of the same name (other parameter types) */
    const char *box;     /* S_FUNC: its function box's name when not its own (an overload's) */
    struct sym *next;    /* scope chain */
    void *cx;            /* S_CXX: a member's field or method (parse_class.c) */
    bool cval;           /* S_VAR_LOCAL: a const integer whose constant value is ival */
} sym_t;
enum { S_VAR_GLOBAL = 1, S_VAR_LOCAL, S_TYPEDEF, S_FUNC, S_ENUMC, S_BUILTIN, S_TEMPLATE, S_CXX };

/* a small string->pointer hash map */
typedef struct hmap { int cap, n; const char **keys; void **vals; unsigned puts; /* hmap_put calls ever */ } hmap_t;
void *hmap_get(hmap_t *m, const char *k);
void hmap_put(hmap_t *m, const char *k, void *v);
void hmap_del(hmap_t *m, const char *k);
void hmap_free(hmap_t *m);

/* ---------- the interpreter ---------- */
struct interp {
    uint32_t id;
    pool_t pool;
    pool_t scratch;      /* per-cell temporaries (tokens), emptied after each run */
    hmap_t globals;      /* name -> sym_t (S_VAR_GLOBAL/S_FUNC/S_TYPEDEF/S_ENUMC) */
    hmap_t tags;         /* struct/union/enum tag -> type_t */
    hmap_t macros;       /* name -> macro_t */
    hmap_t builtins;     /* name -> builtin_t */
    int ncells;
    long pp_expansions;  /* macro expansions in the text being preprocessed (lex.c) */
    /* running */
    jmp_buf *jb;
    const cell_io_t *io;
    char *outbuf; size_t outlen, outcap;
    double last_flush;
    cell_error_t *err;
    frame_t *top;
    frame_t *ffree;      /* reusable frame records */
    char *stack_base; size_t stack_limit;
    int exit_code; bool exited;
    /* rand() state, glibc TYPE_3 */
    int32_t rtab[34]; int rf, rr;
    int counter;
    bool prelude_done;
    hmap_t fboxes;       /* name -> fbox_t */
    lang_tables_t tables; /* saved here while another session is current (lang_use) */
    /* What must outlive a cell whose pool space is given back (session.c
     * cell_end): string literal bytes (by content), names a buffer record
     * keeps (interned), the native tier's per-loop arrays; and a count of
     * definitions that only the map counters do not see. */
    pool_t keep;
    hmap_t strlits, interned;
    unsigned defs;
    uint64_t tok_next;   /* strtok's place: a pointer word of this session */
    json_t *value_json;  /* the cell's value, set by its last statement */
    interp_hooks_t hooks;
    interp_header_fn header_text; void *header_ctx; /* #include "x" of a %%header (lex.c) */
    type_t *dim3_type, *file_type, *size_type;
    gvar_t **gvars; int ngvars, capgvars; /* all ever made, to free */
    void *tmp[2];        /* a builtin's scratch, freed if the cell stops inside it */
    /* C++ names (parse_cxx.c): `namespace a = b::c;` and `using std::cout;`
     * (name -> what it stands for), `using namespace N;` (prefixes tried) */
    hmap_t ns_alias;
    const char **usings; int nusings;
    struct cx_state *cxx; /* C++ classes and their library (cxx_class.h) */
    uint64_t argv_word;  /* main's argv, made when a cell first names it */
    char *fmt_buf;       /* printf's text while it is formatted: freed if a conversion's error stops the cell */
    struct native_state *native; /* the native tier's mode and figures (native_tier.c) */
    int native_block;    /* > 0: calls run interpreted (a compiled call gave up) */
    bool setting_up;     /* interp_new's setup: no cell to interrupt (interrupt_at) */
    int native_hot_calls; /* calls that make a function hot (native_call sets it) */
};

extern interp_t *g_in;   /* the interpreter running now */

/* ---------- errors (errors.c) ---------- */
_Noreturn void lang_raise(const char *ename, loc_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
_Noreturn void rt_error(node_t *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void type_error(loc_t *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void syntax_error(loc_t *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *loc_text(loc_t *l, char *buf, size_t n); /* the source text a node spans */
src_t *src_new(interp_t *in, const char *name, const char *text);

/* ---------- types (types.c) ---------- */
extern type_t ty_void, ty_bool, ty_char, ty_schar, ty_uchar, ty_short, ty_ushort, ty_int,
    ty_uint, ty_long, ty_ulong, ty_llong, ty_ullong, ty_float, ty_double, ty_ldouble;
type_t *ty_ptr(type_t *base);
type_t *ty_ref(type_t *base);
extern type_t ty_auto;    /* C++ auto before deduction */
type_t *ty_array(type_t *base, long n);
type_t *ty_func(type_t *ret, int n, type_t **params, bool variadic);
type_t *ty_copy(type_t *t);
type_t *ty_const(type_t *t);
type_t *ty_unqual(type_t *t);
bool ty_is_int(type_t *t);
bool ty_is_float(type_t *t);
bool ty_is_arith(type_t *t);
bool ty_is_scalar(type_t *t);
bool ty_is_ptr(type_t *t);
bool ty_is_aggr(type_t *t);
bool ty_same(type_t *a, type_t *b);
bool ty_compat_ptr(type_t *a, type_t *b); /* pointee compatible for assignment */
int ty_opkind(type_t *t);   /* K_* of a promoted arithmetic type */
type_t *ty_promote(type_t *t);
type_t *ty_common(type_t *a, type_t *b);
char *ty_name(type_t *t, char *buf, size_t n);          /* "unsigned long", "int *", "int[5]" */
char *ty_decl(type_t *t, const char *name, char *buf, size_t n); /* declaration spelling */
const char *ty_plural(type_t *t, char *buf, size_t n);   /* "doubles" */
/* per-session types from the prelude */
#define ty_dim3 (g_in->dim3_type)
#define ty_file (g_in->file_type)
#define ty_size_t (g_in->size_type)

/* ---------- lexer (lex.c) ---------- */
typedef struct tokvec { token_t *v; int n, cap; } tokvec_t;
void lex_cell(interp_t *in, src_t *src, tokvec_t *out); /* raises SyntaxError */
void lex_define_text(interp_t *in, const char *text);    /* prelude macros */
/* The preprocessor's parts for a cell's conditionals (pp_cell.c): the tokens
 * of text p (line `line` of src) to its end; #if's value; defined(name);
 * #define of v[0..n) (the name first). */
void lex_span(interp_t *in, src_t *src, const char *p, int line, tokvec_t *out);
bool lex_pp_if(interp_t *in, token_t *v, int n);
bool lex_pp_defined(interp_t *in, token_t *name);
void lex_pp_define(interp_t *in, token_t *v, int n);
int binary_precedence(const token_t *t);                  /* 10 = * / %, 1 = ||; -1 otherwise */
const char *tok_str(token_t *t, char *buf, size_t n);

/* ---------- parser (parse*.c) ---------- */
typedef struct cell_code {
    func_t *fn;          /* the cell's top level as a function */
    node_t *value;       /* final expression, or NULL */
    gvar_t **newg; int nnewg;
} cell_code_t;
void parse_cell(interp_t *in, tokvec_t *toks, src_t *src, cell_code_t *out, bool expr_only);
void parse_prelude(interp_t *in);

/* How deep the C stack may go below here (session.c): in->stack_base, stack_limit.
 * Depth is measured with the frame address, never the address of a local:
 * under AddressSanitizer with fake stacks (detect_stack_use_after_return,
 * on by default in gcc 13's) locals live in the heap, not on the stack. */
#define STACK_HERE() ((char *)__builtin_frame_address(0))
void lang_stack_bounds(interp_t *in, char *here);
/* Makes in the running interpreter, its errors jumping to jb (a setjmp the
 * caller makes next) and its stack measured from here (the caller's
 * STACK_HERE(): not lang_enter's own frame, which is gone when it returns);
 * lang_recover undoes what a jump left half done (frames, a builtin's
 * scratch, tokens, unflushed output, a pending value). */
void lang_enter(interp_t *in, const cell_io_t *io, cell_error_t *err, jmp_buf *jb, char *here);
void lang_recover(interp_t *in);
/* s copied once into in->keep (session-lived), by content. */
const char *lang_intern(interp_t *in, const char *s);

/* ---------- exec (exec.c) ---------- */
val_t call_func(func_t *fn, val_t *args, node_t *site, frame_t *caller, char *retbuf);
void run_cell(interp_t *in, cell_code_t *cc);
void exec_unwind(interp_t *in, frame_t *to);
void frame_enter_check(node_t *at);
extern int g_tick;
_Noreturn void raise_interrupt(node_t *at);
/* raise_interrupt, but not while a session is being set up: there is no
 * cell to stop, and its prelude must be whole (calls.c) */
void interrupt_at(node_t *at);
static inline void poll_interrupt(node_t *at);
#include "runtime/base/interrupt.h"
static inline void poll_interrupt(node_t *at) {
    if (UNLIKELY(--g_tick <= 0)) {
        g_tick = 1024;
        if (interrupt_pending()) interrupt_at(at);
    }
}
/* ---------- builders (exec.c): typed pieces -> evaluators ---------- */
node_t *node_new(loc_t *loc);
val_t eval_const(node_t *n);                 /* a constant node's value */
node_t *mk_const(loc_t *l, type_t *t, val_t v);
node_t *mk_int(loc_t *l, type_t *t, int64_t v);
node_t *mk_cast(node_t *e, type_t *to);      /* conversion as by assignment/cast */
node_t *mk_test(node_t *e);                  /* scalar -> int 0/1 */
node_t *mk_load(node_t *place);              /* place -> value (aggregates: raw address) */
node_t *mk_addr(node_t *place);              /* place -> encoded pointer */
node_t *pl_slot(loc_t *l, type_t *t, int slot);
node_t *pl_frame(loc_t *l, type_t *t, int64_t off, int hidx);
node_t *pl_global(loc_t *l, gvar_t *g);
node_t *pl_deref(loc_t *l, type_t *t, node_t *ptr, int64_t off);
node_t *pl_index(loc_t *l, type_t *t, node_t *base, node_t *idx); /* base: pointer value or array place */
node_t *pl_member(loc_t *l, type_t *t, node_t *base, int64_t off);
node_t *pl_temp(loc_t *l, type_t *t, node_t *val);
node_t *pl_vla(loc_t *l, type_t *t, int slot);
node_t *mk_binop(loc_t *l, int op, type_t *t, node_t *a, node_t *b); /* t: the operating type */
node_t *mk_cmp(loc_t *l, int op, type_t *t, node_t *a, node_t *b);
node_t *mk_ptradd(loc_t *l, node_t *p, node_t *i, int64_t esz, int sign);
node_t *mk_ptrdiff(loc_t *l, node_t *a, node_t *b, int64_t esz);
node_t *mk_unop(loc_t *l, int op, type_t *t, node_t *a); /* -, ~ on promoted type */
node_t *mk_logic(loc_t *l, int op, node_t *a, node_t *b); /* && || (tests) */
node_t *mk_not(loc_t *l, node_t *a);
node_t *mk_cond(loc_t *l, type_t *t, node_t *c, node_t *a, node_t *b);
node_t *mk_comma(loc_t *l, node_t *a, node_t *b);
node_t *mk_assign(loc_t *l, node_t *place, node_t *rhs);  /* rhs already converted */
node_t *mk_compound(loc_t *l, int op, node_t *place, node_t *rhs, type_t *optype);
node_t *mk_incdec(loc_t *l, node_t *place, int delta, bool post); /* pointers: delta in elements */
node_t *mk_call(loc_t *l, fbox_t *box, type_t *fty, node_t **args, int n, int64_t tempoff);
node_t *mk_callptr(loc_t *l, node_t *fp, type_t *fty, node_t **args, int n, int64_t tempoff);
node_t *mk_builtin(loc_t *l, builtin_t *b, type_t *ret, node_t **args, int n);
node_t *mk_memset0(loc_t *l, node_t *place, int64_t size); /* zero an object */
node_t *mk_memcpy_init(loc_t *l, node_t *place, const char *bytes, int64_t n);
/* statements */
node_t *st_expr(node_t *e);
node_t *st_block(loc_t *l, node_t **v, int n);
node_t *st_if(loc_t *l, node_t *c, node_t *a, node_t *b);
node_t *st_while(loc_t *l, node_t *c, node_t *body);
node_t *st_do(loc_t *l, node_t *body, node_t *c);
node_t *st_for(loc_t *l, node_t *init, node_t *c, node_t *step, node_t *body);
node_t *st_switch(loc_t *l, node_t *c, node_t *body, int64_t *vals, int *idx, int ncase, int defidx);
node_t *st_jump(loc_t *l, int code);
node_t *st_return(loc_t *l, node_t *e, type_t *rt);
node_t *st_gdecl(loc_t *l, gvar_t *g);
node_t *st_vla(loc_t *l, int slot, node_t *count, int64_t esz, int countslot, const char *name);
node_t *st_launch(loc_t *l, const char *kernel);
node_t *st_nop(loc_t *l);
node_t *st_label(loc_t *l, const char *name, node_t *body);
node_t *st_goto(loc_t *l, const char *name);
node_t *st_once(loc_t *l, node_t *body); /* static local initialisers */
int64_t node_line(node_t *n);

/* ---------- output (builtins_stdio.c) ---------- */
void out_write(const char *stream, const char *s, size_t n);
void out_flush(void);
void printf_check(node_t *call, int fmt_index, const char *fname);
int format_printf(node_t *call, val_t *args, int nargs, int fmt_i, char **out, size_t *outlen);

/* ---------- builtins registry ---------- */
void builtins_register(interp_t *in);
void builtins_stdio_register(interp_t *in);
void builtins_math_register(interp_t *in);
void builtins_stdlib_register(interp_t *in);
void builtins_string_register(interp_t *in);
void builtins_cxx_register(interp_t *in);
builtin_t *builtin_add(interp_t *in, const char *name, bfn_t fn, int flags);
void parse_abort_cleanup(void);
node_t *st_value(node_t *e);
const char *str_at(uint64_t p, node_t *at, size_t *len); /* checked NUL-terminated string */
void rand_seed(interp_t *in, uint32_t seed);

/* ---------- display (value_display.c) ---------- */
json_t *display_value(node_t *n, val_t v);
void fmt_double(double d, char *buf, size_t n);
void fmt_float(float f, char *buf, size_t n);
char *display_text(type_t *t, val_t v, bool top);

/* ---------- undefined behaviour as errors (ub_checks.c) ---------- */
_Noreturn void ub_overflow(node_t *n, int op, int64_t a, int64_t b);
_Noreturn void ub_overflow_typed(node_t *n, type_t *t, int op, int64_t a, int64_t b);
void ub_shift_check(node_t *n, int op, int k, int64_t x, int64_t count);
void ub_float_to_int(node_t *n, double d, int to);
/* The open range (lo, hi) of doubles that convert to integer type code to; false: no limit. */
bool ub_f2i_range(int to, double *lo, double *hi);
_Noreturn void ub_negation(node_t *n, int64_t a);
/* Would a op b (operating kind k, b of type bt) be undefined? For constant folding. */
bool ub_would_fault(int op, int k, int64_t a, int64_t b, type_t *bt);
_Noreturn void ub_pointer_wrap(node_t *n, uint64_t p, int64_t d);
/* p + d for pointer arithmetic in host code: an error, never a wrap of the
 * 36-bit offset field onto another address of the same buffer's word. */
static inline uint64_t ptr_add_at(uint64_t p, int64_t d, node_t *at) {
    if (ptr_is_raw(p)) return p + (uint64_t)d;
    int64_t o;
    if (UNLIKELY(__builtin_add_overflow(ptr_off(p), d, &o) || o >= (INT64_C(1) << (PTR_OFF_BITS - 1)) ||
                 o < -(INT64_C(1) << (PTR_OFF_BITS - 1))))
        ub_pointer_wrap(at, p, d);
    return (p & ~PTR_OFF_MASK) | ((uint64_t)o & PTR_OFF_MASK);
}
/* i * esz for pointer arithmetic, which may not overflow either */
static inline int64_t ptr_scale_at(int64_t i, int64_t esz, uint64_t p, node_t *at) {
    int64_t d;
    if (UNLIKELY(__builtin_mul_overflow(i, esz, &d))) ub_pointer_wrap(at, p, i);
    return d;
}

/* every pointer held in a session variable or its members (session.c) */
typedef void (*session_pointer_fn)(void *ctx, const char *name, uint64_t word);
void session_pointers_each(interp_t *in, session_pointer_fn fn, void *ctx);

#endif
