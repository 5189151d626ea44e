/* Cell history for history_request, kept across kernel restarts in a file
 * of JSON lines, as IPython keeps its history database: each kernel
 * process is a new session (one more than the last in the file).
 *
 * Everything is bounded: one input (HISTORY_INPUT_MAX, the rest cut with a
 * note), one output, what is kept in memory (entries and bytes), a line of
 * the file, and a history_reply (HISTORY_REPLY_MAX of JSON: the newest
 * entries that fit). Kernels sharing the file take turns on it with flock:
 * a session number is taken and written down under the lock, so two kernels
 * started at once never share one. */
#include "history.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "runtime/base/xalloc.h"

#define HISTORY_MAX 10000                     /* entries kept (the file is cut back to them at start) */
#define HISTORY_BYTES_MAX ((size_t)64 << 20)  /* inputs and outputs kept, all together */
#define HISTORY_INPUT_MAX ((size_t)1 << 20)   /* bytes of one input kept; a note says what was cut */
#define HISTORY_OUT_MAX ((size_t)10000)       /* bytes of an output kept */
#define HISTORY_LINE_MAX ((size_t)8 << 20)    /* a longer line of the file is skipped (none is written) */
#define HISTORY_REPLY_MAX ((size_t)16 << 20)  /* a history_reply's entries, as JSON text */
#define HISTORY_LOCK_WAIT_MS 5000             /* for another kernel's turn on the file */

typedef struct entry {
    int session, line;
    char *code, *out; /* out may be NULL */
} entry_t;

struct history {
    pthread_mutex_t mu;
    entry_t *e;
    size_t n, cap, bytes;
    int session;
    char *path; /* NULL: memory only */
};

static size_t entry_bytes(const entry_t *e) { return strlen(e->code) + (e->out ? strlen(e->out) : 0); }

static void entry_free(entry_t *e) {
    free(e->code);
    free(e->out);
}

static void drop_oldest(history_t *h) {
    h->bytes -= entry_bytes(&h->e[0]);
    entry_free(&h->e[0]);
    memmove(h->e, h->e + 1, (h->n - 1) * sizeof *h->e);
    h->n--;
}

static void push(history_t *h, entry_t e) {
    size_t b = entry_bytes(&e);
    while (h->n && (h->n == HISTORY_MAX || h->bytes + b > HISTORY_BYTES_MAX)) drop_oldest(h);
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        /* history is kept at best: no room loses this entry, not the kernel */
        entry_t *x = realloc(h->e, cap * sizeof *x);
        if (!x) {
            entry_free(&e);
            return;
        }
        h->e = x;
        h->cap = cap;
    }
    h->e[h->n++] = e;
    h->bytes += b;
}

/* The first max bytes of s or fewer, never half a UTF-8 character (a JSON
 * string must be valid UTF-8); malloc'd. */
static char *utf8_prefix(const char *s, size_t len, size_t max, size_t *kept) {
    size_t n = len;
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    *kept = n;
    return strndup(s, n); /* a cell's input or output, up to max: NULL, and the history goes without it */
}

/* An input as kept: whole, or its first HISTORY_INPUT_MAX bytes and a note. */
static char *kept_input(const char *code) {
    size_t len = strlen(code), kept;
    char *head = utf8_prefix(code, len, HISTORY_INPUT_MAX, &kept);
    if (!head || kept == len) return head;
    char *s = NULL;
    int r = asprintf(&s, "%s\n// [history: the input was %zu bytes; its first %zu are kept]", head, len, kept);
    free(head);
    return r < 0 ? NULL : s;
}

static json_t *entry_json(const entry_t *e) {
    json_t *j = json_pack("{s:i, s:i, s:s}", "session", e->session, "line", e->line, "input", e->code);
    if (j && e->out) json_object_set_new(j, "output", json_string(e->out));
    return j;
}

static int mkdirs(const char *path) {
    char *d = xstrdup(path);
    for (char *p = d + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(d, 0700);
        *p = '/';
    }
    free(d);
    return 0;
}

/* $ICUDA_HISTORY (a file; empty: none), else the data directory's
 * icuda/history.jsonl: $JUPYTER_DATA_DIR, $XDG_DATA_HOME or ~/.local/share. */
