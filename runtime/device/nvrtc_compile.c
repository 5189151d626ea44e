#include "nvrtc_compile.h"

#include <nvrtc.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/base/interrupt.h"

#include "runtime/base/xalloc.h"
static char *dup_n(const char *s, size_t n) {
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}
static char *dup_s(const char *s) { return dup_n(s, strlen(s)); }

const char *nvrtc_version_string(void) {
    static char v[16];
    if (!v[0]) {
        int major = 0, minor = 0;
        nvrtcVersion(&major, &minor);
        snprintf(v, sizeof v, "%d.%d", major, minor);
    }
    return v;
}

int nvrtc_newest_arch(void) {
    int n = 0, newest = 90;
    if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 256) return newest;
    int archs[256];
    if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS) return newest;
    for (int i = 0; i < n; i++)
        if (archs[i] > newest) newest = archs[i];
    return newest;
}

static void hash_str(EVP_MD_CTX *md, const char *s) { EVP_DigestUpdate(md, s, strlen(s) + 1); }

void compile_request_key(const compile_request_t *req, char hex[65]) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    EVP_DigestInit_ex(md, EVP_sha256(), NULL);
    hash_str(md, "icuda-module-v1");
    hash_str(md, nvrtc_version_string());
    for (int i = 0; i < req->noptions; i++) hash_str(md, req->options[i]);
    hash_str(md, "--headers--");
    for (int i = 0; i < req->nheaders; i++) {
        hash_str(md, req->header_names[i]);
        hash_str(md, req->header_texts[i]);
    }
    hash_str(md, "--kernels--");
    for (int i = 0; i < req->nkernels; i++) hash_str(md, req->kernel_names[i]);
    hash_str(md, "--source--");
    hash_str(md, req->program_name);
    hash_str(md, req->source);
    unsigned char digest[32];
    unsigned int len = 0;
    EVP_DigestFinal_ex(md, digest, &len);
    EVP_MD_CTX_free(md);
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

void module_free(compiled_module_t *m) {
    if (!m) return;
    for (int i = 0; i < m->nkernels; i++) {
        free(m->kernels[i].name);
        free(m->kernels[i].lowered);
    }
    free(m->kernels);
    free(m->ptx);
    free(m->cubin);
    free(m->log);
    free(m);
}

const compiled_kernel_t *module_kernel(const compiled_module_t *m, const char *name) {
    for (int i = 0; m && i < m->nkernels; i++)
        if (strcmp(m->kernels[i].name, name) == 0) return &m->kernels[i];
    return NULL;
}

/* The number that ends just before p in buf ("380 bytes cmem" -> 380). */
static int number_before(const char *buf, const char *p) {
    while (p > buf && (p[-1] == ' ' || (p[-1] >= '0' && p[-1] <= '9'))) p--;
    return atoi(p);
}

/* ptxas -v reports, per entry function:
 *   Compiling entry function '_Z6vecaddPdPKdS1_i' for 'sm_90'
 *   Function properties for _Z6vecaddPdPKdS1_i
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   Used 14 registers, used 0 barriers, 1024 bytes smem, 380 bytes cmem[0]  */
static void parse_resources(compiled_module_t *m) {
    if (!m->log) return;
    compiled_kernel_t *cur = NULL;
    for (const char *line = m->log; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char buf[512];
        if (n >= sizeof buf) n = sizeof buf - 1;
        memcpy(buf, line, n);
        buf[n] = 0;
        const char *p;
        if ((p = strstr(buf, "Compiling entry function '")) != NULL) {
            p += strlen("Compiling entry function '");
            const char *q = strchr(p, '\'');
            cur = NULL;
            for (int i = 0; q && i < m->nkernels; i++)
                if (strlen(m->kernels[i].lowered) == (size_t)(q - p) &&
                    strncmp(m->kernels[i].lowered, p, q - p) == 0)
                    cur = &m->kernels[i];
        } else if (cur && (p = strstr(buf, "bytes stack frame")) != NULL) {
            cur->stack_bytes = number_before(buf, p);
            const char *ss = strstr(buf, "bytes spill stores,");
            const char *sl = strstr(buf, "bytes spill loads");
            if (ss) cur->spill_stores = number_before(buf, ss);
            if (sl) cur->spill_loads = number_before(buf, sl);
        } else if (cur && (p = strstr(buf, "Used ")) != NULL && strstr(buf, "registers")) {
            cur->registers = atoi(p + 5);
            const char *sm = strstr(buf, "bytes smem");
            const char *cm = strstr(buf, "bytes cmem[0]");
            if (sm) cur->shared_bytes = number_before(buf, sm);
            if (cm) cur->const_bytes = number_before(buf, cm);
            cur->have_resources = true;
        }
        line = eol ? eol + 1 : NULL;
    }
}

/* Keeps ptxas's report out of the log the user sees; it is shown as one
 * line per kernel instead. */
static char *strip_ptxas_lines(const char *log) {
    size_t n = strlen(log);
    char *out = xmalloc(n + 1), *o = out;
    for (const char *line = log; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line + 1) : strlen(line);
        if (strncmp(line, "ptxas", 5) != 0) {
            memcpy(o, line, len);
            o += len;
        }
        line += len;
    }
    *o = 0;
    return out;
}

typedef struct {
    /* a private copy of the request: the waiter may leave before we finish */
    char *source, *program_name;
    char **options, **header_names, **header_texts, **kernel_names;
    int noptions, nheaders, nkernels;
    compile_status_t status;
    compiled_module_t *module;
    char *log;
    bool done, abandoned;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} compile_job_t;

static char **dup_list(const char *const *v, int n) {
    char **d = xcalloc(n ? n : 1, sizeof *d);
    for (int i = 0; i < n; i++) d[i] = dup_s(v[i]);
    return d;
}

