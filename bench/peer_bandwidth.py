"""Peer copy bandwidth from icuda's cells against a raw driver-API program
(bench/peer_bandwidth_raw.c) on the same GPUs, both directions
(docs/performance.md, "Several GPUs"). The cells do what the raw program
does: a buffer of SIZE MiB on GPUs 0 and 1, peer access enabled both ways,
cudaMemcpyPeerAsync ITER times on a stream of the source GPU between two
events (after two to warm up), the synchronous cudaMemcpyPeer timed on the
host, and cudaMemcpyAsync with cudaMemcpyDefault; the best of REPS runs.
Prints each figure, the raw one and the ratio; exits 1 when an
asynchronous copy is below --target of the raw program's (default 0.95).

    make build/bench/peer_bandwidth_raw
    python bench/peer_bandwidth.py [--kernel build/icuda] [--raw build/bench/peer_bandwidth_raw]
                                   [--mib 256] [--iter 20] [--reps 5]"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402

SETUP = """#include <sys/time.h>
size_t bytes = (size_t)MIB << 20;
char *buf[2];
cudaStream_t st[2];
cudaEvent_t e0[2], e1[2];
for (int d = 0; d < 2; d++) {
    cudaSetDevice(d);
    cudaMalloc(&buf[d], bytes);
    cudaMemset(buf[d], d + 1, bytes);
    cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking);
    cudaEventCreate(&e0[d]);
    cudaEventCreate(&e1[d]);
}
int can01 = 0, can10 = 0;
cudaDeviceCanAccessPeer(&can01, 0, 1);
cudaDeviceCanAccessPeer(&can10, 1, 0);
if (can01 && can10) {
    cudaSetDevice(0); cudaDeviceEnablePeerAccess(1, 0);
    cudaSetDevice(1); cudaDeviceEnablePeerAccess(0, 0);
}
double now_ms(void) { struct timeval t; gettimeofday(&t, NULL); return t.tv_sec * 1e3 + t.tv_usec / 1e3; }
/* kind 0: cudaMemcpyPeerAsync, 1: cudaMemcpyPeer, 2: cudaMemcpyAsync (cudaMemcpyDefault) */
double copy_gbs(int s, int kind) {
    int d = 1 - s;
    cudaSetDevice(s);
    if (kind == 1) {
        cudaDeviceSynchronize();
        double t0 = now_ms();
        for (int i = 0; i < ITER; i++) cudaMemcpyPeer(buf[d], d, buf[s], s, bytes);
        /* a device-to-device copy does not wait on the host: the time ends when both GPUs are done */
        cudaDeviceSynchronize(); cudaSetDevice(d); cudaDeviceSynchronize(); cudaSetDevice(s);
        return (double)ITER * bytes / ((now_ms() - t0) * 1e6);
    }
    for (int w = 0; w < 2; w++) cudaMemcpyPeerAsync(buf[d], d, buf[s], s, bytes, st[s]);
    cudaEventRecord(e0[s], st[s]);
    for (int i = 0; i < ITER; i++) {
        if (kind == 0) cudaMemcpyPeerAsync(buf[d], d, buf[s], s, bytes, st[s]);
        else cudaMemcpyAsync(buf[d], buf[s], bytes, cudaMemcpyDefault, st[s]);
    }
    cudaEventRecord(e1[s], st[s]);
    cudaEventSynchronize(e1[s]);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0[s], e1[s]);
    return (double)ITER * bytes / (ms * 1e6);
}"""

KINDS = (("async", 0, "cudaMemcpyPeerAsync"), ("sync", 1, "cudaMemcpyPeer"), ("default", 2, "cudaMemcpyAsync, Default"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--raw", default="build/bench/peer_bandwidth_raw")
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--iter", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--target", type=float, default=0.95)
    a = ap.parse_args()
    raw_out = subprocess.run([a.raw, str(a.mib), str(a.iter), str(a.reps)], capture_output=True, text=True)
    if raw_out.returncode:
        sys.exit(f"{a.raw}: {raw_out.stderr.strip() or raw_out.stdout.strip()}")
    print(raw_out.stdout.splitlines()[0])
    raw = {(m.group(1), m.group(2)): float(m.group(3))
           for m in re.finditer(r"raw (\w+) (\d->\d): ([\d.]+) GB/s", raw_out.stdout)}
    cells = {}
    with support.kernel(a.kernel, check=False) as k:
        support.ok(k, f"#define MIB {a.mib}\n#define ITER {a.iter}")
        support.ok(k, SETUP, t=300)
        for name, kind, _ in KINDS:
            for s in (0, 1):
                best = 0.0
                for _ in range(a.reps):
                    out = support.stdout_of(support.ok(k, f'printf("%.3f\\n", copy_gbs({s}, {kind}));', t=300))
                    best = max(best, float(out.strip()))
                cells[(name, f"{s}->{1 - s}")] = best
    print(f"{'copy':<28} {'way':<5} {'cell GB/s':>10} {'raw GB/s':>10} {'cell/raw':>9}")
    worst = 1.0
    for name, _, label in KINDS:
        for way in ("0->1", "1->0"):
            ref = raw[("sync" if name == "sync" else "async", way)]
            got = cells[(name, way)]
            ratio = got / ref if ref else 0.0
            if name != "sync":
                worst = min(worst, ratio)
            print(f"{label:<28} {way:<5} {got:>10.1f} {ref:>10.1f} {ratio:>9.3f}")
    print(f"asynchronous copies: worst {worst:.3f} of the raw program's (target {a.target})")
    sys.exit(0 if worst >= a.target else 1)


if __name__ == "__main__":
    main()
