#!/usr/bin/env python3
"""icuda's small test runner, for a Python without pytest (the GPU machine's
bundle): `make test` and `make test-gpu` use pytest (conftest.py) where there
is one, this otherwise. The same tests, the same marks, the same last line.

    python tests/run.py [--gpu] --kernel PATH --plain-kernel PATH [--mock-kernel PATH] [-k SUBSTRING]
                        [UNIT_BINARY | TEST_DIR | TEST_FILE.py ...]

Runs each C unit-test binary (its last line: "N passed, N failed, N skipped";
a crash, or a non-zero exit without that line, is one failure), then every
test_* function of tests/**/test_*.py (tests/unit excluded; or of the test
folders and files named, as pytest takes paths): plain functions
with asserts. Functions marked @needs_gpu are skipped without
--gpu. After a module's last test the kernel its tests shared
(support.shared_kernel) is shut down; a sanitizer report found then is one
failure, MODULE::<shared kernel>. Prints one line per test and, last,
"N passed, N failed, N skipped".
"""
import argparse
import glob
import importlib.util
import inspect
import os
import re
import signal
import subprocess
import sys
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_TIMEOUT = 120
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped\s*$")


class TestTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise TestTimeout("test ran past its time limit")


def run_units(binaries, flt, totals, failures):
    for b in binaries:
        name = "unit::" + os.path.basename(b)
        if flt and flt not in name:
            continue
        t0 = time.time()
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        try:
            p = subprocess.run([b], capture_output=True, text=True, errors="replace",
                               timeout=600, env=env, cwd=ROOT)
            out, rc = p.stdout + p.stderr, p.returncode
            lines = [l for l in p.stdout.splitlines() if l.strip()]
            m = SUMMARY.search(lines[-1]) if lines else None
        except subprocess.TimeoutExpired as e:
            out, rc, m = f"timed out\n{e.stdout or ''}{e.stderr or ''}", -1, None
        except OSError as e:
            out, rc, m = f"cannot run: {e}", -1, None
        dt = time.time() - t0
        if m:
            p_, f_, s_ = map(int, m.groups())
            if rc != 0 and f_ == 0:
                f_ = 1  # exited badly after reporting (e.g. a leak report)
        else:
            p_, f_, s_ = 0, 1, 0
        totals[0] += p_
        totals[1] += f_
        totals[2] += s_
        status = "ok" if f_ == 0 else "FAIL"
        print(f"{status:4} {name} ({p_} passed, {f_} failed, {s_} skipped) {dt:.2f}s", flush=True)
        if f_:
            failures.append((name, out[-8000:]))


