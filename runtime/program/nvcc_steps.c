/* nvcc's steps run by icuda, the two front ends side by side (nvcc_steps.h). */
#include "nvcc_steps.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvcc_dryrun.h"
#include "nvcc_pch.h"
#include "runtime/base/file_read.h"
#include "runtime/base/interrupt.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"

typedef VEC(int) steps_t;
typedef VEC(char *) names_t;

typedef enum { STEP_NOT_RUN, STEP_OK, STEP_FAILED, STEP_STOPPED } step_state_t;

typedef struct {
    step_state_t state;
    int exit_status;
    char *output;
    double start, end; /* seconds since the build began */
} step_result_t;

/* The steps' shared state: which failed first (in nvcc's order), so that
 * a step after it is not started, or stopped if it runs. */
typedef struct chain chain_t;

typedef struct {
    const nvcc_plan_t *plan;
    const char *dir;
    step_result_t *res;
    pthread_mutex_t lock;
    int first_failed;         /* nvcc's index of the first step that failed; nsteps: none */
    bool start_failed;        /* a step could not be started */
    chain_t *side_by_side[2]; /* the chains running together */
    char why[256];
    const char *pch_root;     /* precompiled headers' folder (nvcc_pch.h); NULL: none */
    bool pch_may_build;
    nvcc_pch_status_t pch;
    struct timespec began;
} build_t;

struct chain {
    build_t *b;
    int *steps;               /* indices into plan->steps, in order */
    int n;
    int current;              /* the one running; -1: none */
    atomic_int cancel;
};

/* rm FILE...: done here, as nvcc would have rm do it. */
static void remove_files(const build_t *b, const nvcc_step_t *s) {
    for (int i = 1; i < s->argc; i++) {
        if (s->argv[i][0] == '-') continue;
        char path[PATH_MAX];
        if (s->argv[i][0] == '/') snprintf(path, sizeof path, "%s", s->argv[i]);
        else snprintf(path, sizeof path, "%s/%s", b->dir, s->argv[i]);
        unlink(path);
    }
}

static void failed_at(build_t *b, int idx) {
    pthread_mutex_lock(&b->lock);
    if (idx < b->first_failed) b->first_failed = idx;
    for (int c = 0; c < 2; c++)
        if (b->side_by_side[c] && b->side_by_side[c]->current > idx) atomic_store(&b->side_by_side[c]->cancel, 1);
    pthread_mutex_unlock(&b->lock);
}

static double since(const build_t *b) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - b->began.tv_sec) + (double)(t.tv_nsec - b->began.tv_nsec) / 1e9;
}

/* One step. The host compile reads its headers precompiled where it can
 * (nvcc_pch.h); if that compile fails, it runs again as nvcc wrote it, so
 * that what fails is the text itself and the messages are of it. */
static int run_step(build_t *b, chain_t *ch, const nvcc_step_t *s, proc_result_t *r) {
    proc_opts_t o = {.cwd = b->dir, .env = b->plan->env, .cancel = &ch->cancel};
    char *input = NULL;
    int k = s->tool == NVCC_CC && b->pch_root ? nvcc_pch_input_word(s->argv) : -1;
    if (k >= 0) {
        b->pch = nvcc_pch_prepare(s->argv, b->dir, b->pch_root, b->pch_may_build, &input);
        if (input) {
            char *saved = s->argv[k];
            s->argv[k] = input;
            int rc = proc_run(s->argv, &o, r);
            s->argv[k] = saved;
            free(input);
            if (rc == 0 && (r->interrupted || r->cancelled || (r->exited && r->exit_status == 0))) return 0;
            if (rc == 0) proc_result_free(r);
            b->pch = NVCC_PCH_NONE;
        }
    }
    return proc_run(s->argv, &o, r);
}

