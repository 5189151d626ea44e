/* printf and friends. A format that is a string literal is checked against
 * the argument types when the cell compiles (a mismatch is a TypeError that
 * names the argument); any other format is checked the same way when it runs.
 * Output is buffered per cell and handed to the engine's stream callback. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib.h"
#include "runtime/base/xalloc.h"

/* ---- format checking ---- */
typedef struct spec { char conv; int len; /* 0 none, 1 hh, 2 h, 3 l, 4 ll, 5 z, 6 j, 7 t, 8 L */ bool star_w, star_p; } spec_t;

static const char *parse_spec(const char *f, spec_t *s, char *buf, size_t bn) {
    /* f points after '%'; copies the spec (without length) into buf */
    size_t k = 0;
    buf[k++] = '%';
    memset(s, 0, sizeof *s);
    while (*f && strchr("-+ #0'", *f)) { if (k < bn - 8) buf[k++] = *f; f++; }
    if (*f == '*') { s->star_w = true; buf[k++] = '*'; f++; }
    else while (*f >= '0' && *f <= '9') { if (k < bn - 8) buf[k++] = *f; f++; }
    if (*f == '.') {
        buf[k++] = '.';
        f++;
        if (*f == '*') { s->star_p = true; buf[k++] = '*'; f++; }
        else while (*f >= '0' && *f <= '9') { if (k < bn - 8) buf[k++] = *f; f++; }
    }
    if (f[0] == 'h' && f[1] == 'h') { s->len = 1; f += 2; }
    else if (f[0] == 'h') { s->len = 2; f++; }
    else if (f[0] == 'l' && f[1] == 'l') { s->len = 4; f += 2; }
    else if (f[0] == 'l') { s->len = 3; f++; }
    else if (f[0] == 'q') { s->len = 4; f++; }
    else if (f[0] == 'z') { s->len = 5; f++; }
    else if (f[0] == 'j') { s->len = 6; f++; }
    else if (f[0] == 't') { s->len = 7; f++; }
    else if (f[0] == 'L') { s->len = 8; f++; }
    s->conv = *f;
    buf[k] = 0;
    return *f ? f + 1 : f;
}

static const char *want_name(spec_t *s) {
    static const char *ints[] = {"int", "int (char)", "int (short)", "long", "long long", "size_t", "intmax_t", "ptrdiff_t", "int"};
    static const char *uints[] = {"unsigned int", "unsigned char", "unsigned short", "unsigned long", "unsigned long long", "size_t", "uintmax_t", "ptrdiff_t", "unsigned int"};
    switch (s->conv) {
    case 'd': case 'i': return ints[s->len];
    case 'u': case 'o': case 'x': case 'X': return uints[s->len];
    case 'c': return "int (a character)";
    case 's': return "char * (a string)";
    case 'p': return "a pointer";
    default: return s->len == 8 ? "long double" : "double";
    }
}

/* does argument type t fit conversion s? */
static bool fits(spec_t *s, type_t *t) {
    switch (s->conv) {
    case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'c': {
        if (!ty_is_int(t)) return false;
        size_t want = s->len == 0 || s->len == 1 || s->len == 2 ? 4 : 8;
        if (s->conv == 'c') want = 4;
        return t->size == want || (want == 4 && t->size < 4);
    }
    case 's': return t->kind == T_PTR && (ty_is_int(t->base) && t->base->size == 1);
    case 'p': return t->kind == T_PTR;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        return ty_is_float(t);
    }
    return false;
}

