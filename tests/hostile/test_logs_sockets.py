"""
Log flooding (issue 11, item 8), against a live C{twistd gsmcp
--simulated}: a megabyte id, C{clientInfo} or cancel reason never becomes a
megabyte of log, and a session's full id is not logged at info level.
"""

import threading
import time

from twisted.trial.unittest import SynchronousTestCase

from tests.hostile.live import LiveDaemon

MEGABYTE = 1 << 20
LONGEST_LINE = 2048


class LogFloodTests(LiveDaemon, SynchronousTestCase):

    def test_clientValuesClipped(self):
        hugeId = "i" * MEGABYTE
        self.call({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-11-25",
                              "clientInfo": {"name": "n" * MEGABYTE,
                                             "version": "1"}}},
                  session=False)
        calling = threading.Thread(target=self.call, args=({
            "jsonrpc": "2.0", "id": hugeId, "method": "tools/call",
            "params": {"name": "execute_code", "arguments": {
                "code": "(Delay forSeconds: 5) wait. 1"}}},))
        calling.start()
        deadline = time.monotonic() + 10
        while "the client cancelled" not in self.daemon.log() and \
                time.monotonic() < deadline:
            self.call({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": hugeId,
                                  "reason": "r" * MEGABYTE}})
            time.sleep(0.2)
        calling.join()
        log = self.daemon.log()
        self.assertIn("the client cancelled request", log)
        self.assertLessEqual(max(map(len, log.splitlines())), LONGEST_LINE)
        self.assertNotIn(self.session, log)
        self.assertIn(self.session[:8], log)
