/* Unit tests of the protocol layer's pure parts: the wire codec, HMAC
 * signing and verification, the replay set, UTF-8 repair, the connection
 * file and history queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/connection.h"
#include "kernel/history.h"
#include "kernel/replay.h"
#include "runtime/base/utf8.h"
#include "kernel/wire.h"
#include "tests/unit/check.h"

static void test_hmac_vector(void) {
    /* RFC 4231, test case 2 */
    wire_t w;
    wire_init(&w, "Jefe");
    const char *a = "what do ya ", *b = "want for nothing?";
    wire_blob_t parts[2] = {{(void *)a, strlen(a)}, {(void *)b, strlen(b)}};
    char sig[65];
    wire_sign(&w, parts, 2, sig, NULL);
    CHECK_STR(sig, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    CHECK(wire_verify(&w, parts, 2, sig, 64, NULL));
    char bad[65];
    strcpy(bad, sig);
    bad[63] ^= 1;
    CHECK(!wire_verify(&w, parts, 2, bad, 64, NULL));
    CHECK(!wire_verify(&w, parts, 2, sig, 63, NULL));
    CHECK(!wire_verify(&w, parts, 2, "", 0, NULL));
    wire_free(&w);

    wire_t unsigned_w;
    wire_init(&unsigned_w, "");
    wire_sign(&unsigned_w, parts, 2, sig, NULL);
    CHECK_STR(sig, "");
    CHECK(wire_verify(&unsigned_w, parts, 2, "anything", 8, NULL));
    wire_free(&unsigned_w);
}

/* Frames of a message signed with w, as a client would send them. */
static void client_frames(const wire_t *w, const char *header, const char *content,
                          wire_frames_t *out) {
    const char *parent = "{}", *meta = "{}";
    wire_frames_push(out, "client-id", 9);
    wire_frames_push(out, WIRE_DELIM, strlen(WIRE_DELIM));
    wire_blob_t parts[4] = {{(void *)header, strlen(header)}, {(void *)parent, 2},
                            {(void *)meta, 2}, {(void *)content, strlen(content)}};
    char sig[65];
    wire_sign(w, parts, 4, sig, NULL);
    wire_frames_push(out, sig, strlen(sig));
    for (int i = 0; i < 4; i++) wire_frames_push(out, parts[i].data, parts[i].len);
}

static wire_status_t decode(const wire_t *w, replay_t *r, wire_frames_t *fr, wire_msg_t *m) {
    char why[256];
    return wire_decode(w, r, fr->f, fr->n, m, why, sizeof why);
}

