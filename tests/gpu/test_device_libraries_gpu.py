"""Device libraries in device cells on a real GPU (make test-gpu): one launch
of each, its result checked — CUB's block, warp and thread level, libcu++
(cuda/std, cuda/atomic, cuda/barrier, cuda/pipeline), half and bfloat16,
wmma on sm_90, cooperative groups' reduce and scan, curand_kernel.h. The
kernels compile here without a GPU too (the first test), so only the
launches and their results need the GPU."""
import os
import sys

import support
from support import needs_gpu, shared_kernel, stdout_of

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cuda"))
from test_device_libraries import LIBRARY_KERNELS  # noqa: E402

MORE_KERNELS = """#include <curand_kernel.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cuda/atomic>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace cg = cooperative_groups;
__global__ void rng(void *states, float *out) {
  curandState *s = (curandState *)states + threadIdx.x;
  curand_init(1234, threadIdx.x, 0, s);
  out[threadIdx.x] = curand_uniform(s);
}
__global__ void halves(unsigned short *h, unsigned short *b) {
  __half x = __float2half(1.5f);
  h[0] = __half_as_ushort(__hadd(x, x));
  b[0] = __bfloat16_as_ushort(__float2bfloat16(2.0f));
}
__global__ void mma16(float *c) {
  __shared__ half a[256], b[256];
  for (int i = threadIdx.x; i < 256; i += 32) { a[i] = __float2half(1.0f); b[i] = __float2half((float)(i % 16)); }
  __syncthreads();
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> fa;
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, half, nvcuda::wmma::row_major> fb;
  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> fc;
  nvcuda::wmma::fill_fragment(fc, 0.0f);
  nvcuda::wmma::load_matrix_sync(fa, a, 16);
  nvcuda::wmma::load_matrix_sync(fb, b, 16);
  nvcuda::wmma::mma_sync(fc, fa, fb, fc);
  nvcuda::wmma::store_matrix_sync(c, fc, 16, nvcuda::wmma::mem_row_major);
}
__global__ void count(int *o) {
  cuda::atomic_ref<int, cuda::thread_scope_device> r(*o);
  r.fetch_add(1, cuda::std::memory_order_relaxed);
}
__global__ void barrier_sum(int *o) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int s[64];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  s[threadIdx.x] = threadIdx.x;
  bar.arrive_and_wait();
  if (threadIdx.x == 0) { int t = 0; for (int i = 0; i < 64; i++) t += s[i]; o[0] = t; }
}
__global__ void tile_sum(const int *in, int *out) {
  auto t = cg::tiled_partition<32>(cg::this_thread_block());
  int v = cg::reduce(t, in[threadIdx.x], cg::plus<int>());
  if (t.thread_rank() == 0) atomicAdd(out, v);
}
"""


def quiet(k, code, t=300):
    """Runs a cell that must succeed and say nothing on stderr (the device
    libraries compile without a warning); its stdout."""
    msgs = support.ok(k, code, t)
    assert stdout_of(msgs, "stderr") == "", stdout_of(msgs, "stderr")
    return stdout_of(msgs)


def test_library_kernels_compile_without_a_gpu():
    with shared_kernel() as k:
        out = quiet(k, MORE_KERNELS)
        for name in ("rng(", "halves(", "mma16(", "count(", "barrier_sum(", "tile_sum("):
            assert name in out, out


@needs_gpu
def test_cub_block_warp_thread_level_on_the_gpu():
    with shared_kernel() as k:
        quiet(k, LIBRARY_KERNELS)
        out = quiet(k, """int *d; cudaMalloc(&d, 1024 * sizeof(int));
int h[1024];
for (int i = 0; i < 1024; i++) h[i] = i < 512 ? (i * 37) % 512 : 0;
cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
cub_all<<<1, 128>>>(d);
cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
int bad = 0;
for (int i = 0; i < 512; i++) bad += h[i] != i;
for (int t = 0; t < 128; t++) {
    bad += h[512 + t] != t * (t - 1) / 2;
    int s = 0;
    for (int j = t / 32 * 32; j <= t; j++) s += j;
    bad += h[640 + t] != s;
}
printf("%d %d %d\\n", bad, h[768], h[769]);""")
        assert out.endswith("0 8128 496\n"), out


