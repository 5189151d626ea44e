/* The connection file a Jupyter client writes for a kernel it starts:
 * transport, address, the five ports and the signing key. */
#ifndef ICUDA_CONNECTION_H
#define ICUDA_CONNECTION_H

#include <stddef.h>

typedef struct connection {
    char transport[8]; /* "tcp" or "ipc" */
    char ip[256];      /* host for tcp; path prefix for ipc */
    int shell_port, control_port, iopub_port, stdin_port, hb_port;
    char *key;         /* malloc'd; "" means messages are not signed */
    char signature_scheme[32];
} connection_t;

/* Reads and checks a connection file. Returns 0, or -1 with a reason in why. */
int connection_load(const char *path, connection_t *c, char *why, size_t whylen);
/* The same from the file's text (len bytes, no NUL needed); name stands for
 * the path in messages. The fuzzer (tests/fuzz/fuzz_conn.c) enters here. */
int connection_parse(const char *text, size_t len, const char *name, connection_t *c, char *why, size_t whylen);
void connection_free(connection_t *c);

/* The zmq endpoint of one channel: "tcp://127.0.0.1:5555" or "ipc://path-5555"
 * (the jupyter_client convention for ipc). */
void connection_endpoint(const connection_t *c, int port, char *out, size_t outlen);

#endif
