"""
Tests for L{gsmcpd.tools.context}: the null context lets daemon-owned work
run a tool without checking which context it has.
"""

from twisted.internet.defer import Deferred, succeed
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from gsmcpd.tools.context import NULL_CONTEXT, ICallContext
from gsmcpd.tools.questions import sampling
from gsmcpd.tools.templates.outcomes import ToolError


class NullCallContextTests(SynchronousTestCase):

    def test_provides(self):
        self.assertTrue(verifyObject(ICallContext, NULL_CONTEXT))

    def test_neverEndingNorWantingProgress(self):
        running = Deferred()
        self.assertIs(NULL_CONTEXT.start(lambda: running), running)
        self.assertEqual(
            self.successResultOf(NULL_CONTEXT.start(succeed, 7)), 7)
        self.assertFalse(NULL_CONTEXT.wantsProgress)

    def test_sendsNothing(self):
        running = NULL_CONTEXT.start(Deferred)
        NULL_CONTEXT.log("info", "x")
        NULL_CONTEXT.reportProgress(1, 2)
        NULL_CONTEXT.closeStream()
        self.assertNoResult(running)

    def test_cannotAskAClient(self):
        """
        No client waits on daemon-owned work, so a tool asking one gets a
        refusal it can report, not a hang.
        """
        self.assertFalse(NULL_CONTEXT.canAsk("sampling"))
        error = self.assertRaises(ToolError, NULL_CONTEXT.ask, {
            "sample": sampling("Say hello", 20)})
        self.assertEqual(error.kind, "refused")
        self.assertIn("cannot ask the client", error.message)
