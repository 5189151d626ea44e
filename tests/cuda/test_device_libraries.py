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
