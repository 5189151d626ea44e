"""Executes a notebook headless with nbclient on the icuda kernel and shows
each cell with its outputs, as `make run` promises. Exit status 1 if a cell
fails."""
import argparse
import os
import re
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

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
    args = ap.parse_args()
    nb = nbformat.read(args.notebook, as_version=4)
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
    print(f"\n{args.notebook}: all cells ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
