/* Bounded, interruptible reads of files a cell names (file_read.h). */
#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"

const char *file_kind(unsigned mode) {
    return S_ISDIR(mode)    ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a pipe"
           : S_ISSOCK(mode) ? "a socket"
                            : "a special file";
}

static int os_error(cell_error_t *err, const char *path, int e) {
    cell_error_set(err, "OSError", NULL, "cannot read %s: %s", path, strerror(e));
    return -1;
}

static int not_regular(cell_error_t *err, const char *path, unsigned mode) {
    cell_error_set(err, "OSError", NULL, "cannot read %s: it is not a regular file (%s)", path, file_kind(mode));
    return -1;
}

int file_open_regular(const char *path, file_in_t *f, cell_error_t *err) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->path = path;
    struct stat st;
    /* refused before it is opened: opening a device can have effects of its own */
    if (stat(path, &st) != 0) return os_error(err, path, errno);
    if (!S_ISREG(st.st_mode)) return not_regular(err, path, st.st_mode);
    /* ... and checked again on what was opened, which may have been replaced
     * by a FIFO in between: O_NONBLOCK keeps that open from waiting */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return os_error(err, path, errno);
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return os_error(err, path, e);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return not_regular(err, path, st.st_mode);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    f->fd = fd;
    f->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return 0;
}

int file_read_next(file_in_t *f, void *dst, size_t n, cell_error_t *err) {
    unsigned char *p = dst;
    for (size_t got = 0; got < n;) {
        if (interrupt_pending()) {
            cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted while reading %s (%llu of %llu bytes read)",
                           f->path, (unsigned long long)f->done, (unsigned long long)f->size);
            return -1;
        }
        size_t want = n - got < FILE_READ_CHUNK ? n - got : FILE_READ_CHUNK;
        ssize_t k = read(f->fd, p + got, want);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return os_error(err, f->path, errno);
        if (k == 0) {
            cell_error_set(err, "OSError", NULL, "cannot read %s: it ended after %llu bytes, %llu were expected "
                           "(it changed while it was read)", f->path, (unsigned long long)f->done,
                           (unsigned long long)(f->done + (n - got)));
            return -1;
        }
        got += (size_t)k;
        f->done += (uint64_t)k;
    }
    return 0;
}

void file_close(file_in_t *f) {
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}

char *file_read_text(const char *path, size_t limit, bool prefix, size_t *len) {
    cell_error_t err = {0};
    size_t n = 0;
    char *t = file_read_all(path, limit, prefix, len ? len : &n, &err);
    cell_error_clear(&err);
    return t;
}

char *file_read_all(const char *path, size_t limit, bool prefix, size_t *len, cell_error_t *err) {
    file_in_t f;
    if (file_open_regular(path, &f, err) != 0) return NULL;
    uint64_t n = f.size;
    if (n > limit) {
        if (!prefix) {
            cell_error_set(err, "OSError", NULL, "cannot read %s: it is %llu bytes, more than the %zu a read takes "
                           "here", path, (unsigned long long)n, limit);
            file_close(&f);
            return NULL;
        }
        n = limit;
    }
    char *b = malloc((size_t)n + 1);
    if (!b) {
        cell_error_set(err, "MemoryError", NULL, "cannot read %s: no memory for its %llu bytes", path,
                       (unsigned long long)n);
        file_close(&f);
        return NULL;
    }
    int rc = file_read_next(&f, b, (size_t)n, err);
    file_close(&f);
    if (rc != 0) {
        free(b);
        return NULL;
    }
    b[n] = 0;
    *len = (size_t)n;
    return b;
}