static void check_fmt(node_t *call, const char *fmt, int fi, const char *fname, bool at_run) {
    int ai = fi + 1;
    char buf[64], an[120], tn[120];
    for (const char *f = fmt; *f;) {
        if (*f != '%') { f++; continue; }
        if (f[1] == '%') { f += 2; continue; }
        spec_t s;
        const char *start = f;
        f = parse_spec(f + 1, &s, buf, sizeof buf);
        int sl = (int)(f - start);
        if (!s.conv) lang_raise(at_run ? "RuntimeError" : "TypeError", &call->loc, "%s: the format ends in the middle of a conversion '%.*s'", fname, sl, start);
        if (!strchr("diuoxXcspfFeEgGaAn", s.conv))
            lang_raise(at_run ? "RuntimeError" : "TypeError", &call->loc, "%s: unknown conversion '%.*s' in the format", fname, sl, start);
        if (s.conv == 'n') lang_raise("TypeError", &call->loc, "%s: %%n is not supported", fname);
        for (int st = 0; st < (int)s.star_w + (int)s.star_p; st++) {
            if (ai >= call->nlist) lang_raise(at_run ? "RuntimeError" : "TypeError", &call->loc, "%s: format '%.*s' needs a width/precision argument, but there are only %d arguments", fname, sl, start, call->nlist);
            node_t *a = call->list[ai];
            if (!ty_is_int(a->ty) || a->ty->size != 4)
                lang_raise("TypeError", &a->loc, "%s: format '%.*s' expects int for '*', but argument %d (%s) has type %s", fname, sl, start, ai + 1, loc_text(&a->loc, an, sizeof an), ty_name(a->ty, tn, sizeof tn));
            ai++;
        }
        if (ai >= call->nlist)
            lang_raise(at_run ? "RuntimeError" : "TypeError", &call->loc, "%s: format '%.*s' has no matching argument (argument %d is missing)", fname, sl, start, ai + 1);
        node_t *a = call->list[ai];
        if (!fits(&s, a->ty))
            lang_raise("TypeError", &a->loc, "%s: format '%.*s' expects %s, but argument %d (%s) has type %s", fname, sl, start,
                       want_name(&s), ai + 1, loc_text(&a->loc, an, sizeof an), ty_name(a->ty, tn, sizeof tn));
        ai++;
    }
}

/* a printf-like call as it compiles: a literal format against the arguments */
static void printf_check(node_t *call, const builtin_t *b) {
    int fi = b->flags & (BF_FPRINTF | BF_SPRINTF) ? 1 : b->flags & BF_SNPRINTF ? 2 : 0;
    if (fi >= call->nlist) return;
    node_t *f = call->list[fi];
    if (f->str) check_fmt(call, f->str, fi, b->name, false);
}

/* A field width or precision, literal ("%2147483647d") or from '*', past
 * which one conversion is refused rather than grown into gigabytes of
 * padding (docs/reliability.md). */
#define PRINTF_MAX_FIELD 1000000

/* out: the text formatted so far, freed before the error is raised */
static void check_field(node_t *call, int64_t v, const char *what, const char *fname, const char *spec, char *out) {
    if (v < 0) v = -v; /* a negative '*' width left-justifies; a negative precision is none */
    if (v <= PRINTF_MAX_FIELD) return;
    (void)out; /* g_in->fmt_buf: lang_recover frees it */
    rt_error(call, "%s: the %s %" PRId64 " in '%s' is larger than the limit of %d", fname, what, v, spec, PRINTF_MAX_FIELD);
}

/* The literal width and precision of spec sb ("%-12.5"), 0 when absent. */
static void literal_fields(const char *sb, int64_t *w, int64_t *pr) {
    const char *q = sb + 1;
    while (*q && strchr("-+ #0'", *q)) q++;
    *w = *q >= '0' && *q <= '9' ? strtoll(q, NULL, 10) : 0;
    const char *dot = strchr(q, '.');
    *pr = dot && dot[1] >= '0' && dot[1] <= '9' ? strtoll(dot + 1, NULL, 10) : 0;
}

/* formats into a malloc'd string */
/* sprintf's destination and, of what the format and its %s arguments read,
 * the lowest range that ends past the destination's start (its argument,
 * 0-based): sprintf writing over what it reads is undefined, and the text
 * would depend on the order of the copy. */
typedef struct { const char *dst; const char *lo; int arg; } overlap_t;
static void note_read(overlap_t *ov, const char *p, size_t n, int arg) {
    if (!ov || !ov->dst || !n || p + n <= ov->dst) return;
    if (!ov->lo || p < ov->lo) { ov->lo = p; ov->arg = arg; }
}

