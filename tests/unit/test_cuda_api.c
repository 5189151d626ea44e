/* The CUDA runtime API host cells see, against the toolkit's own headers:
 *   - every struct and union of cuda_runtime_api.h, driver_types.h and
 *     vector_types.h has the size, alignment and field offsets that gcc
 *     gives it (build/gen/crt_table.c is compiled against the headers: it
 *     is the probe), and every enumerator and numeric constant its value;
 *   - every function the header declares (read again here, apart from the
 *     generator) is in the table, and each one either runs (icuda's own,
 *     the interpreter's, or forwarded) or is refused with a reason;
 *   - docs/cuda-api-coverage.md states the counts the code has;
 *   - every cudaError_t code has CUDA's name and text in cuda_errors.c.
 * Usage: test_cuda_api [path to cuda_runtime_api.h] */
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
#include "runtime/cuda/cuda_call.h"
#include "runtime/toolkit/cuda_errors.h"
#include "runtime/toolkit/cuda_rt_table.h"
#include "runtime/lang/interp.h"

#ifndef ICUDA_CUDA_HOME
#define ICUDA_CUDA_HOME "/usr/local/cuda"
#endif

static int shown, quiet;

static double eval(interp_t *in, const char *fmt, const char *a, const char *b, int *ok) {
    char text[512];
    snprintf(text, sizeof text, fmt, a, b);
    interp_text_t t = {text, 0, "test"};
    cell_error_t err = {0};
    double v = 0;
    *ok = interp_eval_number(in, &t, &v, &err) == 0;
    if (!*ok && !quiet && shown++ < 20) fprintf(stderr, "  %s: %s %s\n", text, err.ename ? err.ename : "", err.evalue ? err.evalue : "");
    free(err.ename);
    free(err.evalue);
    if (err.traceback) json_decref(err.traceback);
    return v;
}

static void layouts(interp_t *in) {
    int bad = 0, ok;
    for (int i = 0; i < crt_nstructs; i++) {
        const crt_struct_t *s = &crt_structs[i];
        double size = eval(in, "sizeof(%s)%s", s->type, "", &ok);
        double align = ok ? eval(in, "_Alignof(%s)%s", s->type, "", &ok) : 0;
        if (!ok || size != s->size || align != s->align) {
            if (bad++ < 20)
                fprintf(stderr, "FAIL layout of %s: interpreter %g bytes, align %g; gcc %u, %u\n", s->type, size, align,
                        s->size, s->align);
        }
    }
    CHECK(bad == 0);
    CHECK(crt_nstructs > 100);
    bad = 0;
    for (int i = 0; i < crt_nfields; i++) {
        const crt_field_t *f = &crt_fields[i];
        double off = eval(in, "offsetof(%s, %s)", f->type, f->field, &ok);
        if (!ok || off != f->off) {
            if (bad++ < 20)
                fprintf(stderr, "FAIL offsetof(%s, %s): interpreter %g, gcc %u\n", f->type, f->field, off, f->off);
        }
    }
    CHECK(bad == 0);
    CHECK(crt_nfields > 500);
    /* the ones tutorials use, by name: CUDA 13's cudaDeviceProp has no clockRate */
    CHECK(eval(in, "sizeof(cudaDeviceProp)%s%s", "", "", &ok) == 1008 && ok);
    quiet = 1;
    eval(in, "offsetof(cudaDeviceProp, memoryClockRate)%s%s", "", "", &ok);
    quiet = 0;
    CHECK(!ok);
    CHECK(eval(in, "sizeof(dim3) + sizeof(float4) + _Alignof(double2)%s%s", "", "", &ok) == 12 + 16 + 16 && ok);
}

