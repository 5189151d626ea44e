#!/usr/bin/env python3
"""Writes notebooks/*.ipynb from their sources in tools/notebooks/*.txt.

A source is a list of cells, each opened by a line starting with `%%%`:

    %%% md                         a markdown cell
    %%% code                       a code cell
    %%% code gpu                   ... that needs a GPU (tag `gpu`)
    %%% code raises-exception      ... that must fail (tag `raises-exception`)
    %%% code needs=plot,save       ... that needs features still being built
                                   (metadata icuda.needs; see notebook_cells.py)

Words after `code` may be combined. Outputs are empty and cell ids are
derived from the position, so the output is the same on every run.

    python3 tools/make_notebooks.py           write every notebook
    python3 tools/make_notebooks.py --check   exit 1 if a notebook differs from its source
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOURCES = os.path.join(HERE, "notebooks")
OUT = os.path.join(ROOT, "notebooks")
KERNELSPEC = {"name": "icuda", "display_name": "CUDA C (icuda)", "language": "cuda"}
LANGUAGE_INFO = {"name": "cuda", "mimetype": "text/x-cuda", "file_extension": ".cu"}


def source_lines(text):
    lines = text.split("\n")
    return [l + "\n" for l in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def parse(path):
    """The cells of one source file: [(kind, words, text)]."""
    cells, head, body = [], None, []

    def flush():
        if head is not None:
            cells.append((head[0], head[1:], "\n".join(body).strip("\n")))

    with open(path) as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            if line.startswith("%%% "):
                flush()
                head, body = line[4:].split(), []
                if head[0] not in ("md", "code"):
                    raise SystemExit(f"{path}:{n}: a cell is 'md' or 'code', not {head[0]!r}")
            elif head is None:
                if line.strip():
                    raise SystemExit(f"{path}:{n}: text before the first %%% line")
            else:
                body.append(line)
    flush()
    return cells


def build(path):
    nb_cells = []
    for i, (kind, words, text) in enumerate(parse(path)):
        cell = {"id": f"cell-{i:02d}", "cell_type": "markdown" if kind == "md" else "code",
                "metadata": {}, "source": source_lines(text)}
        if kind == "code":
            tags, needs = [], []
            for w in words:
                if w.startswith("needs="):
                    needs += [x for x in w[6:].split(",") if x]
                elif w in ("gpu", "raises-exception"):
                    tags.append(w)
                else:
                    raise SystemExit(f"{path}: cell {i}: unknown mark {w!r}")
            if tags:
                cell["metadata"]["tags"] = tags
            if needs:
                cell["metadata"]["icuda"] = {"needs": needs}
            cell["execution_count"] = None
            cell["outputs"] = []
        elif words:
            raise SystemExit(f"{path}: cell {i}: a markdown cell takes no marks")
        nb_cells.append(cell)
    nb = {"cells": nb_cells,
          "metadata": {"kernelspec": KERNELSPEC, "language_info": LANGUAGE_INFO},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for path in sorted(glob.glob(os.path.join(SOURCES, "*.txt"))):
        name = os.path.splitext(os.path.basename(path))[0] + ".ipynb"
        target = os.path.join(OUT, name)
        text = build(path)
        old = open(target).read() if os.path.exists(target) else None
        if old == text:
            continue
        if check:
            stale.append(name)
        else:
            with open(target, "w") as f:
                f.write(text)
            print("wrote notebooks/" + name)
    if stale:
        print("out of date (run tools/make_notebooks.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
