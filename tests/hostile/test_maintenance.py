"""
Maintenance that one stuck session cannot stop (issue 11, item 1), on a
Clock over fake GemStone sessions.
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.sessions.hygiene import CHECK_TIME_LIMIT
from tests.sessions.test_hygiene import HygieneTestCase


class CheckTimeLimitTests(HygieneTestCase):

    @inlineCallbacks
    def test_stuckCheckDoesNotStopThePass(self):
        """
        A session whose view check never answers is given up after the
        check's time limit, and the pass goes on to the next session.
        """
        other = yield self.open()
        checks = other.gem.calls.count(("session_state", {}))
        self.gem.held = True
        passing = self.hygiene.maintain()
        self.assertEqual(len(self.gem.pending), 1)
        self.assertEqual(other.gem.calls.count(("session_state", {})), checks)
        self.clock.advance(CHECK_TIME_LIMIT)
        yield passing
        self.assertEqual(other.gem.calls.count(("session_state", {})),
                         checks + 1)
