/* A native cell's translation unit (native_unit.h): what it can see of the
 * session, then the cell, rewritten so that loading the object runs it.
 *
 * The cell's declarations stay at namespace scope, so that they are
 * globals later cells can reach; its statements become functions, each
 * called by the dynamic initialiser of a variable placed where the
 * statements stood, so that initialisers and statements run in the cell's
 * order when the object is loaded (after nvcc's constructor registered the
 * object's kernels: it comes first in .init_array). Every piece carries a
 * #line naming the cell and line it came from, so nvcc's messages are at
 * the notebook's lines. */
#include "native_unit.h"

#include "native_closure.h"
#include "native_launch.h"
#include "native_select.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"
#include "runtime/program/nvcc_pch.h"

/* What every native cell's object starts with: the worker's registry and
 * the runner of the cell's statements. */
static const char header[] =
    "#line 1 \"<icuda>\"\n"
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
    "#include <typeinfo>\n"
    "#include <cxxabi.h>\n"
    "#include <exception>\n"
    "#include <type_traits>\n"
    "#include <cuda_runtime.h>\n"
    "extern \"C\" {\n"
    "int icuda_native_register(const char *, void *, const char *, int, int);\n"
    "void *icuda_native_lookup(const char *);\n"
    "int icuda_native_failed(void);\n"
    "void icuda_native_fail(const char *, const char *);\n"
    "void icuda_native_returned(int);\n"
    "}\n"
    "namespace icuda_native {\n"
    "inline char *type_name(const char *mangled) {\n"
    "    int st = 0;\n"
    "    char *d = abi::__cxa_demangle(mangled, nullptr, nullptr, &st);\n"
    "    return d;\n"
    "}\n"
    "template <class T> inline int reg(const char *name, T &x) {\n"
    "    char *d = type_name(typeid(T).name());\n"
    "    icuda_native_register(name, (void *)&x, d ? d : typeid(T).name(), std::is_const<T>::value, 0);\n"
    "    std::free(d);\n"
    "    return 0;\n"
    "}\n"
    "inline int reg_kernel(const char *key, const void *stub) {\n"
    "    return icuda_native_register(key, (void *)stub, \"\", 0, 1);\n"
    "}\n"
    "inline void *need(const char *name, const char *cell) {\n"
    "    void *p = icuda_native_lookup(name);\n"
    "    if (!p) {\n"
    "        std::fprintf(stderr, \"icuda: %s (made by %s) is not in this GPU worker\\n\", name, cell);\n"
    "        std::abort();\n"
    "    }\n"
    "    return p;\n"
    "}\n"
    "template <class T> inline int device_alias(T *&dv, T &x, bool managed, const char *name) {\n"
    "    void *a = (void *)&x; /* a managed variable's host side is its memory */\n"
    "    cudaError_t r = managed ? cudaSuccess : cudaGetSymbolAddress(&a, x);\n"
    "    if (r == cudaSuccess) r = cudaMemcpyToSymbol(dv, &a, sizeof a);\n"
    "    if (r != cudaSuccess) {\n"
    "        std::fprintf(stderr, \"icuda: device code of this cell cannot reach %s: %s\\n\", name, cudaGetErrorString(r));\n"
    "        cudaGetLastError();\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "inline void *kernel_later(const char *key, const char *name) {\n"
    "    void *p = icuda_native_lookup(key);\n"
    "    if (!p) std::fprintf(stderr, \"icuda: kernel %s is declared, but no cell has defined it yet\\n\", name);\n"
    "    return p;\n"
    "}\n"
    "const int ran_on = -2147483647 - 1; /* a run of statements that ended without a return */\n"
    "template <class F> inline int run(F body) {\n"
    "    if (icuda_native_failed()) return 0;\n"
    "    try {\n"
    "        int r = body();\n"
    "        if (r != ran_on) icuda_native_returned(r);\n"
    "    } catch (const std::exception &e) {\n"
    "        char *d = type_name(typeid(e).name());\n"
    "        icuda_native_fail(d ? d : typeid(e).name(), e.what());\n"
    "        std::free(d);\n"
    "    } catch (...) {\n"
    "        icuda_native_fail(\"exception\", \"an exception that is not a std::exception\");\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "}\n"
    "#pragma nv_diag_suppress 177\n"; /* the statements' runners are never used by name */

static void line(strbuf_t *b, int n, const char *cell) { sb_printf(b, "\n#line %d \"%s\"\n", n, cell); }

