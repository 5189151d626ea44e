"""Several GPUs (make test-gpu on a machine with two or more): cudaSetDevice
and %device move between them, buffers remember their device, and a launch
refuses a buffer of another device before anything reaches the GPU, unless
peer access lets the current one reach it. With peer access: copies
between GPUs (cudaMemcpyPeer, its async form, cudaMemcpy with
cudaMemcpyDefault), a kernel on GPU 1 reading GPU 0's 256 MiB buffer,
managed memory used by both, and a buffer freed while a kernel of the peer
still reads it (cudaFree waits for it; a later use is the use-after-free
error of any freed buffer). %devices shows the peer matrix, %heap the GPU
of each buffer. NCCL from host cells: communicators of one and two ranks,
every collective and sends and receives in groups, checked against what the
host computes, and the groups icuda refuses. Tests that need two GPUs (or
NCCL, or peer access) skip with the reason where the machine lacks them.

Each test has a kernel of its own: peer access is device-wide state."""
import functools
import re
import unittest

import support
from support import err, kernel, needs_gpu, results, run, stdout_of, timeout

ok = functools.partial(support.ok, t=300)

SCALE = """__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}"""


def gpu_count(k):
    c, msgs = run(k, "int ndev_ = 0;\ncudaGetDeviceCount(&ndev_);\nprintf(\"%d\\n\", ndev_);")
    assert c["status"] == "ok", c
    return int(stdout_of(msgs).strip())


def two_gpus(k):
    n = gpu_count(k)
    if n < 2:
        raise unittest.SkipTest(f"needs two GPUs: this machine has {n}")


def peer_capable(k):
    """Both directions of peer access between GPUs 0 and 1, or a skip."""
    two_gpus(k)
    out = stdout_of(ok(k, "int a01 = 0, a10 = 0;\ncudaDeviceCanAccessPeer(&a01, 0, 1);\n"
                          "cudaDeviceCanAccessPeer(&a10, 1, 0);\nprintf(\"%d %d\\n\", a01, a10);"))
    if out.strip() != "1 1":
        raise unittest.SkipTest(f"GPUs 0 and 1 have no peer access to each other (cudaDeviceCanAccessPeer: {out.strip()})")


def enable_peers(k):
    ok(k, "cudaSetDevice(0);\ncudaDeviceEnablePeerAccess(1, 0);\ncudaSetDevice(1);\ncudaDeviceEnablePeerAccess(0, 0);")


def shown(msgs):
    """What a magic printed: its stream text and its displays' text/plain."""
    return stdout_of(msgs) + "".join(results(msgs, "display_data"))


@needs_gpu
def test_buffers_and_launches_per_device():
    with kernel() as k:
        ndev = gpu_count(k)
        if ndev < 2:
            print("one GPU here: multi-GPU paths not exercised")
            c, _ = run(k, "cudaSetDevice(1);")
            assert c["status"] == "error" and c["ename"] == "cudaErrorInvalidDevice", c
            return
        ok(k, SCALE)
        setup = """int n = 1024;
float *h = (float *)malloc(n * sizeof(float));
for (int i = 0; i < n; i++) h[i] = i;
float *a, *b;
cudaSetDevice(0);
cudaMalloc(&a, n * sizeof(float));
cudaMemcpy(a, h, n * sizeof(float), cudaMemcpyHostToDevice);
cudaSetDevice(1);
cudaMalloc(&b, n * sizeof(float));
cudaMemcpy(b, h, n * sizeof(float), cudaMemcpyHostToDevice);
int cur = -1;
cudaGetDevice(&cur);
printf("current %d\\n", cur);"""
        assert "current 1" in stdout_of(ok(k, setup))
        # on device 1, a launch with device 0's buffer is refused (no peer access yet), and says how to get it
        e, v = err(k, "scale<<<4, 256>>>(a, 2.0f, n);")
        assert e == "cudaErrorInvalidDevicePointer" and "lives on device 0" in v and "cudaDeviceEnablePeerAccess" in v, v
        # each device runs the kernel on its own buffer
        out = stdout_of(ok(k, """scale<<<4, 256>>>(b, 3.0f, n);
cudaMemcpy(h, b, n * sizeof(float), cudaMemcpyDeviceToHost);
printf("%g\\n", h[10]);"""))
        assert out.strip() == "30", out
        out = stdout_of(ok(k, """%device 0
for (int i = 0; i < n; i++) h[i] = i;
scale<<<4, 256>>>(a, 2.0f, n);
cudaMemcpy(h, a, n * sizeof(float), cudaMemcpyDeviceToHost);
printf("%g\\n", h[10]);"""))
        assert out.strip().endswith("20"), out


