/* The generator of host C programs behind fuzz_gen and fuzz_native: the
 * input's bytes are its choices (types, declarations, every operator,
 * if/switch/loops, pointers, arrays, structs, functions, printf); a choice
 * past the input's end is 0, the simplest form, so every input ends as a
 * finished program. generate() returns it, malloc'd. */
#ifndef ICUDA_FUZZ_PROGRAM_GEN_H
#define ICUDA_FUZZ_PROGRAM_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"

#define MAX_VARS 48
#define MAX_DEPTH 4

enum { V_INT, V_DBL, V_CHAR, V_PTR, V_ARR, V_STRUCT, V_STR };

typedef struct {
    char name[16];
    int kind;
    bool ro;    /* a loop counter: read, never written */
    bool wide;  /* long, unsigned, short: no int * points at it */
} var_t;

typedef struct {
    const uint8_t *p;
    size_t n, i;
    strbuf_t out;
    var_t vars[MAX_VARS];
    int nvars, uid, loops, switches, indent;
    int prog; /* names the program's struct and functions: a session holds many programs */
    bool in_func, have_struct;
    int nfuncs; /* int f0(int, int), f1 ... defined so far */
} gen_t;

static unsigned pick(gen_t *g, unsigned k) { return g->i < g->n ? g->p[g->i++] % k : 0; }

static const char *fresh(gen_t *g, int kind, bool ro) {
    static char tmp[16];
    snprintf(tmp, sizeof tmp, "%c%d", "idcpasz"[kind], g->uid++);
    if (g->nvars < MAX_VARS) {
        var_t *v = &g->vars[g->nvars++];
        snprintf(v->name, sizeof v->name, "%s", tmp);
        v->kind = kind;
        v->ro = ro;
        v->wide = false;
    }
    return tmp;
}

/* A variable of kind (writable if asked), chosen by the bytes; NULL if none. */
static const char *var_of(gen_t *g, int kind, bool writable) {
    int idx[MAX_VARS], n = 0;
    for (int i = 0; i < g->nvars; i++)
        if (g->vars[i].kind == kind && !(writable && g->vars[i].ro)) idx[n++] = i;
    return n ? g->vars[idx[pick(g, (unsigned)n)]].name : NULL;
}

static void emit(gen_t *g, const char *s) { sb_puts(&g->out, s); }
static void line(gen_t *g) {
    sb_putc(&g->out, '\n');
    for (int i = 0; i < g->indent; i++) sb_puts(&g->out, "    ");
}

static void int_expr(gen_t *g, int d);
static void dbl_expr(gen_t *g, int d);
static void nest_stmt(gen_t *g);
static void kinds_stmt(gen_t *g);

static void int_lit(gen_t *g) {
    static const char *const special[] = {"0", "1", "-1", "2147483647", "(-2147483647 - 1)", "255", "31", "32",
                                          "0x7f", "010", "100000", "'A'", "'\\n'", "3L", "4u", "1000000007"};
    unsigned c = pick(g, 3);
    if (c == 2) emit(g, special[pick(g, 16)]);
    else sb_printf(&g->out, "%d", (int)pick(g, 256) - (c ? 128 : 0));
}

/* An int lvalue: a variable, an array element, a struct field, *p. */
static bool int_lvalue(gen_t *g) {
    const char *v;
    switch (pick(g, 4)) {
    case 1:
        if ((v = var_of(g, V_ARR, false))) {
            sb_printf(&g->out, "%s[", v);
            int_expr(g, MAX_DEPTH);
            emit(g, " & 7]");
            return true;
        }
        break;
    case 2:
        if ((v = var_of(g, V_STRUCT, false))) {
            unsigned f = pick(g, 3);
            sb_printf(&g->out, f == 2 ? "(&%s)->a" : "%s.%s", v, f ? "a" : "c[1]");
            return true;
        }
        break;
    case 3:
        if ((v = var_of(g, V_PTR, false))) {
            sb_printf(&g->out, "*%s", v);
            return true;
        }
        break;
    }
    if ((v = var_of(g, V_INT, true))) {
        emit(g, v);
        return true;
    }
    return false;
}

