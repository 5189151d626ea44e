#!/usr/bin/env python3
"""Checks that #include lines only point down the layers of
docs/architecture.md: a file may include a header of its own folder or of a
layer below its own, never one above or beside it. Prints each offending
include and exits 1; prints a one-line summary and exits 0 when all hold.

    python3 tools/check_layers.py [ROOT]
"""
import os
import re
import sys

# Bottom to top. A file belongs to the longest folder prefix listed; a
# folder not listed is an error (a new folder must be given its place).
LAYERS = [
    ["runtime/base"],
    ["runtime/hostmem", "runtime/cell", "runtime/toolkit"],
    ["runtime/gpu"],
    ["runtime/gpu/client", "runtime/gpu/worker"],
    ["runtime/lang"],          # interp.h, the interpreter's public face: declarations only
    ["runtime/lang/core"],
    ["runtime/lang/eval"],
    ["runtime/lang/front"],
    ["runtime/lang/lib"],
    ["runtime/lang/native"],
    ["runtime/lang/session"],
    ["runtime/device"],
    ["runtime/program"],
    ["runtime/cuda"],
    ["runtime/native"],
    ["magics"],
    ["runtime/engine"],
    ["kernel"],
    ["app"],
]
# Folders on a floor of their own, apart from the rest: the protocol layer
# knows only the base utilities below it.
APART = {"kernel": {"runtime/base"}}
SOURCE = (".c", ".h", ".inc")
TOP = ("kernel", "runtime", "magics", "app")


def rank_of(folder):
    best = None
    for rank, floor in enumerate(LAYERS):
        for prefix in floor:
            if folder == prefix or folder.startswith(prefix + "/"):
                if best is None or len(prefix) > len(best[1]):
                    best = (rank, prefix)
    return best


def main(root):
    bad, count = [], 0
    for top in TOP:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith(SOURCE):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                folder = os.path.dirname(rel)
                here = rank_of(folder)
                if here is None:
                    bad.append(f"{rel}: folder {folder} has no layer in tools/check_layers.py")
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                        if not m:
                            continue
                        inc = m.group(1)
                        target = os.path.normpath(os.path.join(folder, inc))
                        if not os.path.exists(os.path.join(root, target)):
                            target = os.path.normpath(inc)
                        if not os.path.exists(os.path.join(root, target)):
                            continue  # a generated or system header
                        tfolder = os.path.dirname(target)
                        count += 1
                        if tfolder == folder or not tfolder.startswith(TOP):
                            continue
                        there = rank_of(tfolder)
                        ok = there is not None and there[0] < here[0]
                        allowed = APART.get(here[1])
                        if allowed is not None:
                            ok = any(tfolder == a or tfolder.startswith(a + "/") for a in allowed)
                        if not ok:
                            bad.append(f"{rel}:{lineno}: includes {target}, which is not below {here[1]}")
    for b in bad:
        print(b)
    print(f"{count} includes checked, {len(bad)} pointing up or across a layer")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
