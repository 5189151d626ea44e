"""icuda's tests under pytest (what `make test` runs; docs/testing.md): plain
test_* functions with asserts in tests/**/test_*.py, @needs_gpu and
@timeout from tests/support.py, unittest.SkipTest for a skip, and the C unit
binaries (build/tests/test_*, whose last line is "N passed, N failed, N
skipped") as one item each. The test files know nothing of pytest, so
tests/run.py (for a Python without pytest: the GPU machine's) runs them too.

    pytest [--gpu] [--kernel PATH] [--plain-kernel PATH] [--mock-kernel PATH] [--unit BINARY ...] [-k WORDS] [-n 2]

The last line of a run is "N passed, N failed, N skipped" counted as
run.py counts (a unit binary's own checks, not the binary), after pytest's
summary line; `make test` and CI read it."""
import os
import re
import subprocess
import sys

import pytest

# At the root, not in tests/, so that pytest knows --kernel before it reads
# the command line: `--kernel build/asan/icuda` would otherwise be taken for
# a path to collect, and tests/conftest.py never loaded.
ROOT = os.path.dirname(os.path.abspath(__file__))
HERE = os.path.join(ROOT, "tests")
DEFAULT_TIMEOUT = 120
UNIT_TIMEOUT = 600
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped\s*$")

if HERE not in sys.path:
    sys.path.insert(0, HERE)


def pytest_addoption(parser):
    g = parser.getgroup("icuda")
    g.addoption("--gpu", action="store_true", help="also run the tests that need a GPU")
    g.addoption("--kernel", default="build/asan/icuda", help="the kernel under test")
    g.addoption("--plain-kernel", default="build/icuda",
                help="the kernel without sanitizers (install and timing tests)")
    g.addoption("--mock-kernel", default="build/icuda-mock",
                help="the protocol layer over the mock language (the protocol's tests)")
    g.addoption("--unit", action="append", default=[], metavar="BINARY",
                help="a C unit-test binary to run (default: build/tests/test_* of tests/unit/test_*.c)")


def pytest_configure(config):
    os.chdir(ROOT)
    kernel = os.path.abspath(config.getoption("--kernel"))
    plain = os.path.abspath(config.getoption("--plain-kernel"))
    mock = os.path.abspath(config.getoption("--mock-kernel"))
    gpu = config.getoption("--gpu")
    os.environ["ICUDA_TEST_KERNEL"] = kernel
    os.environ["ICUDA_TEST_PLAIN_KERNEL"] = plain
    os.environ["ICUDA_TEST_MOCK_KERNEL"] = mock
    os.environ["ICUDA_TEST_GPU"] = "1" if gpu else "0"
    import support
    support.KERNEL, support.PLAIN_KERNEL, support.GPU = kernel, plain, gpu
    support.MOCK_KERNEL = mock


@pytest.hookimpl(tryfirst=True)  # before -k deselects: the run.py names below
def pytest_collection_modifyitems(config, items):
    gpu = config.getoption("--gpu")
    for item in items:
        if isinstance(item, pytest.Function):  # -k matches host/test_host_cells::test_x too
            rel = os.path.relpath(str(item.path), HERE)[:-3].replace(os.sep, "/")
            item.extra_keyword_matches.add(f"{rel}::{item.name}")
        fn = getattr(item, "obj", None)
        if getattr(fn, "needs_gpu", False) and not gpu:
            item.add_marker(pytest.mark.skip(reason="needs a GPU"))
        t = getattr(fn, "timeout", None) if fn is not None else None
        if isinstance(item, UnitItem):
            t = UNIT_TIMEOUT + 60  # the binary's own limit (subprocess) comes first
        if isinstance(t, (int, float)):
            item.add_marker(pytest.mark.timeout(t))


# ---- the kernel a module's tests share (support.shared_kernel) ----

def pytest_runtest_teardown(item, nextitem):
    # after a module's last test (here, or the last this process runs under
    # xdist) its shared kernel is shut down; a sanitizer report found then is
    # an error of that test's teardown
    if nextitem is None or nextitem.path != item.path:
        import support
        support.close_shared_kernel()