static int format_printf(node_t *call, val_t *args, int nargs, int fi, char **out, size_t *outlen, overlap_t *ov) {
    builtin_t *bi = call->p;
    size_t fmtlen;
    const char *fmt = str_at(args[fi].u, call->list[fi], &fmtlen);
    note_read(ov, fmt, fmtlen + 1, fi);
    if (!call->list[fi]->str) check_fmt(call, fmt, fi, bi->name, true);
    size_t cap = 256, n = 0;
    char *o = g_in->fmt_buf = xmalloc(cap); /* freed by lang_recover if a conversion fails */
    int ai = fi + 1;
    char sb[80];
#define PUT(...) do { \
        int need_ = snprintf(NULL, 0, __VA_ARGS__); \
        if (need_ < 0) need_ = 0; \
        while (n + (size_t)need_ + 1 > cap) { cap *= 2; o = g_in->fmt_buf = xrealloc(o, cap); } \
        snprintf(o + n, cap - n, __VA_ARGS__); n += (size_t)need_; } while (0)
    for (const char *f = fmt; *f;) {
        if (*f != '%') {
            const char *e = strchr(f, '%');
            size_t k = e ? (size_t)(e - f) : strlen(f);
            while (n + k + 1 > cap) { cap *= 2; o = g_in->fmt_buf = xrealloc(o, cap); }
            memcpy(o + n, f, k);
            n += k;
            f += k;
            continue;
        }
        if (f[1] == '%') { PUT("%%"); f += 2; continue; }
        spec_t s;
        f = parse_spec(f + 1, &s, sb, sizeof sb - 4);
        int w = 0, pr = 0;
        if (s.star_w) w = (int)args[ai++].i;
        if (s.star_p) pr = (int)args[ai++].i;
        int64_t lw, lp;
        literal_fields(sb, &lw, &lp);
        check_field(call, s.star_w ? (int64_t)w : lw, "field width", bi->name, sb, o);
        if (!s.star_p || pr >= 0) check_field(call, s.star_p ? (int64_t)pr : lp, "precision", bi->name, sb, o);
        size_t k = strlen(sb);
        val_t v = args[ai];
        node_t *an = call->list[ai];
        int vi = ai++;
        switch (s.conv) {
        case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': {
            sb[k++] = 'l'; sb[k++] = 'l'; sb[k++] = s.conv; sb[k] = 0;
            long long x = v.i;
            if (s.len == 1) x = s.conv == 'd' || s.conv == 'i' ? (long long)(signed char)x : (long long)(unsigned char)x;
            else if (s.len == 2) x = s.conv == 'd' || s.conv == 'i' ? (long long)(short)x : (long long)(unsigned short)x;
            else if (s.len == 0) x = s.conv == 'd' || s.conv == 'i' ? (long long)(int)x : (long long)(unsigned)x;
            if (s.star_w && s.star_p) PUT(sb, w, pr, x);
            else if (s.star_w) PUT(sb, w, x);
            else if (s.star_p) PUT(sb, pr, x);
            else PUT(sb, x);
            break;
        }
        case 'c': {
            sb[k++] = 'c'; sb[k] = 0;
            int c = (int)(unsigned char)v.i;
            if (s.star_w) PUT(sb, w, c); else PUT(sb, c);
            if (c == 0) { /* snprintf stopped at the NUL it wrote */ }
            break;
        }
        case 's': {
            sb[k++] = 's'; sb[k] = 0;
            const char *str;
            if (v.u == 0) str = "(null)";
            else {
                /* a precision bounds the read */
                if (s.star_p || strchr(sb, '.')) {
                    int prec = s.star_p ? pr : atoi(strchr(sb, '.') + 1);
                    char *base = mem_at(v.u, 0, 0, an);
                    int64_t off;
                    uint64_t avail = ptr_buf(v.u, &off)->size - (uint64_t)off;
                    if (prec >= 0 && !memchr(base, 0, (size_t)(avail < (uint64_t)prec ? avail : (uint64_t)prec)) && avail < (uint64_t)prec)
                        str_at(v.u, an, NULL);
                    str = base;
                    if (prec < 0) { /* a negative precision is none: the whole string, checked */
                        size_t sl;
                        str = str_at(v.u, an, &sl);
                        note_read(ov, str, sl + 1, vi);
                    } else {
                        size_t rn = strnlen(base, avail < (uint64_t)prec ? avail : (uint64_t)prec);
                        note_read(ov, base, rn < (size_t)prec ? rn + 1 : rn, vi);
                    }
                    if (prec >= 0 && !memchr(base, 0, avail < (uint64_t)prec ? avail : (uint64_t)prec)) {
                        char *tmp = xstrndup(base, (size_t)prec);
                        if (s.star_w && s.star_p) PUT(sb, w, pr, tmp);
                        else if (s.star_w) PUT(sb, w, tmp);
                        else if (s.star_p) PUT(sb, pr, tmp);
                        else PUT(sb, tmp);
                        free(tmp);
                        break;
                    }
                } else {
                    size_t sl;
                    str = str_at(v.u, an, &sl);
                    note_read(ov, str, sl + 1, vi);
                }
            }
            if (s.star_w && s.star_p) PUT(sb, w, pr, str);
            else if (s.star_w) PUT(sb, w, str);
            else if (s.star_p) PUT(sb, pr, str);
            else PUT(sb, str);
            break;
        }
        case 'p': {
            sb[k++] = 'p'; sb[k] = 0;
            void *pp = NULL;
            if (v.u) {
                /* host buffers show where their bytes are; device, pinned and
                 * managed pointers are addresses already */
                int64_t off;
                buf_t *b = ptr_is_raw(v.u) ? NULL : ptr_buf(v.u, &off);
                if (b && b->base) pp = b->base + off;
                else pp = (void *)(uintptr_t)v.u;
            }
            if (s.star_w) PUT(sb, w, pp); else PUT(sb, pp);
            break;
        }
        default: {
            sb[k++] = s.conv; sb[k] = 0;
            double d = v.d;
            if (s.star_w && s.star_p) PUT(sb, w, pr, d);
            else if (s.star_w) PUT(sb, w, d);
            else if (s.star_p) PUT(sb, pr, d);
            else PUT(sb, d);
            break;
        }
        }
    }
    (void)nargs;
    g_in->fmt_buf = NULL;
    o[n] = 0;
    *out = o;
    *outlen = n;
    return (int)n;
}

