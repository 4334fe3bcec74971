"""
A frozen stone (its process stopped with C{SIGSTOP}) against a real daemon
on the simulated stone (a test double): C{/healthz} says so within the
control pass's deadline and recovers on C{SIGCONT}, and a new session's
C{initialize} answers within the login deadline instead of hanging
(issue 23, item 6).
"""

import json
import os
import signal
import time

from gsmcpd.daemon.stone import CONTROL_INTERVAL
from tests.realdaemon import DaemonTestCase, get

STONE_DEADLINE = 2
"""The daemon's --stone-deadline here, in seconds."""


def childrenOf(pid):
    """
    The process ids whose parent is C{pid}.
    """
    children = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name, in parentheses, may hold spaces.
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            children.append(int(entry))
    return children


def waitUntil(predicate, seconds):
    """
    Poll C{predicate} until it holds; the seconds it took, or L{None} when
    it did not hold within C{seconds}.
    """
    began = time.monotonic()
    while time.monotonic() - began < seconds:
        if predicate():
            return time.monotonic() - began
        time.sleep(0.1)
    return None


class FrozenStoneTests(DaemonTestCase):

    def test_frozenStoneIsNotHealthy(self):
        daemon = self.startDaemon("--stone-deadline", str(STONE_DEADLINE))
        self.assertEqual(get(daemon.port, "/healthz")[0], 200)
        stone, = childrenOf(daemon.process.pid)
        os.kill(stone, signal.SIGSTOP)
        thawed = []

        def thaw():
            if not thawed:
                os.kill(stone, signal.SIGCONT)
                thawed.append(True)
        self.addCleanup(thaw)

        def healthIs(status):
            return lambda: get(daemon.port, "/healthz")[0] == status
        # The next pass begins within an interval; it is late after the
        # deadline.
        took = waitUntil(healthIs(503), CONTROL_INTERVAL + STONE_DEADLINE + 5)
        self.assertIsNotNone(took, daemon.log())
        status, _, body = get(daemon.port, "/healthz")
        self.assertIn("not answering", json.loads(body)["reason"])

        began = time.monotonic()
        status, _, answer = daemon.rpc("initialize",
                                       protocolVersion="2025-11-25")
        self.assertLess(time.monotonic() - began, STONE_DEADLINE + 2)
        self.assertEqual(status, 200)
        self.assertEqual(answer["error"]["data"], {
            "kind": "stoneNotAnswering", "deadline": STONE_DEADLINE})

        thaw()
        self.assertIsNotNone(waitUntil(healthIs(200), STONE_DEADLINE + 5),
                             daemon.log())
        self.assertIn("the stone answers the daemon's own session again",
                      daemon.log())