@needs_gpu
def test_devices_shows_the_peer_matrix():
    with kernel() as k:
        two_gpus(k)
        text = shown(ok(k, "%devices"))
        assert "peer access" in text, text
        line = re.search(r"^  0 -> 1: (.*)$", text, re.M)
        assert line and re.search(r"^  1 -> 0: ", text, re.M), text
        assert re.search(r"NVLink|PCIe|link not known", line.group(1)), line.group(1)
        if line.group(1).startswith("yes"):
            assert "not enabled in this session" in line.group(1), line.group(1)
            enable_peers(k)
            text = shown(ok(k, "%devices"))
            assert re.search(r"^  0 -> 1: yes, .*; enabled$", text, re.M), text
            assert re.search(r"^  1 -> 0: yes, .*; enabled$", text, re.M), text
        # the rich form is a matrix
        msgs = ok(k, "%devices")
        html = "".join(m["content"]["data"].get("text/html", "") for m in msgs if m["msg_type"] == "display_data")
        assert "<th>GPU 1</th>" in html and "Peer access" in html, html[:2000]


COPY_SETUP = """int n = 1 << 22;  /* 16 MiB of floats */
size_t bytes = n * sizeof(float);
float *h = (float *)malloc(bytes), *back = (float *)malloc(bytes);
for (int i = 0; i < n; i++) h[i] = (float)(i % 9973);
float *a0, *a1, *b1;
cudaSetDevice(0);
cudaMalloc(&a0, bytes);
cudaMemcpy(a0, h, bytes, cudaMemcpyHostToDevice);
cudaSetDevice(1);
cudaMalloc(&a1, bytes);
cudaMalloc(&b1, bytes);
int same(const float *x, const float *y, int m) {
    for (int i = 0; i < m; i++) if (x[i] != y[i]) return 0;
    return 1;
}"""


@needs_gpu
@timeout(400)
def test_peer_copies_sync_async_and_default():
    with kernel() as k:
        two_gpus(k)
        ok(k, COPY_SETUP)
        # without peer access the copies still work (the driver stages them)
        out = stdout_of(ok(k, """cudaMemset(a1, 0, bytes);
cudaMemcpyPeer(a1, 1, a0, 0, bytes);
cudaMemcpy(back, a1, bytes, cudaMemcpyDeviceToHost);
printf("peer %d\\n", same(h, back, n));"""))
        assert out.strip() == "peer 1", out
        peer_capable(k)
        enable_peers(k)
        out = stdout_of(ok(k, """cudaMemset(a1, 0, bytes);
cudaMemcpyPeer(a1, 1, a0, 0, bytes);
cudaMemcpy(back, a1, bytes, cudaMemcpyDeviceToHost);
printf("peer %d\\n", same(h, back, n));
cudaStream_t s1;
cudaStreamCreate(&s1);  /* on device 1 */
cudaMemset(b1, 0, bytes);
cudaMemcpyPeerAsync(b1, 1, a0, 0, bytes, s1);
cudaStreamSynchronize(s1);
cudaMemcpy(back, b1, bytes, cudaMemcpyDeviceToHost);
printf("async %d\\n", same(h, back, n));
/* unified addresses: cudaMemcpyDefault (and DeviceToDevice) between GPUs, both ways */
cudaMemset(a1, 0, bytes);
cudaMemcpy(a1, a0, bytes, cudaMemcpyDefault);
cudaMemcpy(back, a1, bytes, cudaMemcpyDeviceToHost);
printf("default %d\\n", same(h, back, n));
cudaSetDevice(0);
cudaMemset(a0, 0, bytes);
cudaMemcpy(a0, b1, bytes, cudaMemcpyDeviceToDevice);
cudaMemcpy(back, a0, bytes, cudaMemcpyDeviceToHost);
printf("back %d\\n", same(h, back, n));
cudaMemcpyAsync(a0, a1, bytes, cudaMemcpyDefault, 0);
cudaDeviceSynchronize();
cudaMemcpy(back, a0, bytes, cudaMemcpyDeviceToHost);
printf("default async %d\\n", same(h, back, n));"""))
        assert out.split("\n")[:5] == ["peer 1", "async 1", "default 1", "back 1", "default async 1"], out
        # the copies check their sizes against the buffers on either GPU
        e, v = err(k, "cudaMemcpyPeer(a1, 1, a0, 0, bytes + 4);")
        assert e == "cudaErrorInvalidValue", (e, v)
        e, v = err(k, "cudaMemcpyPeer(a1, 1, a0, 7, bytes);")
        assert e == "cudaErrorInvalidDevice" and "device 7" in v, (e, v)


