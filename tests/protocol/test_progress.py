"""Progress of long work: a compile, a %%program build and a %timeit that
last longer than ICUDA_PROGRESS_MS show one display_data with a display_id,
then update_display_data to the same id, as Jupyter front ends expect; fast
work shows nothing. The delay is 0 here so that a quick compile counts as
long. How a display id travels (the language's display with an id and an
update flag, the message's transient field) is checked on the mock kernel."""
import uuid

from support import kernel, mock_kernel


def progress_of(msgs):
    return [m for m in msgs if m["msg_type"] in ("display_data", "update_display_data")]


def check_lines(msgs, first, last):
    lines = progress_of(msgs)
    assert len(lines) >= 2, [m["msg_type"] for m in msgs]
    assert lines[0]["msg_type"] == "display_data"
    assert all(m["msg_type"] == "update_display_data" for m in lines[1:])
    ids = {m["content"]["transient"]["display_id"] for m in lines}
    assert len(ids) == 1, ids
    assert first in lines[0]["content"]["data"]["text/plain"], lines[0]["content"]
    assert last in lines[-1]["content"]["data"]["text/plain"], lines[-1]["content"]
    for m in lines:  # the id travels in transient only
        assert not any(k.startswith("icuda/") for k in m["content"]["metadata"]), m["content"]
    return ids.pop()


def test_a_display_id_travels_in_transient():
    with mock_kernel() as k:
        reply, msgs = k.execute("display plain\nprogress 2\nprogress 1")
        assert reply["content"]["status"] == "ok"
        shown = [(m["msg_type"], m["content"]["transient"], m["content"]["data"]["text/plain"])
                 for m in progress_of(msgs)]
        assert shown[0] == ("display_data", {}, "plain"), shown
        lines = progress_of(msgs)[1:]
        a = check_lines(lines[:3], "0 of 2 done", "2 of 2 done")
        b = check_lines(lines[3:], "0 of 1 done", "1 of 1 done")
        assert a != b
        # silent: nothing, ids or not
        reply, msgs = k.execute("progress 2", silent=True)
        assert progress_of(msgs) == []


def test_progress_of_a_compile_and_a_timeit():
    with kernel(env={"ICUDA_PROGRESS_MS": "0"}) as k:
        tag = uuid.uuid4().hex[:8]  # a kernel no cache has seen
        reply, msgs = k.execute(f"__global__ void fresh_{tag}(int *p) {{ p[0] = 1; }}")
        assert reply["content"]["status"] == "ok"
        a = check_lines(msgs, "compiling the device code of In [1] with NVRTC", "compiled the device code of In [1] in")
        # the progress line comes before what the cell prints
        types = [m["msg_type"] for m in msgs]
        assert types.index("update_display_data") < types.index("stream"), types
        reply, msgs = k.execute("int x = 0;")
        assert progress_of(msgs) == []
        reply, msgs = k.execute("%timeit -n 1 -r 3 x++;")
        b = check_lines(msgs, "%timeit: 1 of 3 repeats done", "%timeit: 3 of 3 repeats in")
        assert a != b
        # a compile error: the line says so, and the error is the cell's
        reply, msgs = k.execute(f"__global__ void broken_{tag}(int *p) {{ p[0] = ; }}")
        assert reply["content"]["status"] == "error"
        check_lines(msgs, "compiling", "tried to compile the device code of In [4]")


def test_progress_of_a_program_build():
    with kernel(env={"ICUDA_PROGRESS_MS": "0"}) as k:
        tag = uuid.uuid4().hex[:8]
        reply, msgs = k.execute("%%program\n#include <cstdio>\n"
                                f'int main() {{ printf("built {tag}\\n"); return 0; }}')
        if reply["content"]["status"] != "ok" and "nvcc" in reply["content"].get("evalue", ""):
            return  # no nvcc here: nothing is built
        check_lines(msgs, "building In [1] with nvcc", "built In [1] with nvcc in")


def test_no_progress_for_fast_work():
    with kernel() as k:  # the default delay, 500 ms
        dev = "__global__ void quick(int *p) { p[0] = 2; }"
        k.execute(dev)  # its first compile may be slow on a busy machine: the second is from the cache
        for code in ["int y = 2;", "%timeit -n 1 -r 2 y++;", dev]:
            reply, msgs = k.execute(code)
            assert reply["content"]["status"] == "ok"
            assert progress_of(msgs) == [], (code, msgs)
