/* icuda-mock's entry point: `icuda-mock -f CONNECTION_FILE` runs the
 * protocol layer (kernel/) over the mock language, as icuda runs it over
 * the cell engine. */
#include <stdio.h>
#include <string.h>

#include "kernel/server.h"
#include "mock_language.h"

#if defined(__SANITIZE_ADDRESS__)
/* as icuda's: returns into dead frames are found too */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_stack_use_after_return=1"; }
#endif

int main(int argc, char **argv) {
    const char *conn_file = NULL;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--connection-file") == 0) && i + 1 < argc)
            conn_file = argv[++i];
        else if (strncmp(argv[i], "--connection-file=", 18) == 0)
            conn_file = argv[i] + 18;
        else {
            fprintf(stderr, "icuda-mock: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (!conn_file) {
        fprintf(stderr, "usage: icuda-mock -f CONNECTION_FILE\n");
        return 2;
    }
    language_t *lang = mock_language_new();
    int status = server_run(conn_file, lang);
    mock_language_free(lang);
    return status;
}
