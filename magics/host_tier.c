/* %host_tier: how host code runs (docs/native-tier.md): interpreted only
 * (off), loops that run long compiled to machine code (auto, the default),
 * or every loop the native tier can compile on its first run (always);
 * -O0 / -O2 picks the C compiler's optimisation. Without arguments it says
 * what is chosen. */
#include <stdio.h>
#include <string.h>
#include "magic_args.h"
#include "magics.h"
#include "runtime/lang/interp.h"

static int host_tier_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    interp_t *in = mc->interp;
    if (!in) return magic_usage_error(&magic_host_tier, err, "no host interpreter in this session");
    char buf[256];
    const char *mode;
    int opt;
    if (host_tier_args(&magic_host_tier, args, buf, sizeof buf, &mode, &opt, err)) return -1;
    interp_set_host_tier(in, mode, opt);
    int o;
    const char *m = interp_host_tier(in, &o);
    io_printf(mc->io, "stdout", "host tier: %s, compiled code built with -O%d\n", m, o);
    return 0;
}

const magic_t magic_host_tier = {
    "host_tier", "%host_tier [off|auto|always] [-O0|-O2]",
    "choose how host code runs: interpreted, or hot loops and functions compiled with every check kept",
    "off: host code is interpreted. auto (the default): a loop that runs long is compiled to machine code\n"
    "from the interpreter's own representation, with bounds, liveness and interrupt checks compiled in,\n"
    "and entered at its next iteration; a function that only computes on its arguments (no memory, no\n"
    "output) is compiled whole after 1,000 calls. always: every loop and function the native tier\n"
    "handles is compiled on its first run. -O0 / -O2: the C compiler's optimisation for compiled code.\n"
    "Errors are the same in every mode. Compiled code is cached by content under the user's cache\n"
    "directory (icuda/host).",
    host_tier_line, NULL};

/* %%host [off|auto|always] [-O0|-O2]: this cell only; the session's choice
 * comes back after it, whatever the cell did. */
static int host_cell(magic_ctx_t *mc, const char *args, const char *body, cell_error_t *err) {
    interp_t *in = mc->interp;
    if (!in) return magic_usage_error(&magic_host, err, "no host interpreter in this session");
    char buf[256], was[16];
    const char *mode;
    int opt, was_opt;
    if (host_tier_args(&magic_host, args, buf, sizeof buf, &mode, &opt, err)) return -1;
    if (!mode && opt < 0) return magic_usage_error(&magic_host, err, "say how the cell runs: off, auto or always, and/or -O0 or -O2");
    snprintf(was, sizeof was, "%s", interp_host_tier(in, &was_opt));
    interp_set_host_tier(in, mode, opt);
    int rc = mc->run(mc, body, err);
    interp_set_host_tier(in, was, was_opt);
    return rc;
}

const magic_t magic_host = {
    "host", "%%host [off|auto|always] [-O0|-O2]",
    "run this cell's host code interpreted (off) or with its loops compiled (auto, always)",
    "As %host_tier, for the cell below only: %%host off runs it interpreted (to compare with the\n"
    "compiled tier, or to time the interpreter), %%host always compiles every loop the native tier\n"
    "handles on its first run, -O0 / -O2 choose the C compiler's optimisation. The session's own\n"
    "choice (%host_tier) is back after the cell.",
    NULL, host_cell};