static void int_expr(gen_t *g, int d) {
    static const char *const bin[] = {" + ", " - ", " * ", " / ", " % ", " << ", " >> ", " & ", " | ", " ^ ",
                                      " && ", " || ", " == ", " != ", " < ", " > ", " <= ", " >= ", ", "};
    static const char *const asg[] = {" = ", " += ", " -= ", " *= ", " /= ", " %= ", " <<= ", " >>= ", " &= ",
                                      " |= ", " ^= "};
    const char *v;
    unsigned c = d >= MAX_DEPTH ? pick(g, 2) : pick(g, 16);
    switch (c) {
    case 1:
        if ((v = var_of(g, V_INT, false))) {
            emit(g, v);
            return;
        }
        break;
    case 2: {
        unsigned op = pick(g, 19);
        emit(g, "(");
        int_expr(g, d + 1);
        emit(g, bin[op]);
        if (op == 3 || op == 4 || op == 5 || op == 6) { /* mostly defined: a divisor of 1..16, a shift of 0..15 */
            if (pick(g, 8)) {
                emit(g, op <= 4 ? "(1 + ((" : "((");
                int_expr(g, d + 1);
                emit(g, op <= 4 ? ") & 15))" : ") & 15)");
            } else int_expr(g, d + 1);
        } else int_expr(g, d + 1);
        emit(g, ")");
        return;
    }
    case 3:
        emit(g, (const char *[]){"-", "~", "!", "+"}[pick(g, 4)]);
        emit(g, "(");
        int_expr(g, d + 1);
        emit(g, ")");
        return;
    case 4:
        emit(g, "(");
        int_expr(g, d + 1);
        emit(g, " ? ");
        int_expr(g, d + 1);
        emit(g, " : ");
        int_expr(g, d + 1);
        emit(g, ")");
        return;
    case 5:
        emit(g, pick(g, 2) ? "(int)(" : "(long)(");
        bool wrap = pick(g, 8); /* mostly within range: out of it is UB the interpreter reports */
        if (wrap) emit(g, "fmod(");
        dbl_expr(g, d + 1);
        emit(g, wrap ? ", 1e9))" : ")");
        return;
    case 6:
        if (g->nfuncs) {
            sb_printf(&g->out, "f%d_%u(", g->prog, pick(g, (unsigned)g->nfuncs));
            int_expr(g, d + 1);
            emit(g, ", ");
            int_expr(g, d + 1);
            emit(g, ")");
            return;
        }
        break;
    case 7:
    case 8: {
        size_t mark = g->out.len;
        emit(g, "(");
        bool prefix = pick(g, 4) == 3;
        if (prefix) emit(g, pick(g, 2) ? "++" : "--");
        if (int_lvalue(g)) {
            unsigned k = prefix ? 14 : pick(g, 15);
            if (k < 11) {
                emit(g, asg[k]);
                int_expr(g, d + 1);
            } else emit(g, k == 11 ? "++" : k == 12 ? "--" : "");
            emit(g, ")");
            return;
        }
        g->out.len = mark;
        g->out.data[mark] = 0;
        break;
    }
    case 9:
        emit(g, (const char *[]){"(int)sizeof(int)", "(int)sizeof(double)", "(int)sizeof(long)", "'z' - 'a'"}[pick(g, 4)]);
        return;
    case 10:
    case 11:
        if (int_lvalue(g)) return;
        break;
    case 12:
        if ((v = var_of(g, V_STR, false))) {
            sb_printf(&g->out, "%s[%u]", v, pick(g, 8));
            return;
        }
        if ((v = var_of(g, V_CHAR, false))) {
            emit(g, v);
            return;
        }
        break;
    case 13:
        emit(g, pick(g, 2) ? "abs(" : "(unsigned)(");
        int_expr(g, d + 1);
        emit(g, ")");
        return;
    case 14:
        if ((v = var_of(g, V_PTR, false)) && var_of(g, V_ARR, false)) {
            sb_printf(&g->out, "(int)(%s - %s)", v, v);
            return;
        }
        break;
    }
    int_lit(g);
}

