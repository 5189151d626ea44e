"""The shape of the source tree that docs/architecture.md describes: includes
point down the layers, no translation unit is too long to read, functions
are declared in headers, and the code cites nothing that is not in it."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODE = ("kernel", "runtime", "magics", "app")
MAX_UNIT_LINES = 1500


def sources(exts):
    for top in CODE:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for name in sorted(names):
                if name.endswith(exts):
                    yield os.path.join(dirpath, name)


def test_includes_point_down_the_layers():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "check_layers.py"), ROOT],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def unit_lines(path, seen=None):
    """Lines of a .c file with the .inc files it includes (transitively)."""
    seen = seen if seen is not None else set()
    seen.add(path)
    text = open(path, encoding="utf-8", errors="replace").read()
    n = text.count("\n")
    for inc in re.findall(r'^\s*#\s*include\s*"([^"]+\.inc)"', text, re.M):
        p = os.path.normpath(os.path.join(os.path.dirname(path), inc))
        if not os.path.exists(p):
            p = os.path.join(ROOT, inc)
        if os.path.exists(p) and p not in seen:
            n += unit_lines(p, seen)
    return n


def test_no_translation_unit_over_the_limit():
    long = [f"{os.path.relpath(p, ROOT)}: {n} lines" for p in sources((".c",))
            if (n := unit_lines(p)) > MAX_UNIT_LINES]
    assert not long, "split these (at most %d lines with their .inc files):\n%s" % (MAX_UNIT_LINES, "\n".join(long))


def test_functions_are_declared_in_headers():
    # an extern declaration of a function inside a .c file hides a
    # dependency from the headers: it belongs in the header of the file
    # that defines the function
    decl = re.compile(r'^\s*extern\s+[^;=]*\w\s*\([^;]*\)\s*;', re.M)
    found = []
    for p in sources((".c",)):
        for m in decl.finditer(open(p, encoding="utf-8", errors="replace").read()):
            found.append(f"{os.path.relpath(p, ROOT)}: {m.group(0).strip()}")
    assert not found, "\n".join(found)


def test_code_cites_nothing_outside_the_repository():
    # a comment states the invariant it protects; a pointer to a design
    # section, an issue or a work session cannot be followed by a reader
    cite = re.compile(r'DESIGN\s*§|\bDESIGN\.md\b|\b[Ii]ssue\s+#?\d+|\b[Ss]ession\s+\d+\b')
    found = []
    tops = CODE + ("tests", "bench", "tools", "docs", "notebooks")
    files = [os.path.join(ROOT, "Makefile"), os.path.join(ROOT, "README.md")]
    for top in tops:
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            if "/corpus" in dirpath or "__pycache__" in dirpath:
                continue
            files += [os.path.join(dirpath, n) for n in names
                      if n.endswith((".c", ".h", ".inc", ".py", ".md", ".sh", ".cases", ".cu"))]
    this = os.path.abspath(__file__)
    for p in files:
        if os.path.abspath(p) == this:
            continue
        for i, line in enumerate(open(p, encoding="utf-8", errors="replace"), 1):
            if cite.search(line):
                found.append(f"{os.path.relpath(p, ROOT)}:{i}: {line.strip()[:100]}")
    assert not found, "%d citations:\n%s" % (len(found), "\n".join(found[:80]))


def test_no_merge_left_unresolved():
    marks = re.compile(r"^(<{7}|>{7}) ", re.M)
    found = []
    for top in CODE + ("tests", "bench", "tools", "docs"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            for n in names:
                p = os.path.join(dirpath, n)
                if n.endswith((".c", ".h", ".inc", ".py", ".md", ".sh", ".txt", ".cases", ".cu")):
                    if marks.search(open(p, encoding="utf-8", errors="replace").read()):
                        found.append(os.path.relpath(p, ROOT))
    for p in ("Makefile", "README.md", "conftest.py"):
        if marks.search(open(os.path.join(ROOT, p)).read()):
            found.append(p)
    assert not found, found


# The base vocabulary every layer writes with, as libc's headers are: checked
# allocation and a cell's output. Small, and rarely changed.
VOCABULARY = {"runtime/base/xalloc.h", "runtime/base/cell_io.h"}


def test_no_header_reaches_a_third_of_the_program():
    # touching a header rebuilds what includes it: no header of the
    # program's own (but its vocabulary) is included by more than a third of
    # its objects. Read from the compiler's dependency files of the build.
    deps = {}
    for top in CODE:
        for dirpath, _, names in os.walk(os.path.join(ROOT, "build", "obj", top)):
            for n in names:
                if n.endswith(".d"):
                    src = os.path.relpath(os.path.join(dirpath, n), os.path.join(ROOT, "build", "obj"))[:-2] + ".c"
                    if os.path.exists(os.path.join(ROOT, src)):
                        deps[src] = set(re.findall(r"(?<!\S)((?:%s)/[\w/]+\.h)" % "|".join(CODE),
                                                   open(os.path.join(dirpath, n)).read()))
    if len(deps) < 50:
        return  # not built: make test builds first
    counts = {}
    for hs in deps.values():
        for h in hs:
            counts[h] = counts.get(h, 0) + 1
    wide = [f"{h}: {c} of {len(deps)}" for h, c in sorted(counts.items()) if c * 3 > len(deps) and h not in VOCABULARY]
    assert not wide, wide
