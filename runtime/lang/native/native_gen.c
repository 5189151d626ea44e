/* Native tier, code generation (native.h): a loop statement's typed nodes
 * -> one C function. Every value is what the interpreter's val_t holds
 * (int64_t for integers and pointer words, double for floating types), and
 * every operator is written as exec.c computes it, in exec.c's order of
 * evaluation (GNU statement expressions sequence the operands). Checks:
 *   - p[i]: a per-site copy of the interpreter's access cache (idx_fill); a
 *     miss calls idx_fill itself, which either fills the cache or raises;
 *   - *(p + k): a per-site cache of the buffer (slot and generation);
 *   - a[i] of an array: the interpreter's bound test and error routine;
 *   - integer division: the interpreter's zero and overflow errors;
 *   - the interrupt flag on every back-edge.
 * Nothing compiled can free memory or return from a function, so a buffer
 * found live stays live for the whole run of the code. All semantic
 * choices (conversions, arithmetic) live in this file, next to each other,
 * so that a new check in exec.c has one place to be mirrored. */
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "native_gen.h"

int native_stmt_kind(node_t *n) {
    if (n->native) return ((native_loop_head_t *)n->native)->kind;
    return eval_stmt_kind(n->sfn);
}

static bool is_proven(gen_t *g, node_t *n) {
    for (int i = 0; i < g->nproven; i++)
        if (g->proven[i] == n) return true;
    return false;
}
void gen_prove(gen_t *g, node_t *n) {
    if (g->nproven < MAXPROVEN * 4) g->proven[g->nproven++] = n;
}
/* the clean copy's base address local of a proven access site, or -1 */
static int site_ra(gen_t *g, node_t *pl) {
    for (int i = 0; i < g->nsite; i++)
        if (g->site[i] == pl) return g->site_ra[i];
    return -1;
}
/* the bound locals of a clean copy's site with an unproven index, or -1 */
static int bsite_rb(gen_t *g, node_t *pl) {
    for (int i = 0; i < g->nbsite; i++)
        if (g->bsite[i] == pl) return g->bsite_rb[i];
    return -1;
}
/* a new loop label for loop statement n (NULL: a copy never entered) */
int gen_new_label(gen_t *g, node_t *n) {
    int L = g->nlab++;
    if (L >= g->caploops) {
        g->caploops = 2 * L + 16;
        g->loops = xreallocarray(g->loops, (size_t)g->caploops, sizeof(node_t *));
        g->versioned = xreallocarray(g->versioned, (size_t)g->caploops, sizeof(bool));
    }
    g->loops[L] = n;
    g->versioned[L] = false;
    return L;
}

int gen_kidx(gen_t *g, void *p) {
    for (int i = 0; i < g->nk; i++)
        if (g->k[i] == p) return i;
    ARRAY_GROW(g->k, g->nk, g->capk);
    g->k[g->nk] = p;
    return g->nk++;
}

static bool use_slot(gen_t *g, int slot, type_t *t) {
    if (slot < 0 || slot >= MAXSLOTS || ty_is_aggr(t) || t->kind == T_FUNC) { g->fail = true; return false; }
    int c = tcode(t);
    if (c == T_BOOL || c == T_CHAR || c == T_SCHAR || c == T_UCHAR || c == T_SHORT || c == T_USHORT) c = T_LONG;
    if (c == T_ULONG) c = T_LONG;
    if (!g->slotc[slot]) g->slotc[slot] = (signed char)(c + 1);
    else if (g->slotc[slot] != c + 1) { g->fail = true; return false; }
    return true;
}
bool gen_use_slot(gen_t *g, int slot, type_t *t) { return use_slot(g, slot, t); }
static char *slot_read(gen_t *g, int slot, type_t *t) {
    if (!use_slot(g, slot, t)) return bad(g);
    /* a chunked clean loop's counter (native_version.c): a 64-bit local of its own */
    if (g->civ_slot1 && slot == g->civ_slot1 - 1) return xasprintf("((%s)nt_iv%d)", vt(t), g->civ_label);
    return xasprintf("((%s)s%d)", vt(t), slot);
}

/* ---- session variables kept in locals ----
 * A variable, or a member chain of one, has a fixed address. Pass 1 notes
 * every such place the loop reads or writes; pass 2 keeps those that no
 * other noted place overlaps (a union's members) and that are not indexed
 * as arrays in a local, loaded on entry and stored back on every way out
 * (NT_SYNC: before each call that may raise, and at the end). A pointer
 * may still reach a cached variable: an access site whose slow path finds
 * its buffer overlapping one (NT_ALIAS) never fills its fast cache, so
 * every access there syncs first, and a store there reloads the locals. */
static void mark_indexed(gen_t *g, node_t *base) {
    void *r;
    int64_t o;
    if (!g->collect || !fixed_place(base, &r, &o)) return;
    for (int i = 0; i < g->nindexed; i++)
        if (g->indexed[i] == r) return;
    if (g->nindexed == MAXGL) g->gv_full = true;
    else g->indexed[g->nindexed++] = r;
}
/* place pl read or written: in pass 1 noted; in pass 2 its cached local's
 * index, or -1 when it lives in memory */
int gen_gvar_ref(gen_t *g, node_t *pl, bool wr) {
    void *r;
    int64_t o;
    if (pl->place == PL_SLOT || !eval_place_kind(pl) || !fixed_place(pl, &r, &o)) return -1;
    int c = tcode(pl->ty);
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].root == r && g->gv[i].off == o && g->gv[i].code == c) {
            if (g->collect) {
                g->gv[i].written |= wr;
                return -1;
            }
            return g->gv[i].cached ? i : -1;
        }
    if (!g->collect) return -1;
    if (g->ngv == MAXGL) g->gv_full = true;
    else g->gv[g->ngv++] = (cvar_t){r, o, c, wr, false, -1};
    return -1;
}
/* after pass 1: which noted variables pass 2 keeps in locals */
static void gvar_decide(gen_t *g) {
    g->ncached = 0;
    for (int i = 0; i < g->ngv; i++) {
        cvar_t *e = &g->gv[i];
        e->cached = !g->gv_full;
        for (int j = 0; j < g->nindexed && e->cached; j++)
            if (g->indexed[j] == e->root) e->cached = false;
        for (int j = 0; j < g->ngv && e->cached; j++) {
            cvar_t *f = &g->gv[j];
            if (j != i && f->root == e->root && f->off < e->off + code_size(e->code) && e->off < f->off + code_size(f->code))
                e->cached = false;
        }
        if (e->cached) g->ncached++;
    }
}
/* the C type of a cached variable's local: its bytes as stored */
const char *gen_gvar_ctype(int c) {
    switch (c) {
    case T_BOOL: case T_UCHAR: return "uint8_t";
    case T_CHAR: case T_SCHAR: return "int8_t";
    case T_SHORT: return "int16_t";
    case T_USHORT: return "uint16_t";
    case T_INT: return "int32_t";
    case T_UINT: return "uint32_t";
    case T_FLOAT: return "float";
    case T_DOUBLE: return "double";
    default: return "uint64_t";
    }
}
/* reading cached variable i, as load_code reads its bytes */
static char *gvar_read(gen_t *g, int i) {
    int c = g->gv[i].code;
    if (c == T_BOOL) return xasprintf("((int64_t)(g%d != 0))", i);
    return xasprintf("((%s)g%d)", c_float(c) ? "double" : "int64_t", i);
}
/* storing value v into cached variable i, as store_code stores it */
static char *gvar_write(gen_t *g, int i, const char *v) {
    int c = g->gv[i].code;
    if (c == T_BOOL) return xasprintf("g%d = (uint8_t)(%s != 0);", i, v);
    if (c_float(c)) return xasprintf("g%d = (%s)%s;", i, gen_gvar_ctype(c), v);
    return xasprintf("g%d = (%s)(uint64_t)%s;", i, gen_gvar_ctype(c), v);
}
/* After a store through the site last addressed: if that site's buffer
 * overlaps a cached variable, the locals are reloaded. */
static char *after_store(gen_t *g) {
    if (g->collect || !g->ncached || !g->last_kind) return xstrdup("");
    if (g->last_kind == 'm') return xstrdup(" if (__builtin_expect(ovm, 0)) { NT_RELOAD(); NT_INVAL(); }"); /* one flag for them all */
    return xasprintf(" if (__builtin_expect(ov%c%d, 0)) { NT_RELOAD(); NT_INVAL(); }", g->last_kind, g->last_site);
}
/* The definitions a function with cached variables needs before its body:
 * NT_SYNC, NT_RELOAD, NT_ALIAS(lo, n). */
static void gvar_macros(gen_t *g, strbuf_t *s) {
    sb_printf(s, "#define NT_SYNC() do {");
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached && g->gv[i].written)
            sb_printf(s, " __builtin_memcpy((char *)k%d + %" PRId64 ", &g%d, sizeof g%d);", g->gv[i].kb, g->gv[i].off, i, i);
    sb_printf(s, " } while (0)\n#define NT_RELOAD() do {");
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached)
            sb_printf(s, " __builtin_memcpy(&g%d, (char *)k%d + %" PRId64 ", sizeof g%d);", i, g->gv[i].kb, g->gv[i].off, i);
    sb_printf(s, " } while (0)\n");
    gen_alias_macro(g, s, "NT_ALIAS");
}
/* #define name(lo, n): does [lo, lo + n) overlap a session variable the
 * code keeps in a local? */