static void dbl_expr(gen_t *g, int d) {
    static const char *const lit[] = {"0.0", "1.5", "-2.25", "1e300", "3.14159", "0.1f", "1e-310", "2.0"};
    const char *v;
    switch (d >= MAX_DEPTH ? 0 : pick(g, 8)) {
    case 1:
        if ((v = var_of(g, V_DBL, false))) {
            emit(g, v);
            return;
        }
        break;
    case 2:
        emit(g, "(");
        dbl_expr(g, d + 1);
        emit(g, (const char *[]){" + ", " - ", " * ", " / "}[pick(g, 4)]);
        dbl_expr(g, d + 1);
        emit(g, ")");
        return;
    case 3:
        emit(g, (const char *[]){"sqrt(fabs(", "floor((", "sin((", "pow(2.0, (", "log10(fabs("}[pick(g, 5)]);
        dbl_expr(g, d + 1);
        emit(g, "))");
        return;
    case 4:
        emit(g, "(double)(");
        int_expr(g, d + 1);
        emit(g, ")");
        return;
    case 5:
        if ((v = var_of(g, V_STRUCT, false))) {
            sb_printf(&g->out, "%s.b", v);
            return;
        }
        break;
    case 6:
        emit(g, "(");
        int_expr(g, d + 1);
        emit(g, " ? ");
        dbl_expr(g, d + 1);
        emit(g, " : ");
        dbl_expr(g, d + 1);
        emit(g, ")");
        return;
    }
    emit(g, lit[pick(g, 8)]);
}

static void stmts(gen_t *g, int d, int max);

static void block(gen_t *g, int d) {
    int saved = g->nvars;
    emit(g, "{");
    g->indent++;
    stmts(g, d + 1, 3);
    g->indent--;
    line(g);
    emit(g, "}");
    g->nvars = saved;
}

static void decl(gen_t *g) {
    switch (pick(g, 8)) {
    case 0:
        sb_printf(&g->out, "int %s = ", fresh(g, V_INT, false));
        g->nvars--; /* not visible in its own initialiser */
        int_expr(g, 1);
        g->nvars++;
        emit(g, ";");
        return;
    case 1:
        sb_printf(&g->out, "double %s = ", fresh(g, V_DBL, false));
        g->nvars--;
        dbl_expr(g, 1);
        g->nvars++;
        emit(g, ";");
        return;
    case 2: {
        const char *name = fresh(g, V_ARR, false);
        sb_printf(&g->out, "int %s[8] = {", name);
        for (unsigned i = 0, n = pick(g, 9); i < n; i++) {
            if (i) emit(g, ", ");
            int_lit(g);
        }
        emit(g, "};");
        return;
    }
    case 3: {
        const char *target = var_of(g, V_ARR, false);
        if (!target) target = var_of(g, V_INT, false);
        for (int i = 0; target && i < g->nvars; i++)
            if (!strcmp(g->vars[i].name, target) && g->vars[i].wide) target = NULL;
        if (!target) break;
        char t[16];
        snprintf(t, sizeof t, "%s", target);
        bool arr = t[0] == 'a';
        sb_printf(&g->out, "int *%s = ", fresh(g, V_PTR, false));
        if (arr) sb_printf(&g->out, "%s + %u;", t, pick(g, 8));
        else sb_printf(&g->out, "&%s;", t);
        return;
    }
    case 4:
        if (!g->have_struct) break;
        sb_printf(&g->out, "struct S%d %s = {", g->prog, fresh(g, V_STRUCT, false));
        int_lit(g);
        emit(g, ", 2.5, {1, 2}};");
        return;
    case 5:
        sb_printf(&g->out, "char %s[16] = \"%s\";", fresh(g, V_STR, false),
                  (const char *[]){"", "hello", "a%d b", "tab\\tnl\\n", "\\x41\\101"}[pick(g, 5)]);
        return;
    case 6:
        sb_printf(&g->out, "char %s = ", fresh(g, V_CHAR, false));
        int_lit(g);
        emit(g, ";");
        return;
    case 7:
        sb_printf(&g->out, "%s %s = ", (const char *[]){"long", "unsigned", "short", "long long"}[pick(g, 4)],
                  fresh(g, V_INT, false));
        g->nvars--;
        int_expr(g, 1);
        g->nvars++;
        g->vars[g->nvars - 1].wide = true;
        emit(g, ";");
        return;
    }
    sb_printf(&g->out, "int %s = 0;", fresh(g, V_INT, false));
}

