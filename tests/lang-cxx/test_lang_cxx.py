"""The C++ cases of tests/lang-cxx: the interpreter (test_lang, the ASan
build) against them, skipping the titles of tests/lang-cxx/XFAIL (C++ that
icuda does not interpret yet), and the g++ oracle that checks the cases'
expected output against a C++ compiler.

As features land, take their titles out of XFAIL; a listed case that passes
is printed as XPASS. `python3 tests/lang-cxx/test_lang_cxx.py --write-xfail`
rewrites XFAIL with the cases that fail now (grouped by file).
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEST_LANG = os.path.join(ROOT, "build", "tests", "test_lang")
XFAIL = os.path.join(HERE, "XFAIL")
ORACLE = os.path.join(HERE, "check_with_gxx.py")

try:
    import support
    timeout = support.timeout
except ImportError:  # run as a script
    def timeout(seconds):
        return lambda fn: fn


def _oracle_module():
    spec = importlib.util.spec_from_file_location("check_with_gxx", ORACLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def case_files():
    return sorted(os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".cases"))


def all_cases():
    mod = _oracle_module()
    return [c for f in case_files() for c in mod.parse_cases(f)]


def xfail_titles():
    with open(XFAIL) as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


def run_test_lang(xfail_file):
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
    if xfail_file:
        env["TEST_LANG_XFAIL"] = xfail_file
    else:
        env.pop("TEST_LANG_XFAIL", None)
    return subprocess.run([TEST_LANG, os.path.relpath(HERE, ROOT)], capture_output=True, text=True,
                          errors="replace", cwd=ROOT, env=env, timeout=600)


def test_case_titles_are_unique_and_xfail_names_only_cases():
    titles = [c.title for c in all_cases()]
    dup = sorted({t for t in titles if titles.count(t) > 1})
    assert not dup, f"titles used twice in tests/lang-cxx: {dup}"
    listed = xfail_titles()
    stale = [t for t in listed if t not in titles]
    assert not stale, f"XFAIL names titles that no case has: {stale}"
    twice = sorted({t for t in listed if listed.count(t) > 1})
    assert not twice, f"XFAIL lists these twice: {twice}"


@timeout(600)
def test_cxx_cases_pass_or_are_listed_as_not_yet_supported():
    assert os.path.exists(TEST_LANG), f"{TEST_LANG} missing (make test builds it)"
    p = run_test_lang(XFAIL)
    err = p.stderr
    for line in err.splitlines():
        if line.startswith("XPASS"):
            print(line)  # passes now: its title can leave XFAIL
    m = re.search(r"^cases: (\d+) passed, (\d+) failed, (\d+) skipped", err, re.M)
    assert m, f"no summary from test_lang:\n{err[-4000:]}"
    print(f"tests/lang-cxx: {m.group(1)} passed, {m.group(2)} failed, "
          f"{m.group(3)} skipped (not yet supported, in XFAIL)")
    fails = "\n".join(l for l in err.splitlines() if l.startswith("FAIL") or l.startswith("  "))
    assert m.group(2) == "0" and p.returncode == 0, f"test_lang on tests/lang-cxx:\n{fails[-8000:]}\n{p.stdout}"


@timeout(900)
def test_cases_agree_with_gxx():
    if not shutil.which("g++"):
        print("g++ not installed: the oracle is skipped")
        return
    p = subprocess.run([sys.executable, ORACLE], capture_output=True, text=True, errors="replace",
                       cwd=ROOT, timeout=880)
    lines = p.stdout.strip().splitlines()
    print(lines[-1] if lines else "(no output)")
    assert p.returncode == 0, p.stdout[-8000:] + p.stderr[-2000:]


def write_xfail():
    """XFAIL from the cases that fail now, grouped by file."""
    p = run_test_lang(None)
    failing = set()
    for line in p.stderr.splitlines():
        m = re.match(r"FAIL (\S+\.cases):(\d+): (.*)$", line)
        if m:
            failing.add((os.path.basename(m.group(1)), m.group(3)))
    mod = _oracle_module()
    out = ["# Cases of tests/lang-cxx that icuda does not pass yet, by title (one a line).",
           "# test_lang runs them and counts a failure as skipped; a listed case that",
           "# passes is printed as XPASS: take its title out as features land.",
           "# Rewrite from the current state: python3 tests/lang-cxx/test_lang_cxx.py --write-xfail"]
    for f in case_files():
        base = os.path.basename(f)
        titles = [c.title for c in mod.parse_cases(f) if (base, c.title) in failing]
        if titles:
            out += ["", f"# {base}"] + titles
    with open(XFAIL, "w") as fh:
        fh.write("\n".join(out) + "\n")
    print(f"{len(failing)} titles written to {XFAIL}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-xfail"]:
        write_xfail()
    else:
        print(__doc__)
