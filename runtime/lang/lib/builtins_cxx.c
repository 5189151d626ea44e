/* What the C++ of host cells needs at run time: new and delete (buffers that
 * remember which of new, new[] or malloc made them), a top-level `return N;`
 * (main's body as a cell) and main's argv. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib.h"

#define ARG(i) (c->list[i])

static val_t b_new(node_t *c, val_t *a, int n, frame_t *f) {
    uint64_t count = a[0].u, size = a[1].u, total;
    if ((int64_t)count < 0) rt_error(ARG(0), "new[] with a negative length (%lld)", (long long)a[0].i);
    if (__builtin_mul_overflow(count, size, &total) || total > ((uint64_t)1 << 36))
        rt_error(c, "new cannot allocate %llu bytes (std::bad_alloc)", (unsigned long long)total);
    uint64_t p = mem_alloc(total, PLACE_HEAP, NULL, &c->loc);
    if (!p) rt_error(c, "new cannot allocate %llu bytes: the host arena is full (std::bad_alloc)", (unsigned long long)total);
    buf_t *b = &g_bufs[ptr_slot(p)];
    b->alloc = (uint8_t)a[2].i;
    if (a[3].i) memset(b->base, 0, total);
    return (val_t){.u = p};
}

static val_t b_delete(node_t *c, val_t *a, int n, frame_t *f) {
    mem_release(a[0].u, (int)a[1].i, ARG(0));
    return (val_t){.u = 0};
}

/* `return N;` at the top of a cell ends the cell as the end of main would:
 * 0 quietly, anything else as an error that says so. */
static val_t b_cell_return(node_t *c, val_t *a, int n, frame_t *f) {
    int v = (int)a[0].i;
    if (v == 0) {
        g_in->exit_code = 0;
        g_in->exited = true;
        lang_raise("__exit__", &c->loc, "return 0");
    }
    lang_raise("RuntimeError", &c->loc, "the cell returned %d: a program's main would have exited with status %d "
               "(a failure); the session goes on", v, v);
}

/* argv as a program run without arguments has it: {"icuda", NULL}. */
static val_t b_argv(node_t *c, val_t *a, int n, frame_t *f) {
    static const char name[] = "icuda";
    if (g_in->argv_word && ptr_valid(g_in->argv_word)) return (val_t){.u = g_in->argv_word};
    uint64_t s = mem_alloc(sizeof name, PLACE_GLOBAL, "argv[0]", &c->loc);
    uint64_t v = mem_alloc(2 * sizeof(uint64_t), PLACE_GLOBAL, "argv", &c->loc);
    if (!s || !v) rt_error(c, "no room for argv");
    memcpy(g_bufs[ptr_slot(s)].base, name, sizeof name);
    uint64_t words[2] = {s, 0};
    memcpy(g_bufs[ptr_slot(v)].base, words, sizeof words);
    g_in->argv_word = v;
    return (val_t){.u = v};
}

/* std::sort's work: n elements of size bytes, compared as kind says
 * (1 signed, 2 unsigned, 3 floating: the element's type in the template). */
static int sort_kind, sort_size;
static int cmp_elems(const void *a, const void *b) {
    if (sort_kind == 3) {
        double x = sort_size == 4 ? *(const float *)a : *(const double *)a;
        double y = sort_size == 4 ? *(const float *)b : *(const double *)b;
        return (x > y) - (x < y);
    }
    uint64_t ux = 0, uy = 0;
    memcpy(&ux, a, (size_t)sort_size);
    memcpy(&uy, b, (size_t)sort_size);
    if (sort_kind == 1) {
        int sh = 64 - 8 * sort_size;
        int64_t x = (int64_t)(ux << sh) >> sh, y = (int64_t)(uy << sh) >> sh;
        return (x > y) - (x < y);
    }
    return (ux > uy) - (ux < uy);
}
static val_t b_sort(node_t *c, val_t *a, int n, frame_t *f) {
    int64_t cnt = a[1].i, size = a[2].i;
    int kind = (int)a[3].i;
    if (cnt < 0) rt_error(c, "std::sort: the range ends before it starts");
    if (cnt <= 1) return (val_t){.u = 0};
    if (kind == 0 || size > 8) rt_error(c, "std::sort of these elements needs a comparison; sort numbers, or use qsort");
    char *base = mem_at(a[0].u, (uint64_t)(cnt * size), 1, ARG(0));
    sort_kind = kind;
    sort_size = (int)size;
    qsort(base, (size_t)cnt, (size_t)size, cmp_elems);
    return (val_t){.u = 0};
}

const char *builtin_cxx_prototypes(void) {
    return "void *__icuda_new(unsigned long, unsigned long, int, int); void __icuda_delete(void *, int);\n"
           "void __icuda_cell_return(int); char **__icuda_argv(void);\n"
           "void __icuda_sort(void *, long, long, int); int __icuda_kind(int);\n"
           "int __icuda_chan_bits(int, int); int __icuda_chan_kind(int);\n";
}

void builtins_cxx_register(interp_t *in) {
    builtin_add(in, "__icuda_new", b_new, 0);
    builtin_add(in, "__icuda_delete", b_delete, 0);
    builtin_add(in, "__icuda_cell_return", b_cell_return, BF_NORETURN);
    builtin_add(in, "__icuda_argv", b_argv, 0);
    builtin_add(in, "__icuda_sort", b_sort, 0);
    builtin_add(in, "__icuda_kind", NULL, 0);
    builtin_add(in, "__icuda_chan_bits", NULL, 0); /* cudaCreateChannelDesc<T>, read at parse time */
    builtin_add(in, "__icuda_chan_kind", NULL, 0);
}
