/* The host libraries and device-library types host cells see, against the
 * toolkit's own headers:
 *   - every struct the library headers declare (curand.h, cublas_api.h,
 *     cufft.h, nccl.h, and the plain C structs of curand_kernel.h) has the size,
 *     alignment and field offsets gcc gives it (build/gen/clib_table.c is
 *     compiled against the headers), and every enumerator and numeric
 *     constant its value;
 *   - curandState, __half, __nv_bfloat16, cuComplex, ... have the size and
 *     alignment g++ gives the real C++ headers (build/gen/clib_ref.cc);
 *   - every function each header declares is in the table, with the
 *     header's prototype (clib_table.c checks that at compile time), and
 *     each library's status codes have names and texts. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "header_text.h"
#include "runtime/cuda/cuda_libs.h"
#include "runtime/lang/interp.h"

#include "runtime/base/cell_io.h"
#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

static int shown;

static double eval(interp_t *in, const char *fmt, const char *a, const char *b, int *ok) {
    char text[512];
    snprintf(text, sizeof text, fmt, a, b);
    interp_text_t t = {text, 0, "test"};
    cell_error_t err = {0};
    double v = 0;
    *ok = interp_eval_number(in, &t, &v, &err) == 0;
    if (!*ok && shown++ < 20) fprintf(stderr, "  %s: %s %s\n", text, err.ename ? err.ename : "", err.evalue ? err.evalue : "");
    free(err.ename);
    free(err.evalue);
    if (err.traceback) json_decref(err.traceback);
    return v;
}

static void layouts(interp_t *in) {
    int bad = 0, ok;
    for (int i = 0; i < clib_nstructs; i++) {
        const crt_struct_t *s = &clib_structs[i];
        double size = eval(in, "sizeof(%s)%s", s->type, "", &ok);
        double align = ok ? eval(in, "_Alignof(%s)%s", s->type, "", &ok) : 0;
        if ((!ok || size != s->size || align != s->align) && bad++ < 20)
            fprintf(stderr, "FAIL layout of %s: interpreter %g bytes, align %g; gcc %u, %u\n", s->type, size, align,
                    s->size, s->align);
    }
    CHECK(bad == 0);
    CHECK(clib_nstructs >= 20);
    bad = 0;
    for (int i = 0; i < clib_nfields; i++) {
        const crt_field_t *f = &clib_fields[i];
        double off = eval(in, "offsetof(%s, %s)", f->type, f->field, &ok);
        if ((!ok || off != f->off) && bad++ < 20)
            fprintf(stderr, "FAIL offsetof(%s, %s): interpreter %g, gcc %u\n", f->type, f->field, off, f->off);
    }
    CHECK(bad == 0);
    /* the C++ headers' own layouts, as g++ compiles them */
    bad = 0;
    for (int i = 0; i < clib_ref_nstructs; i++) {
        const crt_struct_t *s = &clib_ref_structs[i];
        double size = eval(in, "sizeof(%s)%s", s->type, "", &ok);
        double align = ok ? eval(in, "_Alignof(%s)%s", s->type, "", &ok) : 0;
        if ((!ok || size != s->size || align != s->align) && bad++ < 20)
            fprintf(stderr, "FAIL layout of %s: interpreter %g bytes, align %g; g++ %u, %u\n", s->type, size, align,
                    s->size, s->align);
    }
    CHECK(bad == 0);
    CHECK(clib_ref_nstructs >= 20);
    CHECK(eval(in, "sizeof(curandState)%s%s", "", "", &ok) == 48 && ok);
}

