/* icuda's entry point: `icuda -f CONNECTION_FILE` runs the kernel (what a
 * Jupyter client does); `icuda --install` writes the kernelspec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_language.h"
#include "install.h"
#include "kernel/server.h"
#include "runtime/device/nvrtc_compile.h"

static void usage(FILE *out) {
    fprintf(out,
            "icuda %s: a Jupyter kernel for interactive CUDA C\n"
            "\n"
            "usage:\n"
            "  icuda -f CONNECTION_FILE         run the kernel (Jupyter starts it this way)\n"
            "  icuda --install [--user]         install the kernelspec for this user\n"
            "  icuda --install --sys-prefix     ... into $VIRTUAL_ENV (or $CONDA_PREFIX)\n"
            "  icuda --install --prefix DIR     ... into DIR/share/jupyter/kernels/icuda\n"
            "  icuda --version | --help\n",
            ICUDA_VERSION);
}

#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer reserves the low "shadow gap" in a way that makes the CUDA
 * driver's cuInit fail, so an ASan build would find no GPU and compile for the
 * wrong architecture; the driver needs the gap left unprotected. Fake stacks
 * are on whatever the ASan version's default (gcc 13's has them, gcc 12's
 * not), so every build checks the same and finds returns into dead frames. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0:detect_stack_use_after_return=1"; }
#endif

int main(int argc, char **argv) {
    const char *conn_file = NULL, *prefix = NULL;
    int install = 0;
    install_where_t where = INSTALL_USER;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-f") == 0 || strcmp(a, "--connection-file") == 0) {
            if (++i == argc) {
                fprintf(stderr, "icuda: %s needs a file\n", a);
                return 2;
            }
            conn_file = argv[i];
        } else if (strncmp(a, "--connection-file=", 18) == 0) {
            conn_file = a + 18;
        } else if (strcmp(a, "--install") == 0) {
            install = 1;
        } else if (strcmp(a, "--user") == 0) {
            where = INSTALL_USER;
        } else if (strcmp(a, "--sys-prefix") == 0) {
            where = INSTALL_SYS_PREFIX;
        } else if (strcmp(a, "--prefix") == 0) {
            if (++i == argc) {
                fprintf(stderr, "icuda: --prefix needs a directory\n");
                return 2;
            }
            where = INSTALL_PREFIX;
            prefix = argv[i];
        } else if (strncmp(a, "--prefix=", 9) == 0) {
            where = INSTALL_PREFIX;
            prefix = a + 9;
        } else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            printf("icuda %s\n", ICUDA_VERSION);
            return 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "icuda: unknown argument '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (install) return install_kernelspec(where, prefix);
    if (!conn_file) {
        usage(stderr);
        return 2;
    }
    language_t *lang = cuda_language_new();
    int status = server_run(conn_file, lang);
    cuda_language_free(lang);
    if (nvrtc_compile_busy()) { /* an abandoned compile: skip NVRTC's exit handlers */
        fflush(NULL);
        _exit(status);
    }
    return status;
}
