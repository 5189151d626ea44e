/* Line maps of compiled modules (device_lines.h). A session keeps at most
 * MAX_UNITS of them, the oldest dropped first. */
#include "device_lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_session.h"

#include "runtime/base/xalloc.h"
#define MAX_UNITS 256

typedef struct {
    char hex[65];
    char *text;
    line_span_t *map;
    int n;
} unit_lines_t;

struct device_lines {
    unit_lines_t units[MAX_UNITS];
    int nunits;
    unit_lines_t pending;
};

static void unit_clear(unit_lines_t *u) {
    free(u->text);
    free(u->map);
    memset(u, 0, sizeof *u);
}

void device_lines_free(device_lines_t *d) {
    if (!d) return;
    for (int i = 0; i < d->nunits; i++) unit_clear(&d->units[i]);
    unit_clear(&d->pending);
    free(d);
}

static device_lines_t *get(device_lines_t **d) {
    if (!*d) *d = xcalloc(1, sizeof **d);
    return *d;
}

static void fill(unit_lines_t *u, const char *text, const line_span_t *map, int n, const char *this_label,
                 const char *cell) {
    u->text = xstrdup(text ? text : "");
    u->map = n > 0 ? xmalloc((size_t)n * sizeof *map) : NULL;
    u->n = n;
    for (int i = 0; i < n; i++) {
        u->map[i] = map[i];
        if (this_label && cell && !strcmp(map[i].label, this_label))
            snprintf(u->map[i].label, sizeof u->map[i].label, "%s", cell);
    }
}

void device_lines_put(device_lines_t **dp, const char *hex, const char *text, const line_span_t *map, int n,
                      const char *this_label, const char *cell) {
    device_lines_t *d = get(dp);
    unit_lines_t *u = NULL;
    for (int i = 0; i < d->nunits; i++)
        if (!strcmp(d->units[i].hex, hex)) u = &d->units[i];
    if (u) unit_clear(u);
    else if (d->nunits < MAX_UNITS) u = &d->units[d->nunits++];
    else {
        unit_clear(&d->units[0]);
        memmove(&d->units[0], &d->units[1], (MAX_UNITS - 1) * sizeof d->units[0]);
        u = &d->units[MAX_UNITS - 1];
        memset(u, 0, sizeof *u);
    }
    snprintf(u->hex, sizeof u->hex, "%s", hex);
    fill(u, text, map, n, this_label, cell);
}

void device_lines_pending(device_lines_t **dp, const char *text, const line_span_t *map, int n) {
    device_lines_t *d = get(dp);
    unit_clear(&d->pending);
    fill(&d->pending, text, map, n, NULL, NULL);
}

void device_lines_claim(device_lines_t **dp, const char *hex, const char *source) {
    device_lines_t *d = *dp;
    if (!d || !d->pending.text || !source || strcmp(d->pending.text, source)) return;
    device_lines_put(dp, hex, d->pending.text, d->pending.map, d->pending.n, NULL, NULL);
}

bool device_lines_lookup(const device_lines_t *d, const char *hex, int unit_line, char *cell, size_t cell_cap,
                         int *cell_line, char *text, size_t text_cap) {
    if (!d || !hex || unit_line <= 0) return false;
    const unit_lines_t *u = NULL;
    for (int i = 0; i < d->nunits; i++)
        if (!strcmp(d->units[i].hex, hex)) u = &d->units[i];
    if (!u) return false;
    const line_span_t *span = NULL;
    for (int i = 0; i < u->n; i++)
        if (unit_line >= u->map[i].tu_first && unit_line < u->map[i].tu_first + u->map[i].n) span = &u->map[i];
    if (!span) return false;
    if (cell) snprintf(cell, cell_cap, "%s", span->label);
    if (cell_line) *cell_line = span->cell_first + unit_line - span->tu_first;
    if (text && text_cap) {
        text[0] = 0;
        const char *p = u->text;
        for (int l = 1; l < unit_line && p; l++) {
            p = strchr(p, '\n');
            if (p) p++;
        }
        if (p) {
            const char *eol = strchr(p, '\n');
            size_t len = eol ? (size_t)(eol - p) : strlen(p);
            if (len >= text_cap) len = text_cap - 1;
            memcpy(text, p, len);
            text[len] = 0;
        }
    }
    return true;
}

bool device_unit_line(device_session_t *ds, const char *hex, int unit_line, char *cell, size_t cell_cap, int *cell_line,
                      char *text, size_t text_cap) {
    return device_lines_lookup(ds->lines, hex, unit_line, cell, cell_cap, cell_line, text, text_cap);
}
