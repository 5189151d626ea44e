/* kernel/history.c: every bound of the history (one input, one output, all
 * of it in memory, a line of the file, a reply), a session number taken
 * per kernel even before its first cell, and a history file that is not a
 * regular file used without blocking. */
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "kernel/history.h"

static char dir[] = "/tmp/icuda-test-history-XXXXXX";
static char path[256];

static json_t *query(history_t *h, const char *req) {
    json_t *r = json_loads(req, 0, NULL);
    char why[200] = "";
    json_t *out = history_query(h, r, why, sizeof why);
    json_decref(r);
    return out;
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/history.jsonl", dir);
    setenv("ICUDA_HISTORY", path, 1);

    /* each kernel writes its number down as it starts: no two share one */
    history_t *a = history_new(), *b = history_new();
    CHECK(history_session(a) == 1 && history_session(b) == 2);
    history_free(a);
    history_free(b);

    /* an output cut at its limit inside a UTF-8 character is kept whole characters */
    history_t *h = history_new();
    CHECK(history_session(h) == 3);
    size_t on = 20001;
    char *out = malloc(on + 1);
    memset(out, 'x', 9999);
    for (size_t i = 9999; i < on; i += 2) memcpy(out + i, "\xc3\xa9", 2); /* é across byte 10000 */
    out[on] = 0;
    history_add(h, 1, "first", out);
    free(out);
    json_t *r = query(h, "{\"hist_access_type\": \"tail\", \"n\": 1, \"output\": true}");
    const char *kept = json_string_value(json_array_get(json_array_get(json_array_get(r, 0), 2), 1));
    CHECK(kept && strlen(kept) == 9999 && kept[9998] == 'x');
    json_decref(r);

    /* all of it in memory stays under 64 MiB: 70 inputs of 1 MiB push the first ones out */
    size_t mib = 1 << 20;
    char *big = malloc(mib + 1);
    memset(big, 'z', mib);
    big[mib] = 0;
    for (int i = 0; i < 70; i++) {
        big[0] = (char)('A' + i % 26);
        history_add(h, 2 + i, big, NULL);
    }
    r = query(h, "{\"hist_access_type\": \"search\", \"pattern\": \"first\"}");
    CHECK(json_array_size(r) == 0);
    json_decref(r);
    /* a reply is at most 16 MiB: the newest 15 of them */
    r = query(h, "{\"hist_access_type\": \"range\", \"session\": 0}");
    char *text = json_dumps(r, JSON_COMPACT);
    CHECK(json_array_size(r) == 15 && strlen(text) <= ((size_t)16 << 20));
    CHECK(json_integer_value(json_array_get(json_array_get(r, 14), 1)) == 71);
    free(text);
    json_decref(r);
    free(big);
    history_free(h);

    /* a line too long to be one the kernel wrote is skipped; the rest loads */
    FILE *f = fopen(path, "w");
    fprintf(f, "{\"session\":7,\"line\":1,\"input\":\"kept\"}\n{\"session\":8,\"line\":1,\"input\":\"");
    for (int i = 0; i < 9 << 20; i++) fputc('q', f);
    fprintf(f, "\"}\n{\"session\":7,\"line\":2,\"input\":\"also kept\"}\n");
    fclose(f);
    h = history_new();
    CHECK(history_session(h) == 8);
    r = query(h, "{\"hist_access_type\": \"tail\"}");
    CHECK(json_array_size(r) == 2);
    CHECK_STR(json_string_value(json_array_get(json_array_get(r, 1), 2)), "also kept");
    json_decref(r);
    history_free(h);

    /* a FIFO (or anything but a regular file) as the history file: memory only, without blocking */
    unlink(path);
    CHECK(mkfifo(path, 0600) == 0);
    h = history_new();
    CHECK(h && history_session(h) == 1);
    history_add(h, 1, "in memory", NULL);
    r = query(h, "{\"hist_access_type\": \"tail\"}");
    CHECK(json_array_size(r) == 1);
    json_decref(r);
    history_free(h);

    char rm[300];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    CHECK(system(rm) == 0);
    return check_report();
}
