#!/usr/bin/env python3
"""The toolkit's host libraries and device-library types, as icuda knows them.

Runs at build time (make), like gen_cuda_api.py, whose parser it uses:

  - the host APIs of cuRAND (curand.h), cuBLAS v2 (cublas_v2.h /
    cublas_api.h), cuFFT (cufft.h) and NCCL (nccl.h, where the toolkit's
    include folder or the system's has it): every function with its
    parameters classified for forwarding to the GPU worker, which loads the
    library with dlopen on first use;
  - the types device headers declare and host code allocates: the RNG
    states of curand_kernel.h (read from the preprocessed C++ header: only
    its plain C structs and typedefs), __half/__nv_bfloat16 and their pairs
    (laid out as the headers' _raw storage structs) and cuComplex.h's
    complex types.

It writes into the output folder:

  clib_decls.c  the declarations and macros host cells see;
  clib_table.c  the functions (crt_fn_t rows, the library of each), layouts
                and constants, compiled against the real headers, with a
                compile-time check that each parsed prototype is the header's;
  clib_stubs.c  the worker's typed callers and each library's soname, as
                found in the toolkit's lib64 at build time;
  clib_ref.cc   the layouts of the device-library types as g++ sees the real
                C++ headers (curand_kernel.h, cuda_fp16.h, ...), for the tests.

Usage: gen_cuda_libs.py --cc CC --cxx CXX --cuda /usr/local/cuda --out build/gen
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_cuda_api as g  # noqa: E402

# (id, name, header, soname stem, status type, function prefixes)
LIBS = (
    (1, 'cuRAND', 'curand.h', 'libcurand.so', 'curandStatus_t', ('curand',)),
    (2, 'cuBLAS', 'cublas_v2.h', 'libcublas.so', 'cublasStatus_t', ('cublas',)),
    (3, 'cuFFT', 'cufft.h', 'libcufft.so', 'cufftResult', ('cufft',)),
    (4, 'NCCL', 'nccl.h', 'libnccl.so', 'ncclResult_t', ('nccl',)),
)
NCCL = 4
# the soname a library has where the toolkit's lib64 does not hold it (NCCL
# is installed apart from the toolkit: libnccl2, or a wheel)
DEFAULT_SONAMES = {NCCL: 'libnccl.so.2'}
LIB_HEADERS = ('curand.h', 'cublas_api.h', 'cublas_v2.h', 'cufft.h', 'cuComplex.h', 'cuda_fp16.h', 'cuda_bf16.h',
               'nccl.h')
MACRO_RE = re.compile(r'(curand|CURAND|cublas|CUBLAS|cufft|CUFFT|cuComplex|MAX_CUFFT|nccl|NCCL)')
# function-like macros host code uses, kept as they are
FN_MACRO_RE = re.compile(r'NCCL_VERSION$')
# brace initialisers host code assigns (ncclConfig_t config = NCCL_CONFIG_INITIALIZER;)
BRACE_MACROS = ('NCCL_CONFIG_INITIALIZER', 'NCCL_SIM_INFO_INITIALIZER')
# cuda_fp16.h / cuda_bf16.h declare these as C++ classes over the raw storage
# of their _raw structs (which C sees): host code gets that storage
FP_TYPES = (('__half', '__half_raw', 'half'), ('__half2', '__half2_raw', 'half2'),
            ('__nv_bfloat16', '__nv_bfloat16_raw', 'nv_bfloat16'),
            ('__nv_bfloat162', '__nv_bfloat162_raw', 'nv_bfloat162'))
# what the tests compare with g++'s view of the real C++ headers
REF_TYPES = ('curandState', 'curandState_t', 'curandStateXORWOW_t', 'curandStatePhilox4_32_10_t',
             'curandStateMRG32k3a_t', 'curandStateMRG32k3a', 'curandStateSobol32_t', 'curandStateScrambledSobol32_t',
             'curandStateSobol64_t', 'curandStateScrambledSobol64_t', 'curandStateMtgp32_t', 'curandStateTest_t',
             'mtgp32_kernel_params_t', 'curandDiscreteDistribution_t',
             '__half', '__half2', '__nv_bfloat16', '__nv_bfloat162', '__half_raw', '__nv_bfloat16_raw',
             'cuComplex', 'cuFloatComplex', 'cuDoubleComplex', 'cufftComplex', 'cufftDoubleComplex')
# cuComplex.h's accessors and arithmetic are static inline functions: the
# cheap ones as macros (the interpreter reads no function bodies)
COMPLEX_MACROS = (
    ('cuCrealf(v_)', '((v_).x)'), ('cuCimagf(v_)', '((v_).y)'), ('cuCreal(v_)', '((v_).x)'), ('cuCimag(v_)', '((v_).y)'),
    ('cuConjf(v_)', 'make_cuFloatComplex((v_).x, -(v_).y)'), ('cuConj(v_)', 'make_cuDoubleComplex((v_).x, -(v_).y)'),
    ('cuCaddf(a_, b_)', 'make_cuFloatComplex((a_).x + (b_).x, (a_).y + (b_).y)'),
    ('cuCadd(a_, b_)', 'make_cuDoubleComplex((a_).x + (b_).x, (a_).y + (b_).y)'),
    ('cuCsubf(a_, b_)', 'make_cuFloatComplex((a_).x - (b_).x, (a_).y - (b_).y)'),
    ('cuCsub(a_, b_)', 'make_cuDoubleComplex((a_).x - (b_).x, (a_).y - (b_).y)'),
    ('cuCmulf(a_, b_)', 'make_cuFloatComplex((a_).x * (b_).x - (a_).y * (b_).y, (a_).x * (b_).y + (a_).y * (b_).x)'),
    ('cuCmul(a_, b_)', 'make_cuDoubleComplex((a_).x * (b_).x - (a_).y * (b_).y, (a_).x * (b_).y + (a_).y * (b_).x)'),
    ('cuCabsf(v_)', 'sqrtf((v_).x * (v_).x + (v_).y * (v_).y)'), ('cuCabs(v_)', 'sqrt((v_).x * (v_).x + (v_).y * (v_).y)'),
)


def lib_of(name):
    for lid, _, _, _, _, prefixes in LIBS:
        if name.startswith(prefixes):
            return lid
    return 0


def run_cpp(cmd, src, what):
    try:
        p = subprocess.run(cmd, input=src, capture_output=True, text=True, check=False)
    except OSError as e:
        g.die('cannot run %s: %s' % (cmd[0], e))
    if p.returncode:
        g.die('the preprocessor failed on %s:\n%s' % (what, p.stderr))
    return p.stdout


def split(pre, wanted, macro_re, rt_files):
    """(runtime text, library text, library macros) of preprocessed output:
    the runtime's is what crt_decls.c has already (the files rt_files)."""
    rt, lib, macros, cur = [], [], [], ''
    for line in pre.split('\n'):
        m = re.match(r'# \d+ "([^"]+)"', line)
        if m:
            cur = os.path.basename(m.group(1))
            continue
        if line.startswith('#define '):
            f = re.match(r'#define (\w+)\(([\w, ]*)\) (.+)$', line)
            if f and cur in wanted and FN_MACRO_RE.match(f.group(1)):
                macros.append(('%s(%s)' % (f.group(1), f.group(2)), f.group(3).strip()))
                continue
            m = re.match(r'#define (\w+) (.+)$', line)
            if (cur in wanted or (cur in g.HEADERS and cur not in rt_files)) and m and macro_re.match(m.group(1)) and m.group(2).strip():
                macros.append((m.group(1), m.group(2).strip()))
            continue
        if line.startswith('#'):
            continue
        if cur in rt_files:
            rt.append(line)
        elif cur in wanted or cur in g.HEADERS:
            lib.append(line)
    return '\n'.join(rt), '\n'.join(lib), macros


