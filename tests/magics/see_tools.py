"""Shared helpers of the %plot/%hist tests: the chart a cell displays, its
Vega-Lite spec and SVG (running cells and reading their messages:
tests/support.py)."""
import json
import xml.etree.ElementTree as ET

from support import displays

VEGALITE = "application/vnd.vegalite.v5+json"
SVG_NS = "{http://www.w3.org/2000/svg}"


def one_chart(msgs):
    """The single display_data of a %plot/%hist: its bundle, parsed SVG root and Vega-Lite spec."""
    d = displays(msgs)
    assert len(d) == 1, d
    b = d[0]
    assert set(b) == {"text/plain", "image/svg+xml", VEGALITE}, set(b)
    root = ET.fromstring(b["image/svg+xml"])  # well-formed XML
    assert root.tag == SVG_NS + "svg", root.tag
    spec = b[VEGALITE]
    json.dumps(spec, allow_nan=False)  # valid JSON for the front end: no NaN or Infinity
    assert spec["$schema"] == "https://vega.github.io/schema/vega-lite/v5.json"
    return b, root, spec


def svg_texts(root):
    return [t.text or "" for t in root.iter(SVG_NS + "text")]
