#!/usr/bin/env python3
"""The CUDA runtime API as icuda knows it, read from the toolkit's headers.

Runs at build time (make): the C preprocessor expands cuda_runtime_api.h
(with driver_types.h, vector_types.h and the other headers it pulls in) as
a C program would see it, and this script reads the declarations from that
output, so a new CUDA release needs no hand edits. It writes three C files:

  crt_decls.c  the declarations host cells see (types, enums, structs,
               object-like macros), as text the interpreter parses
               (runtime/lang/lib/builtins_cuda.c);
  crt_table.c  every function of cuda_runtime_api.h with its parameters
               classified for forwarding (runtime/cuda/cuda_forward.c),
               and, compiled against the headers, the true size of every
               parameter, struct and field and the value of every
               enumerator and constant (the tests compare the interpreter's
               layouts with these);
  crt_stubs.c  for the GPU worker: one typed caller per function, so a
               call forwarded with its arguments as bytes reaches
               libcudart with the toolkit's own calling convention
               (structs and floats by value included).

Only the standard library is used. Usage:
  gen_cuda_api.py --cc CC --cuda /usr/local/cuda --out build/gen
"""
import argparse
import os
import re
import subprocess
import sys

HEADERS = ('driver_types.h', 'vector_types.h', 'surface_types.h', 'texture_types.h', 'device_types.h',
           'cuda_runtime_api.h', 'library_types.h', 'driver_functions.h', 'vector_functions.h',
           'vector_functions.hpp', 'cuda_profiler_api.h')
SKIP_TYPES = {'dim3'}
SYSTEM_TYPEDEFS = {'size_t': 'unsigned long', 'ptrdiff_t': 'long', 'int8_t': 'signed char', 'int16_t': 'short',
                   'int32_t': 'int', 'int64_t': 'long', 'uint8_t': 'unsigned char', 'uint16_t': 'unsigned short',
                   'uint32_t': 'unsigned int', 'uint64_t': 'unsigned long', 'intptr_t': 'long',
                   'uintptr_t': 'unsigned long'}  # the interpreter's own (launch configurations know it)

TOKRE = re.compile(r'''
  (?P<ws>\s+)
| (?P<id>[A-Za-z_]\w*)
| (?P<num>(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)[uUlLfF]*)
| (?P<str>"(?:\\.|[^"\\])*")
| (?P<chr>'(?:\\.|[^'\\])*')
| (?P<p>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=?:;,.(){}\[\]])
''', re.X)

QUALS = {'const', 'volatile', 'restrict', '__restrict', '__restrict__'}
BASEWORDS = {'void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', '_Bool', 'bool'}
STORAGE = {'typedef', 'extern', 'static', 'inline', '__inline', '__inline__', '__extension__'}


def die(msg):
    sys.stderr.write('gen_cuda_api.py: %s\n' % msg)
    sys.exit(1)


def tokenize(text):
    out = []
    pos = 0
    while pos < len(text):
        m = TOKRE.match(text, pos)
        if not m:
            die('cannot read the preprocessed headers near %r' % text[pos:pos + 40])
        pos = m.end()
        if m.lastgroup != 'ws':
            out.append(m.group())
    return out


class Ty:
    """A C type: kind 'base' (name: 'int', 'unsigned long', 'struct X',
    'enum X', or a typedef name), 'ptr', 'arr' (n: the count as text),
    'fn' (params: [(name, Ty)], variadic)."""

    def __init__(self, kind, name=None, to=None, const=False, n=None, params=None, variadic=False):
        self.kind, self.name, self.to, self.const = kind, name, to, const
        self.n, self.params, self.variadic = n, params, variadic
        self.dflt = None  # a parameter's C++ default argument, as text

    def render(self, name=''):
        """C text declaring name (or an abstract declarator) of this type."""
        t, d = self, name
        while True:
            if t.kind == 'base':
                return ('const ' if t.const else '') + t.name + (' ' + d if d else '')
            if t.kind == 'ptr':
                d = '*' + (' const ' if t.const else '') + d
                t = t.to
            elif t.kind == 'arr':
                if d.startswith('*'):
                    d = '(' + d + ')'
                d = d + '[' + (t.n or '') + ']'
                t = t.to
            else:
                if d.startswith('*'):
                    d = '(' + d + ')'
                ps = ', '.join(p.render(n or '') for n, p in t.params) or 'void'
                if t.variadic:
                    ps += ', ...'
                d = d + '(' + ps + ')'
                t = t.to