def skim_c(toks):
    """The plain C declarations (struct definitions, typedefs) among C++
    tokens: functions, templates, namespaces and initialized tables go."""
    out, i, n = [], 0, len(toks)
    while i < n:
        j, d, fn = i, 0, False
        while j < n:
            v = toks[j]
            if v in ('(', '['):
                d += 1
            elif v in (')', ']'):
                d -= 1
            elif v == '{':
                if d == 0 and j > i and toks[j - 1] in (')', 'const', 'noexcept') or toks[i] in ('namespace', 'extern'):
                    fn = True
                d += 1
            elif v == '}':
                d -= 1
                if d == 0 and fn:
                    break
            elif v == ';' and d == 0:
                break
            j += 1
        decl = toks[i:j + 1]
        i = j + 1
        if fn or not decl or decl[0] not in ('struct', 'typedef'):
            continue
        if any(x in ('(', '=', 'template', '::', 'operator', '<') for x in decl):
            continue
        out += decl
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cc', default='cc')
    ap.add_argument('--cxx', default='c++')
    ap.add_argument('--cuda', default='/usr/local/cuda')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    inc = '-I' + os.path.join(a.cuda, 'include')
    nccl = has_header(a.cc, inc, 'nccl.h')
    src = ('#define __dv(v) __icuda_dv(v)\n#include <cuda_runtime_api.h>\n#include <driver_functions.h>\n'
           '#include <vector_functions.h>\n#include <cuComplex.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n'
           '#include <curand.h>\n#include <cublas_v2.h>\n#include <cufft.h>\n' + ('#include <nccl.h>\n' if nccl else ''))
    pre = run_cpp(a.cc.split() + ['-E', '-dD', '-x', 'c', inc, '-'], src, 'the library headers')
    rt_files = {os.path.basename(f) for f in re.findall(r'^# \d+ "([^"]+)"', g.preprocess(a.cc, a.cuda), re.M)}
    rt_files &= set(g.HEADERS)
    rt_text, lib_text, macros = split(pre, LIB_HEADERS, MACRO_RE, rt_files)
    p = g.Parser(g.tokenize(rt_text))
    p.top([])
    nrt, rt_structs, rt_enums = len(p.funcs), set(p.structs), len(p.enums)
    rt_inlines = set(p.inlines)
    decl_toks = []
    p.t, p.i = g.tokenize(lib_text), 0
    p.top(decl_toks)
    funcs = [f for f in p.funcs[nrt:] if lib_of(f[0])]
    # curand_kernel.h's states: its plain C structs, from the C++ header
    kpre = run_cpp(a.cxx.split() + ['-E', '-x', 'c++', inc, '-'], '#include <curand_kernel.h>\n', 'curand_kernel.h')
    ktext = []
    cur = ''
    for line in kpre.split('\n'):
        m = re.match(r'# \d+ "([^"]+)"', line)
        if m:
            cur = os.path.basename(m.group(1))
        elif not line.startswith('#') and cur.startswith('curand') and cur != 'curand.h':
            ktext.append(line)
    ktoks = skim_c(g.tokenize('\n'.join(ktext)))
    kdecls = []
    p.t, p.i = ktoks, 0
    p.top(kdecls)
    if not any('curandStateXORWOW' in t for t in kdecls):
        g.die('no curandStateXORWOW in curand_kernel.h')
    fp_text = []
    for name, raw, alias in FP_TYPES:
        r = p.typedefs.get(raw)
        if not r or r.kind != 'base' or r.name not in p.structs:
            g.die('no %s in the fp16/bf16 headers' % raw)
        fp_text.append(fp_struct(p, r.name, name, alias))
    if len(funcs) < 300:
        g.die('only %d library functions found' % len(funcs))
    os.makedirs(a.out, exist_ok=True)
    lib_structs = [k for k in p.structs if k not in rt_structs]
    write_decls(a.out, p, decl_toks + kdecls, fp_text, macros, rt_inlines)
    write_table(a.out, p, funcs, lib_structs, p.enums[rt_enums:], macros, kdecls, fp_text, decl_toks, nccl)
    write_stubs(a.out, p, funcs, os.path.join(a.cuda, 'lib64'), nccl)
    write_ref(a.out)


