"""Shared helpers of the %plot/%heap/%save tests (issue 14)."""
import json
import xml.etree.ElementTree as ET

from support import stdout_of

VEGALITE = "application/vnd.vegalite.v5+json"
SVG_NS = "{http://www.w3.org/2000/svg}"


def ok(k, code, t=120):
    reply, msgs = k.execute(code, timeout=t)
    assert reply["content"]["status"] == "ok", (reply["content"], stdout_of(msgs, "stderr"))
    return msgs


def err(k, code, t=120):
    reply, msgs = k.execute(code, timeout=t)
    c = reply["content"]
    assert c["status"] == "error", (c, stdout_of(msgs))
    return c


def displays(msgs):
    return [m["content"]["data"] for m in msgs if m["msg_type"] == "display_data"]


def value(k, expr):
    msgs = ok(k, expr)
    res = [m["content"]["data"]["text/plain"] for m in msgs if m["msg_type"] == "execute_result"]
    assert len(res) == 1, msgs
    return res[0]


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
