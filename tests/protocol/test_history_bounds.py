"""History that cannot grow without bound or collide: an input over 1 MiB
is kept cut, with a note; a history_reply holds at most 16 MiB of JSON (the
newest entries that fit); kernels started at once on one history file each
get a session number of their own. On the mock kernel (tests/mock)."""
import json
import os
import tempfile
import threading

from support import Kernel, MOCK_KERNEL, mock_kernel, timeout

MiB = 1 << 20


def test_a_3_mb_cell_is_kept_cut_with_a_note():
    with mock_kernel() as k:
        cell = "# " + "x" * (3 * MiB)
        reply, _ = k.execute(cell, timeout=60)
        assert reply["content"]["status"] == "ok"
        r = k.request("history_request", {"hist_access_type": "tail", "n": 1, "output": False, "raw": True})
        (session, line, text), = r["content"]["history"]
        kept, note = text.rsplit("\n", 1)
        assert kept == cell[:MiB], len(kept)
        assert note == f"// [history: the input was {len(cell)} bytes; its first {MiB} are kept]", note
        # the file holds the same, and a new kernel reads it back
        with open(os.path.join(k.data_dir, "history.jsonl")) as f:
            assert max(len(x) for x in f) < 2 * MiB


@timeout(300)
def test_a_history_reply_is_bounded():
    with mock_kernel() as k:
        for i in range(20):
            reply, _ = k.execute(f"# cell {i:02d} " + "y" * (MiB + 100000), timeout=60)
            assert reply["content"]["status"] == "ok"
        for req in ({"hist_access_type": "tail", "n": 1000}, {"hist_access_type": "range", "session": 0},
                    {"hist_access_type": "search", "pattern": "# cell*"}):
            r = k.request("history_request", dict(req, output=True, raw=True), timeout=60)
            h = r["content"]["history"]
            assert len(json.dumps(h, ensure_ascii=False)) <= 16 * MiB, req
            # the newest entries, in order, and not all of them
            assert 10 <= len(h) < 20, (req, len(h))
            assert [e[1] for e in h] == list(range(21 - len(h), 21)), req
        assert "history_request: the reply holds the newest" in k.stderr_text()


def test_kernels_started_at_once_on_one_history_file_get_sessions_of_their_own():
    d = tempfile.mkdtemp(prefix="icuda-history-")
    path = os.path.join(d, "history.jsonl")
    kernels, errors = [], []

    def start():
        try:
            kernels.append(Kernel(MOCK_KERNEL, env={"ICUDA_HISTORY": path}))
        except Exception as e:  # reported below, on the test's thread
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(4)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        sessions = []
        for k in kernels:
            k.execute("print hello")
            r = k.request("history_request", {"hist_access_type": "tail", "n": 1, "output": False, "raw": True})
            sessions.append(r["content"]["history"][0][0])
        assert sorted(sessions) == [1, 2, 3, 4], sessions
    finally:
        for k in kernels:
            k.close()
            k.check_sanitizers()
            k.remove_stderr_file()
        for name in os.listdir(d):
            os.unlink(os.path.join(d, name))
        os.rmdir(d)
