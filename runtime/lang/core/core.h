/* The host interpreter's data model, shared by every stage (runtime/lang/):
 * source text and tokens, types, values, the typed nodes the parser builds
 * and the evaluator runs, functions, frames, symbols, the session record;
 * pools and maps to hold them; the errors every stage raises.
 * Pipeline per cell: front/ (tokens, preprocessor, parse and type-check in
 * one pass, building typed nodes whose fn is the specialised evaluator) ->
 * eval/ (run the nodes; every pointer is checked against eval/mem.c's
 * buffer table). */
#ifndef ICUDA_LANG_CORE_H
#define ICUDA_LANG_CORE_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
/* the public face's types this record holds (runtime/lang/interp.h) */
typedef struct interp interp_t;
typedef struct interp_hooks interp_hooks_t;
typedef struct cell_io cell_io_t;       /* runtime/base/cell_io.h */
typedef struct cell_error cell_error_t;
typedef const char *(*interp_header_fn)(void *ctx, const char *name);
typedef int (*interp_kernel_fn)(void *ctx, const char *name, char *decl, size_t cap);

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---------- pool: everything compiled lives until interp_free ----------
 * (or, for a cell that defined nothing lasting, until the cell ends:
 * session.c rolls the pool back to where the cell began) */
typedef struct pool_chunk {
    struct pool_chunk *next;
    size_t used, cap;
    size_t mapped;       /* its mapping's length, or 0: malloc'd */
    bool own;            /* one block's alone (a large allocation) */
    char data[] __attribute__((aligned(16)));
} pool_chunk_t;
typedef struct { pool_chunk_t *head; } pool_t;
/* Zeroed. Past the memory a cell may take (lang_budget_check), or when
 * none is left, a MemoryError in a cell; outside one the process ends. */
void *pool_alloc(pool_t *p, size_t n);
/* Block old (oldn bytes from pool_alloc or pool_regrow) as n bytes, its
 * bytes kept, zeroed past them: in place where it has a chunk of its own
 * (a growing vector moves no bytes), else a new block. */
void *pool_regrow(pool_t *p, void *old, size_t oldn, size_t n);
/* Gives back now a block that has a chunk of its own (a large one); else
 * nothing. Not for a pool with marks (pool_mark) taken since x. */
void pool_release(pool_t *p, void *x);
/* The system may have the pages of the first n bytes of block x (one with
 * a chunk of its own) back: a cell's tokens that the parser is past. */
void pool_discard(pool_t *p, void *x, size_t n);
extern size_t g_pool_bytes;            /* bytes in all pools' chunks */
char *pool_strndup(pool_t *p, const char *s, size_t n);
void pool_free(pool_t *p);
/* from's blocks become into's (they live as long as into's do); from is
 * left empty. Marks of into taken before stay valid. */
void pool_splice(pool_t *into, pool_t *from);
typedef struct { pool_chunk_t *head; size_t used; } pool_mark_t;
static inline pool_mark_t pool_mark(pool_t *p) { return (pool_mark_t){p->head, p->head ? p->head->used : 0}; }
/* Frees what was allocated since m; the space is zeroed for reuse (under
 * ASan: poisoned and never reused, so that a stale pointer is caught). */
void pool_rollback(pool_t *p, pool_mark_t m);
/* Was x allocated since m (and not yet rolled back)? With an empty mark,
 * (pool_mark_t){0}: is x in p at all? */
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
/* A cell has about one token for every two bytes, all held until it is
 * parsed: 56 bytes (they were 88, 0.7 GB of a 10 MB cell's peak). */
