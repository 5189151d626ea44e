/* libFuzzer target: device-cell assembly (runtime/device/device_unit.c), the path
 * from a cell and the session's earlier definitions to NVRTC's source,
 * stopped before the compile (no GPU). The input is split at 0xFF bytes:
 * part 0 stands for the host constants the interpreter reports, parts 1..8
 * are cells run in order in one session, so the prelude carries over. Each
 * cell: split, build the unit, check its line map, relabel a made-up log
 * that names each span (and the cell's own text, which may say
 * "cell.cu("), keep the map, look every unit line up, remember the items. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/device/device_unit.h"
#include "runtime/lang/interp.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/cell_io.h"
#include "runtime/cell/split.h"
/* What device_pp.c and device_unit.c would ask the rest of the kernel. */
static char *constants;
char *interp_device_constants(interp_t *in) { return constants ? strdup(constants) : NULL; }
const char *device_arch(device_session_t *ds) { return "sm_90"; }
char *interp_cell_conditionals(interp_t *in, const char *code, const char *cell, int cuda_arch, const cell_io_t *io,
                               bool *decided, cell_error_t *err) {
    *decided = false;
    return strdup(code);
}

static void session_clear(device_session_t *ds) {
    for (int i = 0; i < ds->nprelude; i++) {
        free(ds->prelude[i].key);
        free(ds->prelude[i].text);
        free(ds->prelude[i].cell);
    }
    free(ds->prelude);
    device_lines_free(ds->lines);
}

static void run_cell(device_session_t *ds, const char *code, int k) {
    cell_split_t sp;
    split_cell(code, &sp);
    char cell[32];
    snprintf(cell, sizeof cell, "In [%d]", k);
    (void)device_prelude_changes(ds, code, &sp);
    device_unit_t u;
    device_unit_build(ds, code, &sp, DEVICE_THIS_CELL, &u);
    int lines = 0;
    for (const char *p = u.text; *p; p++) lines += *p == '\n';
    if (*u.text && u.text[strlen(u.text) - 1] != '\n') lines++;
    strbuf_t lg = {0};
    for (int i = 0; i < u.nmap; i++) {
        const line_span_t *s = &u.map[i];
        if (s->n < 0 || s->tu_first < 1 || s->tu_first + s->n - 1 > lines) abort();
        if (i && s->tu_first < u.map[i - 1].tu_first + u.map[i - 1].n) abort();
        sb_printf(&lg, "cell.cu(%d): warning #177-D: x\ncell.cu(%d): error: y\n", s->tu_first, s->tu_first + s->n);
    }
    sb_puts(&lg, code);
    char *rl = device_unit_relabel(sb_take(&lg), cell, &u);
    char hex[65];
    snprintf(hex, sizeof hex, "%064d", k);
    device_lines_put(&ds->lines, hex, u.text, u.map, u.nmap, DEVICE_THIS_CELL, cell);
    for (int l = 0; l <= lines + 1; l++) {
        char label[64], text[128];
        int at;
        if (device_lines_lookup(ds->lines, hex, l, label, sizeof label, &at, text, sizeof text) && !label[0]) abort();
    }
    device_unit_free(&u);
    for (size_t i = 0; i < sp.n; i++)
        if (sp.items[i].is_kernel && sp.items[i].name[0]) free(device_kernel_signature(code, &sp.items[i]));
    device_remember_items(ds, code, &sp, cell, rl);
    free(rl);
    split_free(&sp);
    free(device_prelude_source(ds));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    char *buf = malloc(n + 1);
    memcpy(buf, data, n);
    buf[n] = 0;
    device_session_t ds;
    memset(&ds, 0, sizeof ds);
    ds.interp = (interp_t *)&ds; /* only asked for constants, by the stub above */
    char *part = buf;
    int k = 0;
    for (char *p = buf;; p++) {
        if (*p && (unsigned char)*p != 0xFF) continue;
        bool last = !*p || p == buf + n;
        *p = 0;
        if (k == 0) constants = part;
        else run_cell(&ds, part, k);
        part = p + 1;
        if (last || ++k > 8) break;
    }
    constants = NULL;
    session_clear(&ds);
    free(buf);
    return 0;
}
