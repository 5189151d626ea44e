/* What an editor asks of the kernel without running anything: is a cell
 * complete (jupyter console), completions, and inspection. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_rt_table.h"
#include "lang/interp.h"
#include "magics/magics.h"
#include "session.h"
#include "strbuf.h"

const char *engine_is_complete(engine_t *e, const char *code, char **indent) {
    *indent = NULL;
    int depth = 0;
    const char *p = code;
    size_t n = strlen(code);
    /* a cell magic ends at an empty line, as in IPython's console */
    const char *s = code;
    while (*s == ' ' || *s == '\t' || *s == '\n') s++;
    if (s[0] == '%' && s[1] == '%') {
        if (n >= 1 && code[n - 1] == '\n' && (n < 2 || code[n - 2] == '\n')) return "complete";
        *indent = strdup("");
        return "incomplete";
    }
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '/' && p[i + 1] == '/') {
            while (i < n && p[i] != '\n') i++;
        } else if (c == '/' && p[i + 1] == '*') {
            const char *end = strstr(p + i + 2, "*/");
            if (!end) {
                *indent = strdup("");
                return "incomplete";
            }
            i = (size_t)(end - p) + 1;
        } else if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < n && p[j] != c && p[j] != '\n') {
                if (p[j] == '\\') j++;
                j++;
            }
            if (j >= n || p[j] != c) return "invalid";
            i = j;
        } else if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0) return "invalid";
        }
    }
    size_t end = n;
    while (end > 0 && isspace((unsigned char)code[end - 1])) end--;
    if (depth > 0 || (end > 0 && code[end - 1] == '\\')) {
        strbuf_t b = {0};
        for (int d = 0; d < (depth > 0 ? depth : 0); d++) sb_puts(&b, "    ");
        *indent = sb_take(&b);
        return "incomplete";
    }
    return "complete";
}

static const char *const cuda_words[] = {
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__global__", "__device__", "__host__",
    "__constant__", "__shared__", "__restrict__", "__syncthreads", "__syncwarp", "__threadfence",
    "__shfl_sync", "__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync", "__activemask", "__popc", "__clz", "__ffs", "__ldg", "__fmaf_rn", "__expf", "__logf",
    "__sinf", "__cosf", "__fdividef", "atomicAdd", "atomicSub", "atomicMax", "atomicMin", "atomicExch",
    "atomicCAS", "atomicAnd", "atomicOr", "atomicXor", "atomicInc", "atomicDec", "clock64", "printf",
    "__launch_bounds__", "cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc",
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemcpyHostToDevice", "cudaMemcpyDeviceToHost",
    "cudaMemcpyDeviceToDevice", "cudaDeviceSynchronize", "cudaGetLastError", "cudaPeekAtLastError",
    "cudaGetErrorString", "cudaEventCreate", "cudaEventRecord", "cudaEventSynchronize",
    "cudaEventElapsedTime", "cudaEventDestroy", "cudaStreamCreate", "cudaStreamSynchronize",
    "cudaStreamDestroy", "cudaGetDeviceCount", "cudaSetDevice", "cudaGetDevice", "cudaGetDeviceProperties",
    "cudaMemGetInfo", "cudaOccupancyMaxPotentialBlockSize", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "dim3", "size_t", "unsigned", "double", "float", "int", "long", "char", "short", "struct", "typedef",
    "return", "for", "while", "if", "else", "switch", "case", "break", "continue", "sizeof", "const",
    "static", "template", "typename", "#include", "#define", NULL};

/* Every function of the CUDA runtime API (read from the toolkit's headers:
 * runtime/cuda/cuda_rt_table.h) not listed above; its types and constants
 * are the interpreter's names already. */
