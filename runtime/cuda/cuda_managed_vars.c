/* __managed__ variables (docs/device-memory.md): one variable that host code
 * and kernels both use by name. Its host side is a session variable of the
 * interpreter (the engine declares it when the device cell compiles); its
 * device side is the variable in each module that has it (every cell's
 * module has its own copy of the prelude's variables). The copies are kept
 * one variable, as CUDA's unified memory keeps one:
 *   - before a launch, the launched module's copy is brought up to date:
 *     from the host if host code changed the variable (seen by comparing
 *     with a snapshot), or from the module that last ran;
 *   - at the points where CUDA's rules let the host read it again
 *     (cudaDeviceSynchronize, a stream or event synchronisation, a blocking
 *     cudaMemcpy, the end of the cell) the host side gets the value of the
 *     module that last ran.
 * Reading it on the host after a launch without a synchronisation gives the
 * value from before, as a compiled program would race. */
#include "cuda_internal.h"

#include "runtime/base/vec.h"
#include <stdlib.h>
#include <string.h>

struct cs_mvar {
    char *name;
    unsigned char *snap;  /* the host value as last copied either way */
    size_t n;
    gpu_handle_t cur;     /* a module whose copy equals snap, 0: none known */
    gpu_handle_t last;    /* the module that last ran with it, 0: none */
    bool newer;           /* last's copy may differ from snap (it ran since) */
};

static cs_mvar_t *find(cuda_session_t *cs, const char *name) {
    for (int i = 0; i < cs->nmvars; i++)
        if (!strcmp(cs->mvars[i].name, name)) return &cs->mvars[i];
    return NULL;
}

int cuda_session_managed_var(cuda_session_t *cs, const char *name, char *msg, size_t ml) {
    size_t n = 0;
    void *host = interp_var_storage(cs->interp, name, &n);
    if (!host || !n) {
        snprintf(msg, ml, "__managed__ %s has no host side: declare it with a type host code knows", name);
        return -1;
    }
    cs_mvar_t *v = find(cs, name);
    if (!v) {
        ARRAY_GROW(cs->mvars, cs->nmvars, cs->capmvars);
        v = &cs->mvars[cs->nmvars++];
        memset(v, 0, sizeof *v);
        v->name = xstrdup(name);
    }
    free(v->snap);
    v->snap = xmalloc(n);
    memcpy(v->snap, host, n);
    v->n = n;
    v->cur = v->last = 0; /* declared again: every module's copy is to be written */
    v->newer = false;
    return 0;
}

bool cuda_session_is_managed_var(cuda_session_t *cs, const char *name) { return find(cs, name) != NULL; }

void cs_mvars_free(cuda_session_t *cs) {
    for (int i = 0; i < cs->nmvars; i++) {
        free(cs->mvars[i].name);
        free(cs->mvars[i].snap);
    }
    free(cs->mvars);
    cs->mvars = NULL;
    cs->nmvars = cs->capmvars = 0;
}

/* The module's copy of v: its address, or 0 when the module has none. */
static CUdeviceptr in_module(cuda_session_t *cs, const cs_mvar_t *v, gpu_handle_t mod) {
    CUdeviceptr p = 0;
    size_t size = 0;
    if (!mod || gpu_client_get_global(cs->gc, mod, v->name, &p, &size) || size != v->n) return 0;
    return p;
}

static int pull(cuda_session_t *cs, cs_mvar_t *v, void *host) {
    CUdeviceptr p = in_module(cs, v, v->last);
    v->newer = false;
    if (!p) return 0;
    int r = gpu_client_memcpy_dtoh(cs->gc, host, p, v->n, 0, false);
    if (!r) {
        memcpy(v->snap, host, v->n);
        v->cur = v->last;
    }
    return r;
}

int cs_mvars_before_launch(cuda_session_t *cs, gpu_handle_t mod) {
    for (int i = 0; i < cs->nmvars; i++) {
        cs_mvar_t *v = &cs->mvars[i];
        size_t n = 0;
        void *host = interp_var_storage(cs->interp, v->name, &n);
        CUdeviceptr p = in_module(cs, v, mod);
        if (!host || n != v->n || !p) continue;
        int r = 0;
        if (memcmp(host, v->snap, n)) { /* host code changed it: that value goes */
            memcpy(v->snap, host, n);
            v->cur = 0;
            v->newer = false;
        } else if (v->newer && v->last != mod) { /* another module ran last: its value goes */
            r = pull(cs, v, host);
        }
        if (!r && !(v->newer && v->last == mod) && v->cur != mod) {
            r = gpu_client_memcpy_htod(cs->gc, p, host, n, 0, false);
            if (!r) v->cur = mod;
        }
        if (r) return r;
        v->last = mod; /* the launch may change it */
        v->newer = true;
        v->cur = 0;
    }
    return 0;
}

int cs_mvars_sync_point(cuda_session_t *cs) {
    for (int i = 0; i < cs->nmvars; i++) {
        cs_mvar_t *v = &cs->mvars[i];
        size_t n = 0;
        void *host = interp_var_storage(cs->interp, v->name, &n);
        if (!host || n != v->n || !v->newer) continue;
        if (memcmp(host, v->snap, n)) { /* written on the host meanwhile: the host's value stands */
            v->newer = false;
            continue;
        }
        int r = pull(cs, v, host);
        if (r) return r;
    }
    return 0;
}

void cs_mvars_restarted(cuda_session_t *cs) {
    for (int i = 0; i < cs->nmvars; i++) {
        cs->mvars[i].cur = cs->mvars[i].last = 0;
        cs->mvars[i].newer = false;
    }
}
