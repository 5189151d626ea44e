/* A cell that defines nothing lasting gives its pool space back
 * (runtime/lang/session/session.c, cell_end): what it leaves behind must stay valid — a
 * string literal a session pointer holds, the name of a dead local or the
 * cell of a freed buffer in later messages, a kept function's loop that the
 * native tier compiles while such a cell runs, a C++ method compiled on its
 * first call, a template instance; and many such cells do not grow the
 * session's pool. Under ASan the space given back is poisoned and never
 * reused, so a pointer left into it is caught. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "out_capture.h"
#include "runtime/lang/interp.h"
#include "runtime/lang/core/core.h"
#include "runtime/lang/native/native.h"


#include "runtime/base/cell_io.h"
static interp_t *in;
static out_t out;
static cell_io_t io = {&out, io_stream, NULL, NULL, NULL};
static char ename[64], evalue[1024];

static const char *run(const char *code) {
    static int n;
    char name[32];
    snprintf(name, sizeof name, "In [%d]", ++n);
    out.n = 0;
    if (out.s) out.s[0] = 0;
    cell_error_t err = {0};
    json_t *v = NULL;
    ename[0] = evalue[0] = 0;
    if (interp_run(in, code, name, &io, &v, &err)) {
        snprintf(ename, sizeof ename, "%s", err.ename ? err.ename : "?");
        snprintf(evalue, sizeof evalue, "%s", err.evalue ? err.evalue : "");
    }
    interp_flush_output(in);
    if (v) json_decref(v);
    cell_error_clear(&err);
    return out.s ? out.s : "";
}

static size_t pool_bytes(pool_t *p) {
    size_t n = 0;
    for (pool_chunk_t *c = p->head; c; c = c->next) n += c->used;
    return n;
}

int main(void) {
    in = interp_new();
    run("const char *msg; int *gp; int g; long total;");
    CHECK_STR(ename, "");
    /* a literal held by a session pointer outlives its cell */
    run("{ msg = \"hello from a gone cell\"; }");
    run("{ char buf[64]; snprintf(buf, sizeof buf, \"%d-%s\", 42, \"x\"); g = (int)strlen(buf); }");
    CHECK_STR(run("printf(\"%s %d\\n\", msg, g);"), "hello from a gone cell 4\n");
    /* a dead local's name, in a later cell's message */
    run("{ int local_one = 5; gp = &local_one; }");
    run("printf(\"%d\\n\", *gp);");
    CHECK_STR(ename, "RuntimeError");
    CHECK(strstr(evalue, "local_one") != NULL);
    /* a freed buffer's cell, in a later cell's message */
    run("{ gp = (int *)malloc(8); }");
    run("free(gp);");
    run("free(gp);");
    CHECK_STR(ename, "RuntimeError");
    CHECK(strstr(evalue, "double free") != NULL && strstr(evalue, "In [") != NULL);
    /* an error in such a cell, then the session goes on */
    run("{ int *z = 0; g = *z; }");
    CHECK_STR(ename, "RuntimeError");
    CHECK_STR(run("printf(\"%d\\n\", g);"), "4\n");

    /* a kept function's loop compiled while a cell that keeps nothing runs */
    native_set_mode(in, NATIVE_ALWAYS);
    run("long garr[4] = {1, 2, 3, 4}; long *gptr = garr;\n"
        "long sum_to(long n) { long s = 0; for (long i = 0; i < n; i++) s += i + garr[i % 4] + gptr[i % 4]; "
        "return s; }");
    run("{ total = sum_to(100); }");
    run("{ long a = 1, b = 2, c = 3; total += sum_to(1000) + a + b + c; }");
    CHECK_STR(run("printf(\"%ld\\n\", total);"), "509956\n");
    CHECK(native_stats(in).entries >= 2); /* compiled code ran, in both cells */
    native_set_mode(in, NATIVE_OFF);

    /* C++: a method compiled on its first call, a template instance */
    run("struct Acc { long v = 0; void add(long x) { v += x * 2; } long get() const { return v; } }; Acc acc;");
    run("{ acc.add(3); }");
    run("{ acc.add(4); }");
    CHECK_STR(run("std::cout << acc.get() << std::endl;"), "14\n");
    run("{ std::vector<double> w(3, 1.5); total = (long)(w[0] * w.size() * 2); }");
    run("{ std::vector<double> w(2, 2.0); total += (long)(w[1] * w.size()); }");
    CHECK_STR(run("printf(\"%ld\\n\", total);"), "13\n");

    /* many cells that keep nothing: the pool does not grow */
    const char *cell = "{ char *p = (char *)malloc(4096); memset(p, 7, 4096); int s = p[100]; free(p); "
                       "g = s + (int)strlen(\"abc\"); }";
    run(cell);
    size_t before = pool_bytes(&in->pool), keep0 = pool_bytes(&in->keep);
    for (int i = 0; i < 200; i++) run(cell);
#if !defined(__SANITIZE_ADDRESS__) /* ASan's build never reuses the space (util.c) */
    CHECK(pool_bytes(&in->pool) == before);
#endif
    CHECK(pool_bytes(&in->keep) - keep0 < 200 * 32); /* the cells' names only */
    CHECK_STR(run("printf(\"%d %s\\n\", g, msg);"), "10 hello from a gone cell\n");
    /* a cell that defines something keeps its share */
    before = pool_bytes(&in->pool);
    run("int later(int x) { return x + 1; }");
    CHECK(pool_bytes(&in->pool) > before);
    CHECK_STR(run("printf(\"%d\\n\", later(1));"), "2\n");
    interp_free(in);
    free(out.s);
    return check_report();
}
