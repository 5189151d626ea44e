/* Reading a file a cell names (%load's .npy, the headers a %%program
 * includes): the one place that opens and reads such files, so that every
 * read is bounded and can be interrupted.
 *
 * - The open never blocks: a FIFO's open would wait for a writer (O_NONBLOCK
 *   while opening, cleared after).
 * - Only a regular file is read: a device (/dev/zero never ends), a pipe or
 *   a folder is refused with `OSError: cannot read PATH: it is not a regular
 *   file (a character device)`.
 * - The size is known before anything is read, so the caller checks it
 *   against its limit first (file_read_all takes one).
 * - Reads go in chunks of FILE_READ_CHUNK and poll the interrupt flag between
 *   them: `KeyboardInterrupt: interrupted while reading PATH (N of M bytes read)`.
 * - A file that shrinks while it is read is an error, not a short buffer. */
#ifndef ICUDA_FILE_READ_H
#define ICUDA_FILE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cell_io.h"

#define FILE_READ_CHUNK ((size_t)1 << 20)

typedef struct {
    int fd;
    uint64_t size; /* when it was opened */
    uint64_t done; /* bytes read so far */
    const char *path;
} file_in_t;

/* 0 with f open, or -1 with err set (OSError). path must outlive f. */
int file_open_regular(const char *path, file_in_t *f, cell_error_t *err);
/* The next n bytes into dst. 0, or -1 with err set (OSError, KeyboardInterrupt). */
int file_read_next(file_in_t *f, void *dst, size_t n, cell_error_t *err);
void file_close(file_in_t *f);

/* The whole file (NUL-terminated, malloc'd; *len its length), or NULL with
 * err set. A file over limit bytes is refused before anything is read
 * (`OSError: cannot read PATH: it is N bytes, more than the M a read takes
 * here`), unless prefix: then its first limit bytes are read. */
char *file_read_all(const char *path, size_t limit, bool prefix, size_t *len, cell_error_t *err);

/* file_read_all for a caller with no error to show: NULL on any failure
 * (no file, not a regular one, too big without prefix, interrupted). */
char *file_read_text(const char *path, size_t limit, bool prefix, size_t *len);

/* "a character device", "a directory", ... for a st_mode. */
const char *file_kind(unsigned mode);

#endif
