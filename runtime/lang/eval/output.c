/* What a cell prints: stdout is buffered in the session and sent in pieces
 * (at least every 0.1 s of a cell that prints lines, and whenever 1 MiB is
 * waiting); stderr goes out at once, after what stdout holds. */
#include <string.h>
#include <time.h>
#include "eval.h"

#include "runtime/base/cell_io.h"
#include "runtime/lang/interp.h"
#include "runtime/base/xalloc.h"
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void out_flush(void) {
    interp_t *in = g_in;
    if (in->outlen && in->io && in->io->stream) in->io->stream(in->io->ctx, "stdout", in->outbuf, in->outlen);
    in->outlen = 0;
    in->last_flush = now();
}

void out_write(const char *stream, const char *s, size_t n) {
    interp_t *in = g_in;
    if (!in->io || n == 0) return; /* user_expressions print nothing; nothing: no buffer yet, maybe */
    if (strcmp(stream, "stderr") == 0) {
        out_flush();
        if (in->io->stream) in->io->stream(in->io->ctx, "stderr", s, n);
        return;
    }
    if (in->outlen + n > in->outcap) {
        size_t nc = in->outcap ? in->outcap * 2 : 65536;
        while (nc < in->outlen + n) nc *= 2;
        in->outbuf = xrealloc(in->outbuf, nc);
        in->outcap = nc;
    }
    memcpy(in->outbuf + in->outlen, s, n);
    in->outlen += n;
    /* long-running cells show their output as they go */
    if (in->outlen > (1 << 20) || (memchr(s, '\n', n) && now() - in->last_flush > 0.1)) out_flush();
}
