"""notebooks/magics-tour.ipynb, the tour of the data magics, run headless to
its end: the sweep's chart carries Vega-Lite and SVG, the saved results read
back with numpy, %heap shows the buffers; and an nbconvert HTML export of a
%plot shows the static SVG picture."""
import os
import sys

import nbformat
import numpy as np
from nbconvert import HTMLExporter

import support
from support import timeout

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "notebooks"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_notebooks import ROOT, execute, notebook, text_of  # noqa: E402
from see_tools import VEGALITE  # noqa: E402


def outputs_of(nb, source_start):
    cells = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith(source_start)]
    assert len(cells) == 1, source_start
    return cells[0]


@timeout(600)
def test_magics_tour_runs_and_shows_its_results():
    nb = execute(nbformat.read(os.path.join(ROOT, "notebooks", "magics-tour.ipynb"), as_version=4), timeout=600)
    plot = outputs_of(nb, "%plot --loglog")
    shown = [o for o in plot.outputs if o.output_type == "display_data"]
    assert len(shown) == 1 and VEGALITE in shown[0].data and "image/svg+xml" in shown[0].data, plot.outputs
    labels = {v["series"] for v in shown[0].data[VEGALITE]["data"]["values"]}
    assert labels == ({"GPU reduction", "host loop"} if support.GPU else {"host loop"}), labels
    sizes = np.load("/tmp/icuda-tour-sizes.npy")
    assert sizes[0] == 4096 and sizes[-1] == (1 << (27 if support.GPU else 20)), sizes
    table = np.load("/tmp/icuda-tour.npy")
    assert table.shape == (2, 16) and (table[0, :len(sizes)] == sizes).all() and (table[1, :len(sizes)] > 0).all()
    heap = text_of(outputs_of(nb, "%heap"))
    assert "h " in heap and "back" in heap, heap
    if support.GPU:
        assert "device 0" in heap, heap
    assert "session reset" in text_of(outputs_of(nb, "%reset"))


def test_nbconvert_html_export_shows_the_svg():
    nb = execute(notebook("double xs[4] = {1, 10, 100, 1000}; double ys[4] = {2, 20, 300, 4000};",
                          "%plot --loglog xs ys"))
    html, _ = HTMLExporter().from_notebook_node(nb)
    assert 'class="jp-RenderedSVG jp-OutputArea-output" data-mime-type="image/svg+xml"' in html
