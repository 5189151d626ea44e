"""icuda as a person meets it in a browser: JupyterLab and Notebook 7 (one
Jupyter server, started once for the module) driven by Playwright with
Debian's Chromium. Run a device cell and a host cell and read their output
from the page, Tab-complete a kernel's name, Shift-Tab a runtime function,
stop a running loop with the stop button, restart. Screenshots go to
build/browser/. Skipped, with the reason, where Chromium or Playwright is
missing."""
import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import support

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lab_page  # noqa: E402
from lab_page import (cell, output_of, requirements, run_cell, run_first_after_restart,  # noqa: E402
                      run_until, text_holds, wait_idle)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHOTS = os.path.join(ROOT, "build", "browser")
TOKEN = "icuda-browser-test"

CELLS = [
    "__global__ void scale_by(float *x, float a, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] *= a;\n}",
    'int n = 6;\nprintf("sum %d\\n", n * 7);',
    "long spins = 0;\nfor (;;) spins++;",
    "",
]

_server = {}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _notebook(path):
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "icuda", "display_name": "CUDA C (icuda, test)",
                                      "language": "cuda"}},
          "cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "execution_count": None,
                     "outputs": [], "source": src} for i, src in enumerate(CELLS)]}
    with open(path, "w") as f:
        json.dump(nb, f)