void gen_alias_macro(gen_t *g, strbuf_t *s, const char *name) {
    sb_printf(s, "#define %s(lo, n) (0", name);
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached)
            sb_printf(s, " || ((lo) < (uintptr_t)k%d + %" PRId64 "u && (uintptr_t)k%d + %" PRId64 "u < (lo) + (n))",
                   g->gv[i].kb, g->gv[i].off + code_size(g->gv[i].code), g->gv[i].kb, g->gv[i].off);
    sb_printf(s, ")\n");
}

/* loads and stores by type code (exec_inline.h load_code / store_code) */
static const char *ldst_name(int c) {
    switch (c) {
    case T_BOOL: return "b";
    case T_CHAR: case T_SCHAR: return "i8";
    case T_UCHAR: return "u8";
    case T_SHORT: return "i16";
    case T_USHORT: return "u16";
    case T_INT: return "i32";
    case T_UINT: return "u32";
    case T_FLOAT: return "f32";
    case T_DOUBLE: return "f64";
    default: return "u64";
    }
}

/* conv(v, from, to) of exec.c */
static char *conv_code(const char *e, int from, int to) {
    if (from == T_LDOUBLE) from = T_DOUBLE;
    if (to == T_LDOUBLE) to = T_DOUBLE;
    if (from == T_ARRAY || from == T_FUNC) from = T_PTR;
    if (to == T_PTR) return c_float(from) ? xasprintf("((void)(%s), (int64_t)0)", e) : xasprintf("(%s)", e);
    if (c_float(to)) {
        if (to == T_FLOAT) {
            if (c_u64(from)) return xasprintf("((double)(float)(uint64_t)(%s))", e);
            if (!c_float(from)) return xasprintf("((double)(float)(int64_t)(%s))", e);
            return xasprintf("((double)(float)(%s))", e);
        }
        if (c_float(from)) return xasprintf("(%s)", e);
        if (c_u64(from)) return xasprintf("((double)(uint64_t)(%s))", e);
        return xasprintf("((double)(int64_t)(%s))", e);
    }
    if (to == T_BOOL) return xasprintf("((int64_t)((%s) != 0))", e);
    const char *x;
    char *xs = NULL;
    if (c_float(from)) {
        if (to == T_ULONG || to == T_ULLONG) xs = xasprintf("nt_d2u64(%s)", e);
        else if (to == T_LONG || to == T_LLONG || to == T_UINT) xs = xasprintf("(uint64_t)nt_d2i64(%s)", e);
        else xs = xasprintf("(uint64_t)nt_d2i32(%s)", e);
        x = xs;
    } else x = e;
    char *r;
    switch (to) {
    case T_CHAR: case T_SCHAR: r = xasprintf("((int64_t)(int8_t)(uint8_t)(uint64_t)(%s))", x); break;
    case T_UCHAR: r = xasprintf("((int64_t)(uint8_t)(uint64_t)(%s))", x); break;
    case T_SHORT: r = xasprintf("((int64_t)(int16_t)(uint16_t)(uint64_t)(%s))", x); break;
    case T_USHORT: r = xasprintf("((int64_t)(uint16_t)(uint64_t)(%s))", x); break;
    case T_INT: r = xasprintf("((int64_t)(int32_t)(uint32_t)(uint64_t)(%s))", x); break;
    case T_UINT: r = xasprintf("((int64_t)(uint32_t)(uint64_t)(%s))", x); break;
    default: r = xasprintf("((int64_t)(%s))", x); break;
    }
    free(xs);
    return r;
}

/* arith(op, k, x, y, n) of exec.c on two evaluated operands (names of
 * locals): the statements computing it into local r, which has the
 * operation's representation. */
static char *arith_unchecked(gen_t *g, int op, int k, const char *x, const char *y, node_t *n);

static char *arith_code(gen_t *g, int op, int k, const char *x, const char *y, node_t *n) {
    if (k == K_F32 || k == K_F64) {
        const char *o = op == P_PLUS ? "+" : op == P_MINUS ? "-" : op == P_STAR ? "*" : op == P_DIV ? "/" : NULL;
        if (!o) return xasprintf("double r = 0;");
        /* float operands are exact floats: one float operation rounds as
         * the interpreter's double operation rounded to float */
        if (k == K_F32) return xasprintf("double r = (double)((float)%s %s (float)%s);", x, o, y);
        return xasprintf("double r = %s %s %s;", x, o, y);
    }
    char *z;
    int ni = gen_kidx(g, n);
    if ((k == K_I32 || k == K_I64) && (op == P_PLUS || op == P_MINUS || op == P_STAR)) {
        /* signed overflow is the interpreter's error (ub_checks.c), raised at the same node */
        const char *fn = op == P_PLUS ? "add" : op == P_MINUS ? "sub" : "mul";
        const char *t = k == K_I32 ? "int32_t" : "int64_t";
        z = xasprintf("%s zs_; if (__builtin_expect(__builtin_%s_overflow((%s)%s, (%s)%s, &zs_), 0)) "
                "{ NT_SYNC(); NT_RAISE(rt->ovf(k%d, %d, (int64_t)%s, (int64_t)%s)); } uint64_t z = (uint64_t)(int64_t)zs_;",
                t, fn, t, x, t, y, ni, op, x, y);
        char *r = xasprintf("%s int64_t r = %s;", z, k == K_I32 ? "(int64_t)(int32_t)(uint32_t)z" : "(int64_t)z");
        free(z);
        return r;
    }
    if (op == P_SHL || op == P_SHR) {
        /* the interpreter's shift errors (ub_shift_check), tested inline */
        int w = (k == K_I32 || k == K_U32) ? 32 : 64;
        char *shl = op == P_SHL && (k == K_I32 || k == K_I64)
                        ? xasprintf(" || (int64_t)%s < 0 || ((int64_t)%s > 0 && ((uint64_t)%s >> (%d - (int64_t)%s)) != 0)", x, y, x, w - 1, y)
                        : xstrdup("");
        char *chk = xasprintf("if (__builtin_expect((uint64_t)%s >= %d%s, 0)) { NT_SYNC(); NT_RAISE(rt->shift(k%d, %d, %d, (int64_t)%s, (int64_t)%s)); }",
                        y, w, shl, ni, op, k, x, y);
        free(shl);
        char *rest = arith_unchecked(g, op, k, x, y, n);
        char *r = xasprintf("%s %s", chk, rest);
        free(chk);
        free(rest);
        return r;
    }
    return arith_unchecked(g, op, k, x, y, n);
}

static char *arith_unchecked(gen_t *g, int op, int k, const char *x, const char *y, node_t *n) {
    int sh = (k == K_I32 || k == K_U32) ? 31 : 63;
    char *z;
    int ni = gen_kidx(g, n);
    switch (op) {
    case P_PLUS: z = xasprintf("uint64_t z = (uint64_t)%s + (uint64_t)%s;", x, y); break;
    case P_MINUS: z = xasprintf("uint64_t z = (uint64_t)%s - (uint64_t)%s;", x, y); break;
    case P_STAR: z = xasprintf("uint64_t z = (uint64_t)%s * (uint64_t)%s;", x, y); break;
    case P_AMP: z = xasprintf("uint64_t z = (uint64_t)%s & (uint64_t)%s;", x, y); break;
    case P_OR: z = xasprintf("uint64_t z = (uint64_t)%s | (uint64_t)%s;", x, y); break;
    case P_XOR: z = xasprintf("uint64_t z = (uint64_t)%s ^ (uint64_t)%s;", x, y); break;
    case P_SHL: z = xasprintf("uint64_t z = (uint64_t)%s << ((uint64_t)%s & %d);", x, y, sh); break;
    case P_SHR:
        if (k == K_I32) z = xasprintf("uint64_t z = (uint64_t)(int64_t)((int32_t)%s >> ((uint64_t)%s & 31));", x, y);
        else if (k == K_I64) z = xasprintf("uint64_t z = (uint64_t)((int64_t)%s >> ((uint64_t)%s & 63));", x, y);
        else if (k == K_U32) z = xasprintf("uint64_t z = (uint32_t)(uint64_t)%s >> ((uint64_t)%s & 31);", x, y);
        else z = xasprintf("uint64_t z = (uint64_t)%s >> ((uint64_t)%s & 63);", x, y);
        break;
    case P_DIV: case P_MOD: {
        const char *o = op == P_DIV ? "/" : "%";
        char *chk = xasprintf("if (__builtin_expect((uint64_t)%s == 0, 0)) { NT_SYNC(); NT_RAISE(rt->div0(k%d)); }", y, ni);
        if (k == K_I32 || k == K_I64)
            z = xasprintf("%s if (__builtin_expect((int64_t)%s == -1 && (int64_t)%s == %s, 0)) { NT_SYNC(); NT_RAISE(rt->divovf(k%d)); }"
                    " uint64_t z = (uint64_t)((int64_t)%s %s (int64_t)%s);",
                    chk, y, x, k == K_I32 ? "INT32_MIN" : "INT64_MIN", ni, x, o, y);
        else if (k == K_U32) z = xasprintf("%s uint64_t z = (uint32_t)(uint64_t)%s %s (uint32_t)(uint64_t)%s;", chk, x, o, y);
        else z = xasprintf("%s uint64_t z = (uint64_t)%s %s (uint64_t)%s;", chk, x, o, y);
        free(chk);
        break;
    }
    default: return bad(g);
    }
    char *r = xasprintf("%s int64_t r = %s;", z,
                  k == K_I32 ? "(int64_t)(int32_t)(uint32_t)z" : k == K_U32 ? "(int64_t)(uint32_t)z" : "(int64_t)z");
    free(z);
    return r;
}