/* Whether text holds name as a whole identifier. */
static bool has_word(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        bool before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after) return true;
    }
    return false;
}

/* text[0, n) with launches and device references rewritten (native_launch.h). */
static void emit(strbuf_t *b, const char *text, size_t n, const native_defaulted_list_t *dk, const native_names_t *dv) {
    if (!dv->n) {
        native_launch_append(b, text, n, dk);
        return;
    }
    strbuf_t t = {0};
    native_launch_append(&t, text, n, dk);
    native_devref_append(b, t.data ? t.data : "", t.len, dv);
    free(t.data);
}

/* What a capture-default of a lambda the unit turns into a class copies:
 * the variables it sees at namespace scope (native_closure.h). */
typedef struct {
    const native_session_t *ns;
    int live;
    const native_items_t *items;
    const native_bounds_t *bounds;
} unit_vars_t;
static bool unit_variable(void *ctx, const char *name);

/* A repeated item's text: a __device__ lambda main holds as its class. */
static void repeat(strbuf_t *b, const char *text, size_t n, int first_line, const char *cell, bool earlier,
                   const native_defaulted_list_t *dk, const native_names_t *dv, const unit_vars_t *uv) {
    strbuf_t c = {0};
    char name[128];
    native_closure_name(text, n, name, sizeof name);
    /* an earlier cell's lambda is the object it made, while its worker lives */
    const native_global_t *g = earlier && name[0] ? native_session_global(uv->ns, name) : NULL;
    const char *made_in = g && !g->is_kernel && g->worker == uv->live ? g->cell : NULL;
    if (name[0] && native_closure_append(&c, text, n, first_line, cell, made_in, unit_variable, (void *)uv)) {
        emit(b, c.data, c.len, dk, dv);
        free(c.data);
        return;
    }
    line(b, first_line, cell);
    emit(b, text, n, dk, dv);
}

/* Whether the declaration text makes a __managed__ variable. */
static bool managed_declaration(const char *text) {
    size_t n = strcspn(text, "={(");
    const char *m = strstr(text, "__managed__");
    return m && (size_t)(m - text) < n;
}

/* A kernel's prototype ("proto:NAME"): the key its definition has
 * ("fn:NAME") into fn. */
static bool prototyped_kernel(const char *key, char *fn, size_t cap) {
    if (strncmp(key, "proto:", 6)) return false;
    snprintf(fn, cap, "fn:%s", key + 6);
    return true;
}

/* Whether the live worker holds the kernel of key fn. */
static bool in_worker(const native_session_t *ns, int live, const char *fn) {
    const native_global_t *g = native_session_global(ns, fn);
    return g && g->worker == live;
}

/* A kernel's prototype ("proto:NAME") whose definition neither the cell nor
 * an earlier cell has made: a program's kernel defined after main, in a
 * later cell. Launches through it look the kernel up when they run, so the
 * cell links, and runs until such a launch. */
static bool kernel_pending(const native_session_t *ns, int live, const native_items_t *items, const char *dev,
                           const char *key) {
    char fn[160];
    if (!prototyped_kernel(key, fn, sizeof fn) || native_items_have_key(items, fn)) return false;
    if (dev && has_word(dev, key + 6)) return false; /* a device cell's kernel: the unit compiles a copy */
    for (size_t i = 0; i < ns->prelude.n; i++)
        if (ns->prelude.v[i].kind == NI_KERNEL && !strcmp(ns->prelude.v[i].key, fn)) return false;
    return !in_worker(ns, live, fn);
}

static void kernel_later(strbuf_t *b, const char *key) {
    const char *name = key + 6;
    sb_printf(b, "#line 1 \"<icuda>\"\n#define %s (reinterpret_cast<decltype(&%s)>(icuda_native::kernel_later(\"fn:%s\", "
                 "\"%s\")))\n", name, name, name, name);
}

/* A function's prototype and nothing more: it stays before the cell that
 * defines the function, whose code may call it above its definition (a
 * program's functions defined after main, main's body above them). */
static bool prototype_only(const native_entry_t *e) {
    if (e->kind != NI_REPEAT || strncmp(e->key, "fn:", 3) || !e->text || strchr(e->text, '{')) return false;
    size_t n = strlen(e->text);
    while (n && isspace((unsigned char)e->text[n - 1])) n--;
    return n && e->text[n - 1] == ';';
}

