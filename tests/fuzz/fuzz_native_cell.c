/* libFuzzer target: a native C++ cell's text on its way to nvcc
 * (runtime/native/: its items, the prelude later cells get, the unit and
 * the launches given their default arguments), stopped before the compile.
 * The cell's text is a user's C++ and the kernel process handles it: no
 * input may crash or hang it. The input is split at 0xFF bytes into cells
 * run in order in one session; each cell's kernels and variables are then
 * registered as a GPU worker would (worker 42), so the next cell reaches
 * them by reference, and its numbers' names starting with 'v' stand for
 * interpreter variables it binds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cell/split.h"
#include "runtime/native/native_items.h"
#include "runtime/native/native_session.h"
#include "runtime/native/native_unit.h"

/* What native_session.c would ask the program layer: the fuzzer makes no files. */
void program_remove_tree(const char *dir) { (void)dir; }

static bool bind_v(void *ctx, const char *name, native_binding_t *out) {
    (void)ctx;
    if (name[0] != 'v') return false;
    snprintf(out->type, sizeof out->type, "%s", name[1] == 'p' ? "float *" : "int");
    out->value = 0x1000;
    out->pointer = name[1] == 'p';
    return true;
}

static void run_cell(native_session_t *ns, const char *code, int k) {
    char cell[32];
    snprintf(cell, sizeof cell, "In [%d]", k);
    cell_split_t sp;
    split_cell(code, &sp);
    native_items_t items;
    native_items(code, &sp, &items);
    split_free(&sp);
    char *unit_code = native_items_unit_code(code, &items);
    const char *text = unit_code ? unit_code : code;
    native_bounds_t bounds = {0};
    char *unit = native_unit(ns, 42, text, &items, cell, &bounds);
    if (!unit) abort();
    free(unit);
    native_bounds_free(&bounds);
    native_session_add_items(ns, text, &items, cell);
    for (size_t i = 0; i < items.n; i++) {
        const native_item_t *it = &items.v[i];
        if (it->kind == NI_KERNEL && it->key[0])
            native_session_add_global(ns, it->key, "", false, true, cell, 42);
        else if (it->kind == NI_VARIABLE || it->kind == NI_DEVICE_VAR)
            for (int n = 0; n < it->nnames; n++) native_session_add_global(ns, it->names[n], "int", false, false, cell, 42);
    }
    native_items_free(&items);
    free(unit_code);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    native_session_t ns;
    native_session_init(&ns);
    ns.links.bind = bind_v;
    int k = 1;
    for (size_t a = 0; a <= n && k <= 6; k++) {
        size_t b = a;
        while (b < n && data[b] != 0xFF) b++;
        char *code = strndup((const char *)data + a, b - a); /* stops at a NUL byte too */
        if (!code) abort();
        run_cell(&ns, code, k);
        free(code);
        a = b + 1;
    }
    native_session_free(&ns);
    return 0;
}