static void constants(interp_t *in) {
    int bad = 0, ok;
    for (int i = 0; i < crt_nconsts; i++) {
        double v = eval(in, "(long long)(%s)%s", crt_consts[i].name, "", &ok);
        if (!ok || v != (double)crt_consts[i].value) {
            if (bad++ < 20)
                fprintf(stderr, "FAIL %s: interpreter %g, the header %lld\n", crt_consts[i].name, v, crt_consts[i].value);
        }
    }
    CHECK(bad == 0);
    CHECK(crt_nconsts > 500);
    /* CUDA's own name and text for every error code */
    bad = 0;
    for (int i = 0; i < crt_nconsts; i++)
        if (!strncmp(crt_consts[i].name, "cudaError", 9) && strcmp(crt_consts[i].name, "cudaErrorApiFailureBase") &&
            (!cuda_error_known((int)crt_consts[i].value) ||
             strcmp(cuda_error_name((int)crt_consts[i].value), crt_consts[i].name))) {
            if (bad++ < 10) fprintf(stderr, "FAIL cuda_errors.c lacks %s\n", crt_consts[i].name);
        }
    CHECK(bad == 0);
}

/* The functions of the header and of cuda_profiler_api.h beside it, read
 * with a plain scan (not the generator's parser): "extern ... cudaName("
 * outside comments. */
static void functions(const char *header) {
    char *runtime = header_text(header, true);
    if (!runtime) {
        CHECK_SKIP(1, "no cuda_runtime_api.h to read");
        return;
    }
    char profiler_path[1024];
    const char *slash = strrchr(header, '/');
    snprintf(profiler_path, sizeof profiler_path, "%.*scuda_profiler_api.h", slash ? (int)(slash - header + 1) : 0, header);
    char *profiler = header_text(profiler_path, true);
    CHECK(profiler != NULL);
    size_t nr = strlen(runtime), np = profiler ? strlen(profiler) : 0;
    char *s = malloc(nr + np + 2);
    memcpy(s, runtime, nr);
    s[nr] = '\n';
    memcpy(s + nr + 1, profiler ? profiler : "", np + 1);
    free(runtime);
    free(profiler);
    int found = 0, missing = 0, nseen = 0;
    static char *seen[1024];
    for (char *p = strstr(s, "extern"); p; p = strstr(p + 6, "extern")) {
        char *end = strchr(p, ';'), *paren = strchr(p, '(');
        if (!end || !paren || paren > end) continue;
        char *e = paren;
        while (e > p && isspace((unsigned char)e[-1])) e--;
        char *b = e;
        while (b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) b--;
        if (e - b < 5 || strncmp(b, "cuda", 4)) continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(e - b), b);
        bool again = false; /* declared twice: the per-thread default stream section */
        for (int i = 0; i < nseen && !again; i++) again = !strcmp(seen[i], name);
        if (again || nseen == 1024) continue;
        seen[nseen++] = strdup(name);
        found++;
        if (!crt_find(name)) {
            missing++;
            fprintf(stderr, "FAIL %s is declared by the header but not in the table\n", name);
        }
    }
    free(s);
    for (int i = 0; i < nseen; i++) free(seen[i]);
    CHECK(found == crt_nfns);
    CHECK(missing == 0);
    if (found != crt_nfns) fprintf(stderr, "  the header declares %d functions, the table has %d\n", found, crt_nfns);
}

