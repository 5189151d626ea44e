# icuda — build, test, install, run.
#   make            build build/icuda (and the Python venv for the tests)
#   make test       everything that needs no GPU (pytest); ends with "N passed, N failed, N skipped"
#                   (makes .venv and .venv-eg, Enterprise Gateway's own, from their pinned requirements)
#                   K=WORDS picks tests by name, TESTFLAGS=... adds pytest options
#   make build/icuda-mock  the protocol layer over a mock language (no CUDA), for tests/protocol
#   make test-gpu   the GPU tests and every notebook (on a machine with a GPU)
#   make install    install the kernelspec for this user (PREFIX=... for a prefix)
#   make run        install what is missing, build, install, run the flagship notebook
#   make stress     load and soak (tests/stress/soak.py; STRESS_ARGS=--gpu adds the GPU part)
#   make bench-timeit  %timeit against a raw C event measurement (on a machine with a GPU)
#   make bench-multi-gpu  peer copies and NCCL's all-reduce from cells against raw programs (two GPUs)
# PYTHON=python3 uses that Python (with jupyter_client/nbclient) instead of .venv.

CUDA    ?= /usr/local/cuda
CC      ?= gcc
VENV    := .venv
ifeq ($(origin PYTHON), undefined)
PYTHON  := $(VENV)/bin/python
USE_VENV := 1
endif

VERSION := 0.1.0
PKGS_CFLAGS := $(shell pkg-config --cflags libzmq jansson openssl 2>/dev/null)
PKGS_LIBS   := $(shell pkg-config --libs libzmq jansson openssl 2>/dev/null || echo -lzmq -ljansson -lssl -lcrypto)

CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -MMD -MP -pthread \
           -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types \
           -I. -I$(CUDA)/include $(PKGS_CFLAGS) \
           -DICUDA_VERSION='"$(VERSION)"' -DICUDA_CUDA_HOME='"$(CUDA)"'
LDFLAGS += -pthread -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64
LDLIBS  += $(PKGS_LIBS) -lnvrtc -ldl -lm

