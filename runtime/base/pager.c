/* Help for Jupyter's pager: the front end shows a "page" payload beside the
 * notebook (JupyterLab) or in a pager (console), as IPython's help does. */
#include <stdlib.h>
#include <string.h>

#include "cell_io.h"
#include "strbuf.h"

static char *html_pre(const char *plain) {
    strbuf_t b = {0};
    sb_puts(&b, "<pre>");
    for (const char *p = plain; *p; p++) {
        switch (*p) {
        case '<': sb_puts(&b, "&lt;"); break;
        case '>': sb_puts(&b, "&gt;"); break;
        case '&': sb_puts(&b, "&amp;"); break;
        default: sb_putc(&b, *p);
        }
    }
    sb_puts(&b, "</pre>");
    return sb_take(&b);
}

void io_page(const cell_io_t *io, const char *plain, const char *html) {
    if (!io) return;
    if (!io->page) {
        if (io->stream) io->stream(io->ctx, "stdout", plain, strlen(plain));
        return;
    }
    char *h = html ? NULL : html_pre(plain);
    json_t *data = json_pack("{s:s, s:s}", "text/plain", plain, "text/html", html ? html : h);
    free(h);
    if (data) io->page(io->ctx, data);
    json_decref(data);
}
