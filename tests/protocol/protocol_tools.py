"""What the protocol's tests share: knowing, without waiting out a timeout,
that a kernel left a message unanswered."""


def next_answers_probe(raw, timeout=10):
    """Sends a kernel_info_request on raw (support.Raw) and tells whether the
    next message back answers it. A kernel answers one peer's shell messages
    in the order they came, so True means nothing sent before was answered."""
    frames, msg = raw.frames("kernel_info_request")
    raw.send(frames)
    r = raw.recv(timeout=timeout)
    assert r is not None, "the probe was not answered"
    return r["parent_header"].get("msg_id") == msg["header"]["msg_id"]
