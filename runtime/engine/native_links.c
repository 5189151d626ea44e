/* What a native C++ cell sees of the rest of the session (native_links.h):
 * the host's constants and macros and what device cells defined, as a
 * device cell sees them. */
#include "native_links.h"

#include <string.h>

#include "runtime/lang/interp.h"
#include "session.h"

/* The device prelude but its kernels (a native cell cannot launch a device
 * cell's module) and its __device__/__constant__ variables (a second copy
 * would be state of its own): types, macros, includes, __device__
 * functions and templates. */
static void device_side(void *ctx, strbuf_t *b) {
    engine_t *e = ctx;
    char *consts = interp_device_constants(e->interp);
    if (consts && *consts) {
        sb_puts(b, "#line 1 \"<session constants>\"\n");
        sb_puts(b, consts);
        sb_putc(b, '\n');
    }
    free(consts);
    for (int i = 0; i < e->dev.nprelude; i++) {
        const prelude_item_t *p = &e->dev.prelude[i];
        if (p->is_kernel || !strncmp(p->key, "var:", 4)) continue;
        sb_printf(b, "#line %d \"%s\"\n", p->first_line, p->cell);
        sb_puts(b, p->text);
        sb_putc(b, '\n');
    }
}

void engine_native_links(engine_t *e) {
    e->native.links.ctx = e;
    e->native.links.device = device_side;
}
