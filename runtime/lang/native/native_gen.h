/* The native tier's code generator, shared by its files: the generator's
 * state (gen_t) and its small helpers, and what each file offers the
 * others: native_gen.c (expressions, statements, the loop's function),
 * native_version.c (a counted loop's clean copy behind an entry test),
 * native_nest.c (whole loop nests), native_func.c (pure functions a loop
 * calls). Only these files include it. */
#ifndef ICUDA_LANG_NATIVE_GEN_H
#define ICUDA_LANG_NATIVE_GEN_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "native.h"
#include "native_rt.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include "runtime/lang/eval/exec_inline.h"

enum { MAXSLOTS = 4096, MAXDEPTH = 64, MAXGL = 64, MAXPROVEN = 512 };
/* index sites whose access caches are locals (registers); the rest live in
 * an array (ic[]) and miss through one function, or gcc's register
 * allocator takes seconds over a long loop body */
enum { NIC_REGS = 16, MAXIC = 1024 };

/* A session variable (or a member of one) at a fixed address, kept in a
 * local of the compiled code while it runs (native-tier.md "Session
 * variables in registers"). */
typedef struct cvar {
    void *root;     /* the variable's storage */
    int64_t off;    /* the member's offset in it */
    int code;       /* its tcode */
    bool written, cached;
    int kb;         /* k index of root (pass 2) */
} cvar_t;

typedef struct gen {
    strbuf_t body;
    void **k; int nk, capk;
    signed char slotc[MAXSLOTS]; /* per slot: its type code + 1, 0 unused */
    int nic, ndc, nlab, ntmp;
    int brk[MAXDEPTH], cont[MAXDEPTH], depth;
    node_t **loops; /* by label: the loop statement (native_src_t) */
    bool *versioned; /* by label: entered at its version test (native_version.c) */
    int caploops;
    /* loop versioning: generating a clean copy; what it may leave unchecked */
    bool in_clean;
    /* whole nests (native_nest.c): the clean nests' functions; making one
     * (its buffers are restrict parameters rb<i>, it polls only on its
     * outermost loop), or the checked copy of one */
    strbuf_t nestfns;
    bool nest_fn, in_nest;
    bool lean, leaned; /* the root nest without its checked copy (native_gen); it was */
    const val_t *slotv; /* the frame's slots when the code is made (NULL: unknown) */
    node_t *poll_only;
    node_t *proven[MAXPROVEN * 4]; /* arithmetic that cannot overflow, v's step */
    int nproven;
    node_t *site[MAXPROVEN];       /* p[i] sites proven inside their buffer */
    int site_ra[MAXPROVEN], nsite, nra, niv;
    /* p[i] sites of a clean copy whose p is invariant but whose index is
     * not proven: one compare each against p's buffer, found at the entry
     * (its address rb<k>, valid indexes rl<k> .. rl<k> + rs<k> - 1) */
    node_t *bsite[MAXPROVEN];
    int bsite_rb[MAXPROVEN], nbsite, nrb;
    bool rbound; /* an entry test calls nt_rbound */
    int nrc;     /* entry tests' range caches (nt_rc[]) */
    node_t *asite[MAXPROVEN]; /* a[i] of arrays whose index a clean copy's entry test proved */
    int nasite;
    /* a chunked clean loop (native_version.c): its counter's slot + 1 (0:
     * none), read as the 64-bit local nt_iv<civ_label> */
    int civ_slot1, civ_label;
    bool fail;
    node_t *root;
    /* session variables: pass 1 (collect) finds them, pass 2 caches them */
    bool collect;
    cvar_t gv[MAXGL];
    int ngv, ncached;
    bool gv_full;
    void *indexed[MAXGL]; /* variables indexed as arrays: never cached */
    int nindexed;
    /* the access site last addressed ('i' p[i], 'd' *p; 0 none), for the
     * reload after a store that may have hit a cached variable */
    char last_kind;
    int last_site;
    /* p[i] access caches: one per base pointer text, element size and
     * direction (ic_share); a hash of that for each */
    uint64_t ickey[MAXIC];
    /* caches whose pointer is the same for the whole run of the code (a
     * slot or kept variable the code never writes; const_base's id, 0 for
     * none): no compare of the pointer word, and emptied when the kept
     * variables are reloaded; their element size and direction, exact */
    int icbase[MAXIC];
    int64_t icesz[MAXIC];
    unsigned char icwr[MAXIC];
    unsigned char slotw[MAXSLOTS]; /* slots the code writes (pass 1) */
    bool rcheck; /* a versioned loop's entry test calls nt_rcheck */
    struct unit *unit; /* the pure functions its calls go to (native_func.c) */
    bool fnmode;       /* generating those functions, not a loop */
    struct gen *parent; /* function mode: the loop's generator (its kept variables) */
    int nfic, nfdc;     /* function mode: its memory reads' caches (nt_fic[], nt_fdc[]) */
} gen_t;

