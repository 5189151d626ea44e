"""icuda started by Jupyter Kernel Gateway with the kernelspec `icuda --install`
writes and nothing else, one gateway for the whole module: through its REST
and websocket API (gateway_cases.py) and in JupyterLab connected with
--gateway-url, in the browser (gateway_lab.py). The gateway runs from the test venv (requirements.txt); without it every test is skipped
with the reason. No GPU needed."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gateway_cases as cases  # noqa: E402
from gateway_lab import in_lab  # noqa: E402

import support  # noqa: E402

KIND = "kernel"


@support.timeout(120)
def test_kernelspec_as_installed():
    cases.kernelspec(KIND)


@support.timeout(120)
def test_execute():
    cases.execute(KIND)


@support.timeout(120)
def test_rich_output():
    cases.rich_output(KIND)


@support.timeout(120)
def test_complete():
    cases.complete(KIND)


@support.timeout(120)
def test_interrupt():
    cases.interrupt(KIND)


@support.timeout(120)
def test_restart_and_shutdown():
    cases.restart_and_shutdown(KIND)


@support.needs_gpu
@support.timeout(300)
def test_gpu_cells():
    cases.gpu_cells(KIND)


@support.timeout(180)
def test_jupyterlab_through_the_gateway():
    in_lab(KIND)