static char *default_path(void) {
    const char *env = getenv("ICUDA_HISTORY");
    if (env) return *env ? xstrdup(env) : NULL;
    char *p = NULL;
    const char *jd = getenv("JUPYTER_DATA_DIR"), *xd = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int r = jd && *jd   ? asprintf(&p, "%s/icuda/history.jsonl", jd)
            : xd && *xd ? asprintf(&p, "%s/icuda/history.jsonl", xd)
            : home      ? asprintf(&p, "%s/.local/share/icuda/history.jsonl", home)
                        : -1;
    return r < 0 ? NULL : p;
}

/* flock that gives up after HISTORY_LOCK_WAIT_MS (a process that keeps the
 * file locked must not hold the kernel): 0, or -1. */
static int lock_bounded(int fd) {
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int waited = 0; waited <= HISTORY_LOCK_WAIT_MS; waited += 10) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK && errno != EINTR) return -1;
        nanosleep(&tick, NULL);
    }
    return -1;
}

/* The history file, opened (created when missing) and locked: a regular
 * file only, opened without blocking (a FIFO's open would wait), and the
 * file the path names once the lock is held (another kernel may have
 * replaced it while cutting it back). fd, or -1 with why. */
static int open_locked(const char *path, const char **why) {
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
        struct stat st, now;
        if (fd < 0) {
            *why = strerror(errno);
            return -1;
        }
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            *why = "it is not a regular file";
            return -1;
        }
        if (lock_bounded(fd) != 0) {
            close(fd);
            *why = "another process keeps it locked";
            return -1;
        }
        if (stat(path, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino) {
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        close(fd); /* replaced while waiting: lock the new one */
    }
    *why = "it keeps being replaced";
    return -1;
}