class Parser:
    def __init__(self, toks):
        self.t = toks
        self.i = 0
        # the C library's, which the headers use (host cells know them too)
        self.typedefs = {n: Ty('base', u) for n, u in SYSTEM_TYPEDEFS.items()}
        self.structs = {}     # 'struct X' -> [(name or None, Ty, sub)] (sub: nested anonymous body key)
        self.bodies = {}      # synthetic keys of anonymous bodies -> fields
        self.enums = []       # enumerator names, in order
        self.funcs = []       # (name, Ty fn, deprecated)
        self.inlines = {}     # static inline helpers (make_float4 ...): name -> Ty fn
        self.anon = 0

    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else ''

    def next(self):
        v = self.peek()
        self.i += 1
        return v

    def accept(self, v):
        if self.peek() == v:
            self.i += 1
            return True
        return False

    def expect(self, v):
        if not self.accept(v):
            die('expected %r, found %r near %s' % (v, self.peek(), ' '.join(self.t[max(0, self.i - 12):self.i + 5])))

    def skip_attributes(self):
        dep = False
        while self.peek() in ('__attribute__', '__declspec'):
            self.next()
            self.expect('(')
            d = 1
            while d:
                v = self.next()
                if v == 'deprecated':
                    dep = True
                d += (v == '(') - (v == ')')
        return dep

    def specs(self):
        """Declaration specifiers: (storage set, base Ty, deprecated)."""
        storage, words, base, const, dep = set(), [], None, False, False
        while True:
            dep |= self.skip_attributes()
            v = self.peek()
            if v in STORAGE:
                storage.add(self.next())
            elif v in QUALS:
                const |= self.next() == 'const'
            elif v in BASEWORDS:
                words.append(self.next())
            elif v in ('struct', 'union', 'enum') and base is None:
                self.next()
                dep |= self.skip_attributes()
                base = self.tagged(v)
            elif base is None and not words and v in self.typedefs:
                base = Ty('base', self.next())
            else:
                break
        if base is None:
            if not words:
                return None
            base = Ty('base', normalize(words))
        base.const = const
        return storage, base, dep

    def tagged(self, kw):
        tag = None
        if re.match(r'[A-Za-z_]', self.peek()) and self.peek() != '{':
            tag = self.next()
        self.skip_attributes()
        if self.peek() != '{':
            return Ty('base', kw + ' ' + tag)
        self.next()
        if kw == 'enum':
            while not self.accept('}'):
                self.enums.append(self.next())
                self.skip_attributes()
                if self.accept('='):
                    d = 0
                    while d or self.peek() not in (',', '}'):
                        v = self.next()
                        d += (v in '([') - (v in ')]')
                self.accept(',')
            return Ty('base', 'enum ' + tag if tag else 'int')
        fields = []
        while not self.accept('}'):
            sp = self.specs()
            if not sp:
                die("cannot read a member near %s" % " ".join(self.t[self.i - 30:self.i + 8]))
            _, base, _ = sp
            if self.accept(';'):  # an anonymous struct/union member
                fields.append((None, base))
                continue
            while True:
                name, wrap = self.declarator()
                if self.peek() == ':':
                    die('bit-field in %s' % tag)
                fields.append((name, wrap(Ty(base.kind, base.name, const=base.const))))
                if not self.accept(','):
                    break
            self.expect(';')
        self.skip_attributes()
        if not tag:
            self.anon += 1
            tag = '__anon%d' % self.anon
        key = kw + ' ' + tag
        self.structs[key] = fields
        return Ty('base', key)

    def declarator(self):
        """(name or None, wrap): wrap(base) is the declared type."""
        ptrs = []
        while self.accept('*'):
            c = False
            while self.peek() in QUALS or self.peek() == '__attribute__':
                if self.peek() == '__attribute__':
                    self.skip_attributes()
                else:
                    c |= self.next() == 'const'
            ptrs.append(c)
        inner, name = (lambda t: t), None
        if self.peek() == '(' and self.peek(1) in ('*', '(', '__attribute__'):
            self.next()
            self.skip_attributes()
            name, inner = self.declarator()
            self.expect(')')
        elif re.match(r'[A-Za-z_]\w*$', self.peek()) and self.peek() not in QUALS:
            name = self.next()
        sufs = []
        while True:
            if self.accept('['):
                n = []
                while self.peek() != ']':
                    n.append(self.next())
                self.next()
                sufs.append(('arr', ' '.join(n)))
            elif self.peek() == '(':
                sufs.append(('fn',) + self.params())
            else:
                break
        self.skip_attributes()

        def wrap(t):
            for c in ptrs:
                t = Ty('ptr', to=t, const=c)
            for s in reversed(sufs):
                t = Ty('arr', to=t, n=s[1]) if s[0] == 'arr' else Ty('fn', to=t, params=s[1], variadic=s[2])
            return inner(t)
        return name, wrap

    def skip_body(self):
        d = 0
        while True:
            v = self.next()
            d += (v == '{') - (v == '}')
            if not d:
                return

    def params(self):
        self.expect('(')
        ps, variadic = [], False
        if self.peek() == 'void' and self.peek(1) == ')':
            self.i += 2
            return ps, False
        while not self.accept(')'):
            if self.accept('...'):
                variadic = True
                continue
            _, base, _ = self.specs()
            name, wrap = self.declarator()
            t = wrap(base)
            if self.accept('__icuda_dv'):  # a C++ default argument
                self.expect('(')
                d, v = 1, []
                while True:
                    x = self.next()
                    d += (x == '(') - (x == ')')
                    if not d:
                        break
                    v.append(x)
                t.dflt = ' '.join(v)
            ps.append((name, t))
            self.accept(',')
        return ps, variadic

    def top(self, text_out):
        """Reads every top-level declaration; non-function ones go to
        text_out (their token text, for the interpreter)."""
        while self.i < len(self.t):
            start = self.i
            sp = self.specs()
            if sp is None:
                die('cannot read a declaration near %s' % ' '.join(self.t[self.i:self.i + 12]))
            storage, base, dep = sp
            decls = []
            body = False
            if not self.accept(';'):
                while True:
                    name, wrap = self.declarator()
                    decls.append((name, wrap(Ty(base.kind, base.name, const=base.const))))
                    if self.peek() == '{':  # an inline function's definition
                        self.skip_body()
                        body = True
                        break
                    if not self.accept(','):
                        break
                if not body:
                    self.expect(';')
            toks = self.t[start:self.i]
            if decls and decls[0][1].kind == 'fn' and ('static' in storage or body):
                for name, t in decls:
                    self.inlines[name] = t
                continue
            if decls and decls[0][1].kind == 'fn' and 'typedef' not in storage:
                for name, t in decls:
                    self.funcs.append((name, t, dep))
                continue
            if 'typedef' in storage:
                for name, t in decls:
                    self.typedefs[name] = t
            text_out.append(toks)


