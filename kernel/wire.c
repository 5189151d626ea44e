/* Wire codec. The order of checks matters: frames, then signature, then
 * replay, and only then JSON, so an unsigned message costs an attacker no
 * parser surface. */
#include "wire.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "runtime/base/xalloc.h"

void wire_frames_push(wire_frames_t *fr, const void *data, size_t len) {
    if (fr->n == fr->cap) {
        fr->cap = fr->cap ? fr->cap * 2 : 8;
        fr->f = xreallocarray(fr->f, fr->cap, sizeof *fr->f);
    }
    void *copy = xmalloc(len ? len : 1);
    if (len) memcpy(copy, data, len);
    fr->f[fr->n].data = copy;
    fr->f[fr->n].len = len;
    fr->n++;
}

bool wire_frames_try_push(wire_frames_t *fr, const void *data, size_t len) {
    void *copy = malloc(len ? len : 1); /* a client's bytes: running out is that message's error */
    if (!copy) return false;
    if (len) memcpy(copy, data, len);
    if (fr->n == fr->cap) { /* a message's frames are few (the server's MAX_FRAMES) */
        size_t cap = fr->cap ? fr->cap * 2 : 8;
        wire_blob_t *f = realloc(fr->f, cap * sizeof *f);
        if (!f) {
            free(copy);
            return false;
        }
        fr->f = f;
        fr->cap = cap;
    }
    fr->f[fr->n].data = copy;
    fr->f[fr->n].len = len;
    fr->n++;
    return true;
}

void wire_frames_clear(wire_frames_t *fr) {
    for (size_t i = 0; i < fr->n; i++) free(fr->f[i].data);
    free(fr->f);
    memset(fr, 0, sizeof *fr);
}

void wire_new_uuid(char out[37]) {
    unsigned char b[16];
    if (RAND_bytes(b, sizeof b) != 1) {
        /* fall back to something unique enough for message ids */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        for (size_t i = 0; i < sizeof b; i++) b[i] = (unsigned char)(rand() ^ (ts.tv_nsec >> i));
    }
    b[6] = (b[6] & 0x0f) | 0x40; /* version 4 */
    b[8] = (b[8] & 0x3f) | 0x80; /* RFC 4122 variant */
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

void wire_now_iso8601(char out[40]) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, 40, "%s.%06ldZ", base, (long)tv.tv_usec);
}

/* Fetching HMAC and setting the key cost ~20 us; done once here, signing
 * only duplicates the keyed context (a read of the template, so threads may
 * sign at the same time). */