static void classified(void) {
    cs_coverage_t cv;
    cs_api_coverage(&cv);
    CHECK(cv.total == crt_nfns);
    CHECK(cv.own + cv.interpreted + cv.forwarded + cv.refused == cv.total);
    int fam = 0;
    for (int i = 0; i < cv.nfamilies; i++) fam += cv.refused_in[i];
    CHECK(fam == cv.refused);
    /* families refuse what they say, and the common calls are not refused */
    const char *family = NULL;
    CHECK(cs_refusal("cudaGraphicsMapResources", &family) && !strcmp(family, "graphics interop"));
    CHECK(cs_refusal("cudaIpcGetMemHandle", &family) && !strcmp(family, "inter-process sharing"));
    CHECK(cs_refusal("cudaUserObjectCreate", NULL));
    const char *common[] = {"cudaMemcpy2D", "cudaMallocPitch", "cudaDeviceGetAttribute", "cudaStreamWaitEvent",
                            "cudaGraphLaunch", "cudaGraphInstantiate", "cudaStreamBeginCapture", "cudaFuncSetAttribute",
                            "cudaLaunchHostFunc", "cudaOccupancyMaxActiveClusters", "cudaDeviceCanAccessPeer",
                            "cudaMallocAsync", "cudaHostRegister", "cudaMemcpyPeer", "cudaDeviceSetLimit"};
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) {
        const char *why = cs_refusal(common[i], NULL);
        CHECK(!why && crt_find(common[i]));
        if (why) fprintf(stderr, "  %s refused: %s\n", common[i], why);
    }
    /* parameters the forwarder must get right */
    const crt_fn_t *f = crt_find("cudaMemcpy2D");
    CHECK(f && f->nparams == 7 && f->params[0].kind == CRT_PTR && f->params[0].pointee == CRT_PT_VOID &&
          f->params[2].pointee_const && f->params[1].kind == CRT_UINT && f->params[6].kind == CRT_INT);
    f = crt_find("cudaStreamWaitEvent");
    CHECK(f && f->params[0].kind == CRT_STREAM && f->params[1].kind == CRT_EVENT);
    f = crt_find("cudaGraphLaunch");
    CHECK(f && f->params[0].kind == CRT_HANDLE && f->params[1].kind == CRT_STREAM);
    f = crt_find("cudaMemset3D");
    CHECK(f && f->params[0].kind == CRT_STRUCT && f->params[0].size == 32 && f->params[0].fields >= 0 &&
          crt_ptrfields[f->params[0].fields].n == 1 && crt_ptrfields[f->params[0].fields].off[0] == 0);
    f = crt_find("cudaGetDeviceProperties");
    CHECK(f && f->params[0].pointee == CRT_PT_STRUCT && f->params[0].pointee_size == 1008);
    f = crt_find("cudaLaunchHostFunc");
    CHECK(f && f->params[1].kind == CRT_FNPTR);
    f = crt_find("cudaMemcpy3D");
    CHECK(f && f->params[0].fields >= 0 && crt_ptrfields[f->params[0].fields].n == 4); /* 2 arrays, 2 pitched ptrs */
}

/* The page's counts are the code's: "N functions", "N run", ... */
static void coverage_page(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        CHECK_SKIP(1, "no docs/cuda-api-coverage.md");
        return;
    }
    char line[1024], *all = NULL;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        size_t k = strlen(line);
        all = realloc(all, n + k + 1);
        memcpy(all + n, line, k + 1);
        n += k;
    }
    fclose(f);
    cs_coverage_t cv;
    cs_api_coverage(&cv);
    char want[256];
    snprintf(want, sizeof want, "| all functions of cuda_runtime_api.h and cuda_profiler_api.h | %d |", cv.total);
    CHECK(all && strstr(all, want));
    if (!all || !strstr(all, want)) fprintf(stderr, "  the page should have: %s\n", want);
    snprintf(want, sizeof want, "| run by icuda's own code | %d |", cv.own);
    CHECK(all && strstr(all, want));
    if (!all || !strstr(all, want)) fprintf(stderr, "  the page should have: %s\n", want);
    snprintf(want, sizeof want, "| run by the interpreter | %d |", cv.interpreted);
    CHECK(all && strstr(all, want));
    if (!all || !strstr(all, want)) fprintf(stderr, "  the page should have: %s\n", want);
    snprintf(want, sizeof want, "| forwarded to the worker's libcudart | %d |", cv.forwarded);
    CHECK(all && strstr(all, want));
    if (!all || !strstr(all, want)) fprintf(stderr, "  the page should have: %s\n", want);
    snprintf(want, sizeof want, "| refused | %d |", cv.refused);
    CHECK(all && strstr(all, want));
    if (!all || !strstr(all, want)) fprintf(stderr, "  the page should have: %s\n", want);
    for (int i = 0; i < cv.nfamilies; i++) {
        snprintf(want, sizeof want, "| %s | %d |", cv.family[i], cv.refused_in[i]);
        CHECK(all && strstr(all, want));
        if (!all || !strstr(all, want)) fprintf(stderr, "  the page should have: %s\n", want);
    }
    free(all);
}

/* ---- host functions a CUDA call runs (cudaLaunchHostFunc): through a
 * stand-in for the GPU layer's hook ---- */

