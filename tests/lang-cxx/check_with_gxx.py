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
must print its ---- stdout and exit with status 0.

Prints one line per mismatch and, last, "g++ oracle: N passed, N failed,
N skipped"; exits 1 on any mismatch (2 where g++ is missing).
"""
import argparse
import concurrent.futures
import glob
import os
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


def skip_reason(case):
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


def norm(text):
    return text.rstrip("\n")


def build_prelude(tmp):
    hdr = os.path.join(tmp, "prelude.h")
    with open(hdr, "w") as f:
        f.write("".join(f"#include <{h}>\n" for h in PRELUDE_HEADERS))
    # a precompiled header beside it; without one g++ reads the header itself
    subprocess.run(["g++"] + GXX_FLAGS + ["-x", "c++-header", hdr, "-o", hdr + ".gch"],
                   capture_output=True)


def check(case, tmp, idx):
    src = os.path.join(tmp, f"case{idx}.cpp")
    exe = os.path.join(tmp, f"case{idx}")
    with open(src, "w") as f:
        f.write(program_of(case))
    p = subprocess.run(["g++"] + GXX_FLAGS + ["-I", tmp, src, "-o", exe],
                       capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        return f"g++ rejects it:\n{p.stderr[-3000:]}"
    try:
        r = subprocess.run([exe], capture_output=True, text=True, errors="replace",
                           stdin=subprocess.DEVNULL, timeout=30, cwd=tmp)
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
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(lambda ic: check(ic[1], tmp, ic[0]), enumerate(todo)))
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
