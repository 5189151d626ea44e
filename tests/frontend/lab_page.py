"""JupyterLab's page as the browser tests drive it (Playwright, Debian's
Chromium): what must be installed, the one browser of the run, a notebook's
cells, their output, the kernel's state in the toolbar."""
import atexit
import os
import shutil
import sys
import time
import unittest

CHROMIUM = os.environ.get("ICUDA_CHROMIUM", "/usr/bin/chromium")
_chromium = {}


def requirements():
    if not os.path.exists(CHROMIUM):
        raise unittest.SkipTest(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        raise unittest.SkipTest("Playwright for Python is not installed")
    if shutil.which("jupyter-lab", path=os.path.dirname(sys.executable)) is None:
        raise unittest.SkipTest("JupyterLab is not installed beside this Python")


def browser():
    """Chromium under Playwright, started on first use and closed at exit.
    Every browser test of the run shares it: Playwright's sync API runs one
    instance in a thread, and a second, started while the first runs, fails."""
    if not _chromium:
        requirements()
        from playwright.sync_api import sync_playwright
        pw = sync_playwright().start()
        try:
            _chromium["browser"] = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        except BaseException:
            pw.stop()
            raise
        _chromium["pw"] = pw
        atexit.register(_close_browser)
    return _chromium["browser"]


def _close_browser():
    try:
        _chromium["browser"].close()
    finally:
        _chromium["pw"].stop()


def cell(page, i):
    return page.locator(".jp-Notebook .jp-Cell").nth(i)


def output_of(page, i, words, timeout=60):
    """Waits until cell i's output holds words; returns the output's text."""
    out = cell(page, i).locator(".jp-OutputArea")
    deadline = time.time() + timeout
    text = ""
    while time.time() < deadline:
        text = out.inner_text() if out.count() else ""
        if words in text:
            return text
        time.sleep(0.2)
    raise AssertionError(f"cell {i}: no {words!r} in its output after {timeout} s: {text!r}")


def text_holds(locator, words, timeout=20):
    """Waits until the element's text holds words."""
    deadline = time.time() + timeout
    while words not in locator.inner_text() and time.time() < deadline:
        time.sleep(0.2)
    assert words in locator.inner_text(), locator.inner_text()


def wait_idle(page, timeout=60):
    """The notebook's kernel has started and is idle (the toolbar's indicator)."""
    page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").first.wait_for(timeout=timeout * 1000)


def run_cell(page, i):
    cell(page, i).locator(".cm-content").click()
    page.keyboard.press("Shift+Enter")


def run_until(page, i, words):
    """Runs cell i until its output holds words. The first run may go
    before the page's kernel connection is up, and be dropped: it is
    tried again once the cell's prompt shows it never ran while the
    kernel sat idle (a run that was taken shows [*] at once)."""
    for attempt in range(3):
        run_cell(page, i)
        if attempt == 2:
            return output_of(page, i, words, 20)
        out = cell(page, i).locator(".jp-OutputArea")
        prompt = cell(page, i).locator(".jp-InputPrompt")
        status = page.locator(".jp-Notebook-ExecutionIndicator").first
        deadline = time.time() + 20
        idle_since = None
        while time.time() < deadline:
            if out.count() and words in out.inner_text():
                return out.inner_text()
            if "[ ]" in prompt.inner_text() and status.get_attribute("data-status") == "idle":
                idle_since = idle_since or time.time()
                if time.time() - idle_since > 2:
                    break  # dropped: run it again
            else:
                idle_since = None
            time.sleep(0.2)
        else:
            if "[ ]" not in prompt.inner_text():
                raise AssertionError(f"cell {i}: no {words!r} in its output after 20 s: "
                                     f"{out.inner_text() if out.count() else ''!r}")


def run_first_after_restart(page, i, words, timeout=60):
    """Runs cell i as the first cell of a restarted kernel's session: its
    output may still hold words from before the restart, so the new run is
    the one whose prompt reads [1]; then its output holds words once."""
    run_cell(page, i)
    prompt = cell(page, i).locator(".jp-InputPrompt")
    deadline = time.time() + timeout
    while "[1]" not in prompt.inner_text() and time.time() < deadline:
        time.sleep(0.2)
    assert "[1]" in prompt.inner_text(), prompt.inner_text()
    text = output_of(page, i, words, 20)
    assert text.count(words) == 1, text