def server():
    """The Jupyter server (JupyterLab and Notebook 7), started on first use."""
    if _server:
        return _server
    requirements()
    spec = support.kernelspec_dir(support.PLAIN_KERNEL)
    data = spec.__enter__()
    work = tempfile.mkdtemp(prefix="icuda-browser-")
    port = _free_port()
    env = dict(os.environ, JUPYTER_PATH=data, JUPYTER_CONFIG_DIR=os.path.join(work, "config"),
               JUPYTER_RUNTIME_DIR=os.path.join(work, "runtime"),
               JUPYTERLAB_WORKSPACES_DIR=os.path.join(work, "workspaces"),
               JUPYTERLAB_SETTINGS_DIR=os.path.join(work, "settings"))
    log = open(os.path.join(work, "server.log"), "w")
    proc = subprocess.Popen(
        [os.path.join(os.path.dirname(sys.executable), "jupyter-lab"), "--no-browser",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", f"--IdentityProvider.token={TOKEN}",
         f"--ServerApp.root_dir={work}", "--ServerApp.port_retries=0",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        + (["--allow-root"] if os.geteuid() == 0 else []),
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                with open(os.path.join(work, "server.log")) as f:
                    raise AssertionError(f"the Jupyter server did not start:\n{f.read()[-4000:]}")
            time.sleep(0.5)

    def stop():
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        spec.__exit__(None, None, None)
        shutil.rmtree(work, ignore_errors=True)

    atexit.register(stop)
    os.makedirs(SHOTS, exist_ok=True)
    _server.update(url=url, work=work, browser=lab_page.browser())
    return _server


def smoke(app, path_of):
    """The same steps in JupyterLab and in Notebook 7."""
    s = server()
    name = f"{app}.ipynb"
    _notebook(os.path.join(s["work"], name))
    page = s["browser"].new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"{s['url']}{path_of(name)}?token={TOKEN}")
        page.locator(".jp-Notebook .jp-Cell .cm-content").first.wait_for(timeout=60000)
        wait_idle(page)
        text = run_until(page, 0, "registers")
        assert "scale_by(float *x, float a, int n)" in text, text
        run_cell(page, 1)
        assert "sum 42" in output_of(page, 1, "sum 42")
        page.screenshot(path=os.path.join(SHOTS, f"{app}-run.png"))

        # Tab completes the kernel's name in an empty cell
        ed = cell(page, 3).locator(".cm-content")
        ed.click()
        page.keyboard.type("scale_b")
        page.keyboard.press("Tab")
        # the completer lists it, with its type; Enter takes it (a lone match
        # may also be inserted at once, depending on the front end's settings)
        deadline = time.time() + 20
        while "scale_by" not in ed.inner_text() and time.time() < deadline:
            box = page.locator(".jp-Completer")
            if box.count() and box.first.is_visible():
                assert "scale_by" in box.first.inner_text() and "kernel" in box.first.inner_text()
                page.screenshot(path=os.path.join(SHOTS, f"{app}-completer.png"))
                page.keyboard.press("Enter")
                break
            time.sleep(0.2)
        text_holds(ed, "scale_by")
        page.screenshot(path=os.path.join(SHOTS, f"{app}-complete.png"))

        # Shift-Tab on a runtime function: its prototype in a tooltip
        page.keyboard.press("Control+a")
        page.keyboard.type("cudaMalloc")
        page.keyboard.press("Shift+Tab")
        tip = page.locator(".jp-Tooltip")
        tip.wait_for(timeout=20000)
        text_holds(tip, "cudaMalloc(void **devPtr, size_t size)")
        page.screenshot(path=os.path.join(SHOTS, f"{app}-inspect.png"))
        page.keyboard.press("Escape")

        # a loop that never ends, stopped with the toolbar's stop button
        run_cell(page, 2)
        time.sleep(1.5)
        page.locator("[data-command='notebook:interrupt-kernel']").first.click()
        assert "KeyboardInterrupt" in output_of(page, 2, "KeyboardInterrupt", 30)
        page.screenshot(path=os.path.join(SHOTS, f"{app}-interrupt.png"))

        # restart: the session is new, and runs cells again
        page.locator("[data-command='notebook:restart-kernel']").first.click()
        page.locator(".jp-Dialog .jp-mod-accept").click()
        time.sleep(1)
        wait_idle(page)
        run_first_after_restart(page, 1, "sum 42")
        page.screenshot(path=os.path.join(SHOTS, f"{app}-restart.png"))
    except BaseException:
        page.screenshot(path=os.path.join(SHOTS, f"{app}-failure.png"))
        raise
    finally:
        page.close()


@support.timeout(300)
def test_jupyterlab():
    smoke("lab", lambda name: f"/lab/tree/{name}")


@support.timeout(300)
def test_notebook7():
    smoke("notebook", lambda name: f"/notebooks/{name}")


PLOT_CELLS = [
    # a benchmark sweep in one loop cell, as the seeds end theirs: a host
    # loop timed over sizes 2^12 ... 2^20 (on a GPU machine a kernel's time
    # would be the second curve; here a second host loop stands in for it)
    "#include <chrono>\n"
    "double sizes[9], t_sum[9], t_scale[9];\n"
    "for (int k = 0; k < 9; k++) {\n"
    "    long n = 1L << (12 + k);\n"
    "    float *x = (float *)malloc(n * sizeof(float));\n"
    "    auto t0 = std::chrono::steady_clock::now();\n"
    "    double s = 0;\n"
    "    for (long i = 0; i < n; i++) { x[i] = i; s += x[i]; }\n"
    "    auto t1 = std::chrono::steady_clock::now();\n"
    "    for (long i = 0; i < n; i++) x[i] *= 2.0f;\n"
    "    auto t2 = std::chrono::steady_clock::now();\n"
    "    sizes[k] = n;\n"
    "    t_sum[k] = std::chrono::duration<double>(t1 - t0).count();\n"
    "    t_scale[k] = std::chrono::duration<double>(t2 - t1).count();\n"
    "    free(x);\n"
    "}\n"
    'printf("swept %d sizes\\n", 9);',
    "%plot --loglog --title sweep --xlabel n --ylabel seconds --labels sum,scale sizes t_sum t_scale",
    "%save sweep.npy t_sum",
]


@support.timeout(300)
def test_plot_rendered_by_jupyterlab():
    """%plot's Vega-Lite spec is drawn by JupyterLab's own
    Vega renderer (interactive: hover, zoom, export), not the SVG fallback,
    and %save's file reads in numpy."""
    s = server()
    name = "plot.ipynb"
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "icuda", "display_name": "CUDA C (icuda, test)",
                                      "language": "cuda"}},
          "cells": [{"cell_type": "code", "id": f"p{i}", "metadata": {}, "execution_count": None,
                     "outputs": [], "source": src} for i, src in enumerate(PLOT_CELLS)]}
    with open(os.path.join(s["work"], name), "w") as f:
        json.dump(nb, f)
    page = s["browser"].new_page(viewport={"width": 1400, "height": 1000})
    try:
        # a workspace of its own: JupyterLab's default one still has the smoke
        # test's notebook open, whose cells would match the locators too
        page.goto(f"{s['url']}/lab/workspaces/plot/tree/{name}?reset&token={TOKEN}")
        page.locator(".jp-Notebook .jp-Cell .cm-content").first.wait_for(timeout=60000)
        wait_idle(page)
        run_until(page, 0, "swept 9 sizes")
        # language_info's codemirror_mode (C++: JupyterLab 4 has no CUDA mode)
        # highlights the code: keywords and literals are spans of their own
        tokens = cell(page, 0).locator(".cm-content .cm-line span")
        assert tokens.count() > 20, tokens.count()
        assert "for" in [t.strip() for t in tokens.all_inner_texts()]
        run_cell(page, 1)
        vega = cell(page, 1).locator(".jp-RenderedVegaCommon5")
        vega.first.wait_for(timeout=60000)
        # vega-embed draws the chart (canvas or svg) and its actions menu
        drawn = vega.first.locator("canvas, svg")
        drawn.first.wait_for(timeout=30000)
        box = drawn.first.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100, box
        assert cell(page, 1).locator(".vega-embed").count() == 1
        # the static SVG is the fallback only: JupyterLab picked the richer type
        assert cell(page, 1).locator(".jp-RenderedSVG").count() == 0
        cell(page, 1).scroll_into_view_if_needed()
        page.screenshot(path=os.path.join(SHOTS, "lab-plot.png"))
        run_cell(page, 2)
        output_of(page, 2, "sweep.npy")
        try:
            import numpy
        except ImportError:
            return
        a = numpy.load(os.path.join(s["work"], "sweep.npy"))
        assert a.shape == (9,) and a.dtype == numpy.float64 and (a > 0).all(), a
    except BaseException:
        page.screenshot(path=os.path.join(SHOTS, "lab-plot-failure.png"))
        raise
    finally:
        page.close()