def has_header(cc, inc, name):
    """Whether the C preprocessor finds <name> (the toolkit's include
    folder first, then the system's: NCCL lives in either)."""
    try:
        p = subprocess.run(cc.split() + ['-E', '-x', 'c', inc, '-'], input='#include <%s>\n' % name,
                           capture_output=True, text=True, check=False)
    except OSError:
        return False
    return p.returncode == 0


def fp_struct(p, key, name, alias):
    """typedef struct NAME { fields } NAME; with the raw struct's alignment."""
    fields = p.structs[key]
    al = 2 if len(fields) == 1 else 4
    body = ' '.join(f.render(('__' + n) if name.startswith('__half') or name.startswith('__nv') else n) + ';'
                    for n, f in fields)
    return 'typedef struct __attribute__((aligned(%d))) %s {%s} %s;\ntypedef %s %s;\n' % (al, name, body, name, name,
                                                                                        alias)


def write_decls(out, p, decl_toks, fp_text, macros, rt_inlines):
    parts = [g.decl_text(t) for t in decl_toks] + fp_text
    names = set(p.typedefs)
    text = ' '.join(' '.join(t) for t in decl_toks)
    for m in re.finditer(r'\b(struct|enum) (\w+)\s*\{', text):
        if m.group(2) not in names and not m.group(2).startswith('__anon'):
            parts.append('typedef %s %s %s;\n' % (m.group(1), m.group(2), m.group(2)))
            names.add(m.group(2))
    ms = list(macros)
    for name, t in sorted(p.inlines.items()):  # make_cuComplex(r, i) ...
        if name in rt_inlines or not name.startswith('make_'):
            continue
        args = ', '.join(pn for pn, _ in t.params)
        r = g.resolve(p, t.to)
        if r.kind != 'base' or r.name not in p.structs:
            continue
        ms.append((name + '(' + args + ')', '((%s){%s})' % (t.to.render(), ', '.join('(%s)' % pn for pn, _ in t.params))))
    ms += COMPLEX_MACROS
    mtext = ''.join('#define %s %s\n' % (n, v) for n, v in ms if (not v.startswith('{') or n in BRACE_MACROS) and
                    not re.search(r'\b(__\w+|CUBLASWINAPI|CURANDAPI|CUFFTAPI)\b', v) and
                    not n.endswith(('_H_', '_H', '_API')))
    with open(os.path.join(out, 'clib_decls.c'), 'w') as f:
        f.write('/* Generated by tools/gen_cuda_libs.py from the CUDA headers: do not edit. */\n')
        f.write('const char clib_decl_text[] =\n')
        for s in parts:
            for line in s.splitlines():
                if line.strip():
                    f.write('    %s\n' % g.c_literal(line.strip() + '\n'))
        f.write('    "";\n')
        f.write('const char clib_macro_text[] =\n')
        for line in mtext.splitlines():
            f.write('    %s\n' % g.c_literal(line + '\n'))
        f.write('    "";\n')


