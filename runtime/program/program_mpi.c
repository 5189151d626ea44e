/* MPI programs for %%program --mpi N (program_mpi.h). Open MPI does the
 * work: mpicxx is nvcc's host compiler, mpirun starts the ranks. What is
 * icuda's: which GPU each rank sees, mpirun's options for a notebook (root,
 * more ranks than processors, ranks that end with mpirun), and the rank in
 * front of each line the ranks print. */
#include "program_mpi.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "program_libs.h"
#include "program_run.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

/* Where Open MPI puts its tools when they are not on PATH: Fedora and
 * RHEL's package, NVIDIA's containers, HPC-X. */
static const char *const mpi_folders[] = {"/usr/lib64/openmpi/bin", "/usr/local/mpi/bin", "/opt/hpcx/ompi/bin", NULL};

char *program_find_mpi(const char *tool, char *where, size_t cap) {
    const char *var = !strcmp(tool, "mpirun") ? "ICUDA_MPIRUN" : "ICUDA_MPICXX";
    const char *set = getenv(var);
    if (set && *set) {
        if (access(set, X_OK) == 0) return xstrdup(set);
        snprintf(where, cap, "$%s (%s, which is not an executable)", var, set);
        return NULL;
    }
    char *p = proc_on_path(NULL, tool);
    /* Debian and Ubuntu name Open MPI's tools so beside MPICH's, the plain
     * name being whichever the alternatives chose (or none) */
    char named[64];
    snprintf(named, sizeof named, "%s.openmpi", tool);
    if (!p) p = proc_on_path(NULL, named);
    for (int i = 0; !p && mpi_folders[i]; i++) {
        char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s/%s", mpi_folders[i], tool);
        if (access(buf, X_OK) == 0) p = xstrdup(buf);
    }
    if (!p) {
        size_t o = (size_t)snprintf(where, cap, "$%s (not set), %s and %s on PATH (%s), ", var, tool, named,
                                    getenv("PATH") ? getenv("PATH") : "");
        for (int i = 0; mpi_folders[i] && o < cap; i++)
            o += (size_t)snprintf(where + o, cap - o, "%s%s", mpi_folders[i], mpi_folders[i + 1] ? ", " : "");
    }
    return p;
}

void program_mpi_ids(program_mpi_t *m) {
    int k = 0;
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    for (const char *p = env && *env ? env : ""; *p && k < 64;) {
        size_t l = strcspn(p, ",");
        if (l >= sizeof m->ids[0]) break;
        memcpy(m->ids[k], p, l);
        m->ids[k++][l] = 0;
        p += l + (p[l] == ',');
    }
    if (k < m->gpus) /* no list (or a shorter one than the GPUs seen): the driver's numbers */
        for (k = 0; k < 64; k++) snprintf(m->ids[k], sizeof m->ids[k], "%d", k);
}

int program_mpi_check(const program_mpi_t *m, char *why, size_t cap) {
    if (m->gpus <= 0 || m->all_gpus || m->share_gpus || m->ranks <= m->gpus) return 0;
    snprintf(why, cap, "--mpi %d gives each of %d ranks a GPU of its own, and this machine has %d GPU%s: run %d rank%s "
             "or fewer, or add --share-gpus (the ranks take the GPUs in turn)", m->ranks, m->ranks, m->gpus,
             m->gpus == 1 ? "" : "s", m->gpus, m->gpus == 1 ? "" : "s");
    return -1;
}

static void push(void *vec, const char *s) {
    VEC(char *) *v = vec;
    VEC_PUSH(*v, xstrdup(s));
}

char **program_mpi_argv(const program_mpi_t *m, const char *mpirun, const char *binary, char *const *args, int nargs) {
    VEC(char *) v = {0};
    push(&v, mpirun);
    if (geteuid() == 0) push(&v, "--allow-run-as-root"); /* a container's root: Open MPI refuses it otherwise */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0 && m->ranks > cpus) push(&v, "--oversubscribe");
    push(&v, "--tag-output");
    static char *setpriv;
    static bool looked;
    if (!looked) {
        setpriv = proc_on_path(NULL, "setpriv");
        looked = true;
    }
    bool each = m->gpus > 0 && !m->all_gpus;
    char num[32], env[128];
    for (int r = 0; r < (each ? m->ranks : 1); r++) {
        if (r) push(&v, ":");
        push(&v, "-np");
        snprintf(num, sizeof num, "%d", each ? 1 : m->ranks);
        push(&v, num);
        if (each) {
            push(&v, "-x");
            snprintf(env, sizeof env, "CUDA_VISIBLE_DEVICES=%s", m->ids[(m->first + r) % m->gpus]);
            push(&v, env);
        }
        if (setpriv) {
            push(&v, setpriv);
            push(&v, "--pdeathsig");
            push(&v, "KILL");
        }
        push(&v, binary);
        for (int i = 0; i < nargs; i++) push(&v, args[i]);
    }
    VEC_PUSH(v, NULL);
    return v.v;
}