/* The interpreter's float-to-integer range error (ub_float_to_int) for the
 * double named d, tested inline: the call is only made to raise it. */
static char *f2i_check(gen_t *g, node_t *n, const char *d, int to) {
    double lo, hi;
    if (!ub_f2i_range(to, &lo, &hi)) return xstrdup("");
    return xasprintf("if (__builtin_expect(!(%s > %a && %s < %a), 0)) { NT_SYNC(); NT_RAISE(rt->f2i(k%d, %s, %d)); }", d, lo, d, hi,
               gen_kidx(g, n), d, to);
}

/* p + d bytes, p and d names of locals, as ptr_add_at: a pointer moved
 * past what its offset field holds is the interpreter's error */
static char *padd(gen_t *g, node_t *n, const char *p, const char *d) {
    return xasprintf("({ uint64_t pr_; if (__builtin_expect(nt_padd(%s, %s, &pr_), 0)) { NT_SYNC(); NT_RAISE(rt->pwrap(k%d, %s, %s)); }"
               " (int64_t)pr_; })", p, d, gen_kidx(g, n), p, d);
}
/* p + i elements of esz bytes (ptr_scale_at, then ptr_add_at); neg: p - i */
static char *padd_scaled(gen_t *g, node_t *n, const char *p, const char *i, int64_t esz, bool neg) {
    char *a = padd(g, n, "p2_", neg ? "(-d_)" : "d_");
    char *r = xasprintf("({ uint64_t p2_ = (uint64_t)%s; int64_t d_; if (__builtin_expect(__builtin_mul_overflow((int64_t)%s, "
                  "(int64_t)%" PRId64 ", &d_), 0)) { NT_SYNC(); NT_RAISE(rt->pwrap(k%d, p2_, (int64_t)%s)); } %s; })",
                  p, i, esz, gen_kidx(g, n), i, a);
    free(a);
    return r;
}

/* The access cache for p[i] of esz-byte elements (wr: written): shared by
 * every site with the same pointer text, size and direction, since a cache
 * holds what is valid for its pointer whatever the index (an index outside
 * misses and is checked); a loop of 46 statements over three arrays needs
 * 4 caches, not 185. Equal hashes of different texts share too: a cache
 * that misses more, never a wrong one (its pointer is compared). A cache
 * whose pointer does not change (cbase: const_base's id) compares no
 * pointer, so it is shared only by sites of that same slot or variable. */
static int ic_share(gen_t *g, const char *p, int64_t esz, int wr, int cbase) {
    uint64_t h = native_fnv(NATIVE_FNV_START, p);
    h = (h ^ (uint64_t)esz) * 1099511628211ULL ^ (uint64_t)wr;
    for (int j = 0; j < g->nic && j < MAXIC; j++)
        if (g->ickey[j] == h && g->icbase[j] == cbase && (!cbase || (g->icesz[j] == esz && g->icwr[j] == wr))) return j;
    if (g->nic < MAXIC) {
        g->ickey[g->nic] = h;
        g->icbase[g->nic] = cbase;
        g->icesz[g->nic] = esz;
        g->icwr[g->nic] = (unsigned char)wr;
    }
    return g->nic++;
}

/* Is pointer expression e the same all through a run of the code? A slot
 * it never writes (id: slot + 1), or a kept session variable it never
 * writes (id: -(its index + 1); a reload after a store through an alias
 * empties such caches: NT_INVAL); 0 when not. */
static int const_base(gen_t *g, node_t *e) {
    if (g->collect) return 0;
    int w = gen_var_read(e);
    if (w >= 0) return w < MAXSLOTS && !g->slotw[w] ? w + 1 : 0;
    if (eval_expr_kind(e) != NK_LOAD || !e->a || !e->a->is_place) return 0;
    int gi = gen_gvar_ref(g, e->a, false);
    return gi >= 0 && !g->gv[gi].written ? -(gi + 1) : 0;
}

/* A place's checked host address (a char * expression); wr as the interpreter passes it. */
static char *addr(gen_t *g, node_t *pl, int wr) {
    int ok = eval_place_kind(pl);
    if (!ok || pl->place == PL_SLOT) return bad(g);
    if (g->fnmode) { /* a function reads memory through its own caches, or gives up (native_func.c) */
        if (wr) return bad(g);
        if (pl->place == PL_DEREF || (pl->place == PL_INDEX && ok == 1)) return gen_fn_read(g, pl);
        if (pl->place == PL_GLOBAL && !gen_fn_global_ok(g, pl)) return bad(g);
        if (pl->place == PL_FRAME) return bad(g);
    }
    bool alias = !g->collect && g->ncached;
    switch (pl->place) {
    case PL_FRAME: g->last_kind = 0; return xasprintf("(M + %" PRId64 ")", pl->k.i);
    case PL_GLOBAL: g->last_kind = 0; return xasprintf("((char *)k%d)", gen_kidx(g, pl->k.p));
    case PL_MEMBER: {
        char *b = addr(g, pl->a, wr), *r = xasprintf("(%s + %" PRId64 ")", b, pl->k.i);
        free(b);
        return r;
    }
    case PL_DEREF: {
        int j = g->ndc++, ni = gen_kidx(g, pl);
        char *p = gen_expr(g, pl->a);
        char *chk = alias ? xasprintf(" if (NT_ALIAS((uintptr_t)a_, %" PRId64 "u) || (c_.base && NT_ALIAS((uintptr_t)c_.base,"
                                " c_.lim + %" PRId64 "u))) { dk%d = ~0ULL; ovd%d = 1; }", pl->esz, pl->esz, j, j)
                          : xstrdup("");
        char *r = xasprintf("({ uint64_t p_ = (uint64_t)%s; int64_t o_ = nt_off(p_) + %" PRId64 "; char *a_;"
                      " if (__builtin_expect((p_ >> NT_OFF_BITS) == dk%d && (uint64_t)o_ <= dl%d, 1)) a_ = db%d + o_;"
                      " else { NT_SYNC(); ndc_t c_; a_ = rt->deref(k%d, p_, %d, &c_); dk%d = c_.key; db%d = c_.base;"
                      " dl%d = c_.lim;%s } a_; })",
                      p, pl->k.i, j, j, j, ni, wr, j, j, j, chk);
        frees(2, p, chk);
        g->last_kind = 'd';
        g->last_site = j;
        return r;
    }
    case PL_INDEX:
        if (ok == 1 && g->in_clean && site_ra(g, pl) >= 0) { /* proven inside its buffer at the loop's entry */
            char *i = gen_expr(g, pl->b);
            char *r = g->nest_fn ? xasprintf("(rb%d + (int64_t)(%s) * %" PRId64 ")", site_ra(g, pl), i, pl->esz)
                                 : xasprintf("((char *)(ra%d + (uint64_t)(int64_t)(%s) * %" PRId64 "u))", site_ra(g, pl), i, pl->esz);
            free(i);
            g->last_kind = 0;
            return r;
        }
        if (ok == 1 && g->in_clean && bsite_rb(g, pl) >= 0) {
            /* its index is data: one compare against the buffer's bounds,
             * found at the loop's entry; outside them the interpreter's
             * check raises (nt_ifail) */
            int rb = bsite_rb(g, pl);
            char *p = gen_expr(g, pl->a), *i = gen_expr(g, pl->b);
            char *r = xasprintf("({ int64_t i_ = %s; char *a_; if (__builtin_expect((uint64_t)i_ - (uint64_t)rl%d < rs%d, 1))"
                          " a_ = (char *)(rb%d + (uint64_t)i_ * %" PRId64 "u); else { NT_SYNC(); a_ = nt_ifail(rt, k%d,"
                          " (uint64_t)%s, i_, %d); } a_; })",
                          i, rb, rb, rb, pl->esz, gen_kidx(g, pl), p, wr);
            frees(2, p, i);
            g->last_kind = 0;
            return r;
        }
        char *p = ok == 1 ? gen_expr(g, pl->a) : NULL;
        int cbase = ok == 1 ? const_base(g, pl->a) : 0;
        int jc = ok == 1 ? ic_share(g, p, pl->esz, wr, cbase) : 0;
        bool cb = cbase && jc < MAXIC; /* past MAXIC a cache is its site's own, and NT_INVAL does not know it */
        if (ok == 1 && jc >= NIC_REGS) { /* through a pointer, its cache in memory (ic[]) */
            int j = jc - NIC_REGS, ni = gen_kidx(g, pl);
            char *i = gen_expr(g, pl->b);
            char *r = xasprintf("({ uint64_t p_ = (uint64_t)%s; int64_t i_ = %s; char *a_; nic_t *c_ = &ic[%d];"
                          " if (__builtin_expect(%s(uint64_t)i_ - (uint64_t)c_->lo < c_->span, 1))"
                          " a_ = (char *)(c_->addr + (uint64_t)i_ * %" PRId64 "u);"
                          " else { NT_SYNC(); a_ = nt_imiss(rt, K, k%d, p_, i_, %d, %" PRId64 "u, c_);"
                          " ovm |= !c_->span && c_->addr == 1; } a_; })",
                          p, i, j, cb ? "" : "p_ == c_->p && ", pl->esz, ni, wr, pl->esz);
            frees(2, p, i);
            g->last_kind = 'm';
            g->last_site = 0;
            return r;
        }
        if (ok == 1) { /* through a pointer: p, then i */
            int j = jc, ni = gen_kidx(g, pl);
            char *i = gen_expr(g, pl->b);
            char *ov = g->ncached ? xasprintf("ovi%d", j) : xstrdup("ovm");
            char pc[32] = "";
            if (!cb) snprintf(pc, sizeof pc, "p_ == cp%d && ", j);
            char *r = xasprintf("({ uint64_t p_ = (uint64_t)%s; int64_t i_ = %s; char *a_;"
                          " if (__builtin_expect(%s(uint64_t)i_ - (uint64_t)cl%d < cs%d, 1))"
                          " a_ = (char *)(ca%d + (uint64_t)i_ * %" PRId64 "u);"
                          " else { NT_SYNC(); nic_t c_; a_ = nt_imiss(rt, K, k%d, p_, i_, %d, %" PRId64 "u, &c_);"
                          " cp%d = c_.p; ca%d = c_.addr; cl%d = c_.lo; cs%d = c_.span; %s |= !c_.span && c_.addr == 1; } a_; })",
                          p, i, pc, j, j, j, pl->esz, ni, wr, pl->esz, j, j, j, j, ov);
            frees(3, p, i, ov);
            g->last_kind = 'i';
            g->last_site = j;
            return r;
        } else { /* an array: i, then the array's place */
            int ni = gen_kidx(g, pl);
            mark_indexed(g, pl->a);
            char *i = gen_expr(g, pl->b), *b = addr(g, pl->a, wr);
            bool proven = false;
            for (int k = 0; k < g->nasite && g->in_clean && !proven; k++) proven = g->asite[k] == pl;
            if (proven) { /* the entry test proved the index inside the bound */
                char *r = xasprintf("({ int64_t i_ = %s; %s + i_ * %" PRId64 "; })", i, b, pl->esz);
                frees(2, i, b);
                return r;
            }
            char *r = xasprintf("({ int64_t i_ = %s; if (__builtin_expect((uint64_t)i_ >= (uint64_t)%" PRId64 "LL, 0))"
                          " { NT_SYNC(); NT_RAISE(rt->index_fail(k%d, i_, %d)); } %s + i_ * %" PRId64 "; })",
                          i, pl->bound, ni, wr, b, pl->esz);
            free(i);
            free(b);
            return r;
        }
    }
    return bad(g);
}

