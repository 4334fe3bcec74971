"""
The frozen heap over real sockets (L{gsmcpd.daemon.heap}): bursts of
sessions that all end leave the daemon's memory flat once it has reached
its working size.
"""

import concurrent.futures
import http.client
import json
import threading

from tests.realdaemon import DaemonTestCase

BURST = 200
CALLS = ((2, "list_all_classes", {}), (3, "status", {}),
         (4, "find_senders", {"selector": "printString"}),
         (5, "execute_code", {"code": "3 + 4"}))
"""What each session calls once the burst's sessions are all open."""


def rssMegabytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def settled(after):
    """
    Whether the last three bursts of C{after} (RSS in MB after each) added
    less than 4 MB together.
    """
    return len(after) >= 4 and after[-1] - after[-4] < 4


def oneSession(port, together):
    """
    One client's session: initialize, an event stream, L{CALLS} once all
    the burst's sessions are open, and C{DELETE}.
    """
    calls = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    stream = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        headers = {"content-type": "application/json",
                   "accept": "application/json, text/event-stream"}

        def post(message):
            calls.request("POST", "/mcp", json.dumps(message), headers)
            response = calls.getresponse()
            return response, response.read()

        response, body = post({
            "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "burst", "version": "1"}}})
        headers["mcp-session-id"] = response.getheader("mcp-session-id")
        if headers["mcp-session-id"] is None:
            together.abort()
            raise AssertionError(body)
        stream.request("GET", "/mcp", headers={
            "mcp-session-id": headers["mcp-session-id"],
            "accept": "text/event-stream"})
        stream.getresponse()
        together.wait()
        for id, name, arguments in CALLS:
            _, body = post({"jsonrpc": "2.0", "id": id,
                            "method": "tools/call",
                            "params": {"name": name, "arguments": arguments}})
            if b'"isError":true' in body or b'"error"' in body:
                raise AssertionError(body)
        calls.request("DELETE", "/mcp", headers=headers)
        calls.getresponse().read()
    finally:
        calls.close()
        stream.close()


class BurstTests(DaemonTestCase):

    def test_burstsLeaveNoGrowth(self):
        """
        Bursts of 200 sessions, all closed: the daemon's RSS settles, three
        bursts in a row adding less than 4 MB together, within fifteen
        bursts, and within 25 MB of what the first left.  The first bursts
        raise malloc's and the frozen heap's high-water marks (10 to 14 MB
        over five to eight bursts here, then flat; how many depends on where
        the heap's ten-second passes fall).  Frozen while alive, a session's
        cyclic garbage once stayed until the next thaw, ten minutes away: 4
        to 6 MB a burst, never settling.
        """
        daemon = self.startDaemon(
            "--max-sessions", str(BURST),
            "--max-connections-per-peer", str(2 * BURST + 10))
        after = []
        with concurrent.futures.ThreadPoolExecutor(BURST) as clients:
            while len(after) < 15 and not settled(after):
                together = threading.Barrier(BURST, timeout=120)
                sessions = [clients.submit(oneSession, daemon.port, together)
                            for _ in range(BURST)]
                for each in sessions:
                    each.result()
                after.append(rssMegabytes(daemon.process.pid))
        self.assertTrue(settled(after), after)
        self.assertLess(after[-1] - after[0], 25, after)
