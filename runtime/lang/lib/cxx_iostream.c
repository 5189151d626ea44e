/* std::cout, std::cerr and std::clog, with << for every arithmetic type,
 * characters, C strings, std::string, pointers and bool, and the
 * manipulators of <iostream> and <iomanip> (endl, flush, setprecision,
 * fixed, scientific, defaultfloat, setw, setfill, left, right, internal,
 * boolalpha, hex, dec, oct, showbase, showpoint, showpos, uppercase),
 * formatted as libstdc++ formats them: its num_put builds the same printf
 * conversion (%.*g by default, %.*f fixed, %.*e scientific) that is used
 * here. A stream's state lives in the stream object, so it persists from
 * cell to cell as it does through a program. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cxx_lib.h"

typedef struct { int32_t fd; uint32_t flags; int32_t prec, width, fill, pad; } xos_t;
typedef struct { int32_t code, value; } xmanip_t;

enum { F_FIXED = 1, F_SCI = 2, F_BOOLALPHA = 4, F_LEFT = 8, F_INTERNAL = 16, F_HEX = 32, F_OCT = 64,
       F_SHOWBASE = 128, F_SHOWPOINT = 256, F_SHOWPOS = 512, F_UPPER = 1024 };
enum { M_ENDL = 1, M_FLUSH, M_ENDS, M_FIXED, M_SCI, M_DEFFLOAT, M_HEXFLOAT, M_BOOLALPHA, M_NOBOOLALPHA, M_LEFT, M_RIGHT,
       M_INTERNAL, M_HEX, M_DEC, M_OCT, M_SHOWBASE, M_NOSHOWBASE, M_SHOWPOINT, M_NOSHOWPOINT, M_SHOWPOS, M_NOSHOWPOS,
       M_UPPER, M_NOUPPER, M_SETPRECISION, M_SETW, M_SETFILL };
enum { V_BOOL = 1, V_CHAR, V_INT, V_UINT, V_FLOAT, V_CSTR, V_PTR, V_NULLPTR, V_STRING, V_MANIP };

static const struct { const char *name; int code; } manips[] = {
    {"std::endl", M_ENDL}, {"std::flush", M_FLUSH}, {"std::ends", M_ENDS}, {"std::fixed", M_FIXED},
    {"std::scientific", M_SCI}, {"std::defaultfloat", M_DEFFLOAT}, {"std::hexfloat", M_HEXFLOAT},
    {"std::boolalpha", M_BOOLALPHA}, {"std::noboolalpha", M_NOBOOLALPHA}, {"std::left", M_LEFT},
    {"std::right", M_RIGHT}, {"std::internal", M_INTERNAL}, {"std::hex", M_HEX}, {"std::dec", M_DEC},
    {"std::oct", M_OCT}, {"std::showbase", M_SHOWBASE}, {"std::noshowbase", M_NOSHOWBASE},
    {"std::showpoint", M_SHOWPOINT}, {"std::noshowpoint", M_NOSHOWPOINT}, {"std::showpos", M_SHOWPOS},
    {"std::noshowpos", M_NOSHOWPOS}, {"std::uppercase", M_UPPER}, {"std::nouppercase", M_NOUPPER},
};

static void os_write(xos_t *os, const char *s, size_t n) { out_write(os->fd == 2 ? "stderr" : "stdout", s, n); }

/* width, fill and adjustment, then the width is used up (as in C++) */
static void os_emit(xos_t *os, const char *s, size_t n, bool numeric) {
    size_t w = os->width > 0 ? (size_t)os->width : 0;
    os->width = 0;
    if (n >= w) { os_write(os, s, n); return; }
    size_t pad = w - n;
    char *b = malloc(w + 1); /* the width is the cell's: no room writes the text unpadded */
    if (!b) { os_write(os, s, n); return; }
    char fill = (char)os->fill;
    size_t split = 0;
    if (os->flags & F_LEFT) split = n;
    else if ((os->flags & F_INTERNAL) && numeric) {
        if (n && (s[0] == '-' || s[0] == '+')) split = 1;
        else if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) split = 2;
    }
    memcpy(b, s, split);
    memset(b + split, fill, pad);
    memcpy(b + split + pad, s + split, n - split);
    os_write(os, b, w);
    free(b);
}

