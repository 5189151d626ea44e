"""%timeit's accuracy against a raw C event measurement (target: the mean
within 2%). Runs bench/timeit_accuracy.c (raw driver API) for kernels of about
10 us, 100 us and 1.5 ms, times the same launches in icuda with %timeit -o,
runs the raw program again (to see how much the GPU itself drifted), and
prints both figures and their ratio. Asserts nothing about time.

    python bench/timeit_accuracy.py [--kernel build/icuda] [--raw build/bench/timeit_accuracy]
    (make bench-timeit)"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402

BUSY = """__global__ void busy(float *out, int iters) {
    float a = threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++) a = fmaf(a, 1.0001f, 1e-7f);
    if (a == 12345.0f) out[0] = a;
}"""


def raw(path, targets):
    p = subprocess.run([path] + [str(t) for t in targets], capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.exit(f"{path} failed:\n{p.stdout}{p.stderr}")
    rows = []
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            t, iters, grid, block, n, mean, sd, mn = line.split()[1:]
            rows.append(dict(target=float(t), iters=int(iters), grid=int(grid), block=int(block), n=int(n),
                             mean=float(mean), std=float(sd), min=float(mn)))
        else:
            print(line)
    if not rows:
        sys.exit(f"{path} measured nothing (no GPU?):\n{p.stdout}")
    return rows


def cell(k, code):
    reply, msgs = k.execute(code, timeout=600)
    c = reply["content"]
    if c["status"] != "ok":
        sys.exit(f"icuda: {c['ename']}: {c['evalue']}\n" + "\n".join(c["traceback"]))
    return support.stdout_of(msgs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--raw", default="build/bench/timeit_accuracy")
    ap.add_argument("targets", nargs="*", type=float, default=[10, 100, 1500])
    a = ap.parse_args()
    before = raw(a.raw, a.targets)
    got = []
    with support.kernel(a.kernel, check=False) as k:
        cell(k, BUSY)
        cell(k, "float *o; cudaMalloc(&o, sizeof(float));")
        for r in before:
            launch = f"busy<<<{r['grid']}, {r['block']}>>>(o, {r['iters']})"
            print(cell(k, f"%timeit -o t {launch}"), end="")
            out = cell(k, 'printf("%.9e %.9e %.9e %ld %s\\n", t.mean, t.std, t.min, t.n, t.clock);')
            mean, sd, mn, n, clock = out.split(maxsplit=4)
            got.append(dict(mean=float(mean), std=float(sd), min=float(mn), n=int(n), clock=clock.strip()))
    after = raw(a.raw, a.targets)
    print()
    print(f"{'kernel':>10} {'raw (us)':>12} {'drift':>7} {'%timeit (us)':>13} {'n':>7} {'ratio':>7}  within 2%")
    for b, g, f in zip(before, got, after):
        ref = (b["mean"] + f["mean"]) / 2
        drift = abs(b["mean"] - f["mean"]) / ref
        ratio = g["mean"] / ref
        print(f"{b['target']:>8g}us {ref * 1e6:12.3f} {drift * 100:6.2f}% {g['mean'] * 1e6:13.3f} {g['n']:>7} "
              f"{ratio:7.4f}  {'yes' if abs(ratio - 1) <= 0.02 else 'NO'}"
              f"{'' if g['clock'] == 'CUDA events' else ' (clock: ' + g['clock'] + ')'}")


if __name__ == "__main__":
    main()
