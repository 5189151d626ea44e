/* %sass: the machine code a kernel became, disassembled from the cubin the
 * compile cache keeps, with nvdisasm (or cuobjdump -sass) from the toolkit.
 * Line annotations of -lineinfo are given back as the cell and line. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "magics.h"
#include "runtime/cuda/cuda_inspect.h"
#include "runtime/program/cuda_tools.h"
#include "runtime/base/strbuf.h"
#include "runtime/base/xalloc.h"

#include "runtime/device/compile_cache.h"
#include "runtime/device/nvrtc_compile.h"
#include "runtime/device/device_session.h"
#define TOOL_TIMEOUT_MS 30000

/* The index of the symbol called name in a cubin's symbol table (what
 * nvdisasm -fun takes), or -1. Every offset is checked against n. */
static long cubin_symbol_index(const char *img, size_t n, const char *name) {
    if (n < sizeof(Elf64_Ehdr) || memcmp(img, ELFMAG, SELFMAG) || img[EI_CLASS] != ELFCLASS64) return -1;
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > n || (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > n - eh.e_shoff)
        return -1;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, st;
        memcpy(&sh, img + eh.e_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB || sh.sh_link >= eh.e_shnum) continue;
        memcpy(&st, img + eh.e_shoff + sh.sh_link * sizeof st, sizeof st);
        if (sh.sh_offset > n || sh.sh_size > n - sh.sh_offset || st.sh_offset > n || st.sh_size > n - st.sh_offset)
            return -1;
        size_t count = sh.sh_size / sizeof(Elf64_Sym);
        for (size_t k = 0; k < count; k++) {
            Elf64_Sym sym;
            memcpy(&sym, img + sh.sh_offset + k * sizeof sym, sizeof sym);
            if (sym.st_name >= st.sh_size) continue;
            const char *s = img + st.sh_offset + sym.st_name;
            size_t room = st.sh_size - sym.st_name;
            if (strnlen(s, room) < room && !strcmp(s, name)) return (long)k;
        }
    }
    return -1;
}

/* nvdisasm's `//## File "cell.cu", line 12` becomes the cell, its line and
 * the line's text; cuobjdump's encoding comments go. */
static char *tidy(device_session_t *e, const char *hex, const char *text, bool cuobjdump) {
    strbuf_t b = {0};
    for (const char *line = text; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        char *l = xstrndup(line, n);
        line += n + (eol ? 1 : 0);
        const char *f = strstr(l, "//## File \"");
        int unit_line = 0;
        char file[512] = "";
        if (f && sscanf(f, "//## File \"%511[^\"]\", line %d", file, &unit_line) == 2) {
            const char *base = strrchr(file, '/');
            base = base ? base + 1 : file;
            char cell[64], src[300];
            int cl;
            if (!strcmp(base, "cell.cu") && device_unit_line(e, hex, unit_line, cell, sizeof cell, &cl, src, sizeof src)) {
                const char *s = src;
                while (*s == ' ' || *s == '\t') s++;
                sb_printf(&b, "%.*s//## %s, line %d: %s\n", (int)(f - l), l, cell, cl, s);
                free(l);
                continue;
            }
        }
        if (cuobjdump) {
            char *c = strstr(l, "/* 0x");
            const char *t = l;
            while (*t == ' ' || *t == '\t') t++;
            if (c == t) { /* a line of encoding only */
                free(l);
                continue;
            }
            if (c && strstr(c, "*/")) {
                while (c > l && (c[-1] == ' ' || c[-1] == '\t')) c--;
                *c = 0;
            }
        }
        sb_printf(&b, "%s\n", l);
        free(l);
    }
    return sb_take(&b);
}