def enum_names(decls, tag, typedef):
    """The enumerators of enum tag, or of the anonymous enum typedef names."""
    for toks in decls:
        for i in range(len(toks) - 2):
            if toks[i] == 'enum' and ((tag and toks[i + 1] == tag and toks[i + 2] == '{') or
                                      (toks[i + 1] == '{' and toks[-2] == typedef and toks[0] == 'typedef')):
                out, j, want = [], i + 2 + (toks[i + 1] != '{'), True
                while toks[j] != '}':
                    if want:
                        out.append(toks[j])
                    want = toks[j] == ','
                    j += 1
                return out
    return []


def write_table(out, p, funcs, lib_structs, enums, macros, kdecls, fp_text, decl_toks_all, nccl):
    L = []
    w = L.append
    w('/* Generated by tools/gen_cuda_libs.py from the CUDA headers: do not edit. */')
    w('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    w('#include <stddef.h>')
    w('#include <cuda_runtime_api.h>')
    w('#include <cuda_fp16.h>')
    w('#include <cuda_bf16.h>')
    w('#include <curand.h>')
    w('#include <cublas_v2.h>')
    w('#include <cufft.h>')
    if nccl:
        w('#include <nccl.h>')
    w('#include "runtime/toolkit/cuda_lib_table.h"')
    w('/* curand_kernel.h is C++: its plain C structs, as host cells see them */')
    for t in kdecls:
        w(g.decl_text(t).rstrip())
    for t in fp_text:
        w(t.rstrip())
    w('')
    struct_ix = {}

    def struct_index(key):
        if key in struct_ix:
            return struct_ix[key]
        sp = g.spelled(p, key)
        paths = g.pointer_paths(p, key, '') if sp else []
        ix = len(struct_ix)
        struct_ix[key] = ix
        w('static const unsigned short clib_pf%d[] = {%s};' % (ix, ', '.join('offsetof(%s, %s)' % (sp, x)
                                                                             for x in paths) or '0'))
        return ix
    rows, libs = [], []
    statuses = {lib[4] for lib in LIBS}
    for name, t, dep in funcs:
        prs = []
        for k, (pn, pt) in enumerate(t.params):
            pt = g.decay(pt)
            kind, extra = g.classify(p, pn, pt)
            pk, psize, pconst, fields = 'NONE', '0', 0, -1
            if kind == 'PTR':
                pk = g.pointee_kind(p, extra)
                pconst = 1 if extra.const else 0
                if g.complete(p, extra):
                    psize = 'sizeof(%s)' % extra.render()
                if pk == 'STRUCT':
                    fields = struct_index(g.resolve(p, extra).name)
            elif kind == 'STRUCT':
                fields = struct_index(extra)
            prs.append('{%s, %s, CRT_%s, CRT_PT_%s, %d, sizeof(%s), %s, %d, 0, 0}' % (
                g.c_literal(pn or 'arg%d' % (k + 1)), g.c_literal(pt.render()), kind, pk, pconst, pt.render(), psize,
                fields))
        w('static const crt_param_t clib_p_%s[] = {%s};' % (name, ', '.join(prs) or '{0}'))
        ret = t.to.render()
        rk = 'ERROR' if ret in statuses else 'STRING' if ret == 'const char *' else 'OTHER'
        proto = '%s %s(%s)' % (ret, name, ', '.join(pt.render(pn or '') for pn, pt in t.params) or 'void')
        # the parsed prototype is the header's (a compile-time check)
        w('_Static_assert(__builtin_types_compatible_p(__typeof__(&%s), %s), "%s");' % (
            name, g.Ty('ptr', to=t).render(), name))
        rows.append('{%s, %s, CRT_RET_%s, %d, %d, clib_p_%s}' % (g.c_literal(name), g.c_literal(proto), rk,
                                                                  len(t.params), 1 if dep else 0, name))
        libs.append(str(lib_of(name)))
    w('')
    w('const crt_fn_t clib_fns[] = {')
    for r in rows:
        w('    %s,' % r)
    w('};')
    w('const unsigned char clib_fn_lib[] = {%s};' % ', '.join(libs))
    w('const int clib_nfns = %d;' % len(rows))
    w('const crt_ptrfields_t clib_ptrfields[] = {')
    for key, ix in sorted(struct_ix.items(), key=lambda x: x[1]):
        sp = g.spelled(p, key)
        w('    {clib_pf%d, %d},' % (ix, len(g.pointer_paths(p, key, '')) if sp else 0))
    w('};')
    w('const crt_struct_t clib_structs[] = {')
    fl = []
    for key in lib_structs:
        sp = g.spelled(p, key)
        if not sp:
            continue
        w('    {%s, sizeof(%s), _Alignof(%s)},' % (g.c_literal(sp), sp, sp))
        for fname, ft in g.flat_fields(p, p.structs[key]):
            fl.append('    {%s, %s, offsetof(%s, %s)},' % (g.c_literal(sp), g.c_literal(fname), sp, fname))
    w('};')
    w('const int clib_nstructs = sizeof clib_structs / sizeof clib_structs[0];')
    w('const crt_field_t clib_fields[] = {')
    L.extend(fl)
    w('};')
    w('const int clib_nfields = sizeof clib_fields / sizeof clib_fields[0];')
    w('const crt_const_t clib_consts[] = {')
    for e in enums:
        w('    {%s, (long long)%s},' % (g.c_literal(e), e))
    for n, v in macros:
        if '(' in n or n in BRACE_MACROS:
            continue
        if re.match(r'^[\w()\s<>|&~+\-x*]+$', v) and re.search(r'\d', v) and not re.search(r'\b__\w+', v) \
                and not re.match(r'^[A-Za-z_]\w*$', v) \
                and not n.endswith(('_H_', '_H')):
            w('    {%s, (long long)(%s)},' % (g.c_literal(n), n))
    w('};')
    w('const int clib_nconsts = sizeof clib_consts / sizeof clib_consts[0];')
    # each library's status codes, named as its header's enum names them
    w('const clib_status_t clib_statuses[] = {')
    for lid, _, _, _, status, _ in LIBS:
        if lid == NCCL and not nccl:
            continue
        t = p.typedefs.get(status)
        tag = t.name.split(' ', 1)[1] if t and t.kind == 'base' and t.name.startswith('enum ') else None
        names = enum_names(decl_toks_all, tag, status)
        if not names:
            g.die('no enum for %s' % status)
        for n in names:
            w('    {%d, %s, (int)%s},' % (lid, g.c_literal(n), n))
    w('};')
    w('const int clib_nstatuses = sizeof clib_statuses / sizeof clib_statuses[0];')
    w('const clib_lib_t clib_libs[] = {')
    w('    {"", "", "", 0},')
    for lid, lname, header, _, status, _ in LIBS:
        w('    {%s, %s, %s, %d},' % (g.c_literal(lname), g.c_literal(header), g.c_literal(status), lid))
    w('};')
    w('const int clib_nlibs = %d;' % (len(LIBS) + 1))
    with open(os.path.join(out, 'clib_table.c'), 'w') as f:
        f.write('\n'.join(L) + '\n')


def soname(libdir, stem):
    """libcublas.so.13: the versioned name in the toolkit's lib64 (the one
    the unversioned link names), or the stem where there is none."""
    link = os.path.join(libdir, stem)
    try:
        target = os.path.basename(os.path.realpath(link))
        m = re.match(re.escape(stem) + r'\.(\d+)', target)
        if m:
            return stem + '.' + m.group(1)
    except OSError:
        pass
    try:
        for n in sorted(os.listdir(libdir)):
            m = re.match(re.escape(stem) + r'\.(\d+)$', n)
            if m:
                return n
    except OSError:
        pass
    return stem


def write_stubs(out, p, funcs, libdir, nccl):
    L = []
    w = L.append
    w('/* Generated by tools/gen_cuda_libs.py from the CUDA headers: do not edit. */')
    w('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    w('#include <stdint.h>')
    w('#include <cuda_runtime_api.h>')
    w('#include <curand.h>')
    w('#include <cublas_v2.h>')
    w('#include <cufft.h>')
    if nccl:
        w('#include <nccl.h>')
    w('#include "runtime/gpu/worker/worker_cudart.h"')
    w('')
    rows = []
    for name, t, dep in funcs:
        rr = g.resolve(p, t.to)
        if rr.kind == 'base' and rr.name in p.structs:
            rows.append('{%s, 0, 0, NULL}' % g.c_literal(name))
            continue
        fty = g.Ty('ptr', to=t).render()
        args = ', '.join('*(%s)a[%d]' % (g.Ty('ptr', to=g.decay(pt)).render(), k) for k, (pn, pt) in enumerate(t.params))
        conv = '(long long)(intptr_t)' if rr.kind == 'ptr' else '(long long)'
        w('static long long s_%s(void *f, void *const *a) {' % name)
        if not t.params:
            w('    (void)a;')
        if rr.kind == 'base' and rr.name == 'void':
            w('    ((%s)f)(%s);' % (fty, args))
            w('    return 0;')
        else:
            w('    return %s((%s)f)(%s);' % (conv, fty, args))
        w('}')
        sizes = ', '.join('sizeof(%s)' % g.decay(pt).render() for pn, pt in t.params) or '0'
        w('static const unsigned short z_%s[] = {%s};' % (name, sizes))
        rows.append('{%s, s_%s, %d, z_%s}' % (g.c_literal(name), name, len(t.params), name))
    w('')
    w('const crt_stub_t clib_stubs[] = {')
    for r in rows:
        w('    %s,' % r)
    w('};')
    w('const int clib_nstubs = %d;' % len(rows))
    w('/* by library id (0: none) */')
    names = []
    for lib in LIBS:
        so = soname(libdir, lib[3])
        if so == lib[3]:
            so = DEFAULT_SONAMES.get(lib[0], so)
        names.append(so if lib[0] != NCCL or nccl else '')
    w('const char *const clib_sonames[] = {"", %s};' % ', '.join(g.c_literal(n) for n in names))
    w('const char *const clib_names[] = {"", %s};' % ', '.join(g.c_literal(lib[1]) for lib in LIBS))
    with open(os.path.join(out, 'clib_stubs.c'), 'w') as f:
        f.write('\n'.join(L) + '\n')


def write_ref(out):
    L = ['/* Generated by tools/gen_cuda_libs.py: the device-library types as g++ sees the real headers. */',
         '#include <curand_kernel.h>', '#include <cuda_fp16.h>', '#include <cuda_bf16.h>', '#include <cuComplex.h>',
         '#include <cufft.h>', '#include "runtime/toolkit/cuda_lib_table.h"',
         'extern "C" const crt_struct_t clib_ref_structs[] = {']
    for t in REF_TYPES:
        L.append('    {%s, sizeof(%s), alignof(%s)},' % (g.c_literal(t), t, t))
    L.append('};')
    L.append('extern "C" const int clib_ref_nstructs = sizeof clib_ref_structs / sizeof clib_ref_structs[0];')
    with open(os.path.join(out, 'clib_ref.cc'), 'w') as f:
        f.write('\n'.join(L) + '\n')


if __name__ == '__main__':
    main()