# ---- what the GPU machine's Python lacks ----
# Its bundle brings no numpy, nbconvert, jupyter_kernel_test, ...: with --gpu
# a test module (or a test) that needs one is skipped, as run.py does; those
# tests are CI's, where requirements.txt installs them.

@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    rep = yield
    if rep.failed and isinstance(collector, pytest.Module) and collector.config.getoption("--gpu"):
        m = re.search(r"ModuleNotFoundError: (.*)", str(rep.longrepr))
        if m:
            rep.outcome = "skipped"
            rep.longrepr = (str(collector.path), 0, f"Skipped: {m.group(1).strip()} on this machine")
    return rep


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        return (yield)
    except ModuleNotFoundError as e:
        if item.config.getoption("--gpu"):
            pytest.skip(f"{e} on this machine")
        raise


# ---- the C unit binaries ----

def _unit_binary(config, source):
    name = os.path.splitext(os.path.basename(source))[0]
    given = config.getoption("--unit")
    if given:
        for b in given:
            if os.path.basename(b) == name:
                return os.path.abspath(b)
        return None
    return os.path.join(ROOT, "build", "tests", name)  # built or not: an unbuilt one says so


def pytest_collect_file(file_path, parent):
    p = str(file_path)
    if p.endswith(".c") and os.path.basename(p).startswith("test_") and \
            os.path.dirname(p) == os.path.join(HERE, "unit"):
        binary = _unit_binary(parent.config, p)
        if binary:
            return UnitFile.from_parent(parent, path=file_path, binary=binary)
    return None


class UnitFile(pytest.File):
    def __init__(self, *, binary, **kw):
        super().__init__(**kw)
        self.binary = binary

    def collect(self):
        yield UnitItem.from_parent(self, name="unit::" + os.path.basename(self.binary), binary=self.binary)


class UnitFailure(Exception):
    pass


class UnitItem(pytest.Item):
    def __init__(self, *, binary, **kw):
        super().__init__(**kw)
        self.binary = binary

    def runtest(self):
        if not os.path.exists(self.binary):
            pytest.skip(f"not built: make {os.path.relpath(self.binary, ROOT)}")
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        try:
            p = subprocess.run([self.binary], capture_output=True, text=True, errors="replace",
                               timeout=UNIT_TIMEOUT, env=env, cwd=ROOT)
        except subprocess.TimeoutExpired as e:
            self.user_properties.append(("unit_counts", (0, 1, 0)))
            raise UnitFailure(f"timed out\n{e.stdout or ''}{e.stderr or ''}")
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        m = SUMMARY.search(lines[-1]) if lines else None
        if m:
            passed, failed, skipped = map(int, m.groups())
            if p.returncode != 0 and failed == 0:
                failed = 1  # exited badly after reporting (e.g. a leak report)
        else:
            passed, failed, skipped = 0, 1, 0
        self.user_properties.append(("unit_counts", (passed, failed, skipped)))
        if failed:
            raise UnitFailure((p.stdout + p.stderr)[-8000:])

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, UnitFailure):
            return f"{self.binary}:\n{excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, self.name


# ---- the counts line that ends a run ----

_unit_counts = []


def pytest_runtest_logreport(report):
    if report.when == "call":
        for key, value in report.user_properties:
            if key == "unit_counts":
                _unit_counts.append(tuple(value))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    result = yield
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller counts
        return result
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is None:
        return result
    stats = tr.stats
    passed = len([r for r in stats.get("passed", []) if getattr(r, "when", "call") == "call"])
    failed = len(stats.get("failed", [])) + len(stats.get("error", []))
    skipped = len(stats.get("skipped", []))
    for p, f, s in _unit_counts:  # a binary counts as its own checks, as in run.py
        if f:
            failed += f - 1
            passed += p
        else:
            passed += p - 1
        skipped += s
    tr.write_line(f"{passed} passed, {failed} failed, {skipped} skipped")
    return result