def discover(flt, paths=()):
    files = sorted(glob.glob(os.path.join(HERE, "**", "test_*.py"), recursive=True))
    files = [f for f in files if os.sep + "unit" + os.sep not in f[len(HERE):]]
    if paths:
        wanted = [os.path.abspath(p) for p in paths]
        files = [f for f in files if any(f == w or f.startswith(w.rstrip(os.sep) + os.sep) for w in wanted)]
    tests = []
    for path in files:
        rel = os.path.relpath(path, HERE)
        modname = "icuda_tests." + rel[:-3].replace(os.sep, ".")
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
        except Exception:
            tests.append((rel[:-3].replace(os.sep, "/") + "::<import>", None,
                          traceback.format_exc()))
            continue
        fns = [(n, f) for n, f in vars(mod).items()
               if n.startswith("test_") and inspect.isfunction(f) and f.__module__ == modname]
        fns.sort(key=lambda nf: nf[1].__code__.co_firstlineno)
        for n, f in fns:
            full = rel[:-3].replace(os.sep, "/") + "::" + n
            if flt and flt not in full:
                continue
            tests.append((full, f, None))
    return tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true", help="also run the tests that need a GPU")
    ap.add_argument("--kernel", default="build/asan/icuda", help="the kernel under test")
    ap.add_argument("--plain-kernel", default="build/icuda",
                    help="the kernel without sanitizers (install and timing tests)")
    ap.add_argument("--mock-kernel", default="build/icuda-mock",
                    help="the protocol layer over the mock language (the protocol's tests)")
    ap.add_argument("-k", dest="filter", default=None, help="run only tests whose name has this")
    ap.add_argument("units", nargs="*",
                    help="C unit-test binaries, or test folders and files (only those tests run)")
    args = ap.parse_args()

    paths = [u for u in args.units if os.path.isdir(u) or u.endswith(".py")]
    args.units = [os.path.abspath(u) for u in args.units if u not in paths]
    paths = [os.path.abspath(p) for p in paths]
    os.chdir(ROOT)
    os.environ["ICUDA_TEST_KERNEL"] = os.path.abspath(args.kernel)
    os.environ["ICUDA_TEST_PLAIN_KERNEL"] = os.path.abspath(args.plain_kernel)
    os.environ["ICUDA_TEST_MOCK_KERNEL"] = os.path.abspath(args.mock_kernel)
    os.environ["ICUDA_TEST_GPU"] = "1" if args.gpu else "0"
    sys.path.insert(0, HERE)
    import support
    support.KERNEL = os.path.abspath(args.kernel)
    support.PLAIN_KERNEL = os.path.abspath(args.plain_kernel)
    support.MOCK_KERNEL = os.path.abspath(args.mock_kernel)
    support.GPU = args.gpu

    totals = [0, 0, 0]
    failures = []
    run_units(args.units, args.filter, totals, failures)

    def close_module(module):
        # the kernel the module's tests shared (support.shared_kernel) is
        # shut down after its last test; a sanitizer report then is a failure
        try:
            support.close_shared_kernel()
        except AssertionError:
            totals[1] += 1
            print(f"FAIL {module}::<shared kernel>", flush=True)
            failures.append((module + "::<shared kernel>", traceback.format_exc()))

    signal.signal(signal.SIGALRM, on_alarm)
    module = None
    for name, fn, import_error in discover(args.filter, paths):
        if name.split("::")[0] != module:
            if module is not None:
                close_module(module)
            module = name.split("::")[0]
        if fn is None and args.gpu and "ModuleNotFoundError" in import_error:
            # the GPU machine's bundle brings no numpy, nbconvert, ...: those
            # tests are CI's, where requirements.txt installs them
            totals[2] += 1
            print(f"skip {name} ({import_error.strip().splitlines()[-1]} on this machine)", flush=True)
            continue
        if fn is None:
            totals[1] += 1
            print(f"FAIL {name}", flush=True)
            failures.append((name, import_error))
            continue
        if getattr(fn, "needs_gpu", False) and not args.gpu:
            totals[2] += 1
            print(f"skip {name} (needs a GPU)", flush=True)
            continue
        t0 = time.time()
        signal.alarm(getattr(fn, "timeout", DEFAULT_TIMEOUT))
        try:
            fn()
            ok, detail = True, None
        except unittest.SkipTest as e:  # what pytest also takes for a skip
            signal.alarm(0)
            totals[2] += 1
            print(f"skip {name} ({e})", flush=True)
            continue
        except BaseException as e:  # a test's failure, whatever it is, is its own
            if isinstance(e, KeyboardInterrupt):
                signal.alarm(0)
                raise
            if isinstance(e, ModuleNotFoundError) and args.gpu:  # as for imports, above
                signal.alarm(0)
                totals[2] += 1
                print(f"skip {name} ({e} on this machine)", flush=True)
                continue
            ok, detail = False, traceback.format_exc()
        finally:
            signal.alarm(0)
        dt = time.time() - t0
        totals[0 if ok else 1] += 1
        print(f"{'ok' if ok else 'FAIL':4} {name} {dt:.2f}s", flush=True)
        if not ok:
            failures.append((name, detail))

    if module is not None:
        close_module(module)

    for name, detail in failures:
        print(f"\n==== FAIL {name}\n{detail.rstrip()}")
    print(f"\n{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped", flush=True)
    return 1 if totals[1] else 0


if __name__ == "__main__":
    sys.exit(main())
