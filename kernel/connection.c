/* Connection file: a JSON object written by the client. Everything in it is
 * checked, since a wrong port or scheme would otherwise surface as a kernel
 * that silently never answers. */
#include "connection.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/base/xalloc.h"

static int get_port(json_t *root, const char *name, int *out, char *why, size_t whylen) {
    json_t *v = json_object_get(root, name);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 65535) {
        snprintf(why, whylen, "\"%s\" missing or not a port number", name);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

static int get_str(json_t *root, const char *name, const char *dflt, char *out, size_t outlen,
                   char *why, size_t whylen) {
    json_t *v = json_object_get(root, name);
    const char *s = dflt;
    if (v) {
        if (!json_is_string(v)) {
            snprintf(why, whylen, "\"%s\" is not a string", name);
            return -1;
        }
        s = json_string_value(v);
    }
    if (!s) {
        snprintf(why, whylen, "\"%s\" missing", name);
        return -1;
    }
    if (strlen(s) >= outlen) {
        snprintf(why, whylen, "\"%s\" too long", name);
        return -1;
    }
    strcpy(out, s);
    return 0;
}

/* root: the parsed file, or NULL with jerr set; consumed. */
static int check(json_t *root, json_error_t *jerr, const char *path, connection_t *c, char *why,
                 size_t whylen) {
    if (!root) {
        /* jansson quotes the text "near" the error, which may be the key */
        char *near = strstr(jerr->text, " near ");
        if (near) *near = 0;
        snprintf(why, whylen, "%s: %s (line %d)", path, jerr->text, jerr->line);
        return -1;
    }
    int rc = -1;
    if (!json_is_object(root)) {
        snprintf(why, whylen, "%s: not a JSON object", path);
        goto out;
    }
    if (get_str(root, "transport", "tcp", c->transport, sizeof c->transport, why, whylen) ||
        get_str(root, "ip", "127.0.0.1", c->ip, sizeof c->ip, why, whylen) ||
        get_str(root, "signature_scheme", "hmac-sha256", c->signature_scheme,
                sizeof c->signature_scheme, why, whylen))
        goto out;
    if (strcmp(c->transport, "tcp") != 0 && strcmp(c->transport, "ipc") != 0) {
        snprintf(why, whylen, "transport \"%s\" is not supported (tcp or ipc)", c->transport);
        goto out;
    }
    if (get_port(root, "shell_port", &c->shell_port, why, whylen) ||
        get_port(root, "control_port", &c->control_port, why, whylen) ||
        get_port(root, "iopub_port", &c->iopub_port, why, whylen) ||
        get_port(root, "stdin_port", &c->stdin_port, why, whylen) ||
        get_port(root, "hb_port", &c->hb_port, why, whylen))
        goto out;
    json_t *key = json_object_get(root, "key");
    if (key && !json_is_string(key)) {
        snprintf(why, whylen, "\"key\" is not a string");
        goto out;
    }
    c->key = xstrdup(key ? json_string_value(key) : "");
    /* refused with or without a key, as ipykernel refuses a scheme it does
     * not know: a client that asked for one expects it to be used */
    if (strcmp(c->signature_scheme, "hmac-sha256") != 0) {
        snprintf(why, whylen, "signature_scheme \"%s\" is not supported (hmac-sha256)",
                 c->signature_scheme);
        goto out;
    }
    rc = 0;
out:
    json_decref(root);
    if (rc) connection_free(c);
    return rc;
}

/* A connection file is a small regular file: the open does not block (a
 * FIFO's would wait for a writer, and the kernel would never start) and
 * nothing else is read (/dev/zero would never end). */
#define CONNECTION_FILE_MAX (1 << 20)

int connection_load(const char *path, connection_t *c, char *why, size_t whylen) {
    memset(c, 0, sizeof *c);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    bool stated = fstat(fd, &st) == 0;
    if (!stated || !S_ISREG(st.st_mode) || st.st_size > CONNECTION_FILE_MAX) {
        snprintf(why, whylen, "%s: %s", path, !stated ? strerror(errno) : !S_ISREG(st.st_mode) ? "not a regular file"
                                                                 : "larger than a connection file can be (1 MiB)");
        close(fd);
        return -1;
    }
    /* sized by the file: no room for it is reported as the file's error */
    char *text = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    while (text && n < (size_t)st.st_size) {
        ssize_t r = read(fd, text + n, (size_t)st.st_size - n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (!text) {
        snprintf(why, whylen, "%s: no memory to read it", path);
        return -1;
    }
    int rc = connection_parse(text, n, path, c, why, whylen);
    free(text);
    return rc;
}

int connection_parse(const char *text, size_t len, const char *name, connection_t *c, char *why, size_t whylen) {
    memset(c, 0, sizeof *c);
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    return check(root, &jerr, name, c, why, whylen);
}

void connection_free(connection_t *c) {
    free(c->key);
    c->key = NULL;
}

void connection_endpoint(const connection_t *c, int port, char *out, size_t outlen) {
    if (strcmp(c->transport, "ipc") == 0)
        snprintf(out, outlen, "ipc://%s-%d", c->ip, port);
    else if (strchr(c->ip, ':') && c->ip[0] != '[')
        snprintf(out, outlen, "tcp://[%s]:%d", c->ip, port); /* IPv6 literal */
    else
        snprintf(out, outlen, "tcp://%s:%d", c->ip, port);
}