static void *run_chain(void *arg) {
    chain_t *ch = arg;
    build_t *b = ch->b;
    for (int k = 0; k < ch->n; k++) {
        int idx = ch->steps[k];
        const nvcc_step_t *s = &b->plan->steps[idx];
        pthread_mutex_lock(&b->lock);
        bool go = idx < b->first_failed && !b->start_failed && !interrupt_pending();
        if (go) ch->current = idx;
        pthread_mutex_unlock(&b->lock);
        if (!go) break;
        if (s->tool == NVCC_RM) {
            remove_files(b, s);
            b->res[idx].state = STEP_OK;
            continue;
        }
        proc_result_t r;
        b->res[idx].start = since(b);
        int rc = run_step(b, ch, s, &r);
        b->res[idx].end = since(b);
        if (rc != 0) {
            pthread_mutex_lock(&b->lock);
            b->start_failed = true;
            snprintf(b->why, sizeof b->why, "%s", r.why);
            pthread_mutex_unlock(&b->lock);
            break;
        }
        step_result_t *sr = &b->res[idx];
        sr->output = r.output;
        if (r.interrupted || r.cancelled) {
            sr->state = STEP_STOPPED;
            break;
        }
        if (!r.exited || r.exit_status != 0) {
            sr->state = STEP_FAILED;
            sr->exit_status = r.exited ? r.exit_status : 128 + r.signal;
            failed_at(b, idx);
            break;
        }
        sr->state = STEP_OK;
    }
    pthread_mutex_lock(&b->lock);
    ch->current = -1;
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* A tool named without a folder, found on the PATH nvcc gives its steps. */
static int resolve(nvcc_step_t *s, const nvcc_plan_t *p, char *why, size_t cap) {
    if (s->tool == NVCC_RM || strchr(s->argv[0], '/')) return 0;
    char *found = proc_on_path(nvcc_plan_var(p, "PATH"), s->argv[0]);
    if (!found) {
        snprintf(why, cap, "%s is not on the PATH nvcc gives its steps", s->argv[0]);
        return -1;
    }
    free(s->argv[0]);
    s->argv[0] = found;
    return 0;
}

/* Drops one word from a step. */
static void drop_word(nvcc_step_t *s, const char *w) {
    for (int i = 1; i < s->argc; i++)
        if (!strcmp(s->argv[i], w)) {
            free(s->argv[i]);
            memmove(s->argv + i, s->argv + i + 1, (size_t)(s->argc - i) * sizeof *s->argv);
            s->argc--;
            return;
        }
}

/* Splits the plan into the host chain, the device chain (both before the
 * first gcc -c) and the rest; checks it is a build this knows. */
static int shape(nvcc_plan_t *p, steps_t *host, steps_t *device, steps_t *rest, steps_t *first,
                 const char **module_file, char *why, size_t cap) {
    int ncudafe = 0, ncpp_host = 0, ncicc = 0;
    bool front = true;
    *module_file = NULL;
    for (int i = 0; i < p->nsteps; i++) {
        nvcc_step_t *s = &p->steps[i];
        if (s->tool == NVCC_CC) front = false;
        if (resolve(s, p, why, cap)) return -1;
        if (!front) {
            if (s->tool != NVCC_CC && s->tool != NVCC_NVLINK && s->tool != NVCC_FATBINARY && s->tool != NVCC_LINK &&
                s->tool != NVCC_RM) {
                snprintf(why, cap, "%s after the host compile", s->argv[0]);
                return -1;
            }
            VEC_PUSH(*rest, i);
            continue;
        }
        switch (s->tool) {
        case NVCC_RM:
            if (host->n || device->n) {
                snprintf(why, cap, "an rm between the front ends");
                return -1;
            }
            VEC_PUSH(*first, i);
            break;
        case NVCC_CPP_HOST:
            ncpp_host++;
            if (ncudafe) {
                snprintf(why, cap, "host preprocessing after cudafe++");
                return -1;
            }
            VEC_PUSH(*host, i);
            break;
        case NVCC_CUDAFE: {
            ncudafe++;
            *module_file = nvcc_step_option(s, "--module_id_file_name");
            if (!nvcc_step_has(s, "--gen_module_id_file") || !*module_file) {
                snprintf(why, cap, "cudafe++ does not write the module id");
                return -1;
            }
            VEC_PUSH(*host, i);
            break;
        }
        case NVCC_CPP_DEVICE:
        case NVCC_CICC:
        case NVCC_PTXAS:
        case NVCC_FATBINARY:
            ncicc += s->tool == NVCC_CICC;
            VEC_PUSH(*device, i);
            break;
        default:
            snprintf(why, cap, "%s before the host compile", s->argv[0]);
            return -1;
        }
    }
    if (ncudafe != 1 || ncpp_host != 1 || ncicc < 1 || !rest->n) {
        snprintf(why, cap, "%d cudafe++, %d host preprocessing, %d cicc steps, %zu after them", ncudafe, ncpp_host,
                 ncicc, rest->n);
        return -1;
    }
    if (p->steps[host->v[0]].tool != NVCC_CPP_HOST) {
        snprintf(why, cap, "cudafe++ before the host preprocessing");
        return -1;
    }
    for (size_t k = 0; k < device->n; k++) {
        const nvcc_step_t *s = &p->steps[device->v[k]];
        const char *f = nvcc_step_option(s, "--module_id_file_name");
        if (s->tool == NVCC_CICC && (!f || strcmp(f, *module_file))) {
            snprintf(why, cap, "cicc does not read cudafe++'s module id");
            return -1;
        }
    }
    return 0;
}

/* The module id cicc and cudafe++ read, in nvcc's form _HASH_LEN_NAME.
 * The hash names the unit's content, or only its headers where the unit
 * marks where they end and is not built for linking with other units
 * (nvcc_pch.h: then units with the same headers share the host text of
 * them). */
static int write_module_id(const nvcc_plan_t *p, const char *dir, const char *file, const char *unit_id) {
    char hex[17];
    snprintf(hex, sizeof hex, "%.16s", unit_id);
    bool linkable = false;
    const char *src = NULL;
    for (int i = 0; i < p->nsteps; i++) {
        linkable |= nvcc_step_has(&p->steps[i], "--device-c") != 0;
        if (p->steps[i].tool == NVCC_CUDAFE) src = nvcc_step_option(&p->steps[i], "--orig_src_path_name");
    }
    char *text = src && !linkable ? file_read_text(src, (size_t)64 << 20, false, NULL) : NULL;
    if (text) nvcc_pch_module_hash(text, hex);
    free(text);
    char path[PATH_MAX];
    if (file[0] == '/') snprintf(path, sizeof path, "%s", file);
    else snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "_%s_7_cell_cu", hex);
    return fclose(f) == 0 ? 0 : -1;
}


