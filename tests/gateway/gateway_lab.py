"""JupyterLab whose kernels run behind a gateway (`--gateway-url`), as on a
cluster whose GPU node runs Jupyter Kernel Gateway or Enterprise Gateway,
driven in Debian's Chromium through Playwright as the other browser tests
are: a notebook with the icuda kernel runs host C, draws %plot's chart
with JupyterLab's own renderer, Tab-completes a name of the session, stops
a loop with the stop button and restarts, every step through the gateway.
in_lab(kind) is one test, run by test_kernel_gateway.py and
test_enterprise_gateway.py against the gateway their module shares. Skipped, with the reason, where Chromium, Playwright
or a gateway is missing. Screenshots go to build/browser/."""
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "frontend"))
from gateways import ROOT, TOKEN, end, executable, free_port, shared, spawn, wait_new_kernel, wait_up  # noqa: E402
from lab_page import (browser, cell, output_of, requirements, run_cell, run_first_after_restart,  # noqa: E402
                      run_until, text_holds, wait_idle)

SHOTS = os.path.join(ROOT, "build", "browser")

CELLS = [
    'int gateway_answer = 42;\ndouble xs[4] = {1, 2, 3, 4}, ys[4] = {1, 4, 9, 16};\n'
    'printf("answer %d\\n", gateway_answer);',
    "%plot --title squares xs ys",
    "long spins = 0;\nfor (;;) spins++;",
    "",
]


class Lab:
    """A JupyterLab server whose kernels are the gateway's."""

    def __init__(self, gw):
        self.work = tempfile.mkdtemp(prefix="icuda-lab-gateway-")
        self.proc = None
        try:
            port = free_port()
            self.url = f"http://127.0.0.1:{port}"
            env = dict(os.environ, JUPYTER_CONFIG_DIR=os.path.join(self.work, "config"),
                       JUPYTER_DATA_DIR=os.path.join(self.work, "data"),
                       JUPYTER_RUNTIME_DIR=os.path.join(self.work, "runtime"),
                       JUPYTERLAB_WORKSPACES_DIR=os.path.join(self.work, "workspaces"),
                       JUPYTERLAB_SETTINGS_DIR=os.path.join(self.work, "settings"),
                       PYTHONPATH=os.path.join(ROOT, "tools", "jupyter"),
                       JUPYTER_GATEWAY_AUTH_TOKEN=TOKEN)
            log = os.path.join(self.work, "lab.log")
            self.proc = spawn(
                [os.path.join(os.path.dirname(sys.executable), "jupyter-lab"), "--no-browser",
                 "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
                 f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={self.work}",
                 "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                 # the one thing that sends kernels to the gateway
                 f"--gateway-url={gw.url}",
                 # the proxy that closes the websocket a reconnecting browser left
                 "--ServerApp.kernel_websocket_connection_class=gateway_websocket.GatewayWebSocketConnection"]
                + (["--allow-root"] if os.geteuid() == 0 else []),
                log, env)
            wait_up(self.proc, f"{self.url}/api", log)
        except BaseException:
            self.stop()
            raise

    def log(self):
        with open(os.path.join(self.work, "lab.log"), errors="replace") as f:
            return f.read()

    def stop(self):
        if self.proc is not None:
            end(self.proc)
        shutil.rmtree(self.work, ignore_errors=True)


def notebook(path):
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "icuda", "display_name": "CUDA C (icuda)", "language": "cuda"}},
          "cells": [{"cell_type": "code", "id": f"g{i}", "metadata": {}, "execution_count": None,
                     "outputs": [], "source": src} for i, src in enumerate(CELLS)]}
    with open(path, "w") as f:
        json.dump(nb, f)


def in_lab(kind):
    requirements()
    executable(kind)
    os.makedirs(SHOTS, exist_ok=True)
    shot = lambda page, what: page.screenshot(path=os.path.join(SHOTS, f"{kind}-gateway-{what}.png"))  # noqa: E731
    gw = shared(kind)
    status, listed = gw.api("GET", "/api/kernels")
    assert status == 200, listed
    theirs = {k["id"] for k in listed}
    lab = Lab(gw)
    try:
        notebook(os.path.join(lab.work, "remote.ipynb"))
        page = browser().new_page(viewport={"width": 1400, "height": 1000})
        try:
            steps(page, lab, gw, shot)
        except BaseException:
            shot(page, "failure")
            raise
        finally:
            page.close()
    except BaseException:
        print("--- the gateway's log\n" + gw.log()[-6000:])
        print("--- JupyterLab's log\n" + lab.log()[-6000:])
        raise
    finally:
        lab.stop()
        # the notebook's kernel is the gateway's: it outlives the Lab server
        status, listed = gw.api("GET", "/api/kernels")
        for k in listed if status == 200 else []:
            if k["id"] not in theirs:
                gw.api("DELETE", f"/api/kernels/{k['id']}")


def steps(page, lab, gw, shot):
    # the kernel starts in the gateway's process tree, not the Lab server's
    before = len(gw.kernel_pids())
    page.goto(f"{lab.url}/lab/tree/remote.ipynb?token={TOKEN}")
    page.locator(".jp-Notebook .jp-Cell .cm-content").first.wait_for(timeout=60000)
    wait_new_kernel(gw, before)
    wait_idle(page)

    # execute
    run_until(page, 0, "answer 42")
    shot(page, "run")

    # rich output: %plot's Vega-Lite, drawn by JupyterLab's renderer
    run_cell(page, 1)
    vega = cell(page, 1).locator(".jp-RenderedVegaCommon5")
    vega.first.wait_for(timeout=60000)
    drawn = vega.first.locator("canvas, svg")
    drawn.first.wait_for(timeout=30000)
    box = drawn.first.bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100, box
    shot(page, "plot")

    # completion: Tab in an empty cell completes a name the session holds
    ed = cell(page, 3).locator(".cm-content")
    ed.click()
    page.keyboard.type("gateway_ans")
    page.keyboard.press("Tab")
    deadline = time.time() + 20
    while "gateway_answer" not in ed.inner_text() and time.time() < deadline:
        box = page.locator(".jp-Completer")
        if box.count() and box.first.is_visible():
            page.keyboard.press("Enter")
            break
        time.sleep(0.2)
    text_holds(ed, "gateway_answer")
    shot(page, "complete")

    # interrupt: the toolbar's stop button ends a loop that never would
    run_cell(page, 2)
    time.sleep(1.5)
    page.locator("[data-command='notebook:interrupt-kernel']").first.click()
    assert "KeyboardInterrupt" in output_of(page, 2, "KeyboardInterrupt", 30)
    shot(page, "interrupt")

    # restart: a new kernel process, a new session that runs cells again
    before = len(gw.kernel_pids())
    page.locator("[data-command='notebook:restart-kernel']").first.click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    wait_new_kernel(gw, before)
    wait_idle(page)
    run_first_after_restart(page, 0, "answer 42")
    shot(page, "restart")