PEER_KERNELS = """__global__ void iota(float *a, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) a[i] = (float)(i % 1000003);
}
__global__ void check_peer(const float *a, long n, unsigned long long *bad) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n && a[i] != (float)(i % 1000003)) atomicAdd(bad, 1ULL);
}
__global__ void add_one(float *m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) m[i] += 1.0f;
}"""


@needs_gpu
@timeout(400)
def test_a_kernel_on_gpu1_reads_gpu0s_buffer():
    with kernel() as k:
        peer_capable(k)
        ok(k, PEER_KERNELS)
        ok(k, """long n = 64L << 20;  /* 256 MiB of floats on GPU 0 */
float *big;
cudaSetDevice(0);
cudaMalloc(&big, n * sizeof(float));
iota<<<(n + 255) / 256, 256>>>(big, n);
cudaDeviceSynchronize();
unsigned long long *bad, nbad = 1;
cudaSetDevice(1);
cudaMalloc(&bad, sizeof *bad);
cudaMemset(bad, 0, sizeof *bad);""")
        e, v = err(k, "check_peer<<<(n + 255) / 256, 256>>>(big, n, bad);")
        assert "lives on device 0" in v, (e, v)
        ok(k, "cudaDeviceEnablePeerAccess(0, 0);")  # device 1 may now reach device 0
        out = stdout_of(ok(k, """check_peer<<<(n + 255) / 256, 256>>>(big, n, bad);
cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost);
printf("wrong values: %llu\\n", nbad);"""))
        assert out.strip() == "wrong values: 0", out
        # disabled again: refused again, before the GPU
        ok(k, "cudaDeviceDisablePeerAccess(0);")
        e, v = err(k, "check_peer<<<(n + 255) / 256, 256>>>(big, n, bad);")
        assert "lives on device 0" in v, (e, v)


@needs_gpu
@timeout(300)
def test_managed_memory_used_from_both_gpus():
    with kernel() as k:
        peer_capable(k)
        enable_peers(k)
        ok(k, PEER_KERNELS)
        out = stdout_of(ok(k, """int n = 1 << 20;
float *m;
cudaSetDevice(0);
cudaMallocManaged(&m, n * sizeof(float));
for (int i = 0; i < n; i++) m[i] = i % 100;
add_one<<<(n + 255) / 256, 256>>>(m, n);   /* on GPU 0 */
cudaDeviceSynchronize();
cudaSetDevice(1);
add_one<<<(n + 255) / 256, 256>>>(m, n);   /* on GPU 1 */
cudaDeviceSynchronize();
int wrong = 0;
for (int i = 0; i < n; i++) if (m[i] != i % 100 + 2) wrong++;
m[5] = 1000;                               /* the host writes, GPU 0 reads it */
cudaSetDevice(0);
add_one<<<(n + 255) / 256, 256>>>(m, n);
cudaDeviceSynchronize();
printf("%d %g %g\\n", wrong, m[5], m[6]);"""))
        assert out.strip() == "0 1001 9", out


SPIN = """__global__ void slow_double(const float *src, float *dst, int n, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = 2 * src[i];
}"""