/* the statements that store value expression v (a local's name) into place pl */
static char *store_to(gen_t *g, node_t *pl, const char *v, const char *a) {
    if (pl->place == PL_SLOT) {
        if (g->collect && pl->slot >= 0 && pl->slot < MAXSLOTS) g->slotw[pl->slot] = 1;
        if (!use_slot(g, pl->slot, pl->ty)) return bad(g);
        return xasprintf("s%d = (%s)%s;", pl->slot, slot_ctype(g->slotc[pl->slot] - 1), v);
    }
    int gi = gen_gvar_ref(g, pl, true);
    if (gi >= 0) return gvar_write(g, gi, v);
    return xasprintf("nt_st_%s(%s, %s);", ldst_name(tcode(pl->ty)), a, v);
}
/* the old value of place pl, whose address is in local a (none for slots) */
static char *load_from(gen_t *g, node_t *pl, const char *a) {
    if (pl->place == PL_SLOT) return slot_read(g, pl->slot, pl->ty);
    int gi = gen_gvar_ref(g, pl, false);
    if (gi >= 0) return gvar_read(g, gi);
    return xasprintf("nt_ld_%s(%s)", ldst_name(tcode(pl->ty)), a);
}

static bool math1(const char *s) {
    static const char *const names[] = {"sqrt", "cbrt", "fabs", "exp", "exp2", "expm1", "log", "log2", "log10",
        "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "floor", "ceil", "round", "trunc", "rint", "nearbyint", "erf", "erfc", "tgamma", "lgamma", NULL};
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) return true;
    return false;
}
static bool math2(const char *s) {
    static const char *const names[] = {"pow", "atan2", "fmod", "fmin", "fmax", "hypot", "copysign", "fdim",
        "remainder", "nextafter", NULL};
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) return true;
    return false;
}

static char *builtin_call(gen_t *g, node_t *n) {
    builtin_t *b = n->p;
    const char *nm = b->name;
    if (!strcmp(nm, "rand") && n->nlist == 0) return g->fnmode ? bad(g) : xstrdup("((int64_t)rt->rand())");
    size_t L = strlen(nm);
    char base[64];
    bool fl = false;
    snprintf(base, sizeof base, "%s", nm);
    int ar = math1(base) ? 1 : math2(base) ? 2 : 0;
    if (!ar && L > 1 && nm[L - 1] == 'f' && L < sizeof base) {
        base[L - 1] = 0;
        ar = math1(base) ? 1 : math2(base) ? 2 : 0;
        fl = true;
    }
    if (!ar || n->nlist != ar || !b->data) return bad(g);
    for (int i = 0; i < ar; i++)
        if (!isf(n->list[i]->ty)) return bad(g);
    int fi = gen_kidx(g, b->data);
    char *a0 = gen_expr(g, n->list[0]), *a1 = ar == 2 ? gen_expr(g, n->list[1]) : xstrdup(""), *r;
    const char *t = fl ? "float" : "double";
    if (ar == 1)
        r = xasprintf("({ double x_ = %s; (double)((%s (*)(%s))k%d)((%s)x_); })", a0, t, t, fi, t);
    else
        r = xasprintf("({ double x_ = %s; double y_ = %s; (double)((%s (*)(%s, %s))k%d)((%s)x_, (%s)y_); })", a0, a1, t,
                t, t, fi, t, t);
    free(a0);
    free(a1);
    return r;
}

/* Can + - * of n's operands not overflow, whatever the data? Their types'
 * ranges (and forms: a byte, a compare, x & m) say so: 77 * rgb[i] + 150 *
 * rgb[i + 1], c - '0' of a char. */
static bool static_no_overflow(node_t *n) {
    int64_t al, ah, bl, bh;
    if ((n->kind != K_I32 && n->kind != K_I64) || (n->op != P_PLUS && n->op != P_MINUS && n->op != P_STAR) ||
        !gen_static_ival(n->a, &al, &ah) || !gen_static_ival(n->b, &bl, &bh))
        return false;
    __int128 lo, hi;
    if (n->op == P_PLUS) { lo = (__int128)al + bl; hi = (__int128)ah + bh; }
    else if (n->op == P_MINUS) { lo = (__int128)al - bh; hi = (__int128)ah - bl; }
    else {
        __int128 p[4] = {(__int128)al * bl, (__int128)al * bh, (__int128)ah * bl, (__int128)ah * bh};
        lo = hi = p[0];
        for (int i = 1; i < 4; i++) {
            if (p[i] < lo) lo = p[i];
            if (p[i] > hi) hi = p[i];
        }
    }
    return n->kind == K_I32 ? lo >= INT32_MIN && hi <= INT32_MAX : lo >= INT64_MIN && hi <= INT64_MAX;
}

static char *binop(gen_t *g, node_t *n) {
    char *a = gen_expr(g, n->a), *b = gen_expr(g, n->b);
    bool proven = (g->in_clean && is_proven(g, n)) || static_no_overflow(n), sgn = n->kind == K_I32 || n->kind == K_I64;
    char *c;
    /* proven not to overflow: plain 64-bit arithmetic, which gcc sees as affine (the wrapped
     * 32-bit form is not, and then it cannot vectorise a loop indexed by it) */
    if (proven && sgn && (n->op == P_PLUS || n->op == P_MINUS || n->op == P_STAR))
        c = xasprintf("int64_t r = x_ %s y_;", n->op == P_PLUS ? "+" : n->op == P_MINUS ? "-" : "*");
    else c = proven ? arith_unchecked(g, n->op, n->kind, "x_", "y_", n) : arith_code(g, n->op, n->kind, "x_", "y_", n);
    char *r = xasprintf("({ %s x_ = %s; %s y_ = %s; %s r; })", vt(n->a->ty), a, vt(n->b->ty), b, c);
    free(a);
    free(b);
    free(c);
    return r;
}

static char *cmp(gen_t *g, node_t *n) {
    const char *o = n->op == P_LT ? "<" : n->op == P_LE ? "<=" : n->op == P_GT ? ">" : n->op == P_GE ? ">="
                  : n->op == P_EQ ? "==" : "!=";
    int k = n->kind;
    bool fl = k == K_F32 || k == K_F64, un = k == K_U32 || k == K_U64, pt = k == K_PTR;
    bool rel = n->op == P_LT || n->op == P_LE || n->op == P_GT || n->op == P_GE;
    char *a = gen_expr(g, n->a), *b = gen_expr(g, n->b), *r;
    if (fl) r = xasprintf("({ double x_ = %s; double y_ = %s; (int64_t)(x_ %s y_); })", a, b, o);
    else if (pt && rel) r = xasprintf("({ uint64_t x_ = (uint64_t)%s; uint64_t y_ = (uint64_t)%s; (int64_t)(nt_ptrcmp(x_, y_) %s 0); })", a, b, o);
    else if (un || !rel) r = xasprintf("({ uint64_t x_ = (uint64_t)%s; uint64_t y_ = (uint64_t)%s; (int64_t)(x_ %s y_); })", a, b, o);
    else r = xasprintf("({ int64_t x_ = %s; int64_t y_ = %s; (int64_t)(x_ %s y_); })", a, b, o);
    free(a);
    free(b);
    return r;
}