static void put_float(xos_t *os, double d) {
    char fmt[16], buf[512];
    int k = 0;
    bool up = os->flags & F_UPPER;
    fmt[k++] = '%';
    if (os->flags & F_SHOWPOS) fmt[k++] = '+';
    if (os->flags & F_SHOWPOINT) fmt[k++] = '#';
    bool fx = os->flags & F_FIXED, sc = os->flags & F_SCI;
    if (fx && sc) { fmt[k++] = up ? 'A' : 'a'; fmt[k] = 0; snprintf(buf, sizeof buf, fmt, d); }
    else {
        fmt[k++] = '.';
        fmt[k++] = '*';
        fmt[k++] = fx ? (up ? 'F' : 'f') : sc ? (up ? 'E' : 'e') : (up ? 'G' : 'g');
        fmt[k] = 0;
        int prec = os->prec < 0 ? 6 : os->prec;
        if (prec > 300) prec = 300;
        snprintf(buf, sizeof buf, fmt, prec, d);
    }
    os_emit(os, buf, strlen(buf), true);
}

static void put_int(xos_t *os, uint64_t v, bool is_signed, int size) {
    char buf[80];
    uint32_t fl = os->flags;
    if (fl & (F_HEX | F_OCT)) {
        if (size < 8) v &= (UINT64_C(1) << (size * 8)) - 1;
        const char *pre = "";
        if ((fl & F_SHOWBASE) && v) pre = (fl & F_HEX) ? ((fl & F_UPPER) ? "0X" : "0x") : "0";
        if (fl & F_HEX) snprintf(buf, sizeof buf, (fl & F_UPPER) ? "%s%" PRIX64 : "%s%" PRIx64, pre, v);
        else snprintf(buf, sizeof buf, "%s%" PRIo64, pre, v);
    } else if (is_signed) snprintf(buf, sizeof buf, (fl & F_SHOWPOS) ? "%+" PRId64 : "%" PRId64, (int64_t)v);
    else snprintf(buf, sizeof buf, "%" PRIu64, v);
    os_emit(os, buf, strlen(buf), true);
}

static void apply_manip(xos_t *os, xmanip_t *m) {
    switch (m->code) {
    case M_ENDL: os_write(os, "\n", 1); if (os->fd != 2) out_flush(); break;
    case M_FLUSH: if (os->fd != 2) out_flush(); break;
    case M_ENDS: os_write(os, "", 1); break;
    case M_FIXED: os->flags = (os->flags & ~(uint32_t)(F_SCI)) | F_FIXED; break;
    case M_SCI: os->flags = (os->flags & ~(uint32_t)(F_FIXED)) | F_SCI; break;
    case M_DEFFLOAT: os->flags &= ~(uint32_t)(F_FIXED | F_SCI); break;
    case M_HEXFLOAT: os->flags |= F_FIXED | F_SCI; break;
    case M_BOOLALPHA: os->flags |= F_BOOLALPHA; break;
    case M_NOBOOLALPHA: os->flags &= ~(uint32_t)F_BOOLALPHA; break;
    case M_LEFT: os->flags = (os->flags & ~(uint32_t)F_INTERNAL) | F_LEFT; break;
    case M_RIGHT: os->flags &= ~(uint32_t)(F_LEFT | F_INTERNAL); break;
    case M_INTERNAL: os->flags = (os->flags & ~(uint32_t)F_LEFT) | F_INTERNAL; break;
    case M_HEX: os->flags = (os->flags & ~(uint32_t)F_OCT) | F_HEX; break;
    case M_OCT: os->flags = (os->flags & ~(uint32_t)F_HEX) | F_OCT; break;
    case M_DEC: os->flags &= ~(uint32_t)(F_HEX | F_OCT); break;
    case M_SHOWBASE: os->flags |= F_SHOWBASE; break;
    case M_NOSHOWBASE: os->flags &= ~(uint32_t)F_SHOWBASE; break;
    case M_SHOWPOINT: os->flags |= F_SHOWPOINT; break;
    case M_NOSHOWPOINT: os->flags &= ~(uint32_t)F_SHOWPOINT; break;
    case M_SHOWPOS: os->flags |= F_SHOWPOS; break;
    case M_NOSHOWPOS: os->flags &= ~(uint32_t)F_SHOWPOS; break;
    case M_UPPER: os->flags |= F_UPPER; break;
    case M_NOUPPER: os->flags &= ~(uint32_t)F_UPPER; break;
    case M_SETPRECISION: os->prec = m->value; break;
    case M_SETW: os->width = m->value; break;
    case M_SETFILL: os->fill = m->value; break;
    }
}