static int write_all(int fd, const char *s, size_t n) {
    while (n) {
        ssize_t k = write(fd, s, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        s += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Appends one JSON line under the lock. 0, or -1 with why. */
static int append_line(const char *path, json_t *j, const char **why) {
    char *s = json_dumps(j, JSON_COMPACT);
    if (!s) {
        *why = "out of memory";
        return -1;
    }
    int fd = open_locked(path, why), rc = -1;
    if (fd >= 0) {
        size_t n = strlen(s);
        s[n] = '\n'; /* json_dumps's terminator becomes the line's end */
        rc = write_all(fd, s, n + 1);
        if (rc) *why = strerror(errno);
        close(fd); /* and the lock with it */
    }
    free(s);
    return rc;
}

/* The next line of f (without its newline) into *buf; a line longer than
 * HISTORY_LINE_MAX is read past and *too_long set. false at the end. */
static bool next_line(FILE *f, char **buf, size_t *cap, size_t *len, bool *too_long) {
    size_t n = 0;
    int c;
    bool any = false;
    *too_long = false;
    while ((c = getc_unlocked(f)) != EOF) {
        any = true;
        if (c == '\n') break;
        if (*too_long) continue;
        if (n + 1 >= HISTORY_LINE_MAX) {
            *too_long = true;
            continue;
        }
        if (n + 1 >= *cap) {
            size_t nc = *cap ? *cap * 2 : 4096;
            char *x = realloc(*buf, nc); /* a line of the file, up to HISTORY_LINE_MAX: no room skips it */
            if (!x) {
                *too_long = true;
                continue;
            }
            *buf = x;
            *cap = nc;
        }
        (*buf)[n++] = (char)c;
    }
    if (!any) return false;
    if (*buf) (*buf)[n] = 0;
    *len = n;
    return true;
}

/* Reads the locked file: its entries, and the highest session number any
 * line names (a kernel writes its number down before its first cell). */
static int read_entries(history_t *h, int fd, size_t *lines, size_t *file_bytes) {
    int dupfd = dup(fd);
    FILE *f = dupfd >= 0 ? fdopen(dupfd, "r") : NULL;
    if (!f) {
        if (dupfd >= 0) close(dupfd);
        return 0;
    }
    fseek(f, 0, SEEK_SET);
    char *line = NULL;
    size_t cap = 0, len = 0, skipped = 0;
    bool too_long;
    int last = 0;
    while (next_line(f, &line, &cap, &len, &too_long)) {
        ++*lines;
        *file_bytes += len + 1;
        if (too_long || !line) {
            skipped++;
            continue;
        }
        json_t *j = json_loadb(line, len, 0, NULL);
        json_t *in = json_object_get(j, "input"), *out = json_object_get(j, "output");
        long long s = json_integer_value(json_object_get(j, "session"));
        if (s > 0 && s < 1000000000 && s > last) last = (int)s;
        if (json_is_string(in) && s > 0) {
            size_t kept;
            const char *o = json_string_value(out);
            char *code = kept_input(json_string_value(in));
            char *outs = o ? utf8_prefix(o, strlen(o), HISTORY_OUT_MAX, &kept) : NULL;
            if (code) push(h, (entry_t){(int)s, (int)json_integer_value(json_object_get(j, "line")), code, outs});
            else free(outs);
        }
        json_decref(j);
    }
    free(line);
    fclose(f);
    if (skipped) log_msg("history file %s: %zu lines longer than %zu bytes skipped", h->path, skipped,
                         HISTORY_LINE_MAX);
    return last;
}

/* Writes the kept entries and this session's line to a new file renamed
 * over the old one (the lock on the old one is held). false if it could not. */
static bool cut_back(history_t *h) {
    char *tmp = NULL;
    bool done = false;
    if (asprintf(&tmp, "%s.%d.tmp", h->path, (int)getpid()) < 0) return false;
    FILE *o = fopen(tmp, "w");
    if (o) {
        for (size_t i = 0; i < h->n; i++) {
            json_t *j = entry_json(&h->e[i]);
            char *s = json_dumps(j, JSON_COMPACT);
            if (s) fprintf(o, "%s\n", s);
            free(s);
            json_decref(j);
        }
        fprintf(o, "{\"session\":%d}\n", h->session);
        done = fclose(o) == 0 && rename(tmp, h->path) == 0;
        if (!done) unlink(tmp);
    }
    free(tmp);
    return done;
}

/* Loads the file and takes the next session number, both under the lock. */
static void load(history_t *h) {
    const char *why = NULL;
    int fd = open_locked(h->path, &why);
    if (fd < 0) {
        log_msg("history file %s cannot be used (%s); history stays in memory", h->path, why);
        free(h->path);
        h->path = NULL;
        return;
    }
    size_t lines = 0, bytes = 0;
    h->session = read_entries(h, fd, &lines, &bytes) + 1;
    if (!((lines > 2 * HISTORY_MAX || bytes > 2 * HISTORY_BYTES_MAX) && cut_back(h))) {
        char mark[64];
        int n = snprintf(mark, sizeof mark, "{\"session\":%d}\n", h->session);
        if (write_all(fd, mark, (size_t)n) != 0) {
            log_msg("history file %s cannot be written (%s); history stays in memory", h->path, strerror(errno));
            free(h->path);
            h->path = NULL;
        }
    }
    close(fd);
}

history_t *history_new(void) {
    history_t *h = xcalloc(1, sizeof *h);
    pthread_mutex_init(&h->mu, NULL);
    h->session = 1;
    h->path = default_path();
    if (h->path) {
        mkdirs(h->path);
        load(h);
    }
    return h;
}

void history_free(history_t *h) {
    if (!h) return;
    for (size_t i = 0; i < h->n; i++) entry_free(&h->e[i]);
    free(h->e);
    free(h->path);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

int history_session(history_t *h) { return h->session; }

void history_add(history_t *h, int line, const char *code, const char *output) {
    size_t kept;
    entry_t e = {h->session, line, kept_input(code), output ? utf8_prefix(output, strlen(output), HISTORY_OUT_MAX, &kept)
                                                            : NULL};
    if (!e.code) {
        free(e.out);
        return;
    }
    json_t *j = entry_json(&e);
    pthread_mutex_lock(&h->mu);
    const char *why = NULL;
    if (h->path && j && append_line(h->path, j, &why) != 0) {
        log_msg("history file %s cannot be written (%s); history stays in memory", h->path, why);
        free(h->path);
        h->path = NULL;
    }
    push(h, e);
    pthread_mutex_unlock(&h->mu);
    json_decref(j);
}

/* Optional integer field: absent → dflt; present but not an integer → error. */
static int opt_int(json_t *req, const char *key, long long dflt, long long *out, char *why,
                   size_t whylen) {
    json_t *v = json_object_get(req, key);
    if (!v || json_is_null(v)) {
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v)) {
        snprintf(why, whylen, "history_request field '%s' must be an integer", key);
        return -1;
    }
    *out = json_integer_value(v);
    return 0;
}

static int opt_bool(json_t *req, const char *key, bool *out, char *why, size_t whylen) {
    json_t *v = json_object_get(req, key);
    *out = json_is_true(v);
    if (v && !json_is_boolean(v) && !json_is_null(v)) {
        snprintf(why, whylen, "history_request field '%s' must be a boolean", key);
        return -1;
    }
    return 0;
}

static json_t *item(const entry_t *e, bool output) {
    if (output)
        return json_pack("[i, i, [s, s?]]", e->session, e->line, e->code, e->out);
    return json_pack("[i, i, s]", e->session, e->line, e->code);
}

/* The length of s as a JSON string (quotes and escapes counted). */
static size_t json_len(const char *s) {
    size_t n = 2;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++)
        n += *p == '"' || *p == '\\' || *p == '\b' || *p == '\f' || *p == '\n' || *p == '\r' || *p == '\t' ? 2
             : *p < 0x20                                                                                  ? 6
                                                                                                          : 1;
    return n;
}

/* An item's size in the reply, as JSON (numbers and brackets generously). */
static size_t item_len(const entry_t *e, bool output) {
    return 40 + json_len(e->code) + (output ? (e->out ? json_len(e->out) : 4) : 0);
}

/* Newest first, while the reply has room: what the query takes. */
typedef struct {
    json_t *rev;
    size_t used;
    bool output, full;
} collect_t;

static bool take(collect_t *c, const entry_t *e) {
    size_t n = item_len(e, c->output);
    if (c->used + n > HISTORY_REPLY_MAX) {
        c->full = true;
        return false;
    }
    c->used += n;
    json_array_append_new(c->rev, item(e, c->output));
    return true;
}

json_t *history_query(history_t *h, json_t *req, char *why, size_t whylen) {
    json_t *t = json_object_get(req, "hist_access_type");
    const char *type = json_is_string(t) ? json_string_value(t) : NULL;
    if (!type) {
        snprintf(why, whylen, "history_request needs a string 'hist_access_type'");
        return NULL;
    }
    long long n, session, start, stop;
    bool output, raw, unique;
    if (opt_int(req, "n", -1, &n, why, whylen) || opt_int(req, "session", 0, &session, why, whylen) ||
        opt_int(req, "start", 0, &start, why, whylen) || opt_int(req, "stop", -1, &stop, why, whylen) ||
        opt_bool(req, "output", &output, why, whylen) || opt_bool(req, "raw", &raw, why, whylen) ||
        opt_bool(req, "unique", &unique, why, whylen))
        return NULL;
    /* raw and translated input are the same here: icuda never rewrites a cell */
    json_t *pat = json_object_get(req, "pattern");
    if (pat && !json_is_string(pat) && !json_is_null(pat)) {
        snprintf(why, whylen, "history_request field 'pattern' must be a string");
        return NULL;
    }
    if (strcmp(type, "tail") && strcmp(type, "range") && strcmp(type, "search")) {
        snprintf(why, whylen, "unknown hist_access_type '%s' (tail, range or search)", type);
        return NULL;
    }

    collect_t c = {json_array(), 0, output, false};
    pthread_mutex_lock(&h->mu);
    if (strcmp(type, "tail") == 0) {
        size_t from = (n >= 0 && (size_t)n < h->n) ? h->n - (size_t)n : 0;
        for (size_t i = h->n; i-- > from && take(&c, &h->e[i]);) {}
    } else if (strcmp(type, "range") == 0) {
        /* 0 names this history session; negative: counted back from it (-1: the one before) */
        long long s = session <= 0 ? h->session + session : session;
        for (size_t i = h->n; i-- > 0;) {
            const entry_t *e = &h->e[i];
            if (e->session == s && e->line >= start && (stop < 0 || e->line < stop) && !take(&c, e)) break;
        }
    } else {
        const char *p = json_is_string(pat) ? json_string_value(pat) : "*";
        json_t *seen = json_object();
        for (size_t i = h->n; i-- > 0 && (n < 0 || (long long)json_array_size(c.rev) < n);) {
            const entry_t *e = &h->e[i];
            if (fnmatch(p, e->code, 0) != 0) continue;
            if (unique) {
                if (json_object_get(seen, e->code)) continue;
                json_object_set_new(seen, e->code, json_true());
            }
            if (!take(&c, e)) break;
        }
        json_decref(seen);
    }
    pthread_mutex_unlock(&h->mu);
    json_t *out = json_array();
    for (size_t i = json_array_size(c.rev); i-- > 0;) json_array_append(out, json_array_get(c.rev, i));
    json_decref(c.rev);
    if (c.full)
        log_msg("history_request: the reply holds the newest %zu entries that fit in %zu bytes",
                json_array_size(out), HISTORY_REPLY_MAX);
    return out;
}