/* the address of a place about to be written ("0" for a slot, which has none) */
static char *waddr(gen_t *g, node_t *pl) {
    if (pl->place == PL_SLOT || (!g->collect && gen_gvar_ref(g, pl, true) >= 0)) {
        g->last_kind = 0;
        return xstrdup("0");
    }
    return addr(g, pl, 1);
}

/* a = b of a struct (exec.c ev_assign_aggr): b's place read-checked, then
 * a's write-checked, for the struct's size, and the bytes moved (they may
 * overlap). Only from a struct in memory, not a call's result. Session
 * variables the unit keeps in C locals (a member of a session struct
 * among them) go to memory before the copy and come back after it, since
 * the bytes copied may be theirs, on either side. */
static char *assign_aggr(gen_t *g, node_t *n) {
    node_t *pl = n->a, *src = n->b;
    if (!n->esz || pl->place == PL_SLOT || eval_expr_kind(src) != NK_LOAD || !src->a || !src->a->is_place ||
        src->a->place == PL_SLOT || !ty_is_aggr(src->a->ty))
        return bad(g);
    /* a clean copy's proven sites were checked clear of those variables at its entry (nt_rcheck) */
    bool clear = g->in_clean && site_ra(g, pl) >= 0 && site_ra(g, src->a) >= 0;
    char *from = addr(g, src->a, 0), *to = addr(g, pl, 1);
    bool cached = !g->collect && g->ncached && !clear;
    char *r = xasprintf("({ char *f_ = %s; char *t_ = %s;%s __builtin_memmove(t_, f_, %" PRId64 "u);%s (int64_t)0; })",
                        from, to, cached ? " NT_SYNC();" : "", n->esz, cached ? " NT_RELOAD(); NT_INVAL();" : "");
    frees(2, from, to);
    return r;
}

static char *assign(gen_t *g, node_t *n) {
    node_t *pl = n->a;
    if (ty_is_aggr(pl->ty)) return assign_aggr(g, n);
    char *v = gen_expr(g, n->b);
    char *a = waddr(g, pl), *rl = after_store(g);
    char *st0 = store_to(g, pl, "v_", "a_"), *st = xasprintf("%s%s", st0, rl);
    frees(2, st0, rl);
    char *r = pl->place == PL_SLOT ? xasprintf("({ %s v_ = %s; %s v_; })", vt(n->b->ty), v, st)
                                   : xasprintf("({ %s v_ = %s; char *a_ = %s; %s v_; })", vt(n->b->ty), v, a, st);
    frees(3, v, a, st);
    return r;
}

static char *compound(gen_t *g, node_t *n) {
    node_t *pl = n->a;
    if (ty_is_aggr(pl->ty) || !n->c) return bad(g);
    /* exec.c checks an int place's + - * for int overflow even where the
     * operation's type is wider: until that case is mirrored here, it stays
     * interpreted */
    int kc = ty_opkind(n->c->ty), pcode = ccode_of(pl->ty);
    if (!n->esz && pcode == T_INT && kc == K_I64 && (n->op == P_PLUS || n->op == P_MINUS || n->op == P_STAR))
        return bad(g);
    char *v = gen_expr(g, n->b);
    char *a = waddr(g, pl), *rl = after_store(g);
    char *old = load_from(g, pl, "a_");
    int pc = ccode_of(pl->ty), oc = n->slot2;
    char *calc;
    if (n->esz) {
        char *pa = padd_scaled(g, n, "o_", n->op == P_MINUS ? "(0 - (uint64_t)v_)" : "v_", n->esz, false);
        calc = xasprintf("int64_t r2_ = %s;", pa);
        free(pa);
    } else {
        char *o2 = conv_code("o_", pc, oc);
        /* proven (an accumulator whose bounds a chunk's test covers): no overflow check */
        bool pv = g->in_clean && is_proven(g, n) && (n->op == P_PLUS || n->op == P_MINUS);
        char *ar = pv ? arith_unchecked(g, n->op, ty_opkind(n->c->ty), "o2_", "v_", n)
                      : arith_code(g, n->op, ty_opkind(n->c->ty), "o2_", "v_", n);
        char *back = conv_code("r", oc, pc);
        /* i += 1e20: the result out of the place's range is the interpreter's error */
        char *chk = c_float(oc) && !c_float(pc) && pc != T_BOOL ? f2i_check(g, n, "r", pc) : xstrdup("");
        calc = xasprintf("%s o2_ = %s; %s %s %s r2_ = %s;", c_float(oc) ? "double" : "int64_t", o2, ar, chk, vt(pl->ty), back);
        free(chk);
        free(o2);
        free(ar);
        free(back);
    }
    char *st0 = store_to(g, pl, "r2_", "a_"), *st = xasprintf("%s%s", st0, rl);
    frees(2, st0, rl);
    char *r = xasprintf("({ %s v_ = %s; char *a_ = %s; (void)a_; %s o_ = %s; %s %s r2_; })", vt(n->b->ty), v, a,
                  vt(pl->ty), old, calc, st);
    frees(5, v, a, old, calc, st);
    return r;
}

static char *incdec(gen_t *g, node_t *n) {
    node_t *pl = n->a;
    char *a = waddr(g, pl), *rl = after_store(g);
    char *old = load_from(g, pl, "a_");
    int pc = ccode_of(pl->ty);
    int64_t d = n->k.i;
    char *calc;
    if (pc == T_PTR) {
        char *dd = xasprintf("(int64_t)%" PRId64 "LL", d * n->esz), *pa = padd(g, n, "(uint64_t)o_", dd);
        calc = xasprintf("int64_t r_ = %s;", pa);
        frees(2, dd, pa);
    }
    else if (c_float(pc))
        calc = xasprintf("double r_ = o_ + (double)%" PRId64 "; %s", d, pc == T_FLOAT ? "r_ = (double)(float)r_;" : "");
    else if (pc == T_BOOL) calc = xasprintf("int64_t r_ = %s;", d > 0 ? "1" : "!o_");
    else if ((pc == T_INT || pc == T_LONG || pc == T_LLONG) && g->in_clean && is_proven(g, n))
        calc = xasprintf("int64_t r_ = %s((uint64_t)o_ + (uint64_t)%" PRId64 "LL);", pc == T_INT ? "(int64_t)(int32_t)(uint32_t)" : "(int64_t)", d);
    else if (pc == T_INT || pc == T_LONG || pc == T_LLONG) {
        /* signed ++/-- past the type's range: the interpreter's error, naming the place's type */
        const char *t = pc == T_INT ? "int32_t" : "int64_t";
        /* the error is given the wrapped result (rt->ovf_place takes d off
         * again): the old value need not stay in a register, and h[x]++ is
         * a load, an add and a store */
        calc = xasprintf("%s s_; if (__builtin_expect(__builtin_add_overflow((%s)o_, (%s)%" PRId64 "LL, &s_), 0)) "
                   "{ NT_SYNC(); NT_RAISE(rt->ovf_place(k%d, %d, (int64_t)s_, %" PRId64 "LL)); } int64_t r_ = (int64_t)s_;",
                   t, t, t, d, gen_kidx(g, n), d > 0 ? P_PLUS : P_MINUS, d > 0 ? d : -d);
    } else {
        char *x = xasprintf("((uint64_t)o_ + (uint64_t)%" PRId64 "LL)", d);
        char *nv = conv_code(x, T_LONG, pc == T_LONG || pc == T_ULONG || pc == T_LLONG || pc == T_ULLONG ? T_LONG : pc);
        calc = xasprintf("int64_t r_ = %s;", nv);
        free(x);
        free(nv);
    }
    char *st0 = store_to(g, pl, "r_", "a_"), *st = xasprintf("%s%s", st0, rl);
    frees(2, st0, rl);
    char *r = xasprintf("({ char *a_ = %s; (void)a_; %s o_ = %s; %s %s %s; })", a, vt(pl->ty), old, calc, st,
                  n->op ? "o_" : "r_");
    frees(4, a, old, calc, st);
    return r;
}

