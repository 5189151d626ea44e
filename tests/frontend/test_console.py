"""`jupyter console --kernel icuda` in a terminal (tmux: send-keys,
capture-pane), as a person types: a kernel written over several lines is
continued (is_complete), output is shown, Ctrl-C stops a running loop and
the session goes on."""
import os
import shutil
import subprocess
import sys
import time
import unittest

import support


def tmux(*args):
    return subprocess.run(["tmux", *args], capture_output=True, text=True, timeout=30)


def screen(name):
    return tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", name).stdout


def wait_for(name, words, timeout=60, after=0):
    """Waits until the pane shows words (counted past the first `after` of them)."""
    deadline = time.time() + timeout
    text = ""
    while time.time() < deadline:
        text = screen(name)
        if text.count(words) > after:
            return text
        time.sleep(0.2)
    raise AssertionError(f"no {words!r} on the console after {timeout} s:\n{text}")


def send(name, *keys):
    for k in keys:  # text literally (tmux reads a trailing ';' as its own), keys by name
        if k.endswith(";"):
            k = k[:-1] + "\\;"
        tmux("send-keys", "-t", name, *(() if k in ("Enter", "C-c") else ("-l",)), k)
        time.sleep(0.15)


@support.timeout(240)
def test_console_continuation_output_and_interrupt():
    console = os.path.join(os.path.dirname(sys.executable), "jupyter-console")
    if not shutil.which("tmux"):
        raise unittest.SkipTest("tmux is not installed")
    if not os.path.exists(console):
        raise unittest.SkipTest("jupyter-console is not installed beside this Python")
    name = f"icuda-console-{os.getpid()}"
    with support.kernelspec_dir(support.PLAIN_KERNEL) as data:
        cmd = (f"env JUPYTER_PATH={data} JUPYTER_RUNTIME_DIR={data}/runtime "
               f"JUPYTER_CONFIG_DIR={data}/config {console} --kernel icuda")
        assert tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", cmd).returncode == 0
        try:
            wait_for(name, "In [1]:", 90)
            # a kernel over three lines: the first two are incomplete
            send(name, "__global__ void twice(int *p) {", "Enter")
            wait_for(name, "...:", 20)
            send(name, "p[0] *= 2;", "Enter", "}", "Enter")
            text = wait_for(name, "registers", 60)
            assert "twice(int *p)" in text, text
            wait_for(name, "In [2]:", 20)
            send(name, 'printf("answer %d\\n", 6 * 7);', "Enter")
            wait_for(name, "answer 42", 30)
            wait_for(name, "In [3]:", 20)
            # Ctrl-C stops a loop that never ends; the session goes on
            send(name, "long spins = 0; for (;;) spins++;", "Enter")
            time.sleep(2)
            send(name, "C-c")
            wait_for(name, "KeyboardInterrupt", 30)
            wait_for(name, "In [4]:", 30)
            send(name, 'printf("still here, spun %d\\n", spins > 0);', "Enter")
            wait_for(name, "still here, spun 1", 30)
        finally:
            text = screen(name)
            os.makedirs("build/console", exist_ok=True)
            with open("build/console/console.txt", "w") as f:
                f.write(text)
            send(name, "exit", "Enter")
            time.sleep(1)
            tmux("kill-session", "-t", name)
