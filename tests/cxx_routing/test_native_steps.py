"""A native C++ cell's build as icuda runs nvcc's steps (the two front ends
side by side, runtime/program/nvcc_steps.c): the object carries the module
id icuda wrote (named by the unit's headers), a compile error is told once at
the cell's line, a warning is shown, ICUDA_NVCC_STEPS=0 gives the build to
nvcc whole, and an interrupt while the front ends run leaves no step
running and nothing in the cache. ICUDA_NVCC_STEPS=1 runs the front ends
side by side however busy the machine is. A later cell with the same
Thrust headers compiles its host text on a precompiled header
(runtime/program/nvcc_pch.c), and a damaged one costs only time. No GPU
needed: the cell compiles, then cannot run here."""
import os
import re
import shutil
import tempfile
import time

import support
from support import kernel, run, stdout_of, timeout

ANON = ("#include <thrust/device_vector.h>\n#include <cstdio>\n"
        "namespace { __attribute__((used, noinline)) int helper_%s(int x) { return x + 1; } }\n"
        "thrust::device_vector<int> v(4, 1);\nprintf(\"%%d\\n\", (int)v.size());")


def compiled(c):
    if support.GPU:
        assert c["status"] == "ok", c
    else:
        assert c["ename"] == "cudaErrorNoDevice" and "compiled, but cannot run" in c["evalue"], c


def module_ids(cache):
    """The module id in each cached object (its anonymous namespace's name),
    by the helper the cell defines."""
    root = os.path.join(cache, "icuda", "programs")
    out = {}
    for d in os.listdir(root):
        if d.startswith("."):
            continue
        so = open(os.path.join(root, d, "cell.so"), "rb").read()
        helper = re.search(rb"helper_([a-z]+)", so).group(1).decode()
        # icuda's form _HASH16_7_cell_cu, or nvcc's _HASH8_7_cell_cu_HASH8
        ids = set(re.findall(rb"_GLOBAL__N_(_[0-9a-f]+_7_cell_cu(?:_[0-9a-f]{8})?)", so))
        out[helper] = (ids, sorted(os.listdir(os.path.join(root, d))))
    return out


