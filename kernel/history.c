/* In-memory history: the kernel has no database; a notebook keeps its own
 * cells, and jupyter console only asks for the tail of this session. */
#include "history.h"

#include <fnmatch.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    int line;
    char *code;
} entry_t;

struct history {
    pthread_mutex_t mu;
    entry_t *e;
    size_t n, cap;
};

history_t *history_new(void) {
    history_t *h = calloc(1, sizeof *h);
    if (h) pthread_mutex_init(&h->mu, NULL);
    return h;
}

void history_free(history_t *h) {
    if (!h) return;
    for (size_t i = 0; i < h->n; i++) free(h->e[i].code);
    free(h->e);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

void history_add(history_t *h, int line, const char *code) {
    pthread_mutex_lock(&h->mu);
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        entry_t *e = realloc(h->e, cap * sizeof *e);
        if (!e) goto out;
        h->e = e;
        h->cap = cap;
    }
    char *copy = strdup(code);
    if (!copy) goto out;
    h->e[h->n++] = (entry_t){line, copy};
out:
    pthread_mutex_unlock(&h->mu);
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

static json_t *item(const entry_t *e) {
    return json_pack("[i, i, s]", HISTORY_SESSION, e->line, e->code);
}

json_t *history_query(history_t *h, json_t *req, char *why, size_t whylen) {
    json_t *t = json_object_get(req, "hist_access_type");
    const char *type = json_is_string(t) ? json_string_value(t) : NULL;
    if (!type) {
        snprintf(why, whylen, "history_request needs a string 'hist_access_type'");
        return NULL;
    }
    long long n, session, start, stop;
    if (opt_int(req, "n", -1, &n, why, whylen) ||
        opt_int(req, "session", 0, &session, why, whylen) ||
        opt_int(req, "start", 0, &start, why, whylen) ||
        opt_int(req, "stop", -1, &stop, why, whylen))
        return NULL;
    json_t *pat = json_object_get(req, "pattern");
    json_t *uniq = json_object_get(req, "unique");
    if (pat && !json_is_string(pat) && !json_is_null(pat)) {
        snprintf(why, whylen, "history_request field 'pattern' must be a string");
        return NULL;
    }
    bool unique = json_is_true(uniq);

    json_t *out = json_array();
    pthread_mutex_lock(&h->mu);
    if (strcmp(type, "tail") == 0) {
        size_t from = (n >= 0 && (size_t)n < h->n) ? h->n - (size_t)n : 0;
        for (size_t i = from; i < h->n; i++) json_array_append_new(out, item(&h->e[i]));
    } else if (strcmp(type, "range") == 0) {
        /* session 0 or negative: this session (the only one there is). */
        if (session <= 0 || session == HISTORY_SESSION)
            for (size_t i = 0; i < h->n; i++) {
                int line = h->e[i].line;
                if (line >= start && (stop < 0 || line < stop))
                    json_array_append_new(out, item(&h->e[i]));
            }
    } else if (strcmp(type, "search") == 0) {
        const char *p = json_is_string(pat) ? json_string_value(pat) : "*";
        /* newest first while collecting, so n and unique keep the latest */
        json_t *rev = json_array();
        for (size_t i = h->n; i-- > 0 && (n < 0 || (long long)json_array_size(rev) < n);) {
            if (fnmatch(p, h->e[i].code, 0) != 0) continue;
            if (unique) {
                bool dup = false;
                size_t k;
                json_t *x;
                json_array_foreach(rev, k, x) {
                    if (strcmp(json_string_value(json_array_get(x, 2)), h->e[i].code) == 0) {
                        dup = true;
                        break;
                    }
                }
                if (dup) continue;
            }
            json_array_append_new(rev, item(&h->e[i]));
        }
        for (size_t i = json_array_size(rev); i-- > 0;)
            json_array_append(out, json_array_get(rev, i));
        json_decref(rev);
    } else {
        pthread_mutex_unlock(&h->mu);
        json_decref(out);
        snprintf(why, whylen, "unknown hist_access_type '%s' (tail, range or search)", type);
        return NULL;
    }
    pthread_mutex_unlock(&h->mu);
    return out;
}
