"""
Resuming a dropped call stream (issue 11, item 6), against a live
C{twistd gsmcp --simulated}: a client that drops a streamed call and comes
back with C{Last-Event-ID} gets what it missed and the call's result.
"""

import http.client
import json
import socket

from twisted.trial.unittest import SynchronousTestCase

from tests.hostile.live import LiveDaemon


def events(body):
    """
    C{(id, data)} of each event in an event-stream body.
    """
    found = []
    for block in body.decode().split("\n\n"):
        fields = dict(line.split(":", 1) for line in block.splitlines()
                      if ":" in line and not line.startswith(":"))
        if fields:
            found.append((fields.get("id", "").strip(),
                          fields.get("data", "").strip()))
    return found


class ResumeTests(LiveDaemon, SynchronousTestCase):

    def test_droppedStreamResumed(self):
        """
        Twice resumed, once while the call runs and once after it ended,
        the stream delivers the call's result, and the daemon serves on.
        """
        body = json.dumps({
            "jsonrpc": "2.0", "id": 31, "method": "tools/call",
            "params": {"name": "execute_code", "_meta": {"progressToken": 1},
                       "arguments": {"code": "(Delay forSeconds: 2) wait. 6 * 7"}}
        }).encode()
        with socket.create_connection(("127.0.0.1", self.daemon.port)) as s:
            s.sendall(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\n"
                b"Accept: application/json, text/event-stream\r\n"
                b"Mcp-Session-Id: " + self.session.encode() + b"\r\n"
                b"Content-Length: %d\r\n\r\n" % (len(body),) + body)
            received = b""
            while b"id:" not in received:
                received += s.recv(4096)
        firstId = received.split(b"id:")[1].split(b"\n")[0].strip().decode()
        for _ in range(2):
            connection = http.client.HTTPConnection(
                "127.0.0.1", self.daemon.port, timeout=20)
            connection.request("GET", "/mcp", headers={
                "mcp-session-id": self.session,
                "accept": "text/event-stream", "last-event-id": firstId})
            response = connection.getresponse()
            self.assertEqual(response.status, 200)
            answers = [json.loads(data) for _, data in events(response.read())
                       if data]
            connection.close()
            final = [a for a in answers if a.get("id") == 31]
            self.assertEqual(final[0]["result"]["content"][0]["text"], "42")