@needs_gpu
@timeout(300)
def test_a_buffer_freed_while_a_peer_kernel_reads_it():
    with kernel() as k:
        peer_capable(k)
        enable_peers(k)
        ok(k, SPIN)
        ok(k, """int n = 1 << 20;  /* 4 MiB: a mapping of its own, which the free unmaps */
size_t bytes = n * sizeof(float);
float *h = (float *)malloc(bytes);
for (int i = 0; i < n; i++) h[i] = i % 1000;
float *src, *dst, *mine;
cudaSetDevice(0);
cudaMalloc(&src, bytes);
cudaMemcpy(src, h, bytes, cudaMemcpyHostToDevice);
cudaSetDevice(1);
cudaMalloc(&dst, bytes);
cudaMalloc(&mine, bytes);""")
        # a kernel on GPU 1 spins about a second, then reads GPU 0's buffer;
        # the free on GPU 0 waits for it instead of unmapping under it
        out = stdout_of(ok(k, """slow_double<<<(n + 255) / 256, 256>>>(src, dst, n, 1500000000LL);
cudaSetDevice(0);
cudaError_t fe = cudaFree(src);
cudaSetDevice(1);
cudaMemcpy(h, dst, bytes, cudaMemcpyDeviceToHost);
int wrong = 0;
for (int i = 0; i < n; i++) if (h[i] != 2 * (i % 1000)) wrong++;
printf("%d %d\\n", fe, wrong);"""))
        assert out.strip() == "0 0", out
        # using it after the free is the error every freed buffer gives
        e_peer, v_peer = err(k, "slow_double<<<(n + 255) / 256, 256>>>(src, dst, n, 0);")
        ok(k, "cudaFree(mine);")
        e_own, v_own = err(k, "slow_double<<<(n + 255) / 256, 256>>>(mine, dst, n, 0);")
        assert e_peer == e_own and "freed already" in v_peer and "freed already" in v_own, (e_peer, v_peer, e_own, v_own)
        e, v = err(k, "cudaMemcpyPeer(dst, 1, src, 0, bytes);")
        assert e == "cudaErrorInvalidValue" and "freed" in v, (e, v)
        # the session goes on: the worker did not fault
        out = stdout_of(ok(k, "cudaMemset(dst, 0, bytes);\nprintf(\"alive\\n\");"))
        assert out.strip() == "alive", out


@needs_gpu
def test_heap_says_which_gpu_holds_each_buffer():
    with kernel() as k:
        two_gpus(k)
        ok(k, "float *on0, *on1, *more1;\ncudaSetDevice(0);\ncudaMalloc(&on0, 1 << 20);\ncudaSetDevice(1);\n"
              "cudaMalloc(&on1, 2 << 20);\ncudaMalloc(&more1, 4096);")
        h = shown(ok(k, "%heap"))
        assert re.search(r"^0x[0-9a-f]+\s+on0\s+1\.0 MiB\s+device 0\s", h, re.M), h
        assert re.search(r"^0x[0-9a-f]+\s+on1\s+2\.0 MiB\s+device 1\s", h, re.M), h
        assert "on device 0: 1 buffer, 1.0 MiB" in h and "on device 1: 2 buffers" in h, h
        assert re.search(r"^device 1 \(cudaMemGetInfo\)", h, re.M) and re.search(r"^device 0 \(cudaMemGetInfo\)", h, re.M), h


# ---- NCCL ----

NCCL_HOST = """#include <nccl.h>
int same(const float *x, const float *y, int m) {
    for (int i = 0; i < m; i++) if (x[i] != y[i]) { printf("at %d: %g, not %g\\n", i, x[i], y[i]); return 0; }
    return 1;
}"""


def nccl_ready(k):
    """NCCL's header at build time and its library on this machine, or a skip."""
    c, msgs = run(k, NCCL_HOST)
    if c["status"] != "ok":
        raise unittest.SkipTest("icuda was built without nccl.h")
    c, msgs = run(k, "int nccl_version = 0;\nncclGetVersion(&nccl_version);\nprintf(\"%d\\n\", nccl_version);")
    if c["status"] != "ok":
        raise unittest.SkipTest(f"NCCL cannot run here: {c.get('evalue')}")
    return int(stdout_of(msgs).strip())


