"""Short runs of `make stress` (tests/stress/soak.py): correctness and
generous bounds on growth, never timing."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import soak  # noqa: E402
import support  # noqa: E402
from support import needs_gpu, timeout  # noqa: E402

MiB = 1 << 20


@timeout(300)
def test_pipelined_requests_and_control_while_busy():
    tmp = tempfile.mkdtemp(prefix="icuda-stress-")
    with soak.stress_kernel(None, os.path.join(tmp, "icuda"), 256 * MiB) as k:
        soak.part_pipelined(k, 500)   # 500 on one client, 2 x 500 on two: all in order
        soak.part_control(k, 3)       # kernel_info and interrupt on control


@timeout(400)
def test_compiles_keep_memory_and_the_disk_cache_bounded():
    tmp = tempfile.mkdtemp(prefix="icuda-stress-")
    cache_dir = os.path.join(tmp, "icuda")
    limit = 96 * 1024  # a dozen modules: 40 compiles must evict
    # RSS is measured on the plain kernel: ASan's quarantine holds freed memory
    with soak.stress_kernel(support.PLAIN_KERNEL, cache_dir, limit) as k:
        _, (before, after, evicted) = soak.part_compiles(k, 40, cache_dir, limit)
        assert evicted > 0, "the disk cache never evicted"
        assert after - before < 64 * MiB, f"40 compiles grew the kernel by {after - before} bytes"
        _, (before, after) = soak.part_host(k, 100)
        assert after - before < 32 * MiB, f"100 malloc/free cells grew the kernel by {after - before} bytes"
        # distinct compiled host loops: the host/ folder is evicted too (it never was)
        _, (before, after, evicted) = soak.part_host_loops(k, 30, cache_dir, limit)
        assert evicted > 0, "the host code cache never evicted"
        assert after - before < 32 * MiB, f"30 compiled loops grew the kernel by {after - before} bytes"


@needs_gpu
@timeout(300)
def test_gpu_cells_allocate_launch_free_without_growth():
    tmp = tempfile.mkdtemp(prefix="icuda-stress-")
    with soak.stress_kernel(support.PLAIN_KERNEL, os.path.join(tmp, "icuda"), 256 * MiB) as k:
        rows, (kb, ka, wb, wa, free0, free1) = soak.part_gpu(k, 1000)
        print(rows[0][1])
        # the GPU's side holds nothing per cell: the worker and device memory stay flat
        assert wa - wb < 4 * MiB, f"worker RSS {wb} -> {wa}"
        # a cell that defines nothing gives its source and syntax tree back:
        # about 1 KiB a cell stays (history); 17 KiB did before (docs/reliability.md)
        assert ka - kb < 10 * MiB, f"kernel RSS {kb} -> {ka}"
        assert free0 - free1 < 8 * MiB, f"device free {free0} -> {free1}"