/* sub: the statement of an else or a case label, where C takes no
 * declaration: one is braced. */
static void stmt(gen_t *g, int d, bool sub) {
    line(g);
    unsigned c = d >= MAX_DEPTH ? pick(g, 2) : pick(g, 16);
    if (sub && (c == 0 || c == 4 || c == 10)) {
        emit(g, "{");
        g->indent++;
        int saved = g->nvars;
        stmt(g, d + 1, false);
        g->nvars = saved;
        g->indent--;
        line(g);
        emit(g, "}");
        return;
    }
    switch (c) {
    case 0:
        decl(g);
        return;
    case 14:
        nest_stmt(g);
        return;
    case 15:
        kinds_stmt(g);
        return;
    case 2:
        emit(g, "if (");
        int_expr(g, 1);
        emit(g, ") ");
        block(g, d);
        if (pick(g, 2)) {
            emit(g, " else ");
            if (pick(g, 2)) stmt(g, d + 1, true);
            else block(g, d);
        }
        return;
    case 3: {
        int saved = g->nvars;
        const char *i = fresh(g, V_INT, true);
        sb_printf(&g->out, "for (int %s = 0; %s < %u; %s++) ", i, i, pick(g, 12), i);
        g->loops++;
        block(g, d);
        g->loops--;
        g->nvars = saved;
        return;
    }
    case 4: {
        char w[16];
        snprintf(w, sizeof w, "%s", fresh(g, V_INT, true));
        sb_printf(&g->out, "int %s = 0;", w);
        line(g);
        unsigned k = pick(g, 10);
        bool dowhile = pick(g, 2);
        if (dowhile) emit(g, "do {");
        else sb_printf(&g->out, "while (%s < %u) {", w, k);
        g->indent++;
        line(g);
        sb_printf(&g->out, "%s++;", w); /* first, so that a continue cannot skip it */
        g->loops++;
        int saved = g->nvars;
        stmts(g, d + 1, 3);
        g->nvars = saved;
        g->loops--;
        g->indent--;
        line(g);
        if (dowhile) sb_printf(&g->out, "} while (%s < %u);", w, k);
        else emit(g, "}");
        return;
    }
    case 5:
        emit(g, "switch (");
        int_expr(g, 1);
        emit(g, ") {");
        for (unsigned i = 0, n = 1 + pick(g, 4); i < n; i++) {
            line(g);
            if (i == n - 1 && pick(g, 2)) emit(g, "default:");
            else sb_printf(&g->out, "case %d:", (int)i - 1);
            g->indent++;
            g->switches++; /* break is allowed, continue only in a loop */
            stmt(g, d + 1, true);
            if (pick(g, 2)) {
                line(g);
                emit(g, "break;");
            }
            g->switches--;
            g->indent--;
        }
        line(g);
        emit(g, "}");
        return;
    case 6: {
        unsigned f = pick(g, 4);
        emit(g, (const char *[]){"printf(\"%d %x\\n\", ", "printf(\"%.3f %g\\n\", ", "printf(\"[%5d|%-4c]\\n\", ",
                                 "printf(\"%s.\\n\", "}[f]);
        if (f == 0 || f == 2) {
            emit(g, "(int)(");
            int_expr(g, 1);
            emit(g, f == 0 ? "), (unsigned)(" : "), 'a' + (int)(");
            int_expr(g, 2);
            emit(g, f == 2 ? ") % 26" : ")");
        } else if (f == 1) {
            dbl_expr(g, 1);
            emit(g, ", ");
            dbl_expr(g, 2);
        } else {
            const char *s = var_of(g, V_STR, false);
            emit(g, s ? s : "\"lit\"");
        }
        emit(g, ");");
        return;
    }
    case 7:
        block(g, d);
        return;
    case 8:
        if (g->loops || g->switches) {
            emit(g, g->loops && pick(g, 2) ? "continue;" : "break;");
            return;
        }
        break;
    case 9: {
        const char *p = var_of(g, V_PTR, false), *a = var_of(g, V_ARR, false);
        if (p && a) {
            sb_printf(&g->out, "%s = %s + (", p, a);
            int_expr(g, 2);
            emit(g, " & 7);");
            return;
        }
        break;
    }
    case 10: {
        char m[16];
        snprintf(m, sizeof m, "%s", fresh(g, V_PTR, false));
        g->nvars--; /* freed below */
        unsigned n = pick(g, 6);
        sb_printf(&g->out, "int *%s = (int *)malloc(%u * sizeof(int));", m, n + 1);
        line(g);
        sb_printf(&g->out, "for (int k = 0; k <= %u; k++) %s[k] = k * ", n, m);
        int_expr(g, 2);
        emit(g, ";");
        line(g);
        sb_printf(&g->out, "printf(\"%%d\\n\", %s[%u]);", m, pick(g, n + 1));
        line(g);
        sb_printf(&g->out, "free(%s);", m);
        return;
    }
    case 11:
        if (g->in_func) {
            emit(g, "return ");
            int_expr(g, 1);
            emit(g, ";");
            return;
        }
        break;
    case 12: {
        const char *v = var_of(g, V_DBL, false);
        if (v) {
            sb_printf(&g->out, "%s %s ", v, (const char *[]){"=", "+=", "*=", "/="}[pick(g, 4)]);
            dbl_expr(g, 1);
            emit(g, ";");
            return;
        }
        break;
    }
    }
    int_expr(g, 0); /* an expression statement, often an assignment */
    emit(g, ";");
}

