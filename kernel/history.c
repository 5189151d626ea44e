/* Cell history for history_request, kept across kernel restarts in a file
 * of JSON lines, as IPython keeps its history database: each kernel
 * process is a new session (one more than the last in the file). */
#include "history.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define HISTORY_MAX 10000      /* entries kept (the file is cut back to this at start) */
#define HISTORY_OUT_MAX 10000  /* bytes of an output kept */

typedef struct entry {
    int session, line;
    char *code, *out; /* out may be NULL */
} entry_t;

struct history {
    pthread_mutex_t mu;
    entry_t *e;
    size_t n, cap;
    int session;
    char *path; /* NULL: memory only */
};

static void entry_free(entry_t *e) {
    free(e->code);
    free(e->out);
}

static void push(history_t *h, entry_t e) {
    if (h->n == HISTORY_MAX) { /* drop the oldest */
        entry_free(&h->e[0]);
        memmove(h->e, h->e + 1, (h->n - 1) * sizeof *h->e);
        h->n--;
    }
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        entry_t *x = realloc(h->e, cap * sizeof *x);
        if (!x) {
            entry_free(&e);
            return;
        }
        h->e = x;
        h->cap = cap;
    }
    h->e[h->n++] = e;
}

static json_t *entry_json(const entry_t *e) {
    json_t *j = json_pack("{s:i, s:i, s:s}", "session", e->session, "line", e->line, "input", e->code);
    if (j && e->out) json_object_set_new(j, "output", json_string(e->out));
    return j;
}

static int mkdirs(const char *path) {
    char *d = strdup(path);
    if (!d) return -1;
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
    if (env) return *env ? strdup(env) : NULL;
    char *p = NULL;
    const char *jd = getenv("JUPYTER_DATA_DIR"), *xd = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int r = jd && *jd   ? asprintf(&p, "%s/icuda/history.jsonl", jd)
            : xd && *xd ? asprintf(&p, "%s/icuda/history.jsonl", xd)
            : home      ? asprintf(&p, "%s/.local/share/icuda/history.jsonl", home)
                        : -1;
    return r < 0 ? NULL : p;
}

static void load(history_t *h) {
    FILE *f = fopen(h->path, "r");
    if (!f) return;
    char *line = NULL;
    size_t cap = 0, lines = 0;
    int last = 0;
    while (getline(&line, &cap, f) > 0) {
        lines++;
        json_t *j = json_loads(line, 0, NULL);
        json_t *in = json_object_get(j, "input"), *out = json_object_get(j, "output");
        int s = (int)json_integer_value(json_object_get(j, "session"));
        if (json_is_string(in) && s > 0) {
            push(h, (entry_t){s, (int)json_integer_value(json_object_get(j, "line")), strdup(json_string_value(in)),
                              json_is_string(out) ? strdup(json_string_value(out)) : NULL});
            if (s > last) last = s;
        }
        json_decref(j);
    }
    free(line);
    fclose(f);
    h->session = last + 1;
    if (lines <= 2 * HISTORY_MAX) return;
    /* cut the file back to what is kept */
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.%d.tmp", h->path, (int)getpid()) < 0) return;
    FILE *o = fopen(tmp, "w");
    if (o) {
        for (size_t i = 0; i < h->n; i++) {
            json_t *j = entry_json(&h->e[i]);
            char *s = json_dumps(j, JSON_COMPACT);
            if (s) fprintf(o, "%s\n", s);
            free(s);
            json_decref(j);
        }
        if (fclose(o) == 0) rename(tmp, h->path);
        else unlink(tmp);
    }
    free(tmp);
}

history_t *history_new(void) {
    history_t *h = calloc(1, sizeof *h);
    if (!h) return NULL;
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
    entry_t e = {h->session, line, strdup(code), output ? strndup(output, HISTORY_OUT_MAX) : NULL};
    if (!e.code) {
        free(e.out);
        return;
    }
    json_t *j = entry_json(&e);
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    pthread_mutex_lock(&h->mu);
    push(h, e);
    if (h->path && s) {
        /* one write per entry, appended: kernels sharing the file do not interleave */
        FILE *f = fopen(h->path, "a");
        if (f) {
            fprintf(f, "%s\n", s);
            fclose(f);
        } else {
            log_msg("history file %s cannot be written; history stays in memory", h->path);
            free(h->path);
            h->path = NULL;
        }
    }
    pthread_mutex_unlock(&h->mu);
    free(s);
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

    json_t *out = json_array();
    pthread_mutex_lock(&h->mu);
    if (strcmp(type, "tail") == 0) {
        size_t from = (n >= 0 && (size_t)n < h->n) ? h->n - (size_t)n : 0;
        for (size_t i = from; i < h->n; i++) json_array_append_new(out, item(&h->e[i], output));
    } else if (strcmp(type, "range") == 0) {
        /* 0 names this history session; negative: counted back from it (-1: the one before) */
        long long s = session <= 0 ? h->session + session : session;
        for (size_t i = 0; i < h->n; i++) {
            const entry_t *e = &h->e[i];
            if (e->session == s && e->line >= start && (stop < 0 || e->line < stop))
                json_array_append_new(out, item(e, output));
        }
    } else if (strcmp(type, "search") == 0) {
        const char *p = json_is_string(pat) ? json_string_value(pat) : "*";
        /* newest first while collecting, so n and unique keep the latest */
        json_t *rev = json_array(), *seen = json_object();
        for (size_t i = h->n; i-- > 0 && (n < 0 || (long long)json_array_size(rev) < n);) {
            const entry_t *e = &h->e[i];
            if (fnmatch(p, e->code, 0) != 0) continue;
            if (unique) {
                if (json_object_get(seen, e->code)) continue;
                json_object_set_new(seen, e->code, json_true());
            }
            json_array_append_new(rev, item(e, output));
        }
        for (size_t i = json_array_size(rev); i-- > 0;) json_array_append(out, json_array_get(rev, i));
        json_decref(rev);
        json_decref(seen);
    } else {
        pthread_mutex_unlock(&h->mu);
        json_decref(out);
        snprintf(why, whylen, "unknown hist_access_type '%s' (tail, range or search)", type);
        return NULL;
    }
    pthread_mutex_unlock(&h->mu);
    return out;
}