def normalize(words):
    """One spelling per integer type: 'long int' -> 'long', 'unsigned' -> 'unsigned int'."""
    s = ' '.join(x for x in words if x != 'signed' or len(words) == 1)
    s = re.sub(r'\b(long|short) int\b', r'\1', s)
    return s + ' int' if s in ('unsigned', 'signed') else s or 'int'


def preprocess(cc, cuda):
    # C++ default arguments (cudaStreamWaitEvent(s, e) means flags 0) travel
    # as a marker the parser reads: the header defines __dv only when unset
    src = ('#define __dv(v) __icuda_dv(v)\n#include <cuda_runtime_api.h>\n#include <driver_functions.h>\n'
           '#include <vector_functions.h>\n#include <cuda_profiler_api.h>\n')
    try:
        p = subprocess.run(cc.split() + ['-E', '-dD', '-x', 'c', '-I' + os.path.join(cuda, 'include'), '-'],
                           input=src, capture_output=True, text=True, check=False)
    except OSError as e:
        die('cannot run %s: %s' % (cc, e))
    if p.returncode:
        die('the preprocessor failed on cuda_runtime_api.h:\n' + p.stderr)
    return p.stdout


def split_files(pre):
    """The declarations (text) and object-like macros of the CUDA headers."""
    body, macros, cur = [], [], ''
    for line in pre.split('\n'):
        m = re.match(r'# \d+ "([^"]+)"', line)
        if m:
            cur = os.path.basename(m.group(1))
            continue
        if cur not in HEADERS:
            continue
        if line.startswith('#define '):
            m = re.match(r'#define (\w+) (.+)$', line)
            if m and re.match(r'(cuda|CUDA)', m.group(1)) and m.group(2).strip():
                macros.append((m.group(1), m.group(2).strip()))
            continue
        if line.startswith('#'):
            continue
        body.append(line)
    return '\n'.join(body), macros