/* frees n strings */
static inline void frees(int n, ...) {
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) free(va_arg(ap, char *));
    va_end(ap);
}

static inline char *bad(gen_t *g) {
    g->fail = true;
    return xstrdup("0");
}

static inline bool isf(type_t *t) {
    return !t->is_enum && (t->kind == T_FLOAT || t->kind == T_DOUBLE || t->kind == T_LDOUBLE);
}
static inline const char *vt(type_t *t) { return isf(t) ? "double" : "int64_t"; }

/* conversion code as exec.c's ccode (loads and stores use tcode) */
static inline int ccode_of(type_t *t) {
    if (t->is_enum) return t->is_unsigned ? T_UINT : T_INT;
    return (int)t->kind;
}
static inline bool c_float(int c) { return c == T_FLOAT || c == T_DOUBLE || c == T_LDOUBLE; }
static inline bool c_u64(int c) { return c == T_ULONG || c == T_ULLONG || c == T_PTR; }

/* the C type a slot of code c is kept in, and how it is read and written */
static inline const char *slot_ctype(int c) {
    switch (c) {
    case T_INT: return "int32_t";
    case T_UINT: return "uint32_t";
    case T_FLOAT: return "float";
    case T_DOUBLE: return "double";
    default: return "int64_t";
    }
}

static inline bool fixed_place(node_t *pl, void **root, int64_t *off) {
    int64_t o = 0;
    while (pl->place == PL_MEMBER) {
        o += pl->k.i;
        pl = pl->a;
    }
    if (pl->place != PL_GLOBAL) return false;
    *root = pl->k.p;
    *off = o;
    return true;
}
static inline int code_size(int c) {
    switch (c) {
    case T_BOOL: case T_CHAR: case T_SCHAR: case T_UCHAR: return 1;
    case T_SHORT: case T_USHORT: return 2;
    case T_INT: case T_UINT: case T_FLOAT: return 4;
    default: return 8;
    }
}

/* ---- native_gen.c ---- */
char *gen_expr(gen_t *g, node_t *n);    /* C text of expression n's value (malloc'd) */
void gen_stmt(gen_t *g, node_t *n);     /* statement n into g->body */
/* loop n (kind NK_S_*, label L) without its version test: init when asked */
void gen_loop_core(gen_t *g, node_t *n, int kind, int L, bool init);
int gen_new_label(gen_t *g, node_t *n); /* a new loop label for loop statement n (NULL: a copy never entered) */
int gen_kidx(gen_t *g, void *p);        /* p's index among the code's constants */
bool gen_use_slot(gen_t *g, int slot, type_t *t); /* slot kept in local s<slot> of t's kind (false: fails) */
void gen_poll(gen_t *g, node_t *loop);  /* the interrupt flag looked at (a chunk's end) */
void gen_prove(gen_t *g, node_t *n);    /* n's arithmetic cannot overflow (the clean copy) */
/* place pl read or written: in pass 1 noted; in pass 2 its cached local's
 * index, or -1 when it lives in memory */
int gen_gvar_ref(gen_t *g, node_t *pl, bool wr);
const char *gen_gvar_ctype(int c);      /* the C type a cached session variable of code c is kept in */
extern const char gen_prelude[];        /* the head of every generated file (a format: native_gen.c) */

/* ---- native_version.c ---- */
enum { MAXNEST = 8, MAXREF = 8 };