@needs_gpu
def test_libcudacxx_pipeline_and_scan_on_the_gpu():
    with shared_kernel() as k:
        quiet(k, LIBRARY_KERNELS)
        out = quiet(k, """long *o; float *f; int *c;
cudaMalloc(&o, sizeof(long)); cudaMalloc(&f, sizeof(float)); cudaMalloc(&c, sizeof(int));
cudaMemset(c, 0, sizeof(int));
libcudacxx<<<1, 64>>>(o, f, c);
long ho; float hf; int hc;
cudaMemcpy(&ho, o, sizeof ho, cudaMemcpyDeviceToHost);
cudaMemcpy(&hf, f, sizeof hf, cudaMemcpyDeviceToHost);
cudaMemcpy(&hc, c, sizeof hc, cudaMemcpyDeviceToHost);
printf("%ld %.1f %d\\n", ho, hf, hc);
int *in, *out;
cudaMalloc(&in, 128 * sizeof(int)); cudaMalloc(&out, 128 * sizeof(int));
int h[128];
for (int i = 0; i < 128; i++) h[i] = i;
cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
pipelined<<<1, 128>>>(in, out);
cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
int bad = 0;
for (int i = 0; i < 128; i++) bad += h[i] != 2 * i;
for (int i = 0; i < 128; i++) h[i] = 1;
cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
tile_scan<<<1, 128>>>(in, out);
cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
for (int i = 0; i < 128; i++) bad += h[i] != i % 32 + 1;
printf("bad %d\\n", bad);""")
        assert out.endswith("2147483651 5.0 64\nbad 0\n"), out


@needs_gpu
def test_curand_half_wmma_atomics_barrier_reduce_on_the_gpu():
    with shared_kernel() as k:
        quiet(k, MORE_KERNELS)
        out = quiet(k, """void *states; float *u;
cudaMalloc(&states, 128 * 48); /* sizeof(curandState) is 48 */
cudaMalloc(&u, 128 * sizeof(float));
rng<<<1, 128>>>(states, u);
float hu[128];
cudaMemcpy(hu, u, sizeof hu, cudaMemcpyDeviceToHost);
int in_range = 0, distinct = 0;
for (int i = 0; i < 128; i++) { in_range += hu[i] > 0.0f && hu[i] <= 1.0f; distinct += hu[i] != hu[0]; }
printf("rng %d %d\\n", in_range, distinct > 100);
unsigned short *hb; cudaMalloc(&hb, 2 * sizeof(unsigned short));
halves<<<1, 1>>>(hb, hb + 1);
unsigned short bits[2];
cudaMemcpy(bits, hb, sizeof bits, cudaMemcpyDeviceToHost);
printf("half %04x %04x\\n", bits[0], bits[1]);
float *c; cudaMalloc(&c, 256 * sizeof(float));
mma16<<<1, 32>>>(c);
float hc[256];
cudaMemcpy(hc, c, sizeof hc, cudaMemcpyDeviceToHost);
int bad = 0;
for (int i = 0; i < 256; i++) bad += hc[i] != 16.0f * (i % 16);
printf("wmma bad %d\\n", bad);
int *n; cudaMalloc(&n, 3 * sizeof(int)); cudaMemset(n, 0, 3 * sizeof(int));
count<<<4, 64>>>(n);
barrier_sum<<<1, 64>>>(n + 1);
int *ones; cudaMalloc(&ones, 128 * sizeof(int));
int h1[128];
for (int i = 0; i < 128; i++) h1[i] = 1;
cudaMemcpy(ones, h1, sizeof h1, cudaMemcpyHostToDevice);
tile_sum<<<1, 128>>>(ones, n + 2);
int hn[3];
cudaMemcpy(hn, n, sizeof hn, cudaMemcpyDeviceToHost);
printf("%d %d %d\\n", hn[0], hn[1], hn[2]);""")
        assert out.endswith("rng 128 1\nhalf 4200 4000\nwmma bad 0\n256 2016 128\n"), out