def built_with(steps, cells):
    """module_ids of cells run one after the other in one kernel with
    ICUDA_NVCC_STEPS=steps, in a cache of their own."""
    cache = tempfile.mkdtemp(prefix="icuda-steps-")
    try:
        with kernel(env={"XDG_CACHE_HOME": cache, "ICUDA_NVCC_STEPS": steps, "ICUDA_NVCC_PCH": "0"}) as k:
            for cell in cells:
                c, _ = run(k, cell, 300)
                compiled(c)
        return module_ids(cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


ICUDA_ID = re.compile(rb"^_[0-9a-f]{16}_7_cell_cu$")  # what icuda writes


@timeout(300)
def test_the_steps_name_the_module_by_its_headers_and_keep_no_intermediates():
    sort = ANON.replace("#include <cstdio>", "#include <cstdio>\n#include <thrust/sort.h>")
    ids = built_with("1", [ANON % "one", "#define CELL_TWO 2\n" + ANON % "two", sort % "three"])
    assert set(ids) == {"one", "two", "three"}, ids
    for helper, (names, folder) in ids.items():
        assert len(names) == 1 and ICUDA_ID.match(next(iter(names))), (helper, names)
        assert folder == ["cell.cu", "cell.so"], folder
    assert ids["one"][0] == ids["two"][0], ids  # the same headers: one id
    assert ids["three"][0] != ids["one"][0], ids


@timeout(300)
def test_the_fallback_gives_the_build_to_nvcc_whole():
    ids = built_with("0", [ANON % "whole"])
    names = ids["whole"][0]
    assert len(names) == 1 and not ICUDA_ID.match(next(iter(names))), names  # nvcc's own id


@timeout(300)
def test_errors_once_at_the_cells_line_and_a_warning_shown():
    cache = tempfile.mkdtemp(prefix="icuda-steps-")  # a cached build shows no warning
    try:
        steps_report_errors_and_warnings(cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def steps_report_errors_and_warnings(cache):
    with kernel(env={"XDG_CACHE_HOME": cache}) as k:
        c, msgs = run(k, "#include <thrust/device_vector.h>\n#include <cstdio>\n"
                         "thrust::device_vector<int> w(10, 1)\nprintf(\"x\\n\");", 300)
        assert c["ename"] == "CompileError", c
        tb = "\n".join(c["traceback"])
        assert "1 error in the native C++ cell In [1]" in tb, tb
        assert tb.count('error: expected a ";"') == 1, tb  # cudafe++'s, not cicc's as well
        assert "In [1], line 4" in tb, tb
        c, msgs = run(k, "#include <thrust/device_vector.h>\n__device__ void f() { undefined_thing(); }\n", 300)
        tb = "\n".join(c["traceback"])
        assert c["ename"] == "CompileError" and tb.count("is undefined") == 1 and "In [2], line 2" in tb, tb
        c, msgs = run(k, "#include <thrust/device_vector.h>\n__device__ int g() { }\n", 300)
        compiled(c)
        err = stdout_of(msgs, "stderr")
        assert err.count("In [3], line 2: warning #940-D: missing return statement") == 1, err


def steps_running(folder):
    """Processes whose working folder is under folder: a build's steps."""
    n = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                n += os.readlink("/proc/%s/cwd" % pid).startswith(folder)
            except OSError:
                pass
    return n


@timeout(300)
def test_interrupt_while_the_front_ends_run_stops_every_step():
    cache = tempfile.mkdtemp(prefix="icuda-steps-")
    programs = os.path.join(cache, "icuda", "programs")
    try:
        with kernel(env={"XDG_CACHE_HOME": cache, "ICUDA_NVCC_STEPS": "1"}) as k:
            msg_id = k.kc.execute("#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n"
                                  "thrust::device_vector<double> v(1000, 1.0);\nthrust::sort(v.begin(), v.end());")
            for _ in range(6000):  # until cudafe++ or cicc has started
                if os.path.isdir(programs) and any(
                        f.endswith((".cpp1.ii", ".cudafe1.cpp")) for d in os.listdir(programs)
                        for f in os.listdir(os.path.join(programs, d))):
                    break
                time.sleep(0.01)
            k.request("interrupt_request", channel="control")
            c = k.reply_to(msg_id, "shell", timeout=60)["content"]
            assert c["status"] == "error" and c["ename"] == "KeyboardInterrupt", c
            for _ in range(300):  # the steps go; how fast is not what is tested
                if steps_running(programs) == 0:
                    break
                time.sleep(0.1)
            assert steps_running(programs) == 0
            assert os.listdir(programs) == [], os.listdir(programs)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def wait_for_header(pch):
    for _ in range(2400):  # its compile runs in the background; how long it takes is not what is tested
        done = [d for d in os.listdir(pch) if not d.startswith(".")] if os.path.isdir(pch) else []
        if done:
            return os.path.join(pch, done[0])
        time.sleep(0.1)
    raise AssertionError("no precompiled header in %s: %s" % (pch, os.listdir(pch)))


@timeout(600)
def test_a_later_thrust_cell_compiles_on_the_headers_the_first_precompiled():
    cache = tempfile.mkdtemp(prefix="icuda-steps-")
    log = os.path.join(cache, "steps.log")
    try:
        with kernel(env={"XDG_CACHE_HOME": cache, "ICUDA_NVCC_STEPS": "1", "ICUDA_NVCC_STEPS_LOG": log}) as k:
            for i, helper in enumerate(("one", "two", "three")):
                c, msgs = run(k, ANON % helper, 300)
                compiled(c)
                if support.GPU:
                    assert stdout_of(msgs) == "4\n", msgs
                if i == 0:
                    header = wait_for_header(os.path.join(cache, "icuda", "pch"))
                    assert sorted(os.listdir(header)) == ["prefix.h", "prefix.h.gch"]
                if i == 1:  # damaged: gcc reads the header's text instead, only slower
                    with open(os.path.join(header, "prefix.h.gch"), "r+b") as f:
                        f.write(b"not a precompiled header")
        notes = [line.split(" gcc -c ")[1].strip() for line in open(log) if " gcc -c (" in line]
        assert notes == ["(precompiling the headers beside it)", "(precompiled headers)", "(precompiled headers)"], \
            open(log).read()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
