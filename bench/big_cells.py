"""What a big host cell costs the kernel in memory: for cells of N MB of
`t++;` statements (and other shapes), the kernel's peak resident memory
while the cell is split, lexed, parsed and run (VmHWM, reset before each
cell through /proc/PID/clear_refs), its resident memory after the cell
(VmRSS), and the cost per byte of source, (peak - resident before) / size.
Optionally runs the kernel under an address-space limit (prlimit --as), as
a machine with less memory would. Prints figures; asserts nothing.

Two shapes are frames rather than source (their size is ignored): bigrec,
an unbounded recursion of 60 MiB frames (a MemoryError at the host-memory
limit), and rec40, 40 such frames, each filled, returning normally (what
stays resident after the return).

    python bench/big_cells.py [--kernel build/icuda] [--sizes 1,10,50]
                              [--shape stmt|defining|block|init|expr|func|bigrec|rec40]
                              [--as-limit BYTES]"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402

MB = 1000 * 1000
MiB = 1 << 20


def cell_of(shape, size):
    """A cell of about size bytes of one shape of host code."""
    if shape == "stmt":  # statements at the cell's top level, each an item of its own (t: a session variable)
        body = "t++;\n" * (size // 5)
        return "t = 0;\n" + body + "printf(\"%d\\n\", t);"
    if shape == "defining":  # the same, in a cell that defines a variable: it keeps its syntax tree
        body = "u++;\n" * (size // 5)
        return "int u = 0;\n" + body + "printf(\"%d\\n\", u);"
    if shape == "block":  # the same statements in one block
        body = "t++;\n" * (size // 5)
        return "{ int t = 0;\n" + body + "printf(\"%d\\n\", t); }"
    if shape == "init":  # one initializer of many numbers
        n = size // 2
        return "int big[] = {" + "1," * n + "1};\nprintf(\"%d\\n\", (int)(sizeof big / sizeof big[0]));"
    if shape == "expr":  # one long sum
        n = size // 2
        return "{ long s = 1" + "+1" * n + "; printf(\"%ld\\n\", s); }"
    if shape == "func":  # the statements inside a function, called once
        body = "t++;\n" * (size // 5)
        return "int f() { int t = 0;\n" + body + "return t; }\nprintf(\"%d\\n\", f());"
    if shape == "bigrec":
        return "void bigrec(int n) { char b[60 << 20]; b[n & 1023] = (char)n; bigrec(n + 1); }\nbigrec(0);"
    if shape == "rec40":
        return ("int rec40(int n) { char b[60 << 20]; memset(b, n, sizeof b); return n < 40 ? rec40(n + 1) + b[9] : b[9]; }\n"
                'printf("%d\\n", rec40(1));')
    raise SystemExit(f"unknown shape {shape}")


FRAMES = ("bigrec", "rec40")


def status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--sizes", default="1,10,50", help="cell sizes in MB, comma-separated")
    ap.add_argument("--shape", default="stmt")
    ap.add_argument("--as-limit", type=int, default=0, help="the kernel's address-space limit (prlimit --as)")
    a = ap.parse_args()
    with support.kernel(a.kernel, check=False, address_space=a.as_limit or None) as k:
        pid = k.pid()
        k.execute("int warm = 1, t = 0;", timeout=60)
        print(f"kernel {a.kernel}, shape {a.shape}" + (f", prlimit --as={a.as_limit}" if a.as_limit else ""))
        print(f"{'cell MB':>8} {'before MiB':>10} {'peak MiB':>9} {'after MiB':>9} {'B/B':>6} {'s':>6}  result")
        for s in a.sizes.split(","):
            size = int(float(s) * MB)
            code = cell_of(a.shape, size)
            before = status(pid, "VmRSS")
            with open(f"/proc/{pid}/clear_refs", "w") as f:
                f.write("5")  # VmHWM from here
            t0 = time.time()
            reply, msgs = k.execute(code, timeout=1200)
            dt = time.time() - t0
            peak = status(pid, "VmHWM")
            after = status(pid, "VmRSS")
            c = reply["content"]
            res = c["status"] if c["status"] == "ok" else f"{c['ename']}: {c['evalue'][:90]}"
            if c["status"] == "ok":
                res += " " + support.stdout_of(msgs).strip()[:30]
            per_byte = "-" if a.shape in FRAMES else f"{(peak - before) / len(code):.1f}"
            print(f"{len(code) / MB:8.1f} {before / MiB:10.0f} {peak / MiB:9.0f} {after / MiB:9.0f} "
                  f"{per_byte:>6} {dt:6.1f}  {res}", flush=True)
            if a.shape in FRAMES:  # the same again: nothing kept from the first
                r2, _ = k.execute(code, timeout=1200)
                again = r2["content"]
                print(f"{'':8} again: {again['status']}, resident {status(pid, 'VmRSS') / MiB:.0f} MiB")
            if not k.is_alive():
                print("the kernel died")
                break
        r, _ = k.execute("warm", timeout=60)
        print("session after:", r["content"]["status"],
              "(variable kept)" if r["content"]["status"] == "ok" else r["content"].get("evalue"))


if __name__ == "__main__":
    main()
