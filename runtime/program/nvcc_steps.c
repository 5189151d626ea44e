/* nvcc's own steps, with the host's and the device's front ends side by
 * side (nvcc_steps.h). `nvcc --dryrun` lists the commands nvcc would run,
 * one per line after "#$ ", with the environment they need as assignments.
 * For one .cu file and one GPU architecture they come in three parts:
 *
 *   A  the host's preprocessing (gcc -E, .cpp4.ii), then cudafe++, which
 *      splits the host code from the device code;
 *   B  the device's preprocessing (gcc -E, .cpp1.ii), cicc, ptxas and
 *      fatbinary: the device code, compiled;
 *   C  the host compile of cudafe++'s output (which takes B's fatbinary in),
 *      the device link and the final link.
 *
 * A and B read only the source, so they run at once, each in a shell of its
 * own; C runs after both. Any other shape (several architectures or files,
 * relocatable device code, an nvcc that lists things otherwise) runs nvcc
 * itself, as before. */
#include "nvcc_steps.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"
#include "runtime/base/vec.h"

typedef VEC(char *) lines_t;

static bool assignment(const char *l) {
    if (!((*l >= 'A' && *l <= 'Z') || (*l >= 'a' && *l <= 'z') || *l == '_')) return false;
    while ((*l >= 'A' && *l <= 'Z') || (*l >= 'a' && *l <= 'z') || (*l >= '0' && *l <= '9') || *l == '_') l++;
    return *l == '=';
}

static bool starts(const char *s, const char *w) { return !strncmp(s, w, strlen(w)); }

typedef struct {
    char *script;
    const char *cwd;
    proc_result_t r;
    int rc;
} chain_t;

static void run_chain(chain_t *c) {
    char *argv[] = {"/bin/sh", "-c", c->script, NULL};
    proc_opts_t o = {.cwd = c->cwd};
    c->rc = proc_run(argv, &o, &c->r);
}

static void *chain_thread(void *arg) {
    run_chain(arg);
    return NULL;
}

/* A shell script: the environment, then cmds [a, b), stopping at the first
 * that fails. */
static char *script(const lines_t *env, const lines_t *cmds, size_t a, size_t b) {
    strbuf_t s = {0};
    for (size_t i = 0; i < env->n; i++) sb_printf(&s, "export %s\n", env->v[i]);
    for (size_t i = a; i < b; i++) sb_printf(&s, "%s || exit $?\n", cmds->v[i]);
    return sb_take(&s);
}

static bool ok(const chain_t *c) { return c->rc == 0 && c->r.exited && c->r.exit_status == 0 && !c->r.interrupted; }

static void free_lines(lines_t *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    VEC_FREE(*l);
}

int nvcc_steps_run(char *const argv[], const char *cwd, proc_result_t *r) {
    const char *serial = getenv("ICUDA_NVCC_SERIAL"); /* nvcc as it runs itself: for measuring */
    if (serial && *serial && strcmp(serial, "0")) {
        proc_opts_t po = {.cwd = cwd};
        return proc_run(argv, &po, r);
    }
    /* the plan */
    int n = 0;
    while (argv[n]) n++;
    char **dry = xcalloc((size_t)n + 2, sizeof *dry);
    for (int i = 0; i < n; i++) dry[i] = argv[i];
    dry[n] = "--dryrun";
    proc_opts_t o = {.cwd = cwd};
    proc_result_t plan;
    int rc = proc_run(dry, &o, &plan);
    free(dry);
    lines_t env = {0}, cmds = {0};
    if (rc == 0 && plan.exited && plan.exit_status == 0 && plan.output) {
        for (char *l = strtok(plan.output, "\n"); l; l = strtok(NULL, "\n")) {
            if (!starts(l, "#$ ")) continue;
            l += 3;
            lines_t *to = assignment(l) ? &env : &cmds;
            VEC_PUSH(*to, xstrdup(l));
        }
    }
    proc_result_free(&plan);
    /* its shape: A = 0..1, B = 2..host compile, C = the rest */
    size_t host_compile = 0;
    for (size_t i = 3; i < cmds.n && !host_compile; i++)
        if (strstr(cmds.v[i], "cudafe1.cpp")) host_compile = i;
    bool shape = cmds.n > 4 && host_compile && strstr(cmds.v[0], " -E ") && strstr(cmds.v[0], ".cpp4.ii") &&
                 starts(cmds.v[1], "cudafe++ ") && strstr(cmds.v[2], " -E ") && strstr(cmds.v[2], ".cpp1.ii");
    for (size_t i = 2; shape && i < host_compile; i++) shape = !strstr(cmds.v[i], "cudafe1");
    if (!shape) {
        free_lines(&env);
        free_lines(&cmds);
        proc_opts_t po = {.cwd = cwd};
        return proc_run(argv, &po, r);
    }
    chain_t a = {script(&env, &cmds, 0, 2), cwd, {0}, -1}, b = {script(&env, &cmds, 2, host_compile), cwd, {0}, -1};
    pthread_t th;
    bool threaded = pthread_create(&th, NULL, chain_thread, &a) == 0;
    if (!threaded) run_chain(&a);
    run_chain(&b);
    if (threaded) pthread_join(th, NULL);
    chain_t c = {NULL, cwd, {0}, -1};
    /* the front ends both report a source's errors: the host's, as nvcc
     * itself would (it runs A first) */
    chain_t *failed = !ok(&a) ? &a : !ok(&b) ? &b : NULL;
    if (!failed) {
        c.script = script(&env, &cmds, host_compile, cmds.n);
        run_chain(&c);
        if (!ok(&c)) failed = &c;
    }
    chain_t *last = failed ? failed : &c;
    memset(r, 0, sizeof *r);
    rc = last->rc;
    if (rc == 0) {
        r->exited = last->r.exited;
        r->exit_status = last->r.exit_status;
        r->signal = last->r.signal;
        r->killed = last->r.killed;
        r->interrupted = a.r.interrupted || b.r.interrupted || c.r.interrupted;
        strbuf_t out = {0};
        chain_t *parts[] = {&a, &b, &c};
        for (int k = 0; k < 3; k++)
            if ((!failed || parts[k] == failed) && parts[k]->r.output) sb_puts(&out, parts[k]->r.output);
        r->output = sb_take(&out);
    } else {
        snprintf(r->why, sizeof r->why, "%s", last->r.why);
    }
    proc_result_free(&a.r);
    proc_result_free(&b.r);
    proc_result_free(&c.r);
    free(a.script);
    free(b.script);
    free(c.script);
    /* the temporary files of a part that did not run to its own `rm` */
    for (size_t i = 0; i < cmds.n && failed; i++)
        for (char *p = strstr(cmds.v[i], "/tmp/tmpxft_"); p; p = strstr(p + 1, "/tmp/tmpxft_")) {
            size_t len = strcspn(p, "\" \t");
            char path[512];
            if (len < sizeof path) {
                memcpy(path, p, len);
                path[len] = 0;
                remove(path);
            }
        }
    free_lines(&env);
    free_lines(&cmds);
    return rc;
}