/* A loop nest over a matrix, the shape the native tier proves whole
 * (native_nest.c): affine indices, a full row or a triangle, a variable
 * declared inside, an inner loop; a target that is its own buffer, the
 * source itself, or the source one element on (which aliases it and may run
 * past its end), at an offset that may too. */
static void nest_stmt(gen_t *g) {
    unsigned r = 1 + pick(g, 5), c = 1 + pick(g, 6), off = pick(g, 4) ? 0 : pick(g, 3), alias = pick(g, 3);
    int u = g->uid++, saved = g->nvars;
    static const char *const target[] = {"(int *)calloc(%u, sizeof(int))", "m%d + 1", "m%d"};
    sb_printf(&g->out, "{ int *m%d = (int *)malloc(%u * sizeof(int)); int *q%d = ", u, r * c, u);
    if (alias == 0) sb_printf(&g->out, target[0], r * c);
    else sb_printf(&g->out, target[alias], u);
    emit(g, ";");
    line(g);
    sb_printf(&g->out, "for (int k%d = 0; k%d < %u; k%d++) m%d[k%d] = k%d * 3 - 7;", u, u, r * c, u, u, u, u);
    line(g);
    char iv[16], jv[16];
    snprintf(iv, sizeof iv, "%s", fresh(g, V_INT, true));
    snprintf(jv, sizeof jv, "%s", fresh(g, V_INT, true));
    sb_printf(&g->out, "for (int %s = 0; %s < %u; %s++)", iv, iv, r, iv);
    if (pick(g, 2)) sb_printf(&g->out, " for (int %s = 0; %s < %u; %s++) {", jv, jv, c, jv);
    else sb_printf(&g->out, " for (int %s = 0; %s <= %s; %s++) {", jv, jv, iv, jv);
    g->indent++;
    line(g);
    sb_printf(&g->out, "int t%d = ", u);
    int_expr(g, 2);
    emit(g, ";");
    if (pick(g, 2)) {
        line(g);
        sb_printf(&g->out, "for (int h%d = 0; h%d < %s; h%d++) t%d += m%d[%s * %u + h%d] * %u;", u, u,
                  pick(g, 2) ? jv : iv, u, u, u, iv, c, u, 1 + pick(g, 3));
    }
    line(g);
    sb_printf(&g->out, "q%d[%s * %u + %s + %u] = t%d;", u, iv, c, jv, off, u);
    g->indent--;
    line(g);
    emit(g, "}");
    g->nvars = saved;
    line(g);
    sb_printf(&g->out, "long s%d = 0; for (int k%d = 0; k%d < %u; k%d++) s%d = (s%d * 31 + m%d[k%d] + q%d[k%d %% %u]) %% 1000003;",
              u, u, u, r * c, u, u, u, u, u, u, u, r * c - (alias == 1));
    line(g);
    sb_printf(&g->out, "printf(\"%%ld\\n\", s%d);", u);
    line(g);
    sb_printf(&g->out, "free(m%d);", u);
    if (alias == 0) sb_printf(&g->out, " free(q%d);", u);
    emit(g, " }");
}

