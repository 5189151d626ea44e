"""tools/jupyter/gateway_websocket.py, JupyterLab's proxy of a kernel's
websocket to a gateway: a browser that leaves while the proxy's own
connection to the gateway is still being made must not leave that
connection open, or the gateway holds two websockets of one session and
the kernel may answer the abandoned one. jupyter_server's own proxy only
"cancels" the pending connection, which does not stop it."""
import asyncio
import os
import sys
import threading
import unittest

import support

try:
    from jupyter_server.gateway import connections
    from tornado.websocket import WebSocketClientConnection
except ImportError:  # a Python without Jupyter's server: the tests say so
    connections, WebSocketClientConnection = None, object

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "jupyter"))


class _Socket(WebSocketClientConnection):
    """What the gateway's websocket would be, telling whether it was closed."""
    closed = False

    def __init__(self):
        pass

    def close(self, code=None, reason=None):
        self.closed = True


def _run(coro_fn):
    """asyncio.run(coro_fn()) in a thread of its own: this thread may hold
    another event loop (Playwright's, from the browser tests)."""
    out = {}

    def main():
        try:
            out["value"] = asyncio.run(coro_fn())
        except BaseException as e:
            out["error"] = e
    t = threading.Thread(target=main)
    t.start()
    t.join(30)
    assert not t.is_alive(), "the event loop did not finish"
    if "error" in out:
        raise out["error"]
    return out["value"]


def _needs_server():
    if connections is None:
        raise unittest.SkipTest("jupyter_server is not installed beside this Python")


def _connected(future, sock):
    """The connection completes as tornado completes it: into its future,
    unless that was cancelled (the socket stays open all the same)."""
    if not future.cancelled():
        future.set_result(sock)


def _left_while_connecting(cls):
    """A connection of class cls whose browser leaves before the proxy's
    connection to the gateway completes: is that connection closed?"""
    async def main():
        conn = cls()
        conn.ws = None
        conn.ws_future = asyncio.get_running_loop().create_future()
        conn.disconnect()
        sock = _Socket()
        _connected(conn.ws_future, sock)
        for _ in range(3):
            await asyncio.sleep(0)
        return sock.closed
    return _run(main)


@support.timeout(60)
def test_a_connection_completed_after_the_browser_left_is_closed():
    _needs_server()
    from gateway_websocket import GatewayWebSocketConnection
    assert _left_while_connecting(GatewayWebSocketConnection)
    # what the class mends: jupyter_server's own leaves it open
    assert not _left_while_connecting(connections.GatewayWebSocketConnection)


@support.timeout(60)
def test_an_open_connection_is_closed_as_before():
    _needs_server()
    from gateway_websocket import GatewayWebSocketConnection

    async def main():
        conn = GatewayWebSocketConnection()
        sock = _Socket()
        conn.ws = None
        conn.ws_future = None
        conn.disconnect()  # nothing to close yet: no error
        conn.disconnected = False
        conn.ws = sock
        conn.disconnect()
        return sock.closed
    assert _run(main)