static void test_decode(void) {
    wire_t w;
    wire_init(&w, "secret-key");
    replay_t *r = replay_new(16);
    const char *hdr = "{\"msg_id\":\"m1\",\"session\":\"s\",\"username\":\"u\","
                      "\"msg_type\":\"execute_request\",\"version\":\"5.3\"}";
    wire_frames_t fr = {0};
    wire_msg_t m;
    client_frames(&w, hdr, "{\"code\":\"1\"}", &fr);
    CHECK(decode(&w, r, &fr, &m) == WIRE_OK);
    CHECK_STR(m.msg_type, "execute_request");
    CHECK(m.idents.n == 1 && m.idents.f[0].len == 9 && memcmp(m.idents.f[0].data, "client-id", 9) == 0);
    CHECK_STR(json_string_value(json_object_get(m.content, "code")), "1");
    CHECK(m.buffers.n == 0);
    wire_msg_clear(&m);

    /* the same frames again: a replay */
    CHECK(decode(&w, r, &fr, &m) == WIRE_REPLAYED);
    wire_msg_clear(&m);
    /* without a replay set the same frames are fine */
    CHECK(decode(&w, NULL, &fr, &m) == WIRE_OK);
    wire_msg_clear(&m);

    /* a signature made with another key */
    wire_t other;
    wire_init(&other, "other-key");
    CHECK(decode(&other, NULL, &fr, &m) == WIRE_BAD_SIGNATURE);
    wire_msg_clear(&m);
    wire_free(&other);

    /* a changed content byte */
    ((char *)fr.f[6].data)[9] = '2';
    CHECK(decode(&w, NULL, &fr, &m) == WIRE_BAD_SIGNATURE);
    wire_msg_clear(&m);

    /* buffers after content are kept */
    wire_frames_clear(&fr);
    client_frames(&w, hdr, "{\"code\":\"buf\"}", &fr);
    wire_frames_push(&fr, "\x00\x01", 2);
    CHECK(decode(&w, r, &fr, &m) == WIRE_OK);
    CHECK(m.buffers.n == 1 && m.buffers.f[0].len == 2);
    wire_msg_clear(&m);

    /* too few frames, no delimiter */
    fr.n = 6;
    CHECK(decode(&w, r, &fr, &m) == WIRE_MALFORMED);
    wire_msg_clear(&m);
    fr.n = 8;
    memcpy(fr.f[1].data, "<IDS|MSX>", 9);
    CHECK(decode(&w, r, &fr, &m) == WIRE_MALFORMED);
    wire_msg_clear(&m);
    wire_frames_clear(&fr);

    /* bad JSON in the header, header without msg_type */
    client_frames(&w, "{not json", "{}", &fr);
    CHECK(decode(&w, r, &fr, &m) == WIRE_BAD_HEADER);
    wire_msg_clear(&m);
    wire_frames_clear(&fr);
    client_frames(&w, "{\"msg_id\":\"x\",\"session\":\"s\"}", "{}", &fr);
    CHECK(decode(&w, r, &fr, &m) == WIRE_BAD_HEADER);
    wire_msg_clear(&m);
    wire_frames_clear(&fr);
    client_frames(&w, "[1,2]", "{}", &fr);
    CHECK(decode(&w, r, &fr, &m) == WIRE_BAD_HEADER);
    wire_msg_clear(&m);
    wire_frames_clear(&fr);

    /* a readable header with bad content: answerable */
    const char *hdr2 = "{\"msg_id\":\"m2\",\"session\":\"s\",\"msg_type\":\"complete_request\"}";
    client_frames(&w, hdr2, "[\"not\", \"an object\"]", &fr);
    CHECK(decode(&w, r, &fr, &m) == WIRE_BAD_BODY);
    CHECK_STR(m.msg_type, "complete_request");
    CHECK(m.idents.n == 1);
    wire_msg_clear(&m);
    wire_frames_clear(&fr);
    client_frames(&w, "{\"msg_type\":\"kernel_info_request\",\"session\":\"s\"}", "{}", &fr);
    CHECK(decode(&w, r, &fr, &m) == WIRE_BAD_BODY); /* no msg_id */
    wire_msg_clear(&m);
    wire_frames_clear(&fr);

    replay_free(r);
    wire_free(&w);
}

/* A message too large to take whole: its signature and header only. */
static void test_decode_header(void) {
    wire_t w;
    wire_init(&w, "secret-key");
    replay_t *r = replay_new(16);
    const char *hdr = "{\"msg_id\":\"m9\",\"session\":\"s\",\"msg_type\":\"execute_request\"}";
    wire_frames_t fr = {0};
    wire_msg_t m;
    char why[256];
    client_frames(&w, hdr, "{\"code\": not even JSON", &fr);
    wire_frames_push(&fr, "a buffer", 8);
    CHECK(wire_decode_header(&w, r, fr.f, fr.n, 1000, &m, why, sizeof why) == WIRE_OK);
    CHECK_STR(m.msg_type, "execute_request");
    CHECK(m.idents.n == 1 && m.idents.f[0].len == 9);
    CHECK(!m.parent && !m.metadata && !m.content && m.buffers.n == 0);
    wire_msg_clear(&m);
    /* the replay set holds it as any other */
    CHECK(wire_decode_header(&w, r, fr.f, fr.n, 1000, &m, why, sizeof why) == WIRE_REPLAYED);
    wire_msg_clear(&m);
    /* a header over the bound is not read */
    CHECK(wire_decode_header(&w, NULL, fr.f, fr.n, 20, &m, why, sizeof why) == WIRE_BAD_HEADER);
    CHECK(strstr(why, "more than 20") != NULL);
    wire_msg_clear(&m);
    /* the signature still covers the parts it does not parse */
    ((char *)fr.f[6].data)[2] = 'C';
    CHECK(wire_decode_header(&w, NULL, fr.f, fr.n, 1000, &m, why, sizeof why) == WIRE_BAD_SIGNATURE);
    wire_msg_clear(&m);
    wire_frames_clear(&fr);
    /* no msg_id: answerable all the same */
    client_frames(&w, "{\"msg_type\":\"kernel_info_request\",\"session\":\"s\"}", "{}", &fr);
    CHECK(wire_decode_header(&w, NULL, fr.f, fr.n, 1000, &m, why, sizeof why) == WIRE_BAD_BODY);
    CHECK_STR(m.msg_type, "kernel_info_request");
    wire_msg_clear(&m);
    wire_frames_clear(&fr);
    replay_free(r);
    wire_free(&w);
}