/* A loop of the kinds CPU reference code is made of, in the shapes the
 * native tier proves (native_version.c, native_func.c): a histogram or a
 * scatter through a data index (into a buffer that may be too short), a
 * count or a byte sum that may overflow in a chunk, a helper reading
 * through a pointer (maybe past the end), clamped neighbours as lets (or
 * a clamp one off), a bound read from memory, a prefix sum, an insertion
 * sort, a transpose, digits parsed by index and through a moving pointer,
 * RGB to gray (some writing one past the end), a loop near a chunk's
 * length with a break. Self-contained: its own buffers, a checksum
 * printed. */
static void kinds_stmt(gen_t *g) {
    int u = g->uid++;
    unsigned n = 1 + pick(g, 256) * 24 + pick(g, 24), kind = pick(g, 13), k = 1 + pick(g, 5);
    static const char *const dtype[] = {"unsigned char", "char", "int", "short"};
    const char *dt = dtype[pick(g, 4)];
    sb_printf(&g->out, "{ int n%d = %u; %s *d%d = (%s *)malloc(n%d * sizeof(%s)); long s%d = 0;", u, n, dt, u, dt, u, dt, u);
    line(g);
    sb_printf(&g->out, "for (int i = 0; i < n%d; i++) d%d[i] = (%s)(i * %u + %u);", u, u, dt, 2654435761u % (97 + pick(g, 50)),
              pick(g, 256));
    line(g);
    switch (kind) {
    case 0: { /* histogram through the data */
        static const unsigned hs[] = {100, 256, 300, 129};
        unsigned h = hs[pick(g, 4)];
        sb_printf(&g->out, "int *h%d = (int *)calloc(%u, sizeof(int));", u, h);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < n%d; i++) h%d[%sd%d[i]%s] += %u;", u, u, pick(g, 2) ? "(unsigned char)" : "", u,
                  pick(g, 3) ? "" : " - 3", k);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < %u; i++) s%d = (s%d * 31 + h%d[i]) %% 1000003;", h, u, u, u);
        line(g);
        sb_printf(&g->out, "free(h%d);", u);
        break;
    }
    case 1: /* a scatter through an index the data make */
        sb_printf(&g->out, "int *ix%d = (int *)malloc(n%d * sizeof(int)); double *y%d = (double *)calloc(n%d, sizeof(double));", u, u, u,
                  u);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < n%d; i++) ix%d[i] = (i * %u + %u) %% (n%d + %u);", u, u, 1 + pick(g, 7919), pick(g, 50),
                  u, pick(g, 3) ? 0 : 1 + pick(g, 3));
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < n%d; i++) y%d[ix%d[i]] += d%d[i] * 0.5;", u, u, u, u);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < n%d; i++) s%d += (long)y%d[i] * (i %% 7);", u, u, u);
        line(g);
        sb_printf(&g->out, "free(ix%d); free(y%d);", u, u);
        break;
    case 2: /* accumulators that may overflow */
        sb_printf(&g->out, "int c%d = %s;", u, pick(g, 2) ? "2147483647 - 3000" : "(-2147483647 - 1) + 3000");
        line(g);
        sb_printf(&g->out, "for (long i = 0; i < n%d; i++) { if (d%d[i] %s %d) c%d%s; c%d %s= d%d[i] & %u; }", u, u,
                  pick(g, 2) ? "==" : ">", (int)pick(g, 60), u, pick(g, 2) ? "++" : "--", u, pick(g, 2) ? "+" : "-", u,
                  pick(g, 2) ? 1 : 255);
        line(g);
        sb_printf(&g->out, "s%d = c%d;", u, u);
        break;
    case 3: /* a helper reading through a pointer, maybe past the end */
        sb_printf(&g->out, "for (int i = 0; i < n%d; i++) s%d += hr%d(d%d, i + %d, %u);", u, u, g->prog, u, pick(g, 4) ? 0 : 1, k);
        break;
    case 4: { /* clamped neighbours as lets over a matrix (or a clamp one off) */
        unsigned r = 1 + pick(g, 60), c = 1 + pick(g, 60);
        sb_printf(&g->out, "double *m%d = (double *)malloc(%u * sizeof(double)), *q%d = (double *)malloc(%u * sizeof(double));", u,
                  r * c, u, r * c);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < %u; i++) { m%d[i] = i %% 13; q%d[i] = 0; }", r * c, u, u);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < %u; i++) for (int j = 0; j < %u; j++) {", r, c);
        line(g);
        sb_printf(&g->out, "    int im = i > 0 ? i - 1 : 0, ip = i < %u ? i + 1 : %u, jm = j > 0 ? j - 1 : 0;", r - 1 + pick(g, 2),
                  r - 1 + (pick(g, 5) ? 0 : 1));
        line(g);
        sb_printf(&g->out, "    q%d[i * %u + j] = m%d[im * %u + j] + m%d[ip * %u + j] - m%d[i * %u + jm]; }", u, c, u, c, u, c, u, c);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < %u; i++) s%d = (s%d * 7 + (long)q%d[i]) %% 1000003;", r * c, u, u, u);
        line(g);
        sb_printf(&g->out, "free(m%d); free(q%d);", u, u);
        break;
    }
    case 5: /* bounds read from memory */
        sb_printf(&g->out, "int lim%d[3] = {%u, %u, %u};", u, pick(g, 10), n / 2 + pick(g, 3), n + (pick(g, 4) ? 0 : 1));
        line(g);
        sb_printf(&g->out, "for (int r = 0; r < 2; r++) for (int i = lim%d[r]; i < lim%d[r + 1]; i++) s%d += d%d[i] * (r + 1);", u, u,
                  u, u);
        break;
    case 6: { /* a prefix sum, the carried value read back (maybe one past the end) */
        const char *pt = pick(g, 2) ? "long" : "float";
        sb_printf(&g->out, "%s *p%d = (%s *)malloc(n%d * sizeof(%s)); p%d[0] = d%d[0];", pt, u, pt, u, pt, u, u);
        line(g);
        sb_printf(&g->out, "for (int i = 1; i %s n%d; i++) p%d[i] = p%d[i - 1]%s + d%d[i];", pick(g, 5) ? "<" : "<=", u, u, u,
                  pick(g, 2) ? "" : " * 0.5f", u);
        line(g);
        sb_printf(&g->out, "s%d = (long)p%d[n%d / 2] %% 1000003; free(p%d);", u, u, u, u);
        break;
    }
    case 7: { /* an insertion sort of the first few, a while loop inside */
        unsigned m = 1 + n % 200;
        sb_printf(&g->out, "int *a%d = (int *)malloc(%u * sizeof(int)); for (int i = 0; i < %u; i++) a%d[i] = d%d[i];", u, m, m, u,
                  u);
        line(g);
        sb_printf(&g->out, "for (int i = 1; i < %u; i++) { int v = a%d[i], j = i - 1; while (j >= 0 && a%d[j] > v) { a%d[j + 1] = a%d[j]; j--; }"
                           " a%d[j + 1] = v; }", m, u, u, u, u, u);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < %u; i++) s%d = (s%d * 3 + a%d[i]) %% 1000003; free(a%d);", m, u, u, u, u);
        break;
    }
    case 8: { /* a transpose, the target maybe one short */
        unsigned r = 1 + pick(g, 70), c = 1 + pick(g, 70);
        sb_printf(&g->out, "int *m%d = (int *)malloc(%u * sizeof(int)), *t%d = (int *)malloc(%u * sizeof(int));", u, r * c, u,
                  r * c - (pick(g, 6) ? 0 : 1));
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < %u; i++) m%d[i] = i * 7 %% 101;", r * c, u);
        line(g);
        sb_printf(&g->out, "for (int i = 0; i < %u; i++) for (int j = 0; j < %u; j++) t%d[j * %u + i] = m%d[i * %u + j];", r, c, u, r,
                  u, c);
        line(g);
        sb_printf(&g->out, "s%d = t%d[%u] + t%d[0]; free(m%d); free(t%d);", u, u, (r * c) / 2, u, u, u);
        break;
    }
    case 9: /* digits parsed from the data (an int that may overflow) */
        sb_printf(&g->out, "{ int v = 0; for (int i = 0; i < n%d; i++) { int ch = d%d[i] & %u; if (ch < 10) v = v * 10 + ch; else { s%d += v; v = 0; } }"
                           " s%d += v; }", u, u, pick(g, 2) ? 15 : 31, u, u);
        break;
    case 10: /* RGB to gray over the data's bytes, into a buffer maybe one short */
        sb_printf(&g->out, "{ unsigned char *rgb = (unsigned char *)d%d; int np = (int)(n%d * sizeof(%s)) / 3;"
                           " unsigned char *gy = (unsigned char *)malloc(np + 1);", u, u, dt);
        line(g);
        sb_printf(&g->out, "  for (int i = 0; i < np%s; i++) gy[i] = (unsigned char)((77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2]) >> 8);",
                  pick(g, 6) ? "" : " + 2");
        line(g);
        sb_printf(&g->out, "  for (int i = 0; i < np; i++) s%d += gy[i] * (i %% 5); free(gy); }", u);
        break;
    case 11: /* numbers parsed through a moving pointer */
        sb_printf(&g->out, "{ char *b = (char *)malloc(n%d + 1); for (int i = 0; i < n%d; i++) b[i] = (d%d[i] & 7) == 7 ? ',' : (char)('0' + (d%d[i] & 7));"
                           " b[n%d] = %s;", u, u, u, u, u, pick(g, 8) ? "0" : "'1'");
        line(g);
        sb_printf(&g->out, "  for (char *p = b; *p; ) { long v = 0; while (*p >= '0' && *p <= '9') { v = v * 10 %% 1000003 + (*p - '0'); p++; }"
                           " s%d += v; if (*p) p++; } free(b); }", u);
        break;
    default: /* near a chunk's length, a break */
        sb_printf(&g->out, "for (int i = 0; i < n%d; i++) { if (d%d[i] == %d && i > %u) break; s%d += d%d[i]; }", u, u,
                  (int)pick(g, 100), 4000 + pick(g, 200), u, u);
        break;
    }
    line(g);
    sb_printf(&g->out, "printf(\"%%ld\\n\", s%d); free(d%d); }", u, u);
}