static void constants(interp_t *in) {
    int bad = 0, ok;
    for (int i = 0; i < clib_nconsts; i++) {
        double v = eval(in, "(long long)(%s)%s", clib_consts[i].name, "", &ok);
        if ((!ok || v != (double)clib_consts[i].value) && bad++ < 20)
            fprintf(stderr, "FAIL %s: interpreter %g, the header %lld\n", clib_consts[i].name, v, clib_consts[i].value);
    }
    CHECK(bad == 0);
    CHECK(clib_nconsts > 200);
    /* every status has a name, and every failing one a text of our own */
    bad = 0;
    for (int i = 0; i < clib_nstatuses; i++) {
        const clib_status_t *s = &clib_statuses[i];
        if (!s->value) continue;
        const char *n = clib_status_name(s->lib, s->value);
        if ((!n || !strcmp(clib_status_text(n), "an error of the library")) && bad++ < 10)
            fprintf(stderr, "FAIL no text for %s\n", s->name);
    }
    CHECK(bad == 0);
}

/* The functions a header declares, by a plain scan (not the generator's
 * parser): "API name(" outside comments, for names with the prefix. */
static void functions(const char *header, const char *api, const char *prefix, int lib) {
    char path[512];
    snprintf(path, sizeof path, "%s/include/%s", ICUDA_CUDA_HOME, header);
    char *s = header_text(path, false);
    static const char *const elsewhere[] = {"/usr/include", "/usr/local/include"}; /* NCCL's, apart from the toolkit */
    for (size_t i = 0; !s && i < sizeof elsewhere / sizeof elsewhere[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", elsewhere[i], header);
        s = header_text(path, false);
    }
    if (!s) {
        CHECK_SKIP(1, "no library header to read");
        return;
    }
    /* what only C++ sees (#if defined(__cplusplus): the half-precision
     * functions) is not the C API the table holds */
    int depth = 0, cxx_at = -1;
    for (char *p = s; *p;) {
        char *eol = strchr(p, '\n');
        if (!eol) eol = p + strlen(p);
        char *q = p;
        while (q < eol && isspace((unsigned char)*q)) q++;
        bool blank = cxx_at >= 0;
        if (!strncmp(q, "#if", 3)) {
            char c = *eol;
            *eol = 0; /* this line only */
            if (cxx_at < 0 && strstr(q, "__cplusplus") && !strstr(q, "!defined")) cxx_at = depth;
            *eol = c;
            depth++;
        } else if (!strncmp(q, "#else", 5) || !strncmp(q, "#elif", 5)) {
            if (cxx_at == depth - 1) cxx_at = -1, blank = true;
        } else if (!strncmp(q, "#endif", 6)) {
            depth--;
            if (cxx_at == depth) cxx_at = -1;
        }
        if (blank || cxx_at >= 0) memset(p, ' ', (size_t)(eol - p));
        p = *eol ? eol + 1 : eol;
    }
    int found = 0, missing = 0;
    size_t al = strlen(api);
    for (char *p = strstr(s, api); p; p = strstr(p + al, api)) {
        char *b = p + al;
        while (isspace((unsigned char)*b)) b++;
        char *e = b;
        while (isalnum((unsigned char)*e) || *e == '_') e++;
        char *q = e;
        while (isspace((unsigned char)*q)) q++;
        if (*q != '(' || strncmp(b, prefix, strlen(prefix))) continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(e - b), b);
        found++;
        int ix = clib_find(name);
        if (ix < 0 || clib_fn_lib[ix] != lib) {
            missing++;
            fprintf(stderr, "FAIL %s is declared by %s but not in the table\n", name, header);
        }
    }
    free(s);
    CHECK(found > 10);
    if (found <= 10) fprintf(stderr, "  %s: only %d functions found\n", header, found);
    CHECK(missing == 0);
}

/* Whether nccl.h was found when icuda was built (its functions are then in the table). */
static bool nccl_built(void) {
    for (int i = 0; i < clib_nfns; i++)
        if (clib_fn_lib[i] == CLIB_NCCL) return true;
    return false;
}