static char out_text[4096];
static void out_stream(void *ctx, const char *name, const char *text, size_t len) {
    size_t n = strlen(out_text);
    if (n + len < sizeof out_text) {
        memcpy(out_text + n, text, len);
        out_text[n + len] = 0;
    }
}
static void out_display(void *ctx, json_t *data, json_t *md, bool res) {}

static int fake_call(void *ctx, const char *name, const interp_arg_t *args, int nargs, int discarded, int64_t *ret,
                     char *ename, char *msg, size_t ml) {
    interp_t *in = ctx;
    uint64_t a[3];
    for (int i = 0; i < nargs && i < 3; i++) a[i] = args[i].bits;
    if (!strcmp(name, "cudaLaunchHostFunc") && nargs == 3) { /* fn(userData) */
        if (interp_call_host_function(in, a[1], &a[2], 1, NULL, msg, ml)) {
            snprintf(ename, INTERP_ENAME_MAX, "cudaErrorInvalidValue");
            return -1;
        }
        *ret = 0;
        return 0;
    }
    if (!strcmp(name, "cudaSmemFor") && nargs == 2) { /* fn(blockSize): its value */
        uint64_t b = a[1];
        if (interp_call_host_function(in, a[0], &b, 1, ret, msg, ml)) {
            snprintf(ename, INTERP_ENAME_MAX, "cudaErrorInvalidValue");
            return -1;
        }
        return 0;
    }
    snprintf(msg, ml, "no %s here", name);
    return -1;
}

static int run_cell(interp_t *in, const char *src, char *ename, size_t en) {
    cell_io_t io = {NULL, out_stream, out_display, NULL, NULL};
    cell_error_t err = {0};
    json_t *value = NULL;
    int r = interp_run(in, src, "In [1]", &io, &value, &err);
    if (value) json_decref(value);
    snprintf(ename, en, "%s%s%s", err.ename ? err.ename : "", err.evalue ? ": " : "", err.evalue ? err.evalue : "");
    free(err.ename);
    free(err.evalue);
    if (err.traceback) json_decref(err.traceback);
    return r;
}

static void host_functions(void) {
    interp_t *in = interp_new();
    interp_hooks_t h = {in, NULL, fake_call, NULL, NULL};
    interp_set_hooks(in, &h);
    char e[600];
    out_text[0] = 0;
    CHECK(run_cell(in, "int hits = 0;\nvoid CUDART_CB bump(void *p) { (*(int *)p) += 2; printf(\"cb\\n\"); }\n"
                       "size_t smem(int b) { return b * 8; }\n", e, sizeof e) == 0);
    CHECK(run_cell(in, "cudaLaunchHostFunc(0, bump, &hits); cudaLaunchHostFunc(0, &bump, &hits);\n"
                       "printf(\"%d %d\\n\", hits, (int)cudaSmemFor(smem, 128));", e, sizeof e) == 0);
    CHECK_STR(out_text, "cb\ncb\n4 1024\n");
    /* not a function, or the wrong one: refused before anything runs */
    CHECK(run_cell(in, "cudaLaunchHostFunc(0, (void (*)(void *))0, &hits);", e, sizeof e) != 0 && strstr(e, "NULL"));
    CHECK(run_cell(in, "cudaSmemFor(bump, 1); cudaSmemFor(printf, 1);", e, sizeof e) != 0);
    CHECK(run_cell(in, "int two(int a, int b) { return a + b; }\ncudaLaunchHostFunc(0, two, &hits);", e, sizeof e) != 0 &&
          strstr(e, "two takes 2 parameters"));
    /* an error inside the host function is the cell's, at its line */
    CHECK(run_cell(in, "void bad(void *p) { int *q = 0; *q = 1; }\ncudaLaunchHostFunc(0, bad, 0);", e, sizeof e) != 0 &&
          strstr(e, "NULL"));
    interp_free(in);
}

/* ---- the worker's typed callers (build/gen/crt_stubs.c, compiled in
 * here too): the same functions in the same order as the table, and each
 * passes the bytes it is given as the prototype's arguments ---- */
#include "build/gen/crt_stubs.c"

