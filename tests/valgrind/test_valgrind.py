"""valgrind over the C code, beside the ASan builds that the other tests
use: the unit tests built without sanitizers (build/tests-plain/), and a
kernel session of host cells and magics. Skipped where valgrind is missing."""
import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import tempfile

import support

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAIN = os.path.join(ROOT, "build", "tests-plain")
VALGRIND = shutil.which("valgrind")
FLAGS = ["--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
         "--show-leak-kinds=definite", "--track-fds=no"]
# The GPU worker test talks to a driver when there is one: valgrind is not for that.
UNITS = ["test_split", "test_wire", "test_arena", "test_lang", "test_sanitizer_log", "test_occupancy",
         "test_device_pointers", "test_prepared", "test_profile_report", "test_program_detect", "test_program_log",
         "test_program_run", "test_cuda_api", "test_file_read", "test_history", "test_nvcc_dryrun"]
LONGEST = ("test_lang", "test_history")  # under valgrind, a minute and half a minute


def errors_in(log):
    for line in log.splitlines():
        if "ERROR SUMMARY:" in line:
            return int(line.split("ERROR SUMMARY:")[1].split()[0])
    return -1


def _halves(folder):
    """The case files of folder in two lists of about equal size: test_lang
    runs the files it is given, and the halves run side by side."""
    files = sorted(glob.glob(os.path.join(folder, "*.cases")), key=os.path.getsize, reverse=True)
    halves = ([], [])
    sizes = [0, 0]
    for f in files:
        i = sizes.index(min(sizes))
        halves[i].append(os.path.relpath(f, ROOT))
        sizes[i] += os.path.getsize(f)
    return [sorted(h) for h in halves if h]


@support.timeout(900)
def test_unit_tests_under_valgrind():
    if not VALGRIND:
        print("valgrind not installed: skipped")
        return
    # a small shared arena for the interpreter's tests: valgrind's leak check
    # reads the whole mapping at exit (2 GiB cost each binary 6 s more than
    # 256 MiB), and the default reserve costs minutes and gigabytes
    # (test_arena checks the reserve itself)
    small = dict(os.environ, ICUDA_ARENA_MB="256")
    runs = []
    for name in UNITS:
        env = small if name in ("test_lang", "test_prepared", "test_device_pointers", "test_cuda_api") else None
        exe = os.path.join(PLAIN, name)
        assert os.path.exists(exe), f"{exe} missing (make builds it for make test)"
        if name == "test_lang":  # the longest by far: its case files in two runs
            runs += [(name, [exe] + half, env) for half in _halves(os.path.join(ROOT, "tests", "lang"))]
        else:
            runs.append((name, [exe], env))

    runs.sort(key=lambda job: job[0] not in LONGEST)

    def run(job):
        name, argv, env = job
        p = subprocess.run([VALGRIND, "-q"] + FLAGS + argv, capture_output=True, text=True,
                           errors="replace", cwd=ROOT, timeout=800, env=env)
        return name, p

    # two at a time, the longest first
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(run, runs))
    bad = [f"{name} under valgrind: exit {p.returncode}\n{p.stderr[-4000:]}" for name, p in done if p.returncode != 0]
    assert not bad, "\n".join(bad)


@support.timeout(600)
def test_kernel_session_under_valgrind():
    if not VALGRIND:
        print("valgrind not installed: skipped")
        return
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    tmp = tempfile.mkdtemp(prefix="icuda-vg-")
    log = os.path.join(tmp, "valgrind.log")
    try:
        spec = os.path.join(tmp, "kernels", "icuda")
        os.makedirs(spec)
        kernel = os.path.abspath(support.PLAIN_KERNEL)
        with open(os.path.join(spec, "kernel.json"), "w") as f:
            # no background NVRTC warm-up: NVRTC itself is not ours to check
            json.dump({"argv": [VALGRIND, "--log-file=" + log] + FLAGS + [kernel, "-f", "{connection_file}"],
                       "display_name": "icuda under valgrind", "language": "cuda",
                       "interrupt_mode": "message", "env": {"ICUDA_NO_WARMUP": "1", "ICUDA_ARENA_MB": "256"}}, f)
        km = KernelManager(kernel_name="icuda",
                           kernel_spec_manager=KernelSpecManager(kernel_dirs=[os.path.join(tmp, "kernels")]))
        km.start_kernel()
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=120)
            cells = ["int n = 10;\ndouble *x = (double *)malloc(n * sizeof(double));\n"
                     "for (int i = 0; i < n; i++) x[i] = i * 0.5;\nprintf(\"%g\\n\", x[n - 1]);",
                     "struct P { int a; double b; };\nstruct P p = {1, 2.5};\np",
                     "x[n] = 1;", "free(x);\nfree(x);", "%who", "%lsmagic", "%help nvrtc", "x",
                     "%memcheck --tool racecheck n = 3;", "%resources --block 64", "%sass nosuch",
                     "%timeit -n 20 -r 2 -o t n++", "t.mean > 0", "%%timeit -n 2 -r 2 int k = 1;\nn += k;",
                     "%timeit -n 2 -r 1 --bytes 8*n --flops n n++", "%timeit --bytes 8*M n++",
                     "%timeit -n 2 -r 1 int *q = 0; *q = 1;", "%roofline", "%roofline --clear"]
            for code in cells:
                reply = kc.execute_interactive(code, timeout=120, output_hook=lambda m: None)
                assert reply["content"]["status"] in ("ok", "error")
            kc.is_complete("for (int i = 0; i < 3; i++) {")
            kc.complete("pri", 3)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=False)
        with open(log, errors="replace") as f:
            text = f.read()
        assert errors_in(text) == 0, text[-6000:]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