static val_t bi_printf(node_t *c, val_t *a, int n, frame_t *f) {
    char *s;
    size_t len;
    format_printf(c, a, n, 0, &s, &len, NULL);
    out_write("stdout", s, len);
    free(s);
    return (val_t){.i = (int64_t)len};
}

static const char *file_stream(uint64_t p, node_t *at) {
    if (p == ((uint64_t)SLOT_FILE << PTR_SLOT_SHIFT | 1)) return "stdout";
    if (p == ((uint64_t)SLOT_FILE << PTR_SLOT_SHIFT | 2)) return "stderr";
    char b[100];
    rt_error(at, "%s is not stdout or stderr (files are not supported)", loc_text(&at->loc, b, sizeof b));
}

static val_t bi_fprintf(node_t *c, val_t *a, int n, frame_t *f) {
    const char *st = file_stream(a[0].u, c->list[0]);
    char *s;
    size_t len;
    format_printf(c, a, n, 1, &s, &len, NULL);
    out_write(st, s, len);
    free(s);
    return (val_t){.i = (int64_t)len};
}

/* where a destination word points in host memory, when it is a live buffer */
static const char *dest_addr(uint64_t p) {
    int64_t off;
    buf_t *b = ptr_live_buf(p, &off);
    return b && b->base && off >= 0 && (uint64_t)off <= b->size ? b->base + off : NULL;
}

/* in GCC's words (-Wrestrict): ASan does not check the printf family */
static void check_overlap(node_t *c, overlap_t *ov, size_t written) {
    if (ov->lo && ov->lo < ov->dst + written) {
        char b[100];
        rt_error(c, "'%s' argument %d overlaps destination object '%s'", ((builtin_t *)c->p)->name, ov->arg + 1,
                 loc_text(&c->list[0]->loc, b, sizeof b));
    }
}