def resolve(p, t):
    """t with typedef names replaced by what they name (one level at a time)."""
    seen = 0
    while t.kind == 'base' and t.name in p.typedefs and seen < 20:
        u = p.typedefs[t.name]
        t = Ty(u.kind, u.name, u.to, u.const or t.const, u.n, u.params, u.variadic)
        seen += 1
    return t


INTS = re.compile(r'^(unsigned |signed )?(char|short|int|long|long long|unsigned|_Bool|bool)( int)?$')


def scalar_kind(p, t):
    """'int', 'uint', 'float', 'double', or None."""
    t = resolve(p, t)
    if t.kind != 'base':
        return None
    n = t.name
    if n.startswith('enum ') or n == 'int':
        return 'int'
    if n in ('size_t', 'unsigned long', 'unsigned long long', 'unsigned int', 'unsigned short', 'unsigned char',
             'uint64_t', 'uint32_t', '_Bool', 'bool'):
        return 'uint'
    if n == 'float':
        return 'float'
    if n == 'double':
        return 'double'
    if INTS.match(n):
        return 'uint' if n.startswith('unsigned') else 'int'
    return None


def complete(p, t):
    t = resolve(p, t)
    if t.kind == 'base':
        if t.name.startswith(('struct ', 'union ')):
            return t.name in p.structs
        return t.name != 'void'
    if t.kind == 'fn':
        return False
    if t.kind == 'arr':
        return complete(p, t.to)
    return True