@needs_gpu
@timeout(300)
def test_nccl_communicator_of_one_rank():
    with kernel() as k:
        nccl_ready(k)
        out = stdout_of(ok(k, """ncclComm_t one;
int dev0 = 0;
ncclCommInitAll(&one, 1, &dev0);
int cnt = -1, cdev = -1, rank = -1;
ncclCommCount(one, &cnt); ncclCommCuDevice(one, &cdev); ncclCommUserRank(one, &rank);
int n = 4096;
float *x, *y, *h = (float *)malloc(n * sizeof(float)), *back = (float *)malloc(n * sizeof(float));
for (int i = 0; i < n; i++) h[i] = i;
cudaSetDevice(0);
cudaMalloc(&x, n * sizeof(float)); cudaMalloc(&y, n * sizeof(float));
cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
cudaStream_t s;
cudaStreamCreate(&s);
ncclAllReduce(x, y, n, ncclFloat, ncclSum, one, s);   /* one rank: outside a group is fine */
cudaStreamSynchronize(s);
cudaMemcpy(back, y, n * sizeof(float), cudaMemcpyDeviceToHost);
printf("%d %d %d %d\\n", cnt, cdev, rank, same(back, h, n));"""))
        assert out.strip() == "1 0 0 1", out
        # what NCCL would refuse, said before it is sent
        e, v = err(k, "ncclAllReduce(x, y, n + 1, ncclFloat, ncclSum, one, s);")
        assert e == "ncclInvalidArgument" and "room for" in v, (e, v)
        e, v = err(k, "ncclAllReduce(h, y, n, ncclFloat, ncclSum, one, s);")
        assert e == "ncclInvalidArgument" and "host memory" in v, (e, v)
        e, v = err(k, "ncclBroadcast(x, y, n, ncclFloat, 1, one, s);")
        assert e == "ncclInvalidArgument" and "root is 1" in v, (e, v)
        ok(k, "ncclCommDestroy(one);")
        e, v = err(k, "ncclAllReduce(x, y, n, ncclFloat, ncclSum, one, s);")
        assert e == "ncclInvalidArgument" and "not a communicator this session made" in v, (e, v)
        if gpu_count(k) == 1:  # a second GPU missing is a clear error
            e, v = err(k, "ncclComm_t two[2];\nncclCommInitAll(two, 2, NULL);")
            assert e == "ncclInvalidArgument" and "this machine has 1 GPU" in v, (e, v)


NCCL_TWO = """int n = 1 << 20;
size_t bytes = n * sizeof(float);
ncclComm_t comms[2];
ncclCommInitAll(comms, 2, NULL);
float *send[2], *recv[2];
cudaStream_t s[2];
float *h = (float *)malloc(2 * bytes), *want = (float *)malloc(2 * bytes), *back = (float *)malloc(2 * bytes);
for (int d = 0; d < 2; d++) {
    cudaSetDevice(d);
    cudaMalloc(&send[d], bytes);
    cudaMalloc(&recv[d], 2 * bytes);
    for (int i = 0; i < n; i++) h[i] = (d + 1) * 1000 + i % 101;
    cudaMemcpy(send[d], h, bytes, cudaMemcpyHostToDevice);
    cudaStreamCreate(&s[d]);
}
float v0(int i) { return 1000 + i % 101; }
float v1(int i) { return 2000 + i % 101; }
void wait_both(void) { for (int d = 0; d < 2; d++) { cudaSetDevice(d); cudaStreamSynchronize(s[d]); } }
int got(int d, int m, const float *expect) {
    cudaSetDevice(d);
    cudaMemcpy(back, recv[d], m * sizeof(float), cudaMemcpyDeviceToHost);
    return same(back, expect, m);
}"""


