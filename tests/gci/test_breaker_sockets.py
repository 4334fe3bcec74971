"""
A break that blocks (a wedged gem or NetLDI) stalls nothing else, on a real
daemon over real sockets: the simulated stone's libgcits (a test double)
holds every break for 10 s (C{FAKEGCITS_BREAK_DELAY}) while C{/healthz} and
another session are asked again and again.
"""

import http.client
import json
import time
from concurrent.futures import ThreadPoolExecutor

from tests.realdaemon import DaemonTestCase, get

BREAK_DELAY = 10
"""Seconds each break blocks in the fake libgcits."""

PROMPT = 0.05
"""Seconds within which the daemon answers meanwhile."""


def notify(daemon, session, method, **params):
    """
    POST one JSON-RPC notification; its HTTP status.
    """
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port,
                                            timeout=30)
    try:
        connection.request("POST", "/mcp", json.dumps(
            {"jsonrpc": "2.0", "method": method, "params": params}), {
                "content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-session-id": session})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def timed(call, *args, **kwargs):
    started = time.monotonic()
    result = call(*args, **kwargs)
    return time.monotonic() - started, result


class StuckBreakSocketTests(DaemonTestCase):

    def test_aStuckBreakStallsNothingElse(self):
        daemon = self.startDaemon(
            environ={"FAKEGCITS_BREAK_DELAY": str(BREAK_DELAY)})
        stuck, other = daemon.initialize(), daemon.initialize()

        def execute(session, id, code):
            return daemon.rpc("tools/call", session, id, name="execute_code",
                              arguments={"code": code})

        # Both sessions' gems are logged in before the clock starts.
        for id, session in enumerate((stuck, other), 2):
            self.assertEqual(execute(session, id, "1")[0], 200)
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(execute, stuck, 10,
                                  "(Delay forSeconds: 30) wait. 42")
            time.sleep(0.5)
            breakAsked = time.monotonic()
            self.assertEqual(notify(daemon, stuck, "notifications/cancelled",
                                    requestId=10), 202)
            # The cancelled call is answered at once; its break is now
            # stuck in the library for BREAK_DELAY seconds.
            running.result(timeout=5)
            time.sleep(0.2)
            answers = []
            for id in range(20, 30):
                elapsed, (status, _, _) = timed(get, daemon.port,
                                                "/healthz")
                answers.append(("healthz", elapsed, status))
                elapsed, (status, _, body) = timed(execute, other, id,
                                                   f"{id} + 1")
                answers.append(("other session", elapsed, status))
                self.assertEqual(body["result"]["content"][0]["text"],
                                 str(id + 1), body)
            self.assertLess(time.monotonic() - breakAsked, BREAK_DELAY,
                            "the answers came after the break returned")
        self.assertEqual({status for _, _, status in answers}, {200})
        slow = [(what, round(elapsed, 3)) for what, elapsed, _ in answers
                if elapsed > PROMPT]
        self.assertEqual(slow, [], daemon.log()[-3000:])
