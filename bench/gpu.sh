#!/bin/sh
# GPU benchmarks: the raw driver API and the same work through icuda-worker.
# Run from the repository root on the GPU machine:  sh bench/gpu.sh
set -e
make -s build/icuda-worker build/bench/gpu_raw build/bench/gpu_worker
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
./build/bench/gpu_raw
ICUDA_WORKER=build/icuda-worker ./build/bench/gpu_worker
