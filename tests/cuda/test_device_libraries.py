"""Device libraries in device cells compile under NVRTC with no GPU: CUB's
umbrella header (its kernel-level parts), curand_kernel.h, half and bfloat16,
wmma, libcu++ atomics and barriers, cooperative groups' reductions — and no
warning the user did not cause reaches the cell."""
from support import kernel


def streams(msgs, name):
    return "".join(m["content"]["text"] for m in msgs if m["msg_type"] == "stream" and m["content"]["name"] == name)


def test_cub_umbrella_header_gives_the_kernel_level_parts():
    with kernel() as k:
        reply, msgs = k.execute(
            "#include <cub/cub.cuh>\n"
            "__global__ void block_sum(const int *in, int *out) {\n"
            "  typedef cub::BlockReduce<int, 128> BR;\n"
            "  __shared__ typename BR::TempStorage tmp;\n"
            "  int v = BR(tmp).Sum(in[threadIdx.x]);\n"
            "  typedef cub::WarpReduce<int> WR;\n"
            "  __shared__ typename WR::TempStorage wt[4];\n"
            "  int w = WR(wt[threadIdx.x / 32]).Sum(in[threadIdx.x]);\n"
            "  if (threadIdx.x == 0) *out = v + w;\n"
            "}\n")
        assert reply["content"]["status"] == "ok", reply
        assert "block_sum(" in streams(msgs, "stdout")
        assert streams(msgs, "stderr") == ""


def test_other_device_headers_compile_quietly():
    with kernel() as k:
        reply, msgs = k.execute(
            "#include <curand_kernel.h>\n#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <mma.h>\n"
            "#include <cuda/std/atomic>\n#include <cuda/atomic>\n#include <cuda/barrier>\n"
            "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
            "namespace cg = cooperative_groups;\n"
            "__global__ void init(curandState *s, unsigned long long seed) {\n"
            "  curand_init(seed, threadIdx.x, 0, &s[threadIdx.x]);\n}\n"
            "__global__ void halves(__half *x, __nv_bfloat16 *y) {\n"
            "  x[0] = __float2half(1.0f); y[0] = __float2bfloat16(2.0f);\n}\n"
            "__global__ void tile_sum(const int *in, int *out) {\n"
            "  auto t = cg::tiled_partition<32>(cg::this_thread_block());\n"
            "  int v = cg::reduce(t, in[threadIdx.x], cg::plus<int>());\n"
            "  if (t.thread_rank() == 0) atomicAdd(out, v);\n}\n")
        assert reply["content"]["status"] == "ok", reply
        out = streams(msgs, "stdout")
        assert "init(" in out and "halves(" in out and "tile_sum(" in out, out
        assert streams(msgs, "stderr") == ""
