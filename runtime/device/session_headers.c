#include "session_headers.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#include <stdlib.h>
#include <string.h>

static bool host_side(const cell_item_t *it) { return it->kind == ITEM_HOST || it->kind == ITEM_BOTH; }
static bool device_side(const cell_item_t *it) { return it->kind != ITEM_HOST && it->kind != ITEM_MAGIC; }

static const header_file_t *find(const device_session_t *ds, const char *name) {
    for (int i = 0; i < ds->nheaders; i++)
        if (!strcmp(ds->headers[i].name, name)) return &ds->headers[i];
    return NULL;
}

void session_headers_route(const device_session_t *ds, cell_split_t *sp) {
    for (size_t i = 0; i < sp->n; i++) {
        cell_item_t *it = &sp->items[i];
        if (it->is_include && it->include_route == INC_UNKNOWN && it->kind == ITEM_DEVICE && find(ds, it->name))
            it->kind = ITEM_BOTH;
    }
}

/* Both views of every header, again after each save: a header may include
 * one saved after it. */
static void make_views(device_session_t *ds) {
    for (int i = 0; i < ds->nheaders; i++) {
        header_file_t *h = &ds->headers[i];
        free(h->host_view);
        free(h->device_view);
        cell_split_t sp;
        split_cell(h->text, &sp);
        session_headers_route(ds, &sp);
        h->host_view = split_view(h->text, &sp, 0, sp.n, host_side);
        h->device_view = split_view(h->text, &sp, 0, sp.n, device_side);
        split_free(&sp);
    }
}

void session_header_save(device_session_t *ds, const char *name, const char *body, bool *replaced) {
    header_file_t *h = (header_file_t *)find(ds, name);
    *replaced = h != NULL;
    if (h) {
        free(h->text);
        h->text = xstrdup(body);
    } else {
        ARRAY_GROW(ds->headers, ds->nheaders, ds->cap_headers);
        ds->headers[ds->nheaders++] = (header_file_t){xstrdup(name), xstrdup(body), NULL, NULL};
    }
    make_views(ds);
}

void session_headers_free(device_session_t *ds) {
    for (int i = 0; i < ds->nheaders; i++) {
        free(ds->headers[i].name);
        free(ds->headers[i].text);
        free(ds->headers[i].host_view);
        free(ds->headers[i].device_view);
    }
    free(ds->headers);
    ds->headers = NULL;
    ds->nheaders = ds->cap_headers = 0;
}

const char *session_header_host_view(void *ctx, const char *name) {
    const header_file_t *h = find(ctx, name);
    return h ? h->host_view : NULL;
}
