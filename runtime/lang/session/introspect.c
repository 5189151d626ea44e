/* What the session's names are, for inspection and completion (interp.h):
 * a name's kind, type or signature, where it was defined, a pointer's
 * buffer, and the members of a struct an expression names. Nothing here
 * runs user code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/hostmem/arena.h"
#include "runtime/lang/eval/eval.h"

#include "runtime/lang/interp.h"
static const char *sym_kind(const sym_t *s) {
    switch (s->kind) {
    case S_VAR_GLOBAL: return "variable";
    case S_TYPEDEF: return "type";
    case S_FUNC: case S_TEMPLATE: return "function";
    case S_ENUMC: return "enum value";
    case S_BUILTIN: return "function";
    default: return "name";
    }
}

static const char *place_word(int place) {
    switch (place) {
    case PLACE_DEVICE: return "device";
    case PLACE_PINNED: return "pinned";
    case PLACE_MANAGED: return "managed";
    case PLACE_HEAP: return "host heap";
    case PLACE_GLOBAL: return "host";
    case PLACE_STRLIT: return "string literal";
    case PLACE_LIB: return "host (library)";
    default: return "host";
    }
}

/* A function's declaration with its parameters' names where it has them. */
static void func_signature(type_t *t, const char *name, char *out, size_t n) {
    if (t->kind != T_FUNC || !t->pnames) {
        ty_decl(t, name, out, n);
        return;
    }
    char tn[256];
    ty_name(t->base, tn, sizeof tn);
    size_t l = strlen(tn);
    int k = snprintf(out, n, "%s%s%s(", tn, l && tn[l - 1] == '*' ? "" : " ", name);
    for (int i = 0; i < t->nparams && k > 0 && (size_t)k < n; i++) {
        char pd[256];
        ty_decl(t->params[i], t->pnames[i] ? t->pnames[i] : "", pd, sizeof pd);
        k += snprintf(out + k, n - (size_t)k, "%s%s", i ? ", " : "", pd);
    }
    if (k > 0 && (size_t)k < n) k += snprintf(out + k, n - (size_t)k, "%s)", t->variadic ? (t->nparams ? ", ..." : "...") : "");
}

/* The signature or type of a symbol, as a declaration. */
static void sym_signature(const char *name, const sym_t *s, char *out, size_t n) {
    out[0] = 0;
    type_t *t = s->ty;
    if (s->kind == S_FUNC && s->fn && s->fn->ty) t = s->fn->ty;
    if (!t) return;
    if (s->kind == S_TYPEDEF) {
        char tn[256];
        snprintf(out, n, "typedef %s %s", ty_name(t, tn, sizeof tn), name);
        return;
    }
    if (s->kind == S_ENUMC) {
        char tn[256];
        snprintf(out, n, "%s %s = %lld", ty_name(t, tn, sizeof tn), name, (long long)s->ival);
        return;
    }
    func_signature(t, name, out, n);
}

static json_t *buffer_of(const sym_t *s) {
    if (s->ty->kind != T_PTR || !s->gv || !s->gv->addr) return NULL;
    uint64_t w;
    memcpy(&w, s->gv->addr, sizeof w);
    if (!w) return json_pack("{s:s}", "state", "NULL");
    int64_t off = 0;
    buf_t *b = ptr_live_buf(w, &off);
    if (!b) return json_pack("{s:s}", "state", ptr_is_raw(w) ? "an address no allocation of the session made" : "freed or invalid");
    json_t *j = json_pack("{s:I, s:s, s:I}", "size", (json_int_t)b->size, "place", place_word(b->place), "offset",
                          (json_int_t)off);
    if (b->addr) {
        char a[32];
        snprintf(a, sizeof a, "0x%llx", (unsigned long long)b->addr);
        json_object_set_new(j, "address", json_string(a));
    }
    if (b->cell) {
        json_object_set_new(j, "cell", json_string(b->cell));
        if (b->line) json_object_set_new(j, "line", json_integer(b->line));
    }
    return j;
}

