/* %save and %load: NumPy .npy files, so arrays move between
 * this kernel and Python. Format 1.0 (2.0 when the header needs it),
 * little-endian, C order, the dtype from the C type. A save goes to a
 * temporary file renamed into place, so a failure leaves nothing half
 * written; a load checks the whole header, the data's length and the host
 * memory left first, and reads through runtime/base/file_read.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrays.h"
#include "npy_header.h"
#include "runtime/base/file_read.h"
#include "runtime/base/strbuf.h"
#include "runtime/hostmem/arena.h"

#include "runtime/base/xalloc.h"
static int io_error(cell_error_t *err, const char *what, const char *path) {
    cell_error_set(err, "OSError", NULL, "%s %s: %s", what, path, strerror(errno));
    return -1;
}

/* path with its symlinks followed to the name they lead to, which need
 * not exist yet (malloc'd); NULL when path is not a link (or a loop). */
static char *link_target(const char *path) {
    char *p = xstrdup(path);
    struct stat st;
    int hops = 0;
    while (p && lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
        char buf[4096];
        ssize_t n = readlink(p, buf, sizeof buf - 1);
        if (n < 0 || ++hops > 40) {
            free(p);
            return NULL;
        }
        buf[n] = 0;
        char *next = NULL;
        const char *slash = strrchr(p, '/');
        if (buf[0] == '/' || !slash) next = xstrdup(buf);
        else if (asprintf(&next, "%.*s/%s", (int)(slash - p), p, buf) < 0) next = NULL;
        free(p);
        p = next;
    }
    if (hops == 0) {
        free(p);
        return NULL;
    }
    return p;
}

static int write_file(const char *path, const void *head, size_t hl, const void *data, size_t n, cell_error_t *err) {
    /* The rename would put a new file in place of whatever the name is: a
     * symlink (numpy writes through it, so this does too) or a device
     * (%save /dev/null as root replaced the machine's /dev/null). */
    char *real = link_target(path);
    struct stat st;
    if (stat(real ? real : path, &st) == 0 && !S_ISREG(st.st_mode)) {
        cell_error_set(err, "OSError", NULL, "cannot write %s: it is not a regular file (%s)", path,
                       file_kind(st.st_mode));
        free(real);
        return -1;
    }
    if (real) path = real;
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.tmp-%d", path, (int)getpid()) < 0) abort();
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        io_error(err, "cannot write", path);
        free(tmp);
        free(real);
        return -1;
    }
    bool ok = fwrite(head, 1, hl, f) == hl && (n == 0 || fwrite(data, 1, n, f) == n);
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        io_error(err, "cannot write", path);
        free(tmp);
        free(real);
        return -1;
    }
    free(tmp);
    free(real);
    return 0;
}

