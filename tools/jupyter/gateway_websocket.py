"""JupyterLab's proxy of a kernel's websocket to a kernel gateway
(`jupyter lab --gateway-url`), less a leak that leaves kernels of every
language showing "Unknown" now and then.

JupyterLab 4 first offers the browser's websocket a subprotocol that the
proxy to a gateway refuses; the browser drops that socket and reconnects at
once with the same session id. jupyter_server's GatewayWebSocketConnection
has by then begun its own connection to the gateway, and on the drop it
"cancels" that pending connection, which does not stop it: the gateway gets
two live websockets of one session, and their ZeroMQ sockets share one
identity, so the kernel's replies go to whichever connected last, at times
the abandoned one (Kernel Gateway), or the second connection waits forever
for the first to close (Enterprise Gateway, jupyter_server 1.x). Here a
connection that completes after the browser left is closed.

    PYTHONPATH=/path/to/icuda/tools/jupyter jupyter lab --gateway-url=URL \\
        --ServerApp.kernel_websocket_connection_class=gateway_websocket.GatewayWebSocketConnection
"""
from jupyter_server.gateway import connections


class GatewayWebSocketConnection(connections.GatewayWebSocketConnection):
    """The gateway proxy that closes the connection it no longer needs."""

    def disconnect(self):
        pending = self.ws is None and self.ws_future is not None and not self.ws_future.done()
        if not pending:
            super().disconnect()
            return
        # let the connection complete, then close it: cancelling the future
        # would only orphan it
        self.disconnected = True
        self.ws_future.add_done_callback(_close_when_open)


def _close_when_open(fut):
    if not fut.cancelled() and fut.exception() is None:
        fut.result().close()