static val_t os_put(node_t *c, val_t *a, int n, frame_t *f) {
    xos_t *os = (xos_t *)cx_obj(a, 0, sizeof(xos_t), c);
    val_t v = a[1];
    char buf[64];
    switch (c->op) {
    case V_BOOL:
        if (os->flags & F_BOOLALPHA) os_emit(os, v.i ? "true" : "false", v.i ? 4 : 5, false);
        else put_int(os, (uint64_t)(v.i != 0), true, 4);
        break;
    case V_CHAR: buf[0] = (char)v.i; os_emit(os, buf, 1, false); break;
    case V_INT: put_int(os, v.u, true, (int)c->esz); break;
    case V_UINT: put_int(os, v.u, false, (int)c->esz); break;
    case V_FLOAT: put_float(os, v.d); break;
    case V_CSTR: {
        if (!v.u) rt_error(c->list[1], "printing a NULL char pointer with <<: it must point to a string");
        size_t len;
        const char *s = str_at(v.u, c->list[1], &len);
        os_emit(os, s, len, false);
        break;
    }
    case V_PTR:
        if (!v.u) { os_emit(os, "0", 1, true); break; }
        else {
            uint64_t addr = v.u;
            int64_t off;
            buf_t *b = ptr_is_raw(v.u) ? NULL : ptr_buf(v.u, &off);
            if (b && b->base) addr = (uint64_t)(uintptr_t)(b->base + off);
            snprintf(buf, sizeof buf, "0x%" PRIx64, addr);
            os_emit(os, buf, strlen(buf), true);
        }
        break;
    case V_NULLPTR: os_emit(os, "nullptr", 7, false); break;
    case V_STRING: {
        uint64_t len;
        const char *s = cx_string_chars(cx_obj(a, 1, 32, c), &len, c);
        os_emit(os, s, len, false);
        break;
    }
    case V_MANIP: apply_manip(os, (xmanip_t *)cx_obj(a, 1, sizeof(xmanip_t), c)); break;
    }
    return (val_t){.u = a[0].u};
}

static bool is_charlike(type_t *t) { return t->kind == T_CHAR || t->kind == T_SCHAR || t->kind == T_UCHAR; }

/* the expression at l is one character literal token ('x'), not 'x' + 1 */
static bool is_char_literal(P *p, loc_t *l) {
    for (int i = 0; i < p->n; i++) {
        token_t *t = &p->t[i];
        if (t->loc.line == l->line && t->loc.col == l->col && t->loc.src == l->src)
            return t->kind == TK_CHAR && t->loc.len == l->len;
    }
    return false;
}