json_t *interp_describe(interp_t *in, const char *name) {
    if (!in || !name || !*name) return NULL;
    lang_use(in);
    char sig[600];
    sym_t *s = hmap_get(&in->globals, name);
    if (s) {
        sym_signature(name, s, sig, sizeof sig);
        json_t *j = json_pack("{s:s, s:s, s:s}", "name", name, "kind", sym_kind(s), "signature", sig);
        if (s->kind == S_VAR_GLOBAL && s->gv) {
            char tn[256];
            json_object_set_new(j, "type", json_string(ty_name(s->ty, tn, sizeof tn)));
            json_object_set_new(j, "size", json_integer((json_int_t)s->ty->size));
            if (s->gv->loc.src) {
                json_object_set_new(j, "cell", json_string(s->gv->loc.src->name));
                json_object_set_new(j, "line", json_integer(s->gv->loc.line));
            }
            json_t *b = buffer_of(s);
            if (b) json_object_set_new(j, "buffer", b);
        } else if (s->kind == S_FUNC && s->fn && s->fn->loc.src) {
            json_object_set_new(j, "cell", json_string(s->fn->loc.src->name));
            json_object_set_new(j, "line", json_integer(s->fn->loc.line));
        }
        return j;
    }
    builtin_t *bi = hmap_get(&in->builtins, name);
    if (bi) {
        if (bi->ty) ty_decl(bi->ty, name, sig, sizeof sig);
        else snprintf(sig, sizeof sig, "%s(...)", name);
        return json_pack("{s:s, s:s, s:s}", "name", name, "kind", "function", "signature", sig);
    }
    macro_t *m = hmap_get(&in->macros, name);
    if (m) {
        json_t *j = json_pack("{s:s, s:s, s:s}", "name", name, "kind", "macro", "signature",
                              m->text ? m->text : name);
        return j;
    }
    type_t *t = hmap_get(&in->tags, name);
    if (t) {
        char tn[256];
        return json_pack("{s:s, s:s, s:s}", "name", name, "kind", "type", "signature", ty_name(t, tn, sizeof tn));
    }
    return NULL;
}

json_t *interp_completions(interp_t *in, const char *prefix) {
    lang_use(in);
    json_t *a = json_array();
    size_t pl = strlen(prefix);
    char sig[600];
    hmap_t *maps[3] = {&in->globals, &in->builtins, &in->macros};
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < maps[m]->cap; i++) {
            const char *k = maps[m]->keys ? maps[m]->keys[i] : NULL;
            if (!k || k == (const char *)1 || strncmp(k, prefix, pl) != 0 || !strncmp(k, "__", 2) || strstr(k, "::_"))
                continue; /* reserved names, the library's own helpers among them */
            const char *kind = "function";
            sig[0] = 0;
            if (m == 0) {
                sym_t *s = maps[m]->vals[i];
                if (!s || (s->kind == S_VAR_GLOBAL && (!s->gv || !s->gv->committed))) continue;
                kind = sym_kind(s);
                sym_signature(k, s, sig, sizeof sig);
            } else if (m == 1) {
                builtin_t *b = maps[m]->vals[i];
                if (b && b->ty) ty_decl(b->ty, k, sig, sizeof sig);
            } else {
                macro_t *mc = maps[m]->vals[i];
                kind = "macro";
                snprintf(sig, sizeof sig, "%s", mc && mc->text ? mc->text : k);
            }
            json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "text", k, "type", kind, "signature", sig));
        }
    return a;
}

/* The type of a simple expression: a session variable followed by .field,
 * ->field and [index] steps. NULL when it is anything else. */
static type_t *chain_type(interp_t *in, const char *p) {
    while (*p == ' ') p++;
    size_t n = 0;
    while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || (n && p[n] >= '0' && p[n] <= '9'))
        n++;
    if (!n) return NULL;
    sym_t *s = hmap_getn(&in->globals, p, n);
    p += n;
    if (!s || s->kind != S_VAR_GLOBAL) return NULL;
    type_t *t = s->ty;
    for (;;) {
        while (*p == ' ') p++;
        if (!*p) return t;
        if (*p == '[') {
            int depth = 0;
            for (; *p; p++) {
                if (*p == '[') depth++;
                else if (*p == ']' && --depth == 0) break;
            }
            if (!*p) return NULL;
            p++;
            if (t->kind != T_PTR && t->kind != T_ARRAY) return NULL;
            t = t->base;
            continue;
        }
        bool arrow = p[0] == '-' && p[1] == '>';
        if (!arrow && *p != '.') return NULL;
        p += arrow ? 2 : 1;
        if (arrow) {
            if (t->kind != T_PTR) return NULL;
            t = t->base;
        }
        if ((t->kind != T_STRUCT && t->kind != T_UNION) || !t->sd) return NULL;
        while (*p == ' ') p++;
        n = 0;
        while (p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
               (p[n] >= '0' && p[n] <= '9'))
            n++;
        type_t *ft = NULL;
        for (int i = 0; i < t->sd->nfields; i++)
            if (t->sd->fields[i].name && strlen(t->sd->fields[i].name) == n &&
                !strncmp(t->sd->fields[i].name, p, n))
                ft = t->sd->fields[i].ty;
        if (!ft) return NULL;
        t = ft;
        p += n;
    }
}