def c_literal(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


def pointer_paths(p, key, prefix, depth=0):
    """Paths (for offsetof) of the pointer-typed fields of struct key, through
    nested structs, unions and small arrays."""
    out = []
    if depth > 6 or key not in p.structs:
        return out
    for name, ft in p.structs[key]:
        path = prefix + ('.' if prefix and name else '') + (name or '')
        rt = resolve(p, ft)
        if rt.kind == 'ptr':
            out.append(path)
        elif rt.kind == 'base' and rt.name in p.structs:
            out += pointer_paths(p, rt.name, path, depth + 1)
        elif rt.kind == 'arr':
            et = resolve(p, rt.to)
            try:
                n = int(rt.n, 0)
            except (TypeError, ValueError):
                n = 0
            if et.kind == 'ptr' or (et.kind == 'base' and et.name in p.structs and pointer_paths(p, et.name, 'x')):
                for k in range(min(n, 16)):
                    sub = '%s[%d]' % (path, k)
                    out += [sub] if et.kind == 'ptr' else pointer_paths(p, et.name, sub, depth + 1)
    return out


def spelled(p, key):
    """How C and host cells name struct key: its tag, or a typedef of an anonymous one."""
    if not key.split(' ', 1)[1].startswith('__anon'):
        return key
    for name, t in p.typedefs.items():
        if t.kind == 'base' and t.name == key:
            return name
    return None


def classify(p, pname, t):
    """A parameter's kind for forwarding, and what its pointer points to."""
    spelled_name = t.name if t.kind == 'base' else None
    if spelled_name == 'cudaStream_t':
        return 'STREAM', None
    if spelled_name == 'cudaEvent_t':
        return 'EVENT', None
    rt = resolve(p, t)
    sk = scalar_kind(p, t)
    if sk:
        return {'int': 'INT', 'uint': 'UINT', 'float': 'FLOAT', 'double': 'DOUBLE'}[sk], None
    if rt.kind == 'base':
        if rt.name in p.structs:
            return 'STRUCT', rt.name
        die('cannot classify parameter %s of type %s' % (pname, t.render()))
    if rt.kind == 'ptr':
        to = resolve(p, rt.to)
        if to.kind == 'fn':
            return 'FNPTR', None
        if t.kind == 'base' and t.name in p.typedefs and not complete(p, rt.to):
            return 'HANDLE', None  # cudaGraph_t, cudaArray_t, ...: the worker's own pointer
        return 'PTR', rt.to
    die('cannot classify parameter %s' % pname)


def pointee_kind(p, pt):
    if pt.kind == 'base' and pt.name == 'cudaStream_t':
        return 'STREAM'
    if pt.kind == 'base' and pt.name == 'cudaEvent_t':
        return 'EVENT'
    r = resolve(p, pt)
    if r.kind == 'base' and r.name == 'void':
        return 'VOID'
    if r.kind == 'base' and r.name == 'char':
        return 'CHAR'
    if r.kind == 'fn':
        return 'FN'
    if scalar_kind(p, pt):
        return 'SCALAR'
    if r.kind == 'base' and r.name.startswith(('struct ', 'union ')):
        return 'STRUCT' if r.name in p.structs else 'OPAQUE'
    if r.kind == 'ptr':
        to = resolve(p, r.to)
        if pt.kind == 'base' and pt.name in p.typedefs and not complete(p, r.to):
            return 'HANDLE'
        return 'DATAPTR' if not (to.kind == 'fn') else 'FN'
    return 'SCALAR'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cc', default='cc')
    ap.add_argument('--cuda', default='/usr/local/cuda')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    pre = preprocess(a.cc, a.cuda)
    text, macros = split_files(pre)
    p = Parser(tokenize(text))
    decl_toks = []
    p.top(decl_toks)
    if len(p.funcs) < 100:
        die('only %d functions found in cuda_runtime_api.h' % len(p.funcs))
    os.makedirs(a.out, exist_ok=True)
    write_decls(a.out, p, decl_toks, macros)
    write_table(a.out, p, macros)
    write_stubs(a.out, p)


# ---- crt_decls.c: the text host cells see ----

def decl_text(toks):
    out, i = [], 0
    while i < len(toks):
        if toks[i] == '__attribute__':  # keep aligned(N), drop the rest
            j, d = i + 2, 1
            while d:
                d += (toks[j] == '(') - (toks[j] == ')')
                j += 1
            inner = toks[i + 3:j - 2]
            if inner and inner[0] in ('aligned', '__aligned__'):
                out += toks[i:j]
            i = j
            continue
        out.append(toks[i])
        i += 1
    s = ' '.join(out)
    return re.sub(r' ?([;,()\[\]]) ?', r'\1', s) + '\n'


def skipped(toks):
    """dim3: the interpreter defines it itself."""
    return 'dim3' in toks and ('struct' in toks and toks[toks.index('struct') + 1] == 'dim3')


def write_decls(out, p, decl_toks, macros):
    macros = list(macros)
    parts = [decl_text(t) for t in decl_toks if not skipped(t)]
    names = set(p.typedefs) | set(p.enums) | {f[0] for f in p.funcs}
    # C++ lets CUDA code name a struct or enum by its tag alone (cudaDeviceProp prop;)
    for key in list(p.structs):
        kw, tag = key.split(' ', 1)
        if not tag.startswith('__anon') and tag not in names and tag not in SKIP_TYPES:
            parts.append('typedef %s %s;\n' % (key, tag))
            names.add(tag)
    for m in re.finditer(r'\benum (\w+)\s*\{', ' '.join(' '.join(t) for t in decl_toks)):
        tag = m.group(1)
        if tag not in names:
            parts.append('typedef enum %s %s;\n' % (tag, tag))
            names.add(tag)
    # make_float4(x, y, z, w), make_cudaExtent(w, h, d) ...: the headers'
    # inline helpers, as compound literals (each fills its struct in order)
    for name, t in sorted(p.inlines.items()):
        r = resolve(p, t.to)
        if not name.startswith('make_') or r.kind != 'base' or r.name not in p.structs:
            continue
        if len(p.structs[r.name]) != len(t.params) and \
                len(list(flat_fields(p, p.structs[r.name]))) != len(t.params):
            continue
        args = ', '.join(pn for pn, _ in t.params)
        vals = ', '.join('(%s)' % pn for pn, _ in t.params)
        macros.append((name + '(' + args + ')', '((%s){%s})' % (t.to.render(), vals)))
    mtext = ''.join('#define %s %s\n' % (n, v) for n, v in macros
                    if n not in ('CUDARTAPI', 'CUDARTAPI_CDECL', 'CUDART_CB', 'CUDART_DEVICE') and not v.startswith('{'))
    with open(os.path.join(out, 'crt_decls.c'), 'w') as f:
        f.write('/* Generated by tools/gen_cuda_api.py from the CUDA headers: do not edit. */\n')
        f.write('const char crt_decl_text[] =\n')
        for s in parts:
            for line in s.splitlines():
                if line.strip():
                    f.write('    %s\n' % c_literal(line.strip() + '\n'))
        f.write('    "";\n')
        f.write('const char crt_macro_text[] =\n')
        for line in mtext.splitlines():
            f.write('    %s\n' % c_literal(line + '\n'))
        f.write('    "";\n')


# ---- crt_table.c: the functions, layouts and values, compiled against the headers ----

def write_table(out, p, macros):
    L = []
    w = L.append
    w('/* Generated by tools/gen_cuda_api.py from the CUDA headers: do not edit. */')
    w('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    w('#include <stddef.h>')
    w('#include <cuda_runtime_api.h>')
    w('#include "runtime/toolkit/cuda_rt_table.h"')
    w('')
    # pointer fields of the structs parameters point to or pass by value
    struct_ix = {}

    def struct_index(key):
        if key in struct_ix:
            return struct_ix[key]
        sp = spelled(p, key)
        paths = pointer_paths(p, key, '') if sp else []
        ix = len(struct_ix)
        struct_ix[key] = ix
        offs = ', '.join('offsetof(%s, %s)' % (sp, x) for x in paths)
        w('static const unsigned short crt_pf%d[] = {%s};' % (ix, offs or '0'))
        return ix
    rows = []
    for name, t, dep in p.funcs:
        prs = []
        for k, (pn, pt) in enumerate(t.params):
            kind, extra = classify(p, pn, pt)
            size = 'sizeof(%s)' % pt.render()
            pk, psize, pconst, fields = 'NONE', '0', 0, -1
            if kind == 'PTR':
                pk = pointee_kind(p, extra)
                pconst = 1 if extra.const else 0
                if complete(p, extra):
                    psize = 'sizeof(%s)' % extra.render()
                r = resolve(p, extra)
                if pk == 'STRUCT':
                    fields = struct_index(r.name)
            elif kind == 'STRUCT':
                fields = struct_index(extra)
            dflt = '1, (long long)(%s)' % pt.dflt if pt.dflt is not None else '0, 0'
            prs.append('{%s, %s, CRT_%s, CRT_PT_%s, %d, %s, %s, %d, %s}' % (
                c_literal(pn or 'arg%d' % (k + 1)), c_literal(pt.render()), kind, pk, pconst, size, psize, fields,
                dflt))
        w('static const crt_param_t crt_p_%s[] = {%s};' % (name, ', '.join(prs) or '{0}'))
        ret = t.to.render()
        rk = 'ERROR' if ret == 'cudaError_t' else 'STRING' if ret == 'const char *' else 'OTHER'
        proto = '%s %s(%s)' % (ret, name, ', '.join(pt.render(pn or '') + (' = ' + pt.dflt if pt.dflt else '')
                                                     for pn, pt in t.params) or 'void')
        rows.append('{%s, %s, CRT_RET_%s, %d, %d, crt_p_%s}' % (c_literal(name), c_literal(proto), rk,
                                                                 len(t.params), 1 if dep else 0, name))
    w('')
    w('const crt_fn_t crt_fns[] = {')
    for r in rows:
        w('    %s,' % r)
    w('};')
    w('const int crt_nfns = %d;' % len(rows))
    w('const crt_ptrfields_t crt_ptrfields[] = {')
    for key, ix in sorted(struct_ix.items(), key=lambda x: x[1]):
        sp = spelled(p, key)
        n = len(pointer_paths(p, key, '')) if sp else 0
        w('    {crt_pf%d, %d},' % (ix, n))
    w('};')
    # layouts: every named struct and union, and its fields
    w('const crt_struct_t crt_structs[] = {')
    fl = []
    for key, fields in p.structs.items():
        sp = spelled(p, key)
        if not sp or sp.split(' ')[-1] in SKIP_TYPES:
            continue
        w('    {%s, sizeof(%s), _Alignof(%s)},' % (c_literal(sp), sp, sp))
        for fname, ft in flat_fields(p, fields):
            fl.append('    {%s, %s, offsetof(%s, %s)},' % (c_literal(sp), c_literal(fname), sp, fname))
    w('};')
    w('const int crt_nstructs = sizeof crt_structs / sizeof crt_structs[0];')
    w('const crt_field_t crt_fields[] = {')
    L.extend(fl)
    w('};')
    w('const int crt_nfields = sizeof crt_fields / sizeof crt_fields[0];')
    w('const crt_const_t crt_consts[] = {')
    for e in p.enums:
        w('    {%s, (long long)%s},' % (c_literal(e), e))
    for n, v in macros:
        if re.match(r'^[\w()\s<>|&~+\-x*]+$', v) and not re.search(r'\b(__\w+|CUDARTAPI\w*)\b', v) \
                and (re.search(r'\d', v) or v in p.enums):
            w('    {%s, (long long)(%s)},' % (c_literal(n), n))
    w('};')
    w('const int crt_nconsts = sizeof crt_consts / sizeof crt_consts[0];')
    with open(os.path.join(out, 'crt_table.c'), 'w') as f:
        f.write('\n'.join(L) + '\n')


def flat_fields(p, fields):
    """Named fields, those of anonymous members included (C reaches them directly)."""
    for name, ft in fields:
        if name:
            yield name, ft
        else:
            r = resolve(p, ft)
            if r.kind == 'base' and r.name in p.structs:
                yield from flat_fields(p, p.structs[r.name])


# ---- crt_stubs.c: the worker's typed callers ----

def write_stubs(out, p):
    L = []
    w = L.append
    w('/* Generated by tools/gen_cuda_api.py from the CUDA headers: do not edit. */')
    w('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
    w('#include <stdint.h>')
    w('#include <cuda_runtime_api.h>')
    w('#include "runtime/gpu/worker/worker_cudart.h"')
    w('')
    rows = []
    for name, t, dep in p.funcs:
        ret = t.to
        rr = resolve(p, ret)
        if rr.kind == 'base' and rr.name in p.structs:
            rows.append('{%s, 0, 0, NULL}' % c_literal(name))
            continue
        fty = Ty('ptr', to=t).render()
        args = ', '.join('*(%s)a[%d]' % (Ty('ptr', to=decay(pt)).render(), k) for k, (pn, pt) in enumerate(t.params))
        conv = '(long long)(intptr_t)' if rr.kind == 'ptr' else '(long long)'
        w('static long long s_%s(void *f, void *const *a) {' % name)
        if not t.params:
            w('    (void)a;')
        w('    return %s((%s)f)(%s);' % (conv, fty, args))
        w('}')
        sizes = ', '.join('sizeof(%s)' % decay(pt).render() for pn, pt in t.params) or '0'
        w('static const unsigned short z_%s[] = {%s};' % (name, sizes))
        rows.append('{%s, s_%s, %d, z_%s}' % (c_literal(name), name, len(t.params), name))
    w('')
    w('const crt_stub_t crt_stubs[] = {')
    for r in rows:
        w('    %s,' % r)
    w('};')
    w('const int crt_nstubs = %d;' % len(rows))
    with open(os.path.join(out, 'crt_stubs.c'), 'w') as f:
        f.write('\n'.join(L) + '\n')


def decay(t):
    if t.kind == 'arr':
        return Ty('ptr', to=t.to)
    if t.kind == 'fn':
        return Ty('ptr', to=t)
    return t


if __name__ == '__main__':
    main()
