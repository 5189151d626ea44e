"""%%program --mpi 2 on a machine with two GPUs (make test-gpu): each rank
sees a GPU of its own as its device 0; a halo exchange (a 1-D stencil split
across the ranks, boundaries swapped through MPI every step) and an
all-reduce give what one GPU computes for the whole domain; more ranks than
GPUs is refused, and --share-gpus runs them. Skipped with the reason where
Open MPI or a second GPU is missing (tests/magics/test_program_mpi.py runs
the parts that need no GPU)."""
import functools
import unittest

import support
from support import needs_gpu, shared_kernel, stdout_of, timeout

ok_streams = functools.partial(support.ok_streams, t=300)

# The program of notebooks/14-multi-gpu.ipynb's MPI section: a 1-D heat
# stencil over N points, each rank owning N/size of them with a halo on
# each side, boundaries exchanged through host memory every step (no
# CUDA-aware MPI needed); then rank 0 computes the whole domain on its own
# GPU and compares, and an all-reduce of each rank's sum is compared with
# the single-GPU sum.
HALO = r"""#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

__global__ void step(const double *u, double *v, int n) {  // u has a halo at 0 and n + 1
    int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (i <= n) v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
}

static double initial(long g) { return std::sin(0.001 * g) + (g % 17) * 0.01; }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long N = 1441440;  // divisible by every rank count up to 16
    const int steps = 200;
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    CHECK(cudaSetDevice(0));  // this rank's own GPU (CUDA_VISIBLE_DEVICES)
    char bus[32];
    CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    printf("rank %d of %d sees %d GPU: %s\n", rank, size, ndev, bus);
    long n = N / size, first = rank * n;
    std::vector<double> h(n + 2, 0.0);
    for (long i = 0; i < n; i++) h[i + 1] = initial(first + i);
    double *u, *v;
    CHECK(cudaMalloc(&u, (n + 2) * sizeof(double)));
    CHECK(cudaMalloc(&v, (n + 2) * sizeof(double)));
    CHECK(cudaMemcpy(u, h.data(), (n + 2) * sizeof(double), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(v, h.data(), (n + 2) * sizeof(double), cudaMemcpyHostToDevice));
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    for (int s = 0; s < steps; s++) {
        double edge[2], halo[2] = {0, 0};
        CHECK(cudaMemcpy(&edge[0], u + 1, sizeof(double), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&edge[1], u + n, sizeof(double), cudaMemcpyDeviceToHost));
        MPI_Sendrecv(&edge[0], 1, MPI_DOUBLE, left, 0, &halo[1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&edge[1], 1, MPI_DOUBLE, right, 1, &halo[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        CHECK(cudaMemcpy(u, &halo[0], sizeof(double), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(u + n + 1, &halo[1], sizeof(double), cudaMemcpyHostToDevice));
        step<<<(n + 255) / 256, 256>>>(u, v, (int)n);
        CHECK(cudaGetLastError());
        std::swap(u, v);
    }
    CHECK(cudaMemcpy(h.data(), u, (n + 2) * sizeof(double), cudaMemcpyDeviceToHost));
    double mine = 0, total = 0;
    for (long i = 1; i <= n; i++) mine += h[i];
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    std::vector<double> all(rank == 0 ? N : 0);
    MPI_Gather(h.data() + 1, (int)n, MPI_DOUBLE, all.data(), (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {  // the whole domain on one GPU
        std::vector<double> w(N + 2, 0.0);
        for (long g = 0; g < N; g++) w[g + 1] = initial(g);
        double *a, *b;
        CHECK(cudaMalloc(&a, (N + 2) * sizeof(double)));
        CHECK(cudaMalloc(&b, (N + 2) * sizeof(double)));
        CHECK(cudaMemcpy(a, w.data(), (N + 2) * sizeof(double), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(b, w.data(), (N + 2) * sizeof(double), cudaMemcpyHostToDevice));
        for (int s = 0; s < steps; s++) {
            step<<<(N + 255) / 256, 256>>>(a, b, (int)N);
            std::swap(a, b);
        }
        CHECK(cudaMemcpy(w.data(), a, (N + 2) * sizeof(double), cudaMemcpyDeviceToHost));
        double worst = 0, one = 0;
        for (long g = 0; g < N; g++) {
            worst = std::fmax(worst, std::fabs(w[g + 1] - all[g]));
            one += w[g + 1];
        }
        printf("halo exchange on %d ranks against one GPU: largest difference %g\n", size, worst);
        printf("all-reduce of the ranks' sums against one GPU's: %s\n",
               std::fabs(total - one) <= 1e-9 * std::fabs(one) ? "equal" : "different");
    }
    MPI_Finalize();
    return 0;
}"""


def need(k):
    missing = support.open_mpi_missing()
    if missing:
        raise unittest.SkipTest(missing)
    c, msgs = support.run(k, "int ng_ = 0; cudaGetDeviceCount(&ng_); printf(\"%d\\n\", ng_);")
    n = int(stdout_of(msgs).strip())
    if n < 2:
        raise unittest.SkipTest(f"needs two GPUs: this machine has {n}")
    return n


@needs_gpu
@timeout(600)
def test_halo_exchange_and_all_reduce_on_two_ranks_match_one_gpu():
    with shared_kernel() as k:
        need(k)
        out, err = ok_streams(k, "%%program --mpi 2\n" + HALO)
        seen = [line for line in out.splitlines() if " sees " in line]
        assert sorted(x.split()[0] for x in seen) == ["[0]", "[1]"], out
        assert all("sees 1 GPU" in x for x in seen), out  # each rank its own GPU, as device 0
        buses = {x.split(": ")[-1] for x in seen}
        assert len(buses) == 2, out  # ... and not the same one
        assert "[0] halo exchange on 2 ranks against one GPU: largest difference 0" in out, out
        assert "[0] all-reduce of the ranks' sums against one GPU's: equal" in out, out


@needs_gpu
@timeout(600)
def test_more_ranks_than_gpus():
    with shared_kernel() as k:
        n = need(k)
        c, msgs = support.run(k, f"%%program --mpi {n + 1}\nint main() {{ return 0; }}", 300)
        assert c["status"] == "error" and c["ename"] == "RuntimeError", c
        assert f"this machine has {n} GPUs" in c["evalue"] and "--share-gpus" in c["evalue"], c
        out, _ = ok_streams(k, f"%%program --mpi {n + 1} --share-gpus\n" + HALO)
        assert f"[0] halo exchange on {n + 1} ranks against one GPU: largest difference 0" in out, out