char *gen_expr(gen_t *g, node_t *n) {
    if (g->fail) return xstrdup("0");
    switch (eval_expr_kind(n)) {
    case NK_CONST:
        if (isf(n->ty)) {
            uint64_t bits;
            memcpy(&bits, &n->k.d, 8);
            return xasprintf("nt_dbits(0x%" PRIx64 "ULL)", bits);
        }
        return xasprintf("((int64_t)0x%" PRIx64 "ULL)", n->k.u);
    case NK_SLOT: {
        /* an identity cast copies the slot read with another type: the
         * slot's own type is its place's */
        type_t *st = n->a && n->a->is_place && n->a->place == PL_SLOT && n->a->slot == n->slot ? n->a->ty : n->ty;
        if (isf(st) != isf(n->ty)) return bad(g);
        char *r = slot_read(g, n->slot, st), *c = xasprintf("((%s)%s)", vt(n->ty), r);
        free(r);
        return c;
    }
    case NK_LOAD: {
        node_t *pl = n->a;
        if (!pl || !pl->is_place || ty_is_aggr(pl->ty)) return bad(g);
        if (pl->place == PL_SLOT) return slot_read(g, pl->slot, pl->ty);
        int gi = gen_gvar_ref(g, pl, false);
        if (gi >= 0) return gvar_read(g, gi);
        char *a = addr(g, pl, 0), *r = xasprintf("nt_ld_%s(%s)", ldst_name(tcode(pl->ty)), a);
        free(a);
        return r;
    }
    case NK_CAST: {
        char *a = gen_expr(g, n->a), *r;
        if (c_float(n->op) && !c_float(n->kind) && n->kind != T_BOOL) {
            /* out of the target's range is the interpreter's error, at this node */
            char *c = conv_code("d_", n->op, n->kind);
            char *chk = f2i_check(g, n, "d_", n->kind);
            r = xasprintf("({ double d_ = %s; %s %s; })", a, chk, c);
            frees(2, c, chk);
        } else {
            r = conv_code(a, n->op, n->kind);
        }
        free(a);
        return r;
    }
    case NK_ARITH: return binop(g, n);
    case NK_CMP: return cmp(g, n);
    case NK_PTRADD: case NK_PTRSUB: {
        char *a = gen_expr(g, n->a), *b = gen_expr(g, n->b);
        char *pa = padd_scaled(g, n, "p_", "i_", n->esz, eval_expr_kind(n) == NK_PTRSUB);
        char *r = xasprintf("({ uint64_t p_ = (uint64_t)%s; int64_t i_ = %s; %s; })", a, b, pa);
        frees(3, a, b, pa);
        return r;
    }
    case NK_PTRDIFF: { /* as exec.c's ev_ptrdiff: real addresses as C has them, else offsets in one buffer */
        char *a = gen_expr(g, n->a), *b = gen_expr(g, n->b);
        char *r = xasprintf("({ uint64_t pa_ = (uint64_t)%s, pb_ = (uint64_t)%s; int64_t d_;"
                            " if (pa_ < %lluULL && pb_ < %lluULL) d_ = (int64_t)(pa_ - pb_) / %" PRId64 ";"
                            " else { if ((pa_ >> %d) != (pb_ >> %d) || (pa_ < %lluULL) != (pb_ < %lluULL)) { NT_SYNC();"
                            " NT_RAISE(rt->ptrdiff(k%d)); } d_ = (nt_off(pa_) - nt_off(pb_)) / %" PRId64 "; } d_; })",
                            a, b, (unsigned long long)PTR_RAW_LIMIT, (unsigned long long)PTR_RAW_LIMIT, n->esz,
                            PTR_SLOT_SHIFT, PTR_SLOT_SHIFT, (unsigned long long)PTR_RAW_LIMIT,
                            (unsigned long long)PTR_RAW_LIMIT, gen_kidx(g, n), n->esz);
        frees(2, a, b);
        return r;
    }
    case NK_PTRADDK: {
        char *a = gen_expr(g, n->a), *dd = xasprintf("(int64_t)%" PRId64 "LL", n->k.i), *pa = padd(g, n, "pk_", dd);
        char *r = xasprintf("({ uint64_t pk_ = (uint64_t)%s; %s; })", a, pa);
        frees(3, a, dd, pa);
        return r;
    }
    case NK_NEG: {
        char *a = gen_expr(g, n->a), *r;
        switch (n->kind) {
        case K_I32:
            r = xasprintf("({ int64_t n_ = %s; if (__builtin_expect(n_ == INT32_MIN, 0)) { NT_SYNC(); NT_RAISE(rt->neg(k%d, n_)); } "
                    "(int64_t)(int32_t)(uint32_t)(0 - (uint64_t)n_); })", a, gen_kidx(g, n));
            break;
        case K_I64:
            r = xasprintf("({ int64_t n_ = %s; if (__builtin_expect(n_ == INT64_MIN, 0)) { NT_SYNC(); NT_RAISE(rt->neg(k%d, n_)); } "
                    "(int64_t)(0 - (uint64_t)n_); })", a, gen_kidx(g, n));
            break;
        case K_U32: r = xasprintf("((int64_t)(uint32_t)(0 - (uint64_t)%s))", a); break;
        case K_F32: case K_F64: r = xasprintf("(-(%s))", a); break;
        default: r = xasprintf("((int64_t)(0 - (uint64_t)%s))", a); break;
        }
        free(a);
        return r;
    }
    case NK_BNOT: {
        char *a = gen_expr(g, n->a);
        char *r = n->kind == K_U32 ? xasprintf("((int64_t)(uint32_t)~(uint64_t)%s)", a) : xasprintf("((int64_t)~(uint64_t)%s)", a);
        free(a);
        return r;
    }
    case NK_LAND: case NK_LOR: {
        char *a = gen_expr(g, n->a), *b = gen_expr(g, n->b);
        char *r = xasprintf("((int64_t)((%s) %s (%s)))", a, eval_expr_kind(n) == NK_LAND ? "&&" : "||", b);
        free(a);
        free(b);
        return r;
    }
    case NK_NOT: {
        char *a = gen_expr(g, n->a), *r = xasprintf("((int64_t)!(%s))", a);
        free(a);
        return r;
    }
    case NK_COND: {
        if (isf(n->b->ty) != isf(n->ty) || isf(n->c->ty) != isf(n->ty)) return bad(g);
        char *a = gen_expr(g, n->a), *b = gen_expr(g, n->b), *c = gen_expr(g, n->c);
        char *r = xasprintf("((%s) ? (%s) : (%s))", a, b, c);
        free(a);
        free(b);
        free(c);
        return r;
    }
    case NK_COMMA: {
        char *a = gen_expr(g, n->a), *b = gen_expr(g, n->b), *r = xasprintf("((void)(%s), (%s))", a, b);
        free(a);
        free(b);
        return r;
    }
    case NK_ASSIGN: return assign(g, n);
    case NK_COMPOUND: return compound(g, n);
    case NK_INCDEC: return incdec(g, n);
    case NK_BUILTIN: return builtin_call(g, n);
    }
    if (g->unit && eval_call_target(n, &(void *){NULL})) return gen_user_call(g, n);
    return bad(g);
}


void gen_poll(gen_t *g, node_t *loop) {
    sb_printf(&g->body, "if (__builtin_expect(*rt->iflag, 0)) { NT_SYNC(); NT_RAISE(rt->interrupt(k%d)); }\n", gen_kidx(g, loop));
}
static void poll_code(gen_t *g, node_t *loop) {
    if (g->poll_only && loop != g->poll_only) return; /* a clean nest's inner loop: bounded (NEST_WORK) */
    sb_printf(&g->body, "if (__builtin_expect(--nt_tick <= 0, 0)) { nt_tick = 1024; if (*rt->iflag) { NT_SYNC(); NT_RAISE(rt->interrupt(k%d)); } }\n",
           gen_kidx(g, loop));
}

static void expr_stmt(gen_t *g, node_t *e) {
    char *s = gen_expr(g, e);
    sb_printf(&g->body, "(void)(%s);\n", s);
    free(s);
}


static void loop(gen_t *g, node_t *n, int kind) {
    if (g->depth == MAXDEPTH) { g->fail = true; return; }
    int L = gen_new_label(g, g->in_clean ? NULL : n); /* a clean copy's loops are never entered */
    if (kind == NK_S_FOR && (gen_nest_versioned(g, n, L) || gen_loop_versioned(g, n, L))) return;
    gen_loop_core(g, n, kind, L, true);
}

/* loop n under label L; init: with its for-init */
void gen_loop_core(gen_t *g, node_t *n, int kind, int L, bool init) {
    if (g->depth == MAXDEPTH) { g->fail = true; return; }
    g->brk[g->depth] = L;
    g->cont[g->depth] = L;
    g->depth++;
    node_t *cond = kind == NK_S_FOR ? n->b : n->a;
    node_t *body = kind == NK_S_FOR ? n->d : n->b;
    sb_printf(&g->body, "{\n");
    if (init && kind == NK_S_FOR && n->a) gen_stmt(g, n->a);
    if (kind == NK_S_DO) {
        sb_printf(&g->body, "H%d:;\n", L);
        gen_stmt(g, body);
        sb_printf(&g->body, "C%d:;\n", L);
        poll_code(g, n);
        sb_printf(&g->body, "T%d:;\n", L);
        char *c = gen_expr(g, cond);
        sb_printf(&g->body, "if (%s) goto H%d;\n", c, L);
        free(c);
    } else {
        sb_printf(&g->body, "H%d:;\n", L);
        if (cond) {
            char *c = gen_expr(g, cond);
            sb_printf(&g->body, "if (!(%s)) goto B%d;\n", c, L);
            free(c);
        }
        gen_stmt(g, body);
        sb_printf(&g->body, "C%d:;\n", L);
        if (kind == NK_S_FOR && n->c) expr_stmt(g, n->c);
        poll_code(g, n);
        sb_printf(&g->body, "goto H%d;\n", L);
    }
    sb_printf(&g->body, "B%d:;\n}\n", L);
    g->depth--;
}

/* A switch as the interpreter runs it (exec_stmt.c sx_switch): the value
 * picks the statement of the body to start at (a case's, default's, or
 * none), and the body's statements run from there on; `break` leaves the
 * switch, `continue` goes to the loop around it. */