static int save_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    const char *pos[3] = {0};
    int npos = 0, nd = 0, rc = 0;
    long dims[NPY_MAX_DIMS];
    bool shaped = false;
    for (int i = 0; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--shape")) {
            if (i + 1 >= argc || !npy_parse_shape(argv[++i], dims, &nd))
                rc = magic_usage_error(&magic_save, err, "--shape takes whole numbers separated by commas (--shape 64,128)");
            shaped = true;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') rc = magic_usage_error(&magic_save, err, "unknown option %s", argv[i]);
        else if (npos == 3) rc = magic_usage_error(&magic_save, err, "too many arguments: %s", argv[i]);
        else pos[npos++] = argv[i];
    }
    if (!rc && npos < 2) rc = magic_usage_error(&magic_save, err, "a file name and an array, please");
    interp_array_t a;
    void *data = NULL;
    if (!rc) {
        char *arg = NULL;
        if (asprintf(&arg, "%s%s%s", pos[1], pos[2] ? ":" : "", pos[2] ? pos[2] : "") < 0) abort();
        rc = magic_array(mc, "%save", arg, &a, err);
        free(arg);
    }
    const npy_dtype_t *d = rc ? NULL : npy_dtype_of(a.elem, a.esize);
    if (!rc && !d) {
        cell_error_set(err, "TypeError", NULL, "%%save: .npy has no dtype for %s", a.ctype);
        rc = -1;
    }
    if (!rc && shaped) {
        unsigned long long prod = 1;
        for (int i = 0; i < nd; i++) prod *= (unsigned long long)dims[i];
        if (!pos[2] && prod <= a.count) a.count = prod;
        else if (prod != a.count)
            rc = magic_usage_error(&magic_save, err, "--shape %s holds %llu elements, but %llu are saved%s",
                                   argv[argc - 1], prod, (unsigned long long)a.count,
                                   pos[2] ? "" : " (all that the array holds)");
    }
    if (!rc && !shaped) {
        nd = 1;
        dims[0] = (long)a.count;
    }
    if (!rc && !(data = magic_array_bytes(mc, &a, a.count, err))) rc = -1;
    if (!rc) {
        size_t hl;
        char *head = npy_header(d, dims, nd, &hl);
        rc = write_file(pos[0], head, hl, data, a.count * a.esize, err);
        free(head);
        if (!rc) {
            char sz[32];
            magic_fmt_bytes((double)(hl + a.count * a.esize), sz, sizeof sz);
            strbuf_t s = {0};
            for (int i = 0; i < nd; i++) sb_printf(&s, "%s%ld", i ? ", " : "", dims[i]);
            char *shape = sb_take(&s);
            io_printf(mc->io, "stdout", "saved %s (%s, shape (%s%s), %s) to %s\n", pos[1], d->code[0] == 'b' ? "bool" : d->code,
                      shape, nd == 1 ? "," : "", sz, pos[0]);
            free(shape);
        }
    }
    free(data);
    magic_free_args(argv, argc);
    return rc;
}

