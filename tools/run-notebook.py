"""Executes a notebook headless with nbclient on the icuda kernel and shows
each cell with its outputs, as `make run` promises. On a machine without a
GPU the cells tagged `gpu` are left out (and cells needing a feature the
kernel lacks, see tools/notebook_cells.py), and one line says what was
skipped. Exit status 1 if a cell fails."""
import argparse
import os
import re
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import notebook_cells  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def show(nb):
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        print(f"\n\x1b[1mIn [{cell.get('execution_count') or ' '}]:\x1b[0m")
        for line in cell.source.splitlines():
            print("    " + line)
        for out in cell.get("outputs", []):
            kind = out.get("output_type")
            if kind == "stream":
                text = out.get("text", "")
                sys.stdout.write(text if out.get("name") == "stdout" else "\x1b[33m" + text + "\x1b[0m")
            elif kind in ("execute_result", "display_data"):
                print(out.get("data", {}).get("text/plain", "[%s]" % ", ".join(out.get("data", {}))))
            elif kind == "error":
                print("\n".join(out.get("traceback", [])) or f"{out['ename']}: {out['evalue']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("notebook")
    ap.add_argument("--kernel", default="icuda")
    ap.add_argument("--out", help="where to write the executed notebook")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--gpu", choices=("auto", "yes", "no"), default="auto",
                    help="run the cells tagged gpu (auto: where a CUDA device answers)")
    args = ap.parse_args()
    nb = nbformat.read(args.notebook, as_version=4)
    gpu = notebook_cells.gpu_present() if args.gpu == "auto" else args.gpu == "yes"
    have = notebook_cells.probe(notebook_cells.all_needs(nb), args.kernel)
    nb, skipped = notebook_cells.runnable(nb, gpu, have)
    client = NotebookClient(nb, timeout=args.timeout, kernel_name=args.kernel,
                            resources={"metadata": {"path": os.path.dirname(os.path.abspath(args.notebook))}})
    failed = None
    try:
        client.execute()
    except CellExecutionError as e:
        failed = e
    show(nb)
    if args.out:
        nbformat.write(nb, args.out)
    if failed:
        print("\n\x1b[31mthe notebook stopped at an error\x1b[0m: " + ANSI.sub("", str(failed)).splitlines()[0])
        return 1
    if skipped:
        why = "" if gpu else " (no GPU here: device code compiled, host code ran, GPU work left out)"
        print(f"\n{args.notebook}: the other cells ran; {notebook_cells.describe_skips(skipped)}{why}")
    else:
        print(f"\n{args.notebook}: all cells ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
