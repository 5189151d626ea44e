"""Device libraries in device cells compile under NVRTC with no GPU: CUB's
umbrella header (its kernel-level parts), curand_kernel.h, half and bfloat16,
wmma, libcu++ atomics and barriers, cooperative groups' reductions — and no
warning the user did not cause reaches the cell."""
from support import shared_kernel, stdout_of


def test_cub_umbrella_header_gives_the_kernel_level_parts():
    with shared_kernel() as k:
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
        assert "block_sum(" in stdout_of(msgs, "stdout")
        assert stdout_of(msgs, "stderr") == ""


def test_other_device_headers_compile_quietly():
    with shared_kernel() as k:
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
        out = stdout_of(msgs, "stdout")
        assert "init(" in out and "halves(" in out and "tile_sum(" in out, out
        assert stdout_of(msgs, "stderr") == ""


# One kernel per library, as a CUDA programmer writes it; the GPU test
# (tests/gpu/test_device_libraries_gpu.py) launches the same ones.
LIBRARY_KERNELS = (
    "#include <cub/cub.cuh>\n"
    "#include <cuda/std/cstdint>\n#include <cuda/std/array>\n#include <cuda/std/limits>\n"
    "#include <cuda/std/complex>\n#include <cuda/std/atomic>\n#include <cuda/pipeline>\n"
    "#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\n"
    "namespace cg = cooperative_groups;\n"
    "__global__ void cub_all(int *d) {\n"
    "  typedef cub::BlockLoad<int, 128, 4> BL; typedef cub::BlockStore<int, 128, 4> BSt;\n"
    "  typedef cub::BlockRadixSort<int, 128, 4> RS; typedef cub::BlockReduce<int, 128> BR;\n"
    "  typedef cub::BlockScan<int, 128> BS; typedef cub::WarpReduce<int> WR; typedef cub::WarpScan<int> WS;\n"
    "  __shared__ union { typename BL::TempStorage l; typename BSt::TempStorage st; typename RS::TempStorage rs;\n"
    "                     typename BR::TempStorage r; typename BS::TempStorage s; } u;\n"
    "  __shared__ typename WR::TempStorage wr[4]; __shared__ typename WS::TempStorage ws[4];\n"
    "  int it[4];\n"
    "  BL(u.l).Load(d, it); __syncthreads();\n"
    "  RS(u.rs).Sort(it); __syncthreads();\n"
    "  BSt(u.st).Store(d, it); __syncthreads();\n"
    "  int x = cub::ThreadLoad<cub::LOAD_CG>(d + threadIdx.x);\n"
    "  int total = BR(u.r).Sum(x); __syncthreads();\n"
    "  int before; BS(u.s).ExclusiveSum(x, before);\n"
    "  int warp_total = WR(wr[threadIdx.x / 32]).Sum(x);\n"
    "  int warp_incl; WS(ws[threadIdx.x / 32]).InclusiveSum(x, warp_incl);\n"
    "  d[512 + threadIdx.x] = before; d[640 + threadIdx.x] = warp_incl;\n"
    "  if (threadIdx.x == 0) { d[768] = total; d[769] = warp_total; }\n"
    "}\n"
    "__global__ void libcudacxx(cuda::std::int64_t *o, float *f, int *counter) {\n"
    "  cuda::std::array<int, 4> a{1, 2, 3, 4};\n"
    "  o[0] = a[3] + (cuda::std::int64_t)cuda::std::numeric_limits<int>::max();\n"
    "  cuda::std::complex<float> z(3.0f, 4.0f);\n"
    "  f[0] = cuda::std::abs(z);\n"
    "  cuda::std::atomic_ref<int> r(*counter); r.fetch_add(1);\n"
    "}\n"
    "__global__ void pipelined(const int *in, int *out) {\n"
    "  __shared__ int s[128];\n"
    "  auto p = cuda::make_pipeline();\n"
    "  p.producer_acquire(); cuda::memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(int), p); p.producer_commit();\n"
    "  p.consumer_wait(); out[threadIdx.x] = 2 * s[threadIdx.x]; p.consumer_release();\n"
    "}\n"
    "__global__ void tile_scan(const int *in, int *out) {\n"
    "  auto t = cg::tiled_partition<32>(cg::this_thread_block());\n"
    "  out[threadIdx.x] = cg::inclusive_scan(t, in[threadIdx.x]);\n"
    "}\n")


def test_libcudacxx_pipeline_scan_and_all_of_cub_block_level_compile_quietly():
    with shared_kernel() as k:
        reply, msgs = k.execute(LIBRARY_KERNELS, timeout=300)
        assert reply["content"]["status"] == "ok", reply
        out = stdout_of(msgs, "stdout")
        for name in ("cub_all(", "libcudacxx(", "pipelined(", "tile_scan("):
            assert name in out, out
        assert stdout_of(msgs, "stderr") == ""
        # a later cell reuses the session's headers (precompiled) and stays quiet too
        reply, msgs = k.execute("__global__ void later(int *p) { p[0] = cuda::std::numeric_limits<short>::max(); }")
        assert reply["content"]["status"] == "ok", reply
        assert stdout_of(msgs, "stderr") == ""


def test_host_only_part_of_cub_gets_a_hint():
    with shared_kernel() as k:
        reply, msgs = k.execute("#include <cub/cub.cuh>\n"
                                "__global__ void wrong(int *d) { size_t n = 0; cub::DeviceReduce::Sum(nullptr, n, d, d, 4); }",
                                timeout=300)
        assert reply["content"]["ename"] == "CompileError"
        tb = "\n".join(m["content"]["traceback"][-1] for m in msgs if m["msg_type"] == "error")
        assert "%%program" in tb and "block, warp and thread level" in tb, tb
        _, msgs = k.execute("%help")
        assert "cub::DeviceReduce" in stdout_of(msgs, "stdout")