static node_t *os_shl(P *p, cx_method_t *m, node_t *obj, node_t **args, int n, loc_t *l) {
    node_t *e = args[0];
    type_t *t = e->ty;
    cx_class_t *c = cx_class_of(t);
    int kind;
    node_t *v;
    int64_t size = 8;
    char b[120];
    if (c) {
        if (c->lib == LIB_MANIP) kind = V_MANIP;
        else if (c->lib == LIB_STRING) kind = V_STRING;
        else if (c->lib == LIB_OSTREAM) type_error(&e->loc, "a stream cannot be printed");
        else type_error(&e->loc, "%s << %s: printing a %s is not defined (operator<< of your own classes is not "
                        "interpreted: print its members)", loc_text(&obj->loc, b, sizeof b), tyname(t), c->name);
        v = cx_this_word(p, e);
    } else {
        if (t->kind == T_FUNC) type_error(&e->loc, "printing a function: call it with ()");
        if (t->kind == T_STRUCT || t->kind == T_UNION)
            type_error(&e->loc, "%s << %s: printing a %s is not defined (operator<< of your own classes is not "
                       "interpreted: print its members)", loc_text(&obj->loc, b, sizeof b), tyname(t), tyname(t));
        node_t *r = rvalue(p, e);
        t = r->ty;
        /* C++'s 'x' is a char and true a bool (the interpreter's C types them int) */
        loc_text(&e->loc, b, sizeof b);
        if (r->is_const && ty_is_int(t) && b[0] == '\'' && is_char_literal(p, &e->loc)) t = &ty_char;
        if (r->is_const && ty_is_int(t) && (!strcmp(b, "true") || !strcmp(b, "false"))) t = &ty_bool;
        if (t->kind == T_PTR) {
            if (is_charlike(ty_unqual(t->base))) kind = V_CSTR;
            else if (r->is_const && r->k.u == 0 && !strcmp(loc_text(&e->loc, b, sizeof b), "nullptr")) kind = V_NULLPTR;
            else kind = V_PTR;
            v = r;
        } else if (t->kind == T_BOOL) { kind = V_BOOL; v = mk_cast(r, &ty_long); }
        else if (is_charlike(t) && !t->is_enum) { kind = V_CHAR; v = mk_cast(r, &ty_long); }
        else if (ty_is_float(t)) { kind = V_FLOAT; v = mk_cast(r, &ty_double); }
        else if (ty_is_int(t)) {
            bool uns = t->kind == T_UINT || t->kind == T_ULONG || t->kind == T_ULLONG || t->kind == T_USHORT || t->is_unsigned;
            kind = uns ? V_UINT : V_INT;
            size = (int64_t)t->size;
            v = mk_cast(r, uns ? &ty_ulong : &ty_long);
        } else type_error(&e->loc, "cannot print %s with <<", tyname(t));
    }
    node_t **av = palloc(p, sizeof(node_t *) * 2);
    av[0] = cx_this_word(p, obj);
    av[1] = v;
    node_t *call = mk_builtin(l, m->bi, ty_ptr(m->cls->type), av, 2);
    call->op = kind;
    call->esz = size;
    return pl_deref(l, m->cls->type, call, 0);
}

/* setprecision(n), setw(n), setfill(c) */
static val_t mk_manip(node_t *c, val_t *a, int n, frame_t *f) {
    xmanip_t *m = (xmanip_t *)cx_obj(a, 0, sizeof(xmanip_t), c);
    m->code = c->op;
    m->value = (int32_t)a[1].i;
    return (val_t){.u = a[0].u};
}
static type_t *manip_type(interp_t *in) {
    sym_t *s = hmap_get(&in->globals, "std::_Manip");
    return s->ty;
}
static node_t *manip_fn(P *p, loc_t *l, int code, const char *nm) {
    expect(p, P_LPAREN, "'('");
    int n;
    node_t **args = cx_args(p, &n, P_RPAREN);
    loc_t lc = from(p, l);
    if (n != 1) type_error(&lc, "%s takes one argument, not %d", nm, n);
    node_t *v = rvalue(p, args[0]);
    if (!ty_is_arith(v->ty)) type_error(&v->loc, "%s needs a number, not %s", nm, tyname(v->ty));
    v = mk_cast(v, &ty_long);
    return cx_lib_call_ret(p, &lc, mk_manip, manip_type(p->in), &v, 1, code, nm);
}
static node_t *fn_setprecision(P *p, loc_t *l) { return manip_fn(p, l, M_SETPRECISION, "std::setprecision"); }
static node_t *fn_setw(P *p, loc_t *l) { return manip_fn(p, l, M_SETW, "std::setw"); }
static node_t *fn_setfill(P *p, loc_t *l) { return manip_fn(p, l, M_SETFILL, "std::setfill"); }

