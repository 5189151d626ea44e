/* libFuzzer target: the connection-file reader (kernel/connection.c) on any
 * text, and the endpoint string it makes for each port when it accepts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/connection.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
    connection_t c;
    char why[256], ep[512];
    if (connection_parse((const char *)data, n, "kernel.json", &c, why, sizeof why) == 0) {
        if (!c.key) abort(); /* accepted means a key, "" at least */
        int ports[] = {c.shell_port, c.control_port, c.iopub_port, c.stdin_port, c.hb_port};
        for (int i = 0; i < 5; i++) {
            if (ports[i] < 0 || ports[i] > 65535) abort();
            connection_endpoint(&c, ports[i], ep, sizeof ep);
        }
        connection_free(&c);
    } else if (c.key || !memchr(why, 0, sizeof why)) {
        abort(); /* a refusal frees what it took and says why */
    }
    return 0;
}