static void *mac_template(const unsigned char *key, size_t len) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    EVP_MAC_free(mac); /* the context keeps its own reference */
    if (!ctx) return NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_MAC_init(ctx, key, len, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* jansson's allocator: while a message is parsed, once an allocation has
 * failed every later one in that parse fails at once. jansson's lexer goes
 * on after a failed append, a byte at a time, and under an address-space
 * limit each failing malloc costs glibc a try at a new arena: a 10 MB cell
 * took from 30 s to more than 2 minutes to be refused, as "invalid token". */
static __thread bool parsing, parse_failed;

static void *parse_malloc(size_t n) {
    if (parsing && parse_failed) return NULL;
    void *p = malloc(n);
    if (!p && parsing) parse_failed = true;
    return p;
}

void wire_init(wire_t *w, const char *key) {
    json_set_alloc_funcs(parse_malloc, free);
    memset(w, 0, sizeof *w);
    w->key_len = key ? strlen(key) : 0;
    w->key = xmalloc(w->key_len + 1);
    memcpy(w->key, key ? key : "", w->key_len + 1);
    wire_new_uuid(w->session);
    if (w->key_len) w->mac_template = mac_template(w->key, w->key_len);
}

void wire_free(wire_t *w) {
    EVP_MAC_CTX_free(w->mac_template);
    w->mac_template = NULL;
    free(w->key);
    w->key = NULL;
}

static int hmac(const wire_t *w, const wire_blob_t *parts, size_t nparts, unsigned char out[32]) {
    EVP_MAC_CTX *ctx = w->mac_template ? EVP_MAC_CTX_dup(w->mac_template) : NULL;
    size_t outlen = 0;
    int ok = ctx != NULL;
    for (size_t i = 0; ok && i < nparts; i++)
        ok = EVP_MAC_update(ctx, parts[i].data, parts[i].len) == 1;
    ok = ok && EVP_MAC_final(ctx, out, &outlen, 32) == 1 && outlen == 32;
    EVP_MAC_CTX_free(ctx);
    return ok ? 0 : -1;
}

void wire_sign(const wire_t *w, const wire_blob_t *parts, size_t nparts, char out[65],
               unsigned char digest[32]) {
    unsigned char d[32];
    out[0] = 0;
    if (!w->key_len) return;
    if (hmac(w, parts, nparts, d) != 0) memset(d, 0, sizeof d); /* cannot verify: never */
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = 0;
    if (digest) memcpy(digest, d, 32);
}

bool wire_verify(const wire_t *w, const wire_blob_t *parts, size_t nparts, const void *sig,
                 size_t siglen, unsigned char digest[32]) {
    if (!w->key_len) return true;
    char want[65];
    wire_sign(w, parts, nparts, want, digest);
    /* The length is public (always 64); the bytes are compared in constant time. */
    if (siglen != 64) return false;
    return CRYPTO_memcmp(want, sig, 64) == 0;
}

static json_t *parse_object(const wire_blob_t *b, const char *what, wire_msg_t *msg, char *why, size_t whylen) {
    json_error_t err;
    parsing = true;
    parse_failed = false;
    json_t *v = json_loadb(b->data, b->len, 0, &err);
    parsing = false;
    if (!v && parse_failed) {
        msg->no_memory = true;
        snprintf(why, whylen, "no memory left to read the message's %s (%zu bytes)", what, b->len);
        return NULL;
    }
    if (!v) {
        snprintf(why, whylen, "%s is not valid JSON: %s", what, err.text);
        return NULL;
    }
    if (!json_is_object(v)) {
        snprintf(why, whylen, "%s is not a JSON object", what);
        json_decref(v);
        return NULL;
    }
    return v;
}

static bool is_str(json_t *obj, const char *key) { return json_is_string(json_object_get(obj, key)); }

/* body: parse what follows the header (parent_header, metadata, content)
 * and copy the buffers; without it, max_header bounds the header's frame. */
static wire_status_t decode(const wire_t *w, replay_t *replay, const wire_blob_t *frames, size_t n,
                            bool body, size_t max_header, wire_msg_t *msg, char *why, size_t whylen) {
    memset(msg, 0, sizeof *msg);
    size_t d = 0;
    static const size_t dlen = sizeof WIRE_DELIM - 1;
    while (d < n && !(frames[d].len == dlen && memcmp(frames[d].data, WIRE_DELIM, dlen) == 0)) d++;
    if (d == n) {
        snprintf(why, whylen, "no <IDS|MSG> delimiter in %zu frames", n);
        return WIRE_MALFORMED;
    }
    if (n - d - 1 < 5) {
        snprintf(why, whylen, "%zu frames after the delimiter, 5 needed", n - d - 1);
        return WIRE_MALFORMED;
    }
    const wire_blob_t *sig = &frames[d + 1], *parts = &frames[d + 2];
    unsigned char digest[32];
    if (!wire_verify(w, parts, 4, sig->data, sig->len, digest)) {
        snprintf(why, whylen, "signature does not verify");
        return WIRE_BAD_SIGNATURE;
    }
    if (!body && parts[0].len > max_header) {
        snprintf(why, whylen, "the header alone is %zu bytes, more than %zu", parts[0].len, max_header);
        return WIRE_BAD_HEADER;
    }
    msg->header = parse_object(&parts[0], "header", msg, why, whylen);
    if (!msg->header) return WIRE_BAD_HEADER;
    if (w->key_len && replay &&
        replay_check_and_add_at(replay, digest, wire_date_us(json_string_value(json_object_get(msg->header, "date"))))) {
        snprintf(why, whylen, "signature seen before, or dated before the oldest one remembered (replayed message)");
        wire_msg_clear(msg);
        return WIRE_REPLAYED;
    }
    json_t *mt = json_object_get(msg->header, "msg_type");
    if (!json_is_string(mt) || !json_string_length(mt)) {
        snprintf(why, whylen, "header has no msg_type string");
        wire_msg_clear(msg);
        return WIRE_BAD_HEADER;
    }
    msg->msg_type = json_string_value(mt);
    for (size_t i = 0; i < d; i++) wire_frames_push(&msg->idents, frames[i].data, frames[i].len);
    if (!is_str(msg->header, "msg_id") || !is_str(msg->header, "session")) {
        snprintf(why, whylen, "header lacks msg_id or session string");
        return WIRE_BAD_BODY;
    }
    json_t *v = json_object_get(msg->header, "username");
    if (v && !json_is_string(v)) {
        snprintf(why, whylen, "header username is not a string");
        return WIRE_BAD_BODY;
    }
    if (!body) return WIRE_OK;
    if (!(msg->parent = parse_object(&parts[1], "parent_header", msg, why, whylen)) ||
        !(msg->metadata = parse_object(&parts[2], "metadata", msg, why, whylen)) ||
        !(msg->content = parse_object(&parts[3], "content", msg, why, whylen)))
        return WIRE_BAD_BODY;
    for (size_t i = d + 6; i < n; i++) wire_frames_push(&msg->buffers, frames[i].data, frames[i].len);
    return WIRE_OK;
}

wire_status_t wire_decode(const wire_t *w, replay_t *replay, const wire_blob_t *frames,
                          size_t n, wire_msg_t *msg, char *why, size_t whylen) {
    return decode(w, replay, frames, n, true, 0, msg, why, whylen);
}

wire_status_t wire_decode_header(const wire_t *w, replay_t *replay, const wire_blob_t *frames,
                                 size_t n, size_t max_header, wire_msg_t *msg, char *why, size_t whylen) {
    return decode(w, replay, frames, n, false, max_header, msg, why, whylen);
}

void wire_msg_clear(wire_msg_t *msg) {
    wire_frames_clear(&msg->idents);
    wire_frames_clear(&msg->buffers);
    json_decref(msg->header);
    json_decref(msg->parent);
    json_decref(msg->metadata);
    json_decref(msg->content);
    memset(msg, 0, sizeof *msg);
}

static char *dump(json_t *v) {
    /* JSON_ENSURE_ASCII is not needed: the wire is UTF-8. */
    return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
}

int wire_encode(const wire_t *w, const wire_frames_t *idents, const char *msg_type,
                json_t *parent, json_t *metadata, json_t *content, wire_frames_t *out) {
    char id[37], date[40];
    wire_new_uuid(id);
    wire_now_iso8601(date);
    json_t *header = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "msg_id", id, "session",
                               w->session, "username", "icuda", "date", date, "msg_type",
                               msg_type, "version", WIRE_PROTOCOL_VERSION);
    json_t *empty = json_object();
    char *s[4] = {dump(header), dump(parent ? parent : empty), dump(metadata ? metadata : empty),
                  dump(content ? content : empty)};
    json_decref(header);
    json_decref(empty);
    int rc = -1;
    if (s[0] && s[1] && s[2] && s[3]) {
        wire_blob_t parts[4];
        for (int i = 0; i < 4; i++) parts[i] = (wire_blob_t){s[i], strlen(s[i])};
        char sig[65];
        wire_sign(w, parts, 4, sig, NULL);
        for (size_t i = 0; idents && i < idents->n; i++)
            wire_frames_push(out, idents->f[i].data, idents->f[i].len);
        wire_frames_push(out, WIRE_DELIM, sizeof WIRE_DELIM - 1);
        wire_frames_push(out, sig, strlen(sig));
        for (int i = 0; i < 4; i++) wire_frames_push(out, parts[i].data, parts[i].len);
        rc = 0;
    }
    for (int i = 0; i < 4; i++) free(s[i]);
    return rc;
}

/* An ISO 8601 date as Jupyter writes it ("2026-11-23T20:17:00.123456Z",
 * "...+01:00"), in microseconds since the epoch; INT64_MIN if it is not one. */
int64_t wire_date_us(const char *s) {
    if (!s) return INT64_MIN;
    struct tm tm = {0};
    int n = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &n) != 6 || n < 19)
        return INT64_MIN;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const char *p = s + n;
    int64_t us = 0, scale = 100000;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10) us += (*p - '0') * scale;
    int64_t off = 0;
    if ((*p == '+' || *p == '-') && strlen(p) >= 6) {
        int hh = 0, mm = 0;
        if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2) return INT64_MIN;
        off = (int64_t)(hh * 3600 + mm * 60) * (*p == '+' ? 1 : -1);
    }
    time_t t = timegm(&tm);
    if (t == (time_t)-1) return INT64_MIN;
    return ((int64_t)t - off) * 1000000 + us;
}
