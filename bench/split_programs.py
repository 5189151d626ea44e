"""Runs whole CUDA programs split into two cells, as a user pastes them:
everything before main, then main's body. Each program gets a kernel of
its own; a program whose split run fails is run whole too (a pasted
program is a %%program), to tell icuda's failures from the program's.

    python3 bench/split_programs.py [-I DIR ...] PROGRAM.cu|FOLDER ...

A FOLDER stands for the .cu files in it (and in its subfolders, one
program to a folder); each program's own folder and every -I DIR are on
its include path (%include_path). Needs a GPU (make build/icuda
build/icuda-worker first); prints one line a program and the count, and
writes split_programs.json to $OUT when that is set."""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402


def split_at_main(src):
    """(before main, main's body, after main), or None without a main."""
    m = re.search(r"^\s*int\s+main\s*\([^)]*\)\s*\{", src, re.M)
    if not m:
        return None
    depth, j = 1, m.end()
    while j < len(src) and depth:
        if src.startswith("//", j):
            j = src.find("\n", j)
            j = len(src) if j < 0 else j
            continue
        if src.startswith("/*", j):
            e = src.find("*/", j + 2)
            j = len(src) if e < 0 else e + 2
            continue
        c = src[j]
        if c in "\"'":
            k = j + 1
            while k < len(src) and src[k] != c and src[k] != "\n":
                k += 2 if src[k] == "\\" else 1
            j = k + 1
            continue
        depth += c == "{"
        depth -= c == "}"
        j += 1
    return src[:m.start()], src[m.end():j - 1], src[j:]


def programs(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, _, files in sorted(os.walk(p)):
            cus = sorted(f for f in files if f.endswith(".cu"))
            for f in cus:
                if split_at_main(open(os.path.join(root, f), errors="replace").read()):
                    yield os.path.join(root, f)
                    break


def cell(k, code):
    reply, msgs = k.execute(code, timeout=900)
    c = reply["content"]
    return {"status": c["status"], "ename": c.get("ename"), "evalue": (c.get("evalue") or "")[:400],
            "stderr": support.stdout_of(msgs, "stderr")[-400:], "stdout": support.stdout_of(msgs)[-300:]}


def main():
    args, includes = sys.argv[1:], []
    while args and args[0] == "-I":
        includes.append(os.path.abspath(args[1]))
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    kernel_path = os.environ.get("ICUDA_KERNEL", "build/icuda")
    results = {}
    for path in programs(args):
        src = open(path, errors="replace").read()
        parts = split_at_main(src)
        if not parts:
            continue
        path_cell = "%include_path " + " ".join(includes + [os.path.dirname(os.path.abspath(path))])
        t0 = time.time()
        r = {}
        with support.kernel(kernel_path) as k:
            cell(k, path_cell)
            r["before_main"] = cell(k, parts[0])
            if r["before_main"]["status"] == "ok":
                r["main_body"] = cell(k, parts[1] + parts[2])
        r["split"] = r.get("main_body", {}).get("status") == "ok"
        if not r["split"]:
            with support.kernel(kernel_path) as k:
                cell(k, path_cell)
                r["whole"] = cell(k, src)
        r["seconds"] = round(time.time() - t0, 1)
        results[path] = r
        print(f"{path}: {'split ok' if r['split'] else 'split FAILED'} ({r['seconds']} s)", flush=True)
        if not r["split"]:
            print(json.dumps(r, indent=1), flush=True)
    n = sum(r["split"] for r in results.values())
    print(f"{n} of {len(results)} programs run split into two cells")
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "split_programs.json"), "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