static void parameters(void) {
    int ix = clib_find("cublasSgemm_v2");
    CHECK(ix >= 0 && clib_fn_lib[ix] == CLIB_CUBLAS && clib_fns[ix].nparams == 14 &&
          clib_fns[ix].params[0].kind == CRT_HANDLE && clib_fns[ix].params[1].kind == CRT_INT &&
          clib_fns[ix].params[7].kind == CRT_PTR && clib_fns[ix].params[7].pointee_size == 4 &&
          clib_fns[ix].ret == CRT_RET_ERROR);
    ix = clib_find("cublasSetStream_v2");
    CHECK(ix >= 0 && clib_fns[ix].params[1].kind == CRT_STREAM);
    ix = clib_find("curandCreateGenerator");
    CHECK(ix >= 0 && clib_fns[ix].params[0].pointee == CRT_PT_HANDLE);
    ix = clib_find("curandGenerateNormalDouble");
    CHECK(ix >= 0 && clib_fns[ix].params[1].pointee_size == 8 && clib_fns[ix].params[3].kind == CRT_DOUBLE);
    ix = clib_find("cufftExecR2C");
    CHECK(ix >= 0 && clib_fn_lib[ix] == CLIB_CUFFT && clib_fns[ix].params[0].kind == CRT_INT &&
          clib_fns[ix].params[2].pointee_size == 8);
    CHECK(clib_find("cudaMalloc") < 0);
    if (!nccl_built()) return;
    /* NCCL: communicators are the worker's handles, the id a 128-byte struct by value, the stream icuda's */
    ix = clib_find("ncclCommInitRank");
    CHECK(ix >= 0 && clib_fn_lib[ix] == CLIB_NCCL && clib_fns[ix].params[0].pointee == CRT_PT_HANDLE &&
          clib_fns[ix].params[2].kind == CRT_STRUCT && clib_fns[ix].params[2].size == 128);
    ix = clib_find("ncclAllReduce");
    CHECK(ix >= 0 && clib_fns[ix].nparams == 7 && clib_fns[ix].params[0].pointee == CRT_PT_VOID &&
          clib_fns[ix].params[5].kind == CRT_HANDLE && clib_fns[ix].params[6].kind == CRT_STREAM &&
          clib_fns[ix].ret == CRT_RET_ERROR);
    ix = clib_find("ncclGetUniqueId");
    CHECK(ix >= 0 && clib_fns[ix].params[0].pointee_size == 128);
    CHECK(clib_find("pncclAllReduce") < 0); /* the profiling aliases are not host code's */
    CHECK(clib_const("ncclFloat32", -1) == 7 && clib_const("ncclSum", -1) == 0);
}

/* The page's counts are the code's. */
static void coverage_page(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        CHECK_SKIP(1, "no docs/cuda-libraries.md");
        return;
    }
    static char all[1 << 16];
    size_t n = fread(all, 1, sizeof all - 1, f);
    all[n] = 0;
    fclose(f);
    for (int lib = 1; lib < CLIB_N; lib++) {
        int total, fwd, cb, ns;
        clib_coverage(lib, &total, &fwd, &cb, &ns);
        if (lib == CLIB_NCCL && !total) {
            CHECK_SKIP(1, "icuda was built without nccl.h");
            continue;
        }
        char want[256];
        snprintf(want, sizeof want, "| %s (%s) | %d | %d | %d | %d |", clib_libs[lib].name, clib_libs[lib].header, total,
                 fwd, cb, ns);
        CHECK(strstr(all, want) != NULL);
        if (!strstr(all, want)) fprintf(stderr, "  the page should have: %s\n", want);
        CHECK(total == fwd + cb + ns && fwd > 0);
    }
}

int main(void) {
    interp_t *in = interp_new();
    layouts(in);
    constants(in);
    interp_free(in);
    functions("curand.h", "CURANDAPI", "curand", CLIB_CURAND);
    functions("cublas_api.h", "CUBLASWINAPI", "cublas", CLIB_CUBLAS);
    functions("cufft.h", "CUFFTAPI", "cufft", CLIB_CUFFT);
    if (nccl_built()) functions("nccl.h", "ncclResult_t", "nccl", CLIB_NCCL);
    else CHECK_SKIP(1, "icuda was built without nccl.h");
    parameters();
    coverage_page("docs/cuda-libraries.md");
    return check_report();
}