static void test_encode_roundtrip(void) {
    wire_t w;
    wire_init(&w, "k");
    wire_frames_t ids = {0}, fr = {0};
    wire_frames_push(&ids, "a", 1);
    wire_frames_push(&ids, "bb", 2);
    json_t *parent = json_pack("{s:s}", "msg_id", "p1");
    json_t *content = json_pack("{s:s, s:i}", "status", "ok", "n", 3);
    CHECK(wire_encode(&w, &ids, "kernel_info_reply", parent, NULL, content, &fr) == 0);
    CHECK(fr.n == 2 + 1 + 1 + 4);
    CHECK(fr.f[2].len == 9 && memcmp(fr.f[2].data, WIRE_DELIM, 9) == 0);
    CHECK(fr.f[3].len == 64);
    wire_msg_t m;
    CHECK(decode(&w, NULL, &fr, &m) == WIRE_OK);
    CHECK_STR(m.msg_type, "kernel_info_reply");
    CHECK_STR(json_string_value(json_object_get(m.header, "version")), "5.4");
    CHECK_STR(json_string_value(json_object_get(m.header, "session")), w.session);
    CHECK(strlen(json_string_value(json_object_get(m.header, "msg_id"))) == 36);
    const char *date = json_string_value(json_object_get(m.header, "date"));
    CHECK(date && strlen(date) == 27 && date[26] == 'Z');
    CHECK_STR(json_string_value(json_object_get(m.parent, "msg_id")), "p1");
    CHECK(json_integer_value(json_object_get(m.content, "n")) == 3);
    CHECK(m.idents.n == 2);
    wire_msg_clear(&m);
    json_decref(parent);
    json_decref(content);
    wire_frames_clear(&fr);
    wire_frames_clear(&ids);
    wire_free(&w);

    char a[37], b[37];
    wire_new_uuid(a);
    wire_new_uuid(b);
    CHECK(strcmp(a, b) != 0 && a[14] == '4' && a[8] == '-');
}

static void test_replay_set(void) {
    replay_t *r = replay_new(100);
    unsigned char d[32];
    int dups = 0;
    /* many more digests than the capacity: eviction and index upkeep */
    for (int i = 0; i < 5000; i++) {
        memset(d, 0, sizeof d);
        memcpy(d, &i, sizeof i);
        d[8] = (unsigned char)(i * 7);
        dups += replay_check_and_add(r, d);
    }
    CHECK(dups == 0);
    CHECK(replay_count(r) == 100);
    int recent = 0, old = 0;
    for (int i = 0; i < 5000; i++) {
        memset(d, 0, sizeof d);
        memcpy(d, &i, sizeof i);
        d[8] = (unsigned char)(i * 7);
        if (i >= 4900) recent += replay_check_and_add(r, d);
    }
    CHECK(recent == 100); /* the last 100 are remembered */
    for (int i = 0; i < 10; i++) {
        memset(d, 0, sizeof d);
        memcpy(d, &i, sizeof i);
        d[8] = (unsigned char)(i * 7);
        old += replay_check_and_add(r, d);
    }
    CHECK(old == 0); /* the oldest were forgotten */
    /* colliding home slots (same first 8 bytes) */
    replay_t *c = replay_new(4);
    int seen = 0;
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 4; i++) {
            memset(d, 0, sizeof d);
            d[31] = (unsigned char)i;
            seen += replay_check_and_add(c, d);
        }
    CHECK(seen == 8);
    replay_free(c);
    replay_free(r);
}