typedef struct token {
    const char *s;   /* spelling (points into src or pool) */
    loc_t loc;
    union {          /* the literal's payload, by kind: */
        uint64_t ival;   /* TK_INT, TK_CHAR */
        double fval;     /* TK_FLOAT */
        char *str;       /* TK_STR: decoded (with NUL), slen bytes */
    };
    int n, slen;
    uint16_t id;     /* punctuator/keyword id */
    uint8_t kind;
    uint8_t lit_type; /* type kind of literal */
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

/* A cell of short statements holds a node every two or three bytes of its
 * text, so a node is kept small (176 bytes; 232 with the index cache and
 * padding in it): 8-byte fields first, then the 4-byte ones, then flags. */
struct node {
    efn_t fn;            /* expression: value */
    sfn_t sfn;           /* statement */
    afn_t afn;           /* place: checked host address */
    type_t *ty;
    loc_t loc;
    int op, kind;        /* operator id, operating kind */
    node_t *a, *b, *c, *d;
    node_t **list;
    val_t k;             /* constant, offset, etc. */
    int64_t esz;         /* element size / access size */
    int64_t bound;       /* static array bound for indexing (-1 none) */
    void *p;             /* gvar_t*, func_t*, builtin, case table ... */
    const char *str;     /* string literal bytes */
    /* PL_INDEX through a pointer: the last buffer checked (idx_at), beside
     * the node in the pool; a copy of the node shares it (same esz). */
    struct icache *ic;
    void *native;        /* a loop: the native tier's record (native_tier.c) */
    int nlist;
    int slot, slot2;
    bool is_const : 1, is_place : 1, is_bitless : 1;
    bool is_decl : 1;    /* a local's own place in its declaration's initialisation */
    uint8_t place;       /* PL_* when is_place */
};
_Static_assert(sizeof(struct node) <= 176, "a node grew: a big cell's syntax tree grows with it");

enum { PL_SLOT = 1, PL_FRAME, PL_GLOBAL, PL_DEREF, PL_INDEX, PL_MEMBER, PL_TEMP, PL_VLA };

/* frame locals that need an address live in frame memory with a buffer */
typedef struct lvar_mem { int64_t off, size; const char *name; int hidx; } lvar_mem_t;

/* A function name's box: calls and function pointers refer to the box, so a
 * redefinition in a later cell is what earlier callers call. */
typedef struct fbox { const char *name; struct func *cur; int id; uint32_t owner; } fbox_t;

/* function designators: a node's op when it names a function (a user's, a
 * builtin, a kernel, a CUDA API entry, a template, an overload set) */
enum { FD_USER = 1001, FD_BUILTIN, FD_KERNEL, FD_GPUAPI, FD_TEMPLATE, FD_OVERLOAD };

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
    char *native_copy;   /* an array of pointers as native code reads it (interp_native_var) */
};