static void list_dir(const char *dir, names_t *out) {
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) VEC_PUSH(*out, xstrdup(de->d_name));
    if (d) closedir(d);
}

/* The files the steps made beside the output: many megabytes of
 * preprocessed text that a cache entry need not keep. */
static void remove_intermediates(const char *dir, const names_t *before, const char *output) {
    names_t now = {0};
    list_dir(dir, &now);
    for (size_t i = 0; i < now.n; i++) {
        bool keep = output && !strcmp(now.v[i], output);
        for (size_t j = 0; j < before->n && !keep; j++) keep = !strcmp(now.v[i], before->v[j]);
        char path[PATH_MAX];
        struct stat st;
        if (!keep && snprintf(path, sizeof path, "%s/%s", dir, now.v[i]) < (int)sizeof path && lstat(path, &st) == 0 &&
            S_ISREG(st.st_mode))
            unlink(path);
        free(now.v[i]);
    }
    VEC_FREE(now);
}

/* The CPU time not in use, in CPUs, over SAMPLE_MS: "cpu" of /proc/stat
 * read twice (idle and iowait of the total). -1 when it cannot be read. */
#define SAMPLE_MS 50
#define SPARE_CPU 0.75 /* enough of a CPU left that a second chain does not slow the first */

static int cpu_times(unsigned long long *idle, unsigned long long *total) {
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                       &v[6], &v[7])
              : 0;
    if (f) fclose(f);
    if (n < 5) return -1;
    *idle = v[3] + v[4];
    *total = 0;
    for (int i = 0; i < 8; i++) *total += v[i];
    return 0;
}

static double spare_cpus(void) {
    unsigned long long i0, t0, i1, t1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 1 || cpu_times(&i0, &t0) != 0) return -1;
    usleep(SAMPLE_MS * 1000);
    if (cpu_times(&i1, &t1) != 0 || t1 <= t0) return -1;
    return (double)cpus * (double)(i1 - i0) / (double)(t1 - t0);
}

