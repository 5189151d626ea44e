/* The preprocessor's share of device cells: a cell's conditionals decided
 * for the device side (__CUDA_ARCH__ of the architecture compiled for), and
 * which of a cell's # lines a later cell's unit may carry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/lang/interp.h"
#include "device_session.h"

#include "runtime/base/cell_io.h"
#include "runtime/cell/split.h"
/* 900 for sm_90, compute_90 or sm_90a; the %nvrtc -arch option wins. */
static int cuda_arch_number(device_session_t *ds) {
    const char *arch = NULL;
    for (int i = 0; i < ds->nuser_options; i++) {
        const char *o = ds->user_options[i];
        if (!strncmp(o, "-arch=", 6)) arch = o + 6;
        else if (!strncmp(o, "--gpu-architecture=", 19)) arch = o + 19;
    }
    if (!arch) arch = device_arch(ds);
    const char *u = strchr(arch, '_');
    int n = u ? atoi(u + 1) : 0;
    return n > 0 ? n * 10 : 520;
}

char *device_conditionals(device_session_t *ds, const char *code, const char *cell, cell_error_t *err) {
    bool decided;
    return interp_cell_conditionals(ds->interp, code, cell, cuda_arch_number(ds), NULL, &decided, err);
}

/* Only definitions, includes and pragmas go on to later units: a
 * conditional or #error the splitter kept as an item of its own (one the
 * cell decided was never such an item) would break every later unit. */
bool device_pp_carried(const char *code, const cell_item_t *it) {
    const char *p = code + it->start, *end = code + it->end;
    if (p >= end || *p != '#') return true;
    p++;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    static const char *const kept[] = {"define", "undef", "include", "pragma", NULL};
    for (int i = 0; kept[i]; i++) {
        size_t n = strlen(kept[i]);
        if ((size_t)(end - p) >= n && !strncmp(p, kept[i], n)) return strncmp(p, "pragma once", 11) != 0;
    }
    return false;
}

/* Does the (relabelled) log hold a diagnostic of kind what ("error",
 * "warning") at lines [first, last] of cell: "In [3](5): warning #..."? */
bool device_log_names(const char *log, const char *cell, const char *what, int first, int last) {
    if (!log) return false;
    size_t cl = strlen(cell), wl = strlen(what);
    for (const char *p = strstr(log, cell); p; p = strstr(p + 1, cell)) {
        const char *q = p + cl;
        if (*q != '(') continue;
        char *after;
        long line = strtol(q + 1, &after, 10);
        if (strncmp(after, "): ", 3) || strncmp(after + 3, what, wl)) continue;
        if (line >= first && line <= last) return true;
    }
    return false;
}

/* NVRTC's automatic precompiled header is icuda's choice, not the user's:
 * its messages ("... not compatible with those of precompiled header file",
 * "could not create PCH file ...") leave the log, and so does the remark on
 * suppressing warnings when no warning is left. Blocks are separated by a
 * blank line. Edits log in place. */
void device_log_drop_pch(char *log) {
    if (!log) return;
    char *w = log;
    bool warnings = false;
    for (char *p = log; *p;) {
        char *end = strstr(p, "\n\n");
        end = end ? end + 2 : p + strlen(p);
        size_t n = (size_t)(end - p);
        char saved = *end;
        *end = 0;
        bool pch = strstr(p, "precompiled header") || strstr(p, "PCH file");
        bool remark = !strncmp(p, "Remark: The warnings can be suppressed", 38);
        bool warning = !pch && !remark && strstr(p, "arning") != NULL;
        *end = saved;
        if (!pch) {
            warnings |= warning;
            memmove(w, p, n);
            w += n;
        }
        p = end;
    }
    *w = 0;
    if (!warnings) { /* drop the remark, now about nothing */
        char *r;
        while ((r = strstr(log, "Remark: The warnings can be suppressed"))) {
            char *e = strstr(r, "\n\n");
            e = e ? e + 2 : r + strlen(r);
            memmove(r, e, strlen(e) + 1);
        }
    }
}

void device_library_hint(const char *log, cell_error_t *err) {
    if (!log || !err->traceback) return;
    if (strstr(log, "device-side kernel launch could not be processed"))
        json_array_append_new(err->traceback, json_string("Note: " DEVICE_LAUNCH_NOTE));
    /* "has no member", or "name followed by '::' must be a class" over the quoted line */
    if (!strstr(log, "namespace \"cub\" has no member \"Device") && !strstr(log, "cub::Device")) return;
    json_array_append_new(err->traceback, json_string("Note: " DEVICE_LIBRARIES_NOTE));
}