static int no_tool(const char *where, cell_error_t *err) {
    json_t *tb = json_array();
    json_array_append_new(tb, json_string("\x1b[1;31mRuntimeError\x1b[0m: %sass needs nvdisasm or cuobjdump from the "
                                          "CUDA toolkit, and neither was found"));
    json_array_append_new(tb, json_sprintf("looked in: %s", where));
    json_array_append_new(tb, json_string("install the toolkit's nvdisasm (Debian/Ubuntu: cuda-nvdisasm-13-0; PyPI: "
                                          "nvidia-cuda-nvdisasm) or cuobjdump (cuda-cuobjdump-13-0; "
                                          "nvidia-cuda-cuobjdump), or set ICUDA_TOOLS_PATH to the folder that has it"));
    cell_error_set(err, "RuntimeError", tb,
                     "%%sass needs nvdisasm or cuobjdump from the CUDA toolkit, and neither was found (looked in: %s); "
                     "install cuda-nvdisasm (or pip install nvidia-cuda-nvdisasm), or set ICUDA_TOOLS_PATH",
                     where);
    return -1;
}

/* The kernel's module and lowered name: a kernel of a cell, or a template
 * instance (compiled now if it was not yet). */
static int find(magic_ctx_t *mc, const char *name, cuda_kernel_ref_t *ref, char *where, size_t wn,
                cell_error_t *err) {
    const kernel_entry_t *k = device_find_kernel(mc->dev, name);
    if (k) {
        const compiled_module_t *m = compile_cache_get(mc->dev->cache, k->module_hex);
        const compiled_kernel_t *ck = m ? module_kernel(m, k->name) : NULL;
        if (!ck || !ck->lowered) {
            cell_error_set(err, "RuntimeError", NULL, "the module of %s is no longer available; run its cell again", name);
            return -1;
        }
        snprintf(ref->hex, sizeof ref->hex, "%s", k->module_hex);
        snprintf(ref->lowered, sizeof ref->lowered, "%s", ck->lowered);
        snprintf(ref->signature, sizeof ref->signature, "%s", k->signature);
        snprintf(where, wn, "%s", k->cell);
        return 0;
    }
    if (strchr(name, '<')) {
        char ename[64], msg[1024];
        if (cuda_kernel_ref(mc->cuda, name, ref, ename, msg, sizeof msg) == 0) {
            snprintf(where, wn, "an instance of a template kernel");
            return 0;
        }
        cell_error_set(err, ename[0] ? ename : "RuntimeError", NULL, "%s", msg);
        return -1;
    }
    strbuf_t b = {0};
    for (int i = 0; i < mc->dev->nkernels; i++) sb_printf(&b, "%s%s", i ? ", " : "", mc->dev->kernels[i].name);
    char *known = sb_take(&b);
    if (*known) magic_usage_error(&magic_sass, err, "no kernel named '%s'; compiled so far: %s", name, known);
    else magic_usage_error(&magic_sass, err, "no kernel named '%s'; no kernel has been compiled yet", name);
    free(known);
    return -1;
}