static void switch_stmt(gen_t *g, node_t *n) {
    if (g->depth == MAXDEPTH || !n->b) { g->fail = true; return; } /* its body: a list the switch runs from an index */
    int L = gen_new_label(g, NULL); /* never entered: no loop head */
    const int64_t *vals = n->p;
    const int ncase = (int)n->k.i;
    const int *idx = (const int *)(vals + ncase);
    node_t *body = n->b;
    char *v = gen_expr(g, n->a);
    sb_printf(&g->body, "{\nint64_t sw%d_ = (int64_t)(%s);\nswitch (sw%d_) {\n", L, v, L);
    free(v);
    for (int i = 0; i < ncase; i++)
        sb_printf(&g->body, "case (int64_t)%" PRIu64 "ULL: goto S%d_%d;\n", (uint64_t)vals[i], L, idx[i]);
    if (n->slot >= 0) sb_printf(&g->body, "default: goto S%d_%d;\n", L, n->slot);
    else sb_printf(&g->body, "default: goto B%d;\n", L);
    sb_printf(&g->body, "}\n");
    g->brk[g->depth] = L;
    g->cont[g->depth] = g->depth ? g->cont[g->depth - 1] : -1;
    g->depth++;
    for (int i = 0; i < body->nlist; i++) {
        sb_printf(&g->body, "S%d_%d:;\n", L, i);
        gen_stmt(g, body->list[i]);
    }
    sb_printf(&g->body, "S%d_%d:;\n", L, body->nlist); /* a label last in the body: nothing after it */
    g->depth--;
    sb_printf(&g->body, "B%d:;\n}\n", L);
}

void gen_stmt(gen_t *g, node_t *n) {
    if (g->fail) return;
    int kind = native_stmt_kind(n);
    switch (kind) {
    case NK_S_EXPR: expr_stmt(g, n->a); return;
    case NK_S_BLOCK:
        for (int i = 0; i < n->nlist; i++) gen_stmt(g, n->list[i]);
        return;
    case NK_S_NOP: return;
    case NK_S_IF: {
        char *c = gen_expr(g, n->a);
        sb_printf(&g->body, "if (%s) {\n", c);
        free(c);
        gen_stmt(g, n->b);
        sb_printf(&g->body, "}\n");
        if (n->c) {
            sb_printf(&g->body, "else {\n");
            gen_stmt(g, n->c);
            sb_printf(&g->body, "}\n");
        }
        return;
    }
    case NK_S_FOR: case NK_S_WHILE: case NK_S_DO: loop(g, n, kind); return;
    case NK_S_SWITCH: switch_stmt(g, n); return;
    case NK_S_JUMP:
        if (!g->depth || (n->op != X_BREAK && n->op != X_CONTINUE)) break;
        if (n->op == X_CONTINUE && g->cont[g->depth - 1] < 0) break; /* a switch in no loop: not C */
        sb_printf(&g->body, "goto %c%d;\n", n->op == X_BREAK ? 'B' : 'C',
               n->op == X_BREAK ? g->brk[g->depth - 1] : g->cont[g->depth - 1]);
        return;
    case NK_S_RETURN:
        if (n->esz) break;
        if (g->fnmode) {
            char *v = n->a ? gen_expr(g, n->a) : xstrdup("0");
            sb_printf(&g->body, "return (nret_t){{.%s = %s}, 0};\n", n->a && isf(n->a->ty) ? "d" : "i", v);
            free(v);
            return;
        }
        if (n->a) {
            char *v = gen_expr(g, n->a);
            sb_printf(&g->body, "{ nval_t rv_; rv_.%s = %s; *R = rv_; }\n", isf(n->a->ty) ? "d" : "i", v);
            free(v);
        }
        sb_printf(&g->body, "rc = %d; goto OUT;\n", X_RETURN);
        return;
    }
    g->fail = true;
}

/* Jump threading is a fifth of gcc -O2's time on the checks' many branches
 * and buys the generated code nothing measurable (docs/native-tier.md);
 * other compilers ignore the pragma. */
const char gen_prelude[] =
    "#pragma GCC optimize (\"no-thread-jumps\", \"vect-cost-model=cheap\")\n"
    "#include <stdint.h>\n"
    NATIVE_STR(NATIVE_RT_DEFS) "\n"
    /* a failed check: the interpreter's routine raises; in a function
     * (native_func.c) the call gives up instead, returning a flag */
    "#define NT_RAISE(call) call\n"
    "#define NT_OFF_BITS %d\n"
    "static inline int64_t nt_off(uint64_t p) { return (int64_t)(p << (64 - NT_OFF_BITS)) >> (64 - NT_OFF_BITS); }\n"
    "static inline int nt_ptrcmp(uint64_t a, uint64_t b) {\n"
    "  if ((a >> %d) == (b >> %d) && a >= %lluULL) { int64_t x = nt_off(a), y = nt_off(b); return x < y ? -1 : x > y; }\n"
    "  return a < b ? -1 : a > b; }\n"
    "static inline int nt_padd(uint64_t p, int64_t d, uint64_t *r) {\n"
    "  if (p < %lluULL) { *r = p + (uint64_t)d; return 0; }\n"
    "  int64_t o; if (__builtin_add_overflow(nt_off(p), d, &o) || o >= (1LL << (NT_OFF_BITS - 1)) ||\n"
    "      o < -(1LL << (NT_OFF_BITS - 1))) { *r = 0; return 1; }\n"
    "  *r = (p & ~((1ULL << NT_OFF_BITS) - 1)) | ((uint64_t)o & ((1ULL << NT_OFF_BITS) - 1)); return 0; }\n"
    "static inline double nt_dbits(uint64_t b) { double d; __builtin_memcpy(&d, &b, 8); return d; }\n"
    "static inline int64_t nt_d2i64(double d) {\n"
    "  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) return (int64_t)d; return INT64_MIN; }\n"
    "static inline int64_t nt_d2i32(double d) {\n"
    "  if (d > -2147483649.0 && d < 2147483648.0) return (int32_t)d; return INT32_MIN; }\n"
    "static inline uint64_t nt_d2u64(double d) {\n"
    "  if (d < 9223372036854775808.0) return (uint64_t)nt_d2i64(d);\n"
    "  return (uint64_t)nt_d2i64(d - 9223372036854775808.0) ^ (1ULL << 63); }\n"
    /* typed accesses that may alias anything and be unaligned, as
     * memcpy's: a float carried from a store to the next load stays in an
     * SSE register (through memcpy gcc moved it through an integer one) */
    "#define NT_LDST(nm, ct, ld, st, lx) \\\n"
    "  typedef ct __attribute__((may_alias, aligned(1))) nt_##nm##_t; \\\n"
    "  static inline ld nt_ld_##nm(const char *a) { ct x = *(const nt_##nm##_t *)a; return (ld)(lx); } \\\n"
    "  static inline void nt_st_##nm(char *a, ld v) { *(nt_##nm##_t *)a = (ct)(st); }\n"
    "NT_LDST(b, uint8_t, int64_t, v != 0, x != 0) NT_LDST(i8, int8_t, int64_t, (uint8_t)(uint64_t)v, x)\n"
    "NT_LDST(u8, uint8_t, int64_t, (uint64_t)v, x) NT_LDST(i16, int16_t, int64_t, (uint16_t)(uint64_t)v, x)\n"
    "NT_LDST(u16, uint16_t, int64_t, (uint64_t)v, x) NT_LDST(i32, int32_t, int64_t, (uint32_t)(uint64_t)v, x)\n"
    "NT_LDST(u32, uint32_t, int64_t, (uint64_t)v, x) NT_LDST(f32, float, double, v, x)\n"
    "NT_LDST(f64, double, double, v, x) NT_LDST(u64, uint64_t, int64_t, (uint64_t)v, x)\n";


/* A cache miss of an access: the interpreter's check, which raises, then
 * the cache filled; a buffer that holds a cached session variable (NT_ALIAS,
 * whose constants it declares) leaves it empty with addr 1, which sets the
 * site's flag (a local, not an address the store could alias). One call instead of the check inline at every
 * site: a 50-line loop of 185 accesses took 5.2 s to compile with 740 cache
 * variables in registers. */
static void gvar_kdecl(gen_t *g, strbuf_t *s) {
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached) sb_printf(s, "  void *const k%d = K[%d]; (void)k%d;\n", g->gv[i].kb, g->gv[i].kb, g->gv[i].kb);
}
static void nic_miss(gen_t *g, strbuf_t *s) {
    sb_printf(s, "static __attribute__((noinline, cold)) char *nt_imiss(const nrt_t *rt, void *const *K, void *k, uint64_t p,\n"
              "    int64_t i, int wr, uint64_t esz, nic_t *c) {\n");
    gvar_kdecl(g, s);
    sb_printf(s, "  char *a = rt->idx(k, p, i, wr, c);\n"
              "  if (NT_ALIAS((uintptr_t)a, esz) || (c->span && NT_ALIAS(c->addr + (uint64_t)c->lo * esz, c->span * esz))) {\n"
              "    c->span = 0; c->addr = 1; } /* the caller's flag: stores there reload the kept variables */\n"
              "  return a; }\n");
}

/* one pass over the loop; NULL when it holds something not compiled */
static gen_t *gen_pass(node_t *loop_node, const gen_t *found, const val_t *slots, bool lean) {
    gen_t *g = xcalloc(1, sizeof *g);
    g->root = loop_node;
    g->lean = lean;
    g->slotv = slots;
    g->unit = gen_unit_new();
    if (found) { /* pass 2: the session variables pass 1 found, the slots it saw written */
        memcpy(g->slotw, found->slotw, sizeof g->slotw);
        memcpy(g->gv, found->gv, sizeof g->gv);
        g->ngv = found->ngv;
        memcpy(g->indexed, found->indexed, sizeof g->indexed);
        g->nindexed = found->nindexed;
        g->gv_full = found->gv_full;
        gvar_decide(g);
    } else g->collect = true;
    int kind = native_stmt_kind(loop_node);
    if (kind != NK_S_FOR && kind != NK_S_WHILE && kind != NK_S_DO) g->fail = true;
    else gen_stmt(g, loop_node);
    if (g->fail) {
        free(g->body.data);
        free(g->nestfns.data);
        free(g->k);
        free(g->loops);
        free(g->versioned);
        free(g->unit);
        free(g);
        return NULL;
    }
    return g;
}

