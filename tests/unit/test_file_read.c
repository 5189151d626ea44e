/* runtime/base/file_read.c: only regular files are opened (a FIFO without
 * blocking, a device, a folder refused), sizes are checked before reading,
 * an interrupt stops a read between chunks, a file that shrinks while it
 * is read is an error. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "runtime/base/file_read.h"
#include "runtime/base/interrupt.h"

static char dir[] = "/tmp/icuda-test-file-read-XXXXXX";

static char *at(const char *name) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void write_file(const char *name, size_t n) {
    FILE *f = fopen(at(name), "wb");
    for (size_t i = 0; i < n; i++) fputc('a' + (int)(i % 26), f);
    fclose(f);
}

/* The error a read of path gets (limit 1 MiB, whole files only). */
static void refused(const char *path, const char *ename, const char *evalue) {
    cell_error_t err = {0};
    size_t n = 0;
    char *t = file_read_all(path, (size_t)1 << 20, false, &n, &err);
    CHECK(t == NULL);
    CHECK_STR(err.ename, ename);
    CHECK_STR(err.evalue, evalue);
    if (!err.evalue || strcmp(err.evalue, evalue)) fprintf(stderr, "  (reading %s)\n", path);
    free(t);
    cell_error_clear(&err);
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    char want[512];

    /* a regular file, whole, larger than one chunk */
    write_file("text", 3 * FILE_READ_CHUNK + 5);
    cell_error_t err = {0};
    size_t n = 0;
    char *t = file_read_all(at("text"), 4 * FILE_READ_CHUNK, false, &n, &err);
    CHECK(t && n == 3 * FILE_READ_CHUNK + 5 && t[n] == 0 && t[n - 1] == 'a' + (int)((n - 1) % 26));
    free(t);

    /* over the limit: refused before reading, or its first part (prefix) */
    snprintf(want, sizeof want, "cannot read %s: it is 3145733 bytes, more than the 1048576 a read takes here",
             at("text"));
    refused(at("text"), "OSError", want);
    t = file_read_all(at("text"), 10, true, &n, &err);
    CHECK(t && n == 10);
    CHECK_STR(t, "abcdefghij");
    free(t);

    /* what is not a regular file, each refused at once (the FIFO would block an open) */
    refused("/dev/zero", "OSError", "cannot read /dev/zero: it is not a regular file (a character device)");
    CHECK(mkfifo(at("fifo"), 0600) == 0);
    snprintf(want, sizeof want, "cannot read %s: it is not a regular file (a pipe)", at("fifo"));
    refused(at("fifo"), "OSError", want);
    snprintf(want, sizeof want, "cannot read %s: it is not a regular file (a directory)", dir);
    refused(dir, "OSError", want);
    snprintf(want, sizeof want, "cannot read %s: No such file or directory", at("missing"));
    refused(at("missing"), "OSError", want);

    /* a sparse file of 100 GB: refused by its size, nothing read */
    int fd = open(at("sparse"), O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)100 << 30) == 0);
    close(fd);
    snprintf(want, sizeof want, "cannot read %s: it is 107374182400 bytes, more than the 1048576 a read takes here",
             at("sparse"));
    refused(at("sparse"), "OSError", want);

    /* an interrupt stops a read between chunks; the next read goes on */
    interrupt_raise();
    snprintf(want, sizeof want, "interrupted while reading %s (0 of 3145733 bytes read)", at("text"));
    t = file_read_all(at("text"), 4 * FILE_READ_CHUNK, false, &n, &err);
    CHECK(t == NULL);
    CHECK_STR(err.ename, "KeyboardInterrupt");
    CHECK_STR(err.evalue, want);
    cell_error_clear(&err);
    interrupt_clear();
    file_in_t f;
    CHECK(file_open_regular(at("text"), &f, &err) == 0 && f.size == 3 * FILE_READ_CHUNK + 5);
    char *buf = malloc(3 * FILE_READ_CHUNK + 5);
    CHECK(file_read_next(&f, buf, FILE_READ_CHUNK + 1, &err) == 0 && f.done == FILE_READ_CHUNK + 1);
    interrupt_raise();
    CHECK(file_read_next(&f, buf, FILE_READ_CHUNK, &err) == -1);
    snprintf(want, sizeof want, "interrupted while reading %s (1048577 of 3145733 bytes read)", at("text"));
    CHECK_STR(err.evalue, want);
    cell_error_clear(&err);
    interrupt_clear();
    file_close(&f);

    /* a file that shrinks while it is read */
    CHECK(file_open_regular(at("text"), &f, &err) == 0);
    CHECK(truncate(at("text"), 100) == 0);
    CHECK(file_read_next(&f, buf, 200, &err) == -1);
    snprintf(want, sizeof want, "cannot read %s: it ended after 100 bytes, 200 were expected (it changed while it "
             "was read)", at("text"));
    CHECK_STR(err.evalue, want);
    cell_error_clear(&err);
    file_close(&f);
    free(buf);

    char rm[300];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CHECK(system(rm) == 0);
    return check_report();
}