static int sass_line(magic_ctx_t *mc, const char *args, cell_error_t *err) {
    char **argv;
    int argc = magic_split_args(args, &argv);
    bool all = false;
    const char *name = NULL;
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) {
        if (!strcmp(argv[i], "--all")) all = true;
        else if (argv[i][0] == '-') rc = magic_usage_error(&magic_sass, err, "unknown option %s", argv[i]);
        else if (!name) name = argv[i];
        else rc = magic_usage_error(&magic_sass, err, "name one kernel");
    }
    if (rc == 0 && !name) rc = magic_usage_error(&magic_sass, err, "name one kernel");
    cuda_kernel_ref_t ref;
    char defined[128] = "";
    if (rc == 0) rc = find(mc, name, &ref, defined, sizeof defined, err);
    const compiled_module_t *m = rc == 0 ? compile_cache_get(mc->dev->cache, ref.hex) : NULL;
    if (rc == 0 && (!m || !m->cubin || !m->cubin_len)) {
        cell_error_set(err, "RuntimeError", NULL,
                         "the module of %s has no machine code (cubin): it was compiled for a virtual "
                         "architecture (%s); %%ptx shows its PTX", name, device_arch(mc->dev));
        rc = -1;
    }
    char where[2048] = "";
    char *nvdisasm = NULL, *cuobjdump = NULL;
    if (rc == 0) {
        nvdisasm = cuda_tool_find("nvdisasm", where, sizeof where);
        if (!nvdisasm) cuobjdump = cuda_tool_find("cuobjdump", NULL, 0);
        if (!nvdisasm && !cuobjdump) rc = no_tool(where, err);
    }
    long idx = -1;
    if (rc == 0 && nvdisasm && !all && (idx = cubin_symbol_index(m->cubin, m->cubin_len, ref.lowered)) < 0) {
        cell_error_set(err, "RuntimeError", NULL, "%s (%s) is not in its module's symbol table", name, ref.lowered);
        rc = -1;
    }
    char path[] = "/tmp/icuda-sass-XXXXXX.cubin";
    int fd = rc == 0 ? mkstemps(path, 6) : -1;
    if (rc == 0 && (fd < 0 || write(fd, m->cubin, m->cubin_len) != (ssize_t)m->cubin_len)) {
        cell_error_set(err, "RuntimeError", NULL, "cannot write the cubin to a temporary file");
        rc = -1;
    }
    if (fd >= 0) close(fd);
    if (rc == 0) {
        char index[32];
        snprintf(index, sizeof index, "%ld", idx);
        char *cmd[8];
        int n = 0;
        if (nvdisasm) {
            cmd[n++] = nvdisasm;
            cmd[n++] = "-c";
            cmd[n++] = "-g";
            if (!all) {
                cmd[n++] = "-fun";
                cmd[n++] = index;
            }
        } else {
            cmd[n++] = cuobjdump;
            cmd[n++] = "-sass";
            if (!all) {
                cmd[n++] = "-fun";
                cmd[n++] = ref.lowered;
            }
        }
        cmd[n++] = path;
        cmd[n] = NULL;
        tool_run_t r;
        const char *tool = nvdisasm ? "nvdisasm" : "cuobjdump";
        if (cuda_tool_run(cmd, TOOL_TIMEOUT_MS, &r) < 0) {
            cell_error_set(err, "RuntimeError", NULL, "%s", r.err ? r.err : "cannot run the disassembler");
            rc = -1;
        } else if (r.interrupted) {
            cell_error_set(err, "KeyboardInterrupt", NULL, "interrupted while %s ran", tool);
            rc = -1;
        } else if (r.timed_out || r.status != 0) {
            char *e = r.err && *r.err ? r.err : r.out;
            size_t el = strlen(e);
            while (el && (e[el - 1] == '\n' || e[el - 1] == ' ')) e[--el] = 0;
            cell_error_set(err, "RuntimeError", NULL, "%s %s: %s", tool,
                             r.timed_out ? "took too long and was stopped" : "failed", *e ? e : "(no message)");
            rc = -1;
        } else {
            char *text = tidy(mc->dev, ref.hex, r.out, !nvdisasm);
            io_printf(mc->io, "stdout", "// SASS of %s%s, from %s, for %s (%s)\n%s", all ? "the module of " : "",
                      ref.signature, defined, device_arch(mc->dev), tool, text);
            free(text);
        }
        tool_run_free(&r);
    }
    if (fd >= 0) unlink(path);
    free(nvdisasm);
    free(cuobjdump);
    magic_free_args(argv, argc);
    return rc;
}

const magic_t magic_sass = {
    "sass", "%sass [--all] KERNEL", "show the machine code (SASS) of a compiled kernel",
    "Disassembles the kernel's cubin with nvdisasm (or cuobjdump -sass) from the CUDA\n"
    "toolkit, with each stretch of code marked by the cell line it came from.\n"
    "KERNEL may be a template instance, e.g. scale<float>. --all shows the whole\n"
    "module. The tools are looked for in $ICUDA_TOOLS_PATH when set, else in the\n"
    "toolkit's bin folder ($CUDA_HOME/bin, the toolkit icuda was built with) and\n"
    "on PATH.",
    sass_line, NULL};