static void complete_runtime_api(const char *prefix, size_t plen, json_t *matches) {
    if (plen < 2 || strncmp(prefix, "cu", 2)) return;
    for (int k = 0; k < crt_nfns; k++) {
        const char *w = crt_fns[k].name;
        if (strncmp(w, prefix, plen)) continue;
        bool listed = false;
        for (int i = 0; cuda_words[i] && !listed; i++) listed = !strcmp(cuda_words[i], w);
        if (!listed) json_array_append_new(matches, json_string(w));
    }
}

static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The identifier (or %magic) that the cursor touches: [*start, *end). */
static void word_at(const char *code, int cursor, int *start, int *end, bool *magic) {
    int n = (int)strlen(code);
    if (cursor < 0 || cursor > n) cursor = n;
    int s = cursor, t = cursor;
    while (s > 0 && ident_char(code[s - 1])) s--;
    while (t < n && ident_char(code[t])) t++;
    *magic = false;
    if (s > 0 && code[s - 1] == '%') {
        s--;
        if (s > 0 && code[s - 1] == '%') s--;
        *magic = true;
    } else if (s > 0 && code[s - 1] == '#') {
        s--;
    }
    *start = s;
    *end = t;
}

json_t *engine_complete(engine_t *e, const char *code, int cursor_pos) {
    int n = (int)strlen(code);
    if (cursor_pos < 0 || cursor_pos > n) cursor_pos = n;
    int start, end;
    bool magic;
    word_at(code, cursor_pos, &start, &end, &magic);
    char prefix[256];
    int plen = cursor_pos - start;
    if (plen < 0) plen = 0;
    if (plen >= (int)sizeof prefix) plen = sizeof prefix - 1;
    memcpy(prefix, code + start, (size_t)plen);
    prefix[plen] = 0;
    json_t *matches = json_array();
    if (magic) {
        int count;
        const magic_t *m = magic_table(&count);
        bool cellm = plen >= 2 && prefix[1] == '%';
        for (int i = 0; i < count; i++) {
            if (cellm ? !m[i].cell : !m[i].line) continue;
            char full[64];
            snprintf(full, sizeof full, "%s%s", cellm ? "%%" : "%", m[i].name);
            if (!strncmp(full, prefix, (size_t)plen)) json_array_append_new(matches, json_string(full));
        }
    } else if (plen > 0) {
        for (int i = 0; i < e->nkernels; i++)
            if (!strncmp(e->kernels[i].name, prefix, (size_t)plen)) json_array_append_new(matches, json_string(e->kernels[i].name));
        if (e->interp) {
            json_t *names = interp_names(e->interp, prefix);
            json_array_extend(matches, names);
            json_decref(names);
        }
        for (int i = 0; cuda_words[i]; i++)
            if (!strncmp(cuda_words[i], prefix, (size_t)plen)) json_array_append_new(matches, json_string(cuda_words[i]));
        complete_runtime_api(prefix, (size_t)plen, matches);
    }
    return json_pack("{s:o,s:i,s:i,s:{}}", "matches", matches, "cursor_start", start, "cursor_end", end, "metadata");
}

json_t *engine_inspect(engine_t *e, const char *code, int cursor_pos, int detail_level) {
    int start, end;
    bool magic;
    word_at(code, cursor_pos, &start, &end, &magic);
    char word[256];
    int len = end - start < (int)sizeof word - 1 ? end - start : (int)sizeof word - 1;
    memcpy(word, code + start, (size_t)len);
    word[len] = 0;
    char *text = NULL;
    if (magic) {
        const magic_t *m = magic_find(word + (word[1] == '%' ? 2 : 1));
        if (m) text = magic_help_text(m);
    } else {
        const kernel_entry_t *k = engine_find_kernel(e, word);
        if (k) text = engine_kernel_description(e, k);
    }
    json_t *data = json_object();
    if (text) json_object_set_new(data, "text/plain", json_string(text));
    free(text);
    return json_pack("{s:b,s:o,s:{}}", "found", json_object_size(data) > 0, "data", data, "metadata");
}