static void stmts(gen_t *g, int d, int max) {
    for (unsigned i = 0, n = 1 + pick(g, (unsigned)max); i < n; i++) stmt(g, d, false);
}

static void func_def(gen_t *g) {
    int saved = g->nvars;
    sb_printf(&g->out, "int f%d_%d(int ", g->prog, g->nfuncs);
    emit(g, fresh(g, V_INT, false));
    emit(g, ", int ");
    emit(g, fresh(g, V_INT, false));
    emit(g, ") {");
    g->in_func = true;
    g->indent++;
    stmts(g, 1, 4);
    line(g);
    emit(g, "return ");
    int_expr(g, 1);
    emit(g, ";");
    g->indent--;
    g->in_func = false;
    emit(g, "\n}\n");
    g->nvars = saved;
    g->nfuncs++;
}

/* The program the bytes choose (malloc'd). */
static char *generate(const uint8_t *data, size_t n) {
    static unsigned prog_no;
    gen_t g = {.p = data, .n = n, .prog = (int)(prog_no++ % 1000)};
    if (pick(&g, 2)) {
        sb_printf(&g.out, "struct S%d { int a; double b; int c[2]; };\n", g.prog);
        g.have_struct = true;
    }
    for (unsigned i = 0, k = pick(&g, 3); i < k; i++) func_def(&g);
    /* the helper kinds_stmt's loops call: it reads through a pointer */
    sb_printf(&g.out, "long hr%d(const void *p, int i, int k) { const unsigned char *b = (const unsigned char *)p; return b[i] * k - 1; }\n",
              g.prog);
    stmts(&g, 0, 8);
    if (pick(&g, 2)) { /* a last expression without ';': its value is displayed */
        line(&g);
        if (pick(&g, 2)) int_expr(&g, 1);
        else dbl_expr(&g, 1);
    }
    sb_putc(&g.out, '\n');
    return sb_take(&g.out);
}

#endif