static void test_utf8(void) {
    size_t n;
    char *s = utf8_sanitize("ok \xe2\x82\xac", 6, &n);
    CHECK_STR(s, "ok \xe2\x82\xac");
    free(s);
    s = utf8_sanitize("a\xff" "b", 3, &n);
    CHECK_STR(s, "a\xef\xbf\xbd" "b");
    free(s);
    s = utf8_sanitize("\xc0\xaf", 2, &n); /* overlong '/' */
    CHECK_STR(s, "\xef\xbf\xbd\xef\xbf\xbd");
    free(s);
    s = utf8_sanitize("\xed\xa0\x80", 3, &n); /* surrogate */
    CHECK(n == 9);
    free(s);
    CHECK(utf8_incomplete_tail("ab\xe2\x82", 4) == 2);
    CHECK(utf8_incomplete_tail("ab\xe2", 3) == 1);
    CHECK(utf8_incomplete_tail("ab\xe2\x82\xac", 5) == 0);
    CHECK(utf8_incomplete_tail("abc", 3) == 0);
    CHECK(utf8_incomplete_tail("\xf0\x9f\x98", 3) == 3);
    CHECK(utf8_whole("ab\xe2\x82", 4) == 2 && utf8_whole("\xf0\x9f\x98\x80", 4) == 4);
    uint32_t cp = 0;
    CHECK(utf8_char("A", 1, &cp) == 1 && cp == 'A');
    CHECK(utf8_char("\xc3\xa9t", 3, &cp) == 2 && cp == 0xE9);
    CHECK(utf8_char("\xe2\x82\xac", 3, &cp) == 3 && cp == 0x20AC);
    CHECK(utf8_char("\xf0\x9f\x98\x80", 4, &cp) == 4 && cp == 0x1F600);
    CHECK(utf8_char("\xe2\x82", 2, &cp) == 0 && utf8_char("\xc0\xaf", 2, &cp) == 0 && utf8_char("\xff", 1, &cp) == 0);
    CHECK(utf8_char("", 0, &cp) == 0);
}

static void test_connection(void) {
    char path[] = "/tmp/icuda-conn-XXXXXX";
    int fd = mkstemp(path);
    const char *text = "{\"shell_port\": 1, \"iopub_port\": 2, \"stdin_port\": 3, "
                       "\"control_port\": 4, \"hb_port\": 5, \"ip\": \"127.0.0.1\", "
                       "\"key\": \"abc\", \"transport\": \"tcp\", "
                       "\"signature_scheme\": \"hmac-sha256\", \"kernel_name\": \"icuda\"}";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    connection_t c;
    char why[256];
    CHECK(connection_load(path, &c, why, sizeof why) == 0);
    CHECK(c.shell_port == 1 && c.hb_port == 5 && c.control_port == 4);
    CHECK_STR(c.key, "abc");
    char ep[300];
    connection_endpoint(&c, c.iopub_port, ep, sizeof ep);
    CHECK_STR(ep, "tcp://127.0.0.1:2");
    connection_free(&c);

    FILE *f = fopen(path, "w");
    fputs("{\"shell_port\": \"x\"}", f);
    fclose(f);
    CHECK(connection_load(path, &c, why, sizeof why) == -1);
    f = fopen(path, "w");
    fputs("{\"shell_port\": 1, \"iopub_port\": 2, \"stdin_port\": 3, \"control_port\": 4, "
          "\"hb_port\": 5, \"key\": \"k\", \"signature_scheme\": \"hmac-md5\"}", f);
    fclose(f);
    CHECK(connection_load(path, &c, why, sizeof why) == -1);
    CHECK(strstr(why, "hmac-md5") != NULL);
    f = fopen(path, "w");
    fputs("not json", f);
    fclose(f);
    CHECK(connection_load(path, &c, why, sizeof why) == -1);
    unlink(path);
    CHECK(connection_load("/nonexistent/icuda.json", &c, why, sizeof why) == -1);
    /* a FIFO (no writer: a blocking open waits forever) and a device are refused at once */
    CHECK(mkfifo(path, 0600) == 0);
    CHECK(connection_load(path, &c, why, sizeof why) == -1);
    CHECK(strstr(why, "not a regular file") != NULL);
    unlink(path);
    CHECK(connection_load("/dev/zero", &c, why, sizeof why) == -1);
    CHECK(strstr(why, "not a regular file") != NULL);
}

