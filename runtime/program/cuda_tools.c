/* Finding and running the toolkit's tools (cuda_tools.h). */
#include "cuda_tools.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/base/interrupt.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

#define OUTPUT_CAP ((size_t)64 << 20) /* a whole module's SASS is a few MB at most */

static bool try_dir(const char *dir, size_t n, const char *name, char **found, strbuf_t *where) {
    if (!n) return false;
    char path[4096];
    snprintf(path, sizeof path, "%.*s/%s", (int)n, dir, name);
    if (where) sb_printf(where, "%s%.*s", where->len ? ", " : "", (int)n, dir);
    if (access(path, X_OK) == 0) {
        *found = xstrdup(path);
        return true;
    }
    return false;
}

static bool try_list(const char *list, const char *name, char **found, strbuf_t *where) {
    for (const char *p = list; p && *p;) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (try_dir(p, n, name, found, where)) return true;
        p = c ? c + 1 : p + n;
    }
    return false;
}

char *cuda_tool_find(const char *name, char *where, size_t where_cap) {
    strbuf_t w = {0};
    char *found = NULL;
    const char *only = getenv("ICUDA_TOOLS_PATH");
    if (only) {
        try_list(only, name, &found, &w);
    } else {
        const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), ICUDA_CUDA_HOME};
        for (size_t i = 0; i < 3 && !found; i++) {
            if (!homes[i] || !*homes[i]) continue;
            bool seen = false; /* CUDA_HOME is often the toolkit icuda was built with */
            for (size_t j = 0; j < i; j++) seen |= homes[j] && !strcmp(homes[j], homes[i]);
            if (seen) continue;
            char bin[4096];
            snprintf(bin, sizeof bin, "%s/bin", homes[i]);
            try_dir(bin, strlen(bin), name, &found, &w);
        }
        if (!found) {
            const char *path = getenv("PATH");
            if (path && *path) {
                strbuf_t ignore = {0};
                try_list(path, name, &found, &ignore);
                free(ignore.data);
                sb_printf(&w, "%sPATH", w.len ? ", " : "");
            }
        }
    }
    if (where && where_cap) snprintf(where, where_cap, "%s", w.data ? w.data : "");
    free(w.data);
    return found;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int cuda_tool_run(char *const argv[], int timeout_ms, tool_run_t *r) {
    memset(r, 0, sizeof *r);
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        if (po[0] >= 0) {
            close(po[0]);
            close(po[1]);
        }
        if (asprintf(&r->err, "cannot make a pipe: %s", strerror(errno)) < 0) r->err = NULL;
        return -1;
    }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) { /* only async-signal-safe calls until exec */
        if (devnull >= 0) dup2(devnull, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        execv(argv[0], argv);
        _exit(127);
    }
    if (devnull >= 0) close(devnull);
    close(po[1]);
    close(pe[1]);
    if (pid < 0) {
        close(po[0]);
        close(pe[0]);
        if (asprintf(&r->err, "cannot start %s: %s", argv[0], strerror(errno)) < 0) r->err = NULL;
        return -1;
    }
    strbuf_t out[2] = {{0}, {0}};
    int fds[2] = {po[0], pe[0]};
    double t0 = now_ms();
    bool killed = false;
    while (fds[0] >= 0 || fds[1] >= 0) {
        struct pollfd p[2] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}};
        int n = poll(p, 2, 50);
        if (n < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; i++) {
            if (fds[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char b[65536];
            ssize_t k = read(fds[i], b, sizeof b);
            if (k > 0) {
                if (out[i].len + (size_t)k <= OUTPUT_CAP) sb_append(&out[i], b, (size_t)k);
            } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
                close(fds[i]);
                fds[i] = -1;
            }
        }
        if (!killed && (now_ms() - t0 > timeout_ms || interrupt_pending())) {
            if (interrupt_pending()) r->interrupted = true;
            else r->timed_out = true;
            kill(pid, SIGKILL);
            killed = true;
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0) close(fds[i]);
    int st = 0;
    for (;;) { /* its pipes are closed; it may still be running */
        pid_t w = waitpid(pid, &st, killed ? 0 : WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) break;
        if (w == 0 && (now_ms() - t0 > timeout_ms || interrupt_pending())) {
            r->timed_out = !interrupt_pending();
            r->interrupted = interrupt_pending();
            kill(pid, SIGKILL);
            killed = true;
        } else if (w == 0) {
            usleep(2000);
        }
    }
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
    r->out = sb_take(&out[0]);
    r->err = sb_take(&out[1]);
    return 0;
}

void tool_run_free(tool_run_t *r) {
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

char *program_find_nvcc(char *where, size_t cap) {
    const char *forced = getenv("ICUDA_NVCC");
    if (forced && *forced) {
        if (where && cap) snprintf(where, cap, "ICUDA_NVCC=%s", forced);
        return access(forced, X_OK) == 0 ? xstrdup(forced) : NULL;
    }
    return cuda_tool_find("nvcc", where, cap);
}