@needs_gpu
@timeout(400)
def test_nccl_collectives_on_two_gpus():
    with kernel() as k:
        two_gpus(k)
        nccl_ready(k)
        ok(k, NCCL_TWO)
        out = stdout_of(ok(k, """int cnt = 0, dev1 = -1, rank1 = -1;
ncclCommCount(comms[1], &cnt); ncclCommCuDevice(comms[1], &dev1); ncclCommUserRank(comms[1], &rank1);
printf("%d %d %d\\n", cnt, dev1, rank1);
/* all-reduce */
ncclGroupStart();
for (int d = 0; d < 2; d++) ncclAllReduce(send[d], recv[d], n, ncclFloat, ncclSum, comms[d], s[d]);
ncclGroupEnd();
wait_both();
for (int i = 0; i < n; i++) want[i] = v0(i) + v1(i);
printf("allreduce %d %d\\n", got(0, n, want), got(1, n, want));
/* broadcast from rank 1 */
ncclGroupStart();
for (int d = 0; d < 2; d++) ncclBroadcast(send[d], recv[d], n, ncclFloat, 1, comms[d], s[d]);
ncclGroupEnd();
wait_both();
for (int i = 0; i < n; i++) want[i] = v1(i);
printf("broadcast %d %d\\n", got(0, n, want), got(1, n, want));
/* reduce (max) to rank 0 */
ncclGroupStart();
for (int d = 0; d < 2; d++) ncclReduce(send[d], recv[d], n, ncclFloat, ncclMax, 0, comms[d], s[d]);
ncclGroupEnd();
wait_both();
for (int i = 0; i < n; i++) want[i] = v1(i);
printf("reduce %d\\n", got(0, n, want));
/* all-gather: rank r's n/2 elements at r * n/2 */
int m = n / 2;
ncclGroupStart();
for (int d = 0; d < 2; d++) ncclAllGather(send[d], recv[d], m, ncclFloat, comms[d], s[d]);
ncclGroupEnd();
wait_both();
for (int i = 0; i < m; i++) { want[i] = v0(i); want[m + i] = v1(i); }
printf("allgather %d %d\\n", got(0, n, want), got(1, n, want));
/* reduce-scatter: rank r gets the sums of block r */
ncclGroupStart();
for (int d = 0; d < 2; d++) ncclReduceScatter(send[d], recv[d], m, ncclFloat, ncclSum, comms[d], s[d]);
ncclGroupEnd();
wait_both();
float *want1 = want + m;
for (int i = 0; i < m; i++) { want[i] = v0(i) + v1(i); want1[i] = v0(m + i) + v1(m + i); }
printf("reducescatter %d %d\\n", got(0, m, want), got(1, m, want1));
/* a halo exchange: each rank sends its first 1024 elements to the other */
ncclGroupStart();
for (int d = 0; d < 2; d++) {
    ncclSend(send[d], 1024, ncclFloat, 1 - d, comms[d], s[d]);
    ncclRecv(recv[d], 1024, ncclFloat, 1 - d, comms[d], s[d]);
}
ncclGroupEnd();
wait_both();
for (int i = 0; i < 1024; i++) want[i] = v1(i);
int g0 = got(0, 1024, want);
for (int i = 0; i < 1024; i++) want[i] = v0(i);
printf("sendrecv %d %d\\n", g0, got(1, 1024, want));"""))
        assert out.split("\n")[:7] == ["2 1 1", "allreduce 1 1", "broadcast 1 1", "reduce 1", "allgather 1 1",
                                       "reducescatter 1 1", "sendrecv 1 1"], out
        # one rank alone would wait for the other forever: refused outside a group ...
        e, v = err(k, "ncclAllReduce(send[0], recv[0], n, ncclFloat, ncclSum, comms[0], s[0]);")
        assert e == "ncclInvalidUsage" and "between ncclGroupStart() and ncclGroupEnd()" in v, (e, v)
        # ... and a group without rank 1 is refused at its end, nothing sent; the next group works
        e, v = err(k, "ncclGroupStart();\nncclAllReduce(send[0], recv[0], n, ncclFloat, ncclSum, comms[0], s[0]);\n"
                      "ncclGroupEnd();")
        assert e == "ncclInvalidUsage" and "nothing on rank 1's" in v and "nothing of the group reached NCCL" in v, v
        e, v = err(k, "ncclGroupStart();\nncclSend(send[0], 16, ncclFloat, 1, comms[0], s[0]);\nncclGroupEnd();")
        assert e == "ncclInvalidUsage" and "no ncclRecv" in v, v
        # a stream of the other GPU, a buffer of the other GPU
        e, v = err(k, "ncclGroupStart();\nncclAllReduce(send[0], recv[0], n, ncclFloat, ncclSum, comms[0], s[1]);")
        assert e == "ncclInvalidArgument" and "made on device 1" in v, v
        e, v = err(k, "ncclGroupStart();\nncclAllReduce(send[1], recv[0], n, ncclFloat, ncclSum, comms[0], s[0]);")
        assert e == "ncclInvalidArgument" and "lives on device 1" in v, v
        out = stdout_of(ok(k, """ncclGroupStart();
for (int d = 0; d < 2; d++) ncclAllReduce(send[d], recv[d], n, ncclFloat, ncclSum, comms[d], s[d]);
ncclGroupEnd();
wait_both();
for (int i = 0; i < n; i++) want[i] = v0(i) + v1(i);
printf("%d %d\\n", got(0, n, want), got(1, n, want));
for (int d = 0; d < 2; d++) ncclCommDestroy(comms[d]);"""))
        assert out.strip() == "1 1", out