#include "runtime/base/cell_io.h"
static struct cudaPitchedPtr got_pp;
static struct cudaExtent got_ext;
static int got_value;
static cudaStream_t got_stream;
static cudaError_t fake_memset3d(struct cudaPitchedPtr p, int value, struct cudaExtent e, cudaStream_t s) {
    got_pp = p;
    got_value = value;
    got_ext = e;
    got_stream = s;
    return cudaErrorNotReady;
}
static size_t got_w, got_h;
static const void *got_src;
static cudaError_t fake_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                 size_t height, enum cudaMemcpyKind kind) {
    got_src = src;
    got_w = width;
    got_h = height;
    return (cudaError_t)(kind + dpitch + spitch + (dst != NULL));
}

static void stubs(void) {
    CHECK(crt_nstubs == crt_nfns);
    int bad = 0;
    for (int i = 0; i < crt_nstubs && i < crt_nfns; i++) {
        if (strcmp(crt_stubs[i].name, crt_fns[i].name)) bad++;
        if (!crt_stubs[i].call) continue; /* a struct result (cudaCreateChannelDesc): the interpreter's */
        if (crt_stubs[i].nparams != crt_fns[i].nparams) bad++;
        for (int k = 0; k < crt_stubs[i].nparams && k < crt_fns[i].nparams; k++)
            if (crt_stubs[i].sizes[k] != crt_fns[i].params[k].size) bad++;
    }
    CHECK(bad == 0);
    int ix = (int)(crt_find("cudaMemset3DAsync") - crt_fns);
    _Alignas(16) struct cudaPitchedPtr pp = {(void *)0x600000200000, 512, 64, 8};
    _Alignas(16) int value = 0x5a;
    _Alignas(16) struct cudaExtent e = {64, 8, 3};
    _Alignas(16) cudaStream_t s = (cudaStream_t)0x1234;
    void *args[4] = {&pp, &value, &e, &s};
    CHECK(crt_stubs[ix].call((void *)fake_memset3d, args) == cudaErrorNotReady);
    CHECK(got_pp.ptr == pp.ptr && got_pp.pitch == 512 && got_pp.ysize == 8 && got_value == 0x5a &&
          got_ext.depth == 3 && got_ext.width == 64 && got_stream == s);
    ix = (int)(crt_find("cudaMemcpy2D") - crt_fns);
    _Alignas(16) char buf[8];
    _Alignas(16) void *dst = buf;
    _Alignas(16) const void *src = buf + 1;
    _Alignas(16) size_t dp = 100, sp = 200, w = 3, h = 4;
    _Alignas(16) enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost;
    void *a2[7] = {&dst, &dp, &src, &sp, &w, &h, &kind};
    CHECK(crt_stubs[ix].call((void *)fake_memcpy2d, a2) == 2 + 100 + 200 + 1);
    CHECK(got_src == buf + 1 && got_w == 3 && got_h == 4);
}

/* test_cuda_api --coverage: the table docs/cuda-api-coverage.md shows */
static int print_coverage(void) {
    cs_coverage_t cv;
    cs_api_coverage(&cv);
    printf("| all functions of cuda_runtime_api.h | %d |\n| run by icuda's own code | %d |\n"
           "| run by the interpreter | %d |\n| forwarded to the worker's libcudart | %d |\n| refused | %d |\n\n",
           cv.total, cv.own, cv.interpreted, cv.forwarded, cv.refused);
    for (int i = 0; i < cv.nfamilies; i++) printf("| %s | %d |\n", cv.family[i], cv.refused_in[i]);
    printf("\nrefused:");
    for (int i = 0; i < crt_nfns; i++) {
        const char *fam = NULL;
        if (cs_refusal(crt_fns[i].name, &fam)) printf(" %s", crt_fns[i].name);
    }
    printf("\n\nown:");
    for (int i = 0; i < crt_nfns; i++)
        if (cs_api_own(crt_fns[i].name)) printf(" %s", crt_fns[i].name);
    printf("\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--coverage")) return print_coverage();
    interp_t *in = interp_new();
    layouts(in);
    constants(in);
    interp_free(in);
    host_functions();
    stubs();
    functions(argc > 1 ? argv[1] : ICUDA_CUDA_HOME "/include/cuda_runtime_api.h");
    classified();
    coverage_page("docs/cuda-api-coverage.md");
    return check_report();
}