static void free_list(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void job_free(compile_job_t *j) {
    free(j->source);
    free(j->program_name);
    free_list(j->options, j->noptions);
    free_list(j->header_names, j->nheaders);
    free_list(j->header_texts, j->nheaders);
    free_list(j->kernel_names, j->nkernels);
    module_free(j->module);
    free(j->log);
    pthread_mutex_destroy(&j->lock);
    pthread_cond_destroy(&j->cond);
    free(j);
}

/* One compile at a time in the process: NVRTC's automatic precompiled
 * headers are shared process-wide, and an abandoned (interrupted) compile may
 * still be running when the next cell's starts. */
static pthread_mutex_t nvrtc_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int compiles_in_flight;

bool nvrtc_compile_busy(void) { return atomic_load(&compiles_in_flight) > 0; }

static void run_job_locked(compile_job_t *j);

static void run_job(compile_job_t *j) {
    pthread_mutex_lock(&nvrtc_lock);
    run_job_locked(j);
    pthread_mutex_unlock(&nvrtc_lock);
    atomic_fetch_sub(&compiles_in_flight, 1);
}

static void run_job_locked(compile_job_t *j) {
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, j->source, j->program_name, j->nheaders, (const char **)j->header_texts,
                           (const char **)j->header_names) != NVRTC_SUCCESS) {
        j->status = COMPILE_FAILED;
        j->log = dup_s("nvrtcCreateProgram failed\n");
        return;
    }
    char **exprs = xcalloc(j->nkernels ? j->nkernels : 1, sizeof *exprs);
    for (int i = 0; i < j->nkernels; i++) {
        size_t n = strlen(j->kernel_names[i]) + 2;
        exprs[i] = xmalloc(n);
        snprintf(exprs[i], n, "&%s", j->kernel_names[i]);
        nvrtcAddNameExpression(prog, exprs[i]);
    }
    nvrtcResult rc = nvrtcCompileProgram(prog, j->noptions, (const char **)j->options);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    char *log = xcalloc(1, log_size + 1);
    if (log_size) nvrtcGetProgramLog(prog, log);
    if (rc != NVRTC_SUCCESS) {
        j->status = COMPILE_FAILED;
        if (!log[0]) {
            free(log);
            log = dup_s(nvrtcGetErrorString(rc));
        }
        j->log = log;
    } else {
        compiled_module_t *m = xcalloc(1, sizeof *m);
        size_t n = 0;
        if (nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
            m->ptx = xmalloc(n);
            nvrtcGetPTX(prog, m->ptx);
            m->ptx_len = n;
        }
        if (nvrtcGetCUBINSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
            m->cubin = xmalloc(n);
            nvrtcGetCUBIN(prog, m->cubin);
            m->cubin_len = n;
        }
        m->kernels = xcalloc(j->nkernels ? j->nkernels : 1, sizeof *m->kernels);
        for (int i = 0; i < j->nkernels; i++) {
            const char *lowered = NULL;
            if (nvrtcGetLoweredName(prog, exprs[i], &lowered) != NVRTC_SUCCESS || !lowered) continue;
            compiled_kernel_t *k = &m->kernels[m->nkernels++];
            k->name = dup_s(j->kernel_names[i]);
            k->lowered = dup_s(lowered);
        }
        m->log = log;
        parse_resources(m);
        j->log = strip_ptxas_lines(log);
        j->module = m;
        j->status = COMPILE_OK;
    }
    for (int i = 0; i < j->nkernels; i++) free(exprs[i]);
    free(exprs);
    nvrtcDestroyProgram(&prog);
}

static void *job_thread(void *arg) {
    compile_job_t *j = arg;
    run_job(j);
    pthread_mutex_lock(&j->lock);
    j->done = true;
    bool abandoned = j->abandoned;
    pthread_cond_signal(&j->cond);
    pthread_mutex_unlock(&j->lock);
    if (abandoned) job_free(j);
    return NULL;
}

compile_status_t nvrtc_compile(const compile_request_t *req, compiled_module_t **out, char **log) {
    *out = NULL;
    *log = NULL;
    compile_job_t *j = xcalloc(1, sizeof *j);
    j->source = dup_s(req->source);
    j->program_name = dup_s(req->program_name);
    j->options = dup_list(req->options, req->noptions);
    j->noptions = req->noptions;
    j->header_names = dup_list(req->header_names, req->nheaders);
    j->header_texts = dup_list(req->header_texts, req->nheaders);
    j->nheaders = req->nheaders;
    j->kernel_names = dup_list(req->kernel_names, req->nkernels);
    j->nkernels = req->nkernels;
    pthread_mutex_init(&j->lock, NULL);
    pthread_cond_init(&j->cond, NULL);
    atomic_fetch_add(&compiles_in_flight, 1);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64u << 20); /* EDG recurses deeply on template-heavy headers */
    pthread_t th;
    if (pthread_create(&th, &attr, job_thread, j) != 0) {
        pthread_attr_destroy(&attr);
        run_job(j); /* no thread: compile here, uninterruptibly */
        j->done = true;
    } else {
        pthread_attr_destroy(&attr);
    }

    pthread_mutex_lock(&j->lock);
    while (!j->done && !interrupt_pending()) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&j->cond, &j->lock, &ts);
    }
    if (!j->done) {
        j->abandoned = true; /* the thread frees the job when it finishes */
        pthread_mutex_unlock(&j->lock);
        return COMPILE_INTERRUPTED;
    }
    pthread_mutex_unlock(&j->lock);
    compile_status_t st = j->status;
    *out = j->module;
    *log = j->log;
    j->module = NULL;
    j->log = NULL;
    job_free(j);
    return st;
}
