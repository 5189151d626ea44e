"""A notebook run on icuda and exported to HTML with nbconvert: the kernel's
language_info gives CUDA highlighting (Pygments' CUDA lexer), outputs kept."""
import os
import sys

import support

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "notebooks"))
from test_notebooks import execute, notebook  # noqa: E402


@support.timeout(180)
def test_nbconvert_html_highlights_cuda():
    from nbconvert import HTMLExporter
    nb = execute(notebook("__global__ void axpy(float a, const float *x, float *y, int n) {\n"
                          "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                          "    if (i < n) y[i] += a * x[i];\n}",
                          'int k = 3;\nprintf("k = %d\\n", k);'))
    li = nb.metadata["language_info"]
    assert li["name"] == "cuda" and li["pygments_lexer"] == "cuda" and li["file_extension"] == ".cu", li
    html, _ = HTMLExporter().from_notebook_node(nb)
    # Pygments marks keywords and types: __global__ is a CUDA keyword to its lexer
    assert '<span class="kt">float</span>' in html, html[:2000]
    assert '__global__</span>' in html
    assert "k = 3" in html and "registers" in html