/* ---- the ranks' output ---- */

#define LINE_MAX_HELD 65536 /* a longer line goes out in pieces */

typedef struct {
    strbuf_t held;  /* the start of a line not finished yet */
    bool cont;      /* a piece of this line went out already ... */
    char to[8];     /* ... to this stream */
} mpi_stream_t;

struct program_mpi_io {
    const cell_io_t *to;
    cell_io_t io;
    mpi_stream_t s[2]; /* mpirun's stdout, stderr */
};

/* "[1,3]<stderr>:" at the start of p: the rank and the stream, and the tag's length. */
static size_t tag_of(const char *p, size_t n, long *rank, const char **stream) {
    size_t i = 0;
    if (i >= n || p[i++] != '[') return 0;
    while (i < n && isdigit((unsigned char)p[i])) i++;
    if (i >= n || p[i++] != ',') return 0;
    size_t r0 = i;
    while (i < n && isdigit((unsigned char)p[i])) i++;
    if (i == r0 || i >= n || p[i++] != ']') return 0;
    *rank = strtol(p + r0, NULL, 10);
    static const char *const names[] = {"stdout", "stderr", "stddiag"};
    for (size_t k = 0; k < 3; k++) {
        size_t l = strlen(names[k]);
        if (n - i >= l + 3 && p[i] == '<' && !memcmp(p + i + 1, names[k], l) && p[i + 1 + l] == '>' &&
            p[i + 2 + l] == ':') {
            *stream = k == 0 ? "stdout" : "stderr";
            return i + l + 3;
        }
    }
    return 0;
}

/* One piece of a line (the whole line, or its start when it is long). */
static void emit(program_mpi_io_t *x, mpi_stream_t *s, const char *from, const char *p, size_t n) {
    if (!x->to || !x->to->stream || !n) return;
    if (s->cont) {
        x->to->stream(x->to->ctx, s->to, p, n);
        return;
    }
    long rank = 0;
    const char *stream = from;
    size_t t = tag_of(p, n, &rank, &stream);
    snprintf(s->to, sizeof s->to, "%s", stream);
    if (!t) {
        x->to->stream(x->to->ctx, from, p, n);
        return;
    }
    char pre[32];
    int k = snprintf(pre, sizeof pre, "[%ld] ", rank);
    x->to->stream(x->to->ctx, stream, pre, (size_t)k);
    x->to->stream(x->to->ctx, stream, p + t, n - t);
}

static void take(void *ctx, const char *name, const char *text, size_t len) {
    program_mpi_io_t *x = ctx;
    bool err = !strcmp(name, "stderr");
    mpi_stream_t *s = &x->s[err];
    const char *from = err ? "stderr" : "stdout";
    sb_append(&s->held, text, len);
    size_t start = 0;
    for (size_t i = 0; i < s->held.len; i++) {
        if (s->held.data[i] != '\n') continue;
        emit(x, s, from, s->held.data + start, i + 1 - start);
        s->cont = false;
        start = i + 1;
    }
    if (s->held.len - start >= LINE_MAX_HELD) { /* a long line: its start goes now */
        emit(x, s, from, s->held.data + start, s->held.len - start);
        s->cont = true;
        start = s->held.len;
    }
    memmove(s->held.data, s->held.data + start, s->held.len - start);
    s->held.len -= start;
    if (s->held.data) s->held.data[s->held.len] = 0;
}

static void pass_display(void *ctx, json_t *data, json_t *metadata, bool is_result) {
    program_mpi_io_t *x = ctx;
    if (x->to && x->to->display) x->to->display(x->to->ctx, data, metadata, is_result);
}

program_mpi_io_t *program_mpi_io_new(const cell_io_t *to) {
    program_mpi_io_t *x = xcalloc(1, sizeof *x);
    x->to = to;
    x->io.ctx = x;
    x->io.stream = take;
    x->io.display = pass_display;
    return x;
}

const cell_io_t *program_mpi_io(program_mpi_io_t *x) { return &x->io; }

void program_mpi_io_free(program_mpi_io_t *x) {
    if (!x) return;
    for (int i = 0; i < 2; i++) {
        mpi_stream_t *s = &x->s[i];
        if (s->held.len) emit(x, s, i ? "stderr" : "stdout", s->held.data, s->held.len);
        free(s->held.data);
    }
    free(x);
}
