/* The session state of the measuring magics (measure.h): the peaks cache
 * and the list of measurements %roofline draws. */
#include <stdlib.h>
#include <string.h>

#include "measure.h"

measure_state_t *measure_state(engine_t *e) {
    if (!e->measure) {
        e->measure = calloc(1, sizeof *e->measure);
        if (!e->measure) abort();
    }
    return e->measure;
}

void measure_add(engine_t *e, const char *label, double bytes, double flops, double seconds, int dev) {
    measure_state_t *s = measure_state(e);
    if (s->nm == s->capm) {
        s->capm = s->capm ? s->capm * 2 : 8;
        s->m = realloc(s->m, sizeof *s->m * (size_t)s->capm);
        if (!s->m) abort();
    }
    measurement_t *m = &s->m[s->nm++];
    m->label = strdup(label ? label : "?");
    if (!m->label) abort();
    m->bytes = bytes;
    m->flops = flops;
    m->seconds = seconds;
    m->dev = dev;
}

int measure_clear(engine_t *e) {
    measure_state_t *s = measure_state(e);
    int n = s->nm;
    for (int i = 0; i < s->nm; i++) free(s->m[i].label);
    s->nm = 0;
    return n;
}

void magics_session_free(engine_t *e) {
    if (!e->measure) return;
    measure_clear(e);
    free(e->measure->m);
    free(e->measure->peaks);
    free(e->measure);
    e->measure = NULL;
}