static bool c_name(const char *s) {
    if (!(isalpha((unsigned char)*s) || *s == '_') || strlen(s) > 60) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

/* What %load reads of a file to find its header: NumPy itself refuses
 * headers over 10,000 bytes unless told otherwise. */
#define NPY_HEAD_READ ((size_t)1 << 20)

/* The file's data: the part its header's read brought (head), the rest
 * read in interruptible chunks, into a private mapping the copy gives back
 * as it goes. MAP_FAILED with err set. */
static unsigned char *read_data(file_in_t *f, const unsigned char *head, size_t hl, const npy_t *h, size_t bytes,
                                cell_error_t *err) {
    unsigned char *d = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (d == MAP_FAILED) {
        cell_error_set(err, "MemoryError", NULL, "cannot read %s: no memory for its %zu bytes of data", f->path, bytes);
        return MAP_FAILED;
    }
    size_t have = hl - h->data_off < bytes ? hl - h->data_off : bytes;
    memcpy(d, head + h->data_off, have);
    if (file_read_next(f, d + have, bytes - have, err) != 0) {
        munmap(d, bytes);
        return MAP_FAILED;
    }
    return d;
}

/* src (the file's bytes, mapped) into dst, in the host's byte order; src's
 * pages are given back as they are copied, so that the load never holds
 * the data twice. */
static void copy_out(unsigned char *dst, unsigned char *src, size_t bytes, const npy_t *h) {
    size_t es = (size_t)h->d->esize, page = (size_t)sysconf(_SC_PAGESIZE), step = (size_t)64 << 20;
    step -= step % (es * page);
    for (size_t at = 0; at < bytes; at += step) {
        size_t n = bytes - at < step ? bytes - at : step;
        if (!h->swap) {
            memcpy(dst + at, src + at, n);
        } else {
            for (size_t i = at; i < at + n; i += es)
                for (size_t k = 0; k < es; k++) dst[i + k] = src[i + es - 1 - k];
        }
        if (n == step) madvise(src + at, n, MADV_DONTNEED);
    }
}

static int load_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    int rc = 0;
    unsigned char *head = NULL, *data = MAP_FAILED;
    size_t hl = 0, bytes = 0;
    file_in_t f = {.fd = -1};
    npy_t h;
    if (argc != 2) rc = magic_usage_error(&magic_load, err, "a variable name and a .npy file, please");
    else if (!c_name(argv[0])) rc = magic_usage_error(&magic_load, err, "%s is not a C variable name", argv[0]);
    if (!rc) rc = file_open_regular(argv[1], &f, err);
    if (!rc) {
        hl = f.size < NPY_HEAD_READ ? (size_t)f.size : NPY_HEAD_READ;
        head = xmalloc(hl ? hl : 1);
        rc = file_read_next(&f, head, hl, err);
    }
    if (!rc) rc = npy_parse_header(argv[1], head, hl, f.size, &h, err);
    if (!rc) {
        /* checked before the data is read: it goes to host memory, under its limit */
        bytes = (size_t)(h.count * (uint64_t)h.d->esize);
        size_t room = arena_available();
        if (bytes > room) {
            char need[32], left[32];
            magic_fmt_bytes((double)bytes, need, sizeof need);
            magic_fmt_bytes((double)room, left, sizeof left);
            cell_error_set(err, "MemoryError", NULL, "%s holds %s of data, more than the %s of host memory cells may "
                           "still allocate", argv[1], need, left);
            rc = -1;
        }
    }
    if (!rc && bytes && (data = read_data(&f, head, hl, &h, bytes, err)) == MAP_FAILED) rc = -1;
    file_close(&f);
    free(head);
    if (!rc) {
        /* the variable and its shape, declared as a cell would declare them */
        strbuf_t c = {0};
        sb_printf(&c, "%s *%s = (%s *)malloc(%llu);\nlong %s_shape[%d] = {", h.d->ctype, argv[0], h.d->ctype,
                  (unsigned long long)(bytes ? bytes : 1), argv[0], h.nd ? h.nd : 1);
        for (int i = 0; i < h.nd; i++) sb_printf(&c, "%s%ld", i ? ", " : "", h.dims[i]);
        sb_puts(&c, h.nd ? "};\n" : "1};\n");
        char *code = sb_take(&c);
        rc = mc->run(mc, code, err);
        free(code);
    }
    interp_array_t a;
    if (!rc) {
        char *t = NULL;
        if (asprintf(&t, "%%load %s", argv[0]) < 0) abort();
        interp_text_t it = {t, 6, "%load"};
        rc = interp_array(mc->interp, &it, &a, err);
        free(t);
    }
    if (!rc && (!a.host || a.count < h.count)) {
        cell_error_set(err, "MemoryError", NULL, "%s: no host memory for %s's %zu bytes (malloc gave NULL)", argv[1],
                       argv[0], bytes);
        rc = -1;
    }
    if (!rc) {
        if (bytes) copy_out(a.host, data, bytes, &h);
        strbuf_t s = {0};
        for (int i = 0; i < h.nd; i++) sb_printf(&s, "%s%ld", i ? ", " : "", h.dims[i]);
        char *shape = sb_take(&s);
        io_printf(mc->io, "stdout", "%s: %s[%llu] on the host, shape (%s%s) in %s_shape\n", argv[0], h.d->ctype,
                  (unsigned long long)h.count, shape, h.nd == 1 ? "," : "", argv[0]);
        free(shape);
    }
    if (data != MAP_FAILED) munmap(data, bytes);
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_save = {
    "save", "%save FILE.npy EXPR [COUNT] [--shape a,b,...]", "save an array (host or device) as a NumPy .npy file",
    "EXPR is an array or a pointer to numbers (a device buffer is copied from the GPU); COUNT elements are\n"
    "saved (all the array or buffer holds unless told), with the dtype of the C type (float <f4, double <f8,\n"
    "int <i4, long <i8, unsigned char |u1, bool |b1, ...) and shape (COUNT,) or --shape. The file is written\n"
    "whole or not at all. numpy.load(FILE) reads it.\n"
    "  %save results.npy times 16\n  %save image.npy d_img --shape 480,640",
    save_line, NULL};

const magic_t magic_load = {
    "load", "%load NAME FILE.npy", "load a NumPy .npy file into a new host array NAME",
    "Declares NAME as a host buffer of the file's dtype (float for <f4, double for <f8, int for <i4, ...)\n"
    "holding its data in C order, and long NAME_shape[ndim] with its shape. Format versions 1.0 to 3.0;\n"
    "big-endian files are converted; Fortran-ordered arrays of two or more dimensions are refused.",
    load_line, NULL};