static xos_t *OS(val_t *a, node_t *c) { return (xos_t *)cx_obj(a, 0, sizeof(xos_t), c); }
static val_t os_precision(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = OS(a, c)->prec}; }
static val_t os_set_precision(node_t *c, val_t *a, int n, frame_t *f) {
    xos_t *os = OS(a, c);
    int64_t old = os->prec;
    os->prec = (int32_t)a[1].i;
    return (val_t){.i = old};
}
static val_t os_width(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = OS(a, c)->width}; }
static val_t os_set_width(node_t *c, val_t *a, int n, frame_t *f) {
    xos_t *os = OS(a, c);
    int64_t old = os->width;
    os->width = (int32_t)a[1].i;
    return (val_t){.i = old};
}
static val_t os_set_fill(node_t *c, val_t *a, int n, frame_t *f) {
    xos_t *os = OS(a, c);
    int64_t old = os->fill;
    os->fill = (int32_t)(char)a[1].i;
    return (val_t){.i = old};
}
static val_t os_flush(node_t *c, val_t *a, int n, frame_t *f) {
    if (OS(a, c)->fd != 2) out_flush();
    return (val_t){.u = a[0].u};
}
static val_t os_putc(node_t *c, val_t *a, int n, frame_t *f) {
    char ch = (char)a[1].i;
    os_write(OS(a, c), &ch, 1);
    return (val_t){.u = a[0].u};
}
static val_t os_write_n(node_t *c, val_t *a, int n, frame_t *f) {
    xos_t *os = OS(a, c);
    if ((int64_t)a[2].i < 0) rt_error(c, "write of a negative length");
    const char *s = mem_at(a[1].u, a[2].u, 0, c->list[1]);
    os_write(os, s, a[2].u);
    return (val_t){.u = a[0].u};
}
static val_t ios_noop(node_t *c, val_t *a, int n, frame_t *f) { return (val_t){.i = 1}; }

static void stream(interp_t *in, const char *name, type_t *t, int fd) {
    gvar_t *g = cx_lib_global(in, name, t);
    if (!g) return;
    xos_t os = {fd, 0, 6, 0, ' ', 0};
    memcpy(g->addr, &os, sizeof os);
}

void cxx_iostream_register(interp_t *in) {
    cx_class_t *c, *mc;
    type_t *t = cx_lib_class(in, "std::ostream", sizeof(xos_t), 4, LIB_OSTREAM, &c);
    cx_lib_type_name(in, "std::ostream", t);
    cx_state(in)->ostream_type = t;
    type_t *mt = cx_lib_class(in, "std::_Manip", sizeof(xmanip_t), 4, LIB_MANIP, &mc);
    cx_lib_type_name(in, "std::_Manip", mt);
    cx_method_t *m = cx_lib_method(in, c, "operator<<", cx_fty(t, 1, &ty_int), os_put, NULL);
    m->special = os_shl;
    cx_lib_method(in, c, "precision", cx_fty(&ty_long, 0), os_precision, NULL);
    cx_lib_method(in, c, "precision", cx_fty(&ty_long, 1, &ty_long), os_set_precision, NULL);
    cx_lib_method(in, c, "width", cx_fty(&ty_long, 0), os_width, NULL);
    cx_lib_method(in, c, "width", cx_fty(&ty_long, 1, &ty_long), os_set_width, NULL);
    cx_lib_method(in, c, "fill", cx_fty(&ty_char, 1, &ty_char), os_set_fill, NULL);
    m = cx_lib_method(in, c, "flush", cx_fty(t, 0), os_flush, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "put", cx_fty(t, 1, &ty_char), os_putc, NULL);
    m->ret_ref = true;
    m = cx_lib_method(in, c, "write", cx_fty(t, 2, ty_ptr(ty_const(&ty_char)), &ty_long), os_write_n, NULL);
    m->ret_ref = true;
    stream(in, "std::cout", t, 1);
    stream(in, "std::cerr", t, 2);
    stream(in, "std::clog", t, 2);
    for (size_t i = 0; i < sizeof manips / sizeof *manips; i++) {
        gvar_t *g = cx_lib_global(in, manips[i].name, ty_const(mt));
        if (g) { xmanip_t v = {manips[i].code, 0}; memcpy(g->addr, &v, sizeof v); }
    }
    cx_register_libfn(in, "std::setprecision", fn_setprecision);
    cx_register_libfn(in, "std::setw", fn_setw);
    cx_register_libfn(in, "std::setfill", fn_setfill);
    /* std::ios::sync_with_stdio(false) and std::cin.tie(nullptr) in fast-I/O boilerplate: nothing to do */
    cx_class_t *ic;
    type_t *it = cx_lib_class(in, "std::ios_base", 1, 1, LIB_NONE, &ic);
    cx_lib_type_name(in, "std::ios_base", it);
    cx_lib_type_name(in, "std::ios", it);
    m = cx_lib_method(in, ic, "sync_with_stdio", cx_fty(&ty_bool, 1, &ty_bool), ios_noop, NULL);
    m->is_static = true;
    m->nreq = 0;
    m->defv[0].i = 1;
}
