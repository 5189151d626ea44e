/* Reading compute-sanitizer's report (sanitizer_log.h). */
#include "runtime/cuda/sanitizer_log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/base/strbuf.h"

#include "runtime/base/vec.h"
#include "runtime/base/xalloc.h"
#define PREFIX "========="

static void trim(char *s) {
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
    size_t k = 0;
    while (s[k] && isspace((unsigned char)s[k])) k++;
    if (k) memmove(s, s + k, n - k + 1);
}

/* Copies as much of src as fits. */
static void set(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static bool starts(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* A number as the report writes it: "4000" or "1,024". */
static uint64_t number(const char *s, const char **end) {
    uint64_t v = 0;
    while (isdigit((unsigned char)*s) || (*s == ',' && isdigit((unsigned char)s[1]))) {
        if (*s != ',') v = v * 10 + (uint64_t)(*s - '0');
        s++;
    }
    if (end) *end = s;
    return v;
}

void san_parse_site(const char *s, san_site_t *site) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    trim(buf);
    /* racecheck: "... in cell.cu:9 [34 hazards]" */
    char *br = strrchr(buf, '[');
    if (br && strstr(br, "hazard")) {
        site->hazards = (long)number(br + 1, NULL);
        *br = 0;
        trim(buf);
    }
    /* the place after the last " in ": "file:line", "file:line:function" or a function */
    char *in = NULL;
    for (char *p = strstr(buf, " in "); p; p = strstr(p + 1, " in ")) in = p;
    char *left = buf, *right = NULL;
    if (in) {
        *in = 0;
        right = in + 4;
    }
    if (right) {
        char *colon = NULL; /* the first ":<digits>" followed by ':' or the end */
        for (char *p = strchr(right, ':'); p; p = strchr(p + 1, ':')) {
            const char *e;
            if (isdigit((unsigned char)p[1]) && (number(p + 1, &e), *e == 0 || *e == ':')) {
                colon = p;
                break;
            }
        }
        if (colon) {
            const char *e;
            *colon = 0;
            set(site->file, sizeof site->file, right);
            site->line = (int)number(colon + 1, &e);
            if (*e == ':' && e[1]) set(site->function, sizeof site->function, e + 1);
        } else {
            set(site->function, sizeof site->function, right);
        }
    }
    /* the left side: "0x70", "vecadd(int *)+0x70", "kernel():0x160" or a name */
    trim(left);
    if (starts(left, "0x")) {
        site->pc = strtoull(left, NULL, 16);
        site->have_pc = true;
        return;
    }
    char *plus = strstr(left, "+0x");
    char *cpc = NULL;
    for (char *p = strstr(left, ":0x"); p; p = strstr(p + 1, ":0x")) cpc = p;
    char *off = plus ? plus : cpc;
    if (off) {
        site->pc = strtoull(off + 1, NULL, 16);
        site->have_pc = true;
        *off = 0;
    }
    if (*left) set(site->function, sizeof site->function, left);
}

static bool parse_triple(const char *s, unsigned v[3]) {
    const char *p = strchr(s, '(');
    if (!p) return false;
    p++;
    for (int i = 0; i < 3; i++) {
        while (*p == ' ') p++;
        if (!isdigit((unsigned char)*p)) return false;
        v[i] = (unsigned)strtoul(p, (char **)&p, 10);
        while (*p == ' ') p++;
        if (*p != (i < 2 ? ',' : ')')) return false;
        p++;
    }
    return true;
}

static void add_line(char **dst, const char *line) {
    strbuf_t b = {0};
    if (*dst) sb_puts(&b, *dst);
    sb_printf(&b, "%s\n", line);
    free(*dst);
    *dst = sb_take(&b);
}

/* One indented line of a finding. Returns false when it is not understood. */
static bool continuation(san_finding_t *f, const char *t) {
    if (starts(t, "at ") && f->nsites == 0) {
        san_parse_site(t + 3, &f->sites[f->nsites++]);
        return true;
    }
    if (starts(t, "and ") && strstr(t, " access at ") && f->nsites < SAN_MAX_SITES) {
        san_site_t *s = &f->sites[f->nsites++];
        const char *a = strstr(t, " access at ");
        snprintf(s->access, sizeof s->access, "%.*s access", (int)(a - (t + 4)), t + 4);
        san_parse_site(a + 11, s);
        return true;
    }
    if (starts(t, "by thread ")) {
        const char *blk = strstr(t, " block ");
        if (parse_triple(t, f->thread) && blk && parse_triple(blk, f->block)) {
            f->have_thread = true;
            return true;
        }
        return false;
    }
    if ((starts(t, "Address ") || starts(t, "Access ")) && strstr(t, "0x")) {
        const char *h = strstr(t, "0x");
        char *end;
        f->address = strtoull(h, &end, 16);
        f->have_address = true;
        snprintf(f->address_note, sizeof f->address_note, "%s", end);
        trim(f->address_note);
        return true;
    }
    if (starts(t, "and is ") && strstr(t, "nearest allocation")) {
        const char *n = strstr(t, " the nearest allocation");
        snprintf(f->nearest_rel, sizeof f->nearest_rel, "%.*s", (int)(n - (t + 7)), t + 7);
        const char *at = strstr(n, " at 0x"), *sz = strstr(n, " of size ");
        if (at) f->nearest_base = strtoull(at + 4, NULL, 16);
        if (sz) f->nearest_size = number(sz + 9, NULL);
        f->have_nearest = at != NULL;
        return true;
    }
    return false;
}

static san_finding_t *new_finding(san_log_t *log, const char *headline) {
    ARRAY_GROW(log->findings, log->n, log->cap);
    san_finding_t *f = &log->findings[log->n++];
    memset(f, 0, sizeof *f);
    /* racecheck's headline names the first access itself */
    const char *between = strstr(headline, "reported between ");
    const char *acc = between ? strstr(between, " access at ") : NULL;
    if (between && acc) {
        snprintf(f->what, sizeof f->what, "%.*s", (int)(between + 8 - headline), headline);
        san_site_t *s = &f->sites[f->nsites++];
        const char *who = between + 17;
        snprintf(s->access, sizeof s->access, "%.*s access", (int)(acc - who), who);
        san_parse_site(acc + 11, s);
        /* "Error: Race reported" -> "Race reported" reads as the kind */
        if (starts(f->what, "Error: ")) memmove(f->what, f->what + 7, strlen(f->what + 7) + 1);
    } else {
        snprintf(f->what, sizeof f->what, "%s", headline);
    }
    f->api = starts(headline, "Program hit ");
    return f;
}

static bool known_headline(const san_finding_t *f) {
    return f->nsites || f->have_thread || f->have_address || f->api;
}

/* A finding that turned out to be a note ("Warning: ... not supported"). */
static void close_finding(san_log_t *log, san_finding_t **cur) {
    san_finding_t *f = *cur;
    *cur = NULL;
    if (!f || known_headline(f)) return;
    add_line(&log->other, f->what);
    if (f->detail) {
        strbuf_t b = {0};
        sb_puts(&b, log->other);
        sb_puts(&b, f->detail);
        free(log->other);
        log->other = sb_take(&b);
    }
    free(f->detail);
    log->n--;
}

static void summary(san_log_t *log, const char *t) {
    snprintf(log->summary, sizeof log->summary, "%s", t);
    const char *c = strstr(t, "SUMMARY:") + 8;
    while (*c == ' ') c++;
    const char *e;
    uint64_t n = number(c, &e);
    if (e == c) return;
    if (strstr(e, "were not printed")) {
        log->not_printed = (int)n;
    } else if (starts(t, "ERROR SUMMARY")) {
        log->errors = (int)n;
    } else { /* "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)" */
        const char *p = strchr(e, '(');
        int errs = p ? (int)number(p + 1, NULL) : (int)n;
        if (errs > log->errors) log->errors = errs;
    }
}

void san_log_parse(const char *text, san_log_t *log) {
    memset(log, 0, sizeof *log);
    log->errors = -1;
    san_finding_t *cur = NULL;
    size_t plen = strlen(PREFIX);
    for (const char *line = text ? text : ""; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char *l = xstrndup(line, n);
        line += n + (eol ? 1 : 0);
        if (n && l[n - 1] == '\r') l[n - 1] = 0;
        if (strncmp(l, PREFIX, plen) != 0) { /* not the tool's: the program's own output */
            char *t = xstrdup(l);
            trim(t);
            if (*t) add_line(&log->other, t);
            free(t);
            free(l);
            continue;
        }
        const char *body = l + plen;
        int indent = 0;
        while (body[indent] == ' ') indent++;
        char *t = xstrdup(body);
        trim(t);
        if (!*t) {
            close_finding(log, &cur);
        } else if (indent >= 3 && cur) {
            /* cur may move when findings grow: it always is the last one */
            if (!continuation(cur, t)) add_line(&cur->detail, t);
        } else if (indent >= 3) {
            add_line(&log->other, t);
        } else if (!strcmp(t, "COMPUTE-SANITIZER")) {
            close_finding(log, &cur);
        } else if (strstr(t, "SUMMARY:")) {
            close_finding(log, &cur);
            summary(log, t);
        } else {
            close_finding(log, &cur);
            cur = new_finding(log, t);
        }
        free(t);
        free(l);
    }
    close_finding(log, &cur);
}

void san_log_free(san_log_t *log) {
    for (int i = 0; i < log->n; i++) free(log->findings[i].detail);
    free(log->findings);
    free(log->other);
    memset(log, 0, sizeof *log);
}

static bool same_site(const san_site_t *a, const san_site_t *b) {
    return !strcmp(a->access, b->access) && !strcmp(a->function, b->function) && !strcmp(a->file, b->file) &&
           a->line == b->line && (a->line || (a->have_pc == b->have_pc && a->pc == b->pc));
}

static bool same_place(const san_finding_t *a, const san_finding_t *b) {
    if (strcmp(a->what, b->what) || a->nsites != b->nsites || a->api != b->api) return false;
    for (int i = 0; i < a->nsites; i++)
        if (!same_site(&a->sites[i], &b->sites[i])) return false;
    if (a->api) return false; /* API errors stand alone */
    return a->nsites > 0;
}

int san_log_group(const san_log_t *log, san_group_t **out) {
    san_group_t *g = xcalloc((size_t)log->n + 1, sizeof *g);
    int ng = 0;
    for (int i = 0; i < log->n; i++) {
        const san_finding_t *f = &log->findings[i];
        int k = 0;
        while (k < ng && !same_place(g[k].first, f)) k++;
        if (k == ng) g[ng++].first = f;
        g[k].count++;
    }
    *out = g;
    return ng;
}
