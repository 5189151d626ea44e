/* The session state of the measuring magics (measure.h): the peaks cache
 * and the list of measurements %roofline draws. */
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "runtime/base/vec.h"

measure_state_t *measure_state(magic_ctx_t *mc) {
    if (!*mc->measure) *mc->measure = xcalloc(1, sizeof **mc->measure);
    return *mc->measure;
}

void measure_add(magic_ctx_t *mc, const char *label, double bytes, double flops, double seconds, int dev) {
    measure_state_t *s = measure_state(mc);
    ARRAY_GROW(s->m, s->nm, s->capm);
    measurement_t *m = &s->m[s->nm++];
    m->label = xstrdup(label ? label : "?");
    m->bytes = bytes;
    m->flops = flops;
    m->seconds = seconds;
    m->dev = dev;
}

static int clear(measure_state_t *s) {
    int n = s->nm;
    for (int i = 0; i < s->nm; i++) free(s->m[i].label);
    s->nm = 0;
    return n;
}

int measure_clear(magic_ctx_t *mc) { return clear(measure_state(mc)); }

void magics_session_free(struct measure_state *s) {
    if (!s) return;
    clear(s);
    free(s->m);
    free(s->peaks);
    free(s);
}
