"""%plot and %hist: one display_data holding Vega-Lite, SVG and a
text summary; arrays given as host arrays, ptr:n, struct members and
timeit_result times; down-sampling above 10^4 points; log axes; errors.
On a GPU: a device buffer copied for display."""
import os
import sys

import support
from support import error, needs_gpu, ok, shared_kernel, stdout_of, value

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from see_tools import SVG_NS, one_chart, svg_texts  # noqa: E402

SETUP = ("double xs[6] = {4096, 8192, 16384, 32768, 65536, 131072};\n"
         "float ys[6] = {1, 2, 4, 8, 16, 32};\n"
         "double zs[6] = {3, 5, 9, 17, 33, 65};\n"
         "int *p = (int *)malloc(100 * sizeof(int)); for (int i = 0; i < 100; i++) p[i] = i * i;")


def test_plot_bundle_and_structure():
    with shared_kernel() as k:
        ok(k, SETUP)
        b, root, spec = one_chart(ok(k, '%plot --loglog --title "sweep" --xlabel n --ylabel s --labels gpu,cpu xs ys zs'))
        # the text summary: one line
        plain = b["text/plain"]
        assert "\n" not in plain and "2 series" in plain and "log-log" in plain and "gpu, cpu" in plain, plain
        # Vega-Lite: the data, both series, log scales, the axis titles, zoom bound to scales
        vals = spec["data"]["values"]
        assert len(vals) == 12 and {v["series"] for v in vals} == {"gpu", "cpu"}
        assert {"x": 4096.0, "y": 1.0, "series": "gpu"} in vals and {"x": 131072.0, "y": 65.0, "series": "cpu"} in vals
        enc = spec["encoding"]
        assert enc["x"]["scale"] == {"type": "log"} and enc["y"]["scale"] == {"type": "log"}
        assert enc["x"]["title"] == "n" and enc["y"]["title"] == "s" and enc["color"]["field"] == "series"
        assert spec["mark"]["type"] == "line" and spec["mark"]["tooltip"] is True
        assert spec["params"][0]["bind"] == "scales" and spec["title"] == "sweep"
        # SVG: title, axis labels, legend entries, two polylines, log ticks
        texts = svg_texts(root)
        for t in ("sweep", "n", "s", "gpu", "cpu"):
            assert t in texts, (t, texts)
        assert any(t in texts for t in ("10k", "100k", "1e+04")), texts
        lines = [e for e in root.iter() if e.tag in (SVG_NS + "polyline", SVG_NS + "path")]
        assert len(lines) >= 2, [e.tag for e in root.iter()]


def test_plot_argument_forms():
    with shared_kernel() as k:
        ok(k, SETUP)
        ok(k, "struct S { double v[3]; int k; } s = {{1, 2, 3}, 7};")
        # one array: against its index
        _, _, spec = one_chart(ok(k, "%plot p:10"))
        assert [v["x"] for v in spec["data"]["values"]] == list(range(10))
        assert [v["y"] for v in spec["data"]["values"]][-1] == 81
        # a pointer alone: up to the end of its buffer
        _, _, spec = one_chart(ok(k, "%plot p"))
        assert len(spec["data"]["values"]) == 100
        # a count that is an expression of the session
        ok(k, "int m = 5;")
        _, _, spec = one_chart(ok(k, "%plot xs:m-1 ys:m-1"))
        assert len(spec["data"]["values"]) == 4
        # a struct's array member: its own length, not the rest of the struct
        _, _, spec = one_chart(ok(k, "%plot s.v"))
        assert [v["y"] for v in spec["data"]["values"]] == [1, 2, 3]
        # x and y of different lengths: what pairs up
        _, _, spec = one_chart(ok(k, "%plot xs p"))
        assert len(spec["data"]["values"]) == 6
        # scatter and bar
        _, _, spec = one_chart(ok(k, "%plot --kind scatter xs ys"))
        assert spec["mark"]["type"] == "point"
        b, root, spec = one_chart(ok(k, "%plot --kind bar xs ys ys"))
        assert spec["mark"]["type"] == "bar" and spec["encoding"]["xOffset"]["field"] == "series"
        assert len({v["series"] for v in spec["data"]["values"]}) == 2  # one name each, though both are ys
        assert len(list(root.iter(SVG_NS + "rect"))) >= 12


def test_plot_timeit_result_times():
    with shared_kernel() as k:
        ok(k, "double acc = 0;")
        ok(k, "%timeit -q -n 3 -r 4 -o r acc += 1")
        _, _, spec = one_chart(ok(k, "%plot --ylabel seconds r.times"))
        assert len(spec["data"]["values"]) == 4
        assert all(v["y"] > 0 for v in spec["data"]["values"])


def test_plot_down_samples_above_ten_thousand_points():
    with shared_kernel() as k:
        ok(k, "int n = 100000; double *big = (double *)malloc(n * sizeof(double));\n"
              "for (int i = 0; i < n; i++) big[i] = i;")
        b, root, spec = one_chart(ok(k, "%plot big"))
        vals = spec["data"]["values"]
        assert 5000 <= len(vals) <= 10000, len(vals)
        assert "100000 points" in b["text/plain"] and "down-sampled" in b["text/plain"], b["text/plain"]
        assert "down-sampled" in spec["title"]["subtitle"]
        assert any("down-sampled" in t for t in svg_texts(root))
        # a smaller plot says nothing of the kind
        b, _, spec = one_chart(ok(k, "%plot big:500"))
        assert len(spec["data"]["values"]) == 500 and "down-sampled" not in b["text/plain"]


