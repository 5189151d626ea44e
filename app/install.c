/* Kernelspec installation. The locations follow jupyter_core's: the user
 * data dir is $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else
 * ~/.local/share/jupyter; a prefix P means P/share/jupyter. kernel.json
 * names this very binary by absolute path, so the spec works from any cwd. */
#include "install.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logos.h"
#include "runtime/base/xalloc.h"

static int mkdirs(const char *path) {
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof buf) return -1;
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_file(const char *dir, const char *name, const void *data, size_t len) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "icuda: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static const char *home_dir(void) {
    const char *h = getenv("HOME");
    if (h && *h) return h;
    struct passwd *pw = getpwuid(getuid());
    return pw ? pw->pw_dir : "/tmp";
}

int install_kernelspec(install_where_t where, const char *prefix) {
    char data_dir[PATH_MAX];
    const char *env;
    if (where == INSTALL_USER) {
        if ((env = getenv("JUPYTER_DATA_DIR")) && *env)
            snprintf(data_dir, sizeof data_dir, "%s", env);
        else if ((env = getenv("XDG_DATA_HOME")) && *env)
            snprintf(data_dir, sizeof data_dir, "%s/jupyter", env);
        else
            snprintf(data_dir, sizeof data_dir, "%s/.local/share/jupyter", home_dir());
    } else {
        if (where == INSTALL_SYS_PREFIX) {
            /* the Python environment a user works in; /usr/local otherwise */
            prefix = getenv("VIRTUAL_ENV");
            if (!prefix || !*prefix) prefix = getenv("CONDA_PREFIX");
            if (!prefix || !*prefix) prefix = "/usr/local";
        }
        if (!prefix || !*prefix) {
            fprintf(stderr, "icuda: --prefix needs a directory\n");
            return 1;
        }
        snprintf(data_dir, sizeof data_dir, "%s/share/jupyter", prefix);
    }
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/kernels/icuda", data_dir) >= (int)sizeof dir) {
        fprintf(stderr, "icuda: path too long\n");
        return 1;
    }

    char exe[PATH_MAX];
    if (!realpath("/proc/self/exe", exe)) {
        fprintf(stderr, "icuda: cannot find this program's path: %s\n", strerror(errno));
        return 1;
    }
    if (mkdirs(dir) != 0) {
        fprintf(stderr, "icuda: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    json_t *spec = json_pack("{s:[s, s, s], s:s, s:s, s:s, s:{}}", "argv", exe, "-f",
                             "{connection_file}", "display_name", "CUDA C (icuda)", "language",
                             "cuda", "interrupt_mode", "message", "metadata");
    char *text = spec ? json_dumps(spec, JSON_INDENT(1)) : NULL;
    json_decref(spec);
    if (!text) {
        fprintf(stderr, "icuda: cannot build kernel.json (path not UTF-8?)\n");
        return 1;
    }
    size_t tlen = strlen(text);
    char *t2 = xrealloc(text, tlen + 2);
    text = t2;
    text[tlen++] = '\n';
    int rc = write_file(dir, "kernel.json", text, tlen);
    free(text);
    size_t n;
    const logo_file_t *l = logos(&n);
    for (size_t i = 0; rc == 0 && i < n; i++) rc = write_file(dir, l[i].name, l[i].data, l[i].len);
    if (rc) return 1;
    printf("Installed kernelspec icuda in %s\n", dir);
    return 0;
}