json_t *interp_members(interp_t *in, const char *chain, bool arrow, const char *prefix) {
    lang_use(in);
    if (!in) return NULL;
    type_t *t = chain_type(in, chain);
    if (!t) return NULL;
    if (arrow) {
        if (t->kind != T_PTR && t->kind != T_ARRAY) return NULL;
        t = t->base;
    }
    if ((t->kind != T_STRUCT && t->kind != T_UNION) || !t->sd) return NULL;
    json_t *a = json_array();
    size_t pl = strlen(prefix);
    for (int i = 0; i < t->sd->nfields; i++) {
        field_t *f = &t->sd->fields[i];
        if (!f->name || strncmp(f->name, prefix, pl)) continue;
        char sig[400];
        ty_decl(f->ty, f->name, sig, sizeof sig);
        json_array_append_new(a, json_pack("{s:s, s:s, s:s}", "text", f->name, "type", "member", "signature", sig));
    }
    return a;
}

/* A type whose bytes mean the same to C++: numbers, enums, arrays and
 * structs of those (no pointer inside, no class of the interpreter's). */
static bool plain(const type_t *t) {
    if (t->kind == T_ARRAY) return t->count > 0 && plain(t->base);
    if (t->kind == T_STRUCT || t->kind == T_UNION) {
        if (!t->sd || !t->sd->complete || t->sd->cls) return false;
        for (int i = 0; i < t->sd->nfields; i++)
            if (!plain(t->sd->fields[i].ty)) return false;
        return true;
    }
    return t->kind != T_PTR && t->kind != T_FUNC && t->kind != T_VOID && !t->is_ref;
}

/* The address native code reads for the interpreter's word w (its own
 * word for a host buffer, or a real address); false when it names no live
 * buffer. Bytes the worker cannot see (a string literal's, outside the
 * shared arena) are copied into the arena first. */
static bool native_address(uint64_t w, uint64_t *out) {
    if (ptr_is_raw(w)) {
        *out = w;
        return true;
    }
    int64_t off = 0;
    buf_t *b = ptr_live_buf(w, &off);
    if (!b) return false;
    if (b->addr) {
        *out = b->addr + (uint64_t)off;
        return true;
    }
    char *base = b->base;
    if (base && !arena_contains(base, b->size)) {
        base = mem_block_alloc(b->size);
        if (!base) return false;
        memcpy(base, b->base, b->size);
    }
    *out = (uint64_t)(uintptr_t)(base + off);
    return true;
}

bool interp_native_var(interp_t *in, const char *name, interp_native_var_t *out) {
    memset(out, 0, sizeof *out);
    if (!in || !name) return false;
    lang_use(in);
    sym_t *s = hmap_get(&in->globals, name);
    if (!s || s->kind != S_VAR_GLOBAL || !s->gv || !s->gv->committed || !s->gv->addr || strstr(name, "::")) return false;
    type_t *t = s->ty;
    char *storage = s->gv->addr;
    if (t->kind == T_PTR) {
        type_t *to = t->base;
        uint64_t w;
        memcpy(&w, storage, sizeof w);
        if (to->kind == T_STRUCT && (!to->sd || !to->sd->complete)) { /* a handle: the caller translates it */
            out->handle = true;
            out->raw = w;
        } else if (!(to->kind == T_VOID || plain(to))) {
            return false;
        } else if (!ptr_is_raw(w)) { /* the interpreter's own word for a host buffer: its address, a copy */
            if (!native_address(w, &out->raw)) return false;
            out->pointer = true;
        } /* a real address (a device pointer, NULL) means the same to both: the variable itself */
    } else if (t->kind == T_ARRAY && t->count > 0 && t->base->kind == T_PTR &&
               (t->base->base->kind == T_VOID || plain(t->base->base))) {
        /* an array of pointers holds the interpreter's own words: native
         * code gets a copy holding the addresses they name, made again each
         * time a native cell binds the array (what the interpreter stored
         * since is in it; what native code writes into it stays there) */
        if (!s->gv->native_copy) s->gv->native_copy = mem_block_alloc((uint64_t)t->count * 8);
        if (!s->gv->native_copy) return false;
        for (int64_t i = 0; i < t->count; i++) {
            uint64_t w, a;
            memcpy(&w, s->gv->addr + 8 * i, 8);
            if (!native_address(w, &a)) a = 0; /* a buffer gone */
            memcpy(s->gv->native_copy + 8 * i, &a, 8);
        }
        storage = s->gv->native_copy;
    } else if (!plain(t)) {
        return false;
    }
    ty_name(t, out->type, sizeof out->type);
    out->storage = storage;
    return true;
}