typedef struct vscan {
    unsigned char *wslot;  /* slots written in the body: how often (saturating) */
    gen_t *g;
    bool bad;              /* holds a loop, or writes memory it cannot prove */
    bool memwr;            /* writes memory (not a slot or a kept session variable) */
    node_t *sites[MAXPROVEN]; /* PL_INDEX through a pointer */
    bool swr[MAXPROVEN];
    int nsites;
    void *wroot[MAXGL];    /* session variables written (root, off) */
    int64_t woff[MAXGL];
    int nw;
    /* a whole nest (native_nest.c): its inner counted loops, in order */
    bool nest;
    node_t *nl[MAXNEST];
    int nvar[MAXNEST], npar[MAXNEST], nn, cur;
    int *ivmap; /* per slot: the interval locals of a loop variable, or -1 */
    bool optimistic; /* lean code: an index the data decide may be proven by its type (gen_ivl) */
    node_t **letinit; /* per slot: the value a local declared in the body starts with (a let), or NULL */
    int letdepth;
    /* counters narrowed by the conditionals gen_ivl is inside: slot, interval id */
    int refslot[MAXREF], refid[MAXREF], nref;
    /* a[i] of arrays (of locals, session variables): their bound tests
     * proven at the entry when their indexes' ranges are known */
    node_t *asites[MAXPROVEN];
    int nasites;
    /* the memory a whole nest reaches outside its buffers (a local array
     * in the frame, a session array): no written buffer may overlap it */
    node_t *regions[MAXPROVEN];
    int nregions;
} vscan_t;
void gen_vscan_stmt(vscan_t *s, node_t *n);         /* what statement n reads and writes */
int gen_var_read(node_t *e);                          /* the slot e only reads, or -1 */
bool gen_invariant(vscan_t *s, node_t *e);            /* e reads nothing the loop writes */
bool gen_invariant_expr(vscan_t *s, node_t *e);
/* the interval of e over the loop (v its variable) into locals, its tests
 * into chk; -1 when e is not built so */
int gen_ivl(vscan_t *s, node_t *e, int v, strbuf_t *chk);
/* what integer expression e can be whatever the data: its type's range,
 * narrowed by its form; false when int64_t cannot hold it */
bool gen_static_ival(node_t *e, int64_t *lo, int64_t *hi);
bool gen_reads_slot(node_t *e, int w);                 /* does tree e read or write slot w? */
node_t *gen_init_value(node_t *st, int w);            /* the value init `w = value` stores, or NULL */
void gen_prove_arrays(gen_t *g, vscan_t *s, int v, strbuf_t *chk); /* a[i] proven inside its bound at the entry */
bool gen_lean_ok(gen_t *g, vscan_t *s, node_t *n, int v);
int gen_counted_var(node_t *n);                        /* a counted loop's variable slot, or -1 */
bool gen_loop_versioned(gen_t *g, node_t *n, int L);  /* loop n with its clean copy, when it qualifies */

/* ---- native_nest.c ---- */
bool gen_nest_versioned(gen_t *g, node_t *n, int L);  /* nest n with one entry test, when it qualifies */

/* ---- native_func.c ---- */
enum { MAXFN = 64 };
typedef struct unit {
    func_t *fn[MAXFN];
    void *box[MAXFN]; /* the fbox a call went through (NULL: the root) */
    int n;
    int cur;                            /* the function being generated (-1: the loop) */
    unsigned char calls[MAXFN][MAXFN];  /* calls[i][j]: function i calls function j */
} unit_t;
unit_t *gen_unit_new(void);
char *gen_user_call(gen_t *g, node_t *n);             /* a direct call of a function in g->unit */
char *gen_fn_read(gen_t *g, node_t *pl);              /* a function's read of p[i] or *p: its address, or it gives up */
bool gen_fn_global_ok(gen_t *g, node_t *pl);          /* may a function read this session variable? */
void gen_alias_macro(gen_t *g, strbuf_t *s, const char *name); /* name(lo, n): overlaps a kept variable */
bool gen_unit_functions(gen_t *g, unit_t *u, strbuf_t *s); /* the unit's functions as C */
void gen_unit_entry_checks(gen_t *g, unit_t *u, strbuf_t *s);
extern const char gen_unit_statics[];

#endif