/* Side by side only with a CPU to spare: on a machine whose CPUs are all
 * busy, two front ends at once took longer than one after the other. */
static bool side_by_side_now(void) {
    const char *env = getenv(NVCC_STEPS_ENV);
    if (env && !strcmp(env, "1")) return true;
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) return false;
    double spare = spare_cpus();
    return spare < 0 || spare >= SPARE_CPU;
}

static const char *output_of(char *const *argv) {
    const char *o = NULL;
    for (int i = 0; argv[i]; i++)
        if (!strcmp(argv[i], "-o") && argv[i + 1]) o = argv[i + 1];
    return o && !strchr(o, '/') ? o : NULL;
}

static nvcc_steps_status_t dry_run(char *const *argv, const char *dir, nvcc_plan_t *plan, char *why, size_t cap) {
    int n = 0;
    while (argv[n]) n++;
    char **dry = xcalloc((size_t)n + 5, sizeof *dry);
    memcpy(dry, argv, (size_t)n * sizeof *dry);
    dry[n] = "--dryrun", dry[n + 1] = "--keep", dry[n + 2] = "--keep-dir", dry[n + 3] = ".";
    proc_opts_t o = {.cwd = dir};
    proc_result_t r;
    int rc = proc_run(dry, &o, &r);
    free(dry);
    nvcc_steps_status_t st = NVCC_STEPS_UNRECOGNISED;
    if (rc != 0) snprintf(why, cap, "%s", r.why);
    else if (r.interrupted) snprintf(why, cap, "interrupted during nvcc --dryrun");
    else if (!r.exited || r.exit_status != 0) snprintf(why, cap, "nvcc --dryrun failed");
    else if (nvcc_plan_parse(r.output, plan, why, cap) == 0) st = NVCC_STEPS_RAN;
    proc_result_free(&r);
    return st;
}

static const char *const tool_names[] = {
    [NVCC_UNKNOWN] = "?", [NVCC_RM] = "rm", [NVCC_CPP_HOST] = "gcc -E (host)", [NVCC_CPP_DEVICE] = "gcc -E (device)",
    [NVCC_CUDAFE] = "cudafe++", [NVCC_CICC] = "cicc", [NVCC_PTXAS] = "ptxas", [NVCC_FATBINARY] = "fatbinary",
    [NVCC_CC] = "gcc -c", [NVCC_NVLINK] = "nvlink", [NVCC_LINK] = "link"};
static const char *const pch_names[] = {[NVCC_PCH_NONE] = "", [NVCC_PCH_USED] = " (precompiled headers)",
                                        [NVCC_PCH_BUILDING] = " (precompiling the headers beside it)",
                                        [NVCC_PCH_PENDING] = " (the headers being precompiled elsewhere)"};

/* When NVCC_STEPS_LOG_ENV names a file: each step's start and end, in
 * seconds from the build's start, appended to it. */
static void log_steps(const build_t *b, double total, bool side_by_side) {
    const char *path = getenv(NVCC_STEPS_LOG_ENV);
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "build %s, front ends %s\n", b->dir, side_by_side ? "side by side" : "one after the other");
    for (int i = 0; i < b->plan->nsteps; i++) {
        const nvcc_step_t *s = &b->plan->steps[i];
        const step_result_t *r = &b->res[i];
        if (r->state == STEP_NOT_RUN || s->tool == NVCC_RM) continue;
        bool host_text = s->tool == NVCC_CC && nvcc_pch_input_word(s->argv) >= 0;
        fprintf(f, "%7.3f %7.3f %s%s\n", r->start, r->end, tool_names[s->tool], host_text ? pch_names[b->pch] : "");
    }
    fprintf(f, "%7.3f total\n", total);
    fclose(f);
}

