/* Record I/O on the command channel (channel.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "runtime/gpu/channel.h"

#include <errno.h>
#include <sys/socket.h>

int ch_send(int fd, const void *rec, size_t len) {
    for (;;) {
        ssize_t n = send(fd, rec, len, MSG_NOSIGNAL);
        if (n == (ssize_t)len) return 0;
        if (n < 0 && errno == EINTR) continue;
        if (n >= 0) errno = EMSGSIZE;
        return -1;
    }
}

long ch_recv(int fd, void *buf, size_t cap) {
    for (;;) {
        ssize_t n = recv(fd, buf, cap, 0);
        if (n >= 0) return (long)n;
        if (errno == EINTR) continue;
        return -1;
    }
}
