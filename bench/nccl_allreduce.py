"""All-reduce bus bandwidth from icuda's cells against a raw program doing
what nccl-tests' all_reduce_perf does (bench/nccl_allreduce_raw.c), same
GPUs, size and iterations (docs/performance.md, "Several GPUs"). The cells:
one communicator of every GPU (ncclCommInitAll), float buffers of SIZE MiB
on each, out of place, sum; WARMUP all-reduces, then ITER timed on the host
between stream synchronisations, each all-reduce a group of one call per
GPU on the session's streams; the best of REPS runs. busbw = algbw *
2 (n - 1) / n. Prints both and the ratio; exits 1 below --target (0.95).

    make build/bench/nccl_allreduce_raw
    python bench/nccl_allreduce.py [--kernel build/icuda] [--raw build/bench/nccl_allreduce_raw]
                                   [--mib 256] [--iter 20] [--reps 5] [--gpus N]"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import support  # noqa: E402

SETUP = """#include <nccl.h>
#include <sys/time.h>
int ngpu = 0;
cudaGetDeviceCount(&ngpu);
if (GPUS > 0 && GPUS < ngpu) ngpu = GPUS;
size_t bytes = (size_t)MIB << 20, count = bytes / sizeof(float);
ncclComm_t comms[16];
float *send[16], *recv[16];
cudaStream_t st[16];
ncclCommInitAll(comms, ngpu, NULL);
for (int d = 0; d < ngpu; d++) {
    cudaSetDevice(d);
    cudaMalloc(&send[d], bytes);
    cudaMalloc(&recv[d], bytes);
    cudaMemset(send[d], 0, bytes);
    cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking);
}
double now_ms(void) { struct timeval t; gettimeofday(&t, NULL); return t.tv_sec * 1e3 + t.tv_usec / 1e3; }
void wait_all(void) { for (int d = 0; d < ngpu; d++) { cudaSetDevice(d); cudaStreamSynchronize(st[d]); } }
void all_reduce(void) {
    ncclGroupStart();
    for (int d = 0; d < ngpu; d++) ncclAllReduce(send[d], recv[d], count, ncclFloat, ncclSum, comms[d], st[d]);
    ncclGroupEnd();
}
/* ms per all-reduce, as all_reduce_perf times it */
double timed(void) {
    for (int i = 0; i < WARMUP; i++) all_reduce();
    wait_all();
    double t0 = now_ms();
    for (int i = 0; i < ITER; i++) all_reduce();
    wait_all();
    return (now_ms() - t0) / ITER;
}"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="build/icuda")
    ap.add_argument("--raw", default="build/bench/nccl_allreduce_raw")
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--iter", type=int, default=20)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--gpus", type=int, default=0, help="0: every GPU")
    ap.add_argument("--target", type=float, default=0.95)
    a = ap.parse_args()
    raw_out = subprocess.run([a.raw, str(a.mib), str(a.iter), str(a.reps), str(a.gpus), str(a.warmup)],
                             capture_output=True, text=True)
    if raw_out.returncode:
        sys.exit(f"{a.raw}: {raw_out.stderr.strip() or raw_out.stdout.strip()}")
    print(raw_out.stdout.strip())
    m = re.search(r"raw all-reduce: (\d+) GPUs.*: ([\d.]+) ms, algbw ([\d.]+) GB/s, busbw ([\d.]+) GB/s", raw_out.stdout)
    ngpu, raw_algbw, raw_busbw = int(m.group(1)), float(m.group(3)), float(m.group(4))
    with support.kernel(a.kernel, check=False) as k:
        support.ok(k, f"#define MIB {a.mib}\n#define ITER {a.iter}\n#define WARMUP {a.warmup}\n#define GPUS {a.gpus}")
        support.ok(k, SETUP, t=600)
        best = min(float(support.stdout_of(support.ok(k, 'printf("%.6f\\n", timed());', t=600)).strip())
                   for _ in range(a.reps))
    bytes_ = a.mib << 20
    algbw = bytes_ / (best * 1e6)
    busbw = algbw * 2 * (ngpu - 1) / ngpu
    # one GPU moves no bytes between GPUs (busbw 0): its algbw is compared instead
    ratio = busbw / raw_busbw if ngpu > 1 and raw_busbw else algbw / raw_algbw if raw_algbw else 0.0
    print(f"cell all-reduce: {ngpu} GPUs, {a.mib} MiB floats, {a.iter} iterations, best of {a.reps}: "
          f"{best:.3f} ms, algbw {algbw:.1f} GB/s, busbw {busbw:.1f} GB/s")
    print(f"cell/raw {'busbw' if ngpu > 1 else 'algbw'}: {ratio:.3f} (target {a.target})")
    sys.exit(0 if ratio >= a.target else 1)


if __name__ == "__main__":
    main()