@needs_gpu
@timeout(400)
def test_nccl_init_rank_in_a_group():
    with kernel() as k:
        two_gpus(k)
        nccl_ready(k)
        out = stdout_of(ok(k, """ncclUniqueId id;
ncclGetUniqueId(&id);
ncclComm_t c[2];
ncclGroupStart();
for (int d = 0; d < 2; d++) { cudaSetDevice(d); ncclCommInitRank(&c[d], 2, id, d); }
ncclGroupEnd();
int r0 = -1, r1 = -1, d1 = -1;
ncclCommUserRank(c[0], &r0); ncclCommUserRank(c[1], &r1); ncclCommCuDevice(c[1], &d1);
int n = 1 << 16;
float *x[2], *h = (float *)malloc(n * sizeof(float));
cudaStream_t s[2];
for (int d = 0; d < 2; d++) {
    cudaSetDevice(d);
    cudaMalloc(&x[d], n * sizeof(float));
    for (int i = 0; i < n; i++) h[i] = d + 1;
    cudaMemcpy(x[d], h, n * sizeof(float), cudaMemcpyHostToDevice);
    cudaStreamCreate(&s[d]);
}
ncclGroupStart();
for (int d = 0; d < 2; d++) ncclAllReduce(x[d], x[d], n, ncclFloat, ncclSum, c[d], s[d]);  /* in place */
ncclGroupEnd();
int right = 1;
for (int d = 0; d < 2; d++) {
    cudaSetDevice(d);
    cudaStreamSynchronize(s[d]);
    cudaMemcpy(h, x[d], n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) if (h[i] != 3) right = 0;
}
printf("%d %d %d %d\\n", r0, r1, d1, right);"""))
        assert out.strip() == "0 1 1 1", out
        # an id is good for one communicator; a group missing a rank would wait forever; two ranks on one GPU
        e, v = err(k, "ncclComm_t again;\nncclGroupStart();\nncclCommInitRank(&again, 2, id, 0);")
        assert e == "ncclInvalidUsage" and "made communicators already" in v, (e, v)
        e, v = err(k, "ncclUniqueId id2;\nncclGetUniqueId(&id2);\nncclComm_t c2[2];\nncclGroupStart();\n"
                      "cudaSetDevice(0);\nncclCommInitRank(&c2[0], 2, id2, 0);\nncclGroupEnd();")
        assert e == "ncclInvalidUsage" and "no ncclCommInitRank for rank 1" in v, (e, v)
        e, v = err(k, "ncclUniqueId id3;\nncclGetUniqueId(&id3);\nncclComm_t c3[2];\nncclGroupStart();\n"
                      "cudaSetDevice(0);\nncclCommInitRank(&c3[0], 2, id3, 0);\nncclCommInitRank(&c3[1], 2, id3, 1);")
        assert e == "ncclInvalidUsage" and "both be on device 0" in v, (e, v)
        ok(k, "for (int d = 0; d < 2; d++) ncclCommDestroy(c[d]);")
