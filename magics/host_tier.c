/* %host_tier: how host code runs (docs/native-tier.md): interpreted only
 * (off), loops that run long compiled to machine code (auto, the default),
 * or every loop the native tier can compile on its first run (always);
 * -O0 / -O2 picks the C compiler's optimisation. Without arguments it says
 * what is chosen. */
#include <stdio.h>
#include <string.h>
#include "magics.h"
#include "runtime/lang/interp.h"

static int host_tier_line(magic_ctx_t *mc, const char *args, engine_error_t *err) {
    interp_t *in = mc->e->interp;
    if (!in) return magic_usage_error(&magic_host_tier, err, "no host interpreter in this session");
    char buf[256];
    snprintf(buf, sizeof buf, "%s", args ? args : "");
    const char *mode = NULL;
    int opt = -1;
    for (char *save = NULL, *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        if (!strcmp(w, "-O0")) opt = 0;
        else if (!strcmp(w, "-O2")) opt = 2;
        else if (!strcmp(w, "off") || !strcmp(w, "auto") || !strcmp(w, "always")) mode = w;
        else return magic_usage_error(&magic_host_tier, err, "unknown argument '%s'", w);
    }
    interp_set_host_tier(in, mode, opt);
    int o;
    const char *m = interp_host_tier(in, &o);
    io_printf(mc->io, "stdout", "host tier: %s, compiled code built with -O%d\n", m, o);
    return 0;
}

const magic_t magic_host_tier = {
    "host_tier", "%host_tier [off|auto|always] [-O0|-O2]",
    "choose how host code runs: interpreted, or hot loops compiled with every check kept",
    "off: host code is interpreted. auto (the default): a loop that runs long is compiled to machine code\n"
    "from the interpreter's own representation, with bounds, liveness and interrupt checks compiled in,\n"
    "and entered at its next iteration. always: every loop the native tier handles is compiled on its\n"
    "first run. -O0 / -O2: the C compiler's optimisation for compiled code. Errors are the same in every\n"
    "mode. Compiled code is cached by content under the user's cache directory (icuda/host).",
    host_tier_line, NULL};
