"""
The standalone server-to-client stream (C{GET /mcp}) as Server-Sent Events.
"""

import json

from twisted.internet.defer import Deferred
from twisted.internet.task import LoopingCall

KEEPALIVE_INTERVAL = 15.0
"""Seconds between keepalive comments: sized to proxy and NAT idle timeouts."""


class EventStream:
    """
    One open C{text/event-stream} response.

    @ivar done: fires when the stream has ended, from either side; the
        route returns it, so Klein finishes the response when it fires and
        cancels it when the client goes away.
    """

    def __init__(self, request, clock):
        self._request = request
        self._open = True
        self.done = Deferred(lambda _: self._closed())
        request.notifyFinish().addBoth(lambda _: self._closed())
        request.setHeader(b"content-type", b"text/event-stream")
        request.setHeader(b"cache-control", b"no-cache")
        request.write(b": stream open\n\n")
        self._keepalive = LoopingCall(self._write, b": keepalive\n\n")
        self._keepalive.clock = clock
        self._keepalive.start(KEEPALIVE_INTERVAL, now=False)

    @property
    def open(self):
        return self._open

    def send(self, message):
        """
        Write one JSON-RPC message as an event.
        """
        self._write(b"event: message\ndata: "
                    + json.dumps(message, ensure_ascii=False).encode("utf-8")
                    + b"\n\n")

    def end(self):
        """
        End the stream from the server side.
        """
        self._closed()

    def _write(self, data):
        if self._open:
            self._request.write(data)

    def _closed(self):
        if not self._open:
            return
        self._open = False
        if self._keepalive.running:
            self._keepalive.stop()
        if not self.done.called:
            self.done.callback(None)
