#include "session_headers.h"

#include <stdlib.h>
#include <string.h>

static bool host_side(const cell_item_t *it) { return it->kind == ITEM_HOST || it->kind == ITEM_BOTH; }
static bool device_side(const cell_item_t *it) { return it->kind != ITEM_HOST && it->kind != ITEM_MAGIC; }

static const header_file_t *find(const engine_t *e, const char *name) {
    for (int i = 0; i < e->nheaders; i++)
        if (!strcmp(e->headers[i].name, name)) return &e->headers[i];
    return NULL;
}

void session_headers_route(const engine_t *e, cell_split_t *sp) {
    for (size_t i = 0; i < sp->n; i++) {
        cell_item_t *it = &sp->items[i];
        if (it->is_include && it->include_route == INC_UNKNOWN && it->kind == ITEM_DEVICE && find(e, it->name))
            it->kind = ITEM_BOTH;
    }
}

/* Both views of every header, again after each save: a header may include
 * one saved after it. */
static void make_views(engine_t *e) {
    for (int i = 0; i < e->nheaders; i++) {
        header_file_t *h = &e->headers[i];
        free(h->host_view);
        free(h->device_view);
        cell_split_t sp;
        split_cell(h->text, &sp);
        session_headers_route(e, &sp);
        h->host_view = split_view(h->text, &sp, 0, sp.n, host_side);
        h->device_view = split_view(h->text, &sp, 0, sp.n, device_side);
        split_free(&sp);
        if (!h->host_view || !h->device_view) abort();
    }
}

void session_header_save(engine_t *e, const char *name, const char *body, bool *replaced) {
    header_file_t *h = (header_file_t *)find(e, name);
    *replaced = h != NULL;
    if (h) {
        free(h->text);
        h->text = strdup(body);
    } else {
        if (e->nheaders == e->cap_headers) {
            e->cap_headers = e->cap_headers ? 2 * e->cap_headers : 8;
            e->headers = realloc(e->headers, (size_t)e->cap_headers * sizeof *e->headers);
            if (!e->headers) abort();
        }
        e->headers[e->nheaders++] = (header_file_t){strdup(name), strdup(body), NULL, NULL};
    }
    make_views(e);
}

void session_headers_free(engine_t *e) {
    for (int i = 0; i < e->nheaders; i++) {
        free(e->headers[i].name);
        free(e->headers[i].text);
        free(e->headers[i].host_view);
        free(e->headers[i].device_view);
    }
    free(e->headers);
    e->headers = NULL;
    e->nheaders = e->cap_headers = 0;
}

const char *session_header_host_view(void *ctx, const char *name) {
    const header_file_t *h = find(ctx, name);
    return h ? h->host_view : NULL;
}