int native_gen(node_t *loop_node, const val_t *slots, bool lean, native_src_t *out) {
    memset(out, 0, sizeof *out);
    gen_t *g1 = gen_pass(loop_node, NULL, NULL, false);
    if (!g1) return -1;
    gen_t *g = gen_pass(loop_node, g1, slots, lean);
    free(g1->body.data);
    free(g1->nestfns.data);
    free(g1->k);
    free(g1->loops);
    free(g1->versioned);
    free(g1->unit);
    free(g1);
    if (!g) return -1;
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached) g->gv[i].kb = gen_kidx(g, g->gv[i].root);
    /* the pure functions its calls go to, before the loop in the file */
    strbuf_t fns = {0};
    unit_t *u = g->unit;
    if (u->n && !gen_unit_functions(g, u, &fns)) {
        free(fns.data);
        free(g->body.data);
        free(g->nestfns.data);
        free(g->k);
        free(g->loops);
        free(g->versioned);
        free(u);
        free(g);
        return -1;
    }
    strbuf_t s = {0};
    sb_printf(&s, gen_prelude, PTR_OFF_BITS, PTR_SLOT_SHIFT, PTR_SLOT_SHIFT, (unsigned long long)PTR_RAW_LIMIT,
           (unsigned long long)PTR_RAW_LIMIT);
    if (u->n) sb_printf(&s, "%s%s", gen_unit_statics, fns.data);
    free(fns.data);
    strbuf_t checks = {0};
    if (u->n) gen_unit_entry_checks(g, u, &checks); /* adds constants: before they are declared */
    gvar_macros(g, &s);
    if (g->nic) nic_miss(g, &s);
    if (g->rcheck) {
        /* a versioned loop's check of one buffer: its address, or 0; the
         * buffer's range is kept in rc (NT_RC: a loop entered once a row
         * tests it inline) where the whole buffer holds no kept variable */
        sb_printf(&s, "static __attribute__((noinline)) uintptr_t nt_rcheck(const nrt_t *rt, void *const *K, uint64_t p, int64_t esz,\n"
                   "    int wr, int64_t vl, int64_t vh, nic_t *rc) {\n");
        gvar_kdecl(g, &s);
        sb_printf(&s, "  nic_t c_;\n"
                   "  if (!rt->range(p, esz, wr, &c_) || vl < c_.lo || vh >= c_.lo + (int64_t)c_.span ||\n"
                   "      NT_ALIAS(c_.addr + (uint64_t)vl * (uint64_t)esz, (uint64_t)(vh - vl + 1) * (uint64_t)esz)) return 0;\n"
                   "  if (!NT_ALIAS(c_.addr + (uint64_t)c_.lo * (uint64_t)esz, c_.span * (uint64_t)esz)) *rc = c_;\n"
                   "  return c_.addr; }\n"
                   "#define NT_RC(c, w, l, h) ((w) == (c).p && (c).span && (l) >= (c).lo && (h) < (c).lo + (int64_t)(c).span)\n");
    }
    if (g->rbound) {
        /* a clean copy's buffer whose indexes are data: its address and
         * valid indexes, where it holds no session variable kept in a
         * local (0: none) */
        sb_printf(&s, "static __attribute__((noinline)) uintptr_t nt_rbound(const nrt_t *rt, void *const *K, uint64_t p, int64_t esz,\n"
                   "    int wr, int64_t *lo, uint64_t *span, nic_t *rc) {\n");
        gvar_kdecl(g, &s);
        sb_printf(&s, "  nic_t c_;\n"
                   "  if (rc->span && rc->p == p) c_ = *rc;\n"
                   "  else if (!rt->range(p, esz, wr, &c_) || NT_ALIAS(c_.addr + (uint64_t)c_.lo * (uint64_t)esz, c_.span * (uint64_t)esz))"
                   " return 0;\n"
                   "  *rc = c_; *lo = c_.lo; *span = c_.span; return c_.addr; }\n"
                   /* outside those: the interpreter's check, which raises (or
                    * gives the address, inside the same buffer) */
                   "static __attribute__((noinline, cold)) char *nt_ifail(const nrt_t *rt, void *k, uint64_t p, int64_t i, int wr) {\n"
                   "  nic_t c_; return rt->idx(k, p, i, wr, &c_); }\n");
    }
    if (g->nestfns.data) { /* the clean nests: each declares the constants it may name */
        sb_printf(&s, "#define NT_KDECL");
        for (int j = 0; j < g->nk; j++) sb_printf(&s, " void *const k%d = K[%d]; (void)k%d;", j, j, j);
        sb_printf(&s, "\n%s", g->nestfns.data);
        free(g->nestfns.data);
    }
    /* lean code's entry is the nest's entry test, run once: -O1 makes it
     * as fast and takes a fifth off the compile (stencil 80 -> 63 ms) */
    if (g->leaned) sb_printf(&s, "#ifdef __OPTIMIZE__\n__attribute__((optimize(\"O1\")))\n#endif\n");
    sb_printf(&s, "int icuda_native(const nrt_t *rt, void *const *K, nval_t *S, char *M, nval_t *R, int osr) {\n"
               "(void)M; (void)R; int rc = 0; int nt_tick = 1024;\n");
    for (int i = 0; i < MAXSLOTS; i++)
        if (g->slotc[i]) {
            int c = g->slotc[i] - 1;
            sb_printf(&s, "%s s%d = (%s)S[%d].%s;\n", slot_ctype(c), i, slot_ctype(c), i, c_float(c) ? "d" : "i");
        }
    /* the constants in locals: the compiler then knows no store changes them */
    for (int j = 0; j < g->nk; j++) sb_printf(&s, "void *const k%d = K[%d];\n", j, j);
    if (checks.data) sb_printf(&s, "%s", checks.data);
    free(checks.data);
    for (int i = 0; i < g->ngv; i++)
        if (g->gv[i].cached) sb_printf(&s, "%s g%d;\n", gen_gvar_ctype(g->gv[i].code), i);
    sb_printf(&s, "NT_RELOAD();\n");
    for (int j = 0; j < g->nic && j < NIC_REGS; j++) {
        sb_printf(&s, "uint64_t cp%d = 0, cs%d = 0; uintptr_t ca%d = 0; int64_t cl%d = 0;\n", j, j, j, j);
        if (g->ncached) sb_printf(&s, "int ovi%d = 0;\n", j);
    }
    if (g->nic) sb_printf(&s, "int ovm = 0; (void)ovm;\n");
    if (g->nic > NIC_REGS) sb_printf(&s, "nic_t ic[%d] = {{0}};\n", g->nic - NIC_REGS);
    sb_printf(&s, "#define NT_INVAL() do {");
    for (int j = 0; j < g->nic && j < MAXIC; j++)
        if (g->icbase[j]) {
            if (j < NIC_REGS) sb_printf(&s, " cs%d = 0;", j);
            else sb_printf(&s, " ic[%d].span = 0;", j - NIC_REGS);
        }
    sb_printf(&s, " } while (0)\n");
    for (int j = 0; j < g->nra; j++) sb_printf(&s, "uintptr_t ra%d = 0;\n", j);
    for (int j = 0; j < g->nrb; j++) sb_printf(&s, "uintptr_t rb%d = 0; int64_t rl%d = 0; uint64_t rs%d = 0;\n", j, j, j);
    if (g->nrc) sb_printf(&s, "nic_t nt_rc[%d] = {{0}};\n", g->nrc); /* entry tests' ranges (nt_rcheck, nt_rbound) */
    for (int j = 0; j < g->ndc; j++) {
        sb_printf(&s, "uint64_t dk%d = ~0ULL, dl%d = 0; char *db%d = 0;\n", j, j, j);
        if (g->ncached) sb_printf(&s, "int ovd%d = 0;\n", j);
    }
    /* entered at a loop's head (its condition; a do loop's test), after
     * every declaration: a jump must not skip an initialisation */
    sb_printf(&s, "switch (osr) {\n");
    for (int L = 0; L < g->nlab; L++)
        if (g->loops[L])
            sb_printf(&s, "case %d: goto %s%d;\n", L + 1, g->versioned[L] ? "V" : native_stmt_kind(g->loops[L]) == NK_S_DO ? "T" : "H", L);
    sb_printf(&s, "default: break;\n}\n");
    sb_printf(&s, "%s", g->body.data ? g->body.data : "");
    sb_printf(&s, "OUT:;\nNT_SYNC();\n");
    for (int i = 0; i < MAXSLOTS; i++)
        if (g->slotc[i]) sb_printf(&s, "S[%d].%s = s%d;\n", i, c_float(g->slotc[i] - 1) ? "d" : "i", i);
    sb_printf(&s, "return rc;\n}\n");
    free(g->body.data);
    out->text = s.data;
    out->k = g->k;
    out->nk = g->nk;
    out->loops = g->loops;
    out->nloops = g->nlab;
    free(u);
    free(g->versioned);
    free(g);
    return 0;
}

void native_src_free(native_src_t *s) {
    free(s->text);
    free(s->k);
    free(s->loops);
    free(s->deps);
    memset(s, 0, sizeof *s);
}

