/* %ptx: the PTX a compiled kernel became. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "magics.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

#include "runtime/device/compile_cache.h"
#include "runtime/device/nvrtc_compile.h"
#include "runtime/device/device_session.h"
/* The kernel named in args, or an error naming those there are. */
static const kernel_entry_t *find_kernel(magic_ctx_t *mc, const magic_t *m, const char *name, cell_error_t *err) {
    const kernel_entry_t *k = device_find_kernel(mc->dev, name);
    if (k) return k;
    strbuf_t b = {0};
    for (int i = 0; i < mc->dev->nkernels; i++) sb_printf(&b, "%s%s", i ? ", " : "", mc->dev->kernels[i].name);
    char *known = sb_take(&b);
    if (*known) magic_usage_error(m, err, "no kernel named '%s'; compiled so far: %s", name, known);
    else magic_usage_error(m, err, "no kernel named '%s'; no kernel has been compiled yet", name);
    free(known);
    return NULL;
}

/* From the kernel's ".globl" comment to the '}' closing its body, with the
 * module's header (.version/.target/.address_size) in front. */
static char *entry_ptx(const char *ptx, const char *lowered) {
    strbuf_t b = {0};
    for (const char *line = ptx; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line + 1) : strlen(line);
        if (!strncmp(line, ".version", 8) || !strncmp(line, ".target", 7) || !strncmp(line, ".address_size", 13))
            sb_append(&b, line, n);
        line += n;
    }
    char pat[600];
    snprintf(pat, sizeof pat, ".entry %s(", lowered);
    const char *start = strstr(ptx, pat);
    if (!start) return sb_take(&b);
    while (start > ptx && start[-1] != '\n') start--;
    const char *globl = NULL;
    snprintf(pat, sizeof pat, ".globl\t%s", lowered);
    const char *g = strstr(ptx, pat);
    if (g && g < start) {
        while (g > ptx && g[-1] != '\n') g--;
        globl = g;
    }
    const char *body = strstr(start, "\n{");
    const char *end = body ? strstr(body, "\n}") : NULL;
    end = end ? end + 2 : start + strlen(start);
    sb_putc(&b, '\n');
    sb_append(&b, globl ? globl : start, (size_t)(end - (globl ? globl : start)));
    sb_putc(&b, '\n');
    return sb_take(&b);
}

static int ptx_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    bool all = false;
    const char *name = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--all")) all = true;
        else if (!name) name = argv[i];
        else name = "";
    }
    int rc = 0;
    const kernel_entry_t *k;
    if (!name || !*name) {
        rc = magic_usage_error(&magic_ptx, err, "name one kernel");
    } else if ((k = find_kernel(mc, &magic_ptx, name, err)) == NULL) {
        rc = -1;
    } else {
        const compiled_module_t *m = compile_cache_get(mc->dev->cache, k->module_hex);
        const compiled_kernel_t *ck = m ? module_kernel(m, k->name) : NULL;
        if (!m || !m->ptx || !ck) {
            cell_error_set(err, "RuntimeError", NULL, "the PTX of %s is no longer available; run its cell again", name);
            rc = -1;
        } else {
            char *text = all ? xstrdup(m->ptx) : entry_ptx(m->ptx, ck->lowered);
            io_printf(mc->io, "stdout", "// %s, from %s, for %s\n%s", k->signature, k->cell, device_arch(mc->dev), text);
            free(text);
        }
    }
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_ptx = {
    "ptx", "%ptx [--all] KERNEL", "show the PTX of a compiled kernel",
    "Shows the kernel's .entry with the module header; --all shows the whole\n"
    "module (the __device__ functions it calls included).",
    ptx_line, NULL};
