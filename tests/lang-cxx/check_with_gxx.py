#!/usr/bin/env python3
"""The g++ oracle for the C++ cases of tests/lang-cxx: each case whose output
C++ defines is built as a program with g++ and its output compared with the
case's ---- stdout (and ---- stderr) sections, so that the cases say what a
C++ compiler says.

    python3 tests/lang-cxx/check_with_gxx.py [-k SUBSTRING] [--show] [FILE.cases ...]

A case becomes a program thus: the headers below are included first (a
precompiled header, for speed), then the case's own #include lines; the
case's lines before a line `// main` go before main, the rest is main's body
(no `// main`: all of it is the body); main is `int main(int argc, char
**argv)`, so argc and argv exist as in a program run without arguments.
No `using` is added: a case that wants `using namespace std;` writes it.

Skipped: cases of several cells, cases with ---- error or ---- value (what
they check is icuda's own), and cases with a `// no-gxx` line. A checked case
must print its ---- stdout and exit with status 0. A case with a line
`// g++ rejects` (an error case for C++ that is no C++) is checked the other
way: g++ must refuse to compile it.

For speed, the cases of one file are first built together, each in a
namespace of its own with main's body as a function, in one program run once
per case; a case that fails that way, or that cannot be batched (it has
#define or a `::name`), is then built alone as above, and that verdict is the
one that counts (--exact builds every case alone).

Prints one line per mismatch and, last, "g++ oracle: N passed, N failed,
N skipped"; exits 1 on any mismatch (2 where g++ is missing).
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

PRELUDE_HEADERS = [
    "cstdio", "cstdlib", "cstring", "cmath", "cstdint", "cstddef", "climits", "cfloat",
    "cassert", "ctime", "iostream", "iomanip", "vector", "string", "algorithm", "numeric",
    "chrono", "random", "memory", "utility",
]
GXX_FLAGS = ["-std=c++17", "-w", "-O0"]


class Case:
    def __init__(self, path, line, title):
        self.path, self.line, self.title = path, line, title
        self.cells = [[]]
        self.sections = {}

    @property
    def code(self):
        return "".join(self.cells[0])


def parse_cases(path):
    """The cases of one file, in the format test_lang reads."""
    cases, cur, target = [], None, None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("=== ") or line == "===\n":
                cur = Case(path, n, line[4:].rstrip("\n"))
                cases.append(cur)
                target = cur.cells[0]
            elif cur is None:
                continue
            elif line.startswith("---- "):
                name = line[5:].rstrip("\n")
                if name == "cell":
                    cur.cells.append([])
                    target = cur.cells[-1]
                else:
                    target = cur.sections.setdefault(name, [])
            else:
                target.append(line)
    return cases


def rejected(case):
    return any(l.strip() == "// g++ rejects" for l in case.cells[0])


def skip_reason(case):
    if rejected(case) and len(case.cells) == 1:
        return None
    if len(case.cells) > 1:
        return "several cells"
    if "error" in case.sections or "value" in case.sections:
        return "icuda's own error or value"
    if any(l.strip() == "// no-gxx" for l in case.cells[0]):
        return "marked // no-gxx"
    if "stdout" not in case.sections and "stderr" not in case.sections:
        return "nothing to compare"
    return None


def program_of(case):
    includes, before, body = [], [], []
    lines = case.cells[0]
    has_main_mark = any(l.strip() == "// main" for l in lines)
    into = before if has_main_mark else body
    for l in lines:
        if l.strip() == "// main":
            into = body
        elif l.lstrip().startswith("#include"):
            includes.append(l)
        else:
            into.append(l)
    out = ['#include "prelude.h"\n'] + includes + ["\n"] + before
    out += ["\nint main(int argc, char **argv) {\n"] + body + ["\n}\n"]
    return "".join(out)


def batchable(case):
    for l in case.cells[0]:
        t = l.strip()
        if t.startswith("#") and not t.startswith("#include"):
            return False
        if re.search(r"(^|[^\w>)\]])::", l) or re.search(r"\b(exit|atexit|_Exit|abort)\s*\(", l):
            return False
    return True


def batch_program(cases):
    """The cases as one program: case i's body is icuda_case_i::icuda_case_main, and
    ICUDA_GXX_CASE=i in the environment picks the one that runs."""
    includes, parts = [], []
    for i, case in enumerate(cases):
        lines = case.cells[0]
        has_main_mark = any(l.strip() == "// main" for l in lines)
        before, body = [], []
        into = before if has_main_mark else body
        for l in lines:
            if l.strip() == "// main":
                into = body
            elif l.lstrip().startswith("#include"):
                includes.append(l)
            else:
                into.append(l)
        parts.append(f"namespace icuda_case_{i} {{\n" + "".join(before) +
                     "\nint icuda_case_main(int argc, char **argv) {\n" + "".join(body) +
                     "\n;return 0;\n}\n}\n")
    disp = "".join(f"    case {i}: return icuda_case_{i}::icuda_case_main(argc, argv);\n" for i in range(len(cases)))
    return ('#include "prelude.h"\n' + "".join(dict.fromkeys(includes)) + "\n" + "".join(parts) +
            "int main(int argc, char **argv) {\n    const char *w = getenv(\"ICUDA_GXX_CASE\");\n"
            "    switch (w ? atoi(w) : -1) {\n" + disp + "    }\n    return 99;\n}\n")


def norm(text):
    return text.rstrip("\n")


def build_prelude(tmp):
    hdr = os.path.join(tmp, "prelude.h")
    with open(hdr, "w") as f:
        f.write("".join(f"#include <{h}>\n" for h in PRELUDE_HEADERS))
    # a precompiled header beside it; without one g++ reads the header itself
    subprocess.run(["g++"] + GXX_FLAGS + ["-x", "c++-header", hdr, "-o", hdr + ".gch"],
                   capture_output=True)


def compile_to(source, tmp, name):
    src = os.path.join(tmp, name + ".cpp")
    exe = os.path.join(tmp, name)
    with open(src, "w") as f:
        f.write(source)
    p = subprocess.run(["g++"] + GXX_FLAGS + ["-I", tmp, src, "-o", exe],
                       capture_output=True, text=True, errors="replace")
    return exe, p


def check(case, tmp, idx):
    """The verdict for one case built alone: None, or what is wrong."""
    exe, p = compile_to(program_of(case), tmp, f"case{idx}")
    if rejected(case):
        return None if p.returncode != 0 else "g++ compiles it, but the case says g++ rejects it"
    if p.returncode != 0:
        return f"g++ rejects it:\n{p.stderr[-3000:]}"
    return run_and_compare(case, exe, tmp, None)


def check_batch(cases, tmp, idx):
    """The cases that pass when built together (an empty set where the batch
    does not compile)."""
    exe, p = compile_to(batch_program(cases), tmp, f"batch{idx}")
    if p.returncode != 0:
        return set()
    return {i for i, c in enumerate(cases) if run_and_compare(c, exe, tmp, i) is None}


def run_and_compare(case, exe, tmp, batch_index):
    env = dict(os.environ)
    if batch_index is not None:
        env["ICUDA_GXX_CASE"] = str(batch_index)
    try:
        r = subprocess.run([exe], capture_output=True, text=True, errors="replace",
                           stdin=subprocess.DEVNULL, timeout=30, cwd=tmp, env=env)
    except subprocess.TimeoutExpired:
        return "the program ran past 30 s"
    problems = []
    for name, got in (("stdout", r.stdout), ("stderr", r.stderr)):
        if name in case.sections:
            want = "".join(case.sections[name])
            if norm(want) != norm(got):
                problems.append(f"{name} differs\n--- want\n{norm(want)}\n--- g++ gives\n{norm(got)}")
    if r.returncode != 0:
        problems.append(f"the program exits with status {r.returncode}")
    return "\n".join(problems) or None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", dest="filter", help="only cases whose title has this")
    ap.add_argument("--show", action="store_true", help="print each checked case's program")
    ap.add_argument("--exact", action="store_true", help="build every case alone (slower)")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if not shutil.which("g++"):
        print("g++ oracle: g++ is not installed")
        return 2
    files = args.files or sorted(glob.glob(os.path.join(HERE, "*.cases")))
    cases = [c for f in files for c in parse_cases(f)]
    if args.filter:
        cases = [c for c in cases if args.filter in c.title]
    todo, skipped = [], 0
    for c in cases:
        if skip_reason(c):
            skipped += 1
        else:
            todo.append(c)
    passed = failed = 0
    tmp = tempfile.mkdtemp(prefix="icuda-gxx-")
    try:
        build_prelude(tmp)
        results = [None] * len(todo)
        alone = list(range(len(todo)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            if not args.exact:
                groups = {}
                for i, c in enumerate(todo):
                    if batchable(c) and not rejected(c):
                        groups.setdefault(c.path, []).append(i)
                batches = list(groups.values())
                passed_sets = pool.map(lambda jb: check_batch([todo[i] for i in jb[1]], tmp, jb[0]),
                                       enumerate(batches))
                ok = {b[k] for b, ps in zip(batches, passed_sets) for k in ps}
                alone = [i for i in range(len(todo)) if i not in ok]
            for i, r in zip(alone, pool.map(lambda i: check(todo[i], tmp, i), alone)):
                results[i] = r
        for c, problem in zip(todo, results):
            rel = os.path.relpath(c.path)
            if args.show:
                print(f"==== {rel}:{c.line}: {c.title}\n{program_of(c)}")
            if problem:
                failed += 1
                print(f"MISMATCH {rel}:{c.line}: {c.title}\n{problem}\n")
            else:
                passed += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"g++ oracle: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
