"""A short libFuzzer run of each target (make fuzz, docs/reliability.md):
20 s each from its corpus (ICUDA_FUZZ_SECONDS sets another time), no
crash, leak, UB report or hang. Skipped where clang has no libFuzzer.
The mutations start from a fixed seed (ICUDA_FUZZ_SEED sets another), so a
finding reproduces on the next run of the same code instead of coming and
going; `make fuzz` explores with fresh seeds."""
import os
import re
import shutil
import subprocess
import tempfile

from support import timeout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def have_libfuzzer():
    if not shutil.which("clang"):
        return False
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "f.c")
        with open(src, "w") as f:
            f.write("#include <stddef.h>\n#include <stdint.h>\n"
                    "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }\n")
        return subprocess.run(["clang", "-fsanitize=fuzzer", src, "-o", os.path.join(d, "f")],
                              capture_output=True).returncode == 0


SECONDS = int(os.environ.get("ICUDA_FUZZ_SECONDS", "20"))
SEED = int(os.environ.get("ICUDA_FUZZ_SEED", "20261128"))


@timeout(300 + 10 * (SECONDS + 60))
def test_each_fuzzer_runs_clean_for_a_while():
    if not have_libfuzzer():
        print("skip: clang without libFuzzer")
        return
    targets = ["split", "interp", "gen", "native", "wire", "conn", "magic_args", "npy", "device_cell", "native_cell"]
    r = subprocess.run(["make", "-s"] + [f"build/fuzz/fuzz_{t}" for t in targets], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    for t in targets:
        with tempfile.TemporaryDirectory() as work:
            d = os.path.join("tests/fuzz", f"{t}.dict")
            p = subprocess.run([f"build/fuzz/fuzz_{t}", f"-max_total_time={SECONDS}", "-timeout=10", "-rss_limit_mb=4096",
                                "-max_len=65536", "-print_final_stats=1", f"-seed={SEED}", f"-artifact_prefix={work}/"]
                               + ([f"-dict={d}"] if os.path.exists(os.path.join(ROOT, d)) else [])
                               + (["-detect_leaks=0"] if t in ("interp", "gen", "native") else [])  # the harness checks per session
                               + (["-timeout=60"] if t == "native" else [])  # a C compiler run per loop
                               + [work, f"tests/fuzz/corpus/{t}"], cwd=ROOT, capture_output=True, text=True,
                               errors="replace", timeout=SECONDS + 300)
            out = p.stdout + p.stderr
            m = re.search(r"stat::number_of_executed_units: (\d+)", out)
            assert p.returncode == 0 and m, f"fuzz_{t}:\n{out[-6000:]}"
            print(f"fuzz_{t}: {m.group(1)} executions from seed {SEED}, clean")
