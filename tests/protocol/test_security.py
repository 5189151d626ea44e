"""Signatures, replays and malformed input, on the mock kernel (tests/mock):
dropped or answered with an error, never run, never a crash."""
import json
import os
import sys

from support import Raw, alive_and_answering, mock_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol_tools import next_answers_probe  # noqa: E402


def test_bad_signature_is_dropped():
    with mock_kernel() as k:
        raw = Raw(k)
        try:
            frames, msg = raw.frames("execute_request", {"code": "print forged", "silent": False})
            frames[1] = b"0" * 64
            raw.send(frames)
            frames, msg = raw.frames("kernel_info_request")
            frames[1] = b""
            raw.send(frames)
            assert next_answers_probe(raw), "a message with a bad signature was answered"
        finally:
            raw.close()
        # nothing ran: the first counted cell is still number 1
        reply, _ = k.execute("print real")
        assert reply["content"]["execution_count"] == 1
        assert "signature does not verify" in k.stderr_text()


def test_replayed_message_is_answered_once():
    with mock_kernel() as k:
        raw = Raw(k)
        try:
            frames, msg = raw.frames("kernel_info_request")
            raw.send(frames)
            r = raw.recv(timeout=10)
            assert r and r["parent_header"]["msg_id"] == msg["header"]["msg_id"]
            raw.send(frames)
            assert next_answers_probe(raw), "a replayed message was answered"
            # an execute replayed does not run twice
            frames, msg = raw.frames("execute_request", {"code": "print once"})
            raw.send(frames)
            r = raw.recv(timeout=10)
            assert r["content"]["execution_count"] == 1
            raw.send(frames)
            assert next_answers_probe(raw), "a replayed execute_request was answered"
        finally:
            raw.close()
        reply, _ = k.execute("print twice")
        assert reply["content"]["execution_count"] == 2
        assert "replayed" in k.stderr_text()


def test_malformed_frames_are_dropped():
    with mock_kernel() as k:
        raw = Raw(k)
        try:
            good, _ = raw.frames("kernel_info_request")
            for frames in ([b"hello"],                   # no delimiter
                           [b"<IDS|MSG>", good[1]],       # too few frames
                           good[:4],                      # still too few
                           [b"<IDS|MSG>"] * 10,           # nonsense
                           [b""],
                           [b"x"] * 3000):                # too many frames
                raw.send(frames)
            assert next_answers_probe(raw), "a malformed message was answered"
        finally:
            raw.close()
        alive_and_answering(k)


def test_bad_json_and_headers():
    with mock_kernel() as k:
        raw = Raw(k)
        try:
            # signed, but the header is not JSON / not an object / has no msg_type:
            # nothing says what was asked, so no reply
            for header in (b"{not json", b"[1, 2]", b'{"msg_id": "a", "session": "s"}',
                           b'{"msg_type": 7, "msg_id": "a", "session": "s"}',
                           b"\xff\xfe", b'"just a string"'):
                raw.send(raw.sign(header))
            assert next_answers_probe(raw), "a message without a readable header was answered"
            # a request we can identify gets an error reply
            h = {"msg_id": "m-bad-content", "session": "s", "username": "u",
                 "msg_type": "kernel_info_request", "version": "5.3", "date": ""}
            raw.send(raw.sign(json.dumps(h).encode(), content=b"{broken"))
            r = raw.recv(timeout=10)
            assert r["msg_type"] == "kernel_info_reply"
            assert r["content"]["status"] == "error" and r["content"]["ename"] == "BadRequest"
            assert r["parent_header"]["msg_id"] == "m-bad-content"
            # content a list, parent_header a number
            h["msg_id"] = "m-list"
            h["msg_type"] = "execute_request"
            raw.send(raw.sign(json.dumps(h).encode(), content=b'["code"]'))
            r = raw.recv(timeout=10)
            assert r["content"]["status"] == "error" and r["parent_header"]["msg_id"] == "m-list"
            h["msg_id"] = "m-parent"
            raw.send(raw.sign(json.dumps(h).encode(), parent=b"5", content=b'{"code": ""}'))
            r = raw.recv(timeout=10)
            assert r["content"]["status"] == "error"
            # header without msg_id: still a request, still answered
            h2 = {"session": "s", "msg_type": "kernel_info_request"}
            raw.send(raw.sign(json.dumps(h2).encode()))
            r = raw.recv(timeout=10)
            assert r["content"]["status"] == "error"
            # a header field of the wrong type
            h3 = dict(h, msg_id="m-user", msg_type="kernel_info_request", username=["x"])
            raw.send(raw.sign(json.dumps(h3).encode()))
            r = raw.recv(timeout=10)
            assert r["content"]["status"] == "error"
            # deep nesting in content
            h4 = dict(h, msg_id="m-deep", msg_type="kernel_info_request")
            raw.send(raw.sign(json.dumps(h4).encode(), content=b"[" * 100000 + b"]" * 100000))
            r = raw.recv(timeout=10)
            assert r["content"]["status"] == "error"
        finally:
            raw.close()
        alive_and_answering(k)


def test_huge_frame_is_refused():
    with mock_kernel() as k:
        raw = Raw(k)
        try:
            frames, msg = raw.frames("kernel_info_request")
            # signed, one frame over the 64 MiB a message may have
            raw.send(raw.sign(frames[2], content=b"{" + b" " * (65 << 20) + b"}"))
            # refused unparsed, and its sender told so
            r = raw.recv(timeout=120)
            assert r is not None and r["parent_header"]["msg_id"] == msg["header"]["msg_id"]
            assert (r["content"]["status"], r["content"]["ename"]) == ("error", "MessageTooLarge"), r["content"]
        finally:
            raw.close()
        alive_and_answering(k)


def test_control_requests_on_control_and_bad_content_types():
    with mock_kernel() as k:
        # requests that use the language are shell-only
        r = k.request("execute_request", {"code": "print x"}, channel="control")
        assert r["content"]["status"] == "error"
        for t, content in (("complete_request", {"code": 1}),
                           ("inspect_request", {"code": "x", "detail_level": "high"}),
                           ("history_request", {"hist_access_type": "tail", "n": "all"}),
                           ("shutdown_request", {"restart": "please"})):
            r = k.request(t, content)
            assert r["content"]["status"] == "error", (t, r["content"])
            assert r["content"]["ename"] == "BadRequest"
        alive_and_answering(k)