# Every .c under kernel/, runtime/, magics/ and app/ (at any depth) is part of
# the kernel; files named *_main.c are program entry points and stay out of
# the library, and runtime/gpu/worker/ belongs to the GPU worker alone.
# The CUDA runtime API (types, constants, functions) is read from the
# toolkit's headers by tools/gen_cuda_api.py into build/gen: declarations
# and the function table for the kernel, typed callers for the worker.
GEN_PY   ?= python3
GEN_LIB  := build/gen/crt_decls.c build/gen/crt_table.c
GEN_DOCS := build/gen/crt_docs.c
GEN_WORKER := build/gen/crt_stubs.c
# the host libraries (cuRAND, cuBLAS, cuFFT, and NCCL where nccl.h is installed) and the device-library types,
# by tools/gen_cuda_libs.py; clib_ref.cc is g++'s view of the C++ headers
GEN_CLIB := build/gen/clib_decls.c build/gen/clib_table.c
GEN_CLIB_WORKER := build/gen/clib_stubs.c
GEN_CLIB_REF := build/gen/clib_ref.cc
CXX ?= g++
WORKER_SRC := $(filter-out %_main.c, $(wildcard runtime/gpu/worker/*.c)) $(GEN_WORKER) $(GEN_CLIB_WORKER)
LIB_SRC  := $(filter-out %_main.c $(WORKER_SRC), $(sort $(shell find kernel runtime magics app -name '*.c'))) $(GEN_LIB)
LIB_SRC  += $(GEN_CLIB) $(GEN_DOCS)
LIB_OBJ  := $(LIB_SRC:%.c=build/obj/%.o) build/obj/build/gen/clib_ref.o
ASAN_OBJ := $(LIB_SRC:%.c=build/asan/obj/%.o) build/asan/obj/build/gen/clib_ref.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
# the same tests built without sanitizers, for valgrind (tests/valgrind/)
PLAIN_UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests-plain/%)

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer

.DEFAULT_GOAL := all
.PHONY: all build venv test test-gpu install run notebooks clean bench bench-timeit asan test-gxx-oracle
all: build venv
build: build/icuda build/icuda-worker

$(GEN_LIB) $(GEN_WORKER) &: tools/gen_cuda_api.py $(CUDA)/include/cuda_runtime_api.h $(CUDA)/include/driver_types.h $(CUDA)/include/vector_types.h
	@mkdir -p build/gen
	$(GEN_PY) tools/gen_cuda_api.py --cc "$(CC)" --cuda $(CUDA) --out build/gen

$(GEN_CLIB) $(GEN_CLIB_WORKER) $(GEN_CLIB_REF) &: tools/gen_cuda_libs.py tools/gen_cuda_api.py $(CUDA)/include/curand.h $(CUDA)/include/cublas_api.h $(CUDA)/include/cufft.h $(CUDA)/include/curand_kernel.h \
                                                  $(wildcard $(CUDA)/include/nccl.h /usr/include/nccl.h /usr/local/include/nccl.h)
	@mkdir -p build/gen
	$(GEN_PY) tools/gen_cuda_libs.py --cc "$(CC)" --cxx "$(CXX)" --cuda $(CUDA) --out build/gen

build/obj/build/gen/clib_ref.o: $(GEN_CLIB_REF)
	@mkdir -p $(dir $@)
	$(CXX) -O1 -I. -I$(CUDA)/include -c $< -o $@

build/asan/obj/build/gen/clib_ref.o: $(GEN_CLIB_REF)
	@mkdir -p $(dir $@)
	$(CXX) -O1 -I. -I$(CUDA)/include -c $< -o $@
# the error codes each runtime function documents, for inspection
$(GEN_DOCS): tools/gen_cuda_docs.py $(CUDA)/include/cuda_runtime_api.h
	@mkdir -p build/gen
	$(GEN_PY) tools/gen_cuda_docs.py --cuda $(CUDA) --out build/gen

build/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

build/asan/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -c $< -o $@

# the logos are embedded with .incbin, which -MMD does not see
LOGOS := kernelspec/logo-32x32.png kernelspec/logo-64x64.png kernelspec/logo-svg.svg
build/obj/app/logos.o build/asan/obj/app/logos.o: $(LOGOS)

build/icuda: build/obj/app/icuda_main.o $(LIB_OBJ)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

build/asan/icuda: build/asan/obj/app/icuda_main.o $(ASAN_OBJ)
	$(CC) $(LDFLAGS) -fsanitize=address,undefined $^ $(LDLIBS) -o $@

# The protocol layer (kernel/) over the mock language of tests/mock/, with
# sanitizers: what tests/protocol runs the protocol's tests against. It links
# nothing of the runtime but its UTF-8 helpers: no NVRTC, CUDA or GPU.
MOCK_SRC := $(sort $(shell find kernel -name '*.c')) runtime/base/utf8.c runtime/base/xalloc.c $(wildcard tests/mock/*.c)
MOCK_OBJ := $(MOCK_SRC:%.c=build/asan/obj/%.o)
build/icuda-mock: $(MOCK_OBJ)
	$(CC) -pthread -fsanitize=address,undefined $^ $(PKGS_LIBS) -o $@

asan: build/asan/icuda

# Unit tests link the library built with sanitizers.
build/tests/%: tests/unit/%.c tests/unit/check.h $(ASAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(LDFLAGS) $< $(ASAN_OBJ) $(LDLIBS) -o $@

build/tests-plain/%: tests/unit/%.c tests/unit/check.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

# The GPU worker links only what both processes share (runtime/gpu/*.c, the
# channel and the driver) and runtime/hostmem: nothing of the protocol, the
# interpreter or the client. The GPU unit tests add the client
# (runtime/gpu/client).
WIRE_SRC     := $(wildcard runtime/gpu/*.c runtime/hostmem/*.c) runtime/base/xalloc.c
GPU_SRC      := $(WIRE_SRC) $(wildcard runtime/gpu/client/*.c)
GPU_OBJ      := $(GPU_SRC:%.c=build/obj/%.o)
GPU_ASAN_OBJ := $(GPU_SRC:%.c=build/asan/obj/%.o)

# Native C++ cells (shared objects the worker loads) call back into the
# worker's icuda_native_* functions: those are exported, and the worker's
# own cudaDeviceReset, cudaFree and free (worker_cudart.c, worker_native.c,
# worker_main.c).
build/icuda-worker: build/obj/runtime/gpu/worker/worker_main.o $(WORKER_SRC:%.c=build/obj/%.o) $(WIRE_SRC:%.c=build/obj/%.o)
	$(CC) $(LDFLAGS) -Wl,--export-dynamic-symbol='icuda_native_*' -Wl,--export-dynamic-symbol=cudaDeviceReset \
	  -Wl,--export-dynamic-symbol=cudaFree -Wl,--export-dynamic-symbol=free $^ -ldl -lm -o $@

build/tests/test_gpu_%: tests/unit/test_gpu_%.c tests/unit/check.h $(GPU_ASAN_OBJ) build/icuda-worker
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(LDFLAGS) $< $(GPU_ASAN_OBJ) -lnvrtc -ldl -lm -o $@

# the worker's own rooms (runtime/gpu/worker/), tested without a worker
WORKER_UNIT := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_worker_*.c))
$(WORKER_UNIT:%=build/tests/%): build/tests/%: tests/unit/%.c tests/unit/check.h $(WORKER_SRC:%.c=build/asan/obj/%.o) $(GPU_ASAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(LDFLAGS) $< $(WORKER_SRC:%.c=build/asan/obj/%.o) $(GPU_ASAN_OBJ) -ldl -lm -o $@

$(WORKER_UNIT:%=build/tests-plain/%): build/tests-plain/%: tests/unit/%.c tests/unit/check.h $(WORKER_SRC:%.c=build/obj/%.o) $(GPU_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(WORKER_SRC:%.c=build/obj/%.o) $(GPU_OBJ) -ldl -lm -o $@

build/tests/test_arena: tests/unit/test_arena.c tests/unit/check.h $(GPU_ASAN_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_FLAGS) $(LDFLAGS) $< $(GPU_ASAN_OBJ) -ldl -lm -o $@

# The test/benchmark Python: a venv from the pinned requirements, unless
# PYTHON was given (the GPU machine brings its own).
ifdef USE_VENV
venv: $(VENV)/.stamp
$(VENV)/.stamp: requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements.txt
	touch $@
else
venv:
endif

# Jupyter Enterprise Gateway, for tests/gateway: its jupyter_client (< 7) and
# jupyter_server (1.x) conflict with the test venv's, so it has a venv of its
# own from its own pins. Not made where PYTHON was given: those tests skip.
VENV_EG := .venv-eg
.PHONY: venv-eg
ifdef USE_VENV
venv-eg: $(VENV_EG)/.stamp
$(VENV_EG)/.stamp: requirements-enterprise-gateway.txt
	python3 -m venv $(VENV_EG)
	$(VENV_EG)/bin/pip install -q --disable-pip-version-check -r requirements-enterprise-gateway.txt
	touch $@
else
venv-eg:
endif

# The tests run under pytest (conftest.py, pytest.ini; docs/testing.md), or
# under tests/run.py where $(PYTHON) has no pytest (the GPU machine's bundle):
# the same tests, and the same last line "N passed, N failed, N skipped".
# K=WORDS selects tests by name (-k); TESTFLAGS adds pytest options (-x).
# Under pytest-xdist the modules run TEST_JOBS at a time (default 2; 1: one
# at a time), each module whole in one process, so that its shared kernel is
# one. test-gpu runs one at a time: its modules share one GPU's memory figures.
TEST_JOBS ?= 2
TEST_RUN = if $(PYTHON) -c 'import pytest, pytest_timeout' 2>/dev/null; then \
	  echo "tests under pytest"; \
	  $(PYTHON) -m pytest -v $(if $(K),-k '$(K)') \
	    $$($(PYTHON) -c 'import xdist' 2>/dev/null && [ "$(2)" != 1 ] && echo "-n $(2) --dist loadfile") \
	    $(TESTFLAGS) $(1) $(UNIT_BIN:%=--unit %); \
	else \
	  echo "no pytest in $(PYTHON): tests under tests/run.py"; \
	  $(PYTHON) tests/run.py $(if $(K),-k '$(K)') $(1) $(UNIT_BIN); \
	fi

test: build/icuda build/icuda-worker build/asan/icuda build/icuda-mock $(UNIT_BIN) $(PLAIN_UNIT_BIN) venv venv-eg build/cuda-tools/.stamp
	@$(call TEST_RUN,--kernel build/asan/icuda --plain-kernel build/icuda --mock-kernel build/icuda-mock,$(TEST_JOBS))

# nvdisasm and cuobjdump for %sass's tests, where the toolkit has none (the
# toolkit's PyPI wheels leave them out): the NVIDIA wheels that carry them,
# unpacked into build/cuda-tools (the venv is not touched). tests/magics
# point ICUDA_TOOLS_PATH there when the folder has them.
CUDA_TOOLS_VERSION := 13.2.51
build/cuda-tools/.stamp: | venv
	@mkdir -p build/cuda-tools
	@if [ -x $(CUDA)/bin/nvdisasm ] || command -v nvdisasm >/dev/null 2>&1; then touch $@; \
	elif $(PYTHON) -m pip install -q --disable-pip-version-check --target build/cuda-tools \
	     nvidia-cuda-nvdisasm==$(CUDA_TOOLS_VERSION) nvidia-cuda-cuobjdump==$(CUDA_TOOLS_VERSION); then touch $@; \
	else echo "could not install nvdisasm/cuobjdump into build/cuda-tools: the %sass tests will say so" >&2; fi

test-gpu: build/icuda build/icuda-worker build/asan/icuda build/icuda-mock $(UNIT_BIN) $(PLAIN_UNIT_BIN) venv venv-eg
	@$(call TEST_RUN,--gpu --kernel build/icuda --plain-kernel build/icuda --mock-kernel build/icuda-mock,1)

# the expected output of the C++ cases (tests/lang-cxx) against g++; make test runs it too
test-gxx-oracle:
	$(PYTHON) tests/lang-cxx/check_with_gxx.py

install: build/icuda
	build/icuda --install $(if $(PREFIX),--prefix $(PREFIX),--user)

# the tutorial notebooks from their sources in tools/notebooks/
notebooks:
	python3 tools/make_notebooks.py

run:
	@sh tools/ensure-packages.sh
	$(MAKE) build venv
	build/icuda --install --prefix $(abspath $(VENV))
	$(PYTHON) tools/run-notebook.py notebooks/01-first-kernel.ipynb

.PHONY: bench-host bench-kinds
# host code: interpreter, native tier and gcc on the host loops (docs/performance.md)
build/bench/host_suite: bench/host_suite.c bench/host_harness.c bench/host_harness.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) bench/host_suite.c bench/host_harness.c $(LIB_OBJ) $(LDLIBS) -o $@
bench-host: build/bench/host_suite
	./build/bench/host_suite 3
# loops of every kind against gcc -O2, medians (docs/performance.md)
build/bench/host_kinds: bench/host_kinds.c bench/host_harness.c bench/host_harness.h $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) bench/host_kinds.c bench/host_harness.c $(LIB_OBJ) $(LDLIBS) -o $@
bench-kinds: build/bench/host_kinds
	./build/bench/host_kinds 5

.PHONY: bench-split
# the cell splitter on a 10 MB cell (docs/performance.md)
build/bench/split_cell: bench/split_cell.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@
bench-split: build/bench/split_cell
	./build/bench/split_cell 5

build/bench/nvrtc_raw: bench/nvrtc_raw.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< -lnvrtc -o $@

bench: build/icuda build/bench/nvrtc_raw venv
	$(PYTHON) bench/protocol.py --kernel build/icuda

# load and soak: pipelined requests, control while busy, 1,000 compiles and
# cells (docs/reliability.md); make stress STRESS_ARGS="--gpu" on a GPU machine
.PHONY: stress
stress: build/icuda build/icuda-worker venv
	$(PYTHON) tests/stress/soak.py --kernel build/icuda $(STRESS_ARGS)

clean:
	rm -rf build

-include $(LIB_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) build/obj/app/icuda_main.d build/asan/obj/app/icuda_main.d \
         $(MOCK_OBJ:.o=.d) \
         $(WORKER_SRC:%.c=build/obj/%.d) $(WORKER_SRC:%.c=build/asan/obj/%.d) build/obj/runtime/gpu/worker/worker_main.d

# ---- GPU benchmarks (bench/gpu.sh): the raw driver API and the worker ----
build/bench/gpu_raw: bench/gpu_raw.c bench/gpu_common.h $(GPU_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(GPU_OBJ) -lnvrtc -ldl -lm -o $@

build/bench/gpu_worker: bench/gpu_worker.c bench/gpu_common.h $(GPU_OBJ) build/icuda-worker
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(GPU_OBJ) -lnvrtc -ldl -lm -o $@

# ---- %timeit against a raw C event measurement (bench/timeit_accuracy.py) ----
build/bench/timeit_accuracy: bench/timeit_accuracy.c $(GPU_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(GPU_OBJ) -lnvrtc -ldl -lm -o $@

bench-timeit: build/icuda build/icuda-worker build/bench/timeit_accuracy venv
	$(PYTHON) bench/timeit_accuracy.py --kernel build/icuda --raw build/bench/timeit_accuracy

# ---- several GPUs: peer copies and NCCL's all-reduce from cells against raw programs ----
# (docs/performance.md, "Several GPUs"; on a machine with two GPUs)
build/bench/peer_bandwidth_raw: bench/peer_bandwidth_raw.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -ldl -o $@

build/bench/nccl_allreduce_raw: bench/nccl_allreduce_raw.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< -lcudart -ldl -o $@

.PHONY: bench-multi-gpu
bench-multi-gpu: build/icuda build/icuda-worker build/bench/peer_bandwidth_raw build/bench/nccl_allreduce_raw venv
	$(PYTHON) bench/peer_bandwidth.py --kernel build/icuda --raw build/bench/peer_bandwidth_raw
	$(PYTHON) bench/nccl_allreduce.py --kernel build/icuda --raw build/bench/nccl_allreduce_raw

# ---- fuzzing (libFuzzer, clang, ASan + UBSan; tests/fuzz, docs/reliability.md) ----
#   make fuzz                 every target FUZZ_SECONDS (default 20) from its corpus
#   make fuzz FUZZ_SECONDS=3600 FUZZ_TARGETS=interp   a long run of one
#   make fuzz FUZZ_TARGETS=conn FUZZ_RUNS=10000000 FUZZ_SECONDS=0   a count of executions
# Targets: split, interp (host interpreter), gen (generated C programs),
# native (generated programs, native tier against the interpreter), wire,
# conn (connection file), magic_args, npy (.npy header), device_cell (device
# unit assembly, no NVRTC), native_cell (a native C++ cell's items, prelude
# and unit, no nvcc). tests/fuzz/<target>.dict is passed as -dict.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 20
FUZZ_TARGETS ?= split interp gen native wire conn magic_args npy device_cell native_cell
FUZZ_FLAGS   := -O1 -g -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer \
                -I. -I$(CUDA)/include $(PKGS_CFLAGS) -DICUDA_VERSION='"$(VERSION)"' -DICUDA_CUDA_HOME='"$(CUDA)"'
FUZZ_LANG    := $(sort $(shell find runtime/lang -name '*.c')) runtime/base/utf8.c runtime/base/cache_evict.c runtime/base/cell_io.c \
                runtime/base/xalloc.c runtime/base/strbuf.c runtime/hostmem/arena.c runtime/toolkit/cuda_errors.c \
                build/gen/crt_decls.c build/gen/clib_decls.c
FUZZ_SRC_split  := runtime/cell/split.c runtime/cell/include_routes.c runtime/base/xalloc.c
FUZZ_SRC_interp := $(FUZZ_LANG)
FUZZ_SRC_gen    := $(FUZZ_LANG)
FUZZ_SRC_native := $(FUZZ_LANG)
FUZZ_SRC_wire   := kernel/wire.c kernel/replay.c runtime/base/xalloc.c
FUZZ_SRC_conn   := kernel/connection.c runtime/base/xalloc.c
FUZZ_SRC_magic_args := magics/magic_args.c runtime/base/strbuf.c runtime/base/cell_io.c runtime/base/xalloc.c
FUZZ_SRC_npy    := magics/npy_header.c runtime/base/strbuf.c runtime/base/cell_io.c runtime/base/xalloc.c
FUZZ_SRC_native_cell := runtime/native/native_items.c runtime/native/native_session.c runtime/native/native_unit.c \
                        runtime/native/native_select.c runtime/native/native_launch.c runtime/native/native_closure.c runtime/cell/split.c \
                        runtime/cell/include_routes.c runtime/base/strbuf.c runtime/base/xalloc.c
FUZZ_SRC_device_cell := runtime/device/device_unit.c runtime/device/device_pp.c runtime/device/device_lines.c runtime/cell/split.c \
                        runtime/cell/include_routes.c runtime/base/strbuf.c runtime/base/cell_io.c runtime/base/xalloc.c

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -c $< -o $@
# The generator targets' inputs are a program generator's choices, never
# compared with what the interpreter compares: tracing the interpreter's
# comparisons (for libFuzzer's value table) cost them a third of their time
# and could not steer them (docs/reliability.md). Their generator, in the
# target's own file, keeps the tracing.
FUZZ_NOCMP   := gen native
build/fuzz/obj-nocmp/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fno-sanitize-coverage=trace-cmp -MMD -MP -c $< -o $@
.PRECIOUS: build/fuzz/obj/%.o build/fuzz/obj-nocmp/%.o
-include $(shell find build/fuzz/obj build/fuzz/obj-nocmp -name '*.d' 2>/dev/null)

.SECONDEXPANSION:
# through a function: a % written in the rule would become the stem first
fuzz_objs = $(addprefix build/fuzz/$(if $(filter $(1),$(FUZZ_NOCMP)),obj-nocmp,obj)/,$(patsubst %.c,%.o,$(FUZZ_SRC_$(1))))
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $$(call fuzz_objs,$$*) | $(GEN_LIB) $(GEN_CLIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $^ $(PKGS_LIBS) -ldl -lm -lpthread -o $@

.PHONY: fuzz
fuzz: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/work/$$t; \
	  echo "== fuzz_$$t for $(FUZZ_SECONDS) s$(if $(FUZZ_RUNS), or $(FUZZ_RUNS) executions)"; \
	  build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS)) -timeout=$$(case $$t in native) echo 60;; *) echo 10;; esac) \
	    $$(case $$t in interp|gen|native) echo -detect_leaks=0;; esac) \
	    -rss_limit_mb=4096 -max_len=65536 -artifact_prefix=build/fuzz/$$t- \
	    $$(test -f tests/fuzz/$$t.dict && echo -dict=tests/fuzz/$$t.dict) \
	    -print_final_stats=1 build/fuzz/work/$$t tests/fuzz/corpus/$$t 2>&1 | \
	    grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY|crash-|leak-|timeout-" || true; \
	done
