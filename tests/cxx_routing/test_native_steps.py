"""A native C++ cell's build as icuda runs nvcc's steps (the two front ends
side by side, runtime/program/nvcc_steps.c): the object carries the module
id icuda wrote (named by the unit's key), a compile error is told once at
the cell's line, a warning is shown, ICUDA_NVCC_STEPS=0 gives the build to
nvcc whole, and an interrupt while the front ends run leaves no step
running and nothing in the cache. ICUDA_NVCC_STEPS=1 runs the front ends
side by side however busy the machine is. No GPU needed: the cell compiles, then
cannot run here."""
import os
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


def built_objects(cache):
    root = os.path.join(cache, "icuda", "programs")
    return {d: open(os.path.join(root, d, "cell.so"), "rb").read()
            for d in os.listdir(root) if not d.startswith(".")}


def module_ids(cache, helper):
    """For each cached object, whether its anonymous namespace is named by
    the key of its build (the id icuda wrote) and what the folder holds."""
    out = []
    for key, so in built_objects(cache).items():
        if ("helper_" + helper).encode() in so:
            folder = os.listdir(os.path.join(cache, "icuda", "programs", key))
            out.append((("_GLOBAL__N__%s_7_cell_cu" % key[:16]).encode() in so, sorted(folder)))
    return out


def built_with(steps, helper):
    """module_ids of the cell ANON % helper, built with ICUDA_NVCC_STEPS=steps
    in a cache of its own."""
    cache = tempfile.mkdtemp(prefix="icuda-steps-")
    try:
        with kernel(env={"XDG_CACHE_HOME": cache, "ICUDA_NVCC_STEPS": steps}) as k:
            c, _ = run(k, ANON % helper, 300)
            compiled(c)
        return module_ids(cache, helper)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


@timeout(300)
def test_the_steps_build_the_object_with_icudas_module_id_and_keep_no_intermediates():
    ids = built_with("1", "steps")
    assert ids == [(True, ["cell.cu", "cell.so"])], ids


@timeout(300)
def test_the_fallback_gives_the_build_to_nvcc_whole():
    ids = built_with("0", "whole")
    assert len(ids) == 1 and ids[0][0] is False, ids  # nvcc's own id, not the key's


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