/* The same prototype after its kernel is in the worker: the kernel's entry
 * declares the name as a pointer to the defining cell's stub. */
static bool kernel_known(const native_session_t *ns, int live, const native_items_t *items, const char *key) {
    char fn[160];
    if (!prototyped_kernel(key, fn, sizeof fn)) return false;
    if (native_items_have_key(items, fn)) return false; /* defined again here, below its prototype */
    return in_worker(ns, live, fn);
}

/* A C identifier made of a key: for the names this file invents. */
static void ident_of(const char *key, char *out, size_t cap) {
    size_t o = 0;
    for (const char *p = key; *p && o + 1 < cap; p++) out[o++] = (char)(((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_');
    out[o] = 0;
}

/* The # lines of rank (native_pp_rank) of the earlier cells, then of this
 * one (ranks 0 and 1: configuration macros and #includes). */
static void pp_lines(const native_session_t *ns, const native_selection_t *sel, const char *code,
                     const native_items_t *items, const int *ranks, const char *cell, int rank, strbuf_t *b) {
    for (size_t i = 0; i < ns->prelude.n; i++) {
        const native_entry_t *e = &ns->prelude.v[i];
        if (e->kind != NI_PP || e->pp_rank != rank || !sel->prelude[i]) continue;
        line(b, e->first_line, e->cell);
        sb_puts(b, e->text);
        sb_putc(b, '\n');
    }
    for (size_t i = 0; i < items->n && rank < 2; i++) { /* this cell's others stand where they are */
        const native_item_t *it = &items->v[i];
        if (it->kind != NI_PP || ranks[i] != rank) continue;
        line(b, it->first_line, cell);
        sb_append(b, code + it->start, it->end - it->start);
        sb_putc(b, '\n');
    }
}

/* What interpreted cells defined that the cell takes (native_select.h):
 * #includes among the first lines, types and functions before the earlier
 * native cells' things. */
static void host_side(const native_session_t *ns, const native_selection_t *sel, strbuf_t *includes, strbuf_t *b) {
    for (size_t i = 0; i < ns->host.n; i++) {
        if (!sel->host[i]) continue;
        const native_entry_t *e = &ns->host.v[i];
        strbuf_t *to = e->kind == NI_PP ? includes : b;
        line(to, e->first_line, e->cell);
        sb_puts(to, e->text);
        sb_putc(to, '\n');
    }
}

/* Whether a later unit reaches the earlier cell's kernel e through a
 * reference to its host stub (the worker that holds it is the live one). */
static bool kernel_by_reference(const native_session_t *ns, int live, const native_entry_t *e) {
    const native_global_t *g = native_session_global(ns, e->key);
    return g && g->worker == live && e->params && e->nnames;
}

/* The earlier cells' kernels the unit reaches by reference that have
 * default arguments (native_launch.h). */
static void defaulted_kernels(const native_session_t *ns, const native_selection_t *sel, int live,
                              const native_items_t *items, native_defaulted_list_t *out) {
    for (size_t i = 0; i < ns->prelude.n; i++) {
        const native_entry_t *e = &ns->prelude.v[i];
        if (e->kind != NI_KERNEL || !e->defaults || !sel->prelude[i] || native_items_have_key(items, e->key) ||
            !kernel_by_reference(ns, live, e))
            continue;
        VEC_PUSH(*out, ((native_defaulted_t){e->names[0], e->nparams, e->defaults}));
    }
}

/* The earlier cells' things, in their order, but for what this cell
 * defines again (its own definition stands; a cell run again is one). */
static void prelude(const native_session_t *ns, const native_selection_t *sel, int live, const native_items_t *items,
                    const char *dev, const native_defaulted_list_t *dk, native_names_t *dv, const unit_vars_t *uv,
                    strbuf_t *b) {
    for (size_t i = 0; i < ns->prelude.n; i++) {
        const native_entry_t *e = &ns->prelude.v[i];
        if (e->kind == NI_PP || !sel->prelude[i] || (native_items_have_key(items, e->key) && !prototype_only(e)))
            continue; /* # lines: pp_lines */
        switch (e->kind) {
        case NI_PP:
        case NI_REPEAT:
            if (kernel_known(ns, live, items, e->key)) break;
            repeat(b, e->text, strlen(e->text), e->first_line, e->cell, true, dk, dv, uv);
            sb_putc(b, '\n');
            if (kernel_pending(ns, live, items, dev, e->key)) kernel_later(b, e->key);
            break;
        case NI_KERNEL: {
            if (!kernel_by_reference(ns, live, e)) { /* launching it fails to link: said then */
                line(b, e->first_line, e->cell);
                sb_puts(b, e->text);
                sb_putc(b, '\n');
                break;
            }
            /* the kernel is the defining cell's host stub, the function
             * the CUDA runtime registered: launches, occupancy and
             * attributes all take it, and launch its one copy; a reference
             * to it, so that &name is a pointer to the kernel as in the
             * defining cell (a table of kernels, kernel = &name) */
            sb_printf(b, "#line 1 \"<icuda>\"\nstatic void (&%s)(%s) = *reinterpret_cast<void (*)(%s)>("
                         "icuda_native::need(\"%s\", \"%s\"));\n", e->names[0], e->params, e->params, e->key, e->cell);
            break;
        }
        case NI_VARIABLE:
        case NI_DEVICE_VAR:
            for (int n = 0; n < e->nnames; n++) {
                const native_global_t *g = native_session_global(ns, e->names[n]);
                if (!g || g->worker != live || !native_type_spellable(g->type) || native_items_define(items, g->name))
                    continue;
                char id[96];
                ident_of(g->name, id, sizeof id);
                sb_printf(b, "#line 1 \"<icuda>\"\nusing icuda_t_%s = %s;\n", id, g->type);
                sb_printf(b, "static %sicuda_t_%s &%s = *static_cast<%sicuda_t_%s *>(icuda_native::need(\"%s\", \"%s\"));\n",
                          g->is_const ? "const " : "", id, g->name, g->is_const ? "const " : "", id, g->name, g->cell);
                if (e->kind != NI_DEVICE_VAR || strcmp(id, g->name)) continue;
                /* device code reaches it through its device address, in a
                 * pointer of this unit's set as the object is loaded */
                const char *c = g->is_const ? "const " : "";
                sb_printf(b, "__device__ %sicuda_t_%s *icuda_dv_%s;\n"
                             "static int icuda_dva_%s = icuda_native::device_alias(icuda_dv_%s, %s, %s, \"%s\");\n"
                             "#ifdef __CUDA_ARCH__\n#define icuda_dev_%s (*icuda_dv_%s)\n#else\n#define icuda_dev_%s %s\n#endif\n",
                          c, id, id, id, id, id, managed_declaration(e->text) ? "true" : "false", id, id, id, id, id);
                VEC_PUSH(*dv, g->name);
            }
            break;
        case NI_STATEMENT:
        case NI_SHARED: break;
        }
    }
}

bool native_type_spellable(const char *type) {
    return type && *type && !strstr(type, "{lambda") && !strstr(type, "(anonymous namespace)") &&
           !strstr(type, "{unnamed") && !strstr(type, "::{") && !strchr(type, '$');
}

/* The cell itself: declarations where they stand, registered after
 * themselves; runs of statements wrapped in one function each. */
/* What an item runs among the cell's statements: a statement itself, or
 * the initialisations of a variable the interpreter holds; NULL for a
 * declaration. */
static bool runs(const native_item_t *it) { return it->kind == NI_STATEMENT || it->kind == NI_SHARED; }

/* main's locals become the cell's variables, the session's when bound: in
 * namespace MAIN_NS, with the cell's statements, they are found before what
 * a using-directive brings (int size beside using namespace std is no
 * ambiguity with std::size, as a local of main is none); the global
 * using-directive after them lets the cell's functions see them too. */
#define MAIN_NS "icuda_main"

/* Whether the variable is defined by a qualified name (int Counter::n = 0;),
 * which only its class's enclosing namespace may define. */
static bool qualified_definition(const char *text, size_t n, const char *name) {
    size_t len = strlen(name);
    for (size_t i = 2; i + len <= n; i++) {
        if (text[i] == '=' || text[i] == '{' || text[i] == ';') break;
        if (text[i - 1] == ':' && text[i - 2] == ':' && !strncmp(text + i, name, len) &&
            !(i + len < n && (isalnum((unsigned char)text[i + len]) || text[i + len] == '_')))
            return true;
    }
    return false;
}

/* Whether one of the cell's items before end declares name as a variable. */
static bool variable_before(const native_items_t *items, size_t end, const char *name) {
    for (size_t i = 0; i < end; i++)
        for (int k = 0; k < items->v[i].nnames; k++)
            if ((items->v[i].kind == NI_VARIABLE || items->v[i].kind == NI_SHARED) && !strcmp(items->v[i].names[k], name))
                return true;
    return false;
}

/* main's locals are the unit's globals, which a lambda cannot capture
 * ([&count] given to std::thread, [=] of a __device__ lambda that reads a
 * pointer): the function of a run of statements [from, to) shadows those its
 * lambdas name with local references, which they capture as main's. */
static void shadow_captured(const native_session_t *ns, int live, const char *code, const native_items_t *items,
                            size_t from, size_t to, strbuf_t *b) {
    strbuf_t done = {0};
    for (size_t i = from; i < to; i++) {
        char **names = items->v[i].kind == NI_STATEMENT ? native_items_lambda_names(code, &items->v[i]) : NULL;
        for (char **p = names; p && *p; p++) {
            const native_global_t *g = native_session_global(ns, *p);
            if (!variable_before(items, to, *p) && !(g && g->worker == live && native_type_spellable(g->type)))
                continue;
            char key[160];
            snprintf(key, sizeof key, " %s ", *p);
            if (done.data && strstr(done.data, key)) continue;
            sb_puts(&done, key);
            /* through a pointer: a reference bound to a global outright is a constant, which a lambda
             * does not capture but names as the global */
            sb_printf(b, "\nauto *icuda_ref_%s = __builtin_addressof(%s); [[maybe_unused]] auto &%s = *icuda_ref_%s;", *p, *p,
                      *p, *p);
        }
        native_strv_free(names);
    }
    free(done.data);
}

static void cell_body(const native_session_t *ns, int live, const char *dev, const char *code,
                      const native_items_t *items, const int *ranks, const char *cell,
                      const native_defaulted_list_t *dk, const native_names_t *dv, const unit_vars_t *uv,
                      strbuf_t *b) {
    int k = 0;
    strbuf_t kernels = {0};
    for (size_t i = 0; i < items->n;) {
        const native_item_t *it = &items->v[i];
        if (runs(it)) {
            sb_printf(b, "\n#line 1 \"<icuda>\"\nnamespace " MAIN_NS " {\nint icuda_run_%d(void) {", k);
            size_t end = i;
            while (end < items->n && runs(&items->v[end])) end++;
            shadow_captured(ns, live, code, items, i, end, b);
            for (; i < items->n && runs(&items->v[i]); i++) {
                const native_item_t *s = &items->v[i];
                if (s->kind == NI_SHARED && !s->share_init) continue;
                line(b, s->first_line, cell);
                if (s->kind == NI_SHARED) sb_puts(b, s->share_init);
                else emit(b, code + s->start, s->end - s->start, dk, dv);
            }
            sb_printf(b, "\n#line 1 \"<icuda>\"\nreturn icuda_native::ran_on; }\nstatic int icuda_ran_%d = "
                         "icuda_native::run(icuda_run_%d);\n}\n", k, k);
            k++;
            continue;
        }
        if (it->kind == NI_PP && ranks[i] < 2) { /* already at the top: pp_lines */
            i++;
            continue;
        }
        if (kernel_known(ns, live, items, it->key)) { /* declared by the prelude */
            i++;
            continue;
        }
        bool in_ns = it->kind == NI_VARIABLE && it->nnames &&
                     !qualified_definition(code + it->start, it->end - it->start, it->names[0]);
        if (in_ns) sb_puts(b, "\n#line 1 \"<icuda>\"\nnamespace " MAIN_NS " {");
        line(b, it->first_line, cell);
        if (it->kind == NI_VARIABLE && it->lambda_init_end && it->nnames == 1) {
            /* nvcc takes an extended lambda only in a function whose type is not deduced: the
             * initialiser runs from one returning the variable's type, declared first */
            size_t eq = it->lambda_init, init = eq + 1;
            sb_puts(b, "extern ");
            emit(b, code + it->start, eq - it->start, dk, dv);
            sb_printf(b, ";\nstatic decltype(%s) icuda_init_%d() { return (", it->names[0], k);
            int at = it->first_line;
            for (size_t c = it->start; c < init; c++) at += code[c] == '\n';
            line(b, at, cell);
            emit(b, code + init, it->lambda_init_end - init, dk, dv);
            sb_puts(b, "); }");
            line(b, it->first_line, cell);
            emit(b, code + it->start, init - it->start, dk, dv);
            sb_printf(b, " icuda_init_%d()", k);
            emit(b, code + it->lambda_init_end, it->end - it->lambda_init_end, dk, dv);
        } else if (it->kind == NI_REPEAT) {
            repeat(b, code + it->start, it->end - it->start, it->first_line, cell, false, dk, dv, uv);
        } else {
            emit(b, code + it->start, it->end - it->start, dk, dv);
        }
        sb_puts(b, "\n#line 1 \"<icuda>\"\n");
        if (it->kind == NI_VARIABLE || it->kind == NI_DEVICE_VAR)
            for (int n = 0; n < it->nnames; n++)
                sb_printf(b, "static int icuda_reg_%d_%d = icuda_native::reg(\"%s\", %s);\n", k, n, it->names[n], it->names[n]);
        if (in_ns) sb_puts(b, "}\nusing namespace " MAIN_NS ";\n");
        if (kernel_pending(ns, live, items, dev, it->key)) kernel_later(b, it->key);
        if (it->kind == NI_KERNEL && it->nnames)
            sb_printf(&kernels, "    icuda_native::reg_kernel(\"%s\", (const void *)%s);\n", it->key, it->names[0]);
        k++;
        i++;
    }
    /* the cell's kernels are in the registry before its statements run, which
     * may launch one defined below them through an earlier cell's function */
    if (kernels.len)
        sb_printf(b, "\n#line 1 \"<icuda>\"\nstatic void __attribute__((constructor(101))) icuda_reg_kernels(void) {\n%s}\n",
                  kernels.data);
    free(kernels.data);
}

/* The interpreter's variables that the cell, or a function it takes,
 * names, and that no native cell made, bound where they live. */
static void session_variables(const native_session_t *ns, const native_selection_t *sel, const char *code,
                              const char *host, const native_items_t *items, native_bounds_t *bounds, strbuf_t *b) {
    strbuf_t uses = {0};
    sb_puts(&uses, code);
    sb_putc(&uses, '\n');
    if (host) sb_puts(&uses, host);
    /* and what the earlier native cells' functions it takes name: a
     * native cell's numbers are the interpreter's variables */
    for (size_t i = 0; i < ns->prelude.n; i++)
        if (sel->prelude[i] && ns->prelude.v[i].kind == NI_REPEAT && ns->prelude.v[i].text) {
            sb_putc(&uses, '\n');
            sb_puts(&uses, ns->prelude.v[i].text);
        }
    char **ids = native_identifiers(uses.data);
    free(uses.data);
    bool any = false;
    for (char **p = ids; *p; p++) {
        if (native_session_defines(ns, *p) || native_session_global(ns, *p) || native_items_define(items, *p)) continue;
        native_binding_t v;
        if (!ns->links.bind(ns->links.ctx, *p, &v)) continue;
        if (!any) sb_puts(b, "\n#line 1 \"<session variables>\"\nnamespace " MAIN_NS " {\n");
        any = true;
        if (v.pointer)
            sb_printf(b, "static %s %s = (%s)icuda_native_lookup(\"%s\");\n", v.type, *p, v.type, *p);
        else
            sb_printf(b, "using icuda_i_%s = %s;\nstatic icuda_i_%s &%s = *static_cast<icuda_i_%s *>(icuda_native::need(\"%s\", "
                         "\"the session\"));\n", *p, v.type, *p, *p, *p, *p);
        VEC_PUSH(*bounds, ((native_bound_t){xstrdup(*p), v.value}));
    }
    if (any) sb_puts(b, "}\nusing namespace " MAIN_NS ";\n");
    native_strv_free(ids);
}

/* Whether name is declared by an item of the cell, of any kind. */
static bool declared_here(const native_items_t *items, const char *name) {
    for (size_t i = 0; i < items->n; i++)
        for (int k = 0; k < items->v[i].nnames; k++)
            if (!strcmp(items->v[i].names[k], name)) return true;
    return false;
}

static bool bound(const native_bounds_t *bounds, const char *name) {
    for (size_t i = 0; i < bounds->n; i++)
        if (!strcmp(bounds->v[i].name, name)) return true;
    return false;
}

static bool unit_variable(void *ctx, const char *name) {
    const unit_vars_t *uv = ctx;
    for (size_t i = 0; i < uv->items->n; i++)
        for (int k = 0; k < uv->items->v[i].nnames; k++)
            if ((uv->items->v[i].kind == NI_VARIABLE || uv->items->v[i].kind == NI_SHARED) &&
                !strcmp(uv->items->v[i].names[k], name))
                return true;
    if (bound(uv->bounds, name)) return true;
    char key[160];
    snprintf(key, sizeof key, "var:%s", name);
    for (size_t i = 0; i < uv->ns->prelude.n; i++) {
        const native_entry_t *e = &uv->ns->prelude.v[i];
        for (int k = 0; k < e->nnames; k++) {
            if (e->kind == NI_DEVICE_VAR && !strcmp(e->names[k], name)) return false; /* no copy's to hold */
            if (e->kind == NI_REPEAT && !strncmp(e->key, "var:", 4) && !strcmp(e->names[k], name))
                return true; /* repeated whole: no worker held it */
        }
        if (e->kind == NI_REPEAT && !strcmp(e->key, key)) return true;
    }
    const native_global_t *g = native_session_global(uv->ns, name);
    return g && !g->is_kernel && g->worker == uv->live;
}

/* main's body pasted as a cell may read its arguments: a program with
 * none, for each of argc and argv that neither the cell nor the session
 * declares. */
static void program_arguments(const native_session_t *ns, const char *code, const native_items_t *items,
                              const native_bounds_t *bounds, strbuf_t *b) {
    char **used = native_identifiers(code);
    bool want[2] = {false, false};
    static const char *const names[2] = {"argc", "argv"};
    for (char **p = used; *p; p++)
        for (int k = 0; k < 2; k++)
            want[k] |= !strcmp(*p, names[k]) && !native_session_defines(ns, *p) && !declared_here(items, *p) &&
                       !bound(bounds, *p);
    native_strv_free(used);
    if (want[0] || want[1]) sb_puts(b, "\n#line 1 \"<icuda>\"\n");
    if (want[0]) sb_puts(b, "static int argc = 1;\n");
    /* main(int argc, char **argv) and main(int argc, const char **argv)
     * alike: argv goes where either is taken */
    if (want[1])
        sb_puts(b, "static char icuda_argv0[] = \"cell\";\n"
                   "static struct icuda_argv_t {\n    char *v[2];\n    operator char **() { return v; }\n"
                   "    operator const char **() { return const_cast<const char **>(v); }\n"
                   "    char *&operator[](long i) { return v[i]; }\n    char *operator*() { return v[0]; }\n"
                   "} argv = {{icuda_argv0, nullptr}};\n");
}

char *native_unit(const native_session_t *ns, int live, const char *code, const native_items_t *items,
                  const char *cell, native_bounds_t *bounds) {
    native_selection_t sel;
    native_select(ns, code, &sel);
    strbuf_t b = {0}, host = {0};
    sb_puts(&b, header);
    int *ranks = native_pp_ranks(code, items);
    pp_lines(ns, &sel, code, items, ranks, cell, 0, &b);
    host_side(ns, &sel, &b, &host);
    pp_lines(ns, &sel, code, items, ranks, cell, 1, &b);
    pp_lines(ns, &sel, code, items, ranks, cell, 2, &b);
    /* the headers end here: what is above is alike in every unit with the
     * same includes, compiled once for them all (nvcc_pch.h) */
    sb_puts(&b, "\n#line 1 \"<icuda>\"\n" NVCC_PCH_MARKER "\n");
    char *dev = NULL; /* what device cells defined, kernels among it */
    if (ns->links.device) {
        sb_puts(&b, "\n#line 1 \"<device cells>\"\n");
        size_t from = b.len;
        ns->links.device(ns->links.ctx, &b);
        dev = xstrndup(b.data + from, b.len - from);
    }
    if (ns->links.bind) session_variables(ns, &sel, code, host.data, items, bounds, &b);
    if (host.len) sb_append(&b, host.data, host.len);
    free(host.data);
    native_defaulted_list_t defaulted = {0};
    defaulted_kernels(ns, &sel, live, items, &defaulted);
    native_names_t device_vars = {0};
    unit_vars_t uv = {ns, live, items, bounds};
    prelude(ns, &sel, live, items, dev, &defaulted, &device_vars, &uv, &b);
    native_selection_free(&sel);
    program_arguments(ns, code, items, bounds, &b);
    cell_body(ns, live, dev, code, items, ranks, cell, &defaulted, &device_vars, &uv, &b);
    free(ranks);
    VEC_FREE(device_vars);
    VEC_FREE(defaulted);
    free(dev);
    return sb_take(&b);
}
