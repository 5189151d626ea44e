"""%resources --block: theoretical occupancy. Without a GPU it is computed
from the kernel's registers and shared memory and the per-SM limits of the
architecture compiled for (ICUDA_ARCH=sm_90 here: an H100's), and says so;
on a GPU it is the driver's, and agrees with
cudaOccupancyMaxActiveBlocksPerMultiprocessor in a host cell."""
import re

import support
from support import displays, error, needs_gpu, ok, shared_kernel, stdout_of, timeout

VECADD = """__global__ void vecadd(double *z, const double *x, const double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}"""

# occupancy computed without a GPU, for an H100's architecture
SM90 = {"ICUDA_ARCH": "sm_90"}

# 48 KiB of static shared memory: with the driver's 1 KiB per block, four
# blocks fill an H100 SM's 228 KiB, whatever the registers
SHARED = """__global__ void rev(float *o) {
    __shared__ float buf[12288];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    o[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}"""


def sm90_blocks(regs, smem, block):
    """The occupancy model worked by hand for compute capability 9.0."""
    warps = (block + 31) // 32
    per_warp = -(-regs * 32 // 256) * 256
    by_regs = (65536 // 4 // per_warp) * 4 // warps
    alloc = -(-(smem + 1024) // 128) * 128
    return min(64 // warps, by_regs, 233472 // alloc, 32)


def test_resources_block_computed_without_a_gpu():
    if support.GPU:
        return  # with a GPU the driver answers: test_resources_block_on_the_gpu_agrees_with_the_runtime_api
    with shared_kernel(env=SM90) as k:
        regs = int(re.search(r"(\d+) registers", stdout_of(ok(k, VECADD))).group(1))
        out = stdout_of(ok(k, "%resources vecadd --block 256"))
        blocks = sm90_blocks(regs, 0, 256)
        assert "max threads per block: 1024" in out, out
        assert f"at 256 threads per block: {blocks} blocks ({blocks * 8} warps) per SM of 64 warps" in out, out
        assert f"computed for sm_90 without a GPU, from the kernel's {regs} registers" in out, out
        assert "compute capability 9.0 in icuda's table" in out, out
        assert "block size with the highest occupancy: 1024 threads, 100% (2 blocks per SM)" in out, out

        ok(k, SHARED)
        out = stdout_of(ok(k, "%resources rev --block 128"))
        assert ("at 128 threads per block: 4 blocks (16 warps) per SM of 64 warps, occupancy 25%, "
                "limited by shared memory") in out, out
        assert "shared memory 4," in out and "49152 B of static shared memory" in out, out
        # one more byte of dynamic shared memory than a block may have without opting in
        out = stdout_of(ok(k, "%resources rev --block 128 --smem 1"))
        assert "no block fits on an SM" in out and "shared memory" in out, out

        ok(k, "template <typename T> __global__ void scale(T *a, T s, int n) { int i = threadIdx.x; if (i < n) a[i] *= s; }")
        out = stdout_of(ok(k, "%resources scale<float> --block 64"))
        assert "an instance of a template kernel" in out and "at 64 threads per block:" in out, out

        reply, msgs = k.execute("%resources")  # without --block: every kernel, as a table
        shown = displays(msgs)
        assert len(shown) == 1 and shown[0]["text/html"].startswith("<table>"), shown
        assert "<td><code>vecadd</code></td>" in shown[0]["text/html"], shown
        out = shown[0]["text/plain"]
        assert "vecadd" in out and "rev" in out and "occupancy" not in out, out


def test_resources_bad_input():
    with shared_kernel(env=SM90) as k:
        ok(k, VECADD)
        for bad, what in (("--block", "--block takes a number"), ("--block 0", "--block takes a number"),
                          ("vecadd --block lots", "--block takes a number"), ("--smem 5", "--smem goes with --block"),
                          ("vecadd --fast", "unknown option --fast"), ("nosuch --block 32", "no kernel named 'nosuch'")):
            c = error(k, "%resources " + bad)
            assert c["ename"] == "UsageError" and what in c["evalue"], (bad, c)
        out = stdout_of(ok(k, "%resources vecadd --block 2048"))
        assert "no block fits on an SM (a block holds at most 1024 threads)" in out, out
        # the runtime call checks its arguments before it needs a GPU
        c = error(k, "int nb; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, vecadd, 0, 0);")
        assert c["ename"] == "cudaErrorInvalidValue" and "blockSize" in c["evalue"], c
        if support.GPU:
            return
        c = error(k, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, vecadd, 256, 0);")
        assert c["ename"] in ("cudaErrorInsufficientDriver", "cudaErrorNoDevice"), c
        out = stdout_of(ok(k, "cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, vecadd, 256); "
                              "printf(\"%d\\n\", e != cudaSuccess);"))
        assert out == "1\n", out


@needs_gpu
@timeout(180)
def test_resources_block_on_the_gpu_agrees_with_the_runtime_api():
    with shared_kernel() as k:
        ok(k, VECADD)
        ok(k, SHARED)
        for name, block in (("vecadd", 256), ("vecadd", 96), ("rev", 128)):
            out = stdout_of(ok(k, f"%resources {name} --block {block}"))
            got = int(re.search(rf"at {block} threads per block: (\d+) blocks", out).group(1))
            api = stdout_of(ok(k, f"int nb{block} = -1; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb{block}, {name}, "
                                  f"{block}, 0); printf(\"%d\\n\", nb{block});"))
            assert got == int(api), (name, block, out, api)
            assert "from the driver" in out and "without a GPU" not in out, out
            assert "icuda's model says" not in out, out  # the model agrees with the driver
            mg = stdout_of(ok(k, f"int mg{block}, bs{block}; cudaOccupancyMaxPotentialBlockSize(&mg{block}, &bs{block}, {name}, 0, 0); "
                                 f"printf(\"%d\\n\", bs{block});"))
            assert f"block size with the highest occupancy: {int(mg)} threads" in out, (out, mg)
        out = stdout_of(ok(k, "%resources rev --block 128"))
        assert "limited by shared memory" in out, out
        c = error(k, "int nb; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, vecadd, 0, 0);")
        assert c["ename"] == "cudaErrorInvalidValue", c
