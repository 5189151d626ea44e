/* The device side of a session, made, forgotten at %reset and freed
 * (device_session.h). */
#include "device_session.h"

#include <stdlib.h>
#include <string.h>

#include "compile_cache.h"
#include "device_lines.h"
#include "session_headers.h"

void device_session_init(device_session_t *ds, compile_cache_t *cache, struct interp *interp) {
    memset(ds, 0, sizeof *ds);
    ds->cache = cache;
    ds->interp = interp;
}

void device_session_forget(device_session_t *ds) {
    for (int i = 0; i < ds->nprelude; i++) {
        free(ds->prelude[i].key);
        free(ds->prelude[i].text);
        free(ds->prelude[i].cell);
    }
    free(ds->prelude);
    ds->prelude = NULL;
    ds->nprelude = ds->cap_prelude = 0;
    for (int i = 0; i < ds->nkernels; i++) {
        free(ds->kernels[i].name);
        free(ds->kernels[i].signature);
        free(ds->kernels[i].cell);
    }
    free(ds->kernels);
    ds->kernels = NULL;
    ds->nkernels = ds->cap_kernels = 0;
}

void device_session_free(device_session_t *ds) {
    device_session_forget(ds);
    session_headers_free(ds);
    options_free(ds->user_options, ds->nuser_options);
    for (int i = 0; i < ds->ninclude_dirs; i++) free(ds->include_dirs[i]);
    free(ds->include_dirs);
    compile_cache_free(ds->cache);
    device_lines_free(ds->lines);
    memset(ds, 0, sizeof *ds);
}
