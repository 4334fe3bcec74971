"""
Tests for L{gsmcpd.protocol.eras.legacy.asking}: a 2025 call asks its
client on its own stream.
"""

from twisted.internet.defer import succeed
from twisted.trial.unittest import SynchronousTestCase

from gsmcpd.protocol.eras.legacy.asking import StreamAsker
from gsmcpd.tools.questions import elicitation, roots
from gsmcpd.tools.templates.outcomes import ToolError
from tests.builders import clientSession
from tests.fakes import FakeGem, RecordingSink


class Pending:
    """
    The server's requests to clients, answered at once by method.
    """

    def __init__(self):
        self.sent = []

    def send(self, session, method, params=None, via=None):
        self.sent.append((session, method, via))
        return succeed({"answered": method})


class StreamAskerTests(SynchronousTestCase):
    """
    Asking on the call's stream: what the client's session declared says
    what it can answer, and each question is one request.
    """

    def test_canAskByTheSessionsCapabilities(self):
        client = clientSession(FakeGem(), capabilities={
            "elicitation": {}, "sampling": True})
        asker = StreamAsker(Pending(), client, RecordingSink())
        self.assertTrue(asker.canAsk("elicitation"))
        self.assertFalse(asker.canAsk("sampling"))
        self.assertFalse(asker.canAsk("roots"))

    def test_askSendsEach(self):
        pending, sink = Pending(), RecordingSink()
        client = clientSession(FakeGem())
        answers = self.successResultOf(StreamAsker(pending, client, sink).ask(
            {"who": elicitation("Who?", {"name": {"type": "string"}}),
             "roots": roots()}))
        self.assertEqual(sorted(method for _, method, _ in pending.sent),
                         ["elicitation/create", "roots/list"])
        self.assertEqual({(session, via) for session, _, via in pending.sent},
                         {(client, sink)})
        self.assertEqual(answers["roots"], {"answered": "roots/list"})

    def test_noStreamNoQuestion(self):
        """
        A call not answered as a stream cannot ask: each request is
        refused, and the question fails naming why.
        """
        pending = Pending()
        asker = StreamAsker(pending, clientSession(FakeGem()), None)
        error = self.assertRaises(ToolError, asker.send, "roots/list", {})
        self.assertEqual(error.kind, "refused")
        failure = self.failureResultOf(asker.ask({"roots": roots()}),
                                       ToolError)
        self.assertIn("accepts an event stream", failure.value.message)
        self.assertEqual(pending.sent, [])
