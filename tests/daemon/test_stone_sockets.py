"""
The stone lost and back, over real sockets, against a real C{twistd gsmcp
--simulated} (a test double): C{/healthz} follows the first login that
succeeds, not the daemon's own session's next pass.
"""

import json
import time

from gsmcpd.testing.simulator.control import SimulatorControl
from tests.realdaemon import DaemonTestCase, get


class StoneBackTests(DaemonTestCase):

    def test_healthyAtTheFirstLogin(self):
        """
        Once the daemon's own session has found its gem gone (a pass every
        15 s), C{/healthz} answers 503; a client's login that succeeds
        makes it 200 at once, though that session is only logged in again
        at its next pass.
        """
        daemon = self.startDaemon()
        stone = SimulatorControl(daemon.stoneSocket())
        [own] = stone.call({"op": "sessions"})["sessions"]
        stone.call({"op": "kill", "session": own["session"]})
        deadline = time.monotonic() + 30
        while get(daemon.port, "/healthz")[0] == 200:
            self.assertLess(time.monotonic(), deadline, daemon.log())
            time.sleep(0.1)
        status, _, body = get(daemon.port, "/healthz")
        self.assertIn("the stone cannot be reached", json.loads(body)[
            "reason"])
        daemon.initialize()
        status, _, body = get(daemon.port, "/healthz")
        self.assertEqual(status, 200, body)
        self.assertNotIn("session is back", daemon.log())