def test_log_axes_leave_out_what_they_cannot_show():
    with shared_kernel() as k:
        ok(k, "double a[5] = {0, 1, 10, 100, 1000}; double b[5] = {-1, 1, 0.0/0.0, 1e3, 1e4};")
        _, _, spec = one_chart(ok(k, "%plot --loglog a b"))
        assert [(v["x"], v["y"]) for v in spec["data"]["values"]] == [(1, 1), (100, 1e3), (1000, 1e4)]
        # on linear axes the NaN alone goes
        _, _, spec = one_chart(ok(k, "%plot a b"))
        assert len(spec["data"]["values"]) == 4


def test_hist():
    with shared_kernel() as k:
        ok(k, "float v[10] = {0, 1, 1, 2, 2, 2, 3, 3, 3, 4};")
        b, root, spec = one_chart(ok(k, "%hist v --bins 4"))
        counts = [x["count"] for x in spec["data"]["values"]]
        assert counts == [1, 2, 3, 4], counts  # the last edge belongs to the last bin, as numpy counts
        assert spec["data"]["values"][0]["start"] == 0 and spec["data"]["values"][-1]["end"] == 4
        assert spec["encoding"]["x2"]["field"] == "end" and spec["mark"]["type"] == "bar"
        assert "10 values in 4 bins" in b["text/plain"]
        assert len(list(root.iter(SVG_NS + "rect"))) >= 4


def test_errors():
    with shared_kernel() as k:
        ok(k, SETUP + "\nint scalar = 3; struct P { int a; } ps[2]; float *freed = (float *)malloc(8); free(freed);")
        for cell, ename, words in [
            ("%plot", "UsageError", "which arrays"),
            ("%plot --kind pie xs ys", "UsageError", "--kind is line, scatter or bar"),
            ("%plot --wat xs", "UsageError", "unknown option --wat"),
            ("%plot --title", "UsageError", "--title needs a value"),
            ("%plot scalar", "TypeError", "scalar is not an array or a pointer"),
            ("%plot ps", "TypeError", "only numbers"),
            ("%plot nothing_here", "TypeError", "'nothing_here' is undeclared"),
            ("%plot freed", "RuntimeError", "does not point into a live buffer"),
            ("%plot ys:7", "ValueError", "room for only 6"),
            ("%plot ys:-1", "ValueError", "whole number"),
            ("%hist --bins 0 ys", "UsageError", "--bins takes a whole number"),
            ("%hist ys xs", "UsageError", "one array"),
        ]:
            c = error(k, cell)
            assert c["ename"] == ename and words in c["evalue"], (cell, c["ename"], c["evalue"])
        ok(k, "double zero[3] = {0, 0, 0};")
        c = error(k, "%plot --loglog zero zero")
        assert "nothing to draw" in c["evalue"], c["evalue"]
        # the session is intact
        assert value(k, "scalar") == "(int) 3"
        ok(k, "%plot xs ys")


def test_lsmagic_and_help_list_them():
    with shared_kernel() as k:
        out = stdout_of(ok(k, "%lsmagic"))
        for name in ("plot", "hist", "heap", "free", "reset", "save", "load", "env", "time"):
            assert f"  %{name} " in out, (name, out)
        assert "  %%time " in out
        for name, words in [("plot", "ptr:n"), ("hist", "--bins"), ("heap", "survive"), ("free", "cudaFreeHost"),
                            ("reset", "-f"), ("save", "<f4"), ("load", "NAME_shape"), ("env", "NAME=VALUE"),
                            ("time", "CUDA events")]:
            h = support.help_of(k, f"%help {name}")  # help goes to the pager
            assert words in h, (name, h)


@needs_gpu
def test_plot_device_buffer_is_copied_for_display():
    with shared_kernel() as k:
        ok(k, "float h[8]; for (int i = 0; i < 8; i++) h[i] = i * 0.5f;\n"
              "float *d; cudaMalloc(&d, 8 * sizeof(float)); cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);")
        _, _, spec = one_chart(ok(k, "%plot d"))
        assert [v["y"] for v in spec["data"]["values"]] == [i * 0.5 for i in range(8)]
        _, _, spec = one_chart(ok(k, "%plot h d:4"))
        assert [(v["x"], v["y"]) for v in spec["data"]["values"]] == [(i * 0.5, i * 0.5) for i in range(4)]
        b, _, spec = one_chart(ok(k, "%hist d --bins 2"))
        assert [x["count"] for x in spec["data"]["values"]] == [4, 4]
        # managed memory a kernel wrote is fetched first
        ok(k, "__global__ void fill(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = 2.0f * i; }")
        ok(k, "float *m; cudaMallocManaged(&m, 4 * sizeof(float)); fill<<<1, 4>>>(m, 4);")
        _, _, spec = one_chart(ok(k, "%plot m"))
        assert [v["y"] for v in spec["data"]["values"]] == [0, 2, 4, 6]


def test_points_left_out_are_not_called_down_sampling():
    with shared_kernel() as k:
        ok(k, "double a[4] = {1, 2, 3, 4}; double b[4] = {1, 0.0/0.0, 3, 0.0/0.0};")
        b, _, spec = one_chart(ok(k, "%plot a b"))
        assert "down-sampled" not in b["text/plain"] and "2 left out (not finite)" in b["text/plain"], b["text/plain"]
        assert "title" not in spec