/* ---------- builtins ---------- */
typedef val_t (*bfn_t)(node_t *call, val_t *args, int nargs, frame_t *f);
typedef struct builtin {
    const char *name; bfn_t fn; int flags;
    type_t *ty;          /* from its prototype (builtin_prototypes) */
    void *data;          /* e.g. the libm function */
    /* checks a call when the cell compiles (printf's format against its
     * arguments: a TypeError before anything runs), or NULL */
    void (*check)(node_t *call, const struct builtin *b);
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
void *hmap_getn(hmap_t *m, const char *k, size_t n); /* the key is the n bytes at k */
void hmap_put(hmap_t *m, const char *k, void *v);
void hmap_del(hmap_t *m, const char *k);
void hmap_deln(hmap_t *m, const char *k, size_t n);
void hmap_free(hmap_t *m);

/* A session's buffer table, raw-address index, managed-memory list and
 * function boxes while another session is current (eval/mem.h lang_use):
 * the evaluator's globals are the current session's own copy, so that the
 * hot paths read them without an indirection. */
typedef struct lang_tables {
    struct buf *bufs; uint32_t nbufs, capbufs;
    uint64_t buf_epoch;
    uint32_t *fifo; uint32_t fifo_cap, fifo_head, fifo_n;
    struct raw *raw; uint32_t nraw, capraw;
    uint32_t managed_epoch;
    uint32_t *touched; uint32_t ntouched, captouched, nmanaged;
    struct fbox **fboxes; int nfboxes;
} lang_tables_t;

/* What the evaluator asks of the stages above it, which it cannot name
 * (calls between the stages go downward only): the session installs them
 * when it sets up (session/session.c), and an entry left NULL is not
 * asked. */
typedef struct lang_upcalls {
    /* the native tier: loop statement n (kind NK_S_FOR, NK_S_WHILE or
     * NK_S_DO) was just built, and the tier may put its evaluator in front */
    void (*loop_built)(node_t *n, int kind);
    /* ... a loop the tier stands in front of, where it polls the
     * interrupt (every 1024 ticks, at a back-edge): -1 go on; otherwise
     * leave the loop at once with that result (compiled code ran it) */
    int (*loop_tick)(node_t *n, frame_t *f);
    /* ... fn's calls made it hot (fn->hot reached in->native_hot_calls): 1
     * its compiled code ran (*r its value); 2 it gave up (run fn
     * interpreted, with nothing compiled inside: in->native_block); 0 run
     * it interpreted */
    int (*hot_call)(func_t *fn, val_t *args, val_t *r);
    /* the C++ library: a library object's text for value display
     * (malloc'd), or NULL to show its fields */
    char *(*show_object)(type_t *t, const void *obj);
} lang_upcalls_t;

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
    int64_t ffree_mem;   /* bytes of locals those records keep (calls.c) */
    size_t budget_base, budget; /* g_pool_bytes when the run began; what it may grow by (0: not yet known) */
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
    /* The syntax of a cell's top-level statements (not its declarations),
     * apart from the pool while session.c's run of a cell asks for it
     * (stmts_split): no definition can point into it, so it goes when the
     * cell ends even where the cell's declarations stay (a cell of one
     * declaration and megabytes of statements keeps only the declaration).
     * stmts_escaped: a statement's parse made something lasting (a static
     * local, a template instance), so it is kept after all. */
    pool_t stmts;
    bool stmts_split, stmts_swapped, stmts_escaped;
    unsigned long gdecl_puts; /* top-level variables that joined the session as their cell ran */
    uint64_t tok_next;   /* strtok's place: a pointer word of this session */
    json_t *value_json;  /* the cell's value, set by its last statement */
    interp_hooks_t *hooks;   /* the GPU side's (interp_set_hooks), NULL until set */
    lang_upcalls_t up;   /* the stages above the evaluator (set up by session.c) */
    interp_header_fn header_text; void *header_ctx; /* #include "x" of a %%header (lex.c) */
    interp_kernel_fn kernel_decl; void *kernel_ctx;  /* device cells' kernels (parse_kernel.c) */
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
/* s copied once into in->keep (session-lived), by content. */
const char *lang_intern(interp_t *in, const char *s);
/* A name made with printf for a lookup (a token's text, "ns::name"): in buf
 * when it fits in cap bytes, else in the session's pool, so that a name of
 * any length is looked up whole, never cut at the buffer's size. */
char *lang_name_fmt(interp_t *in, char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* ... the n bytes at s (a token's text) as a string, the same way */
char *lang_name(interp_t *in, char *buf, size_t cap, const char *s, size_t n);

/* ---------- errors (errors.c) ---------- */
/* The memory a cell may take in the session's pools (budget.c): from
 * lang_budget_start, pools that grow by more than lang_cell_budget() raise
 * MemoryError; so does an allocation that fails (outside a cell, the
 * process ends with a message). */
size_t lang_cell_budget(void);
void lang_budget_start(interp_t *in);
void lang_budget_check(size_t more);
_Noreturn void lang_out_of_memory(size_t n, const char *what);
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
char *ty_decl_alloc(type_t *t, const char *name);      /* ... whole, malloc'd */
const char *ty_plural(type_t *t, char *buf, size_t n);   /* "doubles" */
/* per-session types from the prelude */
#define ty_dim3 (g_in->dim3_type)
#define ty_file (g_in->file_type)
#define ty_size_t (g_in->size_type)

/* ---------- a compiled cell: what the parser hands the evaluator ---------- */
typedef struct cell_code {
    func_t *fn;          /* the cell's top level as a function */
    node_t *value;       /* final expression, or NULL */
    gvar_t **newg; int nnewg;
} cell_code_t;

/* How deep the C stack may go below here: in->stack_base, stack_limit.
 * Depth is measured with the frame address, never the address of a local:
 * under AddressSanitizer with fake stacks (detect_stack_use_after_return,
 * on by default in gcc 13's) locals live in the heap, not on the stack. */
#define STACK_HERE() ((char *)__builtin_frame_address(0))

#endif
