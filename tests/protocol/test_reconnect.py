"""A client that reconnects under the identity of a connection still open
(a Jupyter server or gateway names the ZeroMQ sockets of a websocket after
its session, and a browser that reconnects keeps the session): the new
connection takes the identity over and gets the replies, on shell and on
control, as with ipykernel; the old one hears nothing more. On the mock
kernel (tests/mock)."""
import uuid

from support import mock_kernel, timeout


def _kernel_info(k, sock, timeout_s=10):
    """Sends kernel_info_request on sock; the reply's content, or None."""
    session = k.kc.session
    msg = session.msg("kernel_info_request", {})
    session.send(sock, msg)
    if not sock.poll(int(timeout_s * 1000)):
        return None
    _, rest = session.feed_identities(sock.recv_multipart())
    reply = session.deserialize(rest)
    assert reply["parent_header"]["msg_id"] == msg["header"]["msg_id"], reply
    return reply["content"]


@timeout(60)
def test_a_reconnecting_client_takes_its_identity_over():
    with mock_kernel() as k:
        for connect in (k.km.connect_shell, k.km.connect_control):
            identity = uuid.uuid4().hex.encode()
            old = connect(identity=identity)
            new = None
            try:
                assert _kernel_info(k, old) is not None
                # the old connection stays open: the new one must still be answered
                new = connect(identity=identity)
                reply = _kernel_info(k, new)
                assert reply is not None, f"{connect.__name__}: no reply to a client that reconnected under its identity"
                assert reply["status"] == "ok", reply
                assert not old.poll(500), "the replaced connection got a message"
            finally:
                old.close(linger=0)
                if new is not None:
                    new.close(linger=0)