static void test_history(void) {
    char hist[] = "/tmp/icuda-history-XXXXXX";
    int fd = mkstemp(hist);
    CHECK(fd >= 0);
    close(fd);
    setenv("ICUDA_HISTORY", hist, 1);
    history_t *h = history_new();
    CHECK(history_session(h) == 1);
    history_add(h, 1, "int a = 1;", NULL);
    history_add(h, 2, "printf(\"%d\", a);", NULL);
    history_add(h, 3, "int a = 1;", NULL);
    char why[200];
    json_t *req = json_pack("{s:s, s:i}", "hist_access_type", "tail", "n", 2);
    json_t *r = history_query(h, req, why, sizeof why);
    CHECK(json_array_size(r) == 2);
    CHECK(json_integer_value(json_array_get(json_array_get(r, 0), 1)) == 2);
    json_decref(r);
    json_decref(req);
    req = json_pack("{s:s, s:i, s:i, s:i}", "hist_access_type", "range", "session", 0, "start", 2,
                    "stop", 4);
    r = history_query(h, req, why, sizeof why);
    CHECK(json_array_size(r) == 2);
    json_decref(r);
    json_decref(req);
    req = json_pack("{s:s, s:s, s:b}", "hist_access_type", "search", "pattern", "int*", "unique", 1);
    r = history_query(h, req, why, sizeof why);
    CHECK(json_array_size(r) == 1);
    CHECK(json_integer_value(json_array_get(json_array_get(r, 0), 1)) == 3);
    json_decref(r);
    json_decref(req);
    req = json_pack("{s:s}", "hist_access_type", "sideways");
    CHECK(history_query(h, req, why, sizeof why) == NULL);
    json_decref(req);
    req = json_pack("{s:s, s:s}", "hist_access_type", "tail", "n", "ten");
    CHECK(history_query(h, req, why, sizeof why) == NULL);
    json_decref(req);
    history_free(h);

    /* the next process is the next session, and sees this one's cells */
    h = history_new();
    CHECK(history_session(h) == 2);
    history_add(h, 1, "a + 1", "(int) 2");
    req = json_pack("{s:s, s:i, s:b}", "hist_access_type", "tail", "n", 2, "output", 1);
    r = history_query(h, req, why, sizeof why);
    CHECK(json_array_size(r) == 2);
    json_t *last = json_array_get(r, 1);
    CHECK(json_integer_value(json_array_get(last, 0)) == 2);
    CHECK(!strcmp(json_string_value(json_array_get(json_array_get(last, 2), 1)), "(int) 2"));
    CHECK(json_is_null(json_array_get(json_array_get(json_array_get(r, 0), 2), 1)));
    json_decref(r);
    json_decref(req);
    req = json_pack("{s:s, s:i, s:i}", "hist_access_type", "range", "session", -1, "start", 1);
    r = history_query(h, req, why, sizeof why);
    CHECK(json_array_size(r) == 3);
    json_decref(r);
    json_decref(req);
    history_free(h);
    unlink(hist);
    unsetenv("ICUDA_HISTORY");
}

int main(void) {
    test_hmac_vector();
    test_decode();
    test_decode_header();
    test_encode_roundtrip();
    test_replay_set();
    test_utf8();
    test_connection();
    test_history();
    return check_report();
}