static val_t bi_sprintf(node_t *c, val_t *a, int n, frame_t *f) {
    char *s;
    size_t len;
    overlap_t ov = {dest_addr(a[0].u), NULL, 0};
    format_printf(c, a, n, 1, &s, &len, &ov);
    g_in->fmt_buf = s; /* a destination too small raises: lang_recover frees it (fuzz_interp: it leaked) */
    char *d = mem_at(a[0].u, len + 1, 1, c->list[0]);
    check_overlap(c, &ov, len + 1);
    memcpy(d, s, len + 1);
    g_in->fmt_buf = NULL;
    free(s);
    return (val_t){.i = (int64_t)len};
}

static val_t bi_snprintf(node_t *c, val_t *a, int n, frame_t *f) {
    char *s;
    size_t len;
    uint64_t cap = a[1].u;
    overlap_t ov = {cap ? dest_addr(a[0].u) : NULL, NULL, 0};
    format_printf(c, a, n, 2, &s, &len, &ov);
    if (cap) {
        uint64_t k = len + 1 < cap ? len + 1 : cap;
        g_in->fmt_buf = s; /* as in sprintf */
        char *d = mem_at(a[0].u, cap, 1, c->list[0]);
        check_overlap(c, &ov, k);
        memcpy(d, s, k - 1);
        d[k - 1] = 0;
        g_in->fmt_buf = NULL;
    }
    free(s);
    return (val_t){.i = (int64_t)len};
}

static val_t bi_puts(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    const char *s = str_at(a[0].u, c->list[0], &len);
    out_write("stdout", s, len);
    out_write("stdout", "\n", 1);
    return (val_t){.i = 1};
}
static val_t bi_fputs(node_t *c, val_t *a, int n, frame_t *f) {
    size_t len;
    const char *s = str_at(a[0].u, c->list[0], &len);
    out_write(file_stream(a[1].u, c->list[1]), s, len);
    return (val_t){.i = 1};
}
static val_t bi_putchar(node_t *c, val_t *a, int n, frame_t *f) {
    char ch = (char)a[0].i;
    out_write("stdout", &ch, 1);
    return (val_t){.i = (unsigned char)ch};
}
static val_t bi_fputc(node_t *c, val_t *a, int n, frame_t *f) {
    char ch = (char)a[0].i;
    out_write(file_stream(a[1].u, c->list[1]), &ch, 1);
    return (val_t){.i = (unsigned char)ch};
}
static val_t bi_fflush(node_t *c, val_t *a, int n, frame_t *f) {
    out_flush();
    return (val_t){.i = 0};
}
static val_t bi_stdout(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = (uint64_t)SLOT_FILE << PTR_SLOT_SHIFT | 1}; }
static val_t bi_stderr(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.u = (uint64_t)SLOT_FILE << PTR_SLOT_SHIFT | 2}; }

void builtins_stdio_register(interp_t *in) {
    builtin_add(in, "printf", bi_printf, BF_PRINTF)->check = printf_check;
    builtin_add(in, "fprintf", bi_fprintf, BF_FPRINTF)->check = printf_check;
    builtin_add(in, "sprintf", bi_sprintf, BF_SPRINTF)->check = printf_check;
    builtin_add(in, "snprintf", bi_snprintf, BF_SNPRINTF)->check = printf_check;
    builtin_add(in, "puts", bi_puts, 0);
    builtin_add(in, "fputs", bi_fputs, 0);
    builtin_add(in, "putchar", bi_putchar, 0);
    builtin_add(in, "fputc", bi_fputc, 0);
    builtin_add(in, "putc", bi_fputc, 0);
    builtin_add(in, "fflush", bi_fflush, 0);
    builtin_add(in, "__icuda_stdout", bi_stdout, 0);
    builtin_add(in, "__icuda_stderr", bi_stderr, 0);
}