nvcc_steps_status_t nvcc_steps_run(char *const *argv, const char *dir, const char *unit_id, const char *pch_root,
                                   proc_result_t *r, char *why, size_t cap) {
    memset(r, 0, sizeof *r);
    const char *env = getenv(NVCC_STEPS_ENV);
    if (env && !strcmp(env, "0")) {
        snprintf(why, cap, "%s=0", NVCC_STEPS_ENV);
        return NVCC_STEPS_UNRECOGNISED;
    }
    nvcc_plan_t plan;
    if (dry_run(argv, dir, &plan, why, cap) != NVCC_STEPS_RAN) return NVCC_STEPS_UNRECOGNISED;
    steps_t host = {0}, device = {0}, rest = {0}, first = {0};
    const char *module_file = NULL;
    nvcc_steps_status_t st = NVCC_STEPS_UNRECOGNISED;
    if (shape(&plan, &host, &device, &rest, &first, &module_file, why, cap) != 0)
        goto out;
    names_t before = {0};
    list_dir(dir, &before);
    if (write_module_id(&plan, dir, module_file, unit_id) != 0) {
        snprintf(why, cap, "cannot write the module id: %s", strerror(errno));
        for (size_t i = 0; i < before.n; i++) free(before.v[i]);
        VEC_FREE(before);
        goto out;
    }
    drop_word(&plan.steps[host.v[host.n - 1]], "--gen_module_id_file");

    build_t b = {.plan = &plan, .dir = dir, .res = xcalloc((size_t)plan.nsteps, sizeof *b.res),
                 .first_failed = plan.nsteps, .pch_root = pch_root};
    clock_gettime(CLOCK_MONOTONIC, &b.began);
    pthread_mutex_init(&b.lock, NULL);
    chain_t c_first = {.b = &b, .steps = first.v, .n = (int)first.n, .current = -1};
    chain_t c_host = {.b = &b, .steps = host.v, .n = (int)host.n, .current = -1};
    chain_t c_dev = {.b = &b, .steps = device.v, .n = (int)device.n, .current = -1};
    chain_t c_rest = {.b = &b, .steps = rest.v, .n = (int)rest.n, .current = -1};
    run_chain(&c_first);
    pthread_t th;
    pthread_mutex_lock(&b.lock);
    b.side_by_side[0] = &c_host, b.side_by_side[1] = &c_dev;
    pthread_mutex_unlock(&b.lock);
    bool spare = side_by_side_now();
    b.pch_may_build = spare; /* a header compiled in the background takes a CPU */
    bool threaded = spare && pthread_create(&th, NULL, run_chain, &c_host) == 0;
    if (!threaded) run_chain(&c_host); /* one after the other, as nvcc would */
    run_chain(&c_dev);
    if (threaded) pthread_join(th, NULL);
    pthread_mutex_lock(&b.lock);
    b.side_by_side[0] = b.side_by_side[1] = NULL;
    pthread_mutex_unlock(&b.lock);
    run_chain(&c_rest);
    log_steps(&b, since(&b), threaded);

    if (b.start_failed) { /* a tool would not start: nvcc whole, from the start */
        snprintf(why, cap, "%s", b.why);
    } else {
        st = NVCC_STEPS_RAN;
        strbuf_t log = {0};
        if (plan.said) sb_puts(&log, plan.said);
        bool stopped = false;
        for (int i = 0; i < plan.nsteps; i++) {
            step_result_t *sr = &b.res[i];
            if (sr->output) sb_puts(&log, sr->output);
            if (sr->state == STEP_FAILED) {
                r->exit_status = sr->exit_status;
                break;
            }
            if (sr->state != STEP_OK) {
                stopped = true;
                break;
            }
        }
        r->exited = true;
        r->interrupted = interrupt_pending() || (stopped && r->exit_status == 0);
        r->output = sb_take(&log);
        if (r->exited && !r->exit_status && !r->interrupted) remove_intermediates(dir, &before, output_of(argv));
    }
    for (int i = 0; i < plan.nsteps; i++) free(b.res[i].output);
    free(b.res);
    pthread_mutex_destroy(&b.lock);
    for (size_t i = 0; i < before.n; i++) free(before.v[i]);
    VEC_FREE(before);
out:
    VEC_FREE(host);
    VEC_FREE(device);
    VEC_FREE(rest);
    VEC_FREE(first);
    nvcc_plan_free(&plan);
    return st;
}
