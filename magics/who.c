/* %who: the session's host variables, with type and size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "magics.h"
#include "runtime/lang/interp.h"
#include "runtime/base/strbuf.h"

#include "runtime/base/xalloc.h"
void magic_who_user_rows(json_t *rows) {
    /* the C++ library's objects (std::cout, ...) are not the user's */
    for (size_t i = json_array_size(rows); i-- > 0;)
        if (!strncmp(json_string_value(json_object_get(json_array_get(rows, i), "name")), "std::", 5))
            json_array_remove(rows, i);
}

static int by_name(const void *a, const void *b) {
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    return strcmp(json_string_value(json_object_get(x, "name")), json_string_value(json_object_get(y, "name")));
}

static int who_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    json_t *rows = mc->interp ? interp_who(mc->interp) : json_array();
    magic_who_user_rows(rows);
    size_t n = json_array_size(rows);
    if (n == 0) {
        io_printf(mc->io, "stdout", "no session variables yet\n");
        json_decref(rows);
        return 0;
    }
    json_t **v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) v[i] = json_array_get(rows, i);
    qsort(v, n, sizeof *v, by_name);
    strbuf_t t = {0}, h = {0};
    sb_printf(&t, "%-20s %-28s %10s  %s\n", "name", "type", "size", "place");
    sb_puts(&h, "<table><thead><tr><th>name</th><th>type</th><th>size</th><th>place</th></tr></thead><tbody>");
    for (size_t i = 0; i < n && i < MAGIC_TABLE_ROWS; i++) {
        const char *name = json_string_value(json_object_get(v[i], "name"));
        const char *type = json_string_value(json_object_get(v[i], "type"));
        const char *place = json_string_value(json_object_get(v[i], "place"));
        long long size = (long long)json_integer_value(json_object_get(v[i], "size"));
        sb_printf(&t, "%-20s %-28s %8lld B  %s\n", name, type, size, place ? place : "");
        char en[200], et[400]; /* std::vector<int> is not markup */
        chart_escape(name, en, sizeof en);
        chart_escape(type, et, sizeof et);
        sb_printf(&h, "<tr><td><code>%s</code></td><td><code>%s</code></td><td style=\"text-align:right\">%lld B</td>"
                  "<td>%s</td></tr>", en, et, size, place ? place : "");
    }
    sb_puts(&h, "</tbody></table>");
    if (n > MAGIC_TABLE_ROWS) { /* a table a front end can draw */
        sb_printf(&t, "... and %zu more variables\n", n - MAGIC_TABLE_ROWS);
        sb_printf(&h, "<p>... and %zu more variables</p>", n - MAGIC_TABLE_ROWS);
    }
    char *plain = sb_take(&t), *html = sb_take(&h);
    io_display_text(mc->io, plain, html);
    free(plain);
    free(html);
    free(v);
    json_decref(rows);
    return 0;
}

const magic_t magic_who = {"who", "%who", "list the session's host variables with type and size", NULL, who_line, NULL};
